// The workloads written with the library: GRDBCipher in SQLCipherBenchmarks, GRDB 7.10 in
// GRDBBenchmarks, which compiles this very file through a symbolic link. Only the import
// differs (and the encrypted workloads, which GRDB on the system's SQLite cannot run).
#if SQLCIPHER
import GRDBCipher
#else
import GRDB
#endif
import BenchmarkSupport
import Foundation

#if SQLCIPHER
let libraryName = "GRDBCipher"
#else
let libraryName = "GRDB"
#endif

/// A library configuration for `mode`: encrypted databases use the passphrase.
func configuration(_ mode: Mode) -> Configuration {
    var config = Configuration()
    switch mode {
    case .plaintext:
        break
    case .encrypted:
        #if SQLCIPHER
        config.prepareDatabase { db in try db.usePassphrase(WorkloadData.passphrase) }
        #else
        preconditionFailure("GRDB on the system's SQLite does not encrypt")
        #endif
    }
    return config
}

// MARK: - Records

/// W3: reads its columns by name in `init(row:)`.
struct RowRecord: FetchableRecord {
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int64
    init(row: Row) {
        c0 = row["c0"]; c1 = row["c1"]; c2 = row["c2"]; c3 = row["c3"]; c4 = row["c4"]
        c5 = row["c5"]; c6 = row["c6"]; c7 = row["c7"]; c8 = row["c8"]; c9 = row["c9"]
    }
    var sum: Int64 { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }
}

/// W3b and W5b: `Decodable` and `Encodable`.
struct CodableRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int64
    var sum: Int64 { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }

    init(row i: Int) {
        c0 = WorkloadData.value(i, 0); c1 = WorkloadData.value(i, 1); c2 = WorkloadData.value(i, 2)
        c3 = WorkloadData.value(i, 3); c4 = WorkloadData.value(i, 4); c5 = WorkloadData.value(i, 5)
        c6 = WorkloadData.value(i, 6); c7 = WorkloadData.value(i, 7); c8 = WorkloadData.value(i, 8)
        c9 = WorkloadData.value(i, 9)
    }
}

/// W5: `encode(to:)` written by hand.
struct ManualRecord: PersistableRecord {
    static let databaseTableName = "item"
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int64

    init(row i: Int) {
        c0 = WorkloadData.value(i, 0); c1 = WorkloadData.value(i, 1); c2 = WorkloadData.value(i, 2)
        c3 = WorkloadData.value(i, 3); c4 = WorkloadData.value(i, 4); c5 = WorkloadData.value(i, 5)
        c6 = WorkloadData.value(i, 6); c7 = WorkloadData.value(i, 7); c8 = WorkloadData.value(i, 8)
        c9 = WorkloadData.value(i, 9)
    }

    func encode(to container: inout PersistenceContainer) {
        container["c0"] = c0; container["c1"] = c1; container["c2"] = c2; container["c3"] = c3
        container["c4"] = c4; container["c5"] = c5; container["c6"] = c6; container["c7"] = c7
        container["c8"] = c8; container["c9"] = c9
    }
}

enum Library {
    /// W1 and W2: `Row.fetchCursor` over a query interface request, columns by index or by name.
    static func fetchRows(_ dbQueue: DatabaseQueue, byName: Bool) throws -> Double {
        var total: Int64 = 0
        var count = 0
        let request = Table("item").select(WorkloadData.columns.map { Column($0) })
        let time = try measure {
            try dbQueue.read { db in
                let rows = try Row.fetchCursor(db, request)
                if byName {
                    while let row = try rows.next() {
                        let a: Int64 = row["c0"], b: Int64 = row["c1"], c: Int64 = row["c2"], d: Int64 = row["c3"], e: Int64 = row["c4"]
                        let f: Int64 = row["c5"], g: Int64 = row["c6"], h: Int64 = row["c7"], i: Int64 = row["c8"], j: Int64 = row["c9"]
                        total = total &+ a &+ b &+ c &+ d &+ e &+ f &+ g &+ h &+ i &+ j
                        count += 1
                    }
                } else {
                    while let row = try rows.next() {
                        for index in 0..<10 {
                            total = total &+ (row[index] as Int64)
                        }
                        count += 1
                    }
                }
            }
        }
        try verify(count == WorkloadData.fetchRowCount, "row fetch: \(count) rows")
        try verify(total == WorkloadData.expectedSum(rows: count), "row fetch: checksum \(total)")
        return time
    }

