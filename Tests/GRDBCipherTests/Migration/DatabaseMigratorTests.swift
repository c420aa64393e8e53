import Foundation
import Testing
@testable import GRDBCipher

@Suite("DatabaseMigrator")
struct DatabaseMigratorTests {
    /// Two migrations of a small library catalogue.
    private func catalogueMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createWriter") { db in
            try db.create(table: "writer") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
        }
        migrator.registerMigration("createNovel") { db in
            try db.create(table: "novel") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("writer").notNull()
                t.column("title", .text)
            }
        }
        return migrator
    }

    private func tables(_ writer: some DatabaseWriter) throws -> [String] {
        try writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name")
        }
    }

    @Test func migratesInOrderAndRemembersAppliedMigrations() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        test.dbQueue.writeWithoutTransaction { recorder.record($0) }
        let migrator = catalogueMigrator()
        #expect(migrator.migrations == ["createWriter", "createNovel"])
        try migrator.migrate(test.dbQueue, upTo: "createWriter")
        #expect(try tables(test.dbQueue) == ["grdb_migrations", "writer"])
        #expect(recorder.sql.first == "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        #expect(recorder.sql.contains("INSERT INTO grdb_migrations (identifier) VALUES (?)"))
        try test.dbQueue.read { (db: Database) throws in
            #expect(try migrator.appliedMigrations(db) == ["createWriter"])
            #expect(try migrator.completedMigrations(db) == ["createWriter"])
            #expect(try !migrator.hasCompletedMigrations(db))
            #expect(try !migrator.hasBeenSuperseded(db))
        }
        try migrator.migrate(test.dbQueue)
        #expect(try tables(test.dbQueue) == ["grdb_migrations", "novel", "writer"])
        try test.dbQueue.read { (db: Database) throws in
            #expect(try migrator.appliedIdentifiers(db) == ["createWriter", "createNovel"])
            #expect(try migrator.hasCompletedMigrations(db))
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") == ["createWriter", "createNovel"])
        }
        // Again: nothing to apply, but the bookkeeping table is still ensured.
        recorder.reset()
        try migrator.migrate(test.dbQueue)
        #expect(recorder.sql.first == "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        #expect(!recorder.sql.contains { $0.hasPrefix("BEGIN") || $0.hasPrefix("INSERT") })
        // An empty migrator runs nothing at all.
        recorder.reset()
        try DatabaseMigrator().migrate(test.dbQueue)
        #expect(recorder.sql.isEmpty)
    }

    @Test func eachMigrationRunsInItsOwnTransaction() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        test.dbQueue.writeWithoutTransaction { recorder.record($0) }
        try catalogueMigrator().migrate(test.dbQueue)
        let boundaries = recorder.sql.filter { $0.hasPrefix("BEGIN") || $0.hasPrefix("COMMIT") }
        #expect(boundaries == [
            "BEGIN IMMEDIATE TRANSACTION", "COMMIT TRANSACTION",
            "BEGIN IMMEDIATE TRANSACTION", "COMMIT TRANSACTION",
        ])
    }

    @Test func databaseMigratedByGRDBGoesOn() throws {
        // A file whose bookkeeping was filled as GRDB fills it.
        let test = try TestDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                CREATE TABLE writer (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);
                INSERT INTO grdb_migrations VALUES ('createWriter');
                INSERT INTO writer(name) VALUES ('Le Guin');
                """)
        }
        let migrator = catalogueMigrator()
        try test.dbQueue.read { (db: Database) throws in
            #expect(try migrator.completedMigrations(db) == ["createWriter"])
        }
        try migrator.migrate(test.dbQueue)
        #expect(try test.dbQueue.read { try String.fetchOne($0, sql: "SELECT name FROM writer") } == "Le Guin")
        #expect(try tables(test.dbQueue) == ["grdb_migrations", "novel", "writer"])
    }

    @Test func failingMigrationLeavesThePreviousOneInPlace() throws {
        let test = try TestDatabase()
        var migrator = catalogueMigrator()
        struct Refused: Error {}
        migrator.registerMigration("broken") { db in
            try db.execute(sql: "CREATE TABLE shelf(id INTEGER PRIMARY KEY)")
            throw Refused()
        }
        #expect(throws: Refused.self) { try migrator.migrate(test.dbQueue) }
        // Reopened: the first two are kept, nothing of the third.
        try test.dbQueue.close()
        let reopened = try test.makeQueue()
        #expect(try tables(reopened) == ["grdb_migrations", "novel", "writer"])
        try reopened.read { (db: Database) throws in
            #expect(try migrator.appliedMigrations(db) == ["createWriter", "createNovel"])
        }
    }

    @Test func unknownTargetIsAnError() throws {
        let test = try TestDatabase()
        let error = expectDatabaseError(.SQLITE_MISUSE) {
            try catalogueMigrator().migrate(test.dbQueue, upTo: "nonexistent")
        }
        #expect(error?.message == "undefined migration: \"nonexistent\"")
        #expect(try tables(test.dbQueue) == [])
    }

    @Test func registeringTwiceIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            var migrator = DatabaseMigrator()
            migrator.registerMigration("once") { _ in }
            migrator.registerMigration("once") { _ in }
        }
    }

    @Test func migratingBackwardIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            let dbQueue = try DatabaseQueue()
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { _ in }
            migrator.registerMigration("v2") { _ in }
            try migrator.migrate(dbQueue)
            try migrator.migrate(dbQueue, upTo: "v1")
        }
    }

    @Test func deferredForeignKeyChecksFailTheMigration() throws {
        let test = try TestDatabase()
        var migrator = catalogueMigrator()
        migrator.registerMigration("orphan") { db in
            // Accepted while the migration runs (foreign keys are off)…
            try db.execute(sql: "INSERT INTO novel(writerId, title) VALUES (42, 'Orphan')")
        }
        // …and refused when it ends: nothing of it is kept.
        expectDatabaseError(.SQLITE_CONSTRAINT) { try migrator.migrate(test.dbQueue) }
        try test.dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM novel") == 0)
            #expect(try migrator.appliedMigrations(db) == ["createWriter", "createNovel"])
            #expect(try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == true)
        }
    }

    @Test func deferredChecksAllowRecreatingATable() throws {
        let test = try TestDatabase()
        var migrator = catalogueMigrator()
        migrator.registerMigration("seed") { db in
            try db.execute(sql: "INSERT INTO writer(id, name) VALUES (1, 'Calvino')")
            try db.execute(sql: "INSERT INTO novel(writerId, title) VALUES (1, 'Invisible Cities')")
        }
        migrator.registerMigration("recreateWriter") { db in
            try db.create(table: "new_writer") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
            }
            try db.execute(sql: "INSERT INTO new_writer SELECT * FROM writer")
            try db.drop(table: "writer")
            try db.rename(table: "new_writer", to: "writer")
        }
        try migrator.migrate(test.dbQueue)
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM novel JOIN writer ON writer.id = novel.writerId") } == 1)
    }

    @Test func immediateAndDisabledChecks() throws {
        let test = try TestDatabase()
        var migrator = catalogueMigrator()
        migrator.registerMigration("immediate", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "INSERT INTO novel(writerId, title) VALUES (7, 'Immediate')")
        }
        // Immediate checks: the statement itself fails.
        let error = expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) { try migrator.migrate(test.dbQueue) }
        #expect(error?.sql == "INSERT INTO novel(writerId, title) VALUES (7, 'Immediate')")

        // Unchecked: registered after disablingDeferredForeignKeyChecks(); earlier ones keep theirs.
        var unchecked = catalogueMigrator().disablingDeferredForeignKeyChecks()
        unchecked.registerMigration("unchecked") { db in
            try db.execute(sql: "INSERT INTO novel(writerId, title) VALUES (8, 'Unchecked')")
        }
        try unchecked.migrate(test.dbQueue)
        try test.dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM novel") == 1)
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count == 1)
        }
    }

    @Test func mergedMigrations() throws {
        // Shipped: "v1" then "v2". Now one migration, "v2", replaces "v1".
        let old = try TestDatabase(name: "old.sqlite")
        var shipped = DatabaseMigrator()
        shipped.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE a(x)") }
        try shipped.migrate(old.dbQueue)

        var merged = DatabaseMigrator()
        final class Seen: @unchecked Sendable { var applied: [Set<String>] = [] }
        let seen = Seen()
        merged.registerMigration("v2", merging: ["v1", "v2"]) { db, appliedIdentifiers in
            seen.applied.append(appliedIdentifiers)
            if !appliedIdentifiers.contains("v1") {
                try db.execute(sql: "CREATE TABLE a(x)")
            }
            try db.execute(sql: "CREATE TABLE b(y)")
        }
        try old.dbQueue.read { (db: Database) throws in
            #expect(try merged.hasBeenSuperseded(db)) // it lists "v1", which is not registered
        }
        try merged.migrate(old.dbQueue)
        let fresh = try TestDatabase(name: "fresh.sqlite")
        try merged.migrate(fresh.dbQueue)
        #expect(seen.applied == [["v1"], []])
        for test in [old, fresh] {
            #expect(try tables(test.dbQueue) == ["a", "b", "grdb_migrations"])
            try test.dbQueue.read { (db: Database) throws in
                #expect(try merged.appliedIdentifiers(db) == ["v2"])
                #expect(try !merged.hasBeenSuperseded(db))
            }
        }
    }

    @Test func supersededDatabase() throws {
        let test = try TestDatabase()
        var newer = catalogueMigrator()
        newer.registerMigration("future") { db in try db.execute(sql: "CREATE TABLE future(x)") }
        try newer.migrate(test.dbQueue)
        let older = catalogueMigrator()
        try test.dbQueue.read { (db: Database) throws in
            #expect(try older.hasBeenSuperseded(db))
            #expect(try older.hasCompletedMigrations(db))
        }
        // Migrating with the older migrator does nothing.
        try older.migrate(test.dbQueue)
        #expect(try tables(test.dbQueue) == ["future", "grdb_migrations", "novel", "writer"])
    }

    @Test func eraseDatabaseOnSchemaChange() throws {
        let test = try TestDatabase()
        var first = DatabaseMigrator()
        first.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE note(body TEXT)") }
        try first.migrate(test.dbQueue)
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO note VALUES ('draft')") }

        // The same migration, edited during development.
        var edited = DatabaseMigrator()
        edited.eraseDatabaseOnSchemaChange = true
        edited.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE note(body TEXT, title TEXT)") }
        try test.dbQueue.read { (db: Database) throws in
            #expect(try edited.hasSchemaChanges(db))
            #expect(try !first.hasSchemaChanges(db))
        }
        try edited.migrate(test.dbQueue)
        try test.dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note") == 0) // erased
            #expect(try db.columns(in: "note").map(\.name) == ["body", "title"])
            #expect(try !edited.hasSchemaChanges(db))
        }
        // Unchanged migrations keep the data.
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO note VALUES ('kept', 't')") }
        try edited.migrate(test.dbQueue)
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM note") } == 1)

        // The file keeps its encryption, and no other file is left in the directory.
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: test.path)).readData(ofLength: 16)
        #expect((header == Data("SQLite format 3\0".utf8)) == !TestEnvironment.encrypted)
        let files = try FileManager.default.contentsOfDirectory(atPath: test.directory.url.path)
        #expect(files.allSatisfy { $0.hasPrefix("db.sqlite") })
    }

    @Test func eraseDatabaseOnSchemaChangeOnAPool() throws {
        let pool = try TestPool()
        var first = DatabaseMigrator()
        first.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE tag(label TEXT)") }
        try first.migrate(pool.dbPool)
        try pool.dbPool.write { try $0.execute(sql: "INSERT INTO tag VALUES ('old')") }
        var renamed = DatabaseMigrator()
        renamed.eraseDatabaseOnSchemaChange = true
        renamed.registerMigration("v1-renamed") { db in try db.execute(sql: "CREATE TABLE tag(label TEXT)") }
        try pool.dbPool.read { (db: Database) throws in
            #expect(try renamed.hasBeenSuperseded(db)) // "v1" is no longer registered
        }
        try renamed.migrate(pool.dbPool)
        try pool.dbPool.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tag") == 0)
            #expect(try renamed.appliedIdentifiers(db) == ["v1-renamed"])
        }
        // Only the pool's own files, and the database keeps its encryption.
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: pool.path)).readData(ofLength: 16)
        #expect((header == Data("SQLite format 3\0".utf8)) == !TestEnvironment.encrypted)
        let files = try FileManager.default.contentsOfDirectory(atPath: pool.directory.url.path)
        #expect(files.allSatisfy { $0.hasPrefix("pool.sqlite") })
    }

    @Test func appliedMergingMigrationRemovesTheMergedIdentifiers() throws {
        // MIG-3: version 1 of the app applied three migrations; version 2 merges the first
        // two into the third, of the same name. Its migrate removes the merged identifiers,
        // so the database does not look migrated by a newer version, and
        // eraseDatabaseOnSchemaChange does not erase it at every start.
        let test = try TestDatabase()
        var shipped = DatabaseMigrator()
        shipped.registerMigration("create-notes") { db in try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY)") }
        shipped.registerMigration("add-tags") { db in try db.execute(sql: "ALTER TABLE notes ADD COLUMN tags TEXT") }
        shipped.registerMigration("add-index") { db in try db.execute(sql: "CREATE INDEX notes_tags ON notes(tags)") }
        try shipped.migrate(test.dbQueue)

        var merged = DatabaseMigrator()
        final class Runs: @unchecked Sendable { var count = 0 }
        let runs = Runs()
        merged.registerMigration("add-index", merging: ["create-notes", "add-tags"]) { db, applied in
            runs.count += 1
            if applied.isEmpty {
                try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, tags TEXT); CREATE INDEX notes_tags ON notes(tags)")
            }
        }
        try test.dbQueue.read { (db: Database) throws in
            // As GRDB: before the merge is migrated, the old identifiers count.
            #expect(try merged.hasBeenSuperseded(db))
        }
        try merged.migrate(test.dbQueue)
        #expect(runs.count == 0) // applied already: it does not run again
        try test.dbQueue.read { (db: Database) throws in
            #expect(try merged.appliedIdentifiers(db) == ["add-index"])
            #expect(try !merged.hasBeenSuperseded(db))
            #expect(try !merged.hasSchemaChanges(db))
            #expect(try merged.completedMigrations(db) == ["add-index"])
        }
        // From now on, the data stays at every start, even with eraseDatabaseOnSchemaChange.
        // (With it on, the first start after the merge erases the database, as in GRDB:
        // the merged identifiers make it look superseded until they are removed.)
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO notes VALUES (1, 'kept')") }
        var erasing = merged
        erasing.eraseDatabaseOnSchemaChange = true
        try erasing.migrate(test.dbQueue)
        try erasing.migrate(test.dbQueue)
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM notes") } == 1)
    }

    @Test func schemaChangesWithTargetQueues() throws {
        // MIG-1: the reference database of hasSchemaChanges is opened from inside an access;
        // with the connection's target queue it would dispatch_sync on a queue the thread
        // holds (a trap). It gets the configuration without target queues.
        for queueLabel in ["target", "writeTarget"] {
            var configuration = Configuration()
            let queue = DispatchQueue(label: "grdbcipher.tests.\(queueLabel)")
            if queueLabel == "target" {
                configuration.targetQueue = queue
            } else {
                configuration.writeTargetQueue = queue
            }
            let test = try TestDatabase(configuration: configuration)
            var migrator = DatabaseMigrator()
            migrator.eraseDatabaseOnSchemaChange = true
            migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE note(body TEXT)") }
            try migrator.migrate(test.dbQueue)
            try test.dbQueue.write { try $0.execute(sql: "INSERT INTO note VALUES ('kept')") }
            try migrator.migrate(test.dbQueue)
            try test.dbQueue.read { (db: Database) throws in
                #expect(try !migrator.hasSchemaChanges(db))
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note") == 1)
            }
        }
    }

    @Test func referenceDatabaseIsAFile() throws {
        // MIG-2: preparation code that needs a file (its path, a file control) works in the
        // reference database of hasSchemaChanges too.
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            let path = try String.fetchOne(db, sql: "SELECT file FROM pragma_database_list WHERE name = 'main'") ?? ""
            if path.isEmpty {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "this application needs a database file")
            }
        }
        let test = try TestDatabase(configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.eraseDatabaseOnSchemaChange = true
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE note(body TEXT)") }
        try migrator.migrate(test.dbQueue)
        try migrator.migrate(test.dbQueue)
        try test.dbQueue.read { (db: Database) throws in
            #expect(try !migrator.hasSchemaChanges(db))
        }
        // The reference file is removed: only the database's own files are in its directory.
        let files = try FileManager.default.contentsOfDirectory(atPath: test.directory.url.path)
        #expect(files.allSatisfy { $0.hasPrefix("db.sqlite") })
    }

    @Test func migrationsRunWithoutTheSchemaSource() throws {
        // MIG-4: migrations see the raw schema; the configured source is back afterwards.
        struct ViewKeys: DatabaseSchemaSource {
            func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
                view.name == "recent" ? ["id"] : nil
            }
        }
        var configuration = Configuration()
        configuration.schemaSource = ViewKeys()
        let test = try TestDatabase(configuration: configuration)
        final class Seen: @unchecked Sendable { var sourceWasNil = false; var viewKeyError: DatabaseError? }
        let seen = Seen()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY); CREATE VIEW recent AS SELECT * FROM note")
        }
        migrator.registerMigration("v2") { db in
            seen.sourceWasNil = db.schemaSource == nil
            do { _ = try db.primaryKey("recent") } catch let error as DatabaseError { seen.viewKeyError = error }
        }
        try migrator.migrate(test.dbQueue)
        #expect(seen.sourceWasNil)
        #expect(seen.viewKeyError != nil)
        try test.dbQueue.read { (db: Database) throws in
            #expect(db.schemaSource is ViewKeys)
            #expect(try db.primaryKey("recent").columns == ["id"])
        }
    }

    @Test func poolsAsyncAndReadOnly() async throws {
        let pool = try TestPool()
        let migrator = catalogueMigrator()
        try await migrator.migrate(pool.dbPool)
        #expect(try tables(pool.dbPool) == ["grdb_migrations", "novel", "writer"])

        let test = try TestDatabase()
        let done = AsyncStream<Result<Void, any Error>>.makeStream()
        migrator.asyncMigrate(test.dbQueue) { result in
            done.continuation.yield(result.map { _ in })
            done.continuation.finish()
        }
        for await result in done.stream { try result.get() }
        #expect(try tables(test.dbQueue) == ["grdb_migrations", "novel", "writer"])

        // A read-only connection cannot apply a migration: SQLITE_READONLY at the first write.
        var config = Configuration()
        config.readonly = true
        let readonly = try test.makeQueue(configuration: config)
        var more = migrator
        more.registerMigration("more") { db in try db.execute(sql: "CREATE TABLE more(x)") }
        expectDatabaseError(.SQLITE_READONLY) { try more.migrate(readonly) }
    }

    /// Migrates the file with a migration that takes a while, so that another process that
    /// migrates at the same time waits for its write lock.
    static func migrateSlowly(path: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(20)
        let dbQueue = try DatabaseQueue(path: path, configuration: TestDatabase.configure(config))
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createRun") { db in
            try db.execute(sql: "CREATE TABLE run(pid INTEGER)")
            Thread.sleep(forTimeInterval: 0.4)
            try db.execute(sql: "INSERT INTO run VALUES (?)", arguments: [Int(getpid())])
        }
        try migrator.migrate(dbQueue)
    }

    @Test func twoProcessesMigrateTheSameFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        // The file exists before the race, so that both open the same database.
        let setup = try DatabaseQueue(path: path, configuration: TestDatabase.configure(Configuration()))
        try await setup.write { try $0.execute(sql: "PRAGMA user_version = 1") }
        try setup.close()
        async let first = #expect(processExitsWith: .success) { [path = path as String] in
            try DatabaseMigratorTests.migrateSlowly(path: path)
        }
        async let second = #expect(processExitsWith: .success) { [path = path as String] in
            try DatabaseMigratorTests.migrateSlowly(path: path)
        }
        _ = await (first, second)
        let dbQueue = try DatabaseQueue(path: path, configuration: TestDatabase.configure(Configuration()))
        try await dbQueue.read { (db: Database) throws in
            // Applied once: one process did the work, the other found it done.
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM run") == 1)
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") == ["createRun"])
        }
    }
}
