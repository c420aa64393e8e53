import CSQLCipher
import Testing
@testable import GRDBCipher

@Suite("Statement")
struct StatementTests {
    @Test func preparedStatementRunsWithArguments() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a, b)")
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (?, :b)")
            #expect(statement.sql == "INSERT INTO t VALUES (?, :b)")
            #expect(!statement.isReadonly)
            try statement.execute(arguments: [1, 2])
            try statement.execute(arguments: [3, 4])
            statement.arguments = [5, 6]
            try statement.execute()
            #expect(statement.arguments == [5, 6])
            #expect(try Int.fetchAll(db, sql: "SELECT b FROM t ORDER BY a") == [2, 4, 6])
        }
    }

    /// A statement is reset before new values are bound only when a run may have left it
    /// unreset; one stepped through its raw handle, which the library does not see, is reset
    /// when SQLite refuses the binding, and runs as if it had been reset.
    @Test func statementSteppedThroughItsHandleBindsAgain() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3)")
            let select = try db.makeStatement(sql: "SELECT a FROM t WHERE a >= ? ORDER BY a")
            #expect(try Int.fetchAll(select, arguments: [2]) == [2, 3])
            // Bound and stepped through its raw handle: left in the middle of a run.
            #expect(sqlite3_bind_int64(select.sqliteStatement, 1, 1) == SQLITE_OK)
            #expect(sqlite3_step(select.sqliteStatement) == SQLITE_ROW)
            #expect(try Int.fetchAll(select, arguments: [1]) == [1, 2, 3])
            // Run to its end through the raw handle (its binding was cleared), not reset.
            #expect(sqlite3_step(select.sqliteStatement) == SQLITE_DONE)
            #expect(try Int.fetchAll(select, arguments: [3]) == [3])

            // No parameter, so no binding to refuse: reset all the same.
            let all = try db.makeStatement(sql: "SELECT a FROM t ORDER BY a")
            #expect(sqlite3_step(all.sqliteStatement) == SQLITE_ROW)
            #expect(try Int.fetchAll(all, arguments: []) == [1, 2, 3])

            let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?)")
            try insert.execute(arguments: [4])
            #expect(sqlite3_step(insert.sqliteStatement) == SQLITE_DONE)  // inserts NULL
            try insert.execute(arguments: [5])
            #expect(try Int?.fetchAll(db, sql: "SELECT a FROM t ORDER BY rowid") == [1, 2, 3, 4, nil, 5])
        }
    }

    @Test func statementSQLIsTrimmedOfSeparators() throws {
        let test = try TestDatabase()
        let texts = try test.dbQueue.read { db in
            try [
                " \t\n SELECT 1 ;; \r\n",
                "SELECT 'é;'  ;",
                // Unicode whitespace at an edge (here inside a trailing comment) is trimmed too.
                "SELECT 2 -- note\u{3000}\u{00A0}",
                "SELECT '日本'",
            ].map { try db.makeStatement(sql: $0).sql }
        }
        #expect(texts == ["SELECT 1", "SELECT 'é;'", "SELECT 2 -- note", "SELECT '日本'"])
    }

    @Test func statementColumns() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let statement = try db.makeStatement(sql: "SELECT 1 AS id, 'a' AS Name")
            #expect(statement.isReadonly)
            #expect(statement.columnCount == 2)
            #expect(statement.columnNames == ["id", "Name"])
            #expect(statement.index(ofColumn: "name") == 1)
            #expect(statement.index(ofColumn: "missing") == nil)
        }
    }

    @Test func multipleStatementsAreRefused() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let error = expectDatabaseError(.SQLITE_MISUSE) {
                _ = try db.makeStatement(sql: "SELECT 1; SELECT 2")
            }
            #expect(error?.message?.hasPrefix("Multiple statements found") == true)
            // Trailing semicolons and whitespace are fine.
            _ = try db.makeStatement(sql: "SELECT 1;  \n")
        }
    }

    @Test func syntaxErrorAtPreparation() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let error = expectDatabaseError(.SQLITE_ERROR) {
                _ = try db.makeStatement(sql: "SELEC 1")
            }
            #expect(error?.message == "near \"SELEC\": syntax error")
            #expect(error?.sql == "SELEC 1")
        }
    }

    @Test func argumentsAreValidated() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let statement = try db.makeStatement(sql: "SELECT ?, :name")
            expectDatabaseError(.SQLITE_MISUSE) { try statement.setArguments([1]) }
            expectDatabaseError(.SQLITE_MISUSE) { try statement.setArguments([1, 2, 3]) }
            expectDatabaseError(.SQLITE_MISUSE) { try statement.validateArguments(["other": 1]) }
            try statement.validateArguments([1, 2])
            try statement.setArguments(StatementArguments([1]) + ["name": "x"])
            #expect(try Row.fetchOne(statement) == [("?"): 1, ":name": "x"] as Row)
            // Running without arguments a statement that needs some is an error.
            let fresh = try db.makeStatement(sql: "SELECT ?")
            expectDatabaseError(.SQLITE_MISUSE) { _ = try Row.fetchAll(fresh) }
        }
    }

    @Test func uncheckedArgumentsBindWhatTheyHave() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let statement = try db.makeStatement(sql: "SELECT ?, ?")
            statement.setUncheckedArguments([1])
            let row = try Row.fetchOne(statement)!
            #expect(row[0] as Int? == 1)
            #expect(row[1] as Int? == nil)
        }
    }

    @Test func cachedStatementsAreReused() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let s1 = try db.cachedStatement(sql: "SELECT 1")
            let s2 = try db.cachedStatement(sql: "SELECT 1")
            let s3 = try db.makeStatement(sql: "SELECT 1")
            #expect(s1 === s2)
            #expect(s1 !== s3)
        }
    }

    @Test func cachedStatementIsNotSharedWithALiveCursor() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)")
            var pairs: [[Int]] = []
            let outer = try Int.fetchCursor(db, sql: "SELECT a FROM t ORDER BY a")
            while let a = try outer.next() {
                // Same SQL while the outer cursor iterates.
                let inner = try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a")
                pairs.append([a] + inner)
            }
            #expect(pairs == [[1, 1, 2], [2, 1, 2]])
        }
    }

    @Test func makeStatementLiteral() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let statement = try db.makeStatement(literal: "SELECT \(42) + \(8)")
            #expect(try Int.fetchOne(statement) == 50)
            let cached = try db.cachedStatement(literal: "SELECT \(1) * \(3)")
            #expect(try Int.fetchOne(cached) == 3)
        }
    }

    @Test func fetchesSeeTablesThatShadowOthers() throws {
        let test = try TestDatabase()
        let other = try TestDatabase(name: "other.sqlite")
        try other.dbQueue.write { try $0.execute(sql: "CREATE TABLE item(name TEXT); INSERT INTO item VALUES ('attached')") }
        try test.dbQueue.writeWithoutTransaction { (db: Database) throws in
            let key = TestEnvironment.encrypted ? " KEY \"\(TestEnvironment.testKey)\"" : ""
            try db.execute(sql: "ATTACH DATABASE '\(other.path)' AS other\(key)")
            #expect(try String.fetchAll(db, sql: "SELECT name FROM item") == ["attached"])
            // A table of main now shadows the attached one.
            try db.execute(sql: "CREATE TABLE item(name TEXT); INSERT INTO item VALUES ('main')")
            #expect(try String.fetchAll(db, sql: "SELECT name FROM item") == ["main"])
            // And a temporary table shadows both.
            try db.execute(sql: "CREATE TEMP TABLE item(name TEXT); INSERT INTO temp.item VALUES ('temp')")
            #expect(try String.fetchAll(db, sql: "SELECT name FROM item") == ["temp"])
            try db.execute(sql: "DROP TABLE temp.item")
            #expect(try String.fetchAll(db, sql: "SELECT name FROM item") == ["main"])
        }
    }
}
