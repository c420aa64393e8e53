/// What every ``TableAlias`` shares, whatever the record type it is bound to: a table's name in
/// a request, and the expressions that refer to its columns.
///
/// Two aliases are equal when they are the same instance.
public class TableAliasBase: Hashable, @unchecked Sendable {
    // Unchecked: the only stored property is an immutable String.

    /// The name given by the user, if any.
    let userName: String?
    /// Whether the library made the alias for a table of a relation (no expression of the
    /// user refers to it).
    let isImplicit: Bool

    init(userName: String?, isImplicit: Bool = false) {
        self.userName = userName
        self.isImplicit = isImplicit
    }

    public static func == (lhs: TableAliasBase, rhs: TableAliasBase) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// A column of the aliased table.
    ///
    /// ```swift
    /// let team = TableAlias()
    /// team["name"] // "team"."name" once the request names the alias
    /// ```
    public subscript(column: String) -> SQLExpression {
        SQLExpression(.qualifiedColumn(column, self))
    }

    /// An expression whose columns refer to the aliased table.
    public subscript(expression: some SQLSpecificExpressible & SQLSelectable & SQLOrderingTerm) -> SQLExpression {
        expression.sqlExpression.qualified(with: self)
    }

    /// An ordering term whose columns refer to the aliased table.
    public subscript(ordering: some SQLOrderingTerm) -> SQLOrdering {
        ordering.sqlOrdering.qualified(with: self)
    }

    /// A result column whose columns refer to the aliased table.
    public subscript(selectable: some SQLSelectable) -> SQLSelection {
        selectable.sqlSelection.qualified(with: self)
    }
}

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
/// An alias bound to a record type reaches the record's columns by name, through its
/// `Columns` (see ``TableRecord/databaseComponents``):
///
/// ```swift
/// let team = TableAlias<Team>()
/// let players = Player.filter { $0.teamId == team.id }
/// ```
///
/// An alias without a name is named after its table when the SQL is generated (with a number
/// appended when the name is taken). A named alias qualifies every column of its request.
@dynamicMemberLookup
public final class TableAlias<RowDecoder>: TableAliasBase, @unchecked Sendable {
    /// Creates an alias that is bound to no record type, optionally named.
    public init(name: String? = nil) where RowDecoder == () {
        super.init(userName: name)
    }

    /// An alias made by the library for the table of a relation.
    init(implicit: ()) where RowDecoder == () {
        super.init(userName: nil, isImplicit: true)
    }

    /// Creates an alias for a record type, optionally named.
    ///
    /// ```swift
    /// let player = TableAlias<Player>()
    /// let coach = TableAlias(name: "coach", for: Player.self)
    /// ```
    public init(name: String? = nil, for record: RowDecoder.Type = RowDecoder.self) {
        super.init(userName: name)
    }

    /// An expression that tests whether the aliased table's row exists (its primary key is
    /// not NULL), useful with `LEFT JOIN`: `"author"."id" IS NOT NULL`.
    public var exists: SQLExpression {
        SQLExpression(.aliasExists(self, negated: false))
    }
}

extension TableAlias where RowDecoder: TableRecord {
    /// The record's database components (usually its `Columns`).
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents

    /// A column of the record, qualified with the alias: `alias.score`.
    public subscript<T: SQLSpecificExpressible>(dynamicMember keyPath: KeyPath<DatabaseComponents, T>) -> SQLExpression {
        RowDecoder.databaseComponents[keyPath: keyPath].sqlExpression.qualified(with: self)
    }

    /// An ordering of the record, qualified with the alias.
    public subscript<T: SQLOrderingTerm>(dynamicMember keyPath: KeyPath<DatabaseComponents, T>) -> SQLOrdering {
        RowDecoder.databaseComponents[keyPath: keyPath].sqlOrdering.qualified(with: self)
    }

    /// A result column of the record, qualified with the alias.
    public subscript<T: SQLSelectable>(dynamicMember keyPath: KeyPath<DatabaseComponents, T>) -> SQLSelection {
        RowDecoder.databaseComponents[keyPath: keyPath].sqlSelection.qualified(with: self)
    }
}
