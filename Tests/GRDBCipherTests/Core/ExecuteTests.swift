import Foundation
import Testing
@testable import GRDBCipher

@Suite("Database.execute")
struct ExecuteTests {
    private func count(_ dbQueue: DatabaseQueue, _ table: String = "t") throws -> Int {
        try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM \(table)")! }
    }

    @Test func severalStatementsShareArguments() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE t(a, b);
                INSERT INTO t VALUES (?, ?);
                INSERT INTO t VALUES (?, ?);
                """, arguments: [1, "one", 2, "two"])
            #expect(try Row.fetchAll(db, sql: "SELECT * FROM t ORDER BY a") == [["a": 1, "b": "one"], ["a": 2, "b": "two"]])
        }
    }

    @Test func namedArgumentsAcrossStatements() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a, b)")
            try db.execute(sql: "INSERT INTO t VALUES (:a, :b); INSERT INTO t VALUES (:b, $a)", arguments: ["a": 1, "b": 2])
            #expect(try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY rowid") == [1, 2])
        }
    }

    @Test func tooManyArgumentsRunNothing() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let error = expectDatabaseError(.SQLITE_MISUSE) {
            try test.dbQueue.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO t VALUES (?); INSERT INTO t VALUES (?)", arguments: [1, 2, 3])
            }
        }
        #expect(error?.message == "wrong number of statement arguments: 3")
        #expect(try count(test.dbQueue) == 0)
    }

    @Test func tooFewArgumentsRunNothing() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        expectDatabaseError(.SQLITE_MISUSE) {
            try test.dbQueue.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO t VALUES (?); INSERT INTO t VALUES (?)", arguments: [1])
            }
        }
        #expect(try count(test.dbQueue) == 0)
    }

    @Test func missingNamedArgument() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let error = expectDatabaseError(.SQLITE_MISUSE) {
            try test.dbQueue.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO t VALUES (:a); INSERT INTO t VALUES (:b)", arguments: ["a": 1])
            }
        }
        #expect(error?.message == "missing statement argument: b")
        #expect(try count(test.dbQueue) == 0)
    }

    @Test func syntaxErrorInLaterStatementRunsNothing() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let error = expectDatabaseError(.SQLITE_ERROR) {
            try test.dbQueue.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO t VALUES (1); INSERT INTO t VALUS (2)")
            }
        }
        #expect(error?.message?.contains("syntax error") == true)
        #expect(try count(test.dbQueue) == 0)
    }

    @Test func constraintViolationInLaterStatementIsRolledBack() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a UNIQUE)") }
        expectDatabaseError(.SQLITE_CONSTRAINT_UNIQUE) {
            try test.dbQueue.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); INSERT INTO t VALUES (1)")
                #expect(!db.isInsideTransaction)
            }
        }
        #expect(try count(test.dbQueue) == 0)
    }

    @Test func laterStatementsMayDependOnEarlierOnes() throws {
        let test = try TestDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (?); CREATE INDEX ta ON t(a)", arguments: [5])
        }
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 5)
    }

    @Test func failureAfterDependentStatementIsRolledBack() throws {
        let test = try TestDatabase()
        expectDatabaseError(.SQLITE_MISUSE) {
            try test.dbQueue.writeWithoutTransaction { db in
                // The INSERT cannot be prepared before the table exists: arguments are checked
                // as the statements run, and the savepoint undoes the CREATE TABLE.
                try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (?)", arguments: [1, 2])
            }
        }
        let exists = try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 't'") }
        #expect(exists == 0)
    }

    @Test func transactionStatementsInSQLRunAsWritten() throws {
        let test = try TestDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE t(a); BEGIN; INSERT INTO t VALUES (1); COMMIT")
            #expect(!db.isInsideTransaction)
        }
        #expect(try count(test.dbQueue) == 1)
    }

    @Test func emptySQLAndComments() throws {
        let test = try TestDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "")
            try db.execute(sql: "  -- nothing\n ; ")
            try db.execute(sql: "SELECT 1; -- trailing comment")
        }
        expectDatabaseError(.SQLITE_MISUSE) {
            try test.dbQueue.writeWithoutTransaction { try $0.execute(sql: "-- comment", arguments: [1]) }
        }
    }

    @Test func executeLiteral() throws {
        let test = try TestDatabase()
        let name = "O'Brien"
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute(literal: "INSERT INTO player (name) VALUES (\(name))")
            #expect(try String.fetchOne(db, sql: "SELECT name FROM player") == name)
        }
    }

    @Test func changesAndLastInsertedRowID() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
            let initialTotal = db.totalChangesCount
            try db.execute(sql: "INSERT INTO t (a) VALUES (1), (2), (3)")
            #expect(db.lastInsertedRowID == 3)
            #expect(db.changesCount == 3)
            try db.execute(sql: "UPDATE t SET a = a + 1 WHERE id > 1")
            #expect(db.changesCount == 2)
            #expect(db.totalChangesCount == initialTotal + 5)
        }
    }

    @Test func unknownColumnAndTable() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let error = expectDatabaseError(.SQLITE_ERROR) {
            try test.dbQueue.write { try $0.execute(sql: "INSERT INTO t (b) VALUES (1)") }
        }
        #expect(error?.message == "table t has no column named b")
        #expect(error?.sql == "INSERT INTO t (b) VALUES (1)")
        expectDatabaseError(.SQLITE_ERROR) {
            try test.dbQueue.read { _ = try Row.fetchAll($0, sql: "SELECT * FROM missing") }
        }
    }

    @Test func argumentsAreHiddenFromErrorDescriptions() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(secret UNIQUE)") }
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["hunter2"]) }
        let error = expectDatabaseError(.SQLITE_CONSTRAINT) {
            try test.dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["hunter2"]) }
        }
        #expect(error?.description.contains("hunter2") == false)
        #expect(error?.description == "SQLite error 19: UNIQUE constraint failed: t.secret - while executing `INSERT INTO t VALUES (?)`")
        #expect(error?.arguments == ["hunter2"])
        #expect(error?.expandedDescription.contains("hunter2") == true)
    }

    @Test func publicStatementArgumentsShowArguments() throws {
        var config = Configuration()
        config.publicStatementArguments = true
        let test = try TestDatabase(configuration: config)
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a UNIQUE); INSERT INTO t VALUES (1)") }
        let error = expectDatabaseError(.SQLITE_CONSTRAINT) {
            try test.dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1]) }
        }
        #expect(error?.description == "SQLite error 19: UNIQUE constraint failed: t.a - while executing `INSERT INTO t VALUES (?)` with arguments [1]")
    }
}
