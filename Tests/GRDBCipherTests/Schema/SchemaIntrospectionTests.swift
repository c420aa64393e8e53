import Foundation
import Testing
@testable import GRDBCipher

@Suite("Schema introspection")
struct SchemaIntrospectionTests {
    @Test func existenceChecks() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT);
                CREATE VIEW playerName AS SELECT name FROM player;
                CREATE TRIGGER playerInsert AFTER INSERT ON player BEGIN SELECT 1; END;
                """)
            #expect(try db.tableExists("player"))
            #expect(try db.tableExists("PLAYER"))
            #expect(try !db.tableExists("playerName"))
            #expect(try db.viewExists("playerName"))
            #expect(try !db.viewExists("player"))
            #expect(try db.triggerExists("playerInsert"))
            #expect(try !db.triggerExists("missing"))
            #expect(Database.isSQLiteInternalTable("sqlite_sequence"))
            #expect(!Database.isSQLiteInternalTable("player"))
            #expect(Database.isGRDBInternalTable("grdb_migrations"))
            #expect(try db.columns(in: "playerName").map(\.name) == ["name"])
            _ = expectDatabaseError(.SQLITE_ERROR) { _ = try db.columns(in: "missing") }
            _ = expectDatabaseError(.SQLITE_ERROR) { _ = try db.foreignKeys(on: "missing") }
        }
    }

    @Test func schemaCacheFollowsRawSQLChanges() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)")
            #expect(try db.columns(in: "t").map(\.name) == ["a", "b"])
            #expect(try db.primaryKey("t").columns == ["a"])
            try db.execute(sql: "ALTER TABLE t ADD COLUMN c INTEGER")
            #expect(try db.columns(in: "t").map(\.name) == ["a", "b", "c"])
            try db.execute(sql: "CREATE UNIQUE INDEX tb ON t(b)")
            #expect(try db.table("t", hasUniqueKey: ["b"]))
            try db.execute(sql: "DROP TABLE t; CREATE TABLE t (x TEXT PRIMARY KEY)")
            #expect(try db.primaryKey("t").columns == ["x"])
            #expect(try !db.table("t", hasUniqueKey: ["b"]))
        }
        // A change made by another connection is seen at the next access.
        let other = try DatabaseQueue(path: test.path, configuration: TestDatabase.configure(Configuration()))
        try other.write { db in try db.execute(sql: "ALTER TABLE t ADD COLUMN y INTEGER") }
        let columns = try test.dbQueue.read { db in try db.columns(in: "t").map(\.name) }
        #expect(columns == ["x", "y"])
    }

    @Test func foreignKeysAndViolations() throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let test = try TestDatabase(configuration: configuration)
        try test.dbQueue.write { db in
            try db.create(table: "team") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "country") { t in t.primaryKey("code", .text) }
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("team")
                t.column("countryCode", .text)
                t.column("name", .text)
                t.foreignKey(["countryCode"], references: "country")
            }
            let keys = try db.foreignKeys(on: "player")
            #expect(keys.count == 2)
            #expect(keys.map(\.destinationTable).sorted() == ["country", "team"])
            #expect(keys.first { $0.destinationTable == "team" }?.mapping.map { "\($0.origin)->\($0.destination)" } == ["teamId->id"])

            try db.checkForeignKeys()
            try db.execute(sql: "INSERT INTO team (id) VALUES (1)")
            try db.execute(sql: "INSERT INTO player (teamId, countryCode, name) VALUES (1, NULL, 'ok'), (2, NULL, 'secret name')")
            let violations = try Array(db.foreignKeyViolations())
            #expect(violations.count == 1)
            #expect(violations[0].originTable == "player")
            #expect(violations[0].destinationTable == "team")
            #expect(violations[0].originRowID == 2)
            #expect(String(describing: violations[0]) == "FOREIGN KEY constraint violation - from player to team, in rowid 2")
            #expect(try violations[0].failureDescription(db) == "FOREIGN KEY constraint violation - from player(teamId) to team(id), in rowid 2")
            let error = expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) { try db.checkForeignKeys() }
            #expect(error?.message?.contains("secret name") == false)
            _ = expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) { try db.checkForeignKeys(in: "player") }
            #expect(try Array(db.foreignKeyViolations(in: "team")).isEmpty)
        }
    }

    @Test func rowIDIsAUniqueKeyOfEveryRowIDTable() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE pairing (left TEXT, right TEXT, PRIMARY KEY (left, right));
                CREATE TABLE logLine (message TEXT);
                CREATE TABLE setting (key TEXT PRIMARY KEY) WITHOUT ROWID;
                CREATE TABLE odd (rowid TEXT, name TEXT PRIMARY KEY);
                CREATE VIEW pairingView AS SELECT left, right, rowid FROM pairing;
                """)
            #expect(try db.table("pairing", hasUniqueKey: ["rowid"]))
            #expect(try db.table("pairing", hasUniqueKey: ["ROWID", "left"]))
            #expect(try db.table("pairing", hasUniqueKey: ["oid"]))
            #expect(try !db.table("pairing", hasUniqueKey: ["left"]))
            #expect(try db.table("logLine", hasUniqueKey: ["_rowid_"]))
            // No rowid in a WITHOUT ROWID table.
            #expect(try !db.table("setting", hasUniqueKey: ["rowid"]))
            // A column named rowid hides the rowid under that name only.
            #expect(try !db.table("odd", hasUniqueKey: ["rowid"]))
            #expect(try db.table("odd", hasUniqueKey: ["oid"]))
            // A view has no unique key, and asking does not throw.
            #expect(try !db.table("pairingView", hasUniqueKey: ["left", "right"]))
            #expect(try !db.table("pairingView", hasUniqueKey: ["rowid"]))
            _ = expectDatabaseError(.SQLITE_ERROR) { _ = try db.table("missing", hasUniqueKey: ["rowid"]) }
        }
    }

    @Test func indexesOnExpressionsAreLeftOut() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE word (id INTEGER PRIMARY KEY, spelling TEXT, language TEXT);
                CREATE INDEX wordLength ON word(LENGTH(spelling));
                CREATE INDEX wordLanguageLength ON word(language, LENGTH(spelling));
                CREATE INDEX wordSpelling ON word(spelling COLLATE NOCASE);
                CREATE UNIQUE INDEX wordLanguageSpelling ON word(language, spelling) WHERE language IS NOT NULL;
                """)
            let indexes = try db.indexes(on: "word")
            #expect(indexes.map(\.name).sorted() == ["wordLanguageSpelling", "wordSpelling"])
            #expect(indexes.first { $0.name == "wordLanguageSpelling" }?.columns == ["language", "spelling"])
            #expect(indexes.first { $0.name == "wordLanguageSpelling" }?.isPartial == true)
            #expect(indexes.first { $0.name == "wordSpelling" }?.columns == ["spelling"])
        }
    }

    @Test func primaryKeyOfAViewThrows() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY); CREATE VIEW items AS SELECT id FROM item")
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try db.primaryKey("items") }
            #expect(error?.message == "database view items has no primary key")
            #expect(error?.sql == nil)
            let missing = expectDatabaseError(.SQLITE_ERROR) { _ = try db.primaryKey("nothing") }
            #expect(missing?.message == "no such table: nothing")
        }
    }

    @Test func integrityChecks() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)")
            #expect(try db.integrityProblems().isEmpty)
            try db.checkIntegrity()
        }
    }
}
