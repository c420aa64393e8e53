// A GRDB 7 program, as a GRDB user writes it, with only `import GRDB` changed to
// `import GRDBCipher` (and no @testable import): schema sources, schema definitions and
// connection APIs. It must compile and behave the same.
import Dispatch
import Foundation
import GRDBCipher
import Testing

// MARK: - View records with a schema source (GRDB's "View Records" article)

private struct GameTeam: Codable, Identifiable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "team"
    var id: String
    var name: String
}

private struct GamePlayer: Codable, Identifiable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "player"
    var id: String
    var name: String
    var teamId: String?
    var isCaptain: Bool
}

private struct Captain: Codable, Identifiable, Equatable, FetchableRecord, PersistableRecord {
    var id: String
    var name: String
    var teamId: String
}

private struct GameSchemaSource: DatabaseSchemaSource {
    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
        ["id"]
    }
}

private struct NoSchemaSource: DatabaseSchemaSource {}

/// The count seen by a spawned read. `@unchecked Sendable`: guarded by `lock`.
private final class SpawnedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var _value = 0
    var value: Int { lock.withLock { _value } }
    func set(_ newValue: Int) { lock.withLock { _value = newValue } }
}

private func makeGameDatabase(path: String, schemaSource: (any DatabaseSchemaSource)?) throws -> DatabaseQueue {
    var config = Configuration()
    config.schemaSource = schemaSource
    config.prepareDatabase { db in try db.usePassphrase("secret") }
    let dbQueue = try DatabaseQueue(path: path, configuration: config)
    try dbQueue.write { db in
        try db.create(table: "team") { t in
            t.primaryKey("id", .text)
            t.column("name", .text).notNull()
        }
        try db.create(table: "player") { t in
            t.primaryKey("id", .text)
            t.column("name", .text).notNull()
            t.belongsTo("team", onDelete: .setNull)
            t.column("isCaptain", .boolean).notNull()
        }
        try db.create(indexOn: "player", columns: ["teamId"], options: .unique, condition: Column("isCaptain"))
        try db.execute(sql: """
            CREATE VIEW captain AS
            SELECT id, name, teamId
            FROM player
            WHERE isCaptain AND teamId IS NOT NULL;

            CREATE TRIGGER captain_update
            INSTEAD OF UPDATE ON captain
            BEGIN
                UPDATE player SET isCaptain = 0
                WHERE teamId = NEW.teamId AND isCaptain AND id <> NEW.id;
                UPDATE player SET name = NEW.name, teamId = NEW.teamId, isCaptain = 1
                WHERE id = NEW.id;
            END;
            """)
        try GameTeam(id: "red", name: "Red").insert(db)
        try GameTeam(id: "blue", name: "Blue").insert(db)
        try GamePlayer(id: "alice", name: "Alice", teamId: "red", isCaptain: true).insert(db)
        try GamePlayer(id: "bob", name: "Bob", teamId: "blue", isCaptain: true).insert(db)
        try GamePlayer(id: "craig", name: "Craig", teamId: "blue", isCaptain: false).insert(db)
    }
    return dbQueue
}

