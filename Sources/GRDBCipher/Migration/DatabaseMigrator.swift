import Foundation

/// Runs the migrations that evolve a database schema, each once, in the order they were
/// registered, and remembers in the database which ones were applied.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("createPlayer") { db in
///     try db.create(table: "player") { t in
///         t.autoIncrementedPrimaryKey("id")
///         t.column("name", .text).notNull()
///     }
/// }
/// migrator.registerMigration("addScore") { db in
///     try db.alter(table: "player") { t in t.add(column: "score", .integer) }
/// }
/// try migrator.migrate(dbQueue)
/// ```
///
/// Applied migrations are rows of the `grdb_migrations` table, as in GRDB: a database migrated by
/// GRDB goes on with GRDBCipher, and the reverse. Each migration runs in its own transaction; one
/// that throws leaves the database as the previous migration left it.
public struct DatabaseMigrator: Sendable {
    /// How a migration checks foreign keys.
    public enum ForeignKeyChecks: Sendable {
        /// Foreign keys are disabled while the migration runs, and every foreign key of the
        /// database is checked before it commits: a violation fails the migration.
        case deferred
        /// Foreign keys stay enabled: each statement is checked as it runs.
        case immediate
    }

    /// Whether the database is erased and migrated again from scratch when the registered
    /// migrations no longer describe it: a migration that was applied is no longer registered,
    /// or the schema differs from the one the applied migrations build. For development only:
    /// it destroys data.
    ///
    /// ```swift
    /// #if DEBUG
    /// migrator.eraseDatabaseOnSchemaChange = true
    /// #endif
    /// ```
    ///
    /// On an encrypted database the reference schema is built in memory, keyed as the caller's
    /// configuration keys its connections, and erasing keeps the file encrypted with its key.
    public var eraseDatabaseOnSchemaChange = false

    /// Whether migrations registered from now on with `.deferred` checks skip the final check.
    private var defersForeignKeyChecks = true

    private var registered: [Migration] = []

    /// Creates a migrator without migrations.
    public init() {}

    /// One registered migration.
    private struct Migration: Sendable {
        enum Checks: Sendable {
            case deferred, immediate, unchecked
        }

        var identifier: String
        var checks: Checks
        /// Identifiers this migration replaces; removed from the database when it runs.
        var mergedIdentifiers: Set<String>
        var migrate: @Sendable (_ db: Database, _ appliedIdentifiers: Set<String>) throws -> Void
    }

    // MARK: - Registering

    /// Registers a migration. Registering the same identifier twice is a programmer error.
    ///
    /// ```swift
    /// migrator.registerMigration("createAuthor") { db in
    ///     try db.create(table: "author") { t in
    ///         t.autoIncrementedPrimaryKey("id")
    ///         t.column("name", .text)
    ///     }
    /// }
    /// ```
    public mutating func registerMigration(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        migrate: @escaping @Sendable (Database) throws -> Void)
    {
        register(identifier, foreignKeyChecks: foreignKeyChecks, merging: []) { db, _ in try migrate(db) }
    }

    /// Registers a migration that replaces earlier ones, `mergedIdentifiers`: it runs on
    /// databases where it was not applied yet, with the merged migrations that were, and removes
    /// them from the database's list of applied migrations.
    ///
    /// ```swift
    /// // "v1" and "v2" shipped; new installations need one migration only.
    /// migrator.registerMigration("v2", merging: ["v1"]) { db, appliedIdentifiers in
    ///     if !appliedIdentifiers.contains("v1") {
    ///         try db.create(table: "player") { t in t.autoIncrementedPrimaryKey("id") }
    ///     }
    ///     // what "v2" did…
    /// }
    /// ```
    public mutating func registerMigration(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks = .deferred,
        merging mergedIdentifiers: Set<String> = [],
        migrate: @escaping @Sendable (_ db: Database, _ appliedIdentifiers: Set<String>) throws -> Void)
    {
        register(identifier, foreignKeyChecks: foreignKeyChecks, merging: mergedIdentifiers, migrate: migrate)
    }

