import CSQLCipher
import Foundation

/// An SQLite connection.
///
/// You do not create a `Database` yourself: a ``DatabaseQueue`` gives one to the closures of its
/// access methods. Use it only inside the closure that received it.
///
/// ```swift
/// try dbQueue.write { db in
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
///     let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")!
/// }
/// ```
///
/// Thread-safety: not thread-safe; a connection is confined to its serial dispatch queue.
public final class Database {
    /// The SQLite connection handle; nil once the connection is closed.
    @exclusivity(unchecked) public private(set) var sqliteConnection: SQLiteConnection?

    /// The configuration of the connection.
    public let configuration: Configuration

    /// A description of the connection, from the configuration label.
    public let description: String

    /// The path of the database file (`:memory:` for a private in-memory database).
    let path: String

    /// Analyzes the statements the connection compiles (see ``StatementAnalysis``).
    let authorizer = StatementAuthorizer()

    /// The owner of the commit, rollback and update hooks and of the progress handler, and the
    /// broker of transaction observers.
    let hooks = ConnectionHooks()

    /// The region read by the fetches of the observation that tracks them, if any (see
    /// ``registerAccess(to:)``).
    @exclusivity(unchecked) var trackedRegion: DatabaseRegion?

    /// The user's statements, by SQL: ``cachedStatement(sql:)``.
    private var userStatements: [String: Statement] = [:]

    /// The library's statements (raw-SQL fetches, the query interface, the library's own SQL),
    /// bounded in number.
    private(set) var libraryStatements = StatementCache(capacity: 256)

    /// How the connection is keyed when it opens (decision 14: Core is handed it).
    let keying: any ConnectionKeying

    /// Whether a key was given to the connection.
    var isEncrypted: Bool { keying.isEncrypted }

    /// Whether the connection belongs to a ``DatabasePool``.
    var isPoolConnection = false

    /// Whether the current transaction ran a statement that writes (reset by the commit and
    /// rollback hooks).
    @exclusivity(unchecked) var transactionHasWrites = false
    /// The cancellation of the async access that runs, if any: once its task is cancelled,
    /// statements throw `CancellationError` (rollbacks excepted).
    var accessCancellation: AccessCancellation?
    /// Set while the writer of a pool makes the initial fetch of a ValueObservation: a write
    /// access from the fetch throws instead of stopping the program.
    var startsPoolObservation = false

    /// Table information (primary keys, columns, indexes), read from the schema once.
    var schemaCache = SchemaCache()
    /// Whether the next schema lookup checks `schema_version` first (set as each access
    /// starts). Read at each record's insertion: outside `schemaCache`, whose accesses are
    /// checked dynamically (76 instructions each, W5m).
    /// (Used on the connection's queue, by accesses that span no call.)
    @exclusivity(unchecked) var schemaNeedsVersionCheck = true

    /// The schema source of the connection: ``Configuration/schemaSource``, or the one given
    /// to ``withSchemaSource(_:execute:)`` while its closure runs. It gives a primary key to
    /// views (see ``DatabaseSchemaSource``).
    public internal(set) var schemaSource: (any DatabaseSchemaSource)?

    /// The date of the current transaction, once asked for (see ``transactionDate``).
    var currentTransactionDate: Date?

    /// Recently used persistence statements (INSERT, UPDATE… built by records), searched
    /// before any SQL is generated.
    ///
    /// Read at each record insertion: the dynamic exclusivity check cost 76 instructions per
    /// access (docs/Performance.md, W5). Every access is a short call on the connection's
    /// queue that runs no user code, so no access can overlap another.
    @exclusivity(unchecked) var persistenceStatements = PersistenceStatementCache()

    /// Set by the rollback hook: the persistence statements may be built on a schema the
    /// rollback undid; they are dropped at the next lookup, out of the hook. (Unchecked as
    /// `persistenceStatements`: a Bool read or written at once.)
    @exclusivity(unchecked) var persistenceStatementsAreStale = false

