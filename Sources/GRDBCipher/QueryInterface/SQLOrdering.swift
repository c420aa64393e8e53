/// A type that can sort rows: columns, expressions, and their `asc`/`desc` forms.
///
/// ```swift
/// Player.order(Column("score").desc, Column("name")) // ORDER BY "score" DESC, "name"
/// ```
public protocol SQLOrderingTerm: Sendable {
    /// The ordering term.
    var sqlOrdering: SQLOrdering { get }
}

extension SQLOrderingTerm where Self: RawRepresentable, Self.RawValue: SQLOrderingTerm {
    /// The ordering of the raw value.
    public var sqlOrdering: SQLOrdering { rawValue.sqlOrdering }
}

/// An ordering term of an `ORDER BY` clause.
public struct SQLOrdering: SQLOrderingTerm, Sendable {
    enum Kind: Sendable {
        case expression(SQLExpression)
        case asc(SQLExpression)
        case desc(SQLExpression)
        case ascNullsLast(SQLExpression)
        case descNullsFirst(SQLExpression)
        case literal(SQL)
    }

    let kind: Kind

    public var sqlOrdering: SQLOrdering { self }

    /// The ordering in the opposite direction. Raw SQL orderings can not be reversed.
    var reversed: SQLOrdering {
        get throws {
            switch kind {
            case .expression(let expression), .asc(let expression): return SQLOrdering(kind: .desc(expression))
            case .desc(let expression): return SQLOrdering(kind: .asc(expression))
            case .ascNullsLast(let expression): return SQLOrdering(kind: .descNullsFirst(expression))
            case .descNullsFirst(let expression): return SQLOrdering(kind: .ascNullsLast(expression))
            case .literal:
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "a raw SQL ordering can not be reversed: give it as an expression, SQL(\"...\").sqlExpression")
            }
        }
    }

    func qualified(with alias: TableAliasBase) -> SQLOrdering {
        switch kind {
        case .expression(let expression): return SQLOrdering(kind: .expression(expression.qualified(with: alias)))
        case .asc(let expression): return SQLOrdering(kind: .asc(expression.qualified(with: alias)))
        case .desc(let expression): return SQLOrdering(kind: .desc(expression.qualified(with: alias)))
        case .ascNullsLast(let expression): return SQLOrdering(kind: .ascNullsLast(expression.qualified(with: alias)))
        case .descNullsFirst(let expression): return SQLOrdering(kind: .descNullsFirst(expression.qualified(with: alias)))
        case .literal: return self
        }
    }

    func sql(_ context: inout SQLGenerationContext) throws -> String {
        switch kind {
        case .expression(let expression): return try expression.sql(&context)
        case .asc(let expression): return try expression.sql(&context) + " ASC"
        case .desc(let expression): return try expression.sql(&context) + " DESC"
        case .ascNullsLast(let expression): return try expression.sql(&context) + " ASC NULLS LAST"
        case .descNullsFirst(let expression): return try expression.sql(&context) + " DESC NULLS FIRST"
        case .literal(let literal): return try literal.sql(&context)
        }
    }
}

extension SQLSpecificExpressible {
    /// Ascending order (NULLs first): `"score" ASC`.
    public var asc: SQLOrdering { SQLOrdering(kind: .asc(sqlExpression)) }
    /// Descending order (NULLs last): `"score" DESC`.
    public var desc: SQLOrdering { SQLOrdering(kind: .desc(sqlExpression)) }
    /// Ascending order with NULLs last: `"score" ASC NULLS LAST`.
    public var ascNullsLast: SQLOrdering { SQLOrdering(kind: .ascNullsLast(sqlExpression)) }
    /// Descending order with NULLs first: `"score" DESC NULLS FIRST`.
    public var descNullsFirst: SQLOrdering { SQLOrdering(kind: .descNullsFirst(sqlExpression)) }
}

/// A subquery: the SQL of a request, used inside another one.
///
/// ```swift
/// // SELECT * FROM "player" WHERE "score" = (SELECT MAX("score") FROM "player")
/// let maximumScore = Player.select(max(Column("score")))
/// Player.filter(Column("score") == maximumScore)
/// ```
public struct SQLSubquery: SQLSubqueryable, Sendable {
    enum Kind: Sendable {
        case query(SQLQuery)
        case literal(SQL)
    }

    let kind: Kind

    public var sqlSubquery: SQLSubquery { self }

    /// A subquery from raw SQL.
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        kind = .literal(SQL(sql: sql, arguments: arguments))
    }

    /// A subquery from an SQL literal.
    public init(literal sqlLiteral: SQL) {
        kind = .literal(sqlLiteral)
    }

    init(query: SQLQuery) {
        kind = .query(query)
    }

    func sql(_ context: inout SQLGenerationContext) throws -> String {
        switch kind {
        case .query(let query): return try query.sql(&context)
        case .literal(let literal):
            // The unqualified columns of an SQL literal belong to its own FROM clause, not to
            // the table of the request it is interpolated in (LIT-1).
            return try context.withoutCurrentAlias { try literal.sql(&$0) }
        }
    }
}

/// A type that can be used as a subquery: requests.
///
/// ```swift
/// let selectedIds = PlayerSelection.select(Column("playerId"))
/// Player.filter(selectedIds.contains(Column("id"))) // "id" IN (SELECT "playerId" FROM ...)
/// Team.filter(Player.filter(Column("teamId") == teamAlias[Column("id")]).exists())
/// ```
public protocol SQLSubqueryable: SQLSpecificExpressible {
    /// The subquery.
    var sqlSubquery: SQLSubquery { get }
}

extension SQLSubqueryable {
    /// The subquery as an SQL expression.
    public var sqlExpression: SQLExpression { SQLExpression(.subquery(sqlSubquery)) }

    /// `EXISTS (SELECT ...)`: whether the subquery returns rows.
    public func exists() -> SQLExpression {
        SQLExpression(.exists(sqlSubquery, negated: false))
    }

    /// `expression IN (SELECT ...)`.
    public func contains(_ element: some SQLExpressible) -> SQLExpression {
        SQLExpression(.inSubquery(element.sqlExpression, sqlSubquery, negated: false))
    }
}
