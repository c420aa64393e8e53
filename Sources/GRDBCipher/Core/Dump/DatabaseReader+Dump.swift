/// The dump methods of ``Database``, in a reentrant access, as GRDB: they may be called from
/// inside another access, and on a queue ``dumpSQL(_:format:to:)`` may run statements that
/// write (DMP-2). See ``Database/dumpContent(format:to:)``.
extension DatabaseReader {
    /// Prints the contents of the database: its schema, then the rows of each table.
    ///
    /// ```swift
    /// try dbQueue.dumpContent()
    /// ```
    ///
    /// - parameters:
    ///   - format: The format of rows.
    ///   - stream: A stream for the output; standard output if nil.
    public func dumpContent(format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        try unsafeReentrantRead { db in try db.dumpContent(format: format, to: stream) }
    }

    /// Prints the results of a request.
    ///
    /// ```swift
    /// try dbQueue.dumpRequest(Player.orderByPrimaryKey())
    /// ```
    ///
    /// - parameters:
    ///   - request: The request.
    ///   - format: The format of rows.
    ///   - stream: A stream for the output; standard output if nil.
    public func dumpRequest(_ request: some FetchRequest, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        try unsafeReentrantRead { db in try db.dumpRequest(request, format: format, to: stream) }
    }

    /// Prints the schema of the database.
    ///
    /// ```swift
    /// try dbQueue.dumpSchema()
    /// ```
    ///
    /// - parameter stream: A stream for the output; standard output if nil.
    public func dumpSchema(to stream: (any TextOutputStream)? = nil) throws {
        try unsafeReentrantRead { db in try db.dumpSchema(to: stream) }
    }

    /// Prints the results of all statements in the provided SQL, in a reentrant access: on a
    /// ``DatabaseQueue`` its statements may write; on a ``DatabasePool`` it runs in a reader,
    /// where they fail.
    ///
    /// ```swift
    /// try dbQueue.dumpSQL("SELECT * FROM player ORDER BY id")
    /// ```
    ///
    /// - parameters:
    ///   - sql: The SQL, which may hold several statements.
    ///   - format: The format of rows.
    ///   - stream: A stream for the output; standard output if nil.
    public func dumpSQL(_ sql: SQL, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        try unsafeReentrantRead { db in try db.dumpSQL(sql, format: format, to: stream) }
    }

    /// Prints the contents of the provided tables and views.
    ///
    /// ```swift
    /// try dbQueue.dumpTables(["player", "team"])
    /// ```
    ///
    /// - parameters:
    ///   - tables: The names of the tables and views, printed in this order.
    ///   - format: The format of rows.
    ///   - tableHeader: Whether table names are printed: with `.automatic`, only when there
    ///     are several tables.
    ///   - stableOrder: Whether rows are sorted (by primary key for tables, by all columns for
    ///     views).
    ///   - stream: A stream for the output; standard output if nil.
    public func dumpTables(
        _ tables: [String],
        format: some DumpFormat = .debug(),
        tableHeader: DumpTableHeaderOptions = .automatic,
        stableOrder: Bool = false,
        to stream: (any TextOutputStream)? = nil) throws
    {
        try unsafeReentrantRead { db in try db.dumpTables(tables, format: format, tableHeader: tableHeader, stableOrder: stableOrder, to: stream) }
    }
}
