import CSQLCipher
import Foundation
import Testing
@testable import GRDBCipher

@Suite("Statement caches")
struct StatementCacheTests {
    @Test func theLibraryNeverBindsAStatementTheUserHolds() throws {
        let test = try TestDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            let mine = try db.cachedStatement(sql: "SELECT ? * 10")
            try mine.setArguments([1])
            // The same SQL through a fetch method: another statement.
            #expect(try Int.fetchOne(db, sql: "SELECT ? * 10", arguments: [5]) == 50)
            #expect(mine.arguments == [1])
            #expect(try Int.fetchOne(mine) == 10)
            // The user's cache gives the user's statement back.
            #expect(try db.cachedStatement(sql: "SELECT ? * 10") === mine)
        }
    }

    @Test func theLibraryCacheIsBounded() throws {
        let test = try TestDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            // Warm up: the library's own statements, the first allocations.
            for i in 0..<1000 { _ = try Int.fetchOne(db, sql: "SELECT \(i) AS warm") }
            // Per-connection figure: other tests run in parallel and move
            // the process-wide sqlite3_memory_used().
            let memoryBefore = try statementMemory(db)
            // A service that builds SQL dynamically: 100,000 distinct statements.
            for i in 0..<100_000 {
                #expect(try Int.fetchOne(db, sql: "SELECT \(i) + 1") == i + 1)
            }
            #expect(db.libraryStatements.count <= db.libraryStatements.capacity)
            let memoryAfter = try statementMemory(db)
            #expect(memoryAfter > 0)
            let growth = memoryAfter - memoryBefore
            // Unbounded, the statements would hold hundreds of megabytes.
            #expect(growth < 1 << 20, "Statement memory grew by \(growth) bytes")
            // Recently used statements stay cached.
            _ = try Int.fetchOne(db, sql: "SELECT 7 + 1")
            let cached = try db.fetchStatement(sql: "SELECT 7 + 1")
            #expect(try db.fetchStatement(sql: "SELECT 7 + 1") === cached)
        }
    }

    @Test func leastRecentlyUsedGoesFirst() throws {
        let test = try TestDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            let capacity = db.libraryStatements.capacity
            let first = try db.fetchStatement(sql: "SELECT 'first'")
            for i in 0..<(capacity - 1) {
                _ = try db.fetchStatement(sql: "SELECT \(i)")
                // Keeps the first one in use.
                _ = try db.fetchStatement(sql: "SELECT 'first'")
            }
            _ = try db.fetchStatement(sql: "SELECT 'one more'")
            _ = try db.fetchStatement(sql: "SELECT 'and another'")
            #expect(try db.fetchStatement(sql: "SELECT 'first'") === first)
            #expect(db.libraryStatements.count == capacity)
        }
    }

    /// Bytes the connection's prepared statements hold (SQLITE_DBSTATUS_STMT_USED).
    private func statementMemory(_ db: Database) throws -> Int64 {
        var current: Int32 = 0
        var highwater: Int32 = 0
        let code = sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_STMT_USED, &current, &highwater, 0)
        try #require(code == SQLITE_OK)
        return Int64(current)
    }
}
