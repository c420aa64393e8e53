import Dispatch
import Foundation

/// A database connection that allows concurrent accesses: one writer connection, and up to
/// ``Configuration/maximumReaderCount`` read-only connections opened on demand, in the WAL mode.
///
/// ```swift
/// var config = Configuration()
/// config.prepareDatabase { db in try db.usePassphrase(passphrase) }
/// let dbPool = try DatabasePool(path: "/path/to/db.sqlite", configuration: config)
///
/// try dbPool.write { db in
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
/// }
/// let count = try dbPool.read { db in
///     try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
/// }
/// ```
///
/// Writes are serialized; reads run in parallel with each other and with the write, and see
/// the database as the last committed transaction left it.
///
/// With a passphrase, every new SQLCipher connection derives its key (256,000 PBKDF2 rounds for
/// SQLCipher 4). The pool does it once: see ``Configuration/derivesPoolKeyOnce``.
public final class DatabasePool: DatabaseWriter {
    let writer: SerializedDatabase
    let readers: ReaderPool
    /// The reads of observations, batched (see ``BatchedReads``).
    let batchedReads: BatchedReads
    /// Nil when the pool does not cache its derived key.
    /// The keyings of the pool's connections, which share what one learns (decision 14).
    let keyingSource: any ConnectionKeyingSource

    /// The configuration of the connections.
    public let configuration: Configuration

    /// The prefix of the connections' labels.
    private let label: String
    /// The number of snapshots made so far, to label them.
    private let snapshotCount = LockedValue(0)

    /// The path of the database file.
    public var path: String { writer.path }

