import CSQLCipher
import Dispatch
import Foundation

/// A type that reads a database: ``DatabaseQueue`` (and, to come, `DatabasePool` and
/// `DatabaseSnapshot`). Write code against it to work with any of them.
///
/// ```swift
/// func playerCount(_ reader: some DatabaseReader) throws -> Int {
///     try reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")! }
/// }
/// ```
public protocol DatabaseReader: AnyObject, Sendable {
    /// The configuration of the connections.
    var configuration: Configuration { get }

    /// The path of the database file.
    var path: String { get }

    /// Closes the connections. Accesses after a close throw SQLITE_MISUSE.
    func close() throws

    /// Interrupts the statements that run, which then throw SQLITE_INTERRUPT. Safe from any
    /// thread.
    func interrupt()

    /// Runs read-only database operations, and returns their result.
    func read<T>(_ value: (Database) throws -> T) throws -> T

    /// Runs read-only database operations, and returns their result.
    func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T

    /// Schedules read-only database operations.
    func asyncRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Runs database operations that are not checked to be read-only, without isolation.
    func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T

    /// Runs database operations that are not checked to be read-only, without isolation.
    func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T

    /// Schedules database operations that are not checked to be read-only.
    func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Runs database operations, reentrantly: it may be called from another access method.
    func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T
}

/// A type that writes a database: ``DatabaseQueue`` (and, to come, `DatabasePool`).
public protocol DatabaseWriter: DatabaseReader {
    /// Runs database operations outside of any transaction, and returns their result.
    func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T

    /// Runs database operations outside of any transaction, with no concurrent reads.
    func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T

    /// Schedules database operations outside of any transaction, with no concurrent reads.
    func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, any Error>) -> Void)

    /// Schedules database operations outside of any transaction.
    func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void)

    /// Runs database operations, reentrantly: it may be called from another access method.
    func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T

    /// Runs database operations outside of any transaction.
    func writeWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T

    /// Runs database operations outside of any transaction, with no concurrent reads.
    func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T

    /// Schedules read-only database operations that see the database as the current write
    /// access left it. Call it from a write access, outside of any transaction.
    ///
    /// A ``DatabasePool`` runs `value` later, in a reader connection, and returns once that
    /// read is isolated: the writer can go on writing meanwhile (see
    /// ``DatabasePool/asyncConcurrentRead(_:)``). A ``DatabaseQueue`` has one connection: it
    /// runs `value` right away, in a read-only transaction of the writer connection.
    ///
    /// ```swift
    /// try writer.writeWithoutTransaction { db in
    ///     try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')")
    ///     writer.spawnConcurrentRead { dbResult in
    ///         let count = try? Int.fetchOne(dbResult.get(), sql: "SELECT COUNT(*) FROM player")
    ///     }
    /// }
    /// ```
    func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, any Error>) -> Void)
}

extension DatabaseWriter {
    /// Runs database operations inside a transaction, committed if they return, rolled back if
    /// they throw.
    ///
    /// ```swift
    /// let newPlayerCount = try dbQueue.write { db in
    ///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
    ///     return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
    /// }
    /// ```
    public func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction { db in
            var result: T?
            try db.inTransaction {
                result = try updates(db)
                return .commit
            }
            return result!
        }
    }

    /// Runs database operations inside a transaction, committed if they return, rolled back if
    /// they throw.
    public func write<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        try await writeWithoutTransaction { @Sendable db in
            var result: T?
            try db.inTransaction {
                result = try updates(db)
                return .commit
            }
            return result!
        }
    }

    /// Schedules database operations inside a transaction; `completion` receives their result.
    ///
    /// ```swift
    /// dbQueue.asyncWrite({ db in
    ///     try db.execute(sql: "DELETE FROM player")
    /// }, completion: { db, result in
    ///     if case .failure(let error) = result { print(error) }
    /// })
    /// ```
    public func asyncWrite<T>(
        _ updates: @escaping @Sendable (Database) throws -> T,
        completion: @escaping @Sendable (Database, Result<T, any Error>) -> Void)
    {
        asyncWriteWithoutTransaction { db in
            var value: T?
            let result = Result<T, any Error> {
                try db.inTransaction {
                    value = try updates(db)
                    return .commit
                }
                return value!
            }
            completion(db, result)
        }
    }
}

