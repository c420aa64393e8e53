import Foundation
import Testing
@testable import GRDBCipher

/// Unqualified names are looked up as SQLite resolves them (temp, main, then attached
/// databases in order of attachment), and every introspection method takes a schema name.
@Suite("Schema resolution")
struct SchemaResolutionTests {
    @Test func attachedTablesAreFoundAndMainShadowsThem() throws {
        let test = try TestDatabase()
        let archivePath = test.directory.path("archive.sqlite")
        let extraPath = test.directory.path("extra.sqlite")
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE book (mainTitle TEXT)")
            // Not attached yet: no such table (and the cache must not remember that).
            #expect(try !db.tableExists("shelf"))
            _ = expectDatabaseError(.SQLITE_ERROR) { _ = try db.columns(in: "shelf") }

            try db.execute(sql: "ATTACH DATABASE ? AS archive", arguments: [archivePath])
            try db.execute(sql: """
                CREATE TABLE archive.book (archivedTitle TEXT PRIMARY KEY);
                CREATE TABLE archive.shelf (code TEXT PRIMARY KEY, floor INTEGER, label TEXT);
                CREATE INDEX archive.shelf_floor ON shelf(floor);
                CREATE TABLE archive.slot (shelfCode TEXT REFERENCES shelf, position INTEGER);
                CREATE VIEW archive.lowShelf AS SELECT code FROM shelf WHERE floor = 0;
                CREATE TRIGGER archive.shelfAudit AFTER INSERT ON shelf BEGIN SELECT 1; END;
                CREATE TABLE archive.twin (fromArchive INTEGER);
                """)
            try db.execute(sql: "ATTACH DATABASE ? AS extra", arguments: [extraPath])
            try db.execute(sql: "CREATE TABLE extra.twin (fromExtra INTEGER); CREATE TABLE extra.loose (a)")

            // main shadows the attached table of the same name.
            #expect(try db.columns(in: "book").map(\.name) == ["mainTitle"])
            #expect(try db.primaryKey("book").columns == ["rowid"])
            #expect(try db.columns(in: "book", in: "archive").map(\.name) == ["archivedTitle"])
            #expect(try db.primaryKey("book", in: "archive").columns == ["archivedTitle"])
            // The first attached database wins over the later ones.
            #expect(try db.columns(in: "twin").map(\.name) == ["fromArchive"])
            #expect(try db.columns(in: "twin", in: "extra").map(\.name) == ["fromExtra"])

            // Tables only in an attached database are found without a schema name.
            #expect(try db.tableExists("shelf"))
            #expect(try db.tableExists("SHELF", in: "Archive"))
            #expect(try !db.tableExists("shelf", in: "main"))
            #expect(try db.tableExists("loose"))
            #expect(try db.columns(in: "shelf").map(\.name) == ["code", "floor", "label"])
            #expect(try db.primaryKey("shelf").columns == ["code"])
            #expect(try db.indexes(on: "shelf").map(\.name).sorted() == ["shelf_floor", "sqlite_autoindex_shelf_1"])
            #expect(try db.indexes(on: "shelf", in: "archive").count == 2)
            #expect(try db.table("shelf", hasUniqueKey: ["code"]))
            #expect(try db.viewExists("lowShelf"))
            #expect(try !db.viewExists("lowShelf", in: "main"))
            #expect(try db.triggerExists("shelfAudit"))
            #expect(try db.triggerExists("shelfAudit", in: "archive"))
            #expect(try !db.triggerExists("shelfAudit", in: "main"))
            // The referenced primary key is read in the schema of the foreign key.
            let keys = try db.foreignKeys(on: "slot")
            #expect(keys.map { $0.mapping.map { "\($0.origin)->\($0.destination)" } } == [["shelfCode->code"]])
            #expect(try db.foreignKeys(on: "slot", in: "archive").map(\.destinationTable) == ["shelf"])
            _ = expectDatabaseError(.SQLITE_ERROR) { _ = try db.foreignKeys(on: "slot", in: "main") }

            // Detached: gone again.
            try db.execute(sql: "DETACH DATABASE archive")
            #expect(try !db.tableExists("shelf"))
            #expect(try db.columns(in: "twin").map(\.name) == ["fromExtra"])
            _ = expectDatabaseError(.SQLITE_ERROR) { _ = try db.primaryKey("shelf") }
        }
    }

    @Test func temporaryTablesComeFirst() throws {
        let test = try TestDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE draft (id INTEGER PRIMARY KEY, permanentText TEXT)")
            #expect(try db.columns(in: "draft").map(\.name) == ["id", "permanentText"])
            // `temp` is a schema name even before it holds anything.
            #expect(try !db.tableExists("draft", in: "temp"))

            try db.create(table: "draft", options: .temporary) { t in
                t.primaryKey("key", .text)
                t.column("scratch", .text)
            }
            #expect(try db.tableExists("draft", in: "temp"))
            #expect(try db.columns(in: "draft").map(\.name) == ["key", "scratch"])
            #expect(try db.primaryKey("draft").columns == ["key"])
            #expect(try db.columns(in: "draft", in: "main").map(\.name) == ["id", "permanentText"])
            try db.execute(sql: "CREATE TEMP TABLE scratchpad (line TEXT)")
            #expect(try db.tableExists("scratchpad"))
            #expect(try !db.tableExists("scratchpad", in: "main"))
            // Records write into what SQLite resolves: the temporary table.
            try db.execute(sql: "INSERT INTO draft (key, scratch) VALUES ('a', 'temporary')")
            #expect(try Row.fetchOne(db, sql: "SELECT * FROM draft") == ["key": "a", "scratch": "temporary"])

            try db.execute(sql: "DROP TABLE temp.draft")
            #expect(try db.columns(in: "draft").map(\.name) == ["id", "permanentText"])
            #expect(try db.primaryKey("draft").columns == ["id"])
        }
    }

    @Test func unknownSchemaNameThrowsNoSuchSchema() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY)")
            func expectNoSuchSchema(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
                let error = expectDatabaseError(.SQLITE_ERROR, sourceLocation: sourceLocation, body)
                #expect(error?.message == "no such schema: invalid", sourceLocation: sourceLocation)
                #expect(error?.sql == nil, sourceLocation: sourceLocation)
                #expect(error?.description == "SQLite error 1: no such schema: invalid", sourceLocation: sourceLocation)
            }
            expectNoSuchSchema { _ = try db.tableExists("player", in: "invalid") }
            expectNoSuchSchema { _ = try db.viewExists("player", in: "invalid") }
            expectNoSuchSchema { _ = try db.triggerExists("player", in: "invalid") }
            expectNoSuchSchema { _ = try db.columns(in: "player", in: "invalid") }
            expectNoSuchSchema { _ = try db.primaryKey("player", in: "invalid") }
            expectNoSuchSchema { _ = try db.indexes(on: "player", in: "invalid") }
            expectNoSuchSchema { _ = try db.foreignKeys(on: "player", in: "invalid") }
            expectNoSuchSchema { _ = try db.foreignKeyViolations(in: "player", in: "invalid") }
            expectNoSuchSchema { try db.checkForeignKeys(in: "player", in: "invalid") }
            // Known schemas, in any case.
            #expect(try db.tableExists("player", in: "MAIN"))
            #expect(try db.columns(in: "player", in: "main").map(\.name) == ["id"])
            try db.checkForeignKeys(in: "player", in: "main")
        }
    }
}
