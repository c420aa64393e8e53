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
        while let row = try cursor.next() {
            rows.append(row.copy())
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

    /// Returns the first value fetched from an SQL query, or nil if there is no row or the
    /// value is NULL.
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

    /// Returns the first value fetched from a prepared statement, or nil for no row or NULL.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> Self? {
        let cursor = try RowCursor(statement: statement, arguments: arguments, adapter: adapter)
        guard let row = try cursor.next() else { return nil }
        // (Only an adapter can give a row no column: SQLite rows have one at least.)
        if row.count == 0 { throw DatabaseError.noValueColumn(statement) }
        if row.databaseValueIsNull(at: 0) { return nil }
        return try row.decode(Self.self, at: 0).get()
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// Returns a cursor over values fetched from an SQL query (fast path).
    public static func fetchCursor(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> FastDatabaseValueCursor<Self> {
        try FastDatabaseValueCursor(statement: db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
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

    /// Returns an array of values fetched from a prepared statement (fast path).
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try Array(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }

    /// Returns a set of values fetched from a prepared statement (fast path).
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> Set<Self> where Self: Hashable {
        try Set(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }
}

extension Optional where Wrapped: DatabaseValueConvertible & StatementColumnConvertible {
    /// Returns a cursor over optional values fetched from an SQL query (fast path).
    public static func fetchCursor(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> FastNullableDatabaseValueCursor<Wrapped> {
        try FastNullableDatabaseValueCursor(statement: db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns an array of optional values fetched from an SQL query (fast path).
    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> [Wrapped?] {
        try Array(fetchCursor(db, sql: sql, arguments: arguments, adapter: adapter))
    }

    /// Returns a cursor over optional values fetched from a prepared statement (fast path).
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> FastNullableDatabaseValueCursor<Wrapped> {
        try FastNullableDatabaseValueCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// Returns an array of optional values fetched from a prepared statement (fast path).
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> [Wrapped?] {
        try Array(fetchCursor(statement, arguments: arguments, adapter: adapter))
    }
}
