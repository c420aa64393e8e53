import Testing
@testable import GRDBCipher

@Suite("Cursor")
struct CursorTests {
    private func withNumbers<T>(_ body: (Database) throws -> T) throws -> T {
        let test = try TestDatabase()
        return try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (3), (1), (4), (1), (5)")
            return try body(db)
        }
    }

    private func cursor(_ db: Database) throws -> FastDatabaseValueCursor<Int> {
        try Int.fetchCursor(db, sql: "SELECT a FROM t ORDER BY rowid")
    }

    @Test func transformations() throws {
        try withNumbers { (db: Database) throws in
            #expect(try Array(cursor(db).map { $0 * 10 }) == [30, 10, 40, 10, 50])
            #expect(try Array(cursor(db).filter { $0 > 2 }) == [3, 4, 5])
            #expect(try Array(cursor(db).compactMap { $0 == 1 ? nil : $0 }) == [3, 4, 5])
            #expect(try Array(cursor(db).flatMap { [$0, $0] }) == [3, 3, 1, 1, 4, 4, 1, 1, 5, 5])
            #expect(try Array(cursor(db).flatMap { _ in AnyCursor([7]) }) == [7, 7, 7, 7, 7])
            #expect(try Array(cursor(db).prefix(2)) == [3, 1])
            #expect(try Array(cursor(db).prefix(while: { $0 != 4 })) == [3, 1])
            #expect(try Array(cursor(db).dropFirst()) == [1, 4, 1, 5])
            #expect(try Array(cursor(db).dropFirst(3)) == [1, 5])
            #expect(try Array(cursor(db).drop(while: { $0 != 4 })) == [4, 1, 5])
            #expect(try Array(cursor(db).enumerated().map { $0.offset }) == [0, 1, 2, 3, 4])
            #expect(try Array(cursor(db).map { [$0] }.joined()) == [3, 1, 4, 1, 5])
        }
    }

    @Test func consumers() throws {
        try withNumbers { (db: Database) throws in
            #expect(try cursor(db).first(where: { $0 > 3 }) == 4)
            #expect(try cursor(db).contains(4))
            #expect(try !cursor(db).contains(9))
            #expect(try cursor(db).contains { $0 == 5 })
            #expect(try cursor(db).reduce(0, +) == 14)
            #expect(try cursor(db).reduce(into: [Int]()) { $0.append($1) } == [3, 1, 4, 1, 5])
            #expect(try cursor(db).min() == 1)
            #expect(try cursor(db).max() == 5)
            #expect(try !cursor(db).isEmpty)
            #expect(try Int.fetchCursor(db, sql: "SELECT a FROM t WHERE 0").isEmpty)
            #expect(try Set(cursor(db)) == [1, 3, 4, 5])
            #expect(try Array(cursor(db), minimumCapacity: 10) == [3, 1, 4, 1, 5])
            var seen: [Int] = []
            try cursor(db).forEach { seen.append($0) }
            #expect(seen == [3, 1, 4, 1, 5])
            #expect(try String.fetchCursor(db, sql: "SELECT 'a' UNION ALL SELECT 'b'").joined(separator: ",") == "a,b")
            let grouped = try Dictionary(grouping: cursor(db), by: { $0 % 2 })
            #expect(grouped[1] == [3, 1, 1, 5])
        }
    }

    @Test func cursorEndsAndStaysEnded() throws {
        try withNumbers { (db: Database) throws in
            let rows = try Row.fetchCursor(db, sql: "SELECT a FROM t")
            var count = 0
            while try rows.next() != nil { count += 1 }
            #expect(count == 5)
            #expect(try rows.next() == nil)
            #expect(try rows.next() == nil)
        }
    }

    @Test func errorDuringIterationIsThrown() throws {
        try withNumbers { (db: Database) throws in
            let values = try Int8.fetchCursor(db, sql: "SELECT CASE WHEN a = 4 THEN 1000 ELSE a END FROM t ORDER BY rowid")
            #expect(try values.next() == 3)
            #expect(try values.next() == 1)
            #expect(throws: RowDecodingError.self) { try values.next() }
            // SQLite errors during a step are DatabaseErrors.
            let failing = try Int.fetchCursor(db, sql: "SELECT abs(-9223372036854775807 - 1)")
            expectDatabaseError(.SQLITE_ERROR) { _ = try failing.next() }
        }
    }

    /// A cursor that only knows how to iterate with `forEach`.
    final class Chunks: Cursor {
        func next() throws -> Int? {
            Issue.record("next() called: forEach should have been used")
            return nil
        }
        func forEach(_ body: (Int) throws -> Void) throws {
            for value in [4, 5, 6] { try body(value) }
        }
    }

    @Test func forEachIsACustomizationPoint() throws {
        #expect(try Array(Chunks()) == [4, 5, 6])
        #expect(try Array(Chunks(), minimumCapacity: 8) == [4, 5, 6])
        #expect(try Set(Chunks()) == [4, 5, 6])
        #expect(try Array(Chunks().map { $0 * 10 }) == [40, 50, 60])
        #expect(try Array(Chunks().filter { $0 != 5 }) == [4, 6])
        #expect(try Array(Chunks().enumerated().map { $0.offset }) == [0, 1, 2])
        #expect(try Dictionary(grouping: Chunks(), by: { $0 % 2 }) == [0: [4, 6], 1: [5]])
        var seen: [Int] = []
        try Chunks().map { -$0 }.forEach { seen.append($0) }
        #expect(seen == [-4, -5, -6])
    }

    @Test func failedStepKeepsThrowing() throws {
        try withNumbers { (db: Database) throws in
            db.add(function: DatabaseFunction("fail", argumentCount: 1) { values in
                if Int.fromDatabaseValue(values[0]) == 4 { throw DatabaseError(message: "four is refused") }
                return values[0]
            })
            let values = try Int.fetchCursor(db, sql: "SELECT fail(a) FROM t")
            var read: [Int] = []
            let first = expectDatabaseError(.SQLITE_ERROR) {
                while let value = try values.next() { read.append(value) }
            }
            #expect(read == [3, 1])
            // Not a silent end: the same error again.
            let second = expectDatabaseError(.SQLITE_ERROR) { _ = try values.next() }
            #expect(first?.message == "four is refused")
            #expect(second?.message == first?.message)
        }
    }
}