    /// W3 and W3b: every row into a record.
    static func fetchRecords<Record: FetchableRecord>(_ dbQueue: DatabaseQueue, _ type: Record.Type, sum: (Record) -> Int64) throws -> Double {
        var total: Int64 = 0
        var count = 0
        let time = try measure {
            try dbQueue.read { db in
                let records = try Record.fetchCursor(db, sql: WorkloadData.selectSQL)
                while let record = try records.next() {
                    total = total &+ sum(record)
                    count += 1
                }
            }
        }
        try verify(count == WorkloadData.fetchRowCount, "\(Record.self) fetch: \(count) rows")
        try verify(total == WorkloadData.expectedSum(rows: count), "\(Record.self) fetch: checksum \(total)")
        return time
    }

    /// W4: one prepared statement, executed with new arguments for each row.
    static func insertWithStatement(_ dbQueue: DatabaseQueue) throws -> Double {
        try insert(dbQueue, insertRows)
    }

    private static func insertRows(_ db: Database) throws {
        let statement = try db.makeStatement(sql: WorkloadData.insertSQL)
        for i in 0..<WorkloadData.insertRowCount {
            try statement.execute(arguments: [
                WorkloadData.value(i, 0), WorkloadData.value(i, 1), WorkloadData.value(i, 2),
                WorkloadData.value(i, 3), WorkloadData.value(i, 4), WorkloadData.value(i, 5),
                WorkloadData.value(i, 6), WorkloadData.value(i, 7), WorkloadData.value(i, 8),
                WorkloadData.value(i, 9),
            ])
        }
    }

    /// W5: `PersistableRecord.insert` with `encode(to:)` written by hand.
    static func insertManualRecords(_ dbQueue: DatabaseQueue) throws -> Double {
        try insert(dbQueue) { db in
            for i in 0..<WorkloadData.insertRowCount {
                try ManualRecord(row: i).insert(db)
            }
        }
    }

    /// W5b: `PersistableRecord.insert` with `Encodable`.
    static func insertCodableRecords(_ dbQueue: DatabaseQueue) throws -> Double {
        try insert(dbQueue) { db in
            for i in 0..<WorkloadData.insertRowCount {
                try CodableRecord(row: i).insert(db)
            }
        }
    }

    /// W6: W4 with a transaction observer added, that observes `observedTable`, and counts the
    /// changes it is told. With `item`, it hears of the 50,000 insertions; with another table,
    /// of nothing but the commit.
    static func insertObserved(_ dbQueue: DatabaseQueue, observedTable: String) throws -> Double {
        let observer = CountingObserver(table: observedTable)
        let time = try insert(dbQueue, beforeMeasure: { dbQueue.add(transactionObserver: observer) }, insertRows)
        dbQueue.remove(transactionObserver: observer)
        let expected = observedTable == "item" ? WorkloadData.insertRowCount : 0
        try verify(observer.changes == expected && observer.commits == 1, "W6 observer: \(observer.changes) changes, \(observer.commits) commits")
        return time
    }

    /// Runs `inserts` in one transaction, and verifies what the table holds. The previous
    /// run's rows are deleted first, outside of the measured time (the workload is the inserts).
    static func insert(_ dbQueue: DatabaseQueue, beforeMeasure: () -> Void = {}, _ inserts: (Database) throws -> Void) throws -> Double {
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM item") }
        beforeMeasure()
        let time = try measure {
            try dbQueue.write { db in
                try inserts(db)
            }
        }
        let row = try dbQueue.read { db in try Row.fetchOne(db, sql: WorkloadData.sumSQL)! }
        try verifyInserted([row[0], row[1]], "\(libraryName) insert")
        return time
    }

    /// OPEN: opens a database queue, runs a first query, closes it.
    static func open(path: String, configuration: Configuration) throws -> Double {
        var count = -1
        let time = try measure {
            let dbQueue = try DatabaseQueue(path: path, configuration: configuration)
            count = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item")! }
            try dbQueue.close()
        }
        try verify(count == openRowCount, "open: \(count) rows")
        return time
    }

