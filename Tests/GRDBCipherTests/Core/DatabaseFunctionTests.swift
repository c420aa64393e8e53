import Foundation
import Testing
@testable import GRDBCipher

@Suite("Functions and collations")
struct DatabaseFunctionTests {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "custom failure" }
    }

    @Test func scalarFunction() throws {
        let succ = DatabaseFunction("succ", argumentCount: 1, pure: true) { values in
            guard let int = Int.fromDatabaseValue(values[0]) else { return nil }
            return int + 1
        }
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            db.add(function: succ)
            #expect(try Int.fetchOne(db, sql: "SELECT succ(1)") == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT succ(NULL)") == nil)
            // Wrong argument count is an SQLite error.
            expectDatabaseError(.SQLITE_ERROR) { _ = try Int.fetchOne(db, sql: "SELECT succ(1, 2)") }
            db.remove(function: succ)
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try Int.fetchOne(db, sql: "SELECT succ(1)") }
            #expect(error?.message == "no such function: succ")
        }
    }

    @Test func variadicFunctionAndResultTypes() throws {
        let describe = DatabaseFunction("describe") { values in
            values.map(\.description).joined(separator: "|")
        }
        let blob = DatabaseFunction("make_blob", argumentCount: 0) { _ in Data([1, 2]) }
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            db.add(function: describe)
            db.add(function: blob)
            #expect(try String.fetchOne(db, sql: "SELECT describe(1, 'a', NULL, 2.5)") == "1|\"a\"|NULL|2.5")
            #expect(try Data.fetchOne(db, sql: "SELECT make_blob()") == Data([1, 2]))
        }
    }

    @Test func throwingFunction() throws {
        let fail = DatabaseFunction("fail", argumentCount: 0) { _ in throw Failure() }
        let failCode = DatabaseFunction("fail_code", argumentCount: 0) { _ in
            throw DatabaseError(resultCode: .SQLITE_CONSTRAINT_CHECK, message: "custom check")
        }
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            db.add(function: fail)
            db.add(function: failCode)
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try Int.fetchOne(db, sql: "SELECT fail()") }
            #expect(error?.message == "custom failure")
            let coded = expectDatabaseError(.SQLITE_CONSTRAINT_CHECK) { _ = try Int.fetchOne(db, sql: "SELECT fail_code()") }
            #expect(coded?.message == "custom check")
        }
    }

    struct Product: DatabaseAggregate {
        var product: Int = 1
        mutating func step(_ values: [DatabaseValue]) throws {
            guard let int = Int.fromDatabaseValue(values[0]) else { throw Failure() }
            product *= int
        }
        func finalize() -> (any DatabaseValueConvertible)? { product }
    }

    @Test func aggregateFunction() throws {
        let product = DatabaseFunction("product", argumentCount: 1, pure: true, aggregate: Product.self)
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            db.add(function: product)
            try db.execute(sql: "CREATE TABLE t(g, v); INSERT INTO t VALUES (1, 2), (1, 3), (2, 5), (2, 7)")
            #expect(try Int.fetchAll(db, sql: "SELECT product(v) FROM t GROUP BY g ORDER BY g") == [6, 35])
            #expect(try Int.fetchOne(db, sql: "SELECT product(v) FROM t WHERE 0") == 1)
            try db.execute(sql: "INSERT INTO t VALUES (3, 'x')")
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try Int.fetchAll(db, sql: "SELECT product(v) FROM t") }
            #expect(error?.message == "custom failure")
        }
    }

    @Test func customAndBuiltInCollations() throws {
        let reversed = DatabaseCollation("reversed") { lhs, rhs in
            lhs == rhs ? .orderedSame : (lhs < rhs ? .orderedDescending : .orderedAscending)
        }
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            db.add(collation: reversed)
            try db.execute(sql: "CREATE TABLE t(name); INSERT INTO t VALUES ('b'), ('a'), ('C')")
            #expect(try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY name COLLATE reversed") == ["b", "a", "C"])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY name COLLATE swiftLocalizedCaseInsensitiveCompare") == ["a", "b", "C"])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY name COLLATE \(Database.CollationName.nocase.rawValue)") == ["a", "b", "C"])
            db.remove(collation: reversed)
            expectDatabaseError(.SQLITE_ERROR) { _ = try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY name COLLATE reversed") }
        }
    }

    @Test func builtInCollationsAreRegisteredUnderGRDBNames() throws {
        #expect(DatabaseCollation.unicodeCompare.name == "swiftCompare")
        #expect(DatabaseCollation.caseInsensitiveCompare.name == "swiftCaseInsensitiveCompare")
        #expect(DatabaseCollation.localizedCaseInsensitiveCompare.name == "swiftLocalizedCaseInsensitiveCompare")
        #expect(DatabaseCollation.localizedCompare.name == "swiftLocalizedCompare")
        #expect(DatabaseCollation.localizedStandardCompare.name == "swiftLocalizedStandardCompare")
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            // No add(collation:) needed: a schema written by a GRDB application works as is.
            try db.create(table: "city") { t in
                t.column("name", .text).collate(.caseInsensitiveCompare)
            }
            #expect(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'city'")?
                .contains("COLLATE swiftCaseInsensitiveCompare") == true)
            try db.execute(sql: "INSERT INTO city(name) VALUES ('lyon'), ('Berlin'), ('athens')")
            #expect(try String.fetchAll(db, sql: "SELECT name FROM city ORDER BY name") == ["athens", "Berlin", "lyon"])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM city ORDER BY name COLLATE swiftCompare") == ["Berlin", "athens", "lyon"])
            try db.execute(sql: "CREATE INDEX city_name ON city(name)")
            let recorder = SQLRecorder()
            recorder.record(db)
            try db.reindex(collation: .caseInsensitiveCompare)
            try db.reindex(collation: .nocase)
            try db.reindex(collation: .binary)
            // Built-in names unquoted, as GRDB (SQL-7).
            #expect(recorder.sql == ["REINDEX \"swiftCaseInsensitiveCompare\"", "REINDEX NOCASE", "REINDEX BINARY"])
            expectDatabaseError(.SQLITE_ERROR) { try db.reindex(collation: DatabaseCollation("unknown") { _, _ in .orderedSame }) }
        }
    }
}

