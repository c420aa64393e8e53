/// A request that knows how to decode its rows.
public protocol TypedRequest<RowDecoder> {
    /// The type fetched: `Row`, a value type, or a record type.
    associatedtype RowDecoder
}

/// A request that can fetch: `QueryInterfaceRequest`, `SQLRequest`.
///
/// ```swift
/// let request: some FetchRequest<Player> = Player.filter(Column("score") > 1000)
/// let players = try request.fetchAll(db)
/// let count = try request.fetchCount(db)
/// ```
public protocol FetchRequest<RowDecoder>: SQLSubqueryable, TypedRequest {
    /// Returns the prepared statement that runs the request. `singleResult` tells that one
    /// row is wanted, so that the request may add `LIMIT 1`.
    func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest

    /// Returns the number of rows the request would fetch.
    func fetchCount(_ db: Database) throws -> Int
}

extension FetchRequest {
    /// Returns the prepared statement that runs the request.
    public func makePreparedRequest(_ db: Database) throws -> PreparedRequest {
        try makePreparedRequest(db, forSingleResult: false)
    }
}

/// A prepared request: the statement ready to run, with its arguments bound.
///
/// ```swift
/// let prepared = try Player.all().makePreparedRequest(db)
/// print(prepared.statement.sql) // SELECT * FROM "player"
/// ```
public struct PreparedRequest {
    /// The prepared statement.
    public var statement: Statement

    /// Creates a prepared request.
    public init(statement: Statement) {
        self.statement = statement
    }
}

extension Database {
    /// A fetch statement for generated SQL, with its arguments bound.
    func preparedStatement(sql: String, arguments: StatementArguments) throws -> Statement {
        let statement = try fetchStatement(sql: sql)
        try statement.setArguments(arguments)
        return statement
    }
}

// MARK: - SQLRequest

/// A request from raw SQL, that can fetch rows, values or records.
///
/// ```swift
/// let request = SQLRequest<Player>(sql: "SELECT * FROM player WHERE color = ?", arguments: ["red"])
/// let players = try request.fetchAll(db)
///
/// let name = "Arthur"
/// let request: SQLRequest<Player> = "SELECT * FROM player WHERE name = \(name)"
/// ```
public struct SQLRequest<RowDecoder>: FetchRequest, Sendable {
    let sqlLiteral: SQL
    /// Whether the statement goes to the connection's statement cache.
    let cached: Bool

    /// Creates a request from raw SQL and arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments(), cached: Bool = false) {
        self.init(literal: SQL(sql: sql, arguments: arguments), cached: cached)
    }

    /// Creates a request from an SQL literal.
    public init(literal sqlLiteral: SQL, cached: Bool = false) {
        self.sqlLiteral = sqlLiteral
        self.cached = cached
    }

    public var sqlSubquery: SQLSubquery { SQLSubquery(literal: sqlLiteral) }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest {
        let (sql, arguments) = try sqlLiteral.build(db)
        let statement = cached ? try db.fetchStatement(sql: sql) : try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        return PreparedRequest(statement: statement)
    }

    /// `SELECT COUNT(*) FROM (sql)`
    public func fetchCount(_ db: Database) throws -> Int {
        let (sql, arguments) = try sqlLiteral.build(db)
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(sql))", arguments: arguments) ?? 0
    }
}

extension SQLRequest where RowDecoder == Row {
    /// Creates a request of rows from raw SQL and arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments(), cached: Bool = false) {
        self.init(literal: SQL(sql: sql, arguments: arguments), cached: cached)
    }

    /// Creates a request of rows from an SQL literal.
    public init(literal sqlLiteral: SQL, cached: Bool = false) {
        self.sqlLiteral = sqlLiteral
        self.cached = cached
    }
}

extension SQLRequest: ExpressibleByStringLiteral, ExpressibleByUnicodeScalarLiteral, ExpressibleByExtendedGraphemeClusterLiteral {
    public init(stringLiteral value: String) {
        self.init(sql: value)
    }
}

extension SQLRequest: ExpressibleByStringInterpolation {
    public init(stringInterpolation: SQL.StringInterpolation) {
        self.init(literal: SQL(stringInterpolation: stringInterpolation))
    }
}

// MARK: - Fetching

