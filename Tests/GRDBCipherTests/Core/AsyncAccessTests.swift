import Foundation
import Testing
@testable import GRDBCipher

// Async accesses run their closure in the calling task (TL-1), refuse statements once that task
// is cancelled (CAN-1), and always roll back (TX-1), as GRDB 7.10 (checked with
// tools/grdb-probe).

private enum RequestContext {
    @TaskLocal static var requestID: String?
}

/// The writers the tests run on: a queue and a pool, encrypted when the suite runs encrypted.
private func writers() throws -> [(String, any DatabaseWriter, AnyObject)] {
    let queue = try TestDatabase()
    let pool = try TestPool()
    return [("queue", queue.dbQueue, queue), ("pool", pool.dbPool, pool)]
}

/// A synchronous write, called from a task: it blocks a thread of the task pool.
private func blockingInsert(_ dbQueue: DatabaseQueue, _ value: Int) throws {
    try dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) }
}

@Suite("Async accesses")
struct AsyncAccessTests {
    @Test func closuresSeeTheTaskLocalValuesOfTheCaller() async throws {
        for (name, writer, _) in try writers() {
            try await writer.write { try $0.execute(sql: "CREATE TABLE t(a)") }
            let seen = try await RequestContext.$requestID.withValue("r-42") {
                (
                    try await writer.read { _ in RequestContext.requestID },
                    try await writer.write { _ in RequestContext.requestID },
                    try await writer.writeWithoutTransaction { _ in RequestContext.requestID },
                    try await writer.barrierWriteWithoutTransaction { _ in RequestContext.requestID },
                    try await writer.unsafeRead { _ in RequestContext.requestID }
                )
            }
            #expect(seen.0 == "r-42", "\(name)")
            #expect(seen.1 == "r-42", "\(name)")
            #expect(seen.2 == "r-42", "\(name)")
            #expect(seen.3 == "r-42", "\(name)")
            #expect(seen.4 == "r-42", "\(name)")
            // Outside the scope of the value: the default.
            #expect(try await writer.read { _ in RequestContext.requestID } == nil)
        }
    }

    @Test func closuresSeeTheCancellationOfTheirTask() async throws {
        for (name, writer, _) in try writers() {
            try await writer.write { try $0.execute(sql: "CREATE TABLE t(a)") }
            // A read whose task is cancelled after its last statement returns its value (its
            // read-only commit runs), as GRDB.
            let task = Task {
                try await writer.read { _ in
                    let before = Task.isCancelled
                    withUnsafeCurrentTask { $0?.cancel() }
                    return (before, Task.isCancelled)
                }
            }
            let flags = try await task.value
            #expect(flags.0 == false && flags.1 == true, "\(name)")
            let observed = Task {
                try await writer.unsafeRead { _ -> Bool in
                    withUnsafeCurrentTask { $0?.cancel() }
                    return Task.isCancelled
                }
            }
            #expect(try await observed.value, "\(name)")
            // A statement after the cancellation is refused.
            let refused = Task {
                try await writer.read { db -> String in
                    withUnsafeCurrentTask { $0?.cancel() }
                    do {
                        _ = try Int.fetchOne(db, sql: "SELECT 1")
                        return "selected"
                    } catch is CancellationError {
                        return "refused"
                    }
                }
            }
            #expect(try await refused.value == "refused", "\(name)")
        }
    }

