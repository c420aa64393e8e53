import Foundation
import Testing
@testable import GRDBCipher

@Suite("DatabaseQueue")
struct DatabaseQueueTests {
    @Test func writeThenRead() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a INTEGER, b TEXT)")
            try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [1, "one"])
        }
        let rows = try test.dbQueue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM t") }
        #expect(rows == [["a": 1, "b": "one"]])
        #expect(test.dbQueue.path == test.path)
    }

    @Test func writeRunsInATransactionAndRollsBackOnError() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            recorder.record(db)
        }
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try test.dbQueue.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Failure()
            }
        }
        #expect(recorder.sql == ["BEGIN IMMEDIATE TRANSACTION", "INSERT INTO t VALUES (1)", "ROLLBACK TRANSACTION"])
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 0)
    }

    @Test func readIsReadOnly() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        try test.dbQueue.read { db in
            _ = expectDatabaseError(.SQLITE_READONLY) {
                try db.execute(sql: "INSERT INTO t VALUES (1)")
            }
        }
        // The connection is writable again afterwards.
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
    }

    @Test func inMemoryDatabasesArePrivate() throws {
        let queue1 = try DatabaseQueue()
        let queue2 = try DatabaseQueue()
        try queue1.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let exists = try queue2.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 't'") }
        #expect(exists == 0)
        #expect(queue1.path == ":memory:")
    }

    @Test func namedInMemoryDatabasesAreShared() throws {
        let name = "shared-\(UUID().uuidString)"
        let queue1 = try DatabaseQueue(named: name)
        let queue2 = try DatabaseQueue(named: name)
        try queue1.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (42)") }
        #expect(try queue2.read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 42)
    }

    @Test func readonlyConfigurationRefusesWrites() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        var config = Configuration()
        config.readonly = true
        let reader = try test.makeQueue(configuration: config)
        expectDatabaseError(.SQLITE_READONLY) {
            try reader.writeWithoutTransaction { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(try reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 0)
    }

    @Test func missingDirectoryIsCantOpen() throws {
        let directory = try TemporaryDirectory()
        let error = expectDatabaseError(.SQLITE_CANTOPEN) {
            _ = try DatabaseQueue(path: directory.path("missing/db.sqlite"))
        }
        #expect(error?.message?.contains("missing/db.sqlite") == true)
    }

    @Test func fileThatIsNotADatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.txt")
        let text = String(repeating: "This is not a database. ", count: 100)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let error = expectDatabaseError(.SQLITE_NOTADB) {
            _ = try DatabaseQueue(path: path, configuration: TestDatabase.configure(Configuration()))
        }
        #expect(error?.message?.contains("neither SQLite nor SQLCipher") == true)
        // The file is left as it was.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test func closeRefusedByALiveStatementLeavesTheConnectionOpen() throws {
        // CON-1: as GRDB, SQLITE_BUSY, and the connection works on; closing can be retried.
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY); INSERT INTO note VALUES (1)") }
        var statement: Statement? = try test.dbQueue.read { try $0.makeStatement(sql: "SELECT * FROM note") }
        expectDatabaseError(.SQLITE_BUSY) { try test.dbQueue.close() }
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM note") } == 1)
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO note VALUES (2)") }
        #expect(statement != nil)
        statement = nil
        try test.dbQueue.close()
        expectDatabaseError(.SQLITE_MISUSE) { try test.dbQueue.read { _ in } }

        // A pool whose writer refuses stays open too.
        let pool = try TestPool()
        try pool.dbPool.write { try $0.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY)") }
        var writerStatement: Statement? = try pool.dbPool.write { try $0.makeStatement(sql: "SELECT * FROM note") }
        expectDatabaseError(.SQLITE_BUSY) { try pool.dbPool.close() }
        try pool.dbPool.write { try $0.execute(sql: "INSERT INTO note VALUES (1)") }
        #expect(try pool.dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM note") } == 1)
        #expect(writerStatement != nil)
        writerStatement = nil
        try pool.dbPool.close()
        expectDatabaseError(.SQLITE_MISUSE) { try pool.dbPool.read { _ in } }
    }

    @Test func accessAfterCloseThrows() throws {
        let test = try TestDatabase()
        try test.dbQueue.close()
        try test.dbQueue.close() // closing twice is harmless
        expectDatabaseError(.SQLITE_MISUSE) {
            try test.dbQueue.read { _ in }
        }
        // GRDB's `rethrows` methods can only throw what their closure throws: the closure runs,
        // and its statements throw.
        expectDatabaseError(.SQLITE_MISUSE) {
            try test.dbQueue.writeWithoutTransaction { try $0.execute(sql: "SELECT 1") }
        }
        expectDatabaseError(.SQLITE_MISUSE) {
            try test.dbQueue.write { try $0.execute(sql: "SELECT 1") }
        }
        let value = test.dbQueue.writeWithoutTransaction { db in db.isInsideTransaction ? 1 : 2 }
        #expect(value == 2)
    }

    @Test func unsafeReentrantMethodsNest() throws {
        let test = try TestDatabase()
        let value = try test.dbQueue.unsafeReentrantWrite { db in
            try test.dbQueue.unsafeReentrantRead { db2 in
                #expect(db === db2)
                return try Int.fetchOne(db2, sql: "SELECT 1")
            }
        }
        #expect(value == 1)
    }

    @Test func asyncAwaitReadAndWrite() async throws {
        let test = try TestDatabase()
        try await test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            try db.execute(sql: "INSERT INTO t VALUES (1), (2)")
        }
        let count = try await test.dbQueue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")
        }
        #expect(count == 2)
        let sum = try await test.dbQueue.unsafeRead { db in try Int.fetchOne(db, sql: "SELECT SUM(a) FROM t") }
        #expect(sum == 3)
        try await test.dbQueue.writeWithoutTransaction { db in
            #expect(!db.isInsideTransaction)
        }
        try await test.dbQueue.barrierWriteWithoutTransaction { db in
            try db.execute(sql: "DELETE FROM t")
        }
        #expect(try await test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 0)
    }

    @Test func asyncReadAndAsyncWrite() async throws {
        let test = try TestDatabase()
        let written: Int = try await withCheckedThrowingContinuation { continuation in
            test.dbQueue.asyncWrite({ db in
                try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (7)")
                return 7
            }, completion: { _, result in
                continuation.resume(with: result)
            })
        }
        #expect(written == 7)
        let read: Int? = try await withCheckedThrowingContinuation { continuation in
            test.dbQueue.asyncRead { dbResult in
                continuation.resume(with: Result { try Int.fetchOne(dbResult.get(), sql: "SELECT a FROM t") })
            }
        }
        #expect(read == 7)
    }

    @Test func asyncWriteReportsErrorsAndRollsBack() async throws {
        let test = try TestDatabase()
        try await test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a UNIQUE)") }
        let error: (any Error)? = await withCheckedContinuation { continuation in
            test.dbQueue.asyncWrite({ db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                try db.execute(sql: "INSERT INTO t VALUES (1)")
            }, completion: { _, result in
                if case .failure(let error) = result { continuation.resume(returning: error) } else { continuation.resume(returning: nil) }
            })
        }
        #expect((error as? DatabaseError)?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
        #expect(try await test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 0)
    }

    @Test func interruptStopsALongQuery() throws {
        let test = try TestDatabase()
        let queue = test.dbQueue
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { queue.interrupt() }
        let error = expectDatabaseError(.SQLITE_INTERRUPT) {
            try queue.read { db in
                _ = try Int.fetchOne(db, sql: """
                    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT MAX(x) FROM c
                    """)
            }
        }
        #expect(error?.isInterruptionError == true)
        // The connection is usable afterwards.
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT 1") } == 1)
    }

    @Test func genericOverDatabaseWriter() throws {
        func insert(_ writer: some DatabaseWriter, _ value: Int) throws -> Int {
            try writer.write { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS t(a)")
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value])
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")!
            }
        }
        let test = try TestDatabase()
        #expect(try insert(test.dbQueue, 1) == 1)
        let writer: any DatabaseWriter = test.dbQueue
        #expect(try insert(writer, 2) == 2)
    }

    @Test func reentrantWriteIsAFatalError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dbQueue = try DatabaseQueue()
            try dbQueue.write { _ in
                try dbQueue.write { _ in }
            }
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("not reentrant") == true)
    }

    @Test func usingDatabaseOutsideItsClosureIsAFatalError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dbQueue = try DatabaseQueue()
            let db = try dbQueue.read { $0 }
            _ = try db.makeStatement(sql: "SELECT 1")
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("must only be used inside the access closure") == true)
    }

    @Test func transactionLeftOpenIsAFatalError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dbQueue = try DatabaseQueue()
            try dbQueue.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN TRANSACTION")
            }
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("A transaction has been left opened") == true)
    }

    @Test func allowsUnsafeTransactions() throws {
        var config = Configuration()
        config.allowsUnsafeTransactions = true
        let test = try TestDatabase(configuration: config)
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            try db.execute(sql: "BEGIN TRANSACTION")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        try test.dbQueue.writeWithoutTransaction { db in
            #expect(db.isInsideTransaction)
            try db.commit()
        }
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
    }

    @Test func outerConnectionIsUsableInsideNestedAccessToAnotherDatabase() throws {
        let source = try TestDatabase(name: "source.sqlite")
        let destination = try TestDatabase(name: "destination.sqlite")
        let pool = try TestPool()
        try source.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, label TEXT)")
            try db.execute(sql: "INSERT INTO item(label) VALUES ('alpha'), ('beta')")
        }
        for writer in [destination.dbQueue as any DatabaseWriter, pool.dbPool] {
            try writer.write { try $0.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, label TEXT)") }
            // Rows copied from the outer read's connection, used inside the inner write.
            try source.dbQueue.read { src in
                try writer.write { dst in
                    let rows = try Row.fetchCursor(src, sql: "SELECT id, label FROM item ORDER BY id")
                    while let row = try rows.next() {
                        try dst.execute(sql: "INSERT INTO item(id, label) VALUES (?, ?)", arguments: [row["id"], row["label"]])
                    }
                }
            }
            #expect(try writer.read { try String.fetchAll($0, sql: "SELECT label FROM item ORDER BY id") } == ["alpha", "beta"])
        }
        // From a pool read to a queue write, and back out: the inner connection as well.
        try pool.dbPool.read { src in
            try source.dbQueue.write { dst in
                let count = try Int.fetchOne(src, sql: "SELECT COUNT(*) FROM item")
                try dst.execute(sql: "INSERT INTO item(label) VALUES (?)", arguments: ["count \(count ?? 0)"])
            }
        }
        #expect(try source.dbQueue.read { try String.fetchOne($0, sql: "SELECT label FROM item WHERE id = 3") } == "count 2")
    }
}

