import Foundation
import Testing
@testable import GRDBCipher

@Suite("belongsTo foreign keys")
struct BelongsToTests {
    /// Runs `body` on a fresh database, and returns the schema statements it ran.
    private func recordSchema(_ body: (Database) throws -> Void) throws -> [String] {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.writeWithoutTransaction { db in
            recorder.record(db)
            try body(db)
        }
        return recorder.sql.filter { $0.hasPrefix("CREATE") || $0.hasPrefix("ALTER") }
    }

    @Test func pluralsOfTableNames() {
        #expect(Inflections.default.pluralize("team") == "teams")
        #expect(Inflections.default.pluralize("category") == "categories")
        #expect(Inflections.default.pluralize("box") == "boxes")
        #expect(Inflections.default.pluralize("church") == "churches")
        #expect(Inflections.default.pluralize("address") == "addresses")
        #expect(Inflections.default.pluralize("wish") == "wishes")
        #expect(Inflections.default.pluralize("holiday") == "holidays")
        #expect(Inflections.default.pluralize("shelf") == "shelves")
        #expect(Inflections.default.pluralize("wife") == "wives")
        #expect(Inflections.default.pluralize("thesis") == "theses")
        #expect(Inflections.default.pluralize("person") == "people")
        #expect(Inflections.default.pluralize("Child") == "Children")
        #expect(Inflections.default.pluralize("sheep") == "sheep")
        #expect(Inflections.default.pluralize("quiz") == "quizzes")
        #expect(Inflections.default.pluralize("bookAuthor") == "bookAuthors")
        #expect(Inflections.default.pluralize("Category") == "Categories")
        #expect(Inflections.default.pluralize("games") == "games")
        #expect(Inflections.default.pluralize("") == "")
        // The inflector of associations, whose irregular forms apply as suffixes (DDL-2).
        #expect(Inflections.default.pluralize("godchild") == "godchildren")
    }

