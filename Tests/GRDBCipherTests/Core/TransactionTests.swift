import Dispatch
import Testing
@testable import GRDBCipher

@Suite("Transactions and savepoints")
struct TransactionTests {
    private func values(_ dbQueue: DatabaseQueue) throws -> [Int] {
        try dbQueue.read { try Int.fetchAll($0, sql: "SELECT a FROM t ORDER BY a") }
    }

    private func makeDatabase(_ configuration: Configuration = Configuration()) throws -> (TestDatabase, SQLRecorder) {
        let test = try TestDatabase(configuration: configuration)
        let recorder = SQLRecorder()
        try test.dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            recorder.record(db)
        }
        return (test, recorder)
    }

    @Test func inTransactionCommitAndRollback() throws {
        let (test, recorder) = try makeDatabase()
        try test.dbQueue.inTransaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            #expect(db.isInsideTransaction)
            return .commit
        }
        try test.dbQueue.inTransaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            return .rollback
        }
        #expect(recorder.sql.filter { !$0.hasPrefix("PRAGMA") && !$0.hasPrefix("SELECT") } == [
            "BEGIN IMMEDIATE TRANSACTION", "INSERT INTO t VALUES (1)", "COMMIT TRANSACTION",
            "BEGIN IMMEDIATE TRANSACTION", "INSERT INTO t VALUES (2)", "ROLLBACK TRANSACTION",
        ])
        #expect(try values(test.dbQueue) == [1])
    }

    @Test func errorsRollBack() throws {
        let (test, _) = try makeDatabase()
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try test.dbQueue.inTransaction { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Failure()
            }
        }
        test.dbQueue.inDatabase { #expect(!$0.isInsideTransaction) }
        #expect(try values(test.dbQueue) == [])
    }

    @Test func defaultTransactionKindFollowsReadOnlyState() throws {
        let (test, recorder) = try makeDatabase()
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(recorder.sql.first == "BEGIN IMMEDIATE TRANSACTION")
        recorder.reset()
        // In a read-only section, a transaction without a kind is DEFERRED (SQLite refuses
        // IMMEDIATE there).
        try test.dbQueue.writeWithoutTransaction { db in
            try db.readOnly {
                try db.inTransaction { .commit }
                try db.inSavepoint { .commit }
                try db.beginTransaction()
                try db.commit()
            }
        }
        #expect(recorder.sql.filter { $0.hasPrefix("BEGIN") } == Array(repeating: "BEGIN DEFERRED TRANSACTION", count: 3))
    }

    @Test func queueReadRunsInDeferredTransaction() throws {
        let (test, recorder) = try makeDatabase()
        let inside = try test.dbQueue.read { db in
            _ = try Int.fetchAll(db, sql: "SELECT a FROM t")
            return db.isInsideTransaction
        }
        #expect(inside)
        #expect(recorder.sql.filter { !$0.hasPrefix("PRAGMA") } == [
            "BEGIN DEFERRED TRANSACTION", "SELECT a FROM t", "COMMIT TRANSACTION",
        ])
        // Another connection's commit, made during the read, is not seen by it.
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        let other = try test.makeQueue()
        try test.dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 1)
            #expect(throws: DatabaseError.self) { // the read holds its lock: no writer can commit
                try other.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
            }
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 1)
        }
        // Writes are still refused in a read.
        expectDatabaseError(.SQLITE_READONLY) {
            try test.dbQueue.read { try $0.execute(sql: "INSERT INTO t VALUES (3)") }
        }
    }

    @Test func nestedSavepoints() throws {
        let (test, recorder) = try makeDatabase()
        try test.dbQueue.write { db in
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO t VALUES (2)")
                    return .rollback
                }
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO t VALUES (3)")
                    return .commit
                }
                return .commit
            }
        }
        #expect(try values(test.dbQueue) == [1, 3])
        #expect(recorder.sql.contains("SAVEPOINT grdb"))
        #expect(recorder.sql.contains("ROLLBACK TRANSACTION TO SAVEPOINT grdb"))
        #expect(recorder.sql.contains("RELEASE SAVEPOINT grdb"))
    }

    @Test func savepointOutsideTransactionIsATransaction() throws {
        let (test, recorder) = try makeDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                return .commit
            }
        }
        #expect(recorder.sql == ["BEGIN IMMEDIATE TRANSACTION", "INSERT INTO t VALUES (1)", "COMMIT TRANSACTION"])
        #expect(try values(test.dbQueue) == [1])
    }

    @Test func errorInSavepointRollsItBackOnly() throws {
        let (test, _) = try makeDatabase()
        struct Failure: Error {}
        try test.dbQueue.write { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            #expect(throws: Failure.self) {
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO t VALUES (2)")
                    throw Failure()
                }
            }
            #expect(db.isInsideTransaction)
        }
        #expect(try values(test.dbQueue) == [1])
    }

    @Test func manualTransactions() throws {
        let (test, _) = try makeDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            try db.beginTransaction()
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            try db.commit()
            try db.beginTransaction(.immediate)
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            try db.rollback()
            try db.rollback() // no transaction: nothing happens
        }
        #expect(try values(test.dbQueue) == [1])
    }

    @Test func nestedTransactionIsAnError() throws {
        let (test, _) = try makeDatabase()
        try test.dbQueue.write { db in
            let error = expectDatabaseError(.SQLITE_ERROR) {
                try db.inTransaction { .commit }
            }
            #expect(error?.message == "cannot start a transaction within a transaction")
        }
    }
}

