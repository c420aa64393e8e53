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
        try (self as? DatabasePool)?.writer.checkNotStartingPoolObservation()
        return try writeWithoutTransaction { db in
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
/// the connection's queue, and `body` runs there, **in the calling task**, while the caller
/// awaits.
///
/// As in GRDB, the closure runs in the caller's task, on an actor whose executor schedules the
/// access and runs the task's one job inside the block that holds the connection, on its queue
/// (``AccessExecutor``). So task-local values are visible in `body`, and `Task.isCancelled`
/// tells whether the task was cancelled.
///
/// Task cancellation, as GRDB: an access whose task is cancelled before it starts does not
/// run; once the task is cancelled, every later statement of the access throws
/// `CancellationError` (rollbacks excepted, so a write's transaction rolls back and its commit
/// is refused), and a statement that runs is interrupted. The access throws
/// `CancellationError`.
func awaitAccess<T: Sendable>(
    _ body: @Sendable (Database) throws -> T,
    scheduledBy schedule: @escaping (@escaping @Sendable (Result<Database, any Error>) -> Void) -> Void) async throws -> T
{
    try Task.checkCancellation()
    let cancellation = AccessCancellation()
    if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *) {
        let access = AccessActor(executor: AccessExecutor(schedule: UncheckedSendable(schedule)))
        return try await withTaskCancellationHandler {
            try await access.run(cancellation: cancellation, body)
        } onCancel: {
            cancellation.cancel()
        }
    }
    // Without custom actor executors: the closure runs on the queue, outside the task.
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
                        return try cancellation.run(body, in: db)
                    }
                    continuation.resume(with: result)
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}

/// The executor of one async access. The calling task enters the access actor with one job:
/// the executor schedules the access with it, and runs it inside the block that holds the
/// connection, on the connection's queue, with the connection at hand. The access never waits
/// for a thread of the task pool, and the pool never waits for the connection.
///
/// `@unchecked Sendable`: `scheduled` is guarded by `lock`; `dbResult` is set by the block
/// that runs the job, before it runs it, and only read by that job.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
private final class AccessExecutor: SerialExecutor, @unchecked Sendable {
    private let schedule: UncheckedSendable<(@escaping @Sendable (Result<Database, any Error>) -> Void) -> Void>
    private let lock = NSLock()
    private var scheduled = false
    private var dbResult: Result<Database, any Error>?

    init(schedule: UncheckedSendable<(@escaping @Sendable (Result<Database, any Error>) -> Void) -> Void>) {
        self.schedule = schedule
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        let first: Bool = lock.withLock {
            defer { scheduled = true }
            return !scheduled
        }
        guard first else {
            // Not expected: the access is one job. Run it anyway, off the connection.
            DispatchQueue.global().async { job.runSynchronously(on: executor) }
            return
        }
        schedule.value { dbResult in
            self.dbResult = dbResult
            job.runSynchronously(on: executor)
        }
    }

    /// The connection of the access, in the job that the block holding it runs.
    func takeDatabase() throws -> Database {
        guard let dbResult else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "async access without a connection")
        }
        self.dbResult = nil
        return try dbResult.get()
    }
}

/// The actor an async access runs its closure on, in the calling task (task-local values,
/// `Task.isCancelled`): its executor runs it on the connection's queue.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
private actor AccessActor {
    nonisolated let executor: AccessExecutor

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    init(executor: AccessExecutor) {
        self.executor = executor
    }

    /// Synchronous: the whole access is the one job the executor runs with the connection.
    func run<T: Sendable>(cancellation: AccessCancellation, _ body: @Sendable (Database) throws -> T) throws -> T {
        try cancellation.run(body, in: executor.takeDatabase())
    }
}

/// The cancellation state of one async access.
///
/// `@unchecked Sendable`: every property is guarded by `lock`.
final class AccessCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    /// The handle of the connection the access runs in, while it runs.
    private var running: OpaquePointer?
    /// The connection the access runs in, and its progress handler, while it runs.
    private var runningDatabase: Database?
    private var progressHandler: Int?
    /// Whether a statement exempt from cancellation runs (a rollback): it is not interrupted.
    private var exemptDepth = 0

    var isCancelled: Bool {
        lock.withLock { cancelled }
    }

    /// Whether a statement that starts now must throw `CancellationError`, and a running one
    /// be interrupted.
    private var interruptsStatements: Bool {
        lock.withLock { cancelled && exemptDepth == 0 }
    }

    /// Runs the closure of the access in `db`: not at all when the task was cancelled before;
    /// a transaction the closure left open after the cancellation (its COMMIT refused) is
    /// rolled back; an error after the cancellation is `CancellationError`.
    func run<T>(_ body: (Database) throws -> T, in db: Database) throws -> T {
        guard start(db) else { throw CancellationError() }
        defer { end() }
        let wasInsideTransaction = db.isInsideTransaction
        do {
            let value = try body(db)
            if isCancelled && !wasInsideTransaction && db.isInsideTransaction {
                db.exemptFromCancellation { db.endTransactionForcibly() }
                throw CancellationError()
            }
            return value
        } catch {
            if isCancelled {
                if !wasInsideTransaction && db.isInsideTransaction {
                    db.exemptFromCancellation { db.endTransactionForcibly() }
                }
                throw CancellationError()
            }
            throw error
        }
    }

    /// Marks the access as running in `db`; false if it was cancelled already.
    ///
    /// `sqlite3_interrupt` only stops the statements that run when it is called: SQLite forgets
    /// it when a statement starts while none runs. The connection checks the cancellation
    /// before each statement (``Database/statementWillRun(_:)``), and a progress handler, for
    /// the duration of the access, stops long statements. It is registered with the
    /// connection's hooks, beside the handlers of other features (an export's progress).
    func start(_ db: Database) -> Bool {
        let started: Bool = lock.withLock {
            if cancelled { return false }
            running = db.sqliteConnection
            runningDatabase = db
            return true
        }
        if started {
            db.accessCancellation = self
            progressHandler = db.hooks.addProgressHandler { [unowned self] in self.interruptsStatements }
        }
        return started
    }

    func end() {
        if let progressHandler, let runningDatabase {
            runningDatabase.hooks.removeProgressHandler(progressHandler)
            runningDatabase.accessCancellation = nil
        }
        progressHandler = nil
        lock.withLock {
            running = nil
            runningDatabase = nil
        }
    }

    /// Whether an exempt statement runs (``exempting(_:)``).
    var isExempting: Bool {
        lock.withLock { exemptDepth > 0 }
    }

    /// Runs `body` (a rollback, the library's cleanup) safe from the cancellation: its
    /// statements are neither refused nor interrupted.
    func exempting<R>(_ body: () throws -> R) rethrows -> R {
        lock.withLock { exemptDepth += 1 }
        defer { lock.withLock { exemptDepth -= 1 } }
        return try body()
    }

    /// Cancels the access, and interrupts it if it runs a statement that is not exempt. The
    /// lock makes sure the interrupt does not reach a later access of the same connection.
    func cancel() {
        lock.withLock {
            cancelled = true
            if let running, exemptDepth == 0 { sqlite3_interrupt(running) }
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