    /// The `fts5_api` of the connection, once asked for (see `fts5API()`): tokenizers are
    /// created while another statement runs, where no statement should be compiled.
    var fts5APIPointer: UnsafeMutableRawPointer?

    /// While `dumpRequest` runs a request, the prefetch queries it runs.
    var prefetchDumpRecorder: PrefetchDumpRecorder?

    /// The columns of the last persistence container of each record type. (Unchecked as
    /// `persistenceStatements`: read before a record encodes, written after, never during.)
    @exclusivity(unchecked) var containerTemplates = PersistenceContainerTemplates()

    /// Which record types insert with the default `aroundSave` and `aroundInsert`, learned at
    /// their first insert on the connection. (Unchecked as `persistenceStatements`; the
    /// default arounds, which user code may call too, write it in a short access that calls
    /// nothing.)
    @exclusivity(unchecked) var defaultArounds = DefaultAroundCallbacks()

    /// The storage of the last container a save finished with, when nobody kept it: the next
    /// container reuses it instead of allocating one. It holds no value: they are destroyed
    /// as it is given back. (Unchecked as `persistenceStatements`.)
    @exclusivity(unchecked) var spareContainerStorage: PersistenceContainerStorage?

    /// The identity of the queue of the serialized database that owns the connection: an
    /// access is valid on that queue, or in an access the current thread runs. (A stored
    /// identity rather than a closure: each check used to retain, call and release one.)
    var accessQueueIdentity: QueueIdentity?

    /// Nesting of read-only sections.
    @exclusivity(unchecked) private var readOnlyDepth = 0

    /// Whether the connection was opened read-only (from the configuration, read once: the
    /// configuration is a large value).
    private var opensReadOnly: Bool

    /// Whether writes are forbidden now: a read-only connection, or a read-only section.
    var isReadOnly: Bool { opensReadOnly || readOnlyDepth > 0 }

    /// The transaction the library opened, if any (see ``withOwnedTransaction(_:_:)``).
    @exclusivity(unchecked) var transactionScope = TransactionScope.none

    /// Boxes that must live as long as the connection (busy handler, trace).
    var busyCallbackBox: BusyCallbackBox?
    var traceBox: TraceBox?

    /// Functions and collations registered on the connection.
    var functions: [DatabaseFunction.ID: DatabaseFunction] = [:]
    var collations: [String: DatabaseCollation] = [:]