    /// POOL: the time of a read that must open the pool's Nth reader: the pool's readers are
    /// invalidated, a first reader opens and is held busy by another thread, and the measured
    /// read opens another.
    static func nthReader(_ pool: DatabasePool) throws -> Double {
        pool.invalidateReadOnlyConnections()
        _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
        let busy = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? pool.read { _ in busy.signal(); release.wait() }
            done.signal()
        }
        holder.start()
        busy.wait()
        var count = -1
        let time = try measure {
            count = try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item")! }
        }
        release.signal()
        done.wait()
        try verify(count == openRowCount, "pool read: \(count) rows")
        return time
    }

    /// W11-insert: indexes the documents in one transaction, with one prepared statement,
    /// in a table created by `create(virtualTable:using:)` (not measured).
    static func ftsInsert(_ dbQueue: DatabaseQueue) throws -> Double {
        try dbQueue.write { db in
            try db.execute(sql: "DROP TABLE IF EXISTS doc")
            try db.create(virtualTable: "doc", using: FTS5()) { t in
                t.column("body")
            }
        }
        let documents = (0..<WorkloadData.ftsDocumentCount).map(WorkloadData.ftsDocument)
        let time = try measure {
            try dbQueue.write { db in
                let statement = try db.makeStatement(sql: WorkloadData.ftsInsertSQL)
                for document in documents {
                    try statement.execute(arguments: [document])
                }
            }
        }
        let count = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM doc")! }
        try verify(count == WorkloadData.ftsDocumentCount, "\(libraryName) FTS insert: \(count) rows")
        return time
    }

    /// W11-match: runs the queries through `FTS5Pattern(matchingAllTokensIn:)` and
    /// `matching(_:)`, and fetches the matching documents as records.
    static func ftsMatch(_ dbQueue: DatabaseQueue) throws -> Double {
        let queries = (0..<WorkloadData.ftsQueryCount).map(WorkloadData.ftsQuery)
        var matches = 0
        var length = 0
        let time = try measure {
            try dbQueue.read { db in
                for query in queries {
                    let pattern = FTS5Pattern(matchingAllTokensIn: query)
                    for document in try FTSDocument.matching(pattern).fetchAll(db) {
                        length &+= document.body.utf8.count
                        matches += 1
                    }
                }
            }
        }
        blackHole(length)
        try verify(matches == WorkloadData.ftsExpectedMatches, "\(libraryName) FTS match: \(matches) matches")
        return time
    }

    #if SQLCIPHER
    /// EXPORT: encrypts a plaintext database into a new file (written beside, verified, renamed).
    static func encrypt(source: String, target: String) throws -> Double {
        let time = try measure {
            let dbQueue = try DatabaseQueue(path: source)
            try dbQueue.exportDatabase(to: target, options: .encrypted(with: .passphrase(WorkloadData.passphrase)))
            try dbQueue.close()
        }
        try RawC.verifyExport(path: target, key: .passphrase(WorkloadData.passphrase))
        return time
    }

    /// EXPORT: changes the passphrase of an encrypted database (written beside, verified, renamed).
    static func rekey(path: String, from oldPassphrase: String, to newPassphrase: String) throws -> Double {
        let time = try measure {
            try SQLCipherFile.rekey(atPath: path, key: .passphrase(oldPassphrase), newKey: .passphrase(newPassphrase))
        }
        try RawC.verifyExport(path: path, key: .passphrase(newPassphrase))
        return time
    }
    #endif

    /// Creates the small table OPEN and POOL read, through the library (not measured).
    static func createSmallDatabase(_ writer: some DatabaseWriter) throws {
        try writer.write { db in
            try db.execute(sql: WorkloadData.createSQL)
            for i in 0..<openRowCount {
                try ManualRecord(row: i).insert(db)
            }
        }
    }
}

/// W11: a document of the full-text table.
struct FTSDocument: FetchableRecord, TableRecord {
    static let databaseTableName = "doc"
    var body: String
    init(row: Row) {
        body = row[0]
    }
}

/// W6: counts the changes of one table, and the commits.
final class CountingObserver: TransactionObserver {
    let table: String
    var changes = 0
    var commits = 0

    init(table: String) {
        self.table = table
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        eventKind.tableName == table
    }

    func databaseDidChange(with event: DatabaseEvent) {
        changes += 1
    }

    func databaseDidCommit(_ db: Database) {
        commits += 1
    }

    func databaseDidRollback(_ db: Database) {}
}
