import Foundation
import GRDBCipher
import Logging
import Metrics
import ServiceLifecycle

/// How a ``DatabaseService`` keys its database.
public struct DatabaseServiceKey: Sendable {
    enum Kind: Sendable {
        case keyring(KeySource, slot: String?, keyringPath: String?)
        case configuration
    }

    let kind: Kind

    /// The database's keyring (docs/KeyManagement.md), unlocked with the secret of a key
    /// source: a systemd credential, a key file, an environment variable. Never the command
    /// line. The service forgets the keyring's keys when it stops.
    ///
    /// ```swift
    /// let service = try DatabaseService(
    ///     path: "/var/lib/notes/notes.db",
    ///     key: .keyring(.credential("notes-db-key")),
    ///     logger: logger)
    /// ```
    public static func keyring(_ source: KeySource, slot: String? = nil, keyringPath: String? = nil) -> DatabaseServiceKey {
        DatabaseServiceKey(kind: .keyring(source, slot: slot, keyringPath: keyringPath))
    }

    /// The configuration keys the connections itself (its `prepareDatabase` calls
    /// `usePassphrase`), or nothing does: a plaintext database.
    public static let configuration = DatabaseServiceKey(kind: .configuration)
}

/// What a ``DatabaseService`` logs and measures, and how it stops.
public struct DatabaseServiceOptions: Sendable {
    /// Statements that run longer are logged at the warning level, with their SQL and never
    /// their arguments. Nil: none is.
    public var slowStatementThreshold: Duration? = .milliseconds(250)
    /// How long a graceful shutdown waits for the accesses in progress before it interrupts
    /// them; the service stops within about twice this time.
    public var shutdownTimeout: Duration = .seconds(10)
    /// How often the size of the WAL is measured.
    public var walSizeInterval: Duration = .seconds(15)
    /// Where metrics go; nil: the factory bootstrapped with `MetricsSystem`.
    public var metricsFactory: (any MetricsFactory)?

    public init() {}
}

/// An encrypted database in a Swift service: a `Service` of swift-service-lifecycle that owns
/// a ``DatabasePool``.
///
/// The initializer opens the pool and runs the migrations: the database is ready when it
/// returns, before the service group starts. ``run()`` measures the WAL until a graceful
/// shutdown; then the accesses in progress finish (interrupted after
/// ``DatabaseServiceOptions/shutdownTimeout``), the WAL is checkpointed (`TRUNCATE`), the pool
/// closes and the keyring forgets its keys.
///
/// ```swift
/// let database = try DatabaseService(
///     path: "/var/lib/notes/notes.db",
///     key: .keyring(.credential("notes-db-key")),
///     migrator: migrator,
///     logger: logger)
/// let group = ServiceGroup(configuration: .init(
///     services: [.init(service: database), .init(service: server, successTerminationBehavior: .gracefullyShutdownGroup)],
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: logger))
/// try await group.run()
/// ```
public final class DatabaseService: Service, Sendable {
    /// The pool. Prefer ``read(_:)`` and ``write(_:)``, which measure the waits and count
    /// the errors; the pool's own methods work too.
    public let writer: DatabasePool
    public let logger: Logger
    let metrics: DatabaseMetrics
    let options: DatabaseServiceOptions
    private let keyring: DatabaseKeyring?
    let path: String
    /// The configuration of the pool's connections, keyed, without the service's tracing:
    /// backups open their files with it.
    let connectionConfiguration: Configuration

    /// Opens the database and runs the migrations.
    ///
    /// Throws ``DatabaseServiceError/schemaIsNewer``, before any migration, when the database
    /// has migrations `migrator` does not know: a newer version of the service migrated it.
    ///
    /// - parameter configure: changes the configuration of the pool's connections. With
    ///   ``DatabaseServiceKey/keyring(_:slot:keyringPath:)``, the configuration it receives
    ///   already keys each connection first; its own `prepareDatabase` functions run after.
    public init(
        path: String,
        key: DatabaseServiceKey,
        migrator: DatabaseMigrator? = nil,
        options: DatabaseServiceOptions = DatabaseServiceOptions(),
        logger: Logger,
        configure: (inout Configuration) -> Void = { _ in }) throws
    {
        let metrics = DatabaseMetrics(factory: options.metricsFactory)
        let (connectionConfiguration, keyring) = try Self.keyedConfiguration(path: path, key: key, configure: configure)
        var configuration = connectionConfiguration
        if let threshold = options.slowStatementThreshold {
            let seconds = Double(threshold.components.seconds) + Double(threshold.components.attoseconds) / 1e18
            configuration.prepareDatabase { db in
                db.trace(options: .profile) { event in
                    guard case .profile(let statement, let duration) = event, duration >= seconds else { return }
                    // The SQL with its placeholders: the arguments may be secrets.
                    logger.warning("slow statement", metadata: [
                        "sql": "\(statement.sql)",
                        "duration_ms": "\(Int((duration * 1000).rounded()))",
                    ])
                }
            }
        }
        do {
            writer = try DatabasePool(path: path, configuration: configuration)
            if let migrator {
                // A database migrated by a newer version of the service: this one does not
                // know its schema, and must not serve it.
                if try writer.read({ try migrator.hasBeenSuperseded($0) }) {
                    throw DatabaseServiceError.schemaIsNewer
                }
                try migrator.migrate(writer)
            }
        } catch {
            keyring?.forget()
            if let error = error as? DatabaseError { metrics.recordError(error) }
            logger.error("the database did not open", metadata: ["path": "\(path)", "error": "\(error)"])
            throw error
        }
        self.keyring = keyring
        self.connectionConfiguration = connectionConfiguration
        self.metrics = metrics
        self.options = options
        self.logger = logger
        self.path = path
        logger.info("database ready", metadata: ["path": "\(path)", "keyring": "\(keyring != nil)"])
    }

