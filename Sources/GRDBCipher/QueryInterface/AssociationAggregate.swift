// Association aggregates: values computed from the associated records of each record
// (`Author.books.count`), with a LEFT JOIN and a GROUP BY on the record's primary key.
//
//   // SELECT "author".*, COUNT(DISTINCT "book"."id") AS "bookCount"
//   // FROM "author" LEFT JOIN "book" ON "book"."authorId" = "author"."id"
//   // GROUP BY "author"."id"
//   Author.annotated(with: Author.books.count)

/// A value aggregated from the associated records of a to-many association, for
/// `annotated(with:)` and `having(_:)`.
///
/// ```swift
/// struct AuthorInfo: Decodable, FetchableRecord {
///     var author: Author
///     var bookCount: Int
///     var maxBookYear: Int?
/// }
/// let infos = try Author
///     .annotated(with: Author.books.count, Author.books.max(Column("year")))
///     .asRequest(of: AuthorInfo.self)
///     .fetchAll(db)
/// let lazyAuthors = try Author.having(Author.books.isEmpty).fetchAll(db)
/// ```
///
/// Aggregates combine with operators (`Author.books.count + Author.paintings.count`), which
/// drop their default name: name them with ``forKey(_:)-(String)``.
public struct AssociationAggregate<RowDecoder>: Sendable {
    /// The associations to join, each with the alias its expression refers to.
    let associations: [_SQLAssociation]
    /// The aggregated expression, once the database tells the primary keys.
    let expression: @Sendable (Database) throws -> SQLExpression
    /// The name of the result column, if any.
    let key: String?
    /// The negated expression, when it is not `NOT (...)`: `isEmpty` negates to
    /// `COUNT(...) > 0`.
    let negatedExpression: (@Sendable (Database) throws -> SQLExpression)?

    init(
        associations: [_SQLAssociation], key: String?,
        negatedExpression: (@Sendable (Database) throws -> SQLExpression)? = nil,
        expression: @escaping @Sendable (Database) throws -> SQLExpression)
    {
        self.associations = associations
        self.key = key
        self.negatedExpression = negatedExpression
        self.expression = expression
    }

    /// The aggregate, named in the selection: the coding key of the property that decodes it.
    ///
    /// ```swift
    /// Author.annotated(with: Author.books.count.forKey("numberOfBooks"))
    /// ```
    public func forKey(_ key: String) -> AssociationAggregate<RowDecoder> {
        AssociationAggregate(associations: associations, key: key, negatedExpression: negatedExpression, expression: expression)
    }

    /// The aggregate without its name.
    var unnamed: Self {
        AssociationAggregate(associations: associations, key: nil, negatedExpression: negatedExpression, expression: expression)
    }

    /// The negated aggregate.
    var negated: Self {
        if let negatedExpression {
            return AssociationAggregate(associations: associations, key: nil, negatedExpression: expression, expression: negatedExpression)
        }
        return map { !$0 }
    }

    /// The aggregate, named after a coding key.
    public func forKey(_ key: some CodingKey) -> AssociationAggregate<RowDecoder> {
        forKey(key.stringValue)
    }

    /// The selected column of the aggregate.
    func selection(_ db: Database) throws -> SQLSelection {
        let expression = try expression(db)
        if let key { return SQLSelection(kind: .aliased(expression, key)) }
        return SQLSelection(kind: .expression(expression))
    }

    // MARK: Combination

    /// `keepingKey`: the result keeps the aggregate's name (`??` and `cast` do, as in GRDB:
    /// `Team.players.min(\.score) ?? 0` is still `minPlayerScore`); other functions and
    /// operators make an unnamed value.
    func map(keepingKey: Bool = false, _ transform: @escaping @Sendable (SQLExpression) -> SQLExpression) -> AssociationAggregate<RowDecoder> {
        let expression = self.expression
        return AssociationAggregate(associations: associations, key: keepingKey ? key : nil) { db in try transform(expression(db)) }
    }

