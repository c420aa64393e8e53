import Foundation
import Testing
@testable import GRDBCipher

// Damaged encrypted files (docs/Reliability.md): bytes flipped, pages zeroed, files truncated at
// seeded random offsets of an encrypted database and of its WAL. Opening and reading must
// either give exactly the right rows or throw SQLITE_CORRUPT or SQLITE_NOTADB; never a crash, a
// hang, or other rows. `grdbcipher verify` names the damaged pages.
//
// GRDBCIPHER_DAMAGE_CASES sets the number of cases of each test (default 150 per file kind;
// `make damaged-files` runs 1,000 of each), GRDBCIPHER_DAMAGE_SEED the first seed (a failure
// prints its seed: replay it with GRDBCIPHER_DAMAGE_CASES=1 GRDBCIPHER_DAMAGE_SEED=S).

/// SplitMix64: cases replay from their seed.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Damage: CustomStringConvertible {
    case flip([(offset: Int, mask: UInt8)])
    case zero(offset: Int, length: Int)
    case truncate(size: Int)

    var description: String {
        switch self {
        case .flip(let flips): return "flip " + flips.map { "\($0.offset)^\($0.mask)" }.joined(separator: ",")
        case .zero(let offset, let length): return "zero \(length) bytes at \(offset)"
        case .truncate(let size): return "truncate to \(size)"
        }
    }

    /// A random damage to a file of `size` bytes made of `unit`-byte pages (or WAL frames
    /// after a `header`).
    static func random(size: Int, unit: Int, header: Int, using generator: inout SeededRandom) -> Damage {
        switch Int.random(in: 0..<3, using: &generator) {
        case 0:
            let count = Int.random(in: 1...4, using: &generator)
            return .flip((0..<count).map { _ in
                (Int.random(in: 0..<size, using: &generator), UInt8.random(in: 1...255, using: &generator))
            })
        case 1:
            let units = max(1, (size - header) / unit)
            let index = Int.random(in: 0..<units, using: &generator)
            return .zero(offset: header + index * unit, length: min(unit, size - header - index * unit))
        default:
            return .truncate(size: Int.random(in: 0..<size, using: &generator))
        }
    }

    func apply(to path: String) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        switch self {
        case .flip(let flips):
            for flip in flips { data[flip.offset] ^= flip.mask }
        case .zero(let offset, let length):
            data.replaceSubrange(offset..<(offset + length), with: Data(count: length))
        case .truncate(let size):
            data = data.prefix(size)
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The pages of a database file that the damage touches (1-based), when it changes bytes.
    func pages(pageSize: Int) -> Set<Int> {
        switch self {
        case .flip(let flips): return Set(flips.map { $0.offset / pageSize + 1 })
        case .zero(let offset, _): return [offset / pageSize + 1]
        case .truncate: return []
        }
    }
}

@Suite("Damaged encrypted files")
struct DamagedFileTests {
    static let key = try! CipherKey.rawKey(hex: String(repeating: "5E", count: 32))
    static let keyHex = String(repeating: "5E", count: 32)
    static let pageSize = 4096
    static let baseRows = 300
    static let walTransactions = 10
    static let rowsPerTransaction = 20

    static var caseCount: Int {
        ProcessInfo.processInfo.environment["GRDBCIPHER_DAMAGE_CASES"].flatMap(Int.init) ?? 150
    }
    static var firstSeed: UInt64 {
        ProcessInfo.processInfo.environment["GRDBCIPHER_DAMAGE_SEED"].flatMap(UInt64.init) ?? 36_000
    }

    /// The body of row `id`: a function of the id, so that every row read can be checked.
    static func body(_ id: Int) -> String {
        var generator = SeededRandom(seed: UInt64(id))
        let words = ["salt", "cipher", "page", "frame", "vault", "ledger", "quill", "harbor"]
        return (0..<Int.random(in: 10...40, using: &generator)).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ") + " #\(id)"
    }

    static func configuration() -> Configuration {
        var config = Configuration()
        config.prepareDatabase { db in try db.use(key) }
        return config
    }

    static func insertRows(_ db: Database, ids: ClosedRange<Int>) throws {
        for id in ids {
            try db.execute(sql: "INSERT INTO doc(id, body) VALUES (?, ?)", arguments: [id, body(id)])
        }
    }