    private mutating func register(
        _ identifier: String,
        foreignKeyChecks: ForeignKeyChecks,
        merging mergedIdentifiers: Set<String>,
        migrate: @escaping @Sendable (_ db: Database, _ appliedIdentifiers: Set<String>) throws -> Void)
    {
        precondition(
            !registered.contains { $0.identifier == identifier },
            "already registered migration: \"\(identifier)\"")
        let checks: Migration.Checks
        switch foreignKeyChecks {
        case .immediate: checks = .immediate
        case .deferred: checks = defersForeignKeyChecks ? .deferred : .unchecked
        }
        registered.append(Migration(
            identifier: identifier,
            checks: checks,
            mergedIdentifiers: mergedIdentifiers.subtracting([identifier]),
            migrate: migrate))
    }

    /// A migrator whose migrations registered from now on with `.deferred` foreign key checks
    /// run with foreign keys disabled and are not checked at the end: faster, and the
    /// application's responsibility. Migrations registered before keep their checks.
    public func disablingDeferredForeignKeyChecks() -> DatabaseMigrator {
        var migrator = self
        migrator.defersForeignKeyChecks = false
        return migrator
    }

    /// The identifiers of the registered migrations, in the order of registration.
    public var migrations: [String] {
        registered.map(\.identifier)
    }

    // MARK: - Migrating

    /// Runs the migrations that were not applied yet.
    ///
    /// ```swift
    /// try migrator.migrate(dbQueue)
    /// ```
    public func migrate(_ writer: any DatabaseWriter) throws {
        guard let last = registered.last else { return }
        try migrate(writer, upTo: last.identifier)
    }

    /// Runs the migrations that were not applied yet, up to `targetIdentifier` included.
    ///
    /// An identifier that is not registered throws; a database already migrated beyond the
    /// target is a programmer error, as in GRDB.
    public func migrate(_ writer: any DatabaseWriter, upTo targetIdentifier: String) throws {
        try writer.barrierWriteWithoutTransaction { db in
            try migrate(db, upTo: targetIdentifier)
        }
    }

    /// Runs the migrations that were not applied yet, later, and calls `completion` with the
    /// connection or the error.
    public func asyncMigrate(_ writer: any DatabaseWriter, completion: @escaping @Sendable (Result<Database, Error>) -> Void) {
        writer.asyncBarrierWriteWithoutTransaction { dbResult in
            do {
                let db = try dbResult.get()
                if let last = registered.last {
                    try migrate(db, upTo: last.identifier)
                }
                completion(.success(db))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Runs the migrations that were not applied yet.
    ///
    /// ```swift
    /// try await migrator.migrate(dbPool)
    /// ```
    public func migrate(_ writer: any DatabaseWriter) async throws {
        guard let last = registered.last else { return }
        let target = last.identifier
        try await writer.barrierWriteWithoutTransaction { db in
            try migrate(db, upTo: target)
        }
    }

    private func migrate(_ db: Database, upTo targetIdentifier: String) throws {
        guard let targetIndex = registered.firstIndex(where: { $0.identifier == targetIdentifier }) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "undefined migration: \"\(targetIdentifier)\"")
        }
        // As GRDB, migrations see the raw schema: the schema source is off while they run.
        try db.withSchemaSource(nil) {
            if eraseDatabaseOnSchemaChange, try needsErase(db) {
                try db.eraseForMigrator()
            }
            try db.execute(sql: Self.createTableSQL)
            let applied = try appliedIdentifiers(db)
            if let beyond = registered[(targetIndex + 1)...].first(where: { applied.contains($0.identifier) }) {
                preconditionFailure(
                    "database is already migrated beyond migration \"\(targetIdentifier)\" (\"\(beyond.identifier)\" is applied)")
            }
            for migration in registered[...targetIndex] {
                if applied.contains(migration.identifier) {
                    try removeMergedIdentifiers(of: migration, db, applied: applied)
                } else {
                    try run(migration, db, applied: applied)
                }
            }
        }
    }

    /// A merging migration that is already applied (an earlier version of the application
    /// ran a migration of the same name) still removes the identifiers it merges, as GRDB:
    /// otherwise they would make the database look migrated by a newer version.
    private func removeMergedIdentifiers(of migration: Migration, _ db: Database, applied: Set<String>) throws {
        let leftovers = migration.mergedIdentifiers.intersection(applied)
        if leftovers.isEmpty { return }
        try db.inTransaction(.immediate) {
            for merged in leftovers.sorted() {
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [merged])
            }
            return .commit
        }
    }