    static func combine(_ lhs: Self, _ rhs: Self, _ op: @escaping @Sendable (SQLExpression, SQLExpression) -> SQLExpression) -> Self {
        let (l, r) = (lhs.expression, rhs.expression)
        return AssociationAggregate(associations: lhs.associations + rhs.associations, key: nil) { db in try op(l(db), r(db)) }
    }

    static func combine(_ lhs: Self, _ rhs: some SQLExpressible, _ op: @escaping @Sendable (SQLExpression, SQLExpression) -> SQLExpression) -> Self {
        let value = rhs.sqlExpression
        return lhs.map { op($0, value) }
    }

    static func combine(_ lhs: some SQLExpressible, _ rhs: Self, _ op: @escaping @Sendable (SQLExpression, SQLExpression) -> SQLExpression) -> Self {
        let value = lhs.sqlExpression
        return rhs.map { op(value, $0) }
    }
}

// MARK: - Aggregates of to-many associations

extension AssociationToMany {
    /// The association with an alias of its own, and the name aggregates derive their keys
    /// from (`book` for `books`, `person` for `people`).
    private var aggregateBase: (association: _SQLAssociation, alias: TableAliasBase, name: String) {
        var association = _sqlAssociation
        let alias = TableAlias<Void>(implicit: ())
        association.destination.relation = association.destination.relation.withFreshImplicitAliases()
        association.destination.relation.alias = alias
        let name = Inflections.default.singularize(association.destination.key.pluralName)
        return (association, alias, name)
    }

    private func aggregate(
        key: (String) -> String?,
        _ make: @escaping @Sendable (Database, TableAliasBase, String) throws -> SQLExpression)
        -> AssociationAggregate<OriginRowDecoder>
    {
        let (association, alias, name) = aggregateBase
        let tableName = association.destination.relation.tableName
        let box = UncheckedSendable(alias)
        return AssociationAggregate(associations: [association], key: key(name)) { db in
            try make(db, box.value, tableName)
        }
    }

    /// `COUNT(DISTINCT "book"."id")`, named `bookCount`.
    public var count: AssociationAggregate<OriginRowDecoder> {
        aggregate(key: { "\($0)Count" }) { db, alias, tableName in
            try SQLExpression(.function("COUNT", [Self.distinctKey(db, alias, tableName)], aggregate: true, distinct: true, filter: nil))
        }
    }

    /// `COUNT(DISTINCT "book"."id") = 0`, named `hasNoBook`.
    public var isEmpty: AssociationAggregate<OriginRowDecoder> {
        let isEmpty = aggregate(key: { "hasNo\($0.uppercasingFirstLetter)" }) { db, alias, tableName in
            let count = try SQLExpression(.function("COUNT", [Self.distinctKey(db, alias, tableName)], aggregate: true, distinct: true, filter: nil))
            return SQLExpression(.binary(.equal, count, SQLExpression(.constant("0"))))
        }
        // Negated: `COUNT(DISTINCT ...) > 0`.
        let (association, alias, tableName) = (isEmpty.associations[0], UncheckedSendable(isEmpty.associations[0].destination.relation.alias), isEmpty.associations[0].destination.relation.tableName)
        return AssociationAggregate(associations: [association], key: isEmpty.key, negatedExpression: { db in
            let count = try SQLExpression(.function("COUNT", [Self.distinctKey(db, alias.value, tableName)], aggregate: true, distinct: true, filter: nil))
            return SQLExpression(.binary(.greaterThan, count, SQLExpression(.constant("0"))))
        }, expression: isEmpty.expression)
    }

    /// `AVG("book"."price")`, named `averageBookPrice` for a column.
    public func average(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        function("AVG", expression) { name, column in "average\(name.uppercasingFirstLetter)\(column.uppercasingFirstLetter)" }
    }

    /// `MAX("book"."year")`, named `maxBookYear` for a column.
    public func max(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        function("MAX", expression) { name, column in "max\(name.uppercasingFirstLetter)\(column.uppercasingFirstLetter)" }
    }