    /// Opens or creates a database file, and sets it to the WAL mode (unless read-only).
    ///
    /// The writer connection opens here: a wrong passphrase, or a file that is not a database,
    /// throws here (SQLITE_NOTADB, 26). Read-only connections open when reads need them.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        let label = configuration.label ?? "GRDB.DatabasePool"
        self.label = label
        let keyingSource = Database.makeKeyingSource(configuration, pool: true)
        self.keyingSource = keyingSource
        writer = try SerializedDatabase(
            path: path, configuration: configuration, label: "\(label).writer",
            targetQueue: configuration.writerTargetQueue, pool: true, keying: keyingSource.makeKeying())
        if !configuration.readonly {
            do {
                try writer.sync { db in try db.setUpWALMode() }
            } catch {
                try? writer.close()
                throw error
            }
        }
        let readers = ReaderPool(maximumCount: configuration.maximumReaderCount) { [configuration, keyingSource] index in
            try Self.openReadOnlyConnection(
                path: path, configuration: configuration, label: "\(label).reader.\(index)", keyingSource: keyingSource)
        }
        self.readers = readers
        let qos = configuration.readQoS.qosClass
        batchedReads = BatchedReads(
            maximumConcurrentBatches: BatchedReads.defaultConcurrency(maximumReaderCount: configuration.maximumReaderCount),
            acquireReader: { access in Self.batchReaderAccess(readers: readers, qos: qos, access) })
    }

    /// Opens a read-only connection, keyed from the key cache when it knows the passphrase.
    private static func openReadOnlyConnection(
        path: String,
        configuration: Configuration,
        label: String,
        keyingSource: any ConnectionKeyingSource) throws -> SerializedDatabase
    {
        var configuration = configuration
        configuration.readonly = true
        do {
            return try SerializedDatabase(
                path: path, configuration: configuration, label: label,
                targetQueue: configuration.targetQueue, pool: true, keying: keyingSource.makeKeying())
        } catch is CachedKeyRejected {
            // The file no longer opens with the cached key (replaced by another process, say):
            // forget it, and derive again from the passphrase.
            keyingSource.forgetSharedKey()
            do {
                return try SerializedDatabase(
                path: path, configuration: configuration, label: label,
                targetQueue: configuration.targetQueue, pool: true, keying: keyingSource.makeKeying())
            } catch let rejected as CachedKeyRejected {
                throw rejected.error
            }
        }
    }

    deinit {
        keyingSource.forgetSharedKey()
    }

    /// Closes every connection. Throws SQLITE_BUSY, and stays open, while a read is in progress.
    /// Later accesses throw SQLITE_MISUSE.
    public func close() throws {
        // As GRDB (CON-1): a close refused by the writer (a statement still alive) leaves the
        // pool open; once the writer is closed, a reader that can not close leaves a closed
        // pool, and a later close does nothing. Concurrent reads refuse the close first.
        try readers.beginClose()
        do {
            try writer.close()
        } catch {
            readers.cancelClose()
            throw error
        }
        keyingSource.forgetSharedKey()
        try readers.close()
    }

    /// Interrupts the statements that run on every connection of the pool.
    public func interrupt() {
        writer.interrupt()
        readers.allReaders.forEach { $0.interrupt() }
    }

    /// A read inside a read, or a barrier inside any access, is a programmer error. A read
    /// inside the writer's access is allowed, as in GRDB: it uses a reader connection, and sees
    /// the last committed state.
    private func preconditionNotReentrant(allowingWriter: Bool = false) {
        precondition((allowingWriter || !writer.onQueue) && !readers.onReaderQueue, "Database methods are not reentrant.")
    }

    // MARK: - Reading

    /// Runs read-only operations in a read-only connection, inside a transaction: they see the
    /// database as the last commit left it, whatever the writer does meanwhile.
    public func read<T>(_ value: (Database) throws -> T) throws -> T {
        preconditionNotReentrant(allowingWriter: true)
        let lease = try readers.acquire()
        defer { readers.release(lease) }
        return try lease.reader.sync { db in
            try db.isolated { try value(db) }
        }
    }

    public func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await awaitAccess(value, scheduledBy: asyncRead)
    }

    public func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncReaderAccess { dbResult in
            do {
                let db = try dbResult.get()
                try db.isolated { value(.success(db)) }
            } catch {
                value(.failure(error))
            }
        }
    }

    public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
        preconditionNotReentrant(allowingWriter: true)
        let lease = try readers.acquire()
        defer { readers.release(lease) }
        return try lease.reader.sync(value)
    }

    public func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        try await awaitAccess(value, scheduledBy: asyncUnsafeRead)
    }

    public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncReaderAccess(value)
    }

    /// Runs `value` in the connection the current thread already uses (writer or reader), or in
    /// a read-only connection.
    public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
        if writer.onQueue {
            return try writer.reentrantSync(value)
        }
        if let reader = readers.currentReader {
            return try reader.reentrantSync(value)
        }
        return try unsafeRead(value)
    }

    /// Acquires a reader off the caller's thread, then runs `access` on the reader's queue.
    private func asyncReaderAccess(_ access: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        Self.asyncReaderAccess(readers: readers, qos: configuration.readQoS.qosClass, access)
    }

    /// Acquires a reader off the caller's thread, runs `access` in it, releases it, then runs
    /// what `access` returned, on the same thread (``BatchedReads``: the work that follows the
    /// reads never holds a reader).
    private static func batchReaderAccess(
        readers: ReaderPool,
        qos: DispatchQoS.QoSClass,
        _ access: @escaping @Sendable (Result<Database, any Error>) -> BatchedReads.AfterRelease?)
    {
        DispatchQueue.global(qos: qos).async {
            let afterRelease: BatchedReads.AfterRelease?
            do {
                let lease = try readers.acquire()
                defer { readers.release(lease) }
                afterRelease = try lease.reader.sync { db in access(.success(db)) }
            } catch {
                afterRelease = access(.failure(error))
            }
            afterRelease?()
        }
    }

    private static func asyncReaderAccess(
        readers: ReaderPool,
        qos: DispatchQoS.QoSClass,
        _ access: @escaping @Sendable (Result<Database, any Error>) -> Void)
    {
        DispatchQueue.global(qos: qos).async {
            let lease: ReaderPool.Lease
            do {
                lease = try readers.acquire()
            } catch {
                access(.failure(error))
                return
            }
            lease.reader.asyncChecked { dbResult in
                defer { readers.release(lease) }
                access(dbResult)
            }
        }
    }

    /// Runs `value` later, in a read-only connection that sees the database as the writer left
    /// it at the moment of the call. Call it from a write access, outside of any transaction;
    /// it returns once the read is isolated, and the writer can go on.
    ///
    /// ```swift
    /// try dbPool.writeWithoutTransaction { db in
    ///     try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')")
    ///     dbPool.asyncConcurrentRead { dbResult in
    ///         let count = try? Int.fetchOne(dbResult.get(), sql: "SELECT COUNT(*) FROM player")
    ///     }
    /// }
    /// ```
    public func asyncConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        precondition(writer.onQueue, "asyncConcurrentRead must be called from a write access")
        precondition(!writer.db.isInsideTransaction, "asyncConcurrentRead must be called outside of any transaction")
        let lease: ReaderPool.Lease
        do {
            lease = try readers.acquire()
        } catch {
            DispatchQueue.global(qos: configuration.readQoS.qosClass).async { value(.failure(error)) }
            return
        }
        let isolated = DispatchSemaphore(value: 0)
        lease.reader.asyncChecked { [readers] dbResult in
            defer { readers.release(lease) }
            let db: Database
            do {
                db = try dbResult.get()
                try db.beginTransaction(.deferred)
                // A read makes the transaction take its snapshot of the database now.
                try db.fixSnapshot()
            } catch {
                isolated.signal()
                value(.failure(error))
                return
            }
            isolated.signal()
            value(.success(db))
            if db.isInsideTransaction {
                try? db.commit()
            }
        }
        isolated.wait()
    }

    /// Same as ``asyncConcurrentRead(_:)``: runs `value` later, in a reader connection that
    /// sees the database as the writer left it at the moment of the call.
    public func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncConcurrentRead(value)
    }

    // MARK: - Writing

    /// Runs operations in the writer connection, outside of any transaction.
    public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.writeWithoutTransaction(updates)
    }

    /// Runs operations inside a transaction of the writer connection, that they commit or roll
    /// back by returning `.commit` or `.rollback`; an error rolls back and is rethrown.
    ///
    /// ```swift
    /// try dbPool.writeInTransaction { db in
    ///     try db.execute(sql: "UPDATE account SET balance = balance - 10 WHERE id = 1")
    ///     try db.execute(sql: "UPDATE account SET balance = balance + 10 WHERE id = 2")
    ///     return .commit
    /// }
    /// ```
    ///
    /// - parameter kind: The kind of transaction: `.deferred`, `.immediate` (the default when nil,
    ///   for a pool), or `.exclusive`.
    /// - parameter updates: The transaction's work; it returns `.commit` or `.rollback`.
    public func writeInTransaction(
        _ kind: Database.TransactionKind? = nil,
        _ updates: (Database) throws -> Database.TransactionCompletion) throws
    {
        try writer.checkedWriteWithoutTransaction { db in
            try db.inTransaction(kind) { try updates(db) }
        }
    }

    /// Runs operations in the writer connection once every read has ended, and holds new reads
    /// until they return.
    ///
    /// The writer is taken before reads are held back, never the other way round: a write
    /// access may wait for a reader (`asyncConcurrentRead`), and a barrier that held readers
    /// while it waited for the writer would wait for it forever.
    public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        preconditionNotReentrant()
        return try writer.checkedWriteWithoutTransaction { db in
            try readers.barrier { try updates(db) }
        }
    }

    public func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        DispatchQueue.global(qos: configuration.writeQoS.qosClass).async { [readers, writer] in
            do {
                // The writer first, then the readers (see barrierWriteWithoutTransaction). Throws
                // only when the pool is closed: `updates` does not throw.
                try writer.sync { db in
                    readers.barrier { updates(.success(db)) }
                    writer.preconditionNoUnsafeTransactionLeft(db)
                }
            } catch {
                updates(.failure(error))
            }
        }
    }

    public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        writer.asyncWriteWithoutTransaction(updates)
    }

    public func writeWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await awaitAccess(updates, scheduledBy: { completion in
            self.writer.asyncCheckedWrite(completion)
        })
    }

    public func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await awaitAccess(updates, scheduledBy: asyncBarrierWriteWithoutTransaction)
    }

    public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
        try writer.reentrantSync(updates)
    }

    // MARK: - Connections

    /// Closes the idle read-only connections; those in use close when their read ends. Later
    /// reads open new connections, which run `prepareDatabase` again. The pool's derived key is
    /// wiped, and derived again from the next passphrase.
    ///
    /// Call it after a passphrase change (GRDB's procedure), or ``changePassphrase(_:)-(String)``
    /// on the pool, which does it for you.
    public func invalidateReadOnlyConnections() {
        keyingSource.forgetSharedKey()
        readers.invalidate()
    }

    /// Frees as much memory as possible: the writer's caches, and the idle read-only connections
    /// (unless ``Configuration/persistentReadOnlyConnections``).
    public func releaseMemory() {
        writer.reentrantSync { $0.releaseMemory() }
        releaseReadersMemory { reader in reader.reentrantSync { $0.releaseMemory() } }
    }

    /// Frees memory like ``releaseMemory()``, without blocking: the writer releases its caches
    /// once its current work is done.
    public func releaseMemoryEventually() {
        writer.async { $0.releaseMemory() }
        releaseReadersMemory { reader in reader.async { $0.releaseMemory() } }
    }

    /// Closes the idle readers, or, when they are persistent, has `release` free their caches.
    private func releaseReadersMemory(_ release: (SerializedDatabase) -> Void) {
        if configuration.persistentReadOnlyConnections {
            readers.forEachIdleReader(release)
        } else {
            readers.invalidate()
        }
    }

    /// A snapshot of the database as it is now: a read-only connection that keeps seeing this
    /// state, whatever is written later.
    ///
    /// ```swift
    /// let snapshot = try dbPool.makeSnapshot()
    /// let count = try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") }
    /// ```
    public func makeSnapshot() throws -> DatabaseSnapshot {
        let number = snapshotCount.update { count in
            count += 1
            return count
        }
        return try DatabaseSnapshot(connection: Self.openReadOnlyConnection(
            path: path, configuration: configuration, label: "\(label).snapshot.\(number)", keyingSource: keyingSource))
    }
}
