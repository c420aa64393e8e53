import Foundation
import Testing
@testable import GRDBCipher

// Deletes and updates of requests that join other tables (findings MOD-1, MOD-2): they act on
// the rows the request selects, through a subquery on the key, as GRDB 7.10 does (its SQL
// checked with tools/grdb-probe).

private struct Shelf: TableRecord {
    static let databaseTableName = "shelf"
}

private struct Note: TableRecord, FetchableRecord {
    static let databaseTableName = "note"
    static let shelf = belongsTo(Shelf.self)
    var id: Int64
    var title: String
    var qty: Int
    init(row: Row) throws {
        id = row["id"]
        title = row["title"]
        qty = row["qty"]
    }
}

private let schema = """
    CREATE TABLE shelf(id INTEGER PRIMARY KEY, room TEXT);
    CREATE TABLE note(id INTEGER PRIMARY KEY, shelfId INTEGER REFERENCES shelf(id), title TEXT, qty INTEGER);
    CREATE TABLE pair(a INTEGER, b INTEGER, v TEXT, PRIMARY KEY(a, b));
    CREATE TABLE keyed(a INTEGER, b INTEGER, v TEXT, PRIMARY KEY(a, b)) WITHOUT ROWID;
    INSERT INTO shelf VALUES (1, 'FR'), (2, 'US');
    INSERT INTO note VALUES (1, 1, 'x', 2), (2, 1, 'y', 0), (3, 2, 'z', 5);
    INSERT INTO pair VALUES (1, 1, 'p'), (1, 2, 'q'), (2, 1, 'r');
    INSERT INTO keyed VALUES (1, 1, 'p'), (1, 2, 'q'), (2, 1, 'r');
    """

private func noteIDs(_ db: Database) throws -> [Int64] {
    try Int64.fetchAll(db, sql: "SELECT id FROM note ORDER BY id")
}

@Suite("Deletes and updates of joined requests")
struct JoinedModificationTests {
    @Test func deleteAllKeepsTheJoinConditions() throws {
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let deleted = try Note.joining(required: Note.shelf.filter(Column("room") == "FR")).deleteAll(db)
            #expect(deleted == 2)
            #expect(recorder.dataSQL == [
                #"DELETE FROM "note" WHERE "id" IN (SELECT "note"."id" FROM "note" JOIN "shelf" ON ("shelf"."id" = "note"."shelfId") AND ("shelf"."room" = ?))"#,
            ])
            #expect(try noteIDs(db) == [3])
        }
    }

    @Test func deleteAllOfAnAliasedJoinedRequest() throws {
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let deleted = try Note.aliased(TableAlias(name: "n"))
                .joining(required: Note.shelf.filter(Column("room") == "US"))
                .deleteAll(db)
            #expect(deleted == 1)
            #expect(recorder.dataSQL == [
                #"DELETE FROM "note" WHERE "id" IN (SELECT "n"."id" FROM "note" "n" JOIN "shelf" ON ("shelf"."id" = "n"."shelfId") AND ("shelf"."room" = ?))"#,
            ])
            #expect(try noteIDs(db) == [1, 2])
        }
    }

    @Test func deleteAllOfAnIncludingRequestSelectsKeysOnly() throws {
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let deleted = try Note.including(required: Note.shelf).filter(Column("qty") > 1).deleteAll(db)
            #expect(deleted == 2)
            #expect(recorder.dataSQL == [
                #"DELETE FROM "note" WHERE "id" IN (SELECT "note"."id" FROM "note" JOIN "shelf" ON "shelf"."id" = "note"."shelfId" WHERE "note"."qty" > ?)"#,
            ])
            #expect(try noteIDs(db) == [2])
        }
    }

    @Test func joinedRequestWithoutMatchDeletesNothing() throws {
        try withRecordedDatabase(schema) { (db: Database, _: SQLRecorder) throws in
            let deleted = try Note.joining(required: Note.shelf.filter(Column("room") == "DE")).deleteAll(db)
            #expect(deleted == 0)
            #expect(try noteIDs(db) == [1, 2, 3])
        }
    }

    @Test func updateAllKeepsTheJoinConditions() throws {
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let updated = try Note.joining(required: Note.shelf.filter(Column("room") == "FR"))
                .updateAll(db, Column("title").set(to: "fr"))
            #expect(updated == 2)
            #expect(recorder.dataSQL == [
                #"UPDATE "note" SET "title" = ? WHERE "id" IN (SELECT "note"."id" FROM "note" JOIN "shelf" ON ("shelf"."id" = "note"."shelfId") AND ("shelf"."room" = ?))"#,
            ])
            #expect(try String.fetchAll(db, sql: "SELECT title FROM note ORDER BY id") == ["fr", "fr", "z"])
        }
    }

    @Test func returningVariantsAreUnqualified() throws {
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let updated = try Note.joining(required: Note.shelf.filter(Column("room") == "US"))
                .updateAndFetchAll(db, [Column("qty").set(to: Column("qty") + 4)])
            #expect(updated.map(\.qty) == [9])
            let deleted = try Note.joining(required: Note.shelf.filter(Column("room") == "US")).deleteAndFetchAll(db)
            #expect(deleted.map(\.id) == [3])
            #expect(recorder.dataSQL == [
                #"UPDATE "note" SET "qty" = "qty" + ? WHERE "id" IN (SELECT "note"."id" FROM "note" JOIN "shelf" ON ("shelf"."id" = "note"."shelfId") AND ("shelf"."room" = ?)) RETURNING *"#,
                #"DELETE FROM "note" WHERE "id" IN (SELECT "note"."id" FROM "note" JOIN "shelf" ON ("shelf"."id" = "note"."shelfId") AND ("shelf"."room" = ?)) RETURNING *"#,
            ])
            #expect(try noteIDs(db) == [1, 2])
        }
    }

    @Test func compositeKeysUseTheRowIDOrTheKeyColumns() throws {
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            // A composite primary key with a rowid: the subquery is keyed on the rowid.
            let pairs = try Table("pair").filter(Column("a") == 1).distinct().deleteAll(db)
            #expect(pairs == 2)
            // WITHOUT ROWID: on the key columns.
            let keyed = try Table("keyed").filter(Column("a") == 1).distinct().deleteAll(db)
            #expect(keyed == 2)
            #expect(recorder.dataSQL == [
                #"DELETE FROM "pair" WHERE "rowid" IN (SELECT DISTINCT "rowid" FROM "pair" WHERE "a" = ?)"#,
                #"DELETE FROM "keyed" WHERE ("a", "b") IN (SELECT DISTINCT "a", "b" FROM "keyed" WHERE "a" = ?)"#,
            ])
            #expect(try String.fetchAll(db, sql: "SELECT v FROM pair") == ["r"])
            #expect(try String.fetchAll(db, sql: "SELECT v FROM keyed") == ["r"])
        }
    }

    @Test func groupByPrimaryKeyOfACompositeKeyGroupsByRowID() throws {
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let values = try String.fetchAll(db, Table("pair").select(Column("v")).groupByPrimaryKey().order(Column("v")))
            #expect(values == ["p", "q", "r"])
            let keyedValues = try String.fetchAll(db, Table("keyed").select(Column("v")).groupByPrimaryKey().order(Column("v")))
            #expect(keyedValues == ["p", "q", "r"])
            #expect(recorder.dataSQL == [
                #"SELECT "v" FROM "pair" GROUP BY "rowid" ORDER BY "v""#,
                #"SELECT "v" FROM "keyed" GROUP BY "a", "b" ORDER BY "v""#,
            ])
        }
    }
}
