import Foundation
import Testing
@testable import GRDBCipher

@Suite("Schema definition")
struct SchemaDefinitionTests {
    /// Runs `body` on a fresh database, and returns the schema statements it ran.
    private func recordSchema(_ body: (Database) throws -> Void) throws -> [String] {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.writeWithoutTransaction { db in
            recorder.record(db)
            try body(db)
        }
        return recorder.sql.filter { $0.hasPrefix("CREATE") || $0.hasPrefix("ALTER") || $0.hasPrefix("DROP") }
    }

    @Test func createTableWithColumnsAndConstraints() throws {
        let sql = try recordSchema { db in
            try db.create(table: "place") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text)
                t.column("favorite", .boolean).notNull().defaults(to: false)
                t.column("name", .text).notNull().defaults(to: "O'Reilly")
                t.column("createdAt", .datetime).defaults(sql: "CURRENT_TIMESTAMP")
                t.column("email", .text).unique(onConflict: .replace).collate(.nocase)
                t.column("score", .integer).check { $0 >= 0 }.indexed()
                t.column("ratio", .double).defaults(to: 0.5)
                t.column("a")
            }
            let columns = try db.columns(in: "place")
            #expect(columns.map(\.name) == ["id", "title", "favorite", "name", "createdAt", "email", "score", "ratio", "a"])
            #expect(columns.map(\.type) == ["INTEGER", "TEXT", "BOOLEAN", "TEXT", "DATETIME", "TEXT", "INTEGER", "DOUBLE", ""])
            #expect(columns[2].isNotNull && columns[2].defaultValueSQL == "0")
            #expect(columns[3].defaultValueSQL == "'O''Reilly'")
            #expect(try db.primaryKey("place").columns == ["id"])
            #expect(try db.indexes(on: "place").map(\.name).sorted() == ["place_on_score", "sqlite_autoindex_place_1"])
            try db.execute(sql: "INSERT INTO place (title, email) VALUES ('x', 'A@B.C')")
            #expect(try Row.fetchOne(db, sql: "SELECT favorite, name, score FROM place") == ["favorite": 0, "name": "O'Reilly", "score": nil])
            // The CHECK constraint holds: a negative score is refused, the table unchanged.
            let error = expectDatabaseError(.SQLITE_CONSTRAINT_CHECK) {
                try db.execute(sql: "INSERT INTO place (score) VALUES (-1)")
            }
            #expect(error != nil)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM place") == 1)
        }
        #expect(sql == [
            "CREATE TABLE \"place\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT, \"title\" TEXT, \"favorite\" BOOLEAN NOT NULL DEFAULT 0, \"name\" TEXT NOT NULL DEFAULT 'O''Reilly', \"createdAt\" DATETIME DEFAULT CURRENT_TIMESTAMP, \"email\" TEXT UNIQUE ON CONFLICT REPLACE COLLATE NOCASE, \"score\" INTEGER CHECK (\"score\" >= 0), \"ratio\" DOUBLE DEFAULT 0.5, \"a\")",
            "CREATE INDEX \"place_on_score\" ON \"place\"(\"score\")",
        ])
    }

    @Test func keysAndForeignKeys() throws {
        let sql = try recordSchema { db in
            try db.create(table: "country") { t in
                t.primaryKey("code", .text)
                t.column("name", .text).notNull()
            }
            try db.create(table: "team") { t in
                t.autoIncrementedPrimaryKey("id")
            }
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("team", onDelete: .cascade)
                t.belongsTo("country").notNull()
                t.column("coachId", .integer).references("player", onDelete: .setNull)
            }
            try db.create(table: "membership", options: [.withoutRowID]) { t in
                t.primaryKey {
                    t.column("teamId", .integer)
                    t.column("position", .integer)
                }
                t.column("a", .integer)
                t.column("b", .text)
                t.uniqueKey(["a", "b"], onConflict: .ignore)
                t.foreignKey(["teamId"], references: "team", onDelete: .cascade, deferred: true)
                t.check(Column("position") > 0)
                t.check(sql: "a IS NOT NULL OR b IS NOT NULL")
                t.constraint(sql: "CHECK (position < 100)")
            }
            try db.create(table: "node") { t in
                t.primaryKey("code", .text)
                t.belongsTo("parent", inTable: "node", onDelete: .cascade)
            }
            #expect(try db.foreignKeys(on: "node").first?.mapping.map { "\($0.origin)->\($0.destination)" } == ["parentCode->code"])
            let keys = try db.foreignKeys(on: "player")
            #expect(keys.map(\.destinationTable).sorted() == ["country", "player", "team"])
            #expect(keys.first { $0.destinationTable == "country" }?.mapping.map(\.origin) == ["countryCode"])
            #expect(keys.first { $0.destinationTable == "country" }?.destinationColumns == ["code"])
            #expect(try db.primaryKey("membership").columns == ["teamId", "position"])
            #expect(try db.table("membership", hasUniqueKey: ["a", "b"]))
            #expect(try db.indexes(on: "player").map(\.name).sorted() == ["player_on_countryCode", "player_on_teamId"])
        }
        #expect(sql == [
            "CREATE TABLE \"country\" (\"code\" TEXT PRIMARY KEY NOT NULL, \"name\" TEXT NOT NULL)",
            "CREATE TABLE \"team\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT)",
            "CREATE TABLE \"player\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT, \"teamId\" INTEGER REFERENCES \"team\"(\"id\") ON DELETE CASCADE, \"countryCode\" TEXT NOT NULL REFERENCES \"country\"(\"code\"), \"coachId\" INTEGER REFERENCES \"player\"(\"id\") ON DELETE SET NULL)",
            "CREATE INDEX \"player_on_teamId\" ON \"player\"(\"teamId\")",
            "CREATE INDEX \"player_on_countryCode\" ON \"player\"(\"countryCode\")",
            "CREATE TABLE \"membership\" (\"teamId\" INTEGER NOT NULL, \"position\" INTEGER NOT NULL, \"a\" INTEGER, \"b\" TEXT, PRIMARY KEY (\"teamId\", \"position\"), UNIQUE (\"a\", \"b\") ON CONFLICT IGNORE, FOREIGN KEY (\"teamId\") REFERENCES \"team\"(\"id\") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, CHECK (\"position\" > 0), CHECK (a IS NOT NULL OR b IS NOT NULL), CHECK (position < 100)) WITHOUT ROWID",
            "CREATE TABLE \"node\" (\"code\" TEXT PRIMARY KEY NOT NULL, \"parentCode\" TEXT REFERENCES \"node\"(\"code\") ON DELETE CASCADE)",
            "CREATE INDEX \"node_on_parentCode\" ON \"node\"(\"parentCode\")",
        ])
    }

    @Test func tableOptionsAndGeneratedColumns() throws {
        let sql = try recordSchema { db in
            try db.create(table: "t", options: [.ifNotExists, .strict]) { t in
                t.column("score", .integer)
                t.column("bonus", .integer)
                t.column("total", .integer).generatedAs(Column("score") + Column("bonus"))
                t.column("double", .integer).generatedAs(sql: "score * 2", .stored)
            }
            try db.create(table: "t", options: .ifNotExists) { t in t.column("other") }
            try db.create(table: "tmp", options: .temporary) { t in t.column("a", .text) }
            try db.execute(sql: "INSERT INTO t (score, bonus) VALUES (1, 2)")
            #expect(try Row.fetchOne(db, sql: "SELECT total, double FROM t") == ["total": 3, "double": 2])
            // STRICT refuses a value of the wrong type.
            _ = expectDatabaseError(.SQLITE_CONSTRAINT_DATATYPE) {
                try db.execute(sql: "INSERT INTO t (score) VALUES ('x')")
            }
            #expect(try db.columns(in: "t").map(\.name) == ["score", "bonus", "total", "double"])
        }
        #expect(sql == [
            "CREATE TABLE IF NOT EXISTS \"t\" (\"score\" INTEGER, \"bonus\" INTEGER, \"total\" INTEGER GENERATED ALWAYS AS (\"score\" + \"bonus\") VIRTUAL, \"double\" INTEGER GENERATED ALWAYS AS (score * 2) STORED) STRICT",
            "CREATE TABLE IF NOT EXISTS \"t\" (\"other\")",
            "CREATE TEMPORARY TABLE \"tmp\" (\"a\" TEXT)",
        ])
    }

    @Test func rawSQLColumnsAndLiterals() throws {
        let sql = try recordSchema { db in
            let defaultName = "O'Reilly"
            try db.create(table: "t") { t in
                t.column(sql: "id INTEGER PRIMARY KEY")
                t.column(literal: "name TEXT DEFAULT \(defaultName)")
                t.constraint(literal: "CHECK (length(name) < \(100))")
            }
            try db.execute(sql: "INSERT INTO t DEFAULT VALUES")
            #expect(try String.fetchOne(db, sql: "SELECT name FROM t") == "O'Reilly")
        }
        #expect(sql == ["CREATE TABLE \"t\" (id INTEGER PRIMARY KEY, name TEXT DEFAULT 'O''Reilly', CHECK (length(name) < 100))"])
    }

    @Test func alterRenameAndDrop() throws {
        let sql = try recordSchema { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("url", .text)
                t.column("score", .integer)
            }
            try db.alter(table: "player") { t in
                t.add(column: "hasBonus", .boolean).notNull().defaults(to: false)
                t.rename(column: "url", to: "homeURL")
                t.drop(column: "score")
            }
            #expect(try db.columns(in: "player").map(\.name) == ["id", "homeURL", "hasBonus"])
            try db.rename(table: "player", to: "gamer")
            #expect(try db.tableExists("gamer"))
            #expect(try !db.tableExists("player"))
            try db.drop(table: "gamer")
            #expect(try !db.tableExists("gamer"))
        }
        #expect(sql == [
            "CREATE TABLE \"player\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT, \"url\" TEXT, \"score\" INTEGER)",
            "ALTER TABLE \"player\" ADD COLUMN \"hasBonus\" BOOLEAN NOT NULL DEFAULT 0",
            "ALTER TABLE \"player\" RENAME COLUMN \"url\" TO \"homeURL\"",
            "ALTER TABLE \"player\" DROP COLUMN \"score\"",
            "ALTER TABLE \"player\" RENAME TO \"gamer\"",
            "DROP TABLE \"gamer\"",
        ])
    }

    @Test func schemaStatementsRunWithoutASavepoint() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.writeWithoutTransaction { db in
            recorder.record(db)
            try db.create(table: "track") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("album", .text).indexed()
                t.column("title", .text).indexed()
            }
            try db.alter(table: "track") { t in
                t.add(column: "length", .integer)
                t.rename(column: "album", to: "record")
            }
        }
        #expect(recorder.sql.filter { !$0.hasPrefix("PRAGMA") } == [
            "CREATE TABLE \"track\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT, \"album\" TEXT, \"title\" TEXT)",
            "CREATE INDEX \"track_on_album\" ON \"track\"(\"album\")",
            "CREATE INDEX \"track_on_title\" ON \"track\"(\"title\")",
            "ALTER TABLE \"track\" ADD COLUMN \"length\" INTEGER",
            "ALTER TABLE \"track\" RENAME COLUMN \"album\" TO \"record\"",
        ])
    }

    @Test func integerPrimaryKeyIsNotDeclaredNotNull() throws {
        let sql = try recordSchema { db in
            try db.create(table: "a") { t in t.primaryKey("id", .integer) }
            try db.create(table: "b") { t in t.primaryKey("id", .integer, onConflict: .fail) }
            try db.create(table: "c") { t in t.primaryKey("uuid", .text) }
            try db.create(table: "d") { t in t.primaryKey("code", .integer, onConflict: .replace).check { $0 > 0 } }
            // The INTEGER primary key is the rowid: a NULL id gets a fresh one.
            try db.execute(sql: "INSERT INTO a (id) VALUES (NULL)")
            #expect(try Int64.fetchOne(db, sql: "SELECT id FROM a") == 1)
            #expect(try db.primaryKey("a").isRowID)
            _ = expectDatabaseError(.SQLITE_CONSTRAINT_NOTNULL) {
                try db.execute(sql: "INSERT INTO c (uuid) VALUES (NULL)")
            }
        }
        #expect(sql == [
            "CREATE TABLE \"a\" (\"id\" INTEGER PRIMARY KEY)",
            "CREATE TABLE \"b\" (\"id\" INTEGER PRIMARY KEY ON CONFLICT FAIL)",
            "CREATE TABLE \"c\" (\"uuid\" TEXT PRIMARY KEY NOT NULL)",
            "CREATE TABLE \"d\" (\"code\" INTEGER PRIMARY KEY ON CONFLICT REPLACE CHECK (\"code\" > 0))",
        ])
    }

    @Test func abortIsTheImplicitConflictResolution() throws {
        let sql = try recordSchema { db in
            try db.create(table: "entry") { t in
                t.column("id", .integer).primaryKey(onConflict: .abort)
                t.column("name", .text).notNull(onConflict: .abort).unique(onConflict: .abort)
                t.column("code", .text).notNull(onConflict: .rollback).unique(onConflict: .ignore)
                t.column("x", .integer)
                t.column("y", .integer)
                t.uniqueKey(["x", "y"], onConflict: .abort)
            }
            try db.create(table: "cross") { t in
                t.column("a", .integer)
                t.column("b", .integer)
                t.primaryKey(["a", "b"], onConflict: .abort)
            }
            try db.create(table: "block") { t in
                t.primaryKey(onConflict: .abort) { t.column("k", .text) }
            }
            try db.execute(sql: "INSERT INTO entry (name, code) VALUES ('a', 'x')")
            _ = expectDatabaseError(.SQLITE_CONSTRAINT_UNIQUE) {
                try db.execute(sql: "INSERT INTO entry (name, code) VALUES ('a', 'y')")
            }
        }
        #expect(sql == [
            "CREATE TABLE \"entry\" (\"id\" INTEGER PRIMARY KEY, \"name\" TEXT NOT NULL UNIQUE, \"code\" TEXT NOT NULL ON CONFLICT ROLLBACK UNIQUE ON CONFLICT IGNORE, \"x\" INTEGER, \"y\" INTEGER, UNIQUE (\"x\", \"y\"))",
            "CREATE TABLE \"cross\" (\"a\" INTEGER, \"b\" INTEGER, PRIMARY KEY (\"a\", \"b\"))",
            "CREATE TABLE \"block\" (\"k\" TEXT NOT NULL, PRIMARY KEY (\"k\"))",
        ])
    }

    @Test func failedAlterationKeepsTheStatementsThatRanBeforeIt() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text)
            }
            // The second change fails (no such column). As in GRDB, alter(table:) opens no
            // savepoint: the first change stays, and the enclosing transaction decides.
            _ = expectDatabaseError(.SQLITE_ERROR) {
                try db.alter(table: "player") { t in
                    t.add(column: "score", .integer)
                    t.drop(column: "missing")
                }
            }
            #expect(try db.columns(in: "player").map(\.name) == ["id", "name", "score"])
            // A bad definition fails without creating anything.
            _ = expectDatabaseError(.SQLITE_ERROR) {
                try db.create(table: "broken") { t in
                    t.column("a", .integer).indexed()
                    t.check(sql: "nope(")
                }
            }
            #expect(try !db.tableExists("broken"))
            _ = expectDatabaseError(.SQLITE_ERROR) {
                try db.create(table: "player") { t in t.column("a") }
            }
            _ = expectDatabaseError(.SQLITE_ERROR) {
                try db.create(table: "orphan") { t in t.belongsTo("missingTable") }
            }
            #expect(try !db.tableExists("orphan"))
        }
    }

    @Test func indexes() throws {
        let sql = try recordSchema { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("email", .text)
                t.column("score", .integer)
                t.column("bonus", .integer)
            }
            try db.create(indexOn: "player", columns: ["email"], options: .unique)
            try db.create(index: "byScore", on: "player", columns: ["score", "bonus"], options: [.ifNotExists], condition: Column("score") > 0)
            try db.create(index: "byEmailNocase", on: "player", expressions: [Column("email").collating(.nocase)])
            try db.create(index: "byTotal", on: "player", expressions: [Column("score") + Column("bonus")])
            let indexes = try db.indexes(on: "player")
            // byTotal is on an expression: indexes(on:) leaves it out.
            #expect(indexes.map(\.name).sorted() == ["byEmailNocase", "byScore", "index_player_on_email"])
            #expect(indexes.first { $0.name == "index_player_on_email" }?.isUnique == true)
            #expect(indexes.first { $0.name == "byScore" }?.isPartial == true)
            #expect(try db.table("player", hasUniqueKey: ["email"]))
            // Two indexes on "email": drop(indexOn:columns:) drops only when exactly one matches.
            try db.drop(indexOn: "player", columns: ["email"])
            #expect(try db.indexes(on: "player").count == 3)
            try db.drop(index: "byEmailNocase")
            try db.drop(indexOn: "player", columns: ["email"])
            try db.drop(index: "byTotal")
            #expect(try db.indexes(on: "player").map(\.name).sorted() == ["byScore"])
        }
        #expect(sql == [
            "CREATE TABLE \"player\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT, \"email\" TEXT, \"score\" INTEGER, \"bonus\" INTEGER)",
            "CREATE UNIQUE INDEX \"index_player_on_email\" ON \"player\"(\"email\")",
            "CREATE INDEX IF NOT EXISTS \"byScore\" ON \"player\"(\"score\", \"bonus\") WHERE \"score\" > 0",
            "CREATE INDEX \"byEmailNocase\" ON \"player\"(\"email\" COLLATE NOCASE)",
            "CREATE INDEX \"byTotal\" ON \"player\"(\"score\" + \"bonus\")",
            "DROP INDEX \"byEmailNocase\"",
            "DROP INDEX \"index_player_on_email\"",
            "DROP INDEX \"byTotal\"",
        ])
    }

    @Test func views() throws {
        let sql = try recordSchema { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("team", .text)
            }
            try db.execute(sql: "INSERT INTO player (team) VALUES ('red'), ('blue'), ('red')")
            try db.create(view: "redPlayer", as: Table("player").filter(Column("team") == "red"))
            try db.create(view: "teamCount", options: [.ifNotExists], columns: ["team", "count"],
                          asLiteral: "SELECT team, COUNT(*) FROM player WHERE team <> \("green") GROUP BY team")
            #expect(try db.viewExists("redPlayer"))
            #expect(try !db.tableExists("redPlayer"))
            #expect(try Table("redPlayer").fetchCount(db) == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT count FROM teamCount WHERE team = 'red'") == 2)
            #expect(try db.columns(in: "teamCount").map(\.name) == ["team", "count"])
            try db.drop(view: "redPlayer")
            #expect(try !db.viewExists("redPlayer"))
        }
        #expect(sql == [
            "CREATE TABLE \"player\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT, \"team\" TEXT)",
            "CREATE VIEW \"redPlayer\" AS SELECT * FROM \"player\" WHERE \"team\" = 'red'",
            "CREATE VIEW IF NOT EXISTS \"teamCount\" (\"team\", \"count\") AS SELECT team, COUNT(*) FROM player WHERE team <> 'green' GROUP BY team",
            "DROP VIEW \"redPlayer\"",
        ])
    }
}

