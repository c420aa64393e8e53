import CSQLCipher
import Dispatch
import Foundation

/// The identity of a queue of the library, stored under a process-wide key: the current thread
/// runs on that queue when the key's value is this very object. One key for the whole process,
/// and an identity per queue, as GRDB does: a key per connection could be found, by address, in
/// queue-specific values that other code left behind with short-lived keys (OBS-7).
final class QueueIdentity: Sendable {
    /// Set on the queue of each connection.
    static let connectionKey = DispatchSpecificKey<QueueIdentity>()
    /// Set on the queue of each reader of a pool, to the identity of the pool's readers.
    static let readerPoolKey = DispatchSpecificKey<QueueIdentity>()

    /// Whether the current thread runs on a queue whose value for `key` is this identity.
    func isCurrent(_ key: DispatchSpecificKey<QueueIdentity>) -> Bool {
        DispatchQueue.getSpecific(key: key) === self
    }
}

/// A connection confined to a serial dispatch queue: every access runs on that queue, one at a
/// time.
///
/// `@unchecked Sendable`: the `Database` is only touched from `queue`; `sync` refuses reentrant
/// calls, and the other stored properties are immutable or only read on `queue`.
final class SerializedDatabase: @unchecked Sendable {
    let db: Database
    let queue: DispatchQueue
    let path: String
    let configuration: Configuration
    /// The value of ``QueueIdentity/connectionKey`` on this connection's queue.
    private let queueIdentity = QueueIdentity()
    /// The SQLite handle, for `sqlite3_interrupt`, which is safe from any thread.
    private let interruptHandle: OpaquePointer?
    private let closeLock = NSLock()
    private var isClosed = false

    /// Opens a connection and runs its setup on its queue.
    ///
    /// - parameter pool: whether the connection belongs to a ``DatabasePool``.
    /// - parameter keying: how the connection is keyed when it opens (from the queue's or the
    ///   pool's keying source).
    init(
        path: String,
        configuration: Configuration,
        label: String,
        targetQueue: DispatchQueue?,
        pool: Bool = false,
        keying: any ConnectionKeying) throws
    {
        self.path = path
        self.configuration = configuration
        let queue: DispatchQueue
        if let target = targetQueue {
            // No QoS of its own: with one, libdispatch would swap a global target for the
            // global queue of that QoS, and accesses would no longer run on `target`.
            queue = DispatchQueue(label: label, target: target)
        } else {
            queue = DispatchQueue(label: label, qos: configuration.qos)
        }
        self.queue = queue
        queue.setSpecific(key: QueueIdentity.connectionKey, value: queueIdentity)
        let db = try Database(path: path, description: label, configuration: configuration, keying: keying)
        self.db = db
        interruptHandle = db.sqliteConnection
        db.accessQueueIdentity = queueIdentity
        db.isPoolConnection = pool
        do {
            try queue.sync {
                do {
                    try db.setUp()
                } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB && db.keying.usedSharedKey {
                    throw CachedKeyRejected(error: error)
                }
            }
        } catch {
            try? queue.sync { try db.close() }
            throw error
        }
    }

    deinit {
        let db = self.db
        if onQueue {
            try? db.close()
        } else {
            queue.sync { try? db.close() }
        }
    }

    /// Whether the current thread runs on this connection's queue.
    var onQueue: Bool {
        queueIdentity.isCurrent(QueueIdentity.connectionKey)
    }

    /// Runs `block` on the queue; throws SQLITE_MISUSE without running it once the connection
    /// is closed. Calling it from the queue is a programmer error.
    func sync<T>(_ block: (Database) throws -> T) throws -> T {
        try checkNotStartingPoolObservation()
        precondition(!onQueue, "Database methods are not reentrant.")
        return try queue.sync {
            try preconditionOpen()
            db.beginAccess()
            return try CurrentAccesses.run(db) { try block(db) }
        }
    }