    /// The configuration of connections to the database at `path`, keyed as `key` says, then
    /// changed by `configure`; and the unlocked keyring, if any.
    static func keyedConfiguration(
        path: String,
        key: DatabaseServiceKey,
        configure: (inout Configuration) -> Void) throws -> (Configuration, DatabaseKeyring?)
    {
        var configuration = Configuration()
        var keyring: DatabaseKeyring?
        if case .keyring(let source, let slot, let keyringPath) = key.kind {
            let unlocked = try DatabaseKeyring.unlock(databaseAt: path, keyringPath: keyringPath, with: source, slot: slot)
            keyring = unlocked
            configuration.prepareDatabase { db in try db.useKeyring(unlocked) }
        }
        configure(&configuration)
        return (configuration, keyring)
    }

    /// Serves until a graceful shutdown (or the task's cancellation), measuring the WAL; then
    /// stops: see ``DatabaseService``.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                self.measureWAL()
                try? await Task.sleep(for: self.options.walSizeInterval)
            }
        }
        try await shutDown()
    }

    /// Lets the accesses in progress finish (interrupting them after the shutdown timeout),
    /// checkpoints the WAL, closes the pool and forgets the keys.
    func shutDown() async throws {
        logger.info("database stopping", metadata: ["path": "\(path)"])
        defer { keyring?.forget() }
        let writer = self.writer
        let metrics = self.metrics
        let checkpoint = Task { () throws -> Void in
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // On a thread of its own: the barrier blocks until the reads and the writes
                // in progress end (and holds new ones), which must not take a thread of the
                // concurrency pool, where the shutdown's timers run.
                Thread.detachNewThread {
                    do {
                        let start = ContinuousClock.now
                        _ = try writer.barrierWriteWithoutTransaction { db in try db.checkpoint(.truncate) }
                        metrics.checkpointDuration.recordNanoseconds(start.duration(to: .now).nanoseconds)
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
        if await !finishes(checkpoint, within: options.shutdownTimeout) {
            logger.warning("database accesses still running at the shutdown timeout: interrupting their statements")
            writer.interrupt()
            if await !finishes(checkpoint, within: options.shutdownTimeout) {
                // An access that does not run SQL cannot be interrupted: the service stops
                // anyway, and the pool closes when that access ends.
                logger.error("database accesses still running after their interruption: stopping without closing the database")
                throw DatabaseServiceError.shutdownTimedOut
            }
        }
        do {
            try await checkpoint.value
        } catch {
            logger.warning("the WAL was not checkpointed before closing", metadata: ["error": "\(error)"])
        }
        // Accesses queued behind the barrier (a health check, a late request) run when it
        // ends: closing waits for them, up to the timeout.
        let deadline = ContinuousClock.now.advanced(by: options.shutdownTimeout)
        while true {
            do {
                try writer.close()
                break
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        logger.info("database closed", metadata: ["path": "\(path)"])
    }

    /// Whether `task` ends within `timeout`.
    private func finishes(_ task: Task<Void, any Error>, within timeout: Duration) async -> Bool {
        await result(of: task, within: timeout) != nil
    }

    func measureWAL() {
        let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
        metrics.walSize.record(size)
    }
}

/// Errors of the service itself.
public enum DatabaseServiceError: Error, CustomStringConvertible {
    /// Accesses were still running after the shutdown timeout and their interruption.
    case shutdownTimedOut
    /// The database has migrations this service does not know: a newer version of the service
    /// migrated it.
    case schemaIsNewer
    /// A backup was asked into an existing file.
    case backupExists(String)
    /// A backup, or a copy made to restore one, failed its checks.
    case backupNotVerified(String, String)
    /// A file could not be synced or renamed (the path or operation, and `errno`).
    case fileSystem(String, Int32)

    public var description: String {
        switch self {
        case .shutdownTimedOut: "database accesses were still running after the shutdown timeout and their interruption"
        case .schemaIsNewer: "the database was migrated by a newer version of the service (it has migrations this one does not know): restore a backup of this version, or run the newer version"
        case .backupExists(let path): "a file exists at \(path): a backup never replaces one"
        case let .backupNotVerified(path, problem): "the copy at \(path) failed its checks (\(problem)); nothing was replaced"
        case let .fileSystem(operation, code): "\(operation) failed: \(String(cString: strerror(code)))"
        }
    }
}

extension Duration {
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}

extension DatabaseService {
    /// Stops as a graceful shutdown does, outside of a service group (tools, tests): the
    /// accesses in progress finish, the WAL is checkpointed, the pool closes, the keys are
    /// forgotten.
    public func stop() async throws {
        try await shutDown()
    }
}
