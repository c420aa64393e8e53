/// A name for a table in a request, so that expressions can refer to its columns from elsewhere
/// (a subquery, another request).
///
/// ```swift
/// // SELECT * FROM "team" WHERE EXISTS (SELECT * FROM "player" WHERE "teamId" = "team"."id")
/// let teamAlias = TableAlias()
/// let players = Player.filter(Column("teamId") == teamAlias[Column("id")])
/// let teams = Team.aliased(teamAlias).filter(players.exists())
///
/// // SELECT "coach".* FROM "player" "coach" WHERE ...
/// let coachAlias = TableAlias(name: "coach")
/// ```
///
/// An alias without a name is named after its table when the SQL is generated (with a number
/// appended when the name is taken). A named alias qualifies every column of its request.
public final class TableAlias: Sendable {
    /// The name given by the user, if any.
    let userName: String?

    /// Creates an alias named after its table.
    public init() {
        userName = nil
    }

    /// Creates an alias with a name.
    public init(name: String) {
        userName = name
    }

    /// A column of the aliased table.
    public subscript(_ column: String) -> SQLExpression {
        SQLExpression(.qualifiedColumn(column, self))
    }

    /// An expression whose columns refer to the aliased table.
    public subscript(_ expression: some SQLSpecificExpressible) -> SQLExpression {
        expression.sqlExpression.qualified(with: self)
    }

    /// An ordering term whose columns refer to the aliased table.
    public subscript(_ ordering: some SQLOrderingTerm) -> SQLOrdering {
        ordering.sqlOrdering.qualified(with: self)
    }

    /// A result column whose columns refer to the aliased table.
    public subscript(_ selectable: some SQLSelectable) -> SQLSelection {
        selectable.sqlSelection.qualified(with: self)
    }

    /// An expression that tests whether the aliased table's row exists (its rowid is not NULL),
    /// useful with `LEFT JOIN`.
    public var exists: SQLExpression {
        SQLExpression.compare(.notEqual, self[Column.rowID], .null)
    }
}
