/// A database table, for requests without a record type.
///
/// ```swift
/// let playerTable = Table("player")
/// let rows = try playerTable.filter(Column("score") > 1000).fetchAll(db) // [Row]
/// let count = try playerTable.fetchCount(db)
/// try playerTable.deleteAll(db)
///
/// let players = try Table<Player>("player").fetchAll(db) // [Player]
/// ```
public struct Table<RowDecoder>: Sendable {
    /// The table name.
    public var tableName: String

    /// Creates a table that fetches `RowDecoder`.
    ///
    /// ```swift
    /// let playerTable = Table<Player>("player")
    /// ```
    public init(_ tableName: String) {
        self.tableName = tableName
    }

    /// The request of all rows of the table: `SELECT * FROM "table"`.
    public func all() -> QueryInterfaceRequest<RowDecoder> {
        QueryInterfaceRequest(query: SQLQuery(tableName: tableName, selection: [.allColumns]))
    }

    /// A request that fetches no row.
    public func none() -> QueryInterfaceRequest<RowDecoder> { all().none() }
    /// A request that selects the given columns or expressions.
    public func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<RowDecoder> { all().select(selection) }
    /// A request that selects the given columns or expressions.
    public func select(_ selection: [any SQLSelectable]) -> QueryInterfaceRequest<RowDecoder> { all().select(selection) }
    /// A request that selects the given columns or expressions, decoded as `type`.
    public func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> { all().select(selection, as: type) }
    /// A request that selects the given columns or expressions, decoded as `type`.
    public func select<T>(_ selection: [any SQLSelectable], as type: T.Type = T.self) -> QueryInterfaceRequest<T> { all().select(selection, as: type) }
    /// A request that selects an SQL snippet.
    public func select(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<RowDecoder> { all().select(sql: sql, arguments: arguments) }
    /// A request that selects an SQL literal.
    public func select(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> { all().select(literal: sqlLiteral) }
    /// A request that selects the primary key, decoded as `type`.
    public func selectPrimaryKey<T>(as type: T.Type = T.self) -> QueryInterfaceRequest<T> { all().selectPrimaryKey(as: type) }
    /// A request that selects all columns, plus the given ones.
    public func annotated(with selection: any SQLSelectable...) -> QueryInterfaceRequest<RowDecoder> { all().annotated(with: selection) }
    /// A request that selects all columns, plus the given ones.
    public func annotated(with selection: [any SQLSelectable]) -> QueryInterfaceRequest<RowDecoder> { all().annotated(with: selection) }
    /// A request that selects an SQL literal, decoded as `type`.
    public func select<T>(literal sqlLiteral: SQL, as type: T.Type = T.self) -> QueryInterfaceRequest<T> { all().select(literal: sqlLiteral, as: type) }
    /// A request that selects an SQL snippet, decoded as `type`.
    public func select<T>(sql: String, arguments: StatementArguments = StatementArguments(), as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(sql: sql, arguments: arguments, as: type)
    }
    /// A request sorted by an SQL literal.
    public func order(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> { all().order(literal: sqlLiteral) }
    /// A request filtered by a boolean expression.
    public func filter(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<RowDecoder> { all().filter(predicate) }
    /// A request filtered by an SQL snippet.
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<RowDecoder> { all().filter(sql: sql, arguments: arguments) }
    /// A request filtered by an SQL literal.
    public func filter(literal sqlLiteral: SQL) -> QueryInterfaceRequest<RowDecoder> { all().filter(literal: sqlLiteral) }
    /// A request filtered by primary key.
    public func filter(key: (some DatabaseValueConvertible)?) -> QueryInterfaceRequest<RowDecoder> { all().filter(key: key) }
    /// A request filtered by a list of primary keys.
    public func filter(keys: some Collection<some DatabaseValueConvertible>) -> QueryInterfaceRequest<RowDecoder> { all().filter(keys: keys) }
    /// A request filtered by a unique key (column names and values).
    public func filter(key: [String: (any DatabaseValueConvertible)?]?) -> QueryInterfaceRequest<RowDecoder> { all().filter(key: key) }
    /// A request filtered by a list of unique keys.
    public func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> QueryInterfaceRequest<RowDecoder> { all().filter(keys: keys) }
    /// A request sorted by the given orderings.
    public func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<RowDecoder> { all().order(orderings) }
    /// A request sorted by the given orderings.
    public func order(_ orderings: [any SQLOrderingTerm]) -> QueryInterfaceRequest<RowDecoder> { all().order(orderings) }
    /// A request sorted by an SQL snippet.
    public func order(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<RowDecoder> { all().order(sql: sql, arguments: arguments) }
    /// A request sorted by primary key.
    public func orderByPrimaryKey() -> QueryInterfaceRequest<RowDecoder> { all().orderByPrimaryKey() }
    /// A request limited to `limit` rows, after skipping `offset` rows.
    public func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<RowDecoder> { all().limit(limit, offset: offset) }
    /// A request whose table is referred to by `alias`.
    public func aliased(_ alias: TableAlias<RowDecoder>) -> QueryInterfaceRequest<RowDecoder> { all().aliased(alias) }
    /// A request whose table is referred to by `alias`.
    public func aliased(_ alias: TableAlias<Void>) -> QueryInterfaceRequest<RowDecoder> { all().aliased(alias) }
    /// A request that embeds a common table expression (`WITH`).
    public func with<T>(_ cte: CommonTableExpression<T>) -> QueryInterfaceRequest<RowDecoder> { all().with(cte) }

    /// The number of rows: `SELECT COUNT(*) FROM "table"`.
    public func fetchCount(_ db: Database) throws -> Int { try all().fetchCount(db) }

    /// Whether the table has no row.
    public func isEmpty(_ db: Database) throws -> Bool { try all().isEmpty(db) }

    /// Deletes all rows, and returns how many were deleted.
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int { try all().deleteAll(db) }

    /// Deletes the rows with these primary keys, and returns how many were deleted.
    @discardableResult
    public func deleteAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Int {
        if keys.isEmpty { return 0 }
        return try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the row with this primary key, and returns whether a row was deleted.
    @discardableResult
    public func deleteOne(_ db: Database, key: (some DatabaseValueConvertible)?) throws -> Bool {
        guard let key else { return false }
        return try filter(keys: [key]).deleteAll(db) > 0
    }

    /// Whether a row exists for this primary key.
    public func exists(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try !filter(key: key).isEmpty(db)
    }

    /// Deletes the rows with these primary or unique keys, and returns how many were deleted.
    ///
    /// ```swift
    /// try Table("citizenship").deleteAll(db, keys: [["citizenId": 1, "countryCode": "FR"]])
    /// ```
    @discardableResult
    public func deleteAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Int {
        if keys.isEmpty { return 0 }
        return try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the row with this primary or unique key, and returns whether a row was deleted.
    ///
    /// ```swift
    /// try Table("player").deleteOne(db, key: ["email": "arthur@example.com"])
    /// ```
    @discardableResult
    public func deleteOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try deleteAll(db, keys: [key]) > 0
    }

    /// Whether a row exists for this primary or unique key.
    ///
    /// ```swift
    /// try Table("player").exists(db, key: ["email": "arthur@example.com"])
    /// ```
    public func exists(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try !filter(key: key).isEmpty(db)
    }

    /// Updates all rows, and returns how many were changed.
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment]) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates all rows, and returns how many were changed.
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: ColumnAssignment...) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }
}

extension Table where RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// The request of the row with this id: `WHERE "id" = ?`. The id is encoded with the
    /// record's strategies when `RowDecoder` is an `EncodableRecord`.
    ///
    /// ```swift
    /// let player = try Table<Player>("player").filter(id: 1).fetchOne(db)
    /// ```
    public func filter(id: RowDecoder.ID) -> QueryInterfaceRequest<RowDecoder> { all().filter(id: id) }

    /// The request of the rows with these ids: `WHERE "id" IN (?, ?)`.
    public func filter(ids: some Collection<RowDecoder.ID>) -> QueryInterfaceRequest<RowDecoder> { all().filter(ids: ids) }

    /// Deletes the row with this id, and returns whether a row was deleted.
    ///
    /// ```swift
    /// try Table<Player>("player").deleteOne(db, id: 1)
    /// ```
    @discardableResult
    public func deleteOne(_ db: Database, id: RowDecoder.ID) throws -> Bool {
        // As GRDB: a nil id (optional `ID`) matches no row, and runs no statement.
        if id.databaseValue.isNull { return false }
        return try deleteAll(db, ids: [id]) > 0
    }

    /// Deletes the rows with these ids, and returns how many were deleted.
    @discardableResult
    public func deleteAll(_ db: Database, ids: some Collection<RowDecoder.ID>) throws -> Int {
        if ids.isEmpty { return 0 }
        return try filter(ids: ids).deleteAll(db)
    }

    /// Whether a row exists for this id.
    public func exists(_ db: Database, id: RowDecoder.ID) throws -> Bool {
        if id.databaseValue.isNull { return false }
        return try !filter(id: id).isEmpty(db)
    }
}

extension Table where RowDecoder == Row {
    /// Creates a table that fetches rows.
    public init(_ tableName: String) {
        self.tableName = tableName
    }
}

extension Table where RowDecoder == Row {
    /// All rows of the table.
    public func fetchCursor(_ db: Database) throws -> RowCursor { try all().fetchCursor(db) }
    /// All rows of the table, in an array.
    public func fetchAll(_ db: Database) throws -> [Row] { try all().fetchAll(db) }
    /// All rows of the table, in a set.
    public func fetchSet(_ db: Database) throws -> Set<Row> { try all().fetchSet(db) }
    /// The first row of the table, if any.
    public func fetchOne(_ db: Database) throws -> Row? { try all().fetchOne(db) }
}

extension Table where RowDecoder: FetchableRecord {
    /// All records of the table.
    public func fetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> { try all().fetchCursor(db) }
    /// All records of the table, in an array.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try all().fetchAll(db) }
    /// The first record of the table, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try all().fetchOne(db) }
}

extension Table where RowDecoder: DatabaseValueConvertible {
    /// All values of the table's single selected column.
    ///
    /// ```swift
    /// let names = try Table<String>("name").fetchAll(db)
    /// ```
    public func fetchCursor(_ db: Database) throws -> DatabaseValueCursor<RowDecoder> { try all().fetchCursor(db) }
    /// All values of the selected column, in an array.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try all().fetchAll(db) }
    /// The first value of the selected column, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try all().fetchOne(db) }
}

extension Table where RowDecoder: DatabaseValueConvertible & Hashable {
    /// All values of the selected column, in a set.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try all().fetchSet(db) }
}

extension Table where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible {
    /// All values of the table's single selected column, read straight from SQLite.
    public func fetchCursor(_ db: Database) throws -> FastDatabaseValueCursor<RowDecoder> { try all().fetchCursor(db) }
    /// All values of the selected column, in an array.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] { try all().fetchAll(db) }
    /// The first value of the selected column, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? { try all().fetchOne(db) }
}

extension Table where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible & Hashable {
    /// All values of the selected column, in a set.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try all().fetchSet(db) }
}

extension Table where RowDecoder: FetchableRecord & Hashable {
    /// All records of the table, in a set.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> { try all().fetchSet(db) }
}

/// A common table expression, for `WITH` clauses.
///
/// ```swift
/// // WITH "playerName" AS (SELECT "name" FROM "player") SELECT * FROM "playerName"
/// let cte = CommonTableExpression(named: "playerName", request: Player.select(Column("name")))
/// let names = try cte.all().with(cte).fetchAll(db)
///
/// // WITH RECURSIVE "counter"("n") AS (SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 10) ...
/// let counter = CommonTableExpression(recursive: true, named: "counter", columns: ["n"],
///     sql: "SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 10")
/// ```
public struct CommonTableExpression<RowDecoder>: Sendable {
    let cte: SQLCTE