    @Test func findsTheReferencedTableByNameThenPlural() throws {
        let sql = try recordSchema { db in
            try db.create(table: "teams") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "categories") { t in t.primaryKey("slug", .text) }
            try db.create(table: "Boxes") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "COUNTRY") { t in t.primaryKey("code", .text) }
            // Both spellings exist: the name as given wins.
            try db.create(table: "league") { t in t.primaryKey("name", .text) }
            try db.create(table: "leagues") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "item") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("team")
                t.belongsTo("category")
                t.belongsTo("box", indexed: false)
                t.belongsTo("COUNTRY")
                t.belongsTo("league", indexed: false)
            }
            try db.execute(sql: "INSERT INTO teams DEFAULT VALUES")
            try db.execute(sql: "INSERT INTO item (teamId) VALUES (1)")
            _ = expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) {
                try db.execute(sql: "INSERT INTO item (teamId) VALUES (2)")
            }
            let destinations = try db.foreignKeys(on: "item").map(\.destinationTable).sorted()
            #expect(destinations == ["Boxes", "COUNTRY", "categories", "league", "teams"])
        }
        #expect(sql.suffix(4) == [
            "CREATE TABLE \"item\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT, \"teamId\" INTEGER REFERENCES \"teams\"(\"id\"), \"categorySlug\" TEXT REFERENCES \"categories\"(\"slug\"), \"boxId\" INTEGER REFERENCES \"Boxes\"(\"id\"), \"COUNTRYCode\" TEXT REFERENCES \"COUNTRY\"(\"code\"), \"leagueName\" TEXT REFERENCES \"league\"(\"name\"))",
            "CREATE INDEX \"item_on_teamId\" ON \"item\"(\"teamId\")",
            "CREATE INDEX \"item_on_categorySlug\" ON \"item\"(\"categorySlug\")",
            "CREATE INDEX \"item_on_COUNTRYCode\" ON \"item\"(\"COUNTRYCode\")",
        ])
    }

    @Test func selfReferencesBySingularOrPlural() throws {
        let sql = try recordSchema { db in
            try db.create(table: "employees") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("employee", onDelete: .setNull)
                t.belongsTo("mentor", inTable: "employees", indexed: false)
            }
            try db.create(table: "node") { t in
                t.primaryKey("path", .text)
                t.belongsTo("node", indexed: false)
            }
            // Neither the table nor its plural exists, and it is not a self reference.
            let error = expectDatabaseError(.SQLITE_ERROR) {
                try db.create(table: "orphan") { t in t.belongsTo("ghost") }
            }
            #expect(error?.message == "no such table: ghost")
            #expect(try !db.tableExists("orphan"))
            // inTable names the table exactly: no plural.
            _ = expectDatabaseError(.SQLITE_ERROR) {
                try db.create(table: "report") { t in t.belongsTo("boss", inTable: "employee") }
            }
        }
        #expect(sql == [
            "CREATE TABLE \"employees\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT, \"employeeId\" INTEGER REFERENCES \"employees\"(\"id\") ON DELETE SET NULL, \"mentorId\" INTEGER REFERENCES \"employees\"(\"id\"))",
            "CREATE INDEX \"employees_on_employeeId\" ON \"employees\"(\"employeeId\")",
            "CREATE TABLE \"node\" (\"path\" TEXT PRIMARY KEY NOT NULL, \"nodePath\" TEXT REFERENCES \"node\"(\"path\"))",
        ])
    }

    @Test func compositePrimaryKeys() throws {
        let sql = try recordSchema { db in
            try db.create(table: "edition") { t in
                t.primaryKey {
                    t.column("title", .text)
                    t.column("year", .integer)
                    t.column("printing")
                }
            }
            try db.create(table: "copy") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("edition", onDelete: .cascade, onUpdate: .cascade, deferred: true).notNull()
                t.column("shelf", .text)
                t.check(sql: "shelf <> ''")
            }
            try db.create(table: "review") { t in
                t.belongsTo("edition").unique()
                t.column("stars", .integer)
            }
            try db.create(table: "quote") { t in
                t.belongsTo("edition", indexed: false)
            }
            // A composite self reference.
            try db.create(table: "cell") { t in
                t.primaryKey {
                    t.column("row", .integer)
                    t.column("col", .integer)
                }
                t.belongsTo("source", inTable: "cell")
            }
            try db.execute(sql: "INSERT INTO edition VALUES ('Dune', 1965, 1)")
            try db.execute(sql: "INSERT INTO copy (editionTitle, editionYear, editionPrinting) VALUES ('Dune', 1965, 1)")
            _ = expectDatabaseError(.SQLITE_CONSTRAINT_NOTNULL) {
                try db.execute(sql: "INSERT INTO copy (editionTitle, editionYear) VALUES ('Dune', 1965)")
            }
            let key = try #require(db.foreignKeys(on: "copy").first)
            #expect(key.mapping.map { "\($0.origin)->\($0.destination)" } == ["editionTitle->title", "editionYear->year", "editionPrinting->printing"])
            #expect(try db.columns(in: "copy").map(\.type) == ["INTEGER", "TEXT", "INTEGER", "", "TEXT"])
            #expect(try db.table("review", hasUniqueKey: ["editionTitle", "editionYear", "editionPrinting"]))
        }
        #expect(sql == [
            "CREATE TABLE \"edition\" (\"title\" TEXT NOT NULL, \"year\" INTEGER NOT NULL, \"printing\" NOT NULL, PRIMARY KEY (\"title\", \"year\", \"printing\"))",
            "CREATE TABLE \"copy\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT, \"editionTitle\" TEXT NOT NULL, \"editionYear\" INTEGER NOT NULL, \"editionPrinting\" NOT NULL, \"shelf\" TEXT, CHECK (shelf <> ''), FOREIGN KEY (\"editionTitle\", \"editionYear\", \"editionPrinting\") REFERENCES \"edition\"(\"title\", \"year\", \"printing\") ON DELETE CASCADE ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED)",
            "CREATE INDEX \"index_copy_on_editionTitle_editionYear_editionPrinting\" ON \"copy\"(\"editionTitle\", \"editionYear\", \"editionPrinting\")",
            "CREATE TABLE \"review\" (\"editionTitle\" TEXT, \"editionYear\" INTEGER, \"editionPrinting\", \"stars\" INTEGER, FOREIGN KEY (\"editionTitle\", \"editionYear\", \"editionPrinting\") REFERENCES \"edition\"(\"title\", \"year\", \"printing\"))",
            "CREATE UNIQUE INDEX \"index_review_on_editionTitle_editionYear_editionPrinting\" ON \"review\"(\"editionTitle\", \"editionYear\", \"editionPrinting\")",
            "CREATE TABLE \"quote\" (\"editionTitle\" TEXT, \"editionYear\" INTEGER, \"editionPrinting\", FOREIGN KEY (\"editionTitle\", \"editionYear\", \"editionPrinting\") REFERENCES \"edition\"(\"title\", \"year\", \"printing\"))",
            "CREATE TABLE \"cell\" (\"row\" INTEGER NOT NULL, \"col\" INTEGER NOT NULL, \"sourceRow\" INTEGER, \"sourceCol\" INTEGER, PRIMARY KEY (\"row\", \"col\"), FOREIGN KEY (\"sourceRow\", \"sourceCol\") REFERENCES \"cell\"(\"row\", \"col\"))",
            "CREATE INDEX \"index_cell_on_sourceRow_sourceCol\" ON \"cell\"(\"sourceRow\", \"sourceCol\")",
        ])
    }

    @Test func foreignKeysInsideThePrimaryKey() throws {
        let sql = try recordSchema { db in
            try db.create(table: "simple") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "pair") { t in
                t.primaryKey {
                    t.column("a", .text)
                    t.column("b", .integer)
                }
            }
            try db.create(table: "single") { t in
                t.primaryKey { t.belongsTo("simple") }
            }
            try db.create(table: "link") { t in
                t.column("before", .text)
                t.primaryKey {
                    t.belongsTo("simple")
                    t.belongsTo("pair", onDelete: .cascade)
                }
                t.column("after", .text)
            }
            #expect(try db.primaryKey("single").columns == ["simpleId"])
            #expect(try db.primaryKey("link").columns == ["simpleId", "pairA", "pairB"])
            #expect(try db.indexes(on: "link").map(\.origin) == [.primaryKeyConstraint])
        }
        #expect(sql.suffix(2) == [
            "CREATE TABLE \"single\" (\"simpleId\" INTEGER NOT NULL REFERENCES \"simple\"(\"id\"), PRIMARY KEY (\"simpleId\"))",
            "CREATE TABLE \"link\" (\"before\" TEXT, \"simpleId\" INTEGER NOT NULL REFERENCES \"simple\"(\"id\"), \"pairA\" TEXT NOT NULL, \"pairB\" INTEGER NOT NULL, \"after\" TEXT, PRIMARY KEY (\"simpleId\", \"pairA\", \"pairB\"), FOREIGN KEY (\"pairA\", \"pairB\") REFERENCES \"pair\"(\"a\", \"b\") ON DELETE CASCADE)",
        ])
    }

    @Test func notNullAndUniqueComeBeforeReferences() throws {
        let sql = try recordSchema { db in
            try db.create(table: "team") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "captain") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("team", onDelete: .cascade).notNull().unique()
            }
            // The UNIQUE constraint is the index: none other.
            #expect(try db.indexes(on: "captain").map(\.origin) == [.uniqueConstraint])
        }
        #expect(sql == [
            "CREATE TABLE \"team\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT)",
            "CREATE TABLE \"captain\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT, \"teamId\" INTEGER NOT NULL UNIQUE REFERENCES \"team\"(\"id\") ON DELETE CASCADE)",
        ])
    }

    @Test func referencesToAHiddenRowIDNameIt() throws {
        let sql = try recordSchema { db in
            try db.create(table: "memo") { t in t.column("text", .text) }
            try db.create(table: "tag") { t in
                t.column("memoRef", .integer).references("memo").references("memo", column: "text", onDelete: .cascade)
                t.column("other", .integer)
                t.foreignKey(["other"], references: "memo")
                t.belongsTo("memo", indexed: false)
            }
            try db.create(table: "draft") { t in
                t.column("body", .text)
                t.column("previous", .integer).references("draft")
                t.belongsTo("draft", indexed: false)
            }
            try db.alter(table: "tag") { t in
                t.add(column: "extra", .integer).references("memo")
            }
            let keys = try db.foreignKeys(on: "tag")
            #expect(keys.flatMap(\.destinationColumns).sorted() == ["rowid", "rowid", "rowid", "rowid", "text"])
        }
        #expect(sql == [
            "CREATE TABLE \"memo\" (\"text\" TEXT)",
            "CREATE TABLE \"tag\" (\"memoRef\" INTEGER REFERENCES \"memo\"(\"rowid\") REFERENCES \"memo\"(\"text\") ON DELETE CASCADE, \"other\" INTEGER, \"memoId\" INTEGER REFERENCES \"memo\"(\"rowid\"), FOREIGN KEY (\"other\") REFERENCES \"memo\"(\"rowid\"))",
            "CREATE TABLE \"draft\" (\"body\" TEXT, \"previous\" INTEGER REFERENCES \"draft\"(\"rowid\"), \"draftId\" INTEGER REFERENCES \"draft\"(\"rowid\"))",
            "ALTER TABLE \"tag\" ADD COLUMN \"extra\" INTEGER REFERENCES \"memo\"(\"rowid\")",
        ])
    }

    @Test func hiddenRowIDKeysNameTheColumnId() throws {
        // DDL-1: as GRDB, `<name>Id`, with its index, for every shape of belongsTo.
        let sql = try recordSchema { db in
            try db.create(table: "shelf") { t in t.column("label", .text) }
            try db.create(table: "book") { t in
                t.belongsTo("shelf").notNull()
                t.belongsTo("home", inTable: "shelf", onDelete: .cascade)
                t.belongsTo("book")
            }
            try db.create(table: "godchildren") { t in t.column("name", .text) }
            try db.create(table: "gift") { t in t.belongsTo("godchild") }
        }
        #expect(sql == [
            "CREATE TABLE \"shelf\" (\"label\" TEXT)",
            "CREATE TABLE \"book\" (\"shelfId\" INTEGER NOT NULL REFERENCES \"shelf\"(\"rowid\"), \"homeId\" INTEGER REFERENCES \"shelf\"(\"rowid\") ON DELETE CASCADE, \"bookId\" INTEGER REFERENCES \"book\"(\"rowid\"))",
            "CREATE INDEX \"book_on_shelfId\" ON \"book\"(\"shelfId\")",
            "CREATE INDEX \"book_on_homeId\" ON \"book\"(\"homeId\")",
            "CREATE INDEX \"book_on_bookId\" ON \"book\"(\"bookId\")",
            "CREATE TABLE \"godchildren\" (\"name\" TEXT)",
            "CREATE TABLE \"gift\" (\"godchildId\" INTEGER REFERENCES \"godchildren\"(\"rowid\"))",
            "CREATE INDEX \"gift_on_godchildId\" ON \"gift\"(\"godchildId\")",
        ])
    }
}