// MARK: - GRDB parity: checks, primary key closures, generated columns, origins, GRDB 5 forms

/// Calls the GRDB 5 forms of `create(table:)` and `create(index:)`, which are deprecated: the
/// calls go through a protocol so that the tests build without deprecation warnings.
private protocol LegacySchemaCalls {
    func createTables(_ db: Database) throws
    func createIndexes(_ db: Database) throws
}

private struct DeprecatedSchemaCalls: LegacySchemaCalls {
    @available(*, deprecated)
    func createTables(_ db: Database) throws {
        try db.create(table: "tide") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("height", .double)
        }
        try db.create(table: "note", temporary: true, ifNotExists: true) { t in
            t.column("text", .text)
        }
        try db.create(table: "gauge", ifNotExists: true, withoutRowID: true) { t in
            t.primaryKey("code", .text)
        }
        // IF NOT EXISTS: no error for an existing table.
        try db.create(table: "gauge", ifNotExists: true, withoutRowID: true) { t in
            t.primaryKey("code", .text)
        }
    }

    @available(*, deprecated)
    func createIndexes(_ db: Database) throws {
        try db.create(index: "tide_height", on: "tide", columns: ["height"])
        try db.create(index: "tide_unique", on: "tide", columns: ["id", "height"], unique: true, ifNotExists: true)
        try db.create(index: "tide_high", on: "tide", columns: ["height"], condition: Column("height") > 5)
    }
}