/// What happens after SQLite ends a transaction the library opened (TX-1), and when the end of
/// a transaction is interrupted (TX-4).
@Suite("Aborted transactions")
struct AbortedTransactionTests {
    private func makeDatabase() throws -> TestDatabase {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE ledger(entry INTEGER UNIQUE ON CONFLICT ROLLBACK)")
        }
        return test
    }

    private func entries(_ test: TestDatabase) throws -> [Int] {
        try test.dbQueue.read { try Int.fetchAll($0, sql: "SELECT entry FROM ledger ORDER BY entry") }
    }

    @Test func conflictRollbackAbortsTheRestOfTheWrite() throws {
        let test = try makeDatabase()
        var laterError: DatabaseError?
        let commitError = expectDatabaseError(.SQLITE_ABORT) {
            try test.dbQueue.write { db in
                try db.execute(sql: "INSERT INTO ledger VALUES (10)")
                // The duplicate makes SQLite roll the whole transaction back.
                _ = try? db.execute(sql: "INSERT INTO ledger VALUES (20); INSERT INTO ledger VALUES (20)")
                #expect(!db.isInsideTransaction)
                laterError = expectDatabaseError(.SQLITE_ABORT) {
                    try db.execute(sql: "INSERT INTO ledger VALUES (30)")
                }
                // Fetches are refused too.
                expectDatabaseError(.SQLITE_ABORT) {
                    _ = try Int.fetchAll(db, sql: "SELECT entry FROM ledger")
                }
            }
        }
        #expect(laterError?.message == "Transaction was aborted")
        #expect(laterError?.sql == "INSERT INTO ledger VALUES (30)")
        #expect(commitError?.message == "Transaction was aborted")
        // Nothing of the write is kept: neither before nor after the abort.
        #expect(try entries(test) == [])
        // The connection is usable again.
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO ledger VALUES (40)") }
        #expect(try entries(test) == [40])
    }

    @Test func rollbackStatementAbortsTheRestOfTheTransaction() throws {
        let test = try makeDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            expectDatabaseError(.SQLITE_ABORT) {
                try db.inTransaction {
                    try db.execute(sql: "INSERT INTO ledger VALUES (1)")
                    try db.execute(sql: "ROLLBACK")
                    expectDatabaseError(.SQLITE_ABORT) {
                        try db.execute(sql: "INSERT INTO ledger VALUES (2)")
                    }
                    return .commit
                }
            }
            #expect(!db.isInsideTransaction)
            // Outside of the aborted scope, statements run again.
            try db.execute(sql: "INSERT INTO ledger VALUES (3)")
        }
        #expect(try entries(test) == [3])
    }

    @Test func abortInsideSavepointReachesTheTransaction() throws {
        let test = try makeDatabase()
        expectDatabaseError(.SQLITE_ABORT) {
            try test.dbQueue.write { db in
                try db.execute(sql: "INSERT INTO ledger VALUES (1)")
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO ledger VALUES (2)")
                    _ = try? db.execute(sql: "INSERT INTO ledger VALUES (2)")
                    return .commit // RELEASE throws SQLITE_ABORT
                }
            }
        }
        #expect(try entries(test) == [])
    }

    @Test func rollbackCompletionAfterAbortIsFine() throws {
        let test = try makeDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            try db.inTransaction {
                try db.execute(sql: "ROLLBACK")
                return .rollback
            }
            #expect(!db.isInsideTransaction)
        }
    }

    @Test func transactionsManagedInSQLAreNotAborted() throws {
        // Without a transaction opened by the library, SQL that ends its own transaction
        // leaves the connection in autocommit mode, as SQLite does.
        let test = try makeDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN; INSERT INTO ledger VALUES (1); ROLLBACK")
            try db.execute(sql: "INSERT INTO ledger VALUES (2)")
        }
        #expect(try entries(test) == [2])
    }

    @Test func interruptedWriteKeepsNothing() throws {
        let test = try makeDatabase()
        let dbQueue = test.dbQueue
        let error = expectDatabaseError(.SQLITE_ABORT) {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO ledger VALUES (1)")
                // Interrupted while it runs: SQLite rolls the whole transaction back.
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { dbQueue.interrupt() }
                let interrupted = expectDatabaseError(.SQLITE_INTERRUPT) {
                    try db.execute(sql: """
                        WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n)
                        INSERT INTO ledger SELECT i FROM n
                        """)
                }
                #expect(interrupted?.isInterruptionError == true)
                try db.execute(sql: "INSERT INTO ledger VALUES (0)")
            }
        }
        #expect(error?.sql == "INSERT INTO ledger VALUES (0)")
        #expect(try entries(test) == [])
    }

    @Test func interruptedCommitOnFullTextTableEndsTheTransaction() throws {
        let test = try TestDatabase()
        let dbQueue = test.dbQueue
        try dbQueue.write { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE note USING fts5(body)")
        }
        // The interrupt lands on the commit (or its rollback): the access throws, the
        // transaction ends, nothing is kept, and the connection stays usable.
        do {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO note(body) VALUES ('encrypted at rest')")
                dbQueue.interrupt()
            }
        } catch let error as DatabaseError {
            #expect(error.resultCode == .SQLITE_INTERRUPT)
        }
        let count = try dbQueue.read { db in
            #expect(db.isInsideTransaction) // the read's own transaction
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note")
        }
        #expect(count == 0)
        dbQueue.writeWithoutTransaction { db in #expect(!db.isInsideTransaction) }
    }
}
