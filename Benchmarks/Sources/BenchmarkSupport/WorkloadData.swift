// What the workloads read and write, and the checksums that verify them: one definition for
// every implementation.

/// The data of the workloads.
public enum WorkloadData {
    /// W1–W3b: rows of the fetch table.
    public static let fetchRowCount = 200_000
    /// W4–W5b: rows inserted in one transaction.
    public static let insertRowCount = 50_000
    /// EXPORT: rows of the ~52 MB database (each with a 200-byte text).
    public static let exportRowCount = 240_000

    public static let columns = (0..<10).map { "c\($0)" }
    public static let createSQL = "CREATE TABLE item(id INTEGER PRIMARY KEY, \(columns.map { "\($0) INTEGER NOT NULL" }.joined(separator: ", ")))"
    public static let insertSQL = "INSERT INTO item (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    public static let selectSQL = "SELECT \(columns.joined(separator: ", ")) FROM item"
    /// The inserted checksum, computed by SQLite.
    public static let sumSQL = "SELECT COUNT(*), SUM(\(columns.joined(separator: " + "))) FROM item"

    /// The ten values of row `i`, in both tables.
    @inline(__always)
    public static func value(_ row: Int, _ column: Int) -> Int64 { Int64(row &* 10 &+ column) }

    /// The sum of every value of rows 0..<count.
    public static func expectedSum(rows count: Int) -> Int64 {
        // Sum over i < count of (100 i + 45).
        let n = Int64(count)
        return 100 * (n * (n - 1) / 2) + 45 * n
    }

    /// EXPORT's table and its checksum query.
    public static let exportCreateSQL = "CREATE TABLE document(id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, body TEXT NOT NULL)"
    public static let exportInsertSQL = "INSERT INTO document(kind, body) VALUES (?, ?)"
    public static let exportChecksumSQL = "SELECT COUNT(*), SUM(kind), SUM(length(body)) FROM document"
    public static func exportBody(_ row: Int) -> String {
        let prefix = "document \(row) "
        return prefix + String(repeating: "x", count: 200 - prefix.utf8.count)
    }
    /// Row count, sum of `kind` (row % 7) and total body length of the export database.
    public static let exportExpected: (count: Int64, kinds: Int64, lengths: Int64) = {
        let n = Int64(exportRowCount)
        let kinds = (0..<exportRowCount).reduce(Int64(0)) { $0 + Int64($1 % 7) }
        return (n, kinds, 200 * n)
    }()

    /// The passphrases and raw key of the encrypted workloads (SQLCipher 4 defaults).
    public static let passphrase = "benchmark passphrase"
    public static let otherPassphrase = "another benchmark passphrase"
    public static let rawKeyHex = String(repeating: "3C", count: 32)

    // MARK: W11: full-text search

    /// W11: documents indexed by FTS5, and the queries run on them.
    public static let ftsDocumentCount = 100_000
    public static let ftsQueryCount = 1_000
    public static let ftsCreateSQL = "CREATE VIRTUAL TABLE doc USING fts5(body)"
    public static let ftsInsertSQL = "INSERT INTO doc(body) VALUES (?)"
    public static let ftsMatchSQL = "SELECT * FROM \"doc\" WHERE \"doc\" MATCH ?"

    /// The words of the documents: two- and three-syllable made-up words (1,872 of them).
    public static let ftsVocabulary: [String] = {
        let syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "fa", "gu", "hi"]
        var words: [String] = []
        for a in syllables { for b in syllables { words.append(a + b) } }
        for a in syllables { for b in syllables { for c in syllables { words.append(a + b + c) } } }
        return words
    }()

    /// A deterministic pseudo-random sequence (a linear congruential generator).
    private static func lcg(_ seed: Int, _ index: Int) -> Int {
        var x = UInt64(truncatingIfNeeded: seed &* 1_000_003 &+ index &* 7_919)
        x = x &* 6364136223846793005 &+ 1442695040888963407
        x ^= x >> 33
        return Int(x % UInt64(Int.max))
    }

    /// The words of document `i`: eight of them, as a short sentence.
    public static func ftsDocumentWords(_ i: Int) -> [String] {
        // A skewed choice: some words are frequent, most are rare, as in text.
        (0..<8).map { k in
            let r = lcg(i, k)
            let range = (r % 4 == 0) ? 60 : ftsVocabulary.count
            return ftsVocabulary[(r / 4) % range]
        }
    }

    public static func ftsDocument(_ i: Int) -> String {
        var words = ftsDocumentWords(i)
        words[0] = words[0].prefix(1).uppercased() + words[0].dropFirst()
        return words.joined(separator: " ") + "."
    }

    /// Query `q`: two words, as a user types them (capitalized), both frequent or not.
    public static func ftsQuery(_ q: Int) -> String {
        let a = ftsVocabulary[lcg(q, 100) % (q % 2 == 0 ? 60 : 400)]
        let b = ftsVocabulary[lcg(q, 101) % 60]
        return a.uppercased() + " " + b.capitalized
    }

    /// The raw pattern of query `q`, as `FTS5Pattern(matchingAllTokensIn:)` makes it.
    public static func ftsRawPattern(_ q: Int) -> String {
        ftsQuery(q).lowercased()
    }

    /// The number of documents all the queries match, counted without SQLite.
    public static let ftsExpectedMatches: Int = {
        var index: [String: Set<Int>] = [:]
        for i in 0..<ftsDocumentCount {
            for word in ftsDocumentWords(i) { index[word, default: []].insert(i) }
        }
        var total = 0
        for q in 0..<ftsQueryCount {
            let words = ftsRawPattern(q).split(separator: " ").map(String.init)
            total += words.dropFirst().reduce(index[words[0]] ?? []) { $0.intersection(index[$1] ?? []) }.count
        }
        return total
    }()
}
