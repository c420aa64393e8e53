import CSQLCipher

/// A prepared statement.
///
/// ```swift
/// let statement = try db.makeStatement(sql: "INSERT INTO player (name) VALUES (?)")
/// try statement.execute(arguments: ["Arthur"])
/// try statement.execute(arguments: ["Barbara"])
/// ```
///
/// A statement belongs to the connection that made it: use it only inside the database access
/// closure that gave the connection. It is finalized when released.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/stmt.html>
public final class Statement {
    /// The SQLite statement handle.
    ///
    /// The handle may change once: a `DELETE` statement compiled while no transaction observer
    /// listened is prepared again, with its arguments, the first time an observer wants its
    /// deletions (so that each deleted row is told). Read it when you use it; do not keep it.
    // Read at each execution: no dynamic exclusivity check (it changes only in
    // `prepareAgainWithoutTruncation()`, before the statement runs).
    @exclusivity(unchecked) public private(set) var sqliteStatement: SQLiteStatement

    /// The SQL text of the statement, without trailing whitespace.
    public let sql: String

    unowned let database: Database

    /// Parameter names without their prefix (`:`, `$`, `@`), nil for `?` parameters.
    let parameterNames: [String?]

    /// The number of columns in the rows the statement returns.
    public let columnCount: Int

    /// Whether the statement does not write to the database.
    public let isReadonly: Bool

    /// Whether running the statement changes the database's content: not read-only, and not one
    /// that only manages transactions (`BEGIN IMMEDIATE` is not read-only for SQLite).
    let writesData: Bool

    /// What running the statement does to the connection's caches (schema, transaction date).
    let effects: Effects

    /// Whether the statement can run inside the savepoint of a multi-statement execution.
    let canRunInSavepoint: Bool

    /// Whether running the statement may change the database or end a transaction, so that
    /// transaction observers may hear of it.
    let mayNotifyObservers: Bool

    /// Whether the statement begins or ends a transaction or a savepoint.
    let hasTransactionEffect: Bool

    /// The changes the statement may make (its analysis's, read without copying it).
    let eventKinds: [DatabaseEventKind]

    /// The first of `eventKinds` (an insertion into no table when there is none), in a
    /// constant property: lent to the observers asked about it without a copy (from the
    /// array, each would get a copy, its strings retained and released, at each execution).
    let firstEventKind: DatabaseEventKind

    /// What transaction observers wanted of the statement's changes when it last ran: the
    /// observers of generation `interestGeneration` (``ConnectionHooks``) answered
    /// `interestAnswers`, and `cachedInterest` lists those who wanted some. Scalars apart from
    /// the list: the hooks compare them before each execution without copying the list.
    @exclusivity(unchecked) var interestGeneration = -1
    @exclusivity(unchecked) var interestAnswers: UInt64 = 0
    @exclusivity(unchecked) var cachedInterest: [ConnectionHooks.Interest] = []

    /// The arguments currently bound.
    @exclusivity(unchecked) private var boundArguments = StatementArguments()

    /// Whether errors may show statement arguments (from the configuration, read once: the
    /// configuration is a large value).
    let publicStatementArguments: Bool

    /// The cursor stepper that iterates the statement, while one does: a cursor released
    /// after another one started on the same (cached) statement leaves it alone.
    @exclusivity(unchecked) var iterationOwner: ObjectIdentifier?

    /// True while a cursor iterates the statement.
    var isIterating: Bool { iterationOwner != nil }

    /// While `dumpRequest` prints the rows of a prefetch query, the columns it does not print:
    /// the key columns (`grdb_authorId`) are the library's own. They end the prefetched
    /// table's own columns, before the columns of its included associations.
    var dumpHiddenColumns: Range<Int>?

    /// What the statement reads and writes, as SQLite reported it at compile time.
    @exclusivity(unchecked) private(set) var analysis: StatementAnalysis

    /// The tables and columns the statement reads.
    ///
    /// ```swift
    /// let statement = try db.makeStatement(sql: "SELECT name FROM player WHERE score > 100")
    /// print(statement.databaseRegion) // player(name,score)
    /// ```
    public var databaseRegion: DatabaseRegion {
        guard let regionNarrowing else { return analysis.region }
        // A failure to narrow (a schema query) keeps the whole region: never too small.
        return (try? regionNarrowing.narrow(analysis.region, database)) ?? analysis.region
    }

    /// The region an observation of the statement records: its region without the views it
    /// reads, since no change is ever reported for a view (the tables the view reads are in
    /// the region), as GRDB (OBS-2).
    var observedRegion: DatabaseRegion {
        var region = databaseRegion
        region.removeTables(named: analysis.unobservedNames)
        return region
    }