    /// `MIN("book"."year")`, named `minBookYear` for a column.
    public func min(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        function("MIN", expression) { name, column in "min\(name.uppercasingFirstLetter)\(column.uppercasingFirstLetter)" }
    }

    /// `SUM("book"."pages")`, named `bookPagesSum` for a column.
    public func sum(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        function("SUM", expression) { name, column in "\(name)\(column.uppercasingFirstLetter)Sum" }
    }

    /// `TOTAL("book"."pages")`, named `bookPagesSum` for a column, as the `sum` aggregate.
    public func total(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        function("TOTAL", expression) { name, column in "\(name)\(column.uppercasingFirstLetter)Sum" }
    }

    private func function(
        _ function: String, _ expression: some SQLSpecificExpressible,
        key: @escaping (String, String) -> String) -> AssociationAggregate<OriginRowDecoder>
    {
        let argument = expression.sqlExpression
        let column: String? = {
            switch argument.kind {
            case .column(let name), .qualifiedColumn(let name, _): return name
            default: return nil
            }
        }()
        return aggregate(key: { name in column.map { key(name, $0) } }) { _, alias, _ in
            SQLExpression(.function(function, [argument.qualified(with: alias)], aggregate: true, distinct: false, filter: nil))
        }
    }

    /// The column that tells associated rows apart: the primary key when it is the rowid,
    /// the rowid otherwise (the primary key of a table without rowid).
    static func distinctKey(_ db: Database, _ alias: TableAliasBase, _ tableName: String) throws -> SQLExpression {
        let columns = try db.aggregateKeyColumns(tableName)
        if columns.count == 1 { return SQLExpression(.qualifiedColumn(columns[0], alias)) }
        return SQLExpression(.qualifiedColumn(Column.rowID.name, alias))
    }
}

extension AssociationToMany where RowDecoder: TableRecord {
    /// The record's database components, handed to the closures of the aggregates.
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents

    /// `AVG` of a column of the associated records.
    public func average(_ expression: (DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows -> AssociationAggregate<OriginRowDecoder> {
        try average(expression(RowDecoder.databaseComponents))
    }

    /// `MAX` of a column of the associated records.
    public func max(_ expression: (DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows -> AssociationAggregate<OriginRowDecoder> {
        try max(expression(RowDecoder.databaseComponents))
    }

    /// `MIN` of a column of the associated records.
    public func min(_ expression: (DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows -> AssociationAggregate<OriginRowDecoder> {
        try min(expression(RowDecoder.databaseComponents))
    }

    /// `SUM` of a column of the associated records.
    public func sum(_ expression: (DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows -> AssociationAggregate<OriginRowDecoder> {
        try sum(expression(RowDecoder.databaseComponents))
    }

    /// `TOTAL` of a column of the associated records.
    public func total(_ expression: (DatabaseComponents) throws -> some SQLSpecificExpressible) rethrows -> AssociationAggregate<OriginRowDecoder> {
        try total(expression(RowDecoder.databaseComponents))
    }
}

extension Database {
    /// The columns that tell rows of a table apart for aggregates: the primary key when it is
    /// the rowid (`["id"]`), `["rowid"]` for other tables with a rowid, the primary key of a
    /// table without rowid.
    func aggregateKeyColumns(_ tableName: String) throws -> [String] {
        let primaryKey = try self.primaryKey(tableName)
        guard try tableHasRowID(tableName) else { return primaryKey.columns }
        if primaryKey.columns.count == 1, primaryKey.isRowID { return primaryKey.columns }
        return [Column.rowID.name]
    }
}

extension SQLQuery {
    /// `GROUP BY` of the aggregates: the columns that tell the request's rows apart.
    var aggregateGrouping: DatabasePromise<[SQLExpression]> {
        let tableName = self.tableName
        return DatabasePromise { db in
            try db.aggregateKeyColumns(tableName).map { SQLExpression(.column($0)) }
        }
    }
}

extension String {
    var uppercasingFirstLetter: String {
        prefix(1).uppercased() + dropFirst()
    }
}

// MARK: - Requests

extension DerivableRequest {
    /// Appends aggregated values of associated records to the selection.
    ///
    /// ```swift
    /// // SELECT "author".*, COUNT(DISTINCT "book"."id") AS "bookCount" FROM "author"
    /// // LEFT JOIN "book" ON "book"."authorId" = "author"."id" GROUP BY "author"."id"
    /// let request = Author.all().annotated(with: Author.books.count)
    /// ```
    public func annotated(with aggregates: [AssociationAggregate<RowDecoder>]) -> Self {
        var request = self
        for aggregate in aggregates {
            request = request.joining(aggregate)
            request = request.annotatedWhenConnected { db in try [aggregate.selection(db)] }
        }
        return request
    }

    /// Appends aggregated values of associated records to the selection.
    public func annotated(with aggregates: AssociationAggregate<RowDecoder>...) -> Self {
        annotated(with: aggregates)
    }

    /// Keeps the rows whose aggregated values match a condition.
    ///
    /// ```swift
    /// let lazyAuthors = try Author.all().having(Author.books.isEmpty).fetchAll(db)
    /// ```
    public func having(_ predicate: AssociationAggregate<RowDecoder>) -> Self {
        joining(predicate).havingWhenConnected { db in try predicate.expression(db) }
    }

    private func joining(_ aggregate: AssociationAggregate<RowDecoder>) -> Self {
        aggregate.associations.reduce(self) { request, association in
            request._joining(association, .aggregating)
        }
    }
}

extension TableRecord {
    /// All records, with aggregated values of their associated records.
    public static func annotated(with aggregates: AssociationAggregate<Self>...) -> QueryInterfaceRequest<Self> {
        all().annotated(with: aggregates)
    }

    /// All records, with aggregated values of their associated records.
    public static func annotated(with aggregates: [AssociationAggregate<Self>]) -> QueryInterfaceRequest<Self> {
        all().annotated(with: aggregates)
    }

    /// The records whose aggregated values match a condition.
    public static func having(_ predicate: AssociationAggregate<Self>) -> QueryInterfaceRequest<Self> {
        all().having(predicate)
    }
}

extension Table {
    /// All rows, with aggregated values of their associated rows.
    public func annotated(with aggregates: AssociationAggregate<RowDecoder>...) -> QueryInterfaceRequest<RowDecoder> {
        all().annotated(with: aggregates)
    }

    /// All rows, with aggregated values of their associated rows.
    public func annotated(with aggregates: [AssociationAggregate<RowDecoder>]) -> QueryInterfaceRequest<RowDecoder> {
        all().annotated(with: aggregates)
    }

    /// The rows whose aggregated values match a condition.
    public func having(_ predicate: AssociationAggregate<RowDecoder>) -> QueryInterfaceRequest<RowDecoder> {
        all().having(predicate)
    }
}

// MARK: - Operators

extension AssociationAggregate {
    /// The negation of an aggregate (SQL `NOT`).
    public static prefix func ! (aggregate: Self) -> AssociationAggregate<RowDecoder> { aggregate.negated }
    /// The opposite of an aggregate (SQL unary `-`).
    public static prefix func - (aggregate: Self) -> AssociationAggregate<RowDecoder> { aggregate.map { -$0 } }

    /// Combines two aggregates with SQL `=`.
    public static func == (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 == $1 } }
    /// Combines an aggregate and a value with SQL `=` (or `IS NULL` against nil).
    public static func == (lhs: Self, rhs: (any SQLExpressible)?) -> AssociationAggregate<RowDecoder> { let rhs = rhs?.sqlExpression ?? .null; return lhs.map { $0 == rhs } }
    /// Combines a value and an aggregate with SQL `=` (or `IS NULL` against nil).
    public static func == (lhs: (any SQLExpressible)?, rhs: Self) -> AssociationAggregate<RowDecoder> { let lhs = lhs?.sqlExpression ?? .null; return rhs.map { lhs == $0 } }
    /// The aggregate itself, or its negation, depending on the boolean.
    public static func == (lhs: Self, rhs: Bool) -> AssociationAggregate<RowDecoder> { rhs ? lhs.unnamed : lhs.negated }
    /// The aggregate itself, or its negation, depending on the boolean.
    public static func == (lhs: Bool, rhs: Self) -> AssociationAggregate<RowDecoder> { lhs ? rhs.unnamed : rhs.negated }

    /// Combines two aggregates with SQL `<>`.
    public static func != (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 != $1 } }
    /// Combines an aggregate and a value with SQL `<>` (or `IS NOT NULL` against nil).
    public static func != (lhs: Self, rhs: (any SQLExpressible)?) -> AssociationAggregate<RowDecoder> { let rhs = rhs?.sqlExpression ?? .null; return lhs.map { $0 != rhs } }
    /// Combines a value and an aggregate with SQL `<>` (or `IS NOT NULL` against nil).
    public static func != (lhs: (any SQLExpressible)?, rhs: Self) -> AssociationAggregate<RowDecoder> { let lhs = lhs?.sqlExpression ?? .null; return rhs.map { lhs != $0 } }
    /// The negation of the aggregate, or the aggregate itself, depending on the boolean.
    public static func != (lhs: Self, rhs: Bool) -> AssociationAggregate<RowDecoder> { rhs ? lhs.negated : lhs.unnamed }
    /// The negation of the aggregate, or the aggregate itself, depending on the boolean.
    public static func != (lhs: Bool, rhs: Self) -> AssociationAggregate<RowDecoder> { lhs ? rhs.negated : rhs.unnamed }

    /// Combines two aggregates with SQL `IS`.
    public static func === (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 === $1 } }
    /// Combines an aggregate and a value with SQL `IS`.
    public static func === (lhs: Self, rhs: (any SQLExpressible)?) -> AssociationAggregate<RowDecoder> { let rhs = rhs?.sqlExpression ?? .null; return lhs.map { $0 === rhs } }
    /// Combines a value and an aggregate with SQL `IS`.
    public static func === (lhs: (any SQLExpressible)?, rhs: Self) -> AssociationAggregate<RowDecoder> { let lhs = lhs?.sqlExpression ?? .null; return rhs.map { lhs === $0 } }

    /// Combines two aggregates with SQL `IS NOT`.
    public static func !== (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 !== $1 } }
    /// Combines an aggregate and a value with SQL `IS NOT`.
    public static func !== (lhs: Self, rhs: (any SQLExpressible)?) -> AssociationAggregate<RowDecoder> { let rhs = rhs?.sqlExpression ?? .null; return lhs.map { $0 !== rhs } }
    /// Combines a value and an aggregate with SQL `IS NOT`.
    public static func !== (lhs: (any SQLExpressible)?, rhs: Self) -> AssociationAggregate<RowDecoder> { let lhs = lhs?.sqlExpression ?? .null; return rhs.map { lhs !== $0 } }

    /// Combines two aggregates with SQL `<`.
    public static func < (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 < $1 } }
    /// Combines an aggregate and a value with SQL `<`.
    public static func < (lhs: Self, rhs: some SQLExpressible) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 < $1 } }
    /// Combines a value and an aggregate with SQL `<`.
    public static func < (lhs: some SQLExpressible, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 < $1 } }
    /// Combines two aggregates with SQL `<=`.
    public static func <= (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 <= $1 } }
    /// Combines an aggregate and a value with SQL `<=`.
    public static func <= (lhs: Self, rhs: some SQLExpressible) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 <= $1 } }
    /// Combines a value and an aggregate with SQL `<=`.
    public static func <= (lhs: some SQLExpressible, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 <= $1 } }
    /// Combines two aggregates with SQL `>`.
    public static func > (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 > $1 } }
    /// Combines an aggregate and a value with SQL `>`.
    public static func > (lhs: Self, rhs: some SQLExpressible) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 > $1 } }
    /// Combines a value and an aggregate with SQL `>`.
    public static func > (lhs: some SQLExpressible, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 > $1 } }
    /// Combines two aggregates with SQL `>=`.
    public static func >= (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 >= $1 } }
    /// Combines an aggregate and a value with SQL `>=`.
    public static func >= (lhs: Self, rhs: some SQLExpressible) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 >= $1 } }
    /// Combines a value and an aggregate with SQL `>=`.
    public static func >= (lhs: some SQLExpressible, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 >= $1 } }

    /// Combines two aggregates with SQL `AND`.
    public static func && (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 && $1 } }
    /// Combines an aggregate and a value with SQL `AND`.
    public static func && (lhs: Self, rhs: some SQLExpressible) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 && $1 } }
    /// Combines a value and an aggregate with SQL `AND`.
    public static func && (lhs: some SQLExpressible, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 && $1 } }
    /// Combines two aggregates with SQL `OR`.
    public static func || (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 || $1 } }
    /// Combines an aggregate and a value with SQL `OR`.
    public static func || (lhs: Self, rhs: some SQLExpressible) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 || $1 } }
    /// Combines a value and an aggregate with SQL `OR`.
    public static func || (lhs: some SQLExpressible, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 || $1 } }

    /// Combines two aggregates with SQL `+`.
    public static func + (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 + $1 } }
    /// Combines an aggregate and a value with SQL `+`.
    public static func + (lhs: Self, rhs: some SQLExpressible) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 + $1 } }
    /// Combines a value and an aggregate with SQL `+`.
    public static func + (lhs: some SQLExpressible, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 + $1 } }
    /// Combines two aggregates with SQL `-`.
    public static func - (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 - $1 } }
    /// Combines an aggregate and a value with SQL `-`.
    public static func - (lhs: Self, rhs: some SQLExpressible) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 - $1 } }
    /// Combines a value and an aggregate with SQL `-`.
    public static func - (lhs: some SQLExpressible, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 - $1 } }
    /// Combines two aggregates with SQL `*`.
    public static func * (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 * $1 } }
    /// Combines an aggregate and a value with SQL `*`.
    public static func * (lhs: Self, rhs: some SQLExpressible) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 * $1 } }
    /// Combines a value and an aggregate with SQL `*`.
    public static func * (lhs: some SQLExpressible, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 * $1 } }
    /// Combines two aggregates with SQL `/`.
    public static func / (lhs: Self, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 / $1 } }
    /// Combines an aggregate and a value with SQL `/`.
    public static func / (lhs: Self, rhs: some SQLExpressible) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 / $1 } }
    /// Combines a value and an aggregate with SQL `/`.
    public static func / (lhs: some SQLExpressible, rhs: Self) -> AssociationAggregate<RowDecoder> { combine(lhs, rhs) { $0 / $1 } }

    /// `IFNULL(aggregate, value)`.
    public static func ?? (lhs: Self, rhs: some SQLExpressible) -> AssociationAggregate<RowDecoder> {
        let value = rhs.sqlExpression
        return lhs.map(keepingKey: true) { SQLExpression(.function("IFNULL", [$0, value], aggregate: false, distinct: false, filter: nil)) }
    }
}

/// `ABS(aggregate)`.
public func abs<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>) -> AssociationAggregate<RowDecoder> {
    aggregate.map { abs($0) }
}

/// `LENGTH(aggregate)`.
public func length<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>) -> AssociationAggregate<RowDecoder> {
    aggregate.map { length($0) }
}

/// `CAST(aggregate AS storageClass)`.
public func cast<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>, as storageClass: Database.StorageClass) -> AssociationAggregate<RowDecoder> {
    aggregate.map(keepingKey: true) { cast($0, as: storageClass) }
}
