import CSQLCipher
import Testing
@testable import GRDBCipher

@Suite("Database limits and library version")
struct DatabaseLimitsTests {
    @Test func libraryVersionNumberMatchesTheVersionString() throws {
        let test = try TestDatabase()
        let text = try test.dbQueue.read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()")! }
        let parts = text.split(separator: ".").map { Int32($0)! }
        #expect(parts.count == 3)
        #expect(Database.sqliteLibVersionNumber == parts[0] * 1_000_000 + parts[1] * 1_000 + parts[2])
    }

    @Test func maximumArgumentCountIsWhatSQLiteAccepts() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            let maximum = db.maximumStatementArgumentCount
            #expect(maximum > 0)
            func placeholders(_ count: Int) -> String {
                "SELECT 1 WHERE 0 IN (" + Array(repeating: "?", count: count).joined(separator: ",") + ")"
            }
            // As many arguments as the limit: the statement compiles.
            let statement = try db.makeStatement(sql: placeholders(maximum))
            #expect(try Int.fetchOne(statement, arguments: StatementArguments(Array(0..<maximum))) == 1)
            // One more: SQLite refuses it.
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try db.makeStatement(sql: placeholders(maximum + 1)) }
            #expect(error?.message?.contains("too many SQL variables") == true)
        }
    }

    @Test func maximumArgumentCountFollowsTheConnectionLimit() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, 7)
            #expect(db.maximumStatementArgumentCount == 7)
            expectDatabaseError(.SQLITE_ERROR) {
                _ = try Int.fetchAll(db, sql: "SELECT ?+?+?+?+?+?+?+?", arguments: [1, 2, 3, 4, 5, 6, 7, 8])
            }
            #expect(try Int.fetchOne(db, sql: "SELECT ?+?+?+?+?+?+?", arguments: [1, 2, 3, 4, 5, 6, 7]) == 28)
        }
    }
}
