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
public protocol FetchRequest<RowDecoder>: SQLSubqueryable, TypedRequest, DatabaseRegionConvertible {
    /// The type fetched: `Row`, a value type, or a record type.
    associatedtype RowDecoder

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

    /// The adapter of the fetched rows, if any.
    public var adapter: (any RowAdapter)?

    /// What runs once the rows are fetched, before they are decoded: the queries of
    /// `including(all:)`, which attach their rows to the fetched ones.
    var supplementaryFetch: ((Database, [Row]) throws -> Void)?

    /// Creates a prepared request.
    public init(statement: Statement, adapter: (any RowAdapter)? = nil) {
        self.statement = statement
        self.adapter = adapter
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

    /// The row adapter.
    public var adapter: (any RowAdapter)?

    /// Creates a request from raw SQL and arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil, cached: Bool = false) {
        self.init(literal: SQL(sql: sql, arguments: arguments), adapter: adapter, cached: cached)
    }

    /// Creates a request from an SQL literal.
    public init(literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil, cached: Bool = false) {
        self.sqlLiteral = sqlLiteral
        self.adapter = adapter
        self.cached = cached
    }

    public var sqlSubquery: SQLSubquery { SQLSubquery(literal: sqlLiteral) }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest {
        let (sql, arguments) = try sqlLiteral.build(db)
        let statement = cached ? try db.fetchStatement(sql: sql) : try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        return PreparedRequest(statement: statement, adapter: adapter)
    }

    /// `SELECT COUNT(*) FROM (sql)`
    public func fetchCount(_ db: Database) throws -> Int {
        let (sql, arguments) = try sqlLiteral.build(db)
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(sql))", arguments: arguments) ?? 0
    }
}

extension SQLRequest where RowDecoder == Row {
    /// Creates a request of rows from raw SQL and arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil, cached: Bool = false) {
        self.init(literal: SQL(sql: sql, arguments: arguments), adapter: adapter, cached: cached)
    }

    /// Creates a request of rows from an SQL literal.
    public init(literal sqlLiteral: SQL, adapter: (any RowAdapter)? = nil, cached: Bool = false) {
        self.sqlLiteral = sqlLiteral
        self.adapter = adapter
        self.cached = cached
    }
}

extension SQLRequest: ExpressibleByStringLiteral, ExpressibleByUnicodeScalarLiteral, ExpressibleByExtendedGraphemeClusterLiteral {
    public init(stringLiteral value: String) {
        self.init(sql: value)
    }
}

extension SQLRequest: ExpressibleByStringInterpolation {
    public init(stringInterpolation sqlInterpolation: SQLInterpolation) {
        self.init(literal: SQL(stringInterpolation: sqlInterpolation))
    }
}

// MARK: - Adapted requests

extension FetchRequest {
    /// Returns a request whose rows go through the adapter the closure returns. When the
    /// request has an adapter already, the new one adapts its result.
    ///
    /// ```swift
    /// let request = SQLRequest<Row>(sql: "SELECT player.*, team.* FROM player JOIN team ON ...")
    ///     .adapted { db in
    ///         let adapters = try splittingRowAdapters(columnCounts: [
    ///             Player.numberOfSelectedColumns(db)])
    ///         return ScopeAdapter(base: adapters[0], scopes: ["team": adapters[1]])
    ///     }
    /// ```
    public func adapted(_ adapter: @escaping @Sendable (Database) throws -> any RowAdapter) -> AdaptedFetchRequest<Self> {
        AdaptedFetchRequest(base: self, adapter: adapter)
    }
}

/// A request whose rows go through a ``RowAdapter``; see ``FetchRequest/adapted(_:)``.
public struct AdaptedFetchRequest<Base: FetchRequest>: FetchRequest {
    public typealias RowDecoder = Base.RowDecoder

    let base: Base
    let adapter: @Sendable (Database) throws -> any RowAdapter

    public var sqlSubquery: SQLSubquery { base.sqlSubquery }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest {
        var prepared = try base.makePreparedRequest(db, forSingleResult: singleResult)
        let adapter = try self.adapter(db)
        prepared.adapter = prepared.adapter.map { ChainedAdapter(first: $0, second: adapter) } ?? adapter
        return prepared
    }

    public func fetchCount(_ db: Database) throws -> Int {
        try base.fetchCount(db)
    }
}

extension AdaptedFetchRequest: Sendable where Base: Sendable {}

// MARK: - Fetching

