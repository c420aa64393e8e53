// The request protocols: each method of the query interface is written once, here, for every
// request that adopts them (`QueryInterfaceRequest` and associations).
//
//   Player.filter(Column("score") > 1000)            // QueryInterfaceRequest
//   Author.books.filter(Column("year") > 2000)        // HasManyAssociation

// MARK: - SelectionRequest

/// A request whose result columns can be defined: `select`, `annotated(with:)`.
///
/// ```swift
/// // SELECT "id", "name" FROM "player"
/// Player.all().select(Column("id"), Column("name"))
/// ```
public protocol SelectionRequest: TypedRequest {
    /// Defines the result columns, replacing the previous ones.
    func select(_ selection: [any SQLSelectable]) -> Self

    /// Defines the result columns when the request runs, with the database at hand.
    func selectWhenConnected(_ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self

    /// Appends result columns to the selection.
    func annotated(with selection: [any SQLSelectable]) -> Self

    /// Appends result columns built when the request runs, with the database at hand.
    func annotatedWhenConnected(with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self
}

extension SelectionRequest {
    /// Defines the result columns.
    public func select(_ selection: any SQLSelectable...) -> Self {
        select(selection)
    }

    /// Defines the result columns with raw SQL.
    public func select(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        select([SQL(sql: sql, arguments: arguments)])
    }

    /// Defines the result columns with an SQL literal.
    public func select(literal sqlLiteral: SQL) -> Self {
        select([sqlLiteral])
    }

    /// Appends result columns to the selection.
    ///
    /// ```swift
    /// // SELECT *, "score" + "bonus" AS "total" FROM "player"
    /// Player.all().annotated(with: (Column("score") + Column("bonus")).forKey("total"))
    /// ```
    public func annotated(with selection: any SQLSelectable...) -> Self {
        annotated(with: selection)
    }
}

extension SelectionRequest where RowDecoder: TableRecord {
    /// The record's database components, handed to the closures of the request methods.
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents

    /// Defines the result columns from the record's columns.
    ///
    /// ```swift
    /// Player.all().select { [$0.id, $0.name] } // SELECT "id", "name" FROM "player"
    /// ```
    public func select(_ selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> Self {
        try select(selection(RowDecoder.databaseComponents))
    }

    /// Defines the result column from the record's columns.
    public func select(_ selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> Self {
        try select([selection(RowDecoder.databaseComponents)])
    }

    /// Appends result columns built from the record's columns.
    public func annotated(with selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> Self {
        try annotated(with: selection(RowDecoder.databaseComponents))
    }

    /// Appends a result column built from the record's columns.
    public func annotated(with selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> Self {
        try annotated(with: [selection(RowDecoder.databaseComponents)])
    }
}

// MARK: - FilteredRequest

/// A request that can be filtered: `filter`, `none`.
///
/// ```swift
/// Player.all().filter(Column("score") > 1000) // WHERE "score" > ?
/// ```
public protocol FilteredRequest: TypedRequest {
    /// Filters rows with a condition built when the request runs, with the database at hand,
    /// added to the previous ones with `AND`.
    func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self
}

extension FilteredRequest {
    /// The request itself: all rows it fetches.
    public func all() -> Self { self }

    /// A request that fetches no row: `WHERE ?`, bound to false, as in GRDB.
    ///
    /// ```swift
    /// let players = try Player.all().none().fetchAll(db) // []
    /// ```
    public func none() -> Self {
        filter(SQLExpression(.value(false.databaseValue)))
    }

    /// Filters rows with a condition, added to the previous ones with `AND`.
    ///
    /// ```swift
    /// Player.all().filter(Column("score") > 1000) // WHERE "score" > ?
    /// ```
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self {
        let expression = predicate.sqlExpression
        return filterWhenConnected { _ in expression }
    }

    /// Filters rows with raw SQL.
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        filter(SQL(sql: sql, arguments: arguments))
    }

    /// Filters rows with an SQL literal.
    public func filter(literal sqlLiteral: SQL) -> Self {
        filter(sqlLiteral)
    }

    /// Filters rows with a condition that needs the database (keys).
    func filter(_ promise: DatabasePromise<SQLExpression>) -> Self {
        filterWhenConnected { db in try promise.resolve(db) }
    }
}

extension FilteredRequest where RowDecoder: TableRecord {
    /// The record's database components, handed to the closures of the request methods.
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents

    /// Filters rows with a condition on the record's columns, added to the previous ones with
    /// `AND`.
    ///
    /// ```swift
    /// Player.all().filter { $0.score > 1000 } // WHERE "score" > 1000
    /// ```
    public func filter(_ predicate: (DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows -> Self {
        try filter(predicate(RowDecoder.databaseComponents).sqlExpression)
    }
}

// MARK: - OrderedRequest

/// A request that can be sorted: `order`, `reversed`, `unordered`.
///
/// ```swift
/// Player.all().order(Column("score").desc, Column("name")) // ORDER BY "score" DESC, "name"
/// ```
public protocol OrderedRequest: TypedRequest {
    /// Sorts rows by terms built when the request runs, with the database at hand, replacing
    /// any previous ordering.
    func orderWhenConnected(_ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]) -> Self

    /// Reverses the ordering; without ordering, the request is unchanged.
    func reversed() -> Self

    /// Removes the ordering.
    func unordered() -> Self

    /// Sorts rows by their current ordering, then by primary key, so that the order is always
    /// the same.
    func withStableOrder() -> Self
}

extension OrderedRequest {
    /// Sorts rows, replacing any previous ordering.
    public func order(_ orderings: [any SQLOrderingTerm]) -> Self {
        let terms = orderings.map(\.sqlOrdering)
        return orderWhenConnected { _ in terms }
    }

    /// Sorts rows, replacing any previous ordering.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        order(orderings)
    }

    /// Sorts rows with raw SQL.
    public func order(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        order([SQL(sql: sql, arguments: arguments)])
    }

    /// Sorts rows with an SQL literal.
    public func order(literal sqlLiteral: SQL) -> Self {
        order([sqlLiteral])
    }
}

extension OrderedRequest where RowDecoder: TableRecord {
    /// The record's database components, handed to the closures of the request methods.
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents

    /// Sorts rows by the record's columns, replacing any previous ordering.
    ///
    /// ```swift
    /// Player.all().order { $0.score.desc } // ORDER BY "score" DESC
    /// ```
    public func order(_ ordering: (DatabaseComponents) throws -> any SQLOrderingTerm) rethrows -> Self {
        try order([ordering(RowDecoder.databaseComponents)])
    }

    /// Sorts rows by the record's columns, replacing any previous ordering.
    public func order(_ orderings: (DatabaseComponents) throws -> [any SQLOrderingTerm]) rethrows -> Self {
        try order(orderings(RowDecoder.databaseComponents))
    }
}

// MARK: - AggregatingRequest

/// A request that can be grouped: `group`, `having`.
///
/// ```swift
/// // SELECT "team", MAX("score") FROM "player" GROUP BY "team" HAVING MIN("score") > ?
/// Player.select(Column("team"), max(Column("score"))).group(Column("team")).having(min(Column("score")) > 100)
/// ```
public protocol AggregatingRequest: TypedRequest {
    /// Groups rows by expressions built when the request runs, with the database at hand.
    func groupWhenConnected(_ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]) -> Self

    /// Filters groups with a condition built when the request runs, with the database at hand,
    /// added to the previous ones with `AND`.
    func havingWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self
}

extension AggregatingRequest {
    /// Groups rows: `GROUP BY`.
    public func group(_ expressions: [any SQLExpressible]) -> Self {
        let terms = expressions.map(\.sqlExpression)
        return groupWhenConnected { _ in terms }
    }

    /// Groups rows: `GROUP BY`.
    public func group(_ expressions: any SQLExpressible...) -> Self {
        group(expressions)
    }

    /// Groups rows with raw SQL.
    public func group(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        group([SQL(sql: sql, arguments: arguments)])
    }

    /// Groups rows with an SQL literal.
    public func group(literal sqlLiteral: SQL) -> Self {
        group([sqlLiteral])
    }

    /// Filters groups: `HAVING`, added to the previous conditions with `AND`.
    public func having(_ predicate: some SQLExpressible) -> Self {
        let expression = predicate.sqlExpression
        return havingWhenConnected { _ in expression }
    }

    /// Filters groups with raw SQL.
    public func having(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        having(SQL(sql: sql, arguments: arguments))
    }

    /// Filters groups with an SQL literal.
    public func having(literal sqlLiteral: SQL) -> Self {
        having(sqlLiteral)
    }
}

extension AggregatingRequest where RowDecoder: TableRecord {
    /// The record's database components, handed to the closures of the request methods.
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents

    /// Groups rows by an expression of the record's columns.
    public func group(_ expression: (DatabaseComponents) throws -> any SQLExpressible) rethrows -> Self {
        try group([expression(RowDecoder.databaseComponents)])
    }

    /// Groups rows by expressions of the record's columns.
    ///
    /// ```swift
    /// Player.all().select { [$0.team, max($0.score)] }.group { [$0.team] }
    /// ```
    public func group(_ expressions: (DatabaseComponents) throws -> [any SQLExpressible]) rethrows -> Self {
        try group(expressions(RowDecoder.databaseComponents))
    }

    /// Filters groups with a condition on the record's columns.
    public func having(_ predicate: (DatabaseComponents) throws -> any SQLExpressible) rethrows -> Self {
        try having(predicate(RowDecoder.databaseComponents).sqlExpression)
    }
}

// MARK: - TableRequest

/// A request that fetches from a database table: keys, primary key ordering, aliases.
///
/// ```swift
/// Player.all().filter(key: 1)         // WHERE "id" = 1
/// Player.all().orderByPrimaryKey()    // ORDER BY "id"
/// ```
public protocol TableRequest: TypedRequest {
    /// The name of the table the request fetches from.
    var databaseTableName: String { get }

    /// Names the request's table, so that other requests can refer to its columns.
    func aliased(_ alias: TableAlias<RowDecoder>) -> Self

    /// Names the request's table with an alias bound to no record type.
    func aliased(_ alias: TableAlias<Void>) -> Self
}

extension TableRequest where Self: FilteredRequest {
    /// Filters by primary key: `WHERE "id" = ?`.
    ///
    /// ```swift
    /// Player.all().filter(key: 1)
    /// ```
    public func filter(key: (some DatabaseValueConvertible)?) -> Self {
        guard let key else { return none() }
        return filter(keys: [key])
    }

    /// Filters by primary keys: `WHERE "id" IN (?, ?)`.
    public func filter(keys: some Collection<some DatabaseValueConvertible>) -> Self {
        filter(KeyFilter.primaryKeys(keys.map { $0 }, tableName: databaseTableName, recordType: RowDecoder.self))
    }

    /// Filters by a primary or unique key: `WHERE ("a" = ?) AND ("b" = ?)`.
    ///
    /// ```swift
    /// Citizenship.all().filter(key: ["citizenId": 1, "countryCode": "FR"])
    /// ```
    public func filter(key: [String: (any DatabaseValueConvertible)?]?) -> Self {
        guard let key else { return none() }
        return filter(keys: [key])
    }

    /// Filters by primary or unique keys.
    public func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> Self {
        filter(KeyFilter.uniqueKeys(keys, tableName: databaseTableName, recordType: RowDecoder.self))
    }
}

extension TableRequest where Self: FilteredRequest, RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// Filters by id: `WHERE "id" = ?`.
    public func filter(id: RowDecoder.ID) -> Self {
        filter(keys: [id])
    }

    /// Filters by ids: `WHERE "id" IN (?, ?)`.
    public func filter(ids: some Collection<RowDecoder.ID>) -> Self {
        filter(keys: ids)
    }
}

extension TableRequest where Self: OrderedRequest {
    /// Sorts rows by primary key (the rowid for tables without an explicit primary key).
    public func orderByPrimaryKey() -> Self {
        let tableName = databaseTableName
        return orderWhenConnected { db in
            try db.primaryKey(tableName).columns.map { SQLOrdering(kind: .expression(SQLExpression(.column($0)))) }
        }
    }
}

extension TableRequest where Self: AggregatingRequest {
    /// Groups rows by primary key.
    public func groupByPrimaryKey() -> Self {
        let tableName = databaseTableName
        return groupWhenConnected { db in
            try db.rowIdentifyingColumns(tableName).map { SQLExpression(.column($0)) }
        }
    }
}

// MARK: - JoinableRequest

/// A request that can join associations: `including`, `joining`, `annotated(withRequired:)`.
///
/// ```swift
/// // SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId"
/// Book.all().including(required: Book.author)
/// ```
public protocol JoinableRequest<RowDecoder>: TypedRequest {
    /// Joins the association as the request asks. Use the typed methods (`including`,
    /// `joining`, `annotated`) instead.
    func _joining(_ association: _SQLAssociation, _ mode: _SQLJoinMode) -> Self
}

extension JoinableRequest {
    /// Fetches the associated record along with each record; records without one are not
    /// fetched: `JOIN`.
    ///
    /// ```swift
    /// // SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId"
    /// let request = Book.all().including(required: Book.author)
    /// ```
    public func including<A: Association>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _joining(association._sqlAssociation, .includingRequired)
    }

    /// Fetches the associated record, if any, along with each record: `LEFT JOIN`.
    public func including<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _joining(association._sqlAssociation, .includingOptional)
    }

    /// Fetches all associated records of each record, with a second query keyed on the
    /// fetched records.
    ///
    /// ```swift
    /// // SELECT * FROM "author"
    /// // SELECT *, "authorId" AS "grdb_authorId" FROM "book" WHERE "authorId" IN (1, 2, 3)
    /// let request = Author.all().including(all: Author.books)
    /// ```
    public func including<A: AssociationToMany>(all association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _joining(association._sqlAssociation, .includingAll)
    }

    /// Keeps only the records that have an associated record, without fetching it: `JOIN`.
    public func joining<A: Association>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _joining(association._sqlAssociation, .joiningRequired)
    }