    private func run(_ migration: Migration, _ db: Database, applied: Set<String>) throws {
        let foreignKeysEnabled = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
        let disablesForeignKeys = migration.checks != .immediate && foreignKeysEnabled
        if disablesForeignKeys {
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
        }
        defer {
            if disablesForeignKeys {
                try? db.execute(sql: "PRAGMA foreign_keys = ON")
            }
        }
        try db.inTransaction(.immediate) {
            // Another process may have applied it while this one waited for the write lock.
            if try db.tableExists("grdb_migrations"),
               try Bool.fetchOne(db, sql: "SELECT 1 FROM grdb_migrations WHERE identifier = ?", arguments: [migration.identifier]) == true {
                return .commit
            }
            try migration.migrate(db, applied.intersection(migration.mergedIdentifiers))
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
            for merged in migration.mergedIdentifiers.sorted() where applied.contains(merged) {
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [merged])
            }
            if disablesForeignKeys && migration.checks == .deferred {
                try db.checkForeignKeys()
            }
            return .commit
        }
    }

    /// The bookkeeping table, as GRDB creates it.
    static let createTableSQL = "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)"

    // MARK: - Querying

    /// The identifiers of every migration applied to the database, registered or not.
    public func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        guard try db.tableExists("grdb_migrations") else { return [] }
        return try Set(String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
    }

    /// The identifiers of the registered migrations applied to the database, in the order of
    /// registration.
    public func appliedMigrations(_ db: Database) throws -> [String] {
        let applied = try appliedIdentifiers(db)
        return migrations.filter { applied.contains($0) }
    }

    /// The identifiers of the registered migrations applied to the database, each with every
    /// migration registered before it, in the order of registration.
    public func completedMigrations(_ db: Database) throws -> [String] {
        let applied = try appliedIdentifiers(db)
        return Array(migrations.prefix { applied.contains($0) })
    }

    /// Whether every registered migration was applied to the database.
    public func hasCompletedMigrations(_ db: Database) throws -> Bool {
        try completedMigrations(db).count == registered.count
    }

    /// Whether the database has applied migrations that are not registered: it was migrated by
    /// a newer version of the application.
    ///
    /// As in GRDB, the identifiers that a registered migration merges count until
    /// `migrate(_:)` removes them.
    public func hasBeenSuperseded(_ db: Database) throws -> Bool {
        let registeredIdentifiers = Set(migrations)
        return try appliedIdentifiers(db).contains { !registeredIdentifiers.contains($0) }
    }

    /// Whether the schema of the database differs from the one its applied migrations build
    /// on an empty database, or the database has applied migrations that are not registered.
    ///
    /// The reference database is a temporary file, removed afterwards, opened with the
    /// connection's configuration (so keyed like it when it is encrypted), without its
    /// target queues: it is opened from inside an access of the connection.
    public func hasSchemaChanges(_ db: Database) throws -> Bool {
        if try hasBeenSuperseded(db) { return true }
        let applied = try appliedMigrations(db)
        var configuration = db.configuration
        configuration.readonly = false
        configuration.targetQueue = nil
        configuration.writeTargetQueue = nil
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("grdbcipher-migrator-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let referenceSchema: [[String?]]
        do {
            let reference = try DatabaseQueue(path: directory.appendingPathComponent("reference.sqlite").path, configuration: configuration)
            defer { try? reference.close() }
            if let last = applied.last {
                var migrator = self
                migrator.eraseDatabaseOnSchemaChange = false
                try migrator.migrate(reference, upTo: last)
            }
            referenceSchema = try reference.read { try Self.schemaDescription($0) }
        }
        return try Self.schemaDescription(db) != referenceSchema
    }

    private func needsErase(_ db: Database) throws -> Bool {
        guard try !appliedIdentifiers(db).isEmpty else { return false }
        return try hasSchemaChanges(db)
    }

    /// The schema objects of the main database, as `sqlite_master` holds them.
    private static func schemaDescription(_ db: Database) throws -> [[String?]] {
        try Row.fetchAll(db, sql: """
            SELECT type, name, tbl_name, sql FROM main.sqlite_master
            WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            ORDER BY type, name
            """).map { row in [row[0], row[1], row[2], row[3]] }
    }
}

extension Database {
    /// Drops every schema object of the main database, in one transaction: the file keeps its
    /// encryption, key and settings.
    func eraseForMigrator() throws {
        try inTransaction(.immediate) {
            try removeAllSchemaObjects()
            return .commit
        }
    }
}
