import Dispatch
import Foundation
import Testing
@testable import GRDBCipher

/// A fresh pool for one test, encrypted when the suite runs encrypted.
final class TestPool: @unchecked Sendable {
    let directory: TemporaryDirectory
    let path: String
    let dbPool: DatabasePool

    init(configuration: Configuration = Configuration()) throws {
        directory = try TemporaryDirectory()
        path = directory.path("pool.sqlite")
        dbPool = try DatabasePool(path: path, configuration: TestDatabase.configure(configuration))
    }
}

/// Counts calls from several threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    private var maximumValue = 0
    var count: Int { lock.withLock { value } }
    var maximum: Int { lock.withLock { maximumValue } }
    func increment() { lock.withLock { value += 1; maximumValue = max(maximumValue, value) } }
    func decrement() { lock.withLock { value -= 1 } }
}

@Suite("DatabasePool")
struct DatabasePoolTests {
    @Test func readsAndWritesInWALMode() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute(sql: "INSERT INTO player(name) VALUES (?)", arguments: ["Arthur"])
        }
        #expect(try dbPool.read { try String.fetchAll($0, sql: "SELECT name FROM player") } == ["Arthur"])
        #expect(try dbPool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
        #expect(try dbPool.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
        // Reads run in read-only connections, inside a transaction.
        try dbPool.read { db in #expect(db.isInsideTransaction) }
        expectDatabaseError(.SQLITE_READONLY) {
            try dbPool.read { try $0.execute(sql: "INSERT INTO player(name) VALUES ('Barbara')") }
        }
        try dbPool.unsafeRead { db in #expect(!db.isInsideTransaction) }
        // Writes take the write lock at BEGIN; read-only connections use deferred transactions.
        let recorder = SQLRecorder()
        dbPool.writeWithoutTransaction { recorder.record($0) }
        try dbPool.write { try $0.execute(sql: "DELETE FROM player WHERE id = 0") }
        #expect(recorder.sql.first == "BEGIN IMMEDIATE TRANSACTION")
        try dbPool.unsafeRead { db in try db.inTransaction { .commit } }
    }

    @Test func genericCodeWorksWithQueuesAndPools() throws {
        func insertAndCount(_ writer: some DatabaseWriter) throws -> Int {
            try writer.write { try $0.execute(sql: "CREATE TABLE IF NOT EXISTS t(a); INSERT INTO t VALUES (1)") }
            return try writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t")! }
        }
        let pool = try TestPool()
        let queue = try TestDatabase()
        #expect(try insertAndCount(pool.dbPool) == 1)
        #expect(try insertAndCount(queue.dbQueue) == 1)
        let writers: [any DatabaseWriter] = [pool.dbPool, queue.dbQueue]
        for writer in writers {
            #expect(try insertAndCount(writer) == 2)
        }
    }

    @Test func readsSeeCommittedDataOnlyAndDoNotWaitForTheWriter() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let inTransaction = DispatchSemaphore(value: 0)
        let readDone = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            try? dbPool.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                inTransaction.signal()
                // The write transaction stays open until the concurrent read is done.
                _ = readDone.wait(timeout: .now() + 10)
            }
        }
        inTransaction.wait()
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
        readDone.signal()
        group.wait()
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
    }

    @Test func readsRunInParallelUpToTheMaximum() throws {
        var config = Configuration()
        config.maximumReaderCount = 2
        let test = try TestPool(configuration: config)
        let dbPool = test.dbPool
        let concurrent = Counter()
        // Threads of their own: the shared dispatch pool may run fewer blocks at once.
        let group = DispatchGroup()
        for _ in 0..<6 {
            group.enter()
            Thread {
                try? dbPool.read { _ in
                    concurrent.increment()
                    Thread.sleep(forTimeInterval: 0.1)
                    concurrent.decrement()
                }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(concurrent.maximum == 2)
    }

    @Test func barrierWaitsForReadsAndHoldsNewOnes() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let events = SQLRecorderLog()
        let readStarted = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            try? dbPool.read { _ in
                readStarted.signal()
                Thread.sleep(forTimeInterval: 0.1)
                events.append("read ended")
            }
        }
        readStarted.wait()
        try dbPool.barrierWriteWithoutTransaction { db in
            events.append("barrier")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        group.wait()
        #expect(events.entries == ["read ended", "barrier"])
    }

    @Test func asyncConcurrentReadSeesTheStateOfItsCall() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        let seen = SQLRecorderLog()
        let done = DispatchSemaphore(value: 0)
        try dbPool.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
            dbPool.asyncConcurrentRead { dbResult in
                do {
                    let db = try dbResult.get()
                    // Give the writer time to go on: the read must not see its insert.
                    Thread.sleep(forTimeInterval: 0.1)
                    seen.append("\(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")!)")
                } catch {
                    seen.append("\(error)")
                }
                done.signal()
            }
            try db.execute(sql: "INSERT INTO t VALUES (2)")
        }
        done.wait()
        #expect(seen.entries == ["1"])
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
    }

    @Test func snapshotsDoNotSeeLaterWrites() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let snapshot = try dbPool.makeSnapshot()
        try dbPool.write { try $0.execute(sql: "DELETE FROM t") }
        #expect(try snapshot.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 0)
        expectDatabaseError(.SQLITE_READONLY) { try snapshot.read { try $0.execute(sql: "DELETE FROM t") } }
        try snapshot.close()
        // GRDB's rethrowing signature: once closed, the closure runs and its statements throw.
        expectDatabaseError(.SQLITE_MISUSE) { _ = try snapshot.read { try Int.fetchOne($0, sql: "SELECT 1") } }
    }

    @Test func snapshotReadsRethrow() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)") }
        let snapshot = try dbPool.makeSnapshot()
        // A closure that does not throw: no `try` needed.
        let description = snapshot.read { $0.description }
        #expect(description.contains("snapshot"))
        let count = snapshot.unsafeRead { db in (try? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")) ?? -1 }
        #expect(count == 2)
        // An error of the closure comes out as it is.
        struct Refusal: Error {}
        #expect(throws: Refusal.self) { try snapshot.read { _ in throw Refusal() } }
        #expect(throws: Refusal.self) { try snapshot.unsafeRead { _ in throw Refusal() } }
        expectDatabaseError(.SQLITE_ERROR) { _ = try snapshot.unsafeRead { try Row.fetchAll($0, sql: "SELECT * FROM missing") } }
    }

    @Test func writeInTransactionCommitsOrRollsBack() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        let recorder = SQLRecorder()
        try dbPool.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE account(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0))")
            try db.execute(sql: "INSERT INTO account VALUES (1, 100), (2, 0)")
            recorder.record(db)
        }
        try dbPool.writeInTransaction { db in
            try db.execute(sql: "UPDATE account SET balance = balance - 30 WHERE id = 1")
            try db.execute(sql: "UPDATE account SET balance = balance + 30 WHERE id = 2")
            return .commit
        }
        #expect(recorder.sql.first == "BEGIN IMMEDIATE TRANSACTION")
        #expect(recorder.sql.last == "COMMIT TRANSACTION")
        try dbPool.writeInTransaction(.exclusive) { db in
            try db.execute(sql: "UPDATE account SET balance = 0")
            return .rollback
        }
        #expect(recorder.sql.contains("BEGIN EXCLUSIVE TRANSACTION"))
        // A failed statement rolls back the whole transaction and is rethrown.
        expectDatabaseError(.SQLITE_CONSTRAINT_CHECK) {
            try dbPool.writeInTransaction(.deferred) { db in
                try db.execute(sql: "UPDATE account SET balance = balance + 500 WHERE id = 2")
                try db.execute(sql: "UPDATE account SET balance = balance - 500 WHERE id = 1")
                return .commit
            }
        }
        #expect(recorder.sql.contains("BEGIN DEFERRED TRANSACTION"))
        let balances = try dbPool.read { try Int.fetchAll($0, sql: "SELECT balance FROM account ORDER BY id") }
        #expect(balances == [70, 30])
        try dbPool.close()
        expectDatabaseError(.SQLITE_MISUSE) { try dbPool.writeInTransaction { _ in .commit } }
    }

    @Test func reentrantReadUsesTheCurrentConnection() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
            // Inside the write: the writer's connection, which sees the uncommitted row.
            #expect(try dbPool.unsafeReentrantRead { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
        }
        try dbPool.read { (_: Database) throws in
            #expect(try dbPool.unsafeReentrantRead { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
        }
    }

    @Test func accessesAreNotReentrant() async {
        await #expect(processExitsWith: .failure) {
            let test = try TestPool()
            try test.dbPool.read { _ in _ = try test.dbPool.read { _ in 1 } }
        }
    }

    @Test func readInsideTheWriteAccessSeesTheLastCommit() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        try dbPool.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            // A reader connection: the uncommitted row is not visible.
            #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
            let snapshot = try dbPool.makeSnapshot()
            #expect(try snapshot.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
        }
        try dbPool.writeWithoutTransaction { (_: Database) throws in
            #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
        }
    }

    @Test func readIsIsolatedFromItsStart() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let count = try dbPool.read { db in
            // The writer commits after the read started, before its first query.
            let written = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                try? dbPool.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
                written.signal()
            }
            written.wait()
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")
        }
        #expect(count == 1)
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
    }

    @Test func poolConnectionsWaitAnInstantForLocks() throws {
        // With the default busy mode (immediate error), a pool waits up to 100 ms for a lock,
        // so that an instant WAL lock never fails a write; a longer lock still does.
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let other = try DatabaseQueue(path: test.path, configuration: TestDatabase.configure(Configuration()))
        func holdWriteLock(for seconds: Double) -> DispatchGroup {
            let group = DispatchGroup()
            let locked = DispatchSemaphore(value: 0)
            group.enter()
            Thread {
                try? other.inTransaction(.immediate) { _ in
                    locked.signal()
                    Thread.sleep(forTimeInterval: seconds)
                    return .commit
                }
                group.leave()
            }.start()
            locked.wait()
            return group
        }
        var group = holdWriteLock(for: 0.02)
        try dbPool.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        group.wait()
        group = holdWriteLock(for: 0.5)
        expectDatabaseError(.SQLITE_BUSY) { try dbPool.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") } }
        group.wait()
        #expect(try dbPool.read { try Int.fetchAll($0, sql: "SELECT a FROM t") } == [1])
    }

    @Test func invalidatedReadersAreReopened() throws {
        let opened = Counter()
        var config = Configuration()
        config.prepareDatabase { _ in opened.increment() }
        let test = try TestPool(configuration: config)
        let dbPool = test.dbPool
        #expect(opened.count == 1) // the writer
        _ = try dbPool.read { _ in 1 }
        _ = try dbPool.read { _ in 1 }
        #expect(opened.count == 2) // one reader, reused
        dbPool.invalidateReadOnlyConnections()
        _ = try dbPool.read { _ in 1 }
        #expect(opened.count == 3)
        dbPool.releaseMemory()
        _ = try dbPool.read { _ in 1 }
        #expect(opened.count == 4)
    }

    @Test func closeRefusesWhileAReadRunsThenClosesEverything() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let readStarted = DispatchSemaphore(value: 0)
        let mayEnd = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            try? dbPool.read { _ in
                readStarted.signal()
                mayEnd.wait()
            }
        }
        readStarted.wait()
        expectDatabaseError(.SQLITE_BUSY) { try dbPool.close() }
        mayEnd.signal()
        group.wait()
        try dbPool.close()
        try dbPool.close() // idempotent
        expectDatabaseError(.SQLITE_MISUSE) { _ = try dbPool.read { _ in 1 } }
        expectDatabaseError(.SQLITE_MISUSE) { try dbPool.write { try $0.execute(sql: "DELETE FROM t") } }
        #expect(dbPool.writeWithoutTransaction { _ in 3 } == 3) // rethrows: nothing to throw
        expectDatabaseError(.SQLITE_MISUSE) { try dbPool.barrierWriteWithoutTransaction { _ in } }
    }

    @Test func asyncAccesses() async throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try await dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        #expect(try await dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
        async let first = dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") }
        async let second = dbPool.unsafeRead { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") }
        #expect(try await [first, second] == [1, 1])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            dbPool.asyncRead { dbResult in
                #expect((try? Int.fetchOne(dbResult.get(), sql: "SELECT COUNT(*) FROM t")) == 1)
                continuation.resume()
            }
        }
        try await dbPool.barrierWriteWithoutTransaction { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try await dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
    }

    @Test func cancelledAccessesThrowAndRollBack() async throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try await dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        // Cancelled before it starts: the access does not run.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        // Cancelled while it runs: the statement is interrupted and the transaction rolled back.
        let started = DispatchSemaphore(value: 0)
        let running = Task {
            try await dbPool.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (3)")
                started.signal()
                // A long query that the interrupt stops.
                _ = try Int.fetchOne(db, sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT MAX(x) FROM c")
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                started.wait()
                running.cancel()
                continuation.resume()
            }
        }
        await #expect(throws: CancellationError.self) { try await running.value }
        #expect(try await dbPool.read { try Int.fetchAll($0, sql: "SELECT a FROM t ORDER BY a") } == [1])
        // The connection is usable afterwards.
        try await dbPool.write { try $0.execute(sql: "INSERT INTO t VALUES (4)") }
        #expect(try await dbPool.read { try Int.fetchAll($0, sql: "SELECT a FROM t ORDER BY a") } == [1, 4])
    }

    @Test func checkpoints() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let result = try dbPool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        #expect(result.walFrameCount == 0)
        let walSize = (try FileManager.default.attributesOfItem(atPath: test.path + "-wal")[.size] as? Int) ?? -1
        #expect(walSize == 0)
        expectDatabaseError(.SQLITE_ERROR) { _ = try dbPool.writeWithoutTransaction { try $0.checkpoint(.passive, on: "nowhere") } }
    }

    @Test func openingAnInMemoryPathFailsClearly() throws {
        let error = expectDatabaseError(.SQLITE_ERROR) { _ = try DatabasePool(path: ":memory:") }
        #expect(error?.message?.contains("WAL") == true)
    }
}

/// An ordered log shared by threads.
final class SQLRecorderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _entries: [String] = []
    var entries: [String] { lock.withLock { _entries } }
    func append(_ entry: String) { lock.withLock { _entries.append(entry) } }
}
