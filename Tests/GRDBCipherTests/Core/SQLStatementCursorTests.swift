import Foundation
import Testing
@testable import GRDBCipher

@Suite("SQLStatementCursor")
struct SQLStatementCursorTests {
    private func makeDatabase() throws -> TestDatabase {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE ferry (name TEXT NOT NULL, seats INTEGER)")
        }
        return test
    }

    @Test func statementsTakeTheirArgumentsInOrder() throws {
        let test = try makeDatabase()
        try test.dbQueue.write { db in
            let statements = try db.allStatements(sql: """
                INSERT INTO ferry (name, seats) VALUES (?, ?);
                INSERT INTO ferry (name, seats) VALUES (?, ?);
                """, arguments: ["Scillonian", 485, "Pride of Rosyth", 250])
            var sql: [String] = []
            var arguments: [StatementArguments] = []
            while let statement = try statements.next() {
                sql.append(statement.sql)
                arguments.append(statement.arguments)
                try statement.execute()
            }
            #expect(sql == ["INSERT INTO ferry (name, seats) VALUES (?, ?)", "INSERT INTO ferry (name, seats) VALUES (?, ?)"])
            #expect(arguments == [["Scillonian", 485], ["Pride of Rosyth", 250]])
            // The cursor is done for good.
            #expect(try statements.next() == nil)
            #expect(try Row.fetchAll(db, sql: "SELECT * FROM ferry") == [
                ["name": "Scillonian", "seats": 485],
                ["name": "Pride of Rosyth", "seats": 250],
            ])
        }
    }

    @Test func namedArgumentsAreSharedByAllStatements() throws {
        let test = try makeDatabase()
        try test.dbQueue.write { db in
            try db.allStatements(sql: """
                INSERT INTO ferry (name, seats) VALUES (:name, :seats);
                UPDATE ferry SET seats = :seats + 1 WHERE name = :name;
                """, arguments: ["name": "Gry Maritha", "seats": 100]).forEach { try $0.execute() }
            #expect(try Int.fetchOne(db, sql: "SELECT seats FROM ferry") == 101)
        }
    }

    @Test func literalInterpolationsAreTheArguments() throws {
        let test = try makeDatabase()
        try test.dbQueue.write { db in
            let name = "O'Brien's Ferry"
            let statements = try db.allStatements(literal: """
                INSERT INTO ferry (name, seats) VALUES (\(name), \(12));
                SELECT name FROM ferry WHERE seats = \(12);
                """)
            let insert = try #require(try statements.next())
            #expect(insert.arguments == [name, 12])
            try insert.execute()
            let select = try #require(try statements.next())
            #expect(try String.fetchAll(select) == [name])
            #expect(try statements.next() == nil)
        }
    }

    @Test func selectResultsJoinIntoOneCursor() throws {
        let test = try makeDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "INSERT INTO ferry VALUES ('Kingswear', 50), ('Dartmouth', 60)")
            let names = try db.allStatements(sql: """
                SELECT name FROM ferry WHERE seats < 55;
                SELECT name FROM ferry WHERE seats >= 55;
                """)
                .flatMap { try String.fetchCursor($0) }
            #expect(try Array(names) == ["Kingswear", "Dartmouth"])
        }
    }

    @Test func statementsArePreparedWhenTheCursorReachesThem() throws {
        let test = try makeDatabase()
        try test.dbQueue.write { db in
            let sql = "CREATE TABLE quay (name TEXT); INSERT INTO quay VALUES ('North')"
            // Collected first, the INSERT can not be prepared: the table does not exist yet.
            _ = expectDatabaseError(.SQLITE_ERROR) { _ = try Array(db.allStatements(sql: sql)) }
            #expect(try !db.tableExists("quay"))
            // Run one by one, it can.
            try db.allStatements(sql: sql).forEach { try $0.execute() }
            #expect(try String.fetchAll(db, sql: "SELECT name FROM quay") == ["North"])
        }
    }

    @Test func withoutArgumentsStatementsAreLeftForTheCaller() throws {
        let test = try makeDatabase()
        try test.dbQueue.write { db in
            let statements = try db.allStatements(sql: "INSERT INTO ferry (name) VALUES (?); SELECT 1;")
            let insert = try #require(try statements.next())
            #expect(insert.arguments == [])
            try insert.setArguments(["Cremyll"])
            try insert.execute()
            #expect(try statements.next()?.sql == "SELECT 1")
            #expect(try statements.next() == nil)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM ferry") == ["Cremyll"])
        }
    }

    @Test func emptySQLHasNoStatement() throws {
        let test = try makeDatabase()
        try test.dbQueue.read { db throws in
            #expect(try db.allStatements(sql: "").next() == nil)
            #expect(try db.allStatements(sql: " ; -- nothing\n").next() == nil)
        }
    }

    @Test func wrongArgumentCountsThrowTheErrorsOfExecute() throws {
        let test = try makeDatabase()
        try test.dbQueue.write { db in
            let sql = "INSERT INTO ferry (name) VALUES (?); INSERT INTO ferry (name) VALUES (?)"
            // Too few: the statement that lacks its argument throws when the cursor reaches it.
            let tooFew = try db.allStatements(sql: sql, arguments: ["Tamar"])
            try #require(try tooFew.next()).execute()
            let missing = expectDatabaseError(.SQLITE_MISUSE) { _ = try tooFew.next() }
            let executeMissing = expectDatabaseError(.SQLITE_MISUSE) { try db.execute(sql: sql, arguments: ["Tamar"]) }
            #expect(missing?.message == executeMissing?.message)
            #expect(missing?.message == "wrong number of statement arguments: 1")

            // Too many: the end of the cursor throws.
            let tooMany = try db.allStatements(sql: sql, arguments: ["Tamar", "Torpoint", "Saltash"])
            #expect(try tooMany.next() != nil)
            #expect(try tooMany.next() != nil)
            let extra = expectDatabaseError(.SQLITE_MISUSE) { _ = try tooMany.next() }
            let executeExtra = expectDatabaseError(.SQLITE_MISUSE) { try db.execute(sql: sql, arguments: ["Tamar", "Torpoint", "Saltash"]) }
            #expect(extra?.message == executeExtra?.message)
            #expect(extra?.message == "wrong number of statement arguments: 3")
            // Arguments are not in the description (publicStatementArguments is false).
            #expect(extra.map { !"\($0)".contains("Saltash") } == true)

            // Missing named argument.
            let named = try db.allStatements(sql: "SELECT :quay", arguments: ["pier": 1])
            let namedError = expectDatabaseError(.SQLITE_MISUSE) { _ = try named.next() }
            #expect(namedError?.message == "missing statement argument: quay")

            // An explicit empty argument list is checked too.
            let empty = try db.allStatements(sql: "SELECT ?", arguments: [])
            expectDatabaseError(.SQLITE_MISUSE) { _ = try empty.next() }
        }
    }

    @Test func syntaxErrorsThrowWhenReached() throws {
        let test = try makeDatabase()
        try test.dbQueue.read { db in
            let statements = try db.allStatements(sql: "SELECT 1; SELEKT 2")
            #expect(try statements.next()?.sql == "SELECT 1")
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try statements.next() }
            #expect(error?.message?.contains("syntax error") == true)
        }
    }
}