/// OBS-7: the re-entrancy check of a connection must not be fooled by queue-specific values
/// that other code leaves on the main queue with short-lived keys (a key per connection could
/// be allocated at the address of such a key, and find its value).
@Suite("Queue identities")
struct QueueIdentityTests {
    @MainActor
    @Test func valuesLeftOnTheMainQueueByOtherKeys() throws {
        for round in 0..<200 {
            // Application code: a value set on the main queue with a key that is then freed.
            do {
                let key = DispatchSpecificKey<Int>()
                DispatchQueue.main.setSpecific(key: key, value: round)
            }
            let test = try TestDatabase()
            try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (\(round))") }
            #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == round)
        }
        let pool = try TestPool()
        try pool.dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        #expect(try pool.dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
    }

    @Test func foreignValuesUnderTheKeyAreNotOurs() {
        // Deterministic: a queue whose value under the process-wide key is another identity
        // is not the connection's queue.
        let ours = QueueIdentity()
        let other = QueueIdentity()
        let queue = DispatchQueue(label: "QueueIdentityTests")
        queue.setSpecific(key: QueueIdentity.connectionKey, value: other)
        queue.sync {
            #expect(!ours.isCurrent(QueueIdentity.connectionKey))
            #expect(other.isCurrent(QueueIdentity.connectionKey))
        }
        #expect(!other.isCurrent(QueueIdentity.connectionKey))
    }
}