    @Test func aWriteCancelledWhileItRunsRollsBack() async throws {
        for (name, writer, _) in try writers() {
            try await writer.write { try $0.execute(sql: "CREATE TABLE orders(id INTEGER PRIMARY KEY)") }
            // The task is cancelled after the insert, with no statement of the closure after it:
            // the commit is refused, the transaction rolled back.
            let task = Task {
                try await writer.write { db in
                    try db.execute(sql: "INSERT INTO orders DEFAULT VALUES")
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            await #expect(throws: CancellationError.self, "\(name)") { try await task.value }
            // A write that runs nothing after the cancellation: its commit is refused too.
            let empty = Task { try await writer.write { _ in withUnsafeCurrentTask { $0?.cancel() } } }
            await #expect(throws: CancellationError.self, "\(name)") { try await empty.value }
            // Later statements of a cancelled access throw CancellationError; a closure that
            // catches it returns normally (no transaction was left).
            let later = Task {
                try await writer.writeWithoutTransaction { db -> String in
                    withUnsafeCurrentTask { $0?.cancel() }
                    do {
                        try db.execute(sql: "INSERT INTO orders DEFAULT VALUES")
                        return "inserted"
                    } catch is CancellationError {
                        return "refused"
                    }
                }
            }
            #expect(try await later.value == "refused", "\(name)")
            // Nothing was written, and the next access works.
            #expect(try await writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM orders") } == 0, "\(name)")
            try await writer.write { try $0.execute(sql: "INSERT INTO orders DEFAULT VALUES") }
            #expect(try await writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM orders") } == 1, "\(name)")
        }
    }

    @Test func rollbacksRunAfterTheCancellation() async throws {
        for (name, writer, _) in try writers() {
            try await writer.write { try $0.execute(sql: "CREATE TABLE stock(quantity INTEGER); INSERT INTO stock VALUES (5)") }
            // A user's rollback in writeWithoutTransaction: it runs, the access ends without a
            // transaction left open (that stopped the program).
            let task = Task {
                try await writer.writeWithoutTransaction { db in
                    try db.beginTransaction()
                    try db.execute(sql: "UPDATE stock SET quantity = 0")
                    withUnsafeCurrentTask { $0?.cancel() }
                    try db.rollback()
                    return db.isInsideTransaction
                }
            }
            #expect(try await task.value == false, "\(name)")
            // inTransaction that rolls back on purpose, and a savepoint.
            let second = Task {
                try await writer.writeWithoutTransaction { db in
                    try db.inTransaction {
                        try db.execute(sql: "UPDATE stock SET quantity = 1")
                        withUnsafeCurrentTask { $0?.cancel() }
                        // Opening a savepoint is refused; rolling back is not.
                        #expect(throws: CancellationError.self) { try db.inSavepoint { .commit } }
                        return .rollback
                    }
                }
            }
            try await second.value
            #expect(try await writer.read { try Int.fetchOne($0, sql: "SELECT quantity FROM stock") } == 5, "\(name)")
        }
    }

    @Test func anInterruptedRollbackIsTriedAgain() throws {
        // TX-1: an interrupt that lingers (a statement still running when the rollback comes)
        // does not leave the transaction open, nor fail inTransaction's rollback.
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3)") }
        try test.dbQueue.writeWithoutTransaction { db in
            try db.inTransaction {
                try db.execute(sql: "UPDATE t SET a = 0")
                let cursor = try Int.fetchCursor(db, sql: "SELECT a FROM t")
                _ = try cursor.next()
                test.dbQueue.interrupt()
                return .rollback
            }
            #expect(!db.isInsideTransaction)
            #expect(try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a") == [1, 2, 3])
        }
    }

    @Test func theLibraryCleansUpAfterACancellation() async throws {
        for (name, writer, _) in try writers() {
            try await writer.write { try $0.execute(sql: "CREATE TABLE t(a)") }
            // A read cancelled after a refused statement: the connection is not left read-only.
            let read = Task {
                try await writer.read { db -> Bool in
                    withUnsafeCurrentTask { $0?.cancel() }
                    return (try? Int.fetchOne(db, sql: "SELECT 1")) == nil
                }
            }
            #expect(try await read.value, "\(name)")
            try await writer.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
            // Multi-statement SQL cancelled halfway: nothing of it stays, no savepoint is left.
            let execute = Task {
                try await writer.writeWithoutTransaction { db in
                    try db.execute(sql: "CREATE TABLE u(b); INSERT INTO t VALUES (2)")
                    withUnsafeCurrentTask { $0?.cancel() }
                    try db.execute(sql: "CREATE TABLE v(c); INSERT INTO t VALUES (3); INSERT INTO t VALUES (4)")
                }
            }
            await #expect(throws: CancellationError.self, "\(name)") { try await execute.value }
            try await writer.write { try $0.execute(sql: "INSERT INTO t VALUES (5)") }
            #expect(try await writer.read { try Int.fetchAll($0, sql: "SELECT a FROM t ORDER BY a") } == [1, 2, 5], "\(name)")
            #expect(try await writer.read { try $0.tableExists("v") } == false, "\(name)")
        }
    }

    @Test func aCancelledUserTransactionIsRolledBack() async throws {
        for (name, writer, _) in try writers() {
            try await writer.write { try $0.execute(sql: "CREATE TABLE t(a)") }
            // The COMMIT is refused: the access rolls the transaction back and throws, instead
            // of leaving it open (a fatal error).
            let task = Task {
                try await writer.writeWithoutTransaction { db in
                    try db.execute(sql: "BEGIN")
                    try db.execute(sql: "INSERT INTO t VALUES (1)")
                    withUnsafeCurrentTask { $0?.cancel() }
                    try? db.execute(sql: "COMMIT")
                }
            }
            await #expect(throws: CancellationError.self, "\(name)") { try await task.value }
            #expect(try await writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 0, "\(name)")
        }
    }

    @Test func asyncAccessesDoNotNeedTheTaskPoolToEnd() async throws {
        // The connection's queue never waits for a thread of the task pool: async accesses
        // complete while tasks block every thread of the pool in synchronous accesses.
        let test = try TestDatabase()
        let dbQueue = test.dbQueue
        try await dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let blockers = 4 * ProcessInfo.processInfo.activeProcessorCount
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<blockers {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        // A synchronous access, which blocks its thread of the pool.
                        try blockingInsert(dbQueue, index)
                    } else {
                        try await dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: [index]) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == blockers)
    }
}
