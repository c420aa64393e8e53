import Testing
@testable import GRDBCipher

@Suite("Cursors into collections")
struct CursorCollectionsTests {
    /// Prime numbers below 20, in a table, in insertion order.
    private func withPrimes<T>(_ body: (Database) throws -> T) throws -> T {
        let test = try TestDatabase()
        return try test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE prime(p INTEGER); INSERT INTO prime VALUES (2), (3), (5), (7), (11), (13), (17), (19)")
            return try body(db)
        }
    }

    private func primes(_ db: Database, below limit: Int = 20) throws -> FastDatabaseValueCursor<Int> {
        try Int.fetchCursor(db, sql: "SELECT p FROM prime WHERE p < ? ORDER BY rowid", arguments: [limit])
    }

    @Test func dropLastAndSuffix() throws {
        try withPrimes { (db: Database) throws in
            #expect(try primes(db).dropLast() == [2, 3, 5, 7, 11, 13, 17])
            #expect(try primes(db).dropLast(3) == [2, 3, 5, 7, 11])
            #expect(try primes(db).dropLast(0) == [2, 3, 5, 7, 11, 13, 17, 19])
            #expect(try primes(db).dropLast(100) == [])
            #expect(try primes(db).suffix(3) == [13, 17, 19])
            #expect(try primes(db).suffix(1) == [19])
            #expect(try primes(db).suffix(0) == [])
            #expect(try primes(db).suffix(8) == [2, 3, 5, 7, 11, 13, 17, 19])
            #expect(try primes(db).suffix(50) == [2, 3, 5, 7, 11, 13, 17, 19])
            // A ring that wraps around more than once.
            #expect(try AnyCursor(1...10).suffix(3) == [8, 9, 10])
            #expect(try AnyCursor(1...10).suffix(4) == [7, 8, 9, 10])
            // Empty cursors.
            #expect(try primes(db, below: 0).dropLast() == [])
            #expect(try primes(db, below: 0).suffix(2) == [])
            // What was consumed stays consumed.
            let cursor = try primes(db)
            #expect(try cursor.next() == 2)
            #expect(try cursor.suffix(2) == [17, 19])
            #expect(try cursor.next() == nil)
        }
    }

    @Test func rangeReplaceableCollections() throws {
        try withPrimes { (db: Database) throws in
            #expect(try [Int](primes(db, below: 8)) == [2, 3, 5, 7])
            #expect(try ContiguousArray(primes(db, below: 8)) == [2, 3, 5, 7])
            #expect(try ArraySlice(primes(db, below: 6), minimumCapacity: 16) == [2, 3, 5])
            var numbers = [1]
            try numbers.append(contentsOf: primes(db, below: 6))
            #expect(numbers == [1, 2, 3, 5])
            // Other collections of the standard library: strings from characters.
            let letters = try String(AnyCursor(["d", "b"] as [Character]))
            #expect(letters == "db")
            var text = "ab"
            try text.append(contentsOf: String.fetchCursor(db, sql: "SELECT 'c' UNION ALL SELECT 'd'").map { Character($0) })
            #expect(text == "abcd")
        }
    }

    @Test func sets() throws {
        try withPrimes { (db: Database) throws in
            let odd: Set = [1, 3, 5, 7, 9]
            #expect(try Set(primes(db, below: 8), minimumCapacity: 10) == [2, 3, 5, 7])
            #expect(try odd.union(primes(db, below: 8)) == [1, 2, 3, 5, 7, 9])
            #expect(try odd.intersection(primes(db)) == [3, 5, 7])
            #expect(try odd.intersection(primes(db, below: 0)) == [])
            var set: Set = [4, 5]
            try set.formUnion(primes(db, below: 4))
            #expect(set == [2, 3, 4, 5])
            try set.formIntersection(primes(db))
            #expect(set == [2, 3, 5])
        }
    }

    @Test func dictionaries() throws {
        try withPrimes { (db: Database) throws in
            let byLastDigit = try Dictionary(minimumCapacity: 20, grouping: primes(db), by: { $0 % 10 })
            #expect(byLastDigit == [2: [2], 3: [3, 13], 5: [5], 7: [7, 17], 1: [11], 9: [19]])
            let squares = try Dictionary(minimumCapacity: 4, uniqueKeysWithValues: primes(db, below: 6).map { ($0, $0 * $0) })
            #expect(squares == [2: 4, 3: 9, 5: 25])
            let names = try Dictionary(uniqueKeysWithValues: Row.fetchCursor(db, sql: "SELECT p, 'p' || p FROM prime WHERE p < 5")
                .map { ($0[0] as Int, $0[1] as String) })
            #expect(names == [2: "p2", 3: "p3"])
        }
    }

    @Test func sequenceFlatMapOfCursors() throws {
        try withPrimes { (db: Database) throws in
            let limits = [4, 8]
            let flattened = limits.flatMap { limit in
                try Int.fetchCursor(db, sql: "SELECT p FROM prime WHERE p < ? ORDER BY p", arguments: [limit])
            }
            #expect(try Array(flattened) == [2, 3, 2, 3, 5, 7])
            // Sequences of sequences keep the standard library's flatMap.
            #expect(limits.flatMap { [$0, -$0] } == [4, -4, 8, -8])
            // An error thrown by the transform surfaces when the cursor is iterated.
            let failing = limits.flatMap { limit -> AnyCursor<Int> in
                if limit > 5 { throw DatabaseError(message: "limit too high") }
                return AnyCursor([limit])
            }
            #expect(try failing.next() == 4)
            #expect(throws: DatabaseError.self) { try failing.next() }
        }
    }

    /// Collections built from a cursor go through its `forEach`.
    final class OnlyForEach: Cursor {
        func next() throws -> Int? {
            Issue.record("next() called: forEach should have been used")
            return nil
        }
        func forEach(_ body: (Int) throws -> Void) throws {
            for value in [10, 20, 30] { try body(value) }
        }
    }

    @Test func collectionsGoThroughForEach() throws {
        #expect(try OnlyForEach().dropLast() == [10, 20])
        #expect(try OnlyForEach().suffix(2) == [20, 30])
        #expect(try ContiguousArray(OnlyForEach()) == [10, 20, 30])
        var array = [0]
        try array.append(contentsOf: OnlyForEach())
        #expect(array == [0, 10, 20, 30])
        #expect(try Set([20, 40]).union(OnlyForEach()) == [10, 20, 30, 40])
        #expect(try Set([20, 40]).intersection(OnlyForEach()) == [20])
        #expect(try Dictionary(minimumCapacity: 2, grouping: OnlyForEach(), by: { $0 > 15 }) == [false: [10], true: [20, 30]])
        #expect(try Dictionary(minimumCapacity: 2, uniqueKeysWithValues: OnlyForEach().map { ($0, "\($0)") }) == [10: "10", 20: "20", 30: "30"])
    }
}