    /// Reads every row; nil when the read threw SQLITE_CORRUPT or SQLITE_NOTADB. Any other
    /// outcome is recorded as an issue.
    static func readRows(_ path: String, case description: String) -> [Int: String]? {
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration())
            defer { try? queue.close() }
            return try queue.read { db in
                var rows: [Int: String] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT id, body FROM doc ORDER BY id") {
                    rows[row[0]] = row[1]
                }
                // A second path to the same rows: the index.
                _ = try Int.fetchAll(db, sql: "SELECT id FROM doc INDEXED BY doc_body ORDER BY body")
                return rows
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            #expect(error.message?.isEmpty == false, "\(description): an error with no message")
            return nil
        } catch {
            Issue.record("\(description): unexpected error \(error)")
            return nil
        }
    }

    /// Whether `rows` is the state after the first `transactions` WAL transactions.
    static func isState(_ rows: [Int: String], transactions: Int) -> Bool {
        let count = baseRows + transactions * rowsPerTransaction
        guard rows.count == count else { return false }
        return (1...count).allSatisfy { rows[$0] == body($0) }
    }

    /// Makes the database (a single file), or the database and its WAL holding the last
    /// `walTransactions` transactions, in `directory`. The single file also holds a table that
    /// the reads never touch.
    static func makeTemplate(in directory: TemporaryDirectory, wal: Bool) throws -> String {
        let path = directory.path("template.sqlite")
        var config = configuration()
        if wal {
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
            let pool = try DatabasePool(path: path, configuration: config)
            try pool.write { db in
                try db.execute(sql: "CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT NOT NULL); CREATE INDEX doc_body ON doc(body)")
                try insertRows(db, ids: 1...baseRows)
            }
            _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            for transaction in 0..<walTransactions {
                let first = baseRows + transaction * rowsPerTransaction + 1
                try pool.write { db in try insertRows(db, ids: first...(first + rowsPerTransaction - 1)) }
            }
            // A copy while the pool is open: the file and its WAL as a crash would leave them.
            try FileManager.default.copyItem(atPath: path, toPath: directory.path("wal-template.sqlite"))
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: directory.path("wal-template.sqlite-wal"))
            try pool.close()
            return directory.path("wal-template.sqlite")
        }
        let queue = try DatabaseQueue(path: path, configuration: config)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT NOT NULL); CREATE INDEX doc_body ON doc(body)")
            try insertRows(db, ids: 1...baseRows)
            // Pages the reads never touch: damage there must leave the reads right.
            try db.execute(sql: """
                CREATE TABLE unread(x BLOB);
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20)
                INSERT INTO unread SELECT randomblob(3000) FROM c;
                """)
        }
        try queue.close()
        return path
    }

    @Test func damagedDatabaseFile() throws {
        let directory = try TemporaryDirectory()
        let template = try Self.makeTemplate(in: directory, wal: false)
        #expect(Self.readRows(template, case: "template").map { Self.isState($0, transactions: 0) } == true)
        let size = try FileManager.default.attributesOfItem(atPath: template)[.size] as! Int
        var outcomes = [String: Int]()
        for index in 0..<Self.caseCount {
            let seed = Self.firstSeed &+ UInt64(index)
            var generator = SeededRandom(seed: seed)
            let damage = Damage.random(size: size, unit: Self.pageSize, header: 0, using: &generator)
            let path = directory.path("case.sqlite")
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: template, toPath: path)
            try damage.apply(to: path)
            let description = "seed \(seed) (\(damage))"
            if let rows = Self.readRows(path, case: description) {
                // The damage missed every page read: the rows must be the right ones.
                #expect(Self.isState(rows, transactions: 0), "\(description): wrong rows returned without an error")
                outcomes["read correctly", default: 0] += 1
            } else {
                outcomes["refused", default: 0] += 1
            }
        }
        print("damaged database files: \(Self.caseCount) cases from seed \(Self.firstSeed): \(outcomes)")
    }

    @Test func damagedWAL() throws {
        let directory = try TemporaryDirectory()
        let template = try Self.makeTemplate(in: directory, wal: true)
        let walSize = try FileManager.default.attributesOfItem(atPath: template + "-wal")[.size] as! Int
        var outcomes = [String: Int]()
        for index in 0..<Self.caseCount {
            let seed = Self.firstSeed &+ UInt64(index)
            var generator = SeededRandom(seed: seed)
            let damage = Damage.random(size: walSize, unit: 24 + Self.pageSize, header: 32, using: &generator)
            let path = directory.path("case.sqlite")
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try FileManager.default.copyItem(atPath: template, toPath: path)
            try FileManager.default.copyItem(atPath: template + "-wal", toPath: path + "-wal")
            try damage.apply(to: path + "-wal")
            let description = "seed \(seed) (WAL: \(damage))"
            if let rows = Self.readRows(path, case: description) {
                // A damaged frame ends the WAL there, as a write cut short would: what is read
                // is the state after some prefix of the transactions, never a mix.
                let state = (0...Self.walTransactions).first { Self.isState(rows, transactions: $0) }
                #expect(state != nil, "\(description): rows of no committed state (\(rows.count) rows)")
                outcomes["state after \(state ?? -1) of \(Self.walTransactions) transactions", default: 0] += 1
            } else {
                outcomes["refused", default: 0] += 1
            }
        }
        print("damaged WAL files: \(Self.caseCount) cases from seed \(Self.firstSeed): \(outcomes.sorted { $0.key < $1.key })")
    }

    /// `grdbcipher verify` names the pages whose bytes were changed.
    @Test func verifyNamesTheDamagedPages() throws {
        let directory = try TemporaryDirectory()
        let template = try Self.makeTemplate(in: directory, wal: false)
        let size = try FileManager.default.attributesOfItem(atPath: template)[.size] as! Int
        let pageCount = size / Self.pageSize
        try Data(Self.keyHex.utf8).write(to: URL(fileURLWithPath: directory.path("key")))
        chmod(directory.path("key"), 0o600)
        var generator = SeededRandom(seed: Self.firstSeed)
        for _ in 0..<12 {
            // Pages after the first: a damaged first page (its salt, its header) stops the
            // file from opening at all, which `verify` reports as such.
            let page = Int.random(in: 2...pageCount, using: &generator)
            let damage: Damage = Bool.random(using: &generator)
                ? .flip([((page - 1) * Self.pageSize + Int.random(in: 0..<Self.pageSize, using: &generator), 0x40)])
                : .zero(offset: (page - 1) * Self.pageSize, length: Self.pageSize)
            let path = directory.path("case.sqlite")
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: template, toPath: path)
            try damage.apply(to: path)
            let run = try grdbcipher(["verify", "case.sqlite", "--passphrase-file", "key", "--raw-key"], in: directory)
            #expect(run.status == 4, "\(damage): \(run.stdout) \(run.stderr)")
            let named = run.stdout.split(separator: "\n").contains { line in
                line.range(of: "\\bpage \(page)\\b", options: .regularExpression) != nil
            }
            #expect(named, "\(damage): verify does not name page \(page): \(run.stdout)")
        }
    }
}