/// Bridges a callback-based access method to async/await: `schedule` runs the access later, on
/// the connection's queue, and `body` runs there while the caller awaits.
///
/// Task cancellation, as GRDB documents it: an access whose task is cancelled before it starts
/// does not run; one that runs is interrupted (`sqlite3_interrupt`), so that a write's
/// transaction rolls back; both throw `CancellationError`.
func awaitAccess<T: Sendable>(
    _ body: @Sendable (Database) throws -> T,
    scheduledBy schedule: (@escaping @Sendable (Result<Database, any Error>) -> Void) -> Void) async throws -> T
{
    try Task.checkCancellation()
    let cancellation = AccessCancellation()
    return try await withoutActuallyEscaping(body) { body in
        // The scheduled block may outlive the await by a moment: it must drop `body` before it
        // resumes the caller, or `body` would escape `withoutActuallyEscaping`.
        let holder = ClosureHolder(body)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                schedule { dbResult in
                    let result = Result<T, any Error> {
                        // Taken here, so that it is released before the caller resumes.
                        let body = holder.take()
                        let db = try dbResult.get()
                        guard cancellation.start(db) else { throw CancellationError() }
                        defer { cancellation.end() }
                        do {
                            return try body(db)
                        } catch {
                            if cancellation.isCancelled { throw CancellationError() }
                            throw error
                        }
                    }
                    continuation.resume(with: result)
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}

/// The cancellation state of one async access.
///
/// `@unchecked Sendable`: every property is guarded by `lock`.
private final class AccessCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    /// The handle of the connection the access runs in, while it runs.
    private var running: OpaquePointer?
    /// The connection the access runs in, and its progress handler, while it runs.
    private var runningDatabase: Database?
    private var progressHandler: Int?

    var isCancelled: Bool {
        lock.withLock { cancelled }
    }

    /// Marks the access as running in `db`; false if it was cancelled already.
    ///
    /// `sqlite3_interrupt` only stops the statements that run when it is called: SQLite forgets
    /// it when a statement starts while none runs. A progress handler, for the duration of the
    /// access, stops the statements that start after the cancellation too. It is registered
    /// with the connection's hooks, beside the handlers of other features (an export's progress).
    func start(_ db: Database) -> Bool {
        let started: Bool = lock.withLock {
            if cancelled { return false }
            running = db.sqliteConnection
            runningDatabase = db
            return true
        }
        if started {
            progressHandler = db.hooks.addProgressHandler { [unowned self] in self.isCancelled }
        }
        return started
    }

    func end() {
        if let progressHandler, let runningDatabase {
            runningDatabase.hooks.removeProgressHandler(progressHandler)
        }
        progressHandler = nil
        lock.withLock {
            running = nil
            runningDatabase = nil
        }
    }

    /// Cancels the access, and interrupts it if it runs. The lock makes sure the interrupt does
    /// not reach a later access of the same connection.
    func cancel() {
        lock.withLock {
            cancelled = true
            if let running { sqlite3_interrupt(running) }
        }
    }
}

/// Holds a closure until it is taken, once.
///
/// `@unchecked Sendable`: `take()` is called once, by the scheduled block, while the caller
/// awaits; nothing else touches `closure`.
final class ClosureHolder<Closure>: @unchecked Sendable {
    private var closure: Closure?

    init(_ closure: Closure) {
        self.closure = closure
    }

    func take() -> Closure {
        defer { closure = nil }
        return closure!
    }
}

/// Carries a non-Sendable value across an isolation boundary that the caller knows is safe:
/// the closure runs exactly once, while the caller awaits it.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