    /// The name of the common table expression.
    public var tableName: String { cte.tableName }

    /// Creates a common table expression from a request.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, request: some SQLSubqueryable) {
        cte = SQLCTE(tableName: tableName, isRecursive: recursive, columns: columns, subquery: request.sqlSubquery)
    }

    /// Creates a common table expression from raw SQL.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, sql: String, arguments: StatementArguments = StatementArguments()) {
        self.init(recursive: recursive, named: tableName, columns: columns, literal: SQL(sql: sql, arguments: arguments))
    }

    /// Creates a common table expression from an SQL literal.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, literal sqlLiteral: SQL) {
        cte = SQLCTE(tableName: tableName, isRecursive: recursive, columns: columns, subquery: SQLSubquery(literal: sqlLiteral))
    }

    /// The request of all rows of the common table expression. Embed the expression with
    /// `with(_:)` before fetching.
    public func all() -> QueryInterfaceRequest<RowDecoder> {
        QueryInterfaceRequest(query: SQLQuery(tableName: cte.tableName, selection: [.allColumns]))
    }

    /// `expression IN "cte"`.
    public func contains(_ element: some SQLExpressible) -> SQLExpression {
        SQLExpression(.inTable(element.sqlExpression, cte.tableName, negated: false))
    }
}

extension CommonTableExpression where RowDecoder == Row {
    /// Creates a common table expression of rows from a request.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, request: some SQLSubqueryable) {
        cte = SQLCTE(tableName: tableName, isRecursive: recursive, columns: columns, subquery: request.sqlSubquery)
    }

    /// Creates a common table expression of rows from raw SQL.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, sql: String, arguments: StatementArguments = StatementArguments()) {
        cte = SQLCTE(tableName: tableName, isRecursive: recursive, columns: columns, subquery: SQLSubquery(sql: sql, arguments: arguments))
    }

    /// Creates a common table expression of rows from an SQL literal.
    public init(recursive: Bool = false, named tableName: String, columns: [String]? = nil, literal sqlLiteral: SQL) {
        cte = SQLCTE(tableName: tableName, isRecursive: recursive, columns: columns, subquery: SQLSubquery(literal: sqlLiteral))
    }
}
