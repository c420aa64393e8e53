import Foundation
import GRDBCipher

// The database of the kill trials: transactions of random size, each a `txn` row, its `item`
// rows (records with a nested Codable payload stored as JSON), their full-text rows, and a
// running total in `meta`. A transaction is all there or not at all: the checks find any half.

struct Txn: Codable, FetchableRecord, PersistableRecord {
    var id: Int64
    var rows: Int
    var note: String
}

struct Payload: Codable, Equatable {
    var words: [String]
    var weight: Double
    var flags: [String: Bool]
}

struct Item: Codable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var txnId: Int64
    var seq: Int
    var payload: Payload
    var body: String

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

enum Workload {
    static let words = [
        "amber", "basalt", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper",
        "kelp", "lantern", "meadow", "nickel", "onyx", "pepper", "quartz", "river", "saffron", "tundra",
        "umber", "violet", "willow", "xenon", "yarrow", "zephyr", "anchor", "bramble", "cobalt", "dune",
    ]

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("schema") { db in
            try db.create(table: "txn") { t in
                t.column("id", .integer).primaryKey()
                t.column("rows", .integer).notNull()
                t.column("note", .text).notNull()
            }
            try db.create(table: "item") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("txnId", .integer).notNull().references("txn").indexed()
                t.column("seq", .integer).notNull()
                t.column("payload", .jsonText).notNull()
                t.column("body", .text).notNull()
            }
            try db.create(virtualTable: "item_fts", using: FTS5()) { t in
                t.column("body")
                t.column("txnId").notIndexed()
            }
            try db.create(table: "meta") { t in
                t.column("id", .integer).primaryKey()
                t.column("total", .integer).notNull()
            }
            try db.execute(sql: "INSERT INTO meta(id, total) VALUES (1, 0)")
        }
        return migrator
    }

    /// Writes transaction `id` with `rows` items, in the caller's transaction.
    static func writeTransaction(_ db: Database, id: Int64, rows: Int, using generator: inout SeededGenerator) throws {
        try Txn(id: id, rows: rows, note: "txn \(id)").insert(db)
        for seq in 0..<rows {
            let count = Int.random(in: 5...30, using: &generator)
            let chosen = (0..<count).map { _ in words.randomElement(using: &generator)! }
            let body = chosen.joined(separator: " ")
            var item = Item(
                id: nil, txnId: id, seq: seq,
                payload: Payload(
                    words: Array(chosen.prefix(4)),
                    weight: Double(Int.random(in: 0...10_000, using: &generator)) / 100,
                    flags: ["even": seq % 2 == 0, "first": seq == 0]),
                body: body)
            try item.insert(db)
            try db.execute(sql: "INSERT INTO item_fts(rowid, body, txnId) VALUES (?, ?, ?)", arguments: [item.id, body, id])
        }
        try db.execute(sql: "UPDATE meta SET total = total + ? WHERE id = 1", arguments: [rows])
    }

    /// The size of a random transaction: mostly small, sometimes large.
    static func randomSize(using generator: inout SeededGenerator) -> Int {
        switch Int.random(in: 0..<100, using: &generator) {
        case 0..<80: return Int.random(in: 1...20, using: &generator)
        case 80..<95: return Int.random(in: 21...200, using: &generator)
        default: return Int.random(in: 201...1000, using: &generator)
        }
    }

    /// Everything a transaction promises, checked on an opened database (which must be
    /// writable: the full-text integrity check is an INSERT). Returns the problems found.
    static func checkConsistency(_ db: Database) throws -> [String] {
        var problems: [String] = []
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        if integrity != ["ok"] { problems.append("integrity_check: \(integrity.prefix(5))") }
        // The library's check: the WAL folded into the file first (SQLCipher's pragma reads
        // the file's pages only, which the WAL may supersede, and the pages a crash left past
        // the database's end, which SQLite ignores and the fold truncates).
        let cipherIntegrity = try db.cipherIntegrityProblems()
        if !cipherIntegrity.isEmpty { problems.append("cipher_integrity_check: \(cipherIntegrity.prefix(5))") }
        let half = try Int64.fetchAll(db, sql: """
            SELECT id FROM txn WHERE rows != (SELECT COUNT(*) FROM item WHERE item.txnId = txn.id) LIMIT 5
            """)
        if !half.isEmpty { problems.append("transactions with missing items: \(half)") }
        let orphans = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE txnId NOT IN (SELECT id FROM txn)")!
        if orphans != 0 { problems.append("\(orphans) items without their transaction") }
        let itemCount = try Item.fetchCount(db)
        let total = try Int.fetchOne(db, sql: "SELECT total FROM meta WHERE id = 1")
        if total != itemCount { problems.append("meta.total \(total.map(String.init) ?? "nil") != \(itemCount) items") }
        let ftsCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item_fts")!
        if ftsCount != itemCount { problems.append("\(ftsCount) full-text rows for \(itemCount) items") }
        let unmatched = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM item_fts f LEFT JOIN item i ON i.id = f.rowid
            WHERE i.id IS NULL OR i.body != f.body OR i.txnId != f.txnId
            """)!
        if unmatched != 0 { problems.append("\(unmatched) full-text rows differ from their items") }
        do {
            try db.execute(sql: "INSERT INTO item_fts(item_fts, rank) VALUES ('integrity-check', 1)")
        } catch {
            problems.append("full-text integrity-check: \(error)")
        }
        let badJSON = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE json_valid(payload) = 0")!
        if badJSON != 0 { problems.append("\(badJSON) payloads are not JSON") }
        // Decoding every record: the JSON payloads and the columns round-trip.
        let items = try Item.fetchAll(db)
        for item in items where item.payload.words.isEmpty || !item.body.hasPrefix(item.payload.words[0]) {
            problems.append("item \(item.id ?? -1) payload does not match its body")
            break
        }
        return problems
    }
}
