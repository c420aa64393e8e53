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
}