@Suite("GRDB compatibility: schema, configuration, connections")
struct GRDBCompatibilitySchemaTests {
    private func temporaryPath(_ name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("GRDBCompatibilitySchema-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name).path
    }

    @Test func viewRecordsWithASchemaSource() throws {
        let dbQueue = try makeGameDatabase(path: try temporaryPath("game.sqlite"), schemaSource: GameSchemaSource())
        try dbQueue.write { db in
            let captains = try Captain.orderByPrimaryKey().fetchAll(db)
            #expect(captains.map(\.id) == ["alice", "bob"])
            var bob = try Captain.find(db, id: "bob")
            try bob.updateChanges(db) {
                $0.name = "Bobby"
                $0.teamId = "red"
            }
            #expect(try Captain.fetchAll(db) == [Captain(id: "bob", name: "Bobby", teamId: "red")])
            #expect(try Captain.filter(id: "alice").fetchOne(db) == nil)
        }
    }

    @Test func viewRecordsWithoutSchemaSource() throws {
        let dbQueue = try makeGameDatabase(path: try temporaryPath("game.sqlite"), schemaSource: nil)
        try dbQueue.read { db in
            #expect(try Captain.fetchCount(db) == 2)
            do {
                _ = try Captain.find(db, id: "bob")
                Issue.record("expected an error")
            } catch DatabaseError.SQLITE_ERROR {
                // database view captain has no primary key
            }
            // Temporarily, with a chain of sources.
            let bob = try db.withSchemaSource(NoSchemaSource().then(GameSchemaSource())) {
                try Captain.find(db, id: "bob")
            }
            #expect(bob.name == "Bob")
            db.clearSchemaCache()
            let viewID = DatabaseObjectID(name: "captain", schemaID: .main)
            #expect(try GameSchemaSource().columnsForPrimaryKey(db, inView: viewID) == ["id"])
            #expect(try NoSchemaSource().columnsForPrimaryKey(db, inView: viewID) == nil)
            #expect(DatabaseSchemaID.temp.name == "temp")
            #expect(try String.fetchAll(db, sql: "SELECT name FROM \(DatabaseSchemaID.main.schemaTableName) WHERE type = 'view'") == ["captain"])
        }
    }

    @Test func schemaDefinitions() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "rectangle") { t in
                t.primaryKey {
                    t.column("x", .integer)
                    t.column("y", .integer)
                }
                t.column("width", .integer).notNull()
                t.column("height", .integer).notNull()
                t.column("area", .integer).generatedAs(Column("width") * Column("height"), .stored)
                t.column("perimeter", .integer).generatedAs(sql: "2 * (width + height)")
                t.check(Column("width") > 0)
                t.check(sql: "height > 0")
            }
            try db.create(table: "label") { t in
                t.primaryKey(onConflict: .replace) {
                    t.column("code", .text)
                }
            }
            try db.create(index: "rectangle_width", on: "rectangle", columns: ["width"], options: .unique)
            try db.execute(sql: "INSERT INTO rectangle (x, y, width, height) VALUES (0, 0, 3, 4)")
            #expect(try Int.fetchOne(db, sql: "SELECT area FROM rectangle") == 12)
            do {
                try db.execute(sql: "INSERT INTO rectangle (x, y, width, height) VALUES (1, 1, 0, 4)")
                Issue.record("expected an error")
            } catch DatabaseError.SQLITE_CONSTRAINT {
            }
            let origins = try db.indexes(on: "rectangle").map(\.origin)
            #expect(origins.contains(IndexInfo.Origin.createIndex))
            #expect(origins.contains(.primaryKeyConstraint))
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(rectangle)").map { ColumnInfo(row: $0) }
            #expect(columns.map(\.name) == ["x", "y", "width", "height"])
            let qualification: ColumnDefinition.GeneratedColumnQualification = .virtual
            #expect(qualification == .virtual)
        }
    }

    @Test func connections() throws {
        var config = Configuration()
        config.journalMode = .wal
        config.qos = .userInitiated
        config.observesSuspensionNotifications = true
        config.prepareDatabase { db in
            try db.applySQLCipherLicense("not-a-real-license")
            try db.usePassphrase("secret")
        }
        #expect(config.readQoS == .userInitiated)
        #expect(config.writeQoS == .userInitiated)
        let dbQueue = try DatabaseQueue(path: try temporaryPath("connections.sqlite"), configuration: config)
        NotificationCenter.default.post(name: Database.suspendNotification, object: nil)
        NotificationCenter.default.post(name: Database.resumeNotification, object: nil)

        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (name TEXT, score INTEGER)")
            let statements = try db.allStatements(sql: """
                INSERT INTO player (name, score) VALUES (?, ?);
                INSERT INTO player (name, score) VALUES (?, ?);
                """, arguments: ["Arthur", 100, "O'Brien", 1000])
            while let statement = try statements.next() {
                try statement.execute()
            }
            try db.allStatements(literal: """
                INSERT INTO player (name, score) VALUES (\("Barbara"), \(10));
                """).forEach { statement in
                try statement.execute()
            }
            do {
                try db.execute(sql: "SELECT * FROM missing")
            } catch {
                #expect(db.lastErrorCode == .SQLITE_ERROR)
                #expect(db.lastErrorMessage == "no such table: missing")
            }
        }
        #expect(try dbQueue.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")

        let writer: any DatabaseWriter = dbQueue
        let count = SpawnedCount()
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "DELETE FROM player WHERE score < 50")
            writer.spawnConcurrentRead { dbResult in
                let value = (try? Int.fetchOne(dbResult.get(), sql: "SELECT COUNT(*) FROM player")) ?? -1
                count.set(value)
            }
        }
        #expect(count.value == 2)
    }

    @Test func snapshotReaders() throws {
        let dbPool = try DatabasePool(path: try temporaryPath("pool.sqlite"))
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE player (name TEXT); INSERT INTO player VALUES ('Arthur')")
        }
        let snapshot = try dbPool.makeSnapshot()
        let reader: some DatabaseSnapshotReader = snapshot
        #expect(try reader.reentrantRead { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM player") } == 1)
        #expect(try reader.unsafeRead { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM player") } == 1)
        let done = DispatchSemaphore(value: 0)
        reader.asyncUnsafeRead { _ in done.signal() }
        done.wait()
    }
}