extension SchemaDefinitionTests {
    @Test func tableCheckConstraints() throws {
        let sql = try recordSchema { db in
            try db.create(table: "voyage") { t in
                t.column("name", .text)
                t.column("departure", .integer)
                t.column("arrival", .integer)
                // A query interface expression (SQLSpecificExpressible)…
                t.check(Column("departure") <= Column("arrival"))
                t.check(length(Column("name")) > 2)
                // …a value (SQLExpressible only), and raw SQL.
                t.check(true)
                t.check(sql: "arrival < 100000")
            }
            try db.execute(sql: "INSERT INTO voyage VALUES ('Fastnet', 1, 3)")
            expectDatabaseError(.SQLITE_CONSTRAINT_CHECK) {
                try db.execute(sql: "INSERT INTO voyage VALUES ('Fastnet', 5, 3)")
            }
            expectDatabaseError(.SQLITE_CONSTRAINT_CHECK) {
                try db.execute(sql: "INSERT INTO voyage VALUES ('Fa', 1, 3)")
            }
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM voyage") == 1)
        }
        #expect(sql == [
            "CREATE TABLE \"voyage\" (\"name\" TEXT, \"departure\" INTEGER, \"arrival\" INTEGER, CHECK (\"departure\" <= \"arrival\"), CHECK (LENGTH(\"name\") > 2), CHECK (1), CHECK (arrival < 100000))",
        ])
    }

    @Test func primaryKeyClosureWithConflictResolution() throws {
        let sql = try recordSchema { db in
            try db.create(table: "berth") { t in
                t.primaryKey(onConflict: .replace) {
                    t.column("harbour", .text)
                    t.column("number", .integer)
                }
                t.column("boat", .text)
            }
            // A throwing body: the error goes through, and no table is created.
            struct NoBuoy: Error {}
            #expect(throws: NoBuoy.self) {
                try db.create(table: "mooring") { t in
                    try t.primaryKey(body: {
                        t.column("buoy", .text)
                        throw NoBuoy()
                    })
                }
            }
            #expect(try !db.tableExists("mooring"))
            try db.create(table: "mooring") { t in
                t.primaryKey(body: { t.column("buoy", .text) })
            }
            try db.execute(sql: "INSERT INTO berth VALUES ('Fowey', 1, 'Kestrel')")
            try db.execute(sql: "INSERT INTO berth VALUES ('Fowey', 1, 'Plover')")
            #expect(try String.fetchAll(db, sql: "SELECT boat FROM berth") == ["Plover"])
            #expect(try db.primaryKey("berth").columns == ["harbour", "number"])
        }
        #expect(sql == [
            "CREATE TABLE \"berth\" (\"harbour\" TEXT NOT NULL, \"number\" INTEGER NOT NULL, \"boat\" TEXT, PRIMARY KEY (\"harbour\", \"number\") ON CONFLICT REPLACE)",
            "CREATE TABLE \"mooring\" (\"buoy\" TEXT NOT NULL, PRIMARY KEY (\"buoy\"))",
        ])
    }

    @Test func generatedColumnQualifications() throws {
        let sql = try recordSchema { db in
            try db.create(table: "hull") { t in
                t.column("length", .double)
                t.column("beam", .double)
                t.column("ratio", .double).generatedAs(Column("length") / Column("beam"))
                t.column("area", .double).generatedAs(Column("length") * Column("beam"), .stored)
                t.column("label", .text).generatedAs(sql: "'L' || length", ColumnDefinition.GeneratedColumnQualification.virtual)
            }
            try db.execute(sql: "INSERT INTO hull (length, beam) VALUES (12, 4)")
            #expect(try Row.fetchOne(db, sql: "SELECT ratio, area, label FROM hull") == ["ratio": 3.0, "area": 48.0, "label": "L12.0"])
            #expect(try db.columns(in: "hull").map(\.isGenerated) == [false, false, true, true, true])
        }
        #expect(sql == [
            "CREATE TABLE \"hull\" (\"length\" DOUBLE, \"beam\" DOUBLE, \"ratio\" DOUBLE GENERATED ALWAYS AS (\"length\" / \"beam\") VIRTUAL, \"area\" DOUBLE GENERATED ALWAYS AS (\"length\" * \"beam\") STORED, \"label\" TEXT GENERATED ALWAYS AS ('L' || length) VIRTUAL)",
        ])
    }

    @Test func indexOrigins() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE crew (badge TEXT PRIMARY KEY, email TEXT UNIQUE, name TEXT) WITHOUT ROWID;
                CREATE INDEX crew_name ON crew(name);
                """)
            let origins = Dictionary(uniqueKeysWithValues: try db.indexes(on: "crew").map { ($0.name, $0.origin) })
            #expect(origins["crew_name"] == .createIndex)
            #expect(origins.values.filter { $0 == .uniqueConstraint }.count == 1)
            #expect(origins.values.filter { $0 == .primaryKeyConstraint }.count == 1)
        }
        #expect(IndexInfo.Origin.createIndex.rawValue == "c")
        #expect(IndexInfo.Origin.uniqueConstraint.rawValue == "u")
        #expect(IndexInfo.Origin.primaryKeyConstraint.rawValue == "pk")
        #expect(IndexInfo.Origin(rawValue: "pk") == .primaryKeyConstraint)
        // A value SQLite may add later is kept as it is.
        #expect(IndexInfo.Origin(rawValue: "x").rawValue == "x")
        #expect(IndexInfo.Origin(rawValue: "x") != .createIndex)
    }

    @Test func columnInfoFromPragmaRows() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE buoy (code TEXT NOT NULL DEFAULT 'B0', lat DOUBLE, lon DOUBLE, tag TEXT GENERATED ALWAYS AS (code || '!'), PRIMARY KEY (lon, lat))")
            let infoColumns = try Row.fetchAll(db, sql: "PRAGMA table_info(buoy)").map(ColumnInfo.init(row:))
            #expect(infoColumns.map(\.name) == ["code", "lat", "lon"])
            #expect(infoColumns.map(\.type) == ["TEXT", "DOUBLE", "DOUBLE"])
            #expect(infoColumns.map(\.isNotNull) == [true, false, false])
            #expect(infoColumns.map(\.defaultValueSQL) == ["'B0'", nil, nil])
            #expect(infoColumns.map(\.primaryKeyIndex) == [0, 2, 1])
            #expect(infoColumns.allSatisfy { !$0.isGenerated })
            let xinfoColumns = try Row.fetchAll(db, sql: "PRAGMA table_xinfo(buoy)").map(ColumnInfo.init(row:))
            #expect(xinfoColumns == (try db.columns(in: "buoy")))
            #expect(xinfoColumns.last?.isGenerated == true)
        }
    }

    @Test func grdb5CreateFormsGenerateTheSameSQL() throws {
        let calls: any LegacySchemaCalls = DeprecatedSchemaCalls()
        let sql = try recordSchema { db in
            try calls.createTables(db)
            try calls.createIndexes(db)
            #expect(try db.indexes(on: "tide").first { $0.name == "tide_unique" }?.isUnique == true)
            #expect(try db.indexes(on: "tide").first { $0.name == "tide_high" }?.isPartial == true)
        }
        let modern = try recordSchema { db in
            try db.create(table: "tide") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("height", .double)
            }
            try db.create(table: "note", options: [.temporary, .ifNotExists]) { t in
                t.column("text", .text)
            }
            try db.create(table: "gauge", options: [.ifNotExists, .withoutRowID]) { t in
                t.primaryKey("code", .text)
            }
            try db.create(table: "gauge", options: [.ifNotExists, .withoutRowID]) { t in
                t.primaryKey("code", .text)
            }
            try db.create(index: "tide_height", on: "tide", columns: ["height"])
            try db.create(index: "tide_unique", on: "tide", columns: ["id", "height"], options: [.unique, .ifNotExists])
            try db.create(index: "tide_high", on: "tide", columns: ["height"], condition: Column("height") > 5)
        }
        #expect(sql == modern)
        #expect(sql == [
            "CREATE TABLE \"tide\" (\"id\" INTEGER PRIMARY KEY AUTOINCREMENT, \"height\" DOUBLE)",
            "CREATE TEMPORARY TABLE IF NOT EXISTS \"note\" (\"text\" TEXT)",
            "CREATE TABLE IF NOT EXISTS \"gauge\" (\"code\" TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID",
            "CREATE TABLE IF NOT EXISTS \"gauge\" (\"code\" TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID",
            "CREATE INDEX \"tide_height\" ON \"tide\"(\"height\")",
            "CREATE UNIQUE INDEX IF NOT EXISTS \"tide_unique\" ON \"tide\"(\"id\", \"height\")",
            "CREATE INDEX \"tide_high\" ON \"tide\"(\"height\") WHERE \"height\" > 5",
        ])
    }
}