    /// Joins the associated record, if any, without fetching it: `LEFT JOIN`.
    public func joining<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _joining(association._sqlAssociation, .joiningOptional)
    }

    /// Appends the columns selected by the association to the record's: `JOIN`.
    ///
    /// ```swift
    /// // SELECT "book".*, "author"."name" FROM "book" JOIN "author" ON ...
    /// let request = Book.all().annotated(withRequired: Book.author.select(Column("name")))
    /// ```
    public func annotated<A: Association>(withRequired association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _joining(association._sqlAssociation, .annotatingRequired)
    }

    /// Appends the columns selected by the association to the record's: `LEFT JOIN`.
    public func annotated<A: Association>(withOptional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        _joining(association._sqlAssociation, .annotatingOptional)
    }
}

// MARK: - DerivableRequest

/// A request that can be refined in all the ways of the query interface: the requests of
/// records and the associations.
///
/// ```swift
/// extension DerivableRequest<Book> {
///     func novels() -> Self { filter(Column("kind") == "novel") }
/// }
/// let novels = try Book.all().novels().fetchAll(db)
/// let authors = try Author.including(all: Author.books.novels()).fetchAll(db)
/// ```
public protocol DerivableRequest<RowDecoder>: AggregatingRequest, FilteredRequest, JoinableRequest,
    OrderedRequest, SelectionRequest, TableRequest
{
    /// Returns distinct rows: `SELECT DISTINCT`.
    func distinct() -> Self

    /// Embeds a common table expression: `WITH "name" AS (...) SELECT ...`.
    func with<T>(_ cte: CommonTableExpression<T>) -> Self
}
