import CSQLCipher
import Foundation
import Testing
@testable import GRDBCipher

// How statements run, as GRDB 7.10: pragmas of multi-statement SQL act (STM-5), fetches from
// statements without columns (STM-1), the errors of empty and multiple statements (PRG-1,
// STM-3), bindings cleared after a run (STM-4).

@Suite("Running statements")
struct StatementRunTests {
    @Test func pragmaInMultiStatementSQLActs() throws {
        let test = try TestDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: """
                CREATE TABLE shelf(id INTEGER PRIMARY KEY);
                CREATE TABLE book(id INTEGER PRIMARY KEY, shelfId INTEGER REFERENCES shelf(id));
                PRAGMA foreign_keys = OFF;
                INSERT INTO book(shelfId) VALUES (99);
                """)
            #expect(try Int.fetchOne(db, sql: "SELECT shelfId FROM book") == 99)
            #expect(try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == false)
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
    }

    @Test func fetchingFromAStatementWithoutColumns() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            var results: [[Int]] = []
            for statement in try Array(db.allStatements(sql: "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); SELECT a FROM t ORDER BY a")) {
                results.append(try Int.fetchAll(statement))
            }
            #expect(results == [[], [], [1, 2]])
            #expect(try Row.fetchAll(db.makeStatement(sql: "INSERT INTO t VALUES (3)")).isEmpty)
            #expect(try Int.fetchOne(db.makeStatement(sql: "INSERT INTO t VALUES (4)")) == nil)
            #expect(try String.fetchAll(db.makeStatement(sql: "CREATE TABLE u(b)")).isEmpty)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 4)
        }
    }

    @Test func emptyAndMultipleStatements() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            expectDatabaseError(.SQLITE_ERROR) { _ = try db.makeStatement(sql: "") }
            expectDatabaseError(.SQLITE_ERROR) { _ = try db.makeStatement(sql: "  -- nothing\n") }
            let error = expectDatabaseError(.SQLITE_MISUSE) { _ = try db.makeStatement(sql: "SELECT 1; SELECT 2;") }
            #expect(error?.message == "Multiple statements found. To execute multiple statements, use Database.execute(sql:) or Database.allStatements(sql:) instead.")
            #expect(error?.sql == "SELECT 1; SELECT 2")
        }
    }

    @Test func bindingsAreClearedAfterARun() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE secret(token TEXT)")
            let statement = try db.cachedStatement(sql: "INSERT INTO secret VALUES (?)")
            try statement.execute(arguments: ["s3cr3t"])
            // The token is no longer bound: stepping the raw handle inserts NULL.
            #expect(sqlite3_step(statement.sqliteStatement) == SQLITE_DONE)
            sqlite3_reset(statement.sqliteStatement)
            #expect(try Array(String?.fetchAll(db, sql: "SELECT token FROM secret ORDER BY rowid")) == ["s3cr3t", nil])
            // Running again without arguments binds the statement's arguments again.
            try statement.execute()
            #expect(try String?.fetchAll(db, sql: "SELECT token FROM secret ORDER BY rowid") == ["s3cr3t", nil, "s3cr3t"])
            #expect(statement.arguments == ["s3cr3t"])
            // A cursor's statement too, once the cursor is done.
            let select = try db.makeStatement(sql: "SELECT token FROM secret WHERE token = ?")
            #expect(try String.fetchAll(select, arguments: ["s3cr3t"]).count == 2)
            // Its binding is cleared: the raw statement matches no row (token = NULL).
            #expect(sqlite3_step(select.sqliteStatement) == SQLITE_DONE)
            sqlite3_reset(select.sqliteStatement)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM secret") == 3)
            #expect(try String.fetchAll(select).count == 2)
        }
    }
}

@Suite("Descriptions of statement errors")
struct StatementErrorDescriptionTests {
    @Test func emptySQLWithArgumentsHasNoSQLPart() throws {
        // STM-2: as GRDB, no "while executing" for empty SQL.
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            let error = expectDatabaseError(.SQLITE_MISUSE) { try db.execute(sql: "", arguments: [1]) }
            #expect(error?.description.contains("while executing") == false)
            #expect(error?.description.hasPrefix("SQLite error 21: wrong number of statement arguments") == true)
        }
    }
}
