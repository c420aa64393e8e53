import Foundation
import Testing
@testable import GRDBCipher

/// A lighthouse keeper, read through the `keeper` view over the `staff` table.
private struct Keeper: Codable, Identifiable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "keeper"
    var id: String
    var name: String
    var lighthouse: String
}

/// Gives `keeper` its primary key, and nothing else.
private struct KeeperSchemaSource: DatabaseSchemaSource {
    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
        view.name == "keeper" ? ["id"] : nil
    }
}

/// Gives every view the same key, and records which views it was asked about.
private final class RecordingSchemaSource: DatabaseSchemaSource, @unchecked Sendable {
    // @unchecked Sendable: `asked` is guarded by `lock`.
    private let lock = NSLock()
    private var _asked: [DatabaseObjectID] = []
    let columns: [String]?

    init(columns: [String]?) {
        self.columns = columns
    }

    var asked: [DatabaseObjectID] {
        lock.withLock { _asked }
    }

    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
        lock.withLock { _asked.append(view) }
        return columns
    }
}

/// A source that answers nothing, relying on the default implementation.
private struct SilentSchemaSource: DatabaseSchemaSource {}

/// A source that fails.
private struct FailingSchemaSource: DatabaseSchemaSource {
    struct Failure: Error {}
    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
        throw Failure()
    }
}