extension FetchRequest where RowDecoder == Row {
    /// Returns a cursor over the fetched rows.
    public func fetchCursor(_ db: Database) throws -> RowCursor {
        try Row.fetchCursor(makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns an array of the fetched rows.
    public func fetchAll(_ db: Database) throws -> [Row] {
        try Row.fetchAll(makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns a set of the fetched rows.
    public func fetchSet(_ db: Database) throws -> Set<Row> {
        try Row.fetchSet(makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns the first fetched row, if any.
    public func fetchOne(_ db: Database) throws -> Row? {
        try Row.fetchOne(makePreparedRequest(db, forSingleResult: true).statement)
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible {
    /// Returns a cursor over the fetched values.
    public func fetchCursor(_ db: Database) throws -> DatabaseValueCursor<RowDecoder> {
        try RowDecoder.fetchCursor(makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns an array of the fetched values.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns the first fetched value, if any and not NULL.
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try RowDecoder.fetchOne(makePreparedRequest(db, forSingleResult: true).statement)
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & Hashable {
    /// Returns a set of the fetched values.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        try RowDecoder.fetchSet(makePreparedRequest(db, forSingleResult: false).statement)
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible {
    /// Returns a cursor over the fetched values (fast path).
    public func fetchCursor(_ db: Database) throws -> FastDatabaseValueCursor<RowDecoder> {
        try RowDecoder.fetchCursor(makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns an array of the fetched values (fast path).
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(makePreparedRequest(db, forSingleResult: false).statement)
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible & Hashable {
    /// Returns a set of the fetched values (fast path).
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        try RowDecoder.fetchSet(makePreparedRequest(db, forSingleResult: false).statement)
    }
}

extension FetchRequest where RowDecoder: FetchableRecord {
    /// Returns a cursor over the fetched records.
    public func fetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> {
        try RowDecoder.fetchCursor(makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns an array of the fetched records.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns the first fetched record, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try RowDecoder.fetchOne(makePreparedRequest(db, forSingleResult: true).statement)
    }
}

extension FetchRequest where RowDecoder: FetchableRecord & Hashable {
    /// Returns a set of the fetched records.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        try RowDecoder.fetchSet(makePreparedRequest(db, forSingleResult: false).statement)
    }
}

extension Row {
    /// Returns a cursor over the rows of a request.
    ///
    /// ```swift
    /// let rows = try Row.fetchCursor(db, Player.select(Column("name")))
    /// ```
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> RowCursor {
        try fetchCursor(request.makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns an array of the rows of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Row] {
        try fetchAll(request.makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns a set of the rows of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Row> {
        try fetchSet(request.makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns the first row of a request, if any.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Row? {
        try fetchOne(request.makePreparedRequest(db, forSingleResult: true).statement)
    }
}

extension DatabaseValueConvertible {
    /// Returns a cursor over the values of a request.
    ///
    /// ```swift
    /// let maxScore = try Int.fetchOne(db, Player.select(max(Column("score"))))
    /// ```
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> DatabaseValueCursor<Self> {
        try fetchCursor(request.makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns an array of the values of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        try fetchAll(request.makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns the first value of a request, if any and not NULL.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        try fetchOne(request.makePreparedRequest(db, forSingleResult: true).statement)
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    /// Returns a set of the values of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        try fetchSet(request.makePreparedRequest(db, forSingleResult: false).statement)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// Returns a cursor over the values of a request (fast path).
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> FastDatabaseValueCursor<Self> {
        try fetchCursor(request.makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns an array of the values of a request (fast path).
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        try fetchAll(request.makePreparedRequest(db, forSingleResult: false).statement)
    }
}

extension FetchableRecord {
    /// Returns a cursor over the records of a request.
    ///
    /// ```swift
    /// let players = try Player.fetchAll(db, SQLRequest(sql: "SELECT * FROM player"))
    /// ```
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> RecordCursor<Self> {
        try fetchCursor(request.makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns an array of the records of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        try fetchAll(request.makePreparedRequest(db, forSingleResult: false).statement)
    }

    /// Returns the first record of a request, if any.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        try fetchOne(request.makePreparedRequest(db, forSingleResult: true).statement)
    }
}

extension FetchableRecord where Self: Hashable {
    /// Returns a set of the records of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        try fetchSet(request.makePreparedRequest(db, forSingleResult: false).statement)
    }
}