    /// The initial fetch of an observation of a pool runs in the writer: a write from it
    /// would be reentrant. It throws, rather than the fatal error of reentrant accesses (OBS-5).
    func checkNotStartingPoolObservation() throws {
        // `onQueue` first: the flag is only read on the connection's queue.
        if onQueue && db.startsPoolObservation {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "a ValueObservation of a DatabasePool can not write from its initial fetch (it runs in the writer connection)")
        }
    }

    /// Runs `block` on the queue, even once the connection is closed: then its statements throw
    /// SQLITE_MISUSE. For GRDB's `rethrows` access methods, which may only throw what `block`
    /// throws.
    func rethrowingSync<T>(_ block: (Database) throws -> T) rethrows -> T {
        precondition(!onQueue, "Database methods are not reentrant.")
        return try queue.sync {
            db.beginAccess()
            return try CurrentAccesses.run(db) { try block(db) }
        }
    }

    /// Runs `block` on the queue, or right away when already on it (closed or not, as
    /// ``rethrowingSync(_:)``).
    func reentrantSync<T>(_ block: (Database) throws -> T) rethrows -> T {
        if onQueue {
            return try block(db)
        }
        return try rethrowingSync(block)
    }

    /// Runs `block` on the queue, later.
    func async(_ block: @escaping @Sendable (Database) -> Void) {
        queue.async { [self] in
            db.beginAccess()
            CurrentAccesses.run(db) { block(db) }
        }
    }

    /// Runs `block` on the queue, later, with the connection or the error that says it is closed.
    func asyncChecked(_ block: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        queue.async { [self] in
            do {
                try preconditionOpen()
            } catch {
                block(.failure(error))
                return
            }
            db.beginAccess()
            CurrentAccesses.run(db) { block(.success(db)) }
        }
    }

    private func preconditionOpen() throws {
        closeLock.lock()
        defer { closeLock.unlock() }
        if isClosed {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed")
        }
    }

    /// Interrupts the statement that runs, if any. Safe from any thread.
    func interrupt() {
        closeLock.lock()
        defer { closeLock.unlock() }
        if !isClosed, let interruptHandle {
            sqlite3_interrupt(interruptHandle)
        }
    }

    /// Closes the connection; later accesses throw.
    func close() throws {
        let body = { [self] in
            // The lock is held while SQLite frees the connection: an interrupt from another
            // thread waits, then sees the connection closed, and never touches freed memory.
            closeLock.lock()
            defer { closeLock.unlock() }
            if isClosed { return }
            // A close refused for a statement still alive (SQLITE_BUSY) leaves the connection
            // open, as GRDB; any other failure leaves a zombie handle that SQLite frees later.
            do {
                try db.close()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && db.sqliteConnection != nil {
                throw error
            } catch {
                isClosed = true
                throw error
            }
            isClosed = true
        }
        if onQueue {
            try body()
        } else {
            try queue.sync(execute: body)
        }
    }

    /// Checks, after an access, that no transaction was left open.
    func preconditionNoUnsafeTransactionLeft(_ db: Database) {
        if !configuration.allowsUnsafeTransactions && db.isInsideTransaction {
            // Roll back so that the connection stays usable, then report the programmer error.
            try? db.rollback()
            preconditionFailure("A transaction has been left opened at the end of a database access")
        }
    }
}

/// A pool connection keyed from the pool's key cache did not open: the file no longer takes
/// that key (it was replaced, or re-keyed by another process).
struct CachedKeyRejected: Error {
    var error: DatabaseError
}

// MARK: - Writer accesses, shared by DatabaseQueue and DatabasePool

extension SerializedDatabase {
    /// Runs `updates` outside of any transaction; a transaction left open is a programmer error
    /// unless the configuration allows it.
    func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T {
        // GRDB's `rethrows` signature: once closed, `updates` runs and its statements throw.
        try rethrowingSync { db in
            defer { preconditionNoUnsafeTransactionLeft(db) }
            return try updates(db)
        }
    }

    /// Same as ``writeWithoutTransaction(_:)``, for the access methods that throw: SQLITE_MISUSE
    /// once the connection is closed.
    func checkedWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try sync { db in
            defer { preconditionNoUnsafeTransactionLeft(db) }
            return try updates(db)
        }
    }

    /// Schedules `updates` outside of any transaction.
    func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
        async { db in
            updates(db)
            self.preconditionNoUnsafeTransactionLeft(db)
        }
    }

    /// Schedules `updates` with the connection, or the error that says it is closed.
    func asyncCheckedWrite(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void) {
        asyncChecked { dbResult in
            updates(dbResult)
            if case .success(let db) = dbResult {
                self.preconditionNoUnsafeTransactionLeft(db)
            }
        }
    }
}