extension DatabaseFunctionTests {
    @Test func functionIdentity() throws {
        let one = DatabaseFunction("twice", argumentCount: 1) { values in (Int.fromDatabaseValue(values[0]) ?? 0) * 2 }
        let sameName = DatabaseFunction("TWICE", argumentCount: 1) { _ in nil }
        let other = DatabaseFunction("twice", argumentCount: 2) { _ in nil }
        let variadic = DatabaseFunction("twice") { _ in nil }
        #expect(one.id == sameName.id)
        #expect(one.id != other.id)
        #expect(one.id != variadic.id)
        #expect(Set([one.id, sameName.id, other.id, variadic.id]).count == 3)
        let count: Int = 1 // an Int argument count, as GRDB declares it
        #expect(DatabaseFunction("twice", argumentCount: count) { _ in nil }.id == one.id)

        let test = try TestDatabase()
        try test.dbQueue.write { db in
            db.add(function: one)
            // Calling the function builds SQL.
            let request = Table("numbers").select(one(Column("n")), as: Int.self)
            try db.execute(sql: "CREATE TEMP TABLE numbers(n); INSERT INTO numbers VALUES (4)")
            #expect(try request.fetchOne(db) == 8)
            #expect(try request.makePreparedRequest(db).statement.sql == "SELECT twice(\"n\") FROM \"numbers\"")
            // A function with the same identity replaces it.
            db.add(function: sameName)
            #expect(try Int.fetchOne(db, sql: "SELECT twice(4)") == nil)
        }
    }

    @Test func collationIdentity() {
        let a = DatabaseCollation("by_length") { $0.count < $1.count ? .orderedAscending : ($0.count == $1.count ? .orderedSame : .orderedDescending) }
        let b = DatabaseCollation("BY_LENGTH") { $0.compare($1) }
        let c = DatabaseCollation("by_size") { $0.compare($1) }
        #expect(a.id == b.id)
        #expect(a.id != c.id)
        #expect(Set([a.id, b.id, c.id]).count == 2)
        #expect(DatabaseCollation.unicodeCompare.id == DatabaseCollation("SWIFTCOMPARE") { $0.compare($1) }.id)
    }
}