// Requests fetch through the static methods below, which run the prepared statement with its
// adapter.

extension FetchRequest where RowDecoder == Row {
    /// Returns a cursor over the fetched rows.
    public func fetchCursor(_ db: Database) throws -> RowCursor {
        try Row.fetchCursor(db, self)
    }

    /// Returns an array of the fetched rows.
    public func fetchAll(_ db: Database) throws -> [Row] {
        try Row.fetchAll(db, self)
    }

    /// Returns a set of the fetched rows.
    public func fetchSet(_ db: Database) throws -> Set<Row> {
        try Row.fetchSet(db, self)
    }

    /// Returns the first fetched row, if any.
    public func fetchOne(_ db: Database) throws -> Row? {
        try Row.fetchOne(db, self)
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible {
    /// Returns a cursor over the fetched values.
    public func fetchCursor(_ db: Database) throws -> DatabaseValueCursor<RowDecoder> {
        try RowDecoder.fetchCursor(db, self)
    }

    /// Returns an array of the fetched values.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(db, self)
    }

    /// Returns the first fetched value, if any (a NULL value gives what
    /// `fromDatabaseValue(.null)` gives).
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try RowDecoder.fetchOne(db, self)
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & Hashable {
    /// Returns a set of the fetched values.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        try RowDecoder.fetchSet(db, self)
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible {
    /// Returns a cursor over the fetched values (fast path).
    public func fetchCursor(_ db: Database) throws -> FastDatabaseValueCursor<RowDecoder> {
        try RowDecoder.fetchCursor(db, self)
    }

    /// Returns an array of the fetched values (fast path).
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(db, self)
    }

    /// Returns the first fetched value, if any (fast path).
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try RowDecoder.fetchOne(db, self)
    }
}

extension FetchRequest where RowDecoder: DatabaseValueConvertible & StatementColumnConvertible & Hashable {
    /// Returns a set of the fetched values (fast path).
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        try RowDecoder.fetchSet(db, self)
    }
}

extension FetchRequest where RowDecoder: FetchableRecord {
    /// Returns a cursor over the fetched records.
    public func fetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> {
        try RowDecoder.fetchCursor(db, self)
    }

    /// Returns an array of the fetched records.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(db, self)
    }

    /// Returns the first fetched record, if any.
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        try RowDecoder.fetchOne(db, self)
    }
}

extension FetchRequest where RowDecoder: FetchableRecord & Hashable {
    /// Returns a set of the fetched records.
    public func fetchSet(_ db: Database) throws -> Set<RowDecoder> {
        try RowDecoder.fetchSet(db, self)
    }
}

extension Row {
    /// Returns a cursor over the rows of a request.
    ///
    /// ```swift
    /// let rows = try Row.fetchCursor(db, Player.select(Column("name")))
    /// ```
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> RowCursor {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if let rows = try prepared.supplementedRows(db) {
            return RowCursor(statement: prepared.statement, preloaded: rows)
        }
        return try fetchCursor(prepared.statement, adapter: prepared.adapter)
    }

    /// Returns an array of the rows of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Row] {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if let rows = try prepared.supplementedRows(db) { return rows }
        return try fetchAll(prepared.statement, adapter: prepared.adapter)
    }

    /// Returns a set of the rows of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Row> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if let rows = try prepared.supplementedRows(db) { return Set(rows) }
        return try fetchSet(prepared.statement, adapter: prepared.adapter)
    }

    /// Returns the first row of a request, if any.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Row? {
        let prepared = try request.makePreparedRequest(db, forSingleResult: true)
        if let rows = try prepared.supplementedRows(db) { return rows.first }
        return try fetchOne(prepared.statement, adapter: prepared.adapter)
    }
}

