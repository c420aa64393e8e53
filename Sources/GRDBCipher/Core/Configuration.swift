import Dispatch
import Foundation

/// The configuration of a database connection.
///
/// ```swift
/// var config = Configuration()
/// config.readonly = true
/// config.foreignKeysEnabled = true // the default
/// config.label = "MyDatabase"
/// config.prepareDatabase { db in
///     try db.usePassphrase(try loadPassphrase())
/// }
/// let dbQueue = try DatabaseQueue(path: "/path/to/database.sqlite", configuration: config)
/// ```
public struct Configuration: Sendable {
    /// Whether foreign key constraints are enforced. Default: true.
    public var foreignKeysEnabled = true

    /// Whether the connection opens the database read-only. Default: false.
    public var readonly = false

    /// A label for the connection, used in its description and its dispatch queue name.
    public var label: String? = nil

    /// Whether statement arguments may appear in error descriptions and trace events.
    /// Default: false, so that personal data and secrets stay out of logs.
    public var publicStatementArguments = false

    /// Whether SQL accepts double-quoted string literals (a legacy SQLite misfeature).
    /// Default: false: `"name"` is always an identifier.
    public var acceptsDoubleQuotedStringLiterals = false

    /// Defines how the journal mode is configured when the connection opens. Default:
    /// `.default` (see ``Configuration/JournalModeConfiguration``).
    public var journalMode: JournalModeConfiguration = .default

    /// How the connection reacts when the database is locked by another connection.
    /// Default: ``Database/BusyMode/immediateError``.
    public var busyMode: Database.BusyMode = .immediateError

    /// Whether a transaction may be left open at the end of a database access. Default: false.
    public var allowsUnsafeTransactions = false

    /// The maximum number of concurrent readers of a database pool. Default: 5.
    public var maximumReaderCount = 5

    /// Whether a pool keeps its read-only connections open. Default: false.
    public var persistentReadOnlyConnections = false

    /// Whether a ``DatabasePool`` derives its SQLCipher key from the passphrase only once
    /// (GRDBCipher addition). Default: true.
    ///
    /// When true, the first connection keyed with ``Database/usePassphrase(_:)-(String)`` derives
    /// its key the usual way; the pool then derives the same key with OpenSSL, checks that it
    /// opens the file, and keys its later connections with it when their `prepareDatabase` gives
    /// the same passphrase: a new reader opens in well under a millisecond instead of paying
    /// SQLCipher 4's 256,000 PBKDF2 rounds. The derived key stays in memory, and is wiped when
    /// the pool closes, when ``DatabasePool/invalidateReadOnlyConnections()`` runs, and when the
    /// passphrase changes. Set it to false to keep no key material in the pool.
    public var derivesPoolKeyOnce = true

    /// Whether the connection listens to suspension notifications. Accepted for compatibility;
    /// it has no effect on Linux.
    public var observesSuspensionNotifications = false

    /// The quality of service of the connection's dispatch queues.
    public var qos: DispatchQoS = .default

    /// The target queue of the connection's dispatch queues, if any.
    public var targetQueue: DispatchQueue? = nil

    /// The target queue of the dispatch queue of a writer connection (a ``DatabaseQueue``, or
    /// a pool's writer), if any. When nil, ``targetQueue`` is used. Ignored by read-only
    /// configurations.
    public var writeTargetQueue: DispatchQueue? = nil

    /// The target queue of a writer connection's dispatch queue.
    var writerTargetQueue: DispatchQueue? {
        readonly ? targetQueue : (writeTargetQueue ?? targetQueue)
    }

    /// The source of the schema information that SQLite can not give, such as the primary key
    /// of a view. Default: nil.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.schemaSource = AppSchemaSource()
    /// ```
    ///
    /// See ``DatabaseSchemaSource``.
    public var schemaSource: (any DatabaseSchemaSource)? = nil

    var setUpFunctions: [@Sendable (Database) throws -> Void] = []

    /// Creates the default configuration.
    /// The clock of ``Database/transactionDate`` (default: the current date, read once per
    /// transaction).
    public var transactionClock: any TransactionClock = DefaultTransactionClock()

    /// A configuration with the default values.
    public init() {}

    /// Adds a function that runs on every new connection, before it is used. This is where a
    /// passphrase is given:
    ///
    /// ```swift
    /// config.prepareDatabase { db in
    ///     try db.usePassphrase(passphrase) // read from a key file or the environment
    /// }
    /// ```
    public mutating func prepareDatabase(_ setup: @escaping @Sendable (Database) throws -> Void) {
        setUpFunctions.append(setup)
    }
}

extension Configuration {
    /// How the journal mode is configured when a connection opens.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.journalMode = .wal
    /// let dbQueue = try DatabaseQueue(path: path, configuration: config) // PRAGMA journal_mode = WAL
    /// ```
    public enum JournalModeConfiguration: Sendable {
        /// The default: a ``DatabaseQueue`` leaves SQLite's journal mode as the file has it
        /// (usually `DELETE`); a ``DatabasePool`` sets the WAL mode.
        case `default`
        /// The WAL journal mode, for a ``DatabaseQueue`` too.
        ///
        /// Related SQLite documentation: <https://www.sqlite.org/wal.html>
        case wal
    }

    /// The effective quality of service of read-only database accesses: the one of
    /// ``targetQueue`` when there is one, or else ``qos``.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.qos = .userInitiated
    /// config.readQoS // .userInitiated
    /// ```
    public var readQoS: DispatchQoS {
        targetQueue?.qos ?? qos
    }

    /// The effective quality of service of write database accesses: the one of
    /// ``writeTargetQueue`` when there is one, or else the one of ``targetQueue``, or else
    /// ``qos``.
    public var writeQoS: DispatchQoS {
        writeTargetQueue?.qos ?? targetQueue?.qos ?? qos
    }
}
