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

    @Test func integrityChecks() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)")
            #expect(try db.integrityProblems().isEmpty)
            try db.checkIntegrity()
        }
    }
}