extension DatabaseValueConvertible {
    /// Returns a cursor over the values of a request.
    ///
    /// ```swift
    /// let maxScore = try Int.fetchOne(db, Player.select(max(Column("score"))))
    /// ```
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> DatabaseValueCursor<Self> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        return try fetchCursor(prepared.statement, adapter: prepared.adapter)
    }

    /// Returns an array of the values of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        return try fetchAll(prepared.statement, adapter: prepared.adapter)
    }

    /// Returns the first value of a request, if any (a NULL value gives what
    /// `fromDatabaseValue(.null)` gives).
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        let prepared = try request.makePreparedRequest(db, forSingleResult: true)
        return try fetchOne(prepared.statement, adapter: prepared.adapter)
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    /// Returns a set of the values of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        return try fetchSet(prepared.statement, adapter: prepared.adapter)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// Returns a cursor over the values of a request (fast path).
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> FastDatabaseValueCursor<Self> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        return try fetchCursor(prepared.statement, adapter: prepared.adapter)
    }

    /// Returns an array of the values of a request (fast path).
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        return try fetchAll(prepared.statement, adapter: prepared.adapter)
    }

    /// Returns the first value of a request, if any (fast path).
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        let prepared = try request.makePreparedRequest(db, forSingleResult: true)
        return try fetchOne(prepared.statement, adapter: prepared.adapter)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible & Hashable {
    /// Returns a set of the values of a request (fast path).
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        return try fetchSet(prepared.statement, adapter: prepared.adapter)
    }
}

extension FetchableRecord {
    /// Returns a cursor over the records of a request.
    ///
    /// ```swift
    /// let players = try Player.fetchAll(db, SQLRequest(sql: "SELECT * FROM player"))
    /// ```
    public static func fetchCursor(_ db: Database, _ request: some FetchRequest) throws -> RecordCursor<Self> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if let rows = try prepared.supplementedRows(db) {
            return RecordCursor(statement: prepared.statement, preloaded: rows)
        }
        return try fetchCursor(prepared.statement, adapter: prepared.adapter)
    }

    /// Returns an array of the records of a request.
    public static func fetchAll(_ db: Database, _ request: some FetchRequest) throws -> [Self] {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if let rows = try prepared.supplementedRows(db) { return try decodeAll(rows) }
        return try fetchAll(prepared.statement, adapter: prepared.adapter)
    }

    /// Returns the first record of a request, if any.
    public static func fetchOne(_ db: Database, _ request: some FetchRequest) throws -> Self? {
        let prepared = try request.makePreparedRequest(db, forSingleResult: true)
        if let rows = try prepared.supplementedRows(db) { return try rows.first.map { try Self(row: $0) } }
        return try fetchOne(prepared.statement, adapter: prepared.adapter)
    }
}

extension FetchableRecord where Self: Hashable {
    /// Returns a set of the records of a request.
    public static func fetchSet(_ db: Database, _ request: some FetchRequest) throws -> Set<Self> {
        let prepared = try request.makePreparedRequest(db, forSingleResult: false)
        if let rows = try prepared.supplementedRows(db) { return try Set(rows.map { try Self(row: $0) }) }
        return try fetchSet(prepared.statement, adapter: prepared.adapter)
    }
}

extension PreparedRequest {
    /// The fetched rows with their prefetched rows attached, or nil when the request prefetches
    /// nothing (rows are then read from the statement as usual).
    func supplementedRows(_ db: Database) throws -> [Row]? {
        guard let supplementaryFetch else { return nil }
        let rows = try Row.fetchAll(statement, adapter: adapter)
        try supplementaryFetch(db, rows)
        return rows
    }
}

// MARK: - AnyFetchRequest

/// A type-erased ``FetchRequest``: requests of different types, stored in one variable or
/// returned by one function.
///
/// ```swift
/// func bestPlayers(fromTeam team: String?) -> AnyFetchRequest<Player> {
///     if let team {
///         return AnyFetchRequest(Player.filter(Column("team") == team).order(Column("score").desc))
///     }
///     return AnyFetchRequest(SQLRequest<Player>(sql: "SELECT * FROM player ORDER BY score DESC"))
/// }
/// let players = try bestPlayers(fromTeam: "red").fetchAll(db)
/// ```
public struct AnyFetchRequest<RowDecoder>: FetchRequest, @unchecked Sendable {
    // Unchecked: the wrapped request is a value the initializer received; GRDB's requests
    // are Sendable, and the box never mutates it.
    private let request: any FetchRequest

    /// Wraps a request.
    public init(_ request: some FetchRequest<RowDecoder>) {
        self.request = request
    }

    private init(erased request: any FetchRequest) {
        self.request = request
    }

    /// The same request, fetching another type.
    public func asRequest<T>(of type: T.Type) -> AnyFetchRequest<T> {
        AnyFetchRequest<T>(erased: request)
    }

    public var sqlSubquery: SQLSubquery { request.sqlSubquery }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool = false) throws -> PreparedRequest {
        try request.makePreparedRequest(db, forSingleResult: singleResult)
    }

    public func fetchCount(_ db: Database) throws -> Int {
        try request.fetchCount(db)
    }
}
