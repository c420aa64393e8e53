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
        #expect(try values(test.dbQueue) == [1])
        #expect(recorder.sql.filter { !$0.hasPrefix("PRAGMA") && !$0.hasPrefix("SELECT") } == [
            "BEGIN IMMEDIATE TRANSACTION", "INSERT INTO t VALUES (1)", "COMMIT TRANSACTION",
            "BEGIN IMMEDIATE TRANSACTION", "INSERT INTO t VALUES (2)", "ROLLBACK TRANSACTION",
        ])
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

    @Test func defaultTransactionKind() throws {
        var config = Configuration()
        config.defaultTransactionKind = .exclusive
        let (test, recorder) = try makeDatabase(config)
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(recorder.sql.first == "BEGIN EXCLUSIVE TRANSACTION")
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
