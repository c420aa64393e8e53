import Foundation

/// A type that sees an unchanging database content: ``DatabaseSnapshot``.
///
/// Since the content never changes, unchecked and reentrant reads are as safe as reads.
public protocol DatabaseSnapshotReader: DatabaseReader {}

extension DatabaseSnapshotReader {
    /// Runs database operations, and returns their result. The content does not change, so
    /// this is as safe as `read(_:)`.
    ///
    /// ```swift
    /// let count = try snapshot.unsafeRead { db in try Player.fetchCount(db) }
    /// ```
    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        try read(value)
    }

    /// Schedules database operations. The content does not change, so this is as safe as
    /// ``DatabaseReader/asyncRead(_:)``.
    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncRead(value)
    }

    /// Runs read-only database operations, and returns their result; it may be called from
    /// inside another access of the same reader.
    ///
    /// ```swift
    /// try snapshot.read { db in
    ///     let count = try snapshot.reentrantRead { db in try Player.fetchCount(db) }
    /// }
    /// ```
    public func reentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try unsafeReentrantRead(value)
    }
}

/// A read-only view of a database, as it was when ``DatabasePool/makeSnapshot()`` created it:
/// later writes are invisible to it. Its accesses are serialized.
///
/// ```swift
/// let snapshot = try dbPool.makeSnapshot()
/// try dbPool.write { db in try db.execute(sql: "DELETE FROM player") }
/// let count = try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") }
/// // count is the number of players before the deletion
/// ```
///
/// The snapshot keeps a read transaction open, which prevents checkpoints from completing the
/// WAL beyond it: release it when it is no longer needed.
public final class DatabaseSnapshot: DatabaseSnapshotReader {
    let connection: SerializedDatabase

    public var configuration: Configuration { connection.configuration }
    public var path: String { connection.path }

    init(connection: SerializedDatabase) throws {
        self.connection = connection
        try connection.sync { db in
            try db.beginTransaction(.deferred)
            // The first read fixes the snapshot.
            try db.fixSnapshot()
        }
    }

    public func close() throws {
        try connection.close()
    }

    public func interrupt() {
        connection.interrupt()
    }

    /// Runs read-only database operations in the snapshot, and returns their result. Once the
    /// snapshot is closed, `value` still runs and its statements throw SQLITE_MISUSE: the method
    /// only throws what `value` throws.
    ///
    /// ```swift
    /// let count = snapshot.read { db in try? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") }
    /// ```
    public func read<T>(_ value: (Database) throws -> T) rethrows -> T {
        try connection.rethrowingSync(value)
    }

    public func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await awaitAccess(value, scheduledBy: asyncRead)
    }

    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        connection.asyncChecked(value)
    }

    /// Runs database operations in the snapshot, and returns their result; only throws what
    /// `value` throws.
    ///
    /// ```swift
    /// let names = try snapshot.unsafeRead { db in try String.fetchAll(db, sql: "SELECT name FROM player") }
    /// ```
    public func unsafeRead<T>(_ value: (Database) throws -> T) rethrows -> T {
        try connection.rethrowingSync(value)
    }

    public func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await awaitAccess(value, scheduledBy: asyncRead)
    }

    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        connection.asyncChecked(value)
    }

    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try connection.reentrantSync(value)
    }
}
