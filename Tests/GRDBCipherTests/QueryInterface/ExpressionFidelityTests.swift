import Foundation
import Testing
@testable import GRDBCipher

// The SQL of expressions as GRDB 7.10 writes it (findings SQL-1 to SQL-6, PRG-2; checked with
// tools/grdb-probe), and the rows it selects.

private let schema = """
    CREATE TABLE note(id INTEGER PRIMARY KEY, archivedAt TEXT, qty INTEGER, name TEXT);
    INSERT INTO note VALUES (1, NULL, 2, 'Ann'), (2, '2024', 0, 'BOB'), (3, NULL, 5, 'carl');
    """

@Suite("Expressions as GRDB writes them")
struct ExpressionFidelityTests {
    @Test func negatedNilComparisonIsAnSQLExpression() throws {
        // SQL-1: `filter` takes SQL-specific expressions only, so `!(column == nil)` can not be
        // the Swift Bool `true` (which made the request `WHERE 1`).
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let notes = Table("note")
            #expect(try Row.fetchAll(db, notes.filter(!(Column("archivedAt") == nil))).count == 1)
            #expect(try Row.fetchAll(db, notes.filter(!(nil == Column("archivedAt")))).count == 1)
            #expect(try Row.fetchAll(db, notes.filter(Column("archivedAt") == nil && Column("qty") > 1)).count == 2)
            let deleted = try notes.filter(!(Column("archivedAt") == nil)).deleteAll(db)
            #expect(deleted == 1)
            #expect(recorder.dataSQL == [
                #"SELECT * FROM "note" WHERE "archivedAt" IS NOT NULL"#,
                #"SELECT * FROM "note" WHERE "archivedAt" IS NOT NULL"#,
                #"SELECT * FROM "note" WHERE ("archivedAt" IS NULL) AND ("qty" > ?)"#,
                #"DELETE FROM "note" WHERE "archivedAt" IS NOT NULL"#,
            ])
            #expect(try Int.fetchAll(db, sql: "SELECT id FROM note ORDER BY id") == [1, 3])
        }
    }

    @Test func collationsGoOnTheOperands() throws {
        // SQL-2: a collation on a comparison is written where SQLite applies it.
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let names = Table("note").select(Column("name")).order(Column("id"))
            let wanted = ["ann", "bob"]
            #expect(try String.fetchAll(db, names.filter(wanted.contains(Column("name")).collating(.nocase))) == ["Ann", "BOB"])
            #expect(try String.fetchAll(db, names.filter(!wanted.contains(Column("name")).collating(.nocase))) == ["carl"])
            #expect(try String.fetchAll(db, names.filter((Column("name") == "ann").collating(.nocase))) == ["Ann"])
            #expect(try String.fetchAll(db, names.filter(("A"..."b").contains(Column("name")).collating(.nocase))) == ["Ann"])
            #expect(try String.fetchAll(db, names.filter(("A"..<"b").contains(Column("name")).collating(.nocase))) == ["Ann"])
            #expect(try String.fetchAll(db, names.filter(("A"..."b").contains(Column("name").collating(.nocase)))) == ["Ann"])
            #expect(try String.fetchAll(db, names.filter([String]().contains(Column("name")).collating(.nocase))) == [])
            let deleted = try Table("note").filter(!wanted.contains(Column("name")).collating(.nocase)).deleteAll(db)
            #expect(deleted == 1)
            #expect(recorder.dataSQL == [
                #"SELECT "name" FROM "note" WHERE ("name" COLLATE NOCASE) IN (?, ?) ORDER BY "id""#,
                #"SELECT "name" FROM "note" WHERE ("name" COLLATE NOCASE) NOT IN (?, ?) ORDER BY "id""#,
                #"SELECT "name" FROM "note" WHERE "name" = ? COLLATE NOCASE ORDER BY "id""#,
                #"SELECT "name" FROM "note" WHERE "name" BETWEEN ? AND ? COLLATE NOCASE ORDER BY "id""#,
                #"SELECT "name" FROM "note" WHERE ("name" >= ? COLLATE NOCASE) AND ("name" < ? COLLATE NOCASE) ORDER BY "id""#,
                #"SELECT "name" FROM "note" WHERE "name" BETWEEN ? AND ? COLLATE NOCASE ORDER BY "id""#,
                #"SELECT "name" FROM "note" WHERE ? COLLATE NOCASE ORDER BY "id""#,
                #"DELETE FROM "note" WHERE ("name" COLLATE NOCASE) NOT IN (?, ?)"#,
            ])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM note ORDER BY id") == ["Ann", "BOB"])
        }
    }

    @Test func doubleNegationIsKept() throws {
        // SQL-3: `NOT (NOT x)` turns a value into 0 or 1.
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let values = try Int.fetchAll(db, Table("note").select(!(!Column("qty"))).order(Column("id")))
            #expect(values == [1, 0, 1])
            #expect(recorder.dataSQL == [#"SELECT NOT (NOT "qty") FROM "note" ORDER BY "id""#])
        }
    }

    @Test func coalesceOfFewValues() throws {
        // SQL-4: COALESCE needs two arguments; none is NULL, one is the value itself.
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let notes = Table("note").order(Column("id"))
            let row = try #require(try Row.fetchOne(db, notes.select(coalesce([]))))
            #expect(row[0] as DatabaseValue == .null)
            #expect(try Int.fetchOne(db, notes.select(coalesce([Column("qty")]))) == 2)
            #expect(try String.fetchOne(db, notes.select(coalesce([Column("archivedAt"), Column("name")]))) == "Ann")
            #expect(recorder.dataSQL == [
                #"SELECT NULL FROM "note" ORDER BY "id" LIMIT 1"#,
                #"SELECT "qty" FROM "note" ORDER BY "id" LIMIT 1"#,
                #"SELECT COALESCE("archivedAt", "name") FROM "note" ORDER BY "id" LIMIT 1"#,
            ])
        }
    }

    @Test func constantsAndNullTests() throws {
        // SQL-6 and PRG-2: booleans are bound as arguments; NULL tests name the column first.
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let notes = Table("note")
            #expect(try Row.fetchAll(db, notes.filter(nil === Column("archivedAt"))).count == 2)
            #expect(try Row.fetchAll(db, notes.filter(nil !== Column("archivedAt"))).count == 1)
            #expect(try Row.fetchAll(db, notes.filter(![Int]().contains(Column("id")))).count == 3)
            #expect(try Row.fetchAll(db, notes.filter([Int]().contains(Column("id")))).count == 0)
            #expect(try Row.fetchAll(db, notes.filter(Column("qty") == false)).count == 1)
            #expect(try Row.fetchAll(db, notes.filter(true != Column("qty"))).count == 3)
            #expect(try notes.none().fetchCount(db) == 0)
            #expect(recorder.dataSQL == [
                #"SELECT * FROM "note" WHERE "archivedAt" IS NULL"#,
                #"SELECT * FROM "note" WHERE "archivedAt" IS NOT NULL"#,
                #"SELECT * FROM "note" WHERE ?"#,
                #"SELECT * FROM "note" WHERE ?"#,
                #"SELECT * FROM "note" WHERE "qty" = ?"#,
                #"SELECT * FROM "note" WHERE "qty" <> ?"#,
                #"SELECT COUNT(*) FROM "note" WHERE ?"#,
            ])
        }
    }
}
