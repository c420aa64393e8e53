import CSQLCipher

// The fetch methods of rows and values: from SQL text, from a prepared statement, and from an
// SQL literal. SQL text goes through the connection's statement cache.

// MARK: - Rows

extension Row {
    /// Returns a cursor over rows fetched from an SQL query.
    ///
    /// ```swift
    /// let rows = try Row.fetchCursor(db, sql: "SELECT * FROM player WHERE score > ?", arguments: [10])
    /// while let row = try rows.next() { ... }
    /// ```
    public static func fetchCursor(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> RowCursor {
        try RowCursor(statement: db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns an array of rows fetched from an SQL query.
    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> [Row] {
        try fetchAll(db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns a set of rows fetched from an SQL query.
    public static func fetchSet(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> Set<Row> {
        try fetchSet(db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns the first row fetched from an SQL query, if any.
    public static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> Row? {
        try fetchOne(db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns a cursor over rows fetched from a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> RowCursor {
        try RowCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// Returns an array of rows fetched from a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> [Row] {
        let cursor = try RowCursor(statement: statement, arguments: arguments, adapter: adapter)
        var rows: [Row] = []
        // The rows have the same columns: their values are copied into blocks, and the
        // records decoded from them share decoders.
        var copier = RowCopier()
        while let row = try cursor.next() {
            rows.append(copier.copy(row))
        }
        return rows
    }

    /// Returns a set of rows fetched from a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> Set<Row> {
        try Set(fetchCursor(statement, arguments: arguments, adapter: adapter).map { $0.copy() })
    }

    /// Returns the first row fetched from a prepared statement, if any.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> Row? {
        let cursor = try RowCursor(statement: statement, arguments: arguments, adapter: adapter)
        return try cursor.next()?.copy()
    }
}

// MARK: - Values

extension DatabaseValueConvertible {
    /// Returns a cursor over values fetched from an SQL query.
    public static func fetchCursor(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> DatabaseValueCursor<Self> {
        try DatabaseValueCursor(statement: db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns an array of values fetched from an SQL query. A NULL, or a value that does not
    /// convert, throws a ``RowDecodingError``; fetch optionals to accept NULL.
    ///
    /// ```swift
    /// let names = try String.fetchAll(db, sql: "SELECT name FROM player")
    /// let emails = try String?.fetchAll(db, sql: "SELECT email FROM player")
    /// ```
    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try Array(fetchCursor(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// Returns a set of values fetched from an SQL query.
    public static func fetchSet(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> Set<Self> where Self: Hashable {
        try Set(fetchCursor(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// Returns the first value fetched from an SQL query, or nil if there is no row. A NULL
    /// value gives what `fromDatabaseValue(.null)` gives: nil for most types,
    /// `DatabaseValue.null` for ``DatabaseValue``, `.some(nil)` for an optional.
    ///
    /// ```swift
    /// let name = try String.fetchOne(db, sql: "SELECT name FROM player WHERE id = 1")
    /// let email = try String?.fetchOne(db, sql: "SELECT email FROM player WHERE id = 1")
    /// // email is nil when there is no such player, .some(nil) when the email is NULL
    /// ```
    public static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> Self? {
        try fetchOne(db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns a cursor over values fetched from a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> DatabaseValueCursor<Self> {
        try DatabaseValueCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// Returns an array of values fetched from a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try Array(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// Returns a set of values fetched from a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> Set<Self> where Self: Hashable {
        try Set(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// Returns the first value fetched from a prepared statement, or nil for no row (see
    /// `fetchOne(_:sql:arguments:adapter:)` for NULL).
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> Self? {
        let cursor = try RowCursor(statement: statement, arguments: arguments, adapter: adapter)
        guard let row = try cursor.next() else { return nil }
        // (Only an adapter can give a row no column: SQLite rows have one at least.)
        if row.count == 0 { throw DatabaseError.noValueColumn(statement) }
        if row.databaseValueIsNull(at: 0) { return Self.fromDatabaseValue(.null) }
        return try row.decode(Self.self, at: 0).get()
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// Returns a cursor over values fetched from an SQL query (fast path).
    public static func fetchCursor(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> FastDatabaseValueCursor<Self> {
        try FastDatabaseValueCursor(statement: db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns the first value fetched from an SQL query, or nil if there is no row (fast
    /// path; see `DatabaseValueConvertible.fetchOne(_:sql:arguments:adapter:)` for NULL).
    public static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> Self? {
        try fetchOne(db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns an array of values fetched from an SQL query (fast path).
    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try Array(fetchCursor(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// Returns a set of values fetched from an SQL query (fast path).
    public static func fetchSet(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> Set<Self> where Self: Hashable {
        try Set(fetchCursor(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// Returns a cursor over values fetched from a prepared statement (fast path).
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> FastDatabaseValueCursor<Self> {
        try FastDatabaseValueCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// Returns the first value fetched from a prepared statement, or nil if there is no row
    /// (fast path).
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> Self? {
        let stepper = try StatementStepper(statement: statement, arguments: arguments, adapter: adapter)
        guard try stepper.step() else { return nil }
        let row = stepper.row
        // (Only an adapter can give a row no column, or a statement without result columns
        // such as a pragma that answers nothing.)
        if row.count == 0 { throw DatabaseError.noValueColumn(statement) }
        let column = CInt(row.adaptedLayout?.layout.baseIndexes[0] ?? 0)
        let sqliteStatement = statement.sqliteStatement
        if sqlite3_column_type(sqliteStatement, column) == SQLITE_NULL {
            return Self.fromDatabaseValue(.null)
        }
        if let value = Self(sqliteStatement: sqliteStatement, index: column) {
            return value
        }
        return try row.decode(Self.self, at: 0).get()
    }

    /// Returns an array of values fetched from a prepared statement (fast path).
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try Array(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// Returns a set of values fetched from a prepared statement (fast path).
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> Set<Self> where Self: Hashable {
        try Set(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }
}
