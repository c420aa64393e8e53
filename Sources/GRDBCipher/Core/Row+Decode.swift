// Throwing accessors: the same conversions as the subscripts, with a `RowDecodingError` where
// the subscripts stop the program.

extension Row {
    /// The value at `index`, converted to `Value`; throws a ``RowDecodingError`` when the value
    /// is NULL (ask for an optional to accept NULL) or does not convert.
    ///
    /// ```swift
    /// let row = try Row.fetchOne(db, sql: "SELECT name, score FROM player")!
    /// let name = try row.decode(String.self, atIndex: 0)
    /// let score: Int? = try row.decode(atIndex: 1)
    /// ```
    ///
    /// An index outside of the row is a programmer error, as with the subscript.
    public func decode<Value>(
        _ type: Value.Type = Value.self,
        atIndex index: Int) throws -> Value
    where Value: DatabaseValueConvertible
    {
        try decode(Value.self, at: checkedIndex(index)).get()
    }

    /// The value at `index`, converted to `Value` straight from SQLite when the row reads a
    /// statement; throws a ``RowDecodingError`` when the value is NULL or does not convert.
    ///
    /// ```swift
    /// let count = try row.decode(Int.self, atIndex: 0)
    /// ```
    public func decode<Value>(
        _ type: Value.Type = Value.self,
        atIndex index: Int) throws -> Value
    where Value: DatabaseValueConvertible & StatementColumnConvertible
    {
        try fastDecode(Value.self, at: checkedIndex(index)).get()
    }

    /// The value of the leftmost column named `columnName` (case-insensitive), converted to
    /// `Value`; throws a ``RowDecodingError`` when the column is missing (unless `Value` is an
    /// optional), or the value is NULL or does not convert.
    ///
    /// ```swift
    /// let bookCount = try row.decode(Int.self, forColumn: "bookCount")
    /// let nickname: String? = try row.decode(forColumn: "nickname")
    /// ```
    public func decode<Value>(
        _ type: Value.Type = Value.self,
        forColumn columnName: String) throws -> Value
    where Value: DatabaseValueConvertible
    {
        guard let index = index(forColumn: columnName) else {
            if let value = Value.fromMissingColumn() { return value }
            throw RowDecodingError.columnNotFound(columnName, type: Value.self, row: self)
        }
        return try decode(Value.self, at: index).get()
    }

    /// The value of the leftmost column named `columnName`, converted to `Value` straight from
    /// SQLite when the row reads a statement; throws as the other `forColumn` forms.
    ///
    /// ```swift
    /// let score = try row.decode(Int.self, forColumn: "score")
    /// ```
    public func decode<Value>(
        _ type: Value.Type = Value.self,
        forColumn columnName: String) throws -> Value
    where Value: DatabaseValueConvertible & StatementColumnConvertible
    {
        guard let index = index(forColumn: columnName) else {
            if let value = Value.fromMissingColumn() { return value }
            throw RowDecodingError.columnNotFound(columnName, type: Value.self, row: self)
        }
        return try fastDecode(Value.self, at: index).get()
    }

    /// The value of `column`, converted to `Value`; throws as the `String` column name form.
    ///
    /// ```swift
    /// let name = try row.decode(String.self, forColumn: Column("name"))
    /// ```
    public func decode<Value>(
        _ type: Value.Type = Value.self,
        forColumn column: some ColumnExpression) throws -> Value
    where Value: DatabaseValueConvertible
    {
        try decode(Value.self, forColumn: column.name)
    }

    /// The value of `column`, converted to `Value` straight from SQLite when the row reads a
    /// statement; throws as the `String` column name form.
    ///
    /// ```swift
    /// let score = try row.decode(Int.self, forColumn: Player.Columns.score)
    /// ```
    public func decode<Value>(
        _ type: Value.Type = Value.self,
        forColumn column: some ColumnExpression) throws -> Value
    where Value: DatabaseValueConvertible & StatementColumnConvertible
    {
        try decode(Value.self, forColumn: column.name)
    }
}