    /// Opens a connection. The connection is not usable until `setUp()` ran.
    init(path: String, description: String, configuration: Configuration, keying: any ConnectionKeying) throws {
        try SQLCipherLibrary.check()
        self.keying = keying
        self.path = path
        self.description = description
        self.configuration = configuration
        opensReadOnly = configuration.readonly
        self.schemaSource = configuration.schemaSource
        var flags = configuration.readonly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        flags |= SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            // SQLite may allocate a handle even when opening fails: it must be closed.
            let error = makeDatabaseError(code, handle)
            sqlite3_close_v2(handle)
            throw DatabaseError(
                resultCode: error.extendedResultCode,
                message: "\(error.message ?? "unable to open database file"): \(path)")
        }
        sqliteConnection = handle
        hooks.database = self
        authorizer.hooks = hooks
        sqlite3_extended_result_codes(handle, 1)
        authorizer.install(on: handle)
    }

    deinit {
        if let sqliteConnection {
            userStatements.removeAll()
            libraryStatements.removeAll()
            persistenceStatements.removeAll()
            removeHooks(sqliteConnection)
            sqlite3_close_v2(sqliteConnection)
        }
    }

    /// Unregisters the callbacks that point back to this object, before the handle closes: a
    /// zombie handle may still roll back after the object is gone.
    private func removeHooks(_ connection: OpaquePointer) {
        ConnectionHooks.uninstall(from: connection)
        sqlite3_busy_handler(connection, nil, nil)
        sqlite3_trace_v2(connection, 0, nil, nil)
        StatementAuthorizer.uninstall(from: connection)
    }

    /// The open handle; using a closed connection is a programmer error.
    var handle: OpaquePointer {
        guard let sqliteConnection else {
            preconditionFailure("Connection is closed: \(description)")
        }
        return sqliteConnection
    }

    /// Runs the configuration on a new connection, then checks that the database can be read:
    /// a wrong passphrase or a file that is not a database fails here, at open time.
    func setUp() throws {
        keying.connectionWillPrepare(self)
        defer { keying.connectionDidFinishOpening(self) }
        hooks.install(on: handle)
        try setUpBusyMode()
        if !configuration.acceptsDoubleQuotedStringLiterals {
            _ = grdbcipher_db_config_int(handle, SQLITE_DBCONFIG_DQS_DML, 0, nil)
            _ = grdbcipher_db_config_int(handle, SQLITE_DBCONFIG_DQS_DDL, 0, nil)
        } else {
            _ = grdbcipher_db_config_int(handle, SQLITE_DBCONFIG_DQS_DML, 1, nil)
            _ = grdbcipher_db_config_int(handle, SQLITE_DBCONFIG_DQS_DDL, 1, nil)
        }
        for function in DatabaseFunction.defaultFunctions {
            add(function: function)
        }
        for collation in DatabaseCollation.defaultCollations {
            add(collation: collation)
        }
        for function in configuration.setUpFunctions {
            try function(self)
        }
        try validateDatabaseFile()
        try keying.connectionDidOpen(self)
        if configuration.foreignKeysEnabled {
            try execute(sql: "PRAGMA foreign_keys = ON")
        }
    }

    /// Reads the file once: a wrong key or a file that is not a database fails here, with the
    /// message the keying gives (the result code stays SQLite's, for GRDB compatibility).
    private func validateDatabaseFile() throws {
        do {
            try execute(sql: "SELECT * FROM sqlite_master LIMIT 1")
        } catch let error as DatabaseError {
            throw keying.explainOpeningFailure(error, in: self)
        }
    }

    /// Closes the connection. Throws SQLITE_BUSY if statements are still alive outside the
    /// connection's cache (an unfinished cursor kept beyond its closure, for example).
    func close() throws {
        guard let sqliteConnection else { return }
        userStatements.removeAll()
        libraryStatements.removeAll()
        persistenceStatements.removeAll()
        spareContainerStorage = nil
        // sqlite3_close, not _v2: with a statement still alive it refuses and leaves the
        // connection open (hooks included). As GRDB (CON-1), SQLITE_BUSY then, and the
        // connection stays usable, so that closing can be tried again.
        let code = sqlite3_close(sqliteConnection)
        if code == SQLITE_BUSY {
            Database.logUnfinalizedStatements(sqliteConnection)
            throw DatabaseError(resultCode: .SQLITE_BUSY, message: "unable to close due to unfinalized statements or unfinished backups")
        }
        keying.connectionWillClose(self)
        // The fts5_api belongs to the closed connection: freed by SQLite.
        fts5APIPointer = nil
        if code != SQLITE_OK {
            let error = makeDatabaseError(code, sqliteConnection)
            // Leave a zombie that SQLite closes once the last statement is finalized; it must
            // call nothing of this object any longer.
            removeHooks(sqliteConnection)
            sqlite3_close_v2(sqliteConnection)
            self.sqliteConnection = nil
            throw error
        }
        self.sqliteConnection = nil
    }

    // MARK: - Access validity

    /// Whether the current thread may use the connection (always, for a connection no
    /// serialized database owns).
    var isValidAccess: Bool {
        // (The identity is bound only when the thread's list of accesses, cheaper to read than
        // the queue's specifics, does not answer: binding it first retained it at each check.)
        if accessQueueIdentity == nil || CurrentAccesses.contains(self) { return true }
        return accessQueueIdentity?.isCurrent(QueueIdentity.connectionKey) ?? true
    }

    /// Using a connection outside of its access closure is a programmer error.
    func preconditionValidAccess() {
        precondition(
            isValidAccess,
            "Database was not used on the correct thread: a Database must only be used inside the access closure that received it (\(description))")
    }

    // MARK: - Changes

    /// The rowid of the last successful INSERT.
    public var lastInsertedRowID: Int64 {
        sqlite3_last_insert_rowid(handle)
    }

    /// The number of rows changed by the last INSERT, UPDATE or DELETE.
    public var changesCount: Int {
        Int(sqlite3_changes64(handle))
    }

    /// The number of rows changed since the connection was opened.
    public var totalChangesCount: Int {
        Int(sqlite3_total_changes64(handle))
    }

    /// The extended result code of the last SQLite call that failed on this connection, or
    /// `SQLITE_OK` when the last call succeeded.
    ///
    /// Errors thrown by the library carry their code already (``DatabaseError/extendedResultCode``):
    /// this property is for code that calls the SQLite C API on ``sqliteConnection`` itself.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/errcode.html>
    public var lastErrorCode: ResultCode {
        ResultCode(rawValue: sqlite3_extended_errcode(handle))
    }

    /// The English message of the last SQLite call that failed on this connection (`"not an
    /// error"` when the last call succeeded).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/errcode.html>
    public var lastErrorMessage: String? {
        sqlite3_errmsg(handle).map { String(cString: $0) }
    }

    /// Whether the connection is inside a transaction.
    public var isInsideTransaction: Bool {
        guard let sqliteConnection else { return false } // closed
        return sqlite3_get_autocommit(sqliteConnection) == 0
    }


    // MARK: - Limits and library

    /// The version of the linked SQLite library, as an integer equal to `SQLITE_VERSION_NUMBER`
    /// (3046001 for SQLite 3.46.1).
    ///
    /// ```swift
    /// if Database.sqliteLibVersionNumber >= 3035000 {
    ///     // RETURNING clauses are available
    /// }
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/libversion.html>
    public static var sqliteLibVersionNumber: CInt {
        sqlite3_libversion_number()
    }

    /// The maximum number of arguments accepted by an SQLite statement on this connection
    /// (`SQLITE_LIMIT_VARIABLE_NUMBER`).
    ///
    /// ```swift
    /// let ids: [Int64] = ...
    /// for chunk in stride(from: 0, to: ids.count, by: db.maximumStatementArgumentCount) {
    ///     ...
    /// }
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/limits.html#max_variable_number>
    public var maximumStatementArgumentCount: Int {
        Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
    }

    // MARK: - Statements

    /// Prepares a single statement. SQL with several statements is an error: use
    /// ``execute(sql:arguments:)`` for it.
    ///
    /// ```swift
    /// let statement = try db.makeStatement(sql: "SELECT * FROM player WHERE id = ?")
    /// let row = try Row.fetchOne(statement, arguments: [1])
    /// ```
    public func makeStatement(sql: String) throws -> Statement {
        preconditionValidAccess()
        return try StatementCompiler(database: self, sql: sql).compileSingle()
    }

    /// Prepares a single statement from an SQL literal. The arguments of the literal, if it
    /// has some, are bound; otherwise its parameters are given later:
    ///
    /// ```swift
    /// let insert = try db.makeStatement(literal: "INSERT INTO player (name) VALUES (?)")
    /// try insert.execute(arguments: ["Arthur"])
    /// ```
    public func makeStatement(literal sqlLiteral: SQL) throws -> Statement {
        let (sql, arguments) = try sqlLiteral.build(self)
        let statement = try makeStatement(sql: sql)
        if !arguments.isEmpty { try statement.setArguments(arguments) }
        return statement
    }

    /// Returns a prepared statement from the connection's cache, preparing it the first time.
    ///
    /// ```swift
    /// for name in names {
    ///     let statement = try db.cachedStatement(sql: "INSERT INTO player (name) VALUES (?)")
    ///     try statement.execute(arguments: [name])
    /// }
    /// ```
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = userStatements[sql] {
            preconditionValidAccess()
            return statement
        }
        let statement = try makeStatement(sql: sql)
        userStatements[sql] = statement
        return statement
    }

    /// Returns a prepared statement from the connection's cache, with the arguments of the
    /// literal bound when it has some.
    public func cachedStatement(literal sqlLiteral: SQL) throws -> Statement {
        let (sql, arguments) = try sqlLiteral.build(self)
        let statement = try cachedStatement(sql: sql)
        if !arguments.isEmpty { try statement.setArguments(arguments) }
        return statement
    }

    /// The statement used by a fetch method, or by the library for its own SQL: from the
    /// library's cache, unless a cursor is iterating it (then a new one, not cached).
    func fetchStatement(sql: String) throws -> Statement {
        if let statement = libraryStatements.statement(sql) {
            if !statement.isIterating {
                preconditionValidAccess()
                statement.regionNarrowing = nil
                return statement
            }
            return try makeStatement(sql: sql)
        }
        let statement = try makeStatement(sql: sql)
        libraryStatements.insert(statement, for: sql)
        return statement
    }

    /// Executes one or several SQL statements, separated by semicolons.
    ///
    /// ```swift
    /// try db.execute(sql: """
    ///     CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    ///     INSERT INTO player (name) VALUES (?);
    ///     """, arguments: ["Arthur"])
    /// ```
    ///
    /// Positional arguments are consumed by the statements in order. When every statement
    /// can be prepared up front, a wrong argument count is reported before any statement runs;
    /// and statements that fail half-way are rolled back, so bad
    /// input leaves the database as it was.
    public func execute(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        preconditionValidAccess()
        try StatementCompiler(database: self, sql: sql).execute(arguments: arguments)
    }

    /// Executes an SQL literal, whose interpolated values become statement arguments.
    ///
    /// ```swift
    /// try db.execute(literal: "UPDATE player SET score = \(score) WHERE id = \(id)")
    /// ```
    public func execute(literal sqlLiteral: SQL) throws {
        let (sql, arguments) = try sqlLiteral.build(self)
        try execute(sql: sql, arguments: arguments)
    }

    /// Steps a statement until it is done: the one path of the statements the library runs
    /// to completion (``Statement/execute(arguments:)``, multi-statement SQL, persistence
    /// methods). Cursors step through ``StatementStepper``, which tells the hooks the same way.
    func executeSteps(of statement: Statement) throws {
        try executeSteps(of: statement) { sqliteStatement in
            while true {
                let code = sqlite3_step(sqliteStatement)
                if code != SQLITE_ROW { return code }
            }
        }
    }

    /// Runs `step` (which steps the statement until it is done, and returns the last code),
    /// between the calls that tell the hooks the statement starts and ends.
    @inline(__always)
    func executeSteps(of statement: Statement, _ step: (SQLiteStatement) throws -> CInt) throws {
        let execution: ConnectionHooks.Execution?
        do {
            execution = try statementWillRun(statement)
        } catch {
            // Refused before it ran (a cancelled task, an aborted transaction): the values
            // bound for it do not stay in the statement either.
            statement.finishRun()
            throw error
        }
        defer { if !statement.effects.isEmpty { noticeEffects(of: statement) } }
        statement.isAfterRun = true
        let code = try step(statement.sqliteStatement)
        var error: (any Error)?
        if code != SQLITE_DONE {
            error = statement.stepError(code)
        }
        statement.finishRun()
        if let execution {
            error = hooks.didExecute(statement, execution, error: error)
        }
        if let error { throw error }
    }

    /// What every statement goes through before its first step (``executeSteps(of:_:)``,
    /// cursors): the check of an aborted transaction, the bookkeeping of writes and of the
    /// tracked region, and the hooks. Returns what the hooks remember of the statement.
    @inline(__always)
    func statementWillRun(_ statement: Statement) throws -> ConnectionHooks.Execution? {
        if let accessCancellation, accessCancellation.isCancelled, !isExemptFromCancellation(statement) {
            throw CancellationError()
        }
        try checkTransactionNotAborted(statement)
        if statement.writesData { transactionHasWrites = true }
        if trackedRegion != nil { trackedRegion!.formUnion(statement.observedRegion) }
        return try willExecute(statement)
    }

    /// Tells the hooks a statement starts; nil when they need not know (a read, with no
    /// transaction effect, or no observer).
    @inline(__always)
    private func willExecute(_ statement: Statement) throws -> ConnectionHooks.Execution? {
        guard statement.mayNotifyObservers else { return nil }
        return try hooks.willExecute(statement)
    }

    /// Forgets what a statement that ran made stale: the schema after CREATE, DROP, ALTER or
    /// ROLLBACK; the transaction date at a transaction boundary.
    func noticeEffects(of statement: Statement) {
        let effects = statement.effects
        if effects.contains(.schemaChange) {
            // Cached statements keep the tables they were compiled against: after a new table
            // shadows another one (in temp or main, over an attached database), SQLite would not
            // recompile them. Fetches must see the schema as it is now.
            userStatements.removeAll()
            libraryStatements.removeAll()
        }
        if !effects.isDisjoint(with: [.schemaChange, .rollback]) {
            clearSchemaCache()
        }
        if effects.contains(.transactionBoundary) && !isInsideTransaction {
            // The transaction ended (even a read-only one, which calls no hook).
            currentTransactionDate = nil
        }
    }

    /// Clears the database schema cache.
    ///
    /// The connection remembers the tables, columns, primary keys and indexes it has read,
    /// and forgets them by itself when it changes the schema, or notices that another
    /// connection did. Call this method when the schema changed in a way it can not notice,
    /// or when the answers of your ``DatabaseSchemaSource`` changed.
    ///
    /// ```swift
    /// db.clearSchemaCache()
    /// ```
    public func clearSchemaCache() {
        schemaCache.clear()
        persistenceStatements.removeAll()
    }

    /// Called when an access closure starts: the schema may have been changed by another
    /// connection since the last access, so the next schema lookup checks `schema_version`.
    func beginAccess() {
        schemaNeedsVersionCheck = true
    }

    // MARK: - Read-only sections

    /// Makes the connection read-only for the rest of its life (`PRAGMA query_only`), as if it
    /// had been opened read-only: a read-only copy, once it is written.
    func becomeReadOnly() throws {
        try fetchStatement(sql: "PRAGMA query_only = 1").execute()
        opensReadOnly = true
    }

    /// Runs `block` with writes forbidden (`PRAGMA query_only`).
    public func readOnly<T>(_ block: () throws -> T) throws -> T {
        if opensReadOnly { return try block() }
        if readOnlyDepth == 0 {
            try fetchStatement(sql: "PRAGMA query_only = 1").execute()
        }
        readOnlyDepth += 1
        defer {
            readOnlyDepth -= 1
            if readOnlyDepth == 0 {
                // Even once the task of the access is cancelled: the connection must not stay
                // read-only.
                exemptFromCancellation {
                    try? fetchStatement(sql: "PRAGMA query_only = 0").execute()
                }
            }
        }
        return try block()
    }

    /// Releases memory SQLite can spare, and the statement cache.
    public func releaseMemory() {
        // A closed connection has nothing to release.
        guard let sqliteConnection else { return }
        sqlite3_db_release_memory(sqliteConnection)
        userStatements = userStatements.filter { $0.value.isIterating }
        libraryStatements.removeAll { !$0.isIterating }
        clearSchemaCache()
        spareContainerStorage = nil
    }
}

extension Database: CustomStringConvertible, CustomDebugStringConvertible {
    public var debugDescription: String { "<Database: \(description)>" }
}