    /// For the statement of a query interface request, the filter that narrows its region to
    /// rows (as GRDB, OBS-2). Set by the request that prepares the statement, as its
    /// arguments are; a statement taken from a cache starts without.
    @exclusivity(unchecked) var regionNarrowing: RegionNarrowing?

    init(database: Database, sqliteStatement: SQLiteStatement, sql: String, analysis: StatementAnalysis) {
        self.analysis = analysis
        self.database = database
        self.sqliteStatement = sqliteStatement
        self.sql = sql
        publicStatementArguments = database.configuration.publicStatementArguments
        let parameterCount = sqlite3_bind_parameter_count(sqliteStatement)
        var names: [String?] = []
        names.reserveCapacity(Int(parameterCount))
        if parameterCount > 0 {
            for index in 1...parameterCount {
                names.append(sqlite3_bind_parameter_name(sqliteStatement, index).map {
                    String(String(cString: $0).dropFirst())
                })
            }
        }
        parameterNames = names
        let isReadonly = sqlite3_stmt_readonly(sqliteStatement) != 0
        self.isReadonly = isReadonly
        writesData = !isReadonly && analysis.transactionEffect == nil
        effects = Effects(analysis)
        canRunInSavepoint = analysis.canRunInSavepoint(isReadonly: isReadonly)
        mayNotifyObservers = !isReadonly || analysis.transactionEffect != nil
        hasTransactionEffect = analysis.transactionEffect != nil
        eventKinds = analysis.eventKinds
        firstEventKind = analysis.eventKinds.first ?? .insert(tableName: "")
        let columnCount = Int(sqlite3_column_count(sqliteStatement))
        self.columnCount = columnCount
        let columnNames = (0..<CInt(columnCount)).map {
            String(cString: sqlite3_column_name(sqliteStatement, $0))
        }
        self.columnNames = columnNames
        // ASCII folding, as SQLite and ``index(ofColumn:)`` compare names.
        let folded = columnNames.map { name in
            String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        columnLookup = ColumnLookup(names: columnNames, leftmostIndexes: folded.map { name in folded.firstIndex(of: name)! })
    }

    /// Prepares the statement again, deleting row by row, so that the update hook hears of
    /// each deleted row: a `DELETE` without `WHERE` compiled before a transaction observer
    /// wanted deletions would otherwise truncate the table silently. The bindings move to the
    /// new handle.
    func prepareAgainWithoutTruncation() throws {
        guard let handle = database.sqliteConnection else { return }
        var newStatement: SQLiteStatement?
        let (code, newAnalysis) = database.authorizer.analyze(preventsTruncation: true) {
            sqlite3_prepare_v3(handle, sql, -1, 0, &newStatement, nil)
        }
        guard code == SQLITE_OK, let newStatement else {
            throw makeDatabaseError(code, handle, sql: sql)
        }
        sqlite3_transfer_bindings(sqliteStatement, newStatement)
        sqlite3_finalize(sqliteStatement)
        sqliteStatement = newStatement
        analysis = newAnalysis
    }

    deinit {
        sqlite3_finalize(sqliteStatement)
        columnLookup.deallocate()
    }

    /// The names of the columns, from left to right.
    public let columnNames: [String]

    /// Column indexes by exact name, each pointing at the leftmost column with the same name
    /// ignoring case: a lookup by the name as SQLite spelled it needs no case folding.
    private lazy var columnIndexes: [String: Int] = {
        var indexes: [String: Int] = [:]
        for (index, name) in columnNames.enumerated() where indexes[name] == nil {
            indexes[name] = columnLookup.leftmost[index]
        }
        return indexes
    }()

    /// Returns the index of the leftmost column named `name`, compared case-insensitively.
    public func index(ofColumn name: String) -> Int? {
        let ordinal = columnLookup.nextOrdinal()
        if let index = columnLookup.remembered(ordinal, name) { return index }
        return searchIndex(ofColumn: name, ordinal: ordinal)
    }

    /// Lookups by name, remembered from row to row (see ``ColumnLookup``).
    let columnLookup: ColumnLookup

    /// Searches the column named `name`, and remembers it as the lookup number `ordinal` of
    /// the current row.
    @usableFromInline
    func searchIndex(ofColumn name: String, ordinal: Int) -> Int? {
        guard let index = searchIndex(ofColumn: name) else { return nil }
        columnLookup.remember(index, for: ordinal)
        return index
    }

    private func searchIndex(ofColumn name: String) -> Int? {
        // Few columns: comparing short strings beats hashing them.
        if columnCount <= 16 {
            let names = columnNames
            for index in names.indices where names[index] == name {
                return columnLookup.leftmost[index]
            }
        } else if let index = columnIndexes[name] {
            return index
        }
        return columnNames.firstIndex { $0.equalsIgnoringASCIICase(name) }
    }

    /// The number of parameters of the statement.
    var parameterCount: Int { parameterNames.count }

    /// The statement arguments. Setting arguments that do not fit the statement is a programmer
    /// error; use ``setArguments(_:)`` to get a thrown error instead.
    public var arguments: StatementArguments {
        get { boundArguments }
        set {
            do {
                try setArguments(newValue)
            } catch {
                preconditionFailure("\(error)")
            }
        }
    }

    /// Throws if `arguments` do not fit the statement's parameters.
    public func validateArguments(_ arguments: StatementArguments) throws {
        var consumer = ArgumentConsumer(arguments)
        _ = try consumer.values(for: self)
        try consumer.checkFullyConsumed(sql: sql, publicStatementArguments: publicStatementArguments)
    }

    /// Binds `arguments`, after checking that they fit the statement's parameters.
    public func setArguments(_ arguments: StatementArguments) throws {
        // Other arguments, other rows: the narrowing of the request that prepared the
        // statement no longer holds.
        if regionNarrowing != nil { regionNarrowing = nil }
        if arguments.namedValues.isEmpty && arguments.values.count == parameterNames.count {
            // One positional value per parameter, the usual case: nothing to check or reorder.
            try bind(arguments.values, arguments: arguments)
            return
        }
        var consumer = ArgumentConsumer(arguments)
        let values = try consumer.values(for: self)
        try consumer.checkFullyConsumed(sql: sql, publicStatementArguments: publicStatementArguments)
        try bind(values, arguments: arguments)
    }

    /// Binds `arguments` without checking them; missing values are bound as NULL.
    public func setUncheckedArguments(_ arguments: StatementArguments) {
        regionNarrowing = nil
        var consumer = ArgumentConsumer(arguments)
        let values = (try? consumer.values(for: self)) ?? ArgumentValues(parameterNames.indices.lazy.map { arguments[$0] ?? .null })
        try? bind(values, arguments: arguments)
    }

    func bind(_ values: ArgumentValues, arguments: StatementArguments) throws {
        markBound()
        let code = values.withUnsafeBufferPointer { resetAndBind($0) }
        if code != SQLITE_OK {
            throw makeDatabaseError(
                code, database.sqliteConnection, sql: sql, arguments: arguments,
                publicStatementArguments: publicStatementArguments)
        }
        boundArguments = arguments
    }

    /// Binds `values` to the parameters 1, 2, …, and returns the first code that is not
    /// `SQLITE_OK` (or `SQLITE_OK`).
    @inline(__always)
    func bindValues(_ values: UnsafeBufferPointer<DatabaseValue>) -> CInt {
        let sqliteStatement = sqliteStatement
        guard let base = values.baseAddress else { return SQLITE_OK }
        // Each value is read in place, and integers, doubles and NULL are bound here: a
        // `for value in values` loop, and `DatabaseValue.bind`, copy the value out of the
        // buffer, then destroy the copy (W4: 170 instructions a row; docs/Performance.md).
        for offset in 0..<values.count {
            let index = CInt(truncatingIfNeeded: offset &+ 1)
            let code: CInt
            switch base[offset].storage {
            case .int64(let int64): code = sqlite3_bind_int64(sqliteStatement, index, int64)
            case .double(let double): code = sqlite3_bind_double(sqliteStatement, index, double)
            case .null: code = sqlite3_bind_null(sqliteStatement, index)
            case .string, .blob: code = base[offset].bind(to: sqliteStatement, at: index)
            }
            if code != SQLITE_OK { return code }
        }
        return SQLITE_OK
    }

    /// Records values bound by a persistence method: errors show arguments only when they are
    /// public, so the values are kept only then.
    func recordPersistenceArguments(_ values: UnsafeBufferPointer<DatabaseValue>) {
        if publicStatementArguments {
            boundArguments = StatementArguments(positionalValues: ArgumentValues(values))
        } else if !boundArguments.isEmpty {
            boundArguments = StatementArguments()
        }
    }

    /// Resets the statement so that it can run again, keeping its arguments.
    func reset() {
        sqlite3_reset(sqliteStatement)
        isAfterRun = false
    }

    /// Whether the statement may have stepped since it was last reset: set when a run starts
    /// (``Database/executeSteps(of:_:)``, cursors), cleared by ``reset()`` and ``finishRun()``.
    /// Binding resets the statement only when it is set: every run ends with a reset already,
    /// and a second one cost 63 instructions per run (docs/Performance.md, W4 and W5). A
    /// statement stepped through its raw handle, which this does not see, makes SQLite refuse
    /// the binding with SQLITE_MISUSE: it is then reset, and bound again.
    @exclusivity(unchecked) var isAfterRun = false

    /// Resets the statement if a run may have left it unreset, then binds `values` to the
    /// parameters 1, 2, …; returns the first code that is not `SQLITE_OK` (or `SQLITE_OK`).
    /// A statement without parameters is always reset: no binding would tell that SQLite
    /// still runs it.
    @inline(__always)
    func resetAndBind(_ values: UnsafeBufferPointer<DatabaseValue>) -> CInt {
        if isAfterRun || parameterCount == 0 { reset() }
        let code = bindValues(values)
        guard code == SQLITE_MISUSE && !isAfterRun else { return code }
        // Stepped through its raw handle since its last reset: reset it, and bind again.
        reset()
        return bindValues(values)
    }

    /// Whether the values bound for the last run were cleared from SQLite's statement: a
    /// run without new arguments binds ``arguments`` again.
    @exclusivity(unchecked) private var bindingsCleared = false

    /// Notes that values were bound for the next run.
    func markBound() {
        bindingsCleared = false
    }

    /// Resets the statement after a run, and clears its bindings, as GRDB (STM-4): SQLite's
    /// copy of a value bound for one run (a token, personal data) does not wait in a cached
    /// statement for its next run. (``arguments`` keeps the Swift values, as in GRDB.)
    func finishRun() {
        sqlite3_reset(sqliteStatement)
        isAfterRun = false
        if parameterCount > 0 {
            sqlite3_clear_bindings(sqliteStatement)
            bindingsCleared = true
        }
    }

    /// Executes the statement, with new arguments if given.
    ///
    /// ```swift
    /// let statement = try db.makeStatement(sql: "DELETE FROM player WHERE id = ?")
    /// try statement.execute(arguments: [1])
    /// ```
    public func execute(arguments: StatementArguments? = nil) throws {
        try prepareIteration(arguments: arguments)
        try database.executeSteps(of: self)
    }

    /// Statements made without arguments must have none, so that a forgotten argument is an
    /// error rather than a silent NULL.
    func checkBoundArgumentsFit() throws {
        if boundArguments.isEmpty && parameterCount > 0 {
            throw argumentError("wrong number of statement arguments: 0")
        }
    }

    /// Prepares the statement for a new iteration with `arguments` (or the current ones).
    func prepareIteration(arguments: StatementArguments?) throws {
        if let arguments {
            try setArguments(arguments)
        } else {
            try checkBoundArgumentsFit()
            if bindingsCleared {
                // The same arguments again: the narrowing stays.
                let narrowing = regionNarrowing
                try setArguments(boundArguments)
                regionNarrowing = narrowing
            } else {
                reset()
            }
        }
    }

    func argumentError(_ message: String) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message: message,
            sql: sql,
            arguments: boundArguments,
            publicStatementArguments: publicStatementArguments)
    }

    /// The error for a failed step of this statement.
    func stepError(_ code: CInt) -> DatabaseError {
        makeDatabaseError(
            code, database.sqliteConnection, sql: sql, arguments: boundArguments,
            publicStatementArguments: publicStatementArguments)
    }
}

extension Statement: CustomStringConvertible {
    public var description: String { sql }
}

extension Statement {
    /// Statement effects that invalidate what a connection remembers.
    struct Effects: OptionSet {
        let rawValue: UInt8
        /// CREATE, DROP, ALTER, ATTACH, DETACH: the schema cache is stale.
        static let schemaChange = Effects(rawValue: 1)
        /// BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE: a transaction may start or end.
        static let transactionBoundary = Effects(rawValue: 2)
        /// ROLLBACK (TO): schema changes may be undone.
        static let rollback = Effects(rawValue: 4)

        init(rawValue: UInt8) { self.rawValue = rawValue }

        init(_ analysis: StatementAnalysis) {
            var effects: Effects = []
            if analysis.changesSchema { effects.insert(.schemaChange) }
            switch analysis.transactionEffect {
            case nil: break
            case .rollbackTransaction, .rollbackSavepoint: effects.formUnion([.transactionBoundary, .rollback])
            default: effects.insert(.transactionBoundary)
            }
            self = effects
        }
    }
}