@Suite("Database schema source")
struct DatabaseSchemaSourceTests {
    private func makeDatabase(schemaSource: (any DatabaseSchemaSource)?) throws -> TestDatabase {
        var configuration = Configuration()
        configuration.schemaSource = schemaSource
        let test = try TestDatabase(configuration: configuration)
        try test.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE staff (code TEXT PRIMARY KEY, fullName TEXT NOT NULL, post TEXT, onDuty BOOLEAN NOT NULL);
                CREATE VIEW keeper AS SELECT code AS id, fullName AS name, post AS lighthouse FROM staff WHERE onDuty;
                CREATE TRIGGER keeper_update INSTEAD OF UPDATE ON keeper BEGIN
                    UPDATE staff SET fullName = NEW.name, post = NEW.lighthouse WHERE code = OLD.id;
                END;
                CREATE TRIGGER keeper_delete INSTEAD OF DELETE ON keeper BEGIN
                    DELETE FROM staff WHERE code = OLD.id;
                END;
                INSERT INTO staff VALUES ('k1', 'Morwenna', 'Godrevy', 1);
                INSERT INTO staff VALUES ('k2', 'Tobias', 'Longships', 1);
                INSERT INTO staff VALUES ('k3', 'Ailsa', 'Pendeen', 0);
                """)
        }
        return test
    }

    @Test func configurationGivesThePrimaryKeyOfAView() throws {
        let test = try makeDatabase(schemaSource: KeeperSchemaSource())
        try test.dbQueue.read { db in
            #expect(db.schemaSource is KeeperSchemaSource)
            let primaryKey = try db.primaryKey("keeper")
            #expect(primaryKey.columns == ["id"])
            #expect(primaryKey.rowIDColumn == nil)
            #expect(!primaryKey.isRowID)
            #expect(primaryKey.columnInfos?.map(\.name) == ["id"])
            #expect(try db.table("keeper", hasUniqueKey: ["id", "name"]))
            #expect(try !db.table("keeper", hasUniqueKey: ["name"]))
        }
    }

    @Test func viewBackedRecordFindsFiltersUpdatesAndDeletes() throws {
        let test = try makeDatabase(schemaSource: KeeperSchemaSource())
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            recorder.record(db)
            var keeper = try Keeper.find(db, id: "k1")
            #expect(keeper == Keeper(id: "k1", name: "Morwenna", lighthouse: "Godrevy"))
            #expect(try Keeper.filter(id: "k2").fetchOne(db)?.name == "Tobias")
            #expect(try Keeper.filter(ids: ["k1", "k2"]).fetchCount(db) == 2)
            #expect(try Keeper.orderByPrimaryKey().fetchAll(db).map(\.id) == ["k1", "k2"])
            #expect(try Keeper.exists(db, id: "k2"))
            // Off duty: not in the view.
            #expect(try Keeper.fetchOne(db, id: "k3") == nil)

            keeper.lighthouse = "Trevose Head"
            try keeper.update(db)
            #expect(try String.fetchOne(db, sql: "SELECT post FROM staff WHERE code = 'k1'") == "Trevose Head")

            // Through the view, a missing row is still told apart.
            #expect(throws: RecordError.self) { try Keeper(id: "k3", name: "Ailsa", lighthouse: "Pendeen").update(db) }
            #expect(try !Keeper.deleteOne(db, id: "k9"))
            #expect(try Keeper.deleteOne(db, id: "k2"))
            #expect(try String.fetchAll(db, sql: "SELECT code FROM staff ORDER BY code") == ["k1", "k3"])
        }
        #expect(recorder.dataSQL == [
            "SELECT * FROM \"keeper\" WHERE \"id\" = ? LIMIT 1",
            "SELECT * FROM \"keeper\" WHERE \"id\" = ? LIMIT 1",
            "SELECT COUNT(*) FROM \"keeper\" WHERE \"id\" IN (?, ?)",
            "SELECT * FROM \"keeper\" ORDER BY \"id\"",
            "SELECT EXISTS (SELECT * FROM \"keeper\" WHERE \"id\" = ?)",
            "SELECT * FROM \"keeper\" WHERE \"id\" = ? LIMIT 1",
            "UPDATE \"keeper\" SET \"name\"=?, \"lighthouse\"=? WHERE \"id\"=?",
            "SELECT post FROM staff WHERE code = 'k1'",
            "UPDATE \"keeper\" SET \"name\"=?, \"lighthouse\"=? WHERE \"id\"=?",
            "DELETE FROM \"keeper\" WHERE \"id\" = ?",
            "DELETE FROM \"keeper\" WHERE \"id\" = ?",
            "SELECT code FROM staff ORDER BY code",
        ])
    }

    @Test func withoutSourceAViewHasNoPrimaryKey() throws {
        for source in [nil, SilentSchemaSource()] as [(any DatabaseSchemaSource)?] {
            let test = try makeDatabase(schemaSource: source)
            try test.dbQueue.read { db throws in
                let error = expectDatabaseError(.SQLITE_ERROR) { _ = try Keeper.find(db, id: "k1") }
                #expect(error?.message == "database view keeper has no primary key")
                #expect(try !db.table("keeper", hasUniqueKey: ["id"]))
                // Requests that need no primary key still work.
                #expect(try Keeper.fetchCount(db) == 2)
            }
        }
    }

    @Test func sourceIsAskedWithTheViewIdentifierAndTheAnswerIsCached() throws {
        let source = RecordingSchemaSource(columns: ["ID"])
        let test = try makeDatabase(schemaSource: source)
        try test.dbQueue.read { db throws in
            // The column spelled as the view spells it.
            #expect(try db.primaryKey("KEEPER").columns == ["id"])
            #expect(try db.primaryKey("keeper").columns == ["id"])
            // A table is not asked about.
            #expect(try db.primaryKey("staff").columns == ["code"])
        }
        #expect(source.asked == [DatabaseObjectID(name: "keeper", schemaID: .main)])
        try test.dbQueue.read { db in
            db.clearSchemaCache()
            _ = try db.primaryKey("keeper")
        }
        #expect(source.asked.count == 2)
    }

    @Test func viewsOfTempAndAttachedSchemasHaveTheirSchemaID() throws {
        let source = RecordingSchemaSource(columns: ["id"])
        let test = try makeDatabase(schemaSource: source)
        let otherPath = test.directory.path("other.sqlite")
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS harbour", arguments: [otherPath])
            try db.execute(sql: """
                CREATE TABLE harbour.boat (id INTEGER PRIMARY KEY, name TEXT);
                CREATE VIEW harbour.moored AS SELECT id, name FROM boat;
                CREATE TEMP VIEW nightShift AS SELECT code AS id FROM staff;
                """)
            #expect(try db.primaryKey("moored").columns == ["id"])
            #expect(try db.primaryKey("nightShift").columns == ["id"])
            try db.execute(sql: "DETACH DATABASE harbour")
        }
        #expect(source.asked == [
            DatabaseObjectID(name: "moored", schemaID: .attached("harbour")),
            DatabaseObjectID(name: "nightShift", schemaID: .temp),
        ])
    }

    @Test func badAnswersThrow() throws {
        let test = try makeDatabase(schemaSource: RecordingSchemaSource(columns: ["id", "missing"]))
        try test.dbQueue.read { db in
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try db.primaryKey("keeper") }
            #expect(error?.message == "no such column: missing in view keeper")
            try db.withSchemaSource(RecordingSchemaSource(columns: [])) { () throws in
                let error = expectDatabaseError(.SQLITE_ERROR) { _ = try db.primaryKey("keeper") }
                #expect(error?.message == "database view keeper has no primary key")
            }
            #expect(throws: FailingSchemaSource.Failure.self) {
                try db.withSchemaSource(FailingSchemaSource()) { _ = try Keeper.find(db, id: "k1") }
            }
        }
    }

    @Test func withSchemaSourceReplacesTheSourceWhileItsClosureRuns() throws {
        let test = try makeDatabase(schemaSource: nil)
        try test.dbQueue.read { db in
            #expect(db.schemaSource == nil)
            let name = try db.withSchemaSource(KeeperSchemaSource()) {
                #expect(db.schemaSource is KeeperSchemaSource)
                return try Keeper.find(db, id: "k2").name
            }
            #expect(name == "Tobias")
            // Restored, and the cached answer forgotten.
            #expect(db.schemaSource == nil)
            _ = expectDatabaseError(.SQLITE_ERROR) { _ = try db.primaryKey("keeper") }
        }
        // A nil source disables the configured one.
        let configured = try makeDatabase(schemaSource: KeeperSchemaSource())
        try configured.dbQueue.read { db throws in
            #expect(try db.primaryKey("keeper").columns == ["id"])
            db.withSchemaSource(nil) {
                _ = expectDatabaseError(.SQLITE_ERROR) { _ = try db.primaryKey("keeper") }
            }
            #expect(try db.primaryKey("keeper").columns == ["id"])
        }
    }

    @Test func thenAsksTheNextSourceForWhatTheFirstDoesNotKnow() throws {
        let fallback = RecordingSchemaSource(columns: ["name"])
        let test = try makeDatabase(schemaSource: KeeperSchemaSource().then(fallback))
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE VIEW postName AS SELECT DISTINCT post AS name FROM staff")
            #expect(try db.primaryKey("keeper").columns == ["id"])
            #expect(try db.primaryKey("postName").columns == ["name"])
        }
        #expect(fallback.asked == [DatabaseObjectID(name: "postName", schemaID: .main)])
        // The first source wins when both know.
        let both = RecordingSchemaSource(columns: ["lighthouse"]).then(KeeperSchemaSource())
        try test.dbQueue.read { db in
            try db.withSchemaSource(both) { () throws in
                #expect(try db.primaryKey("keeper").columns == ["lighthouse"])
            }
        }
    }

    @Test func schemaAndObjectIdentifiers() {
        #expect(DatabaseSchemaID.main.name == "main")
        #expect(DatabaseSchemaID.temp.name == "temp")
        #expect(DatabaseSchemaID.attached("harbour").name == "harbour")
        #expect(DatabaseSchemaID.main.schemaTableName == "sqlite_master")
        #expect(DatabaseSchemaID.temp.schemaTableName == "sqlite_temp_master")
        #expect(DatabaseSchemaID.attached("old harbour").schemaTableName == "\"old harbour\".sqlite_master")
        #expect(DatabaseSchemaID.attached("main") != .main)
        var id = DatabaseObjectID(name: "keeper", schemaID: .main)
        #expect(id.name == "keeper" && id.schemaID == .main)
        id.schemaID = .temp
        #expect(id == DatabaseObjectID(name: "keeper", schemaID: .temp))
    }

    @Test func schemaTableNameReadsTheSchema() throws {
        let test = try TestDatabase()
        let otherPath = test.directory.path("other.sqlite")
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS harbour", arguments: [otherPath])
            try db.execute(sql: "CREATE TABLE harbour.boat (id INTEGER); CREATE TEMP TABLE draft (id INTEGER); CREATE TABLE dock (id INTEGER)")
            for (schemaID, table) in [(DatabaseSchemaID.main, "dock"), (.temp, "draft"), (.attached("harbour"), "boat")] {
                let names = try String.fetchAll(db, sql: "SELECT name FROM \(schemaID.schemaTableName) WHERE type = 'table'")
                #expect(names == [table])
            }
            try db.execute(sql: "DETACH DATABASE harbour")
        }
    }
}
