import Dispatch
import Foundation

/// A database connection that serializes all accesses: one at a time, in order.
///
/// ```swift
/// var config = Configuration()
/// config.prepareDatabase { db in try db.usePassphrase(passphrase) }
/// let dbQueue = try DatabaseQueue(path: "/path/to/db.sqlite", configuration: config)
///
/// try dbQueue.write { db in
///     try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)")
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
/// }
/// let names = try dbQueue.read { db in
///     try String.fetchAll(db, sql: "SELECT name FROM player")
/// }
/// ```
///
/// Thread-safety: a `DatabaseQueue` can be used from any thread or task. Its access methods
/// are not reentrant: calling one from inside another is a programmer error (use
/// ``unsafeReentrantWrite(_:)`` when you must).
public final class DatabaseQueue: DatabaseWriter {
    let writer: SerializedDatabase

    /// The configuration of the connection.
    public var configuration: Configuration { writer.configuration }

    /// The path of the database file; `:memory:` for a private in-memory database.
    public var path: String { writer.path }

    /// Opens a database file, creating it if needed (unless read-only).
    ///
    /// The configuration's `prepareDatabase` functions run, then the file is read: a wrong
    /// passphrase, or a file that is not a database, throws here (SQLITE_NOTADB, 26).
    public init(path: String, configuration: Configuration = Configuration()) throws {
        let label = configuration.label ?? "GRDB.DatabaseQueue"
        writer = try SerializedDatabase(
            path: path, configuration: configuration, label: label, targetQueue: configuration.writerTargetQueue,
            keying: Database.makeKeyingSource(configuration, pool: false).makeKeying())
        if configuration.journalMode == .wal {
            try writer.sync { db in try db.setUpWALMode() }
        }
    }

    /// Opens an in-memory database: private when `name` is nil, or shared by all queues that
    /// use the same name in the process for as long as one of them is open.
    public init(named name: String? = nil, configuration: Configuration = Configuration()) throws {
        let label = configuration.label ?? "GRDB.DatabaseQueue"
        let path: String
        if let name {
            let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
            path = "file:\(encoded)?mode=memory&cache=shared"
        } else {
            path = ":memory:"
        }
        writer = try SerializedDatabase(
            path: path, configuration: configuration, label: label, targetQueue: configuration.writerTargetQueue,
            keying: Database.makeKeyingSource(configuration, pool: false).makeKeying())
    }

    /// Closes the connection. Later accesses throw SQLITE_MISUSE. Throws SQLITE_BUSY if a cursor
    /// or statement outlived its access closure.
    public func close() throws {
        try writer.close()
    }

    /// Interrupts the statement that runs, if any. Safe from any thread.
    public func interrupt() {
        writer.interrupt()
    }

    // MARK: - Reading

    /// Runs read-only operations inside a deferred transaction: writing in them throws
    /// SQLITE_READONLY, and they see no change made by another process meanwhile.
    public func read<T>(_ value: (Database) throws -> T) throws -> T {
        try writer.sync { db in
            try db.isolatedReadOnly { try value(db) }
        }
    }

    public func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await unsafeRead { db in
            try db.isolatedReadOnly { try value(db) }
        }
    }

    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        writer.asyncChecked { dbResult in
            do {
                let db = try dbResult.get()
                try db.isolatedReadOnly { value(.success(db)) }
            } catch {
                value(.failure(error))
            }
        }
    }

    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        try writer.sync(value)
    }

    public func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await awaitAccess(value, scheduledBy: asyncUnsafeRead)
    }

    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        writer.asyncChecked(value)
    }

    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        try writer.reentrantSync(value)
    }

    /// Runs `value` right away, in a read-only transaction of the connection: it sees the
    /// database as the current write access left it. Call it from a write access, outside of
    /// any transaction.
    ///
    /// A queue has a single connection, so the read does not run concurrently with later
    /// writes; code written for any ``DatabaseWriter`` gets the same values as with a
    /// ``DatabasePool``.
    ///
    /// ```swift
    /// try dbQueue.writeWithoutTransaction { db in
    ///     try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')")
    ///     dbQueue.spawnConcurrentRead { dbResult in
    ///         let count = try? Int.fetchOne(dbResult.get(), sql: "SELECT COUNT(*) FROM player")
    ///     }
    /// }
    /// ```
    public func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        precondition(writer.onQueue, "spawnConcurrentRead must be called from a write access")
        writer.reentrantSync { db in
            precondition(!db.isInsideTransaction, "spawnConcurrentRead must be called outside of any transaction")
            do {
                try db.isolatedReadOnly { value(.success(db)) }
            } catch {
                value(.failure(error))
            }
        }
    }

    // MARK: - Writing

    /// Runs operations outside of any transaction. A transaction they leave open is a
    /// programmer error, unless ``Configuration/allowsUnsafeTransactions`` is set.
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.writeWithoutTransaction(updates)
    }

    /// Same as `writeWithoutTransaction(_:)`: a queue has no concurrent reads.
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try writer.checkedWriteWithoutTransaction(updates)
    }

    public func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        writer.asyncCheckedWrite(updates)
    }

    public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        writer.asyncWriteWithoutTransaction(updates)
    }

    public func writeWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await awaitAccess(updates, scheduledBy: { completion in
            self.asyncWriteWithoutTransaction { db in completion(.success(db)) }
        })
    }

    /// Runs database operations outside of any transaction, with no concurrent reads.
    public func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await awaitAccess(updates, scheduledBy: asyncBarrierWriteWithoutTransaction)
    }

    public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.reentrantSync(updates)
    }

    /// Runs operations outside of any transaction (the GRDB 4 name of
    /// `writeWithoutTransaction(_:)`).
    public func inDatabase<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writeWithoutTransaction(updates)
    }

    /// Runs operations inside a transaction that they commit or roll back.
    public func inTransaction(
        _ kind: Database.TransactionKind? = nil,
        _ updates: (Database) throws -> Database.TransactionCompletion) throws
    {
        try writeWithoutTransaction { db in
            try db.inTransaction(kind) { try updates(db) }
        }
    }

    /// Releases memory the connection can spare.
    public func releaseMemory() {
        writer.reentrantSync { $0.releaseMemory() }
    }
}
