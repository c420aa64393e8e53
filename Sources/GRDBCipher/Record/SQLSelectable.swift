/// A type that can be selected by a request: a column, an expression, all columns, or an SQL
/// literal.
///
/// ```swift
/// struct Player: TableRecord {
///     static var databaseSelection: [any SQLSelectable] {
///         [Column("id"), Column("name")]
///     }
/// }
/// Player.select(Column("name"), (Column("score") + Column("bonus")).forKey("total"))
/// ```
public protocol SQLSelectable: Sendable {
    /// The selection, as the query interface renders it.
    var sqlSelection: SQLSelection { get }
}

/// A result column of a request.
public struct SQLSelection: Sendable {
    enum Kind: Sendable {
        /// `*`, or `"alias".*` when the request qualifies its columns.
        case allColumns
        /// `"alias".*`
        case qualifiedAllColumns(TableAliasBase)
        /// An expression.
        case expression(SQLExpression)
        /// `expression AS "name"`
        case aliased(SQLExpression, String)
        /// The columns of the table of `alias` (nil: the current SELECT's) but the excluded
        /// ones (lowercased), listed: `"id", "name"`.
        case allColumnsExcluding(Set<String>, TableAliasBase?)
        /// Raw SQL.
        case literal(SQL)
        /// The selection of an annotation (`annotated(withRequired:)`): the columns of the
        /// relation joined through `path` (join keys from the request's table), qualified
        /// with its alias once the request resolves its selection.
        case joined(path: [String], DatabasePromise<[SQLSelection]>)
    }

    let kind: Kind

    /// `*`
    public static let allColumns = SQLSelection(kind: .allColumns)

    /// Whether the selection is `*`.
    var isAllColumns: Bool {
        switch kind {
        case .allColumns, .qualifiedAllColumns: return true
        default: return false
        }
    }

    /// The expression of the selection, if it has one.
    var expression: SQLExpression? {
        switch kind {
        case .expression(let expression), .aliased(let expression, _): return expression
        default: return nil
        }
    }

    /// Whether the selection is an aggregate (see ``SQLExpression/isAggregate``).
    var isAggregate: Bool {
        expression?.isAggregate ?? false
    }

    /// Whether the selection aggregates rows, or might (raw SQL).
    var mayAggregate: Bool {
        switch kind {
        case .allColumns, .qualifiedAllColumns, .allColumnsExcluding: return false
        case .expression(let expression), .aliased(let expression, _): return expression.mayAggregate
        case .literal: return true
        // Columns of a joined table, as GRDB: a request's count ignores them.
        case .joined: return false
        }
    }

    func qualified(with alias: TableAliasBase) -> SQLSelection {
        switch kind {
        case .allColumns: return SQLSelection(kind: .qualifiedAllColumns(alias))
        case .expression(let expression): return SQLSelection(kind: .expression(expression.qualified(with: alias)))
        case let .aliased(expression, name): return SQLSelection(kind: .aliased(expression.qualified(with: alias), name))
        case let .allColumnsExcluding(excluded, nil): return SQLSelection(kind: .allColumnsExcluding(excluded, alias))
        case .qualifiedAllColumns, .allColumnsExcluding, .literal, .joined: return self
        }
    }

    func sql(_ context: inout SQLGenerationContext) throws -> String {
        switch kind {
        case .allColumns:
            return context.qualifier(nil) + "*"
        case .qualifiedAllColumns(let alias):
            return context.qualifier(alias) + "*"
        case .expression(let expression):
            return try expression.sql(&context)
        case let .aliased(expression, name):
            // As GRDB: no parentheses (`"score" * ? AS "s10"`); AS binds looser than any operator.
            return try "\(expression.sql(&context)) AS \(name.quotedDatabaseIdentifier)"
        case .literal(let literal):
            return try literal.sql(&context)
        case .joined:
            // Resolved by the request (`SQLQuery.resolvedSelection`) before SQL is written.
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the columns of an annotation are selected by the request that joins its association")
        case let .allColumnsExcluding(excluded, alias):
            guard let table = context.tableName(of: alias) else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "allColumns(excluding:) needs a table: use it in the selection of a table's request")
            }
            let allColumns = try context.db.columns(in: table).map(\.name)
            let columns = allColumns.filter { !excluded.contains($0.lowercased()) }
            // Nothing excluded: `*`, as GRDB (SQL-7).
            if columns.count == allColumns.count { return context.qualifier(alias) + "*" }
            return columns.map { context.columnSQL($0, alias: alias) }.joined(separator: ", ")
        }
    }

    /// The columns of a table but the excluded ones (lowercased names), in table order.
    static func columns(_ db: Database, table: String, excluding excluded: Set<String>) throws -> [String] {
        try db.columns(in: table).map(\.name).filter { !excluded.contains($0.lowercased()) }
    }
}

extension SQLSelectable where Self: RawRepresentable, Self.RawValue: SQLSelectable {
    /// The selection of the raw value.
    public var sqlSelection: SQLSelection { rawValue.sqlSelection }
}

extension SQLSelection: SQLSelectable {
    public var sqlSelection: SQLSelection { self }
}

/// All columns of a table: `*`.
///
/// ```swift
/// static let databaseSelection: [any SQLSelectable] = [.allColumns, Column.rowID]
/// ```
public struct AllColumns: SQLSelectable {
    /// Creates the `*` selection.
    public init() {}
    public var sqlSelection: SQLSelection { .allColumns }
}

extension SQLSelectable where Self == AllColumns {
    /// All columns: `*`.
    public static var allColumns: AllColumns { AllColumns() }
}

/// All columns of a table but some: the remaining columns, listed.
///
/// ```swift
/// struct Player: TableRecord {
///     // SELECT "id", "name" FROM "player"
///     static var databaseSelection: [any SQLSelectable] {
///         [.allColumns(excluding: ["generatedColumn"])]
///     }
/// }
/// ```
public struct AllColumnsExcluding: SQLSelectable {
    /// The excluded columns, lowercased (column names ignore case).
    let excludedColumns: Set<String>

    /// Creates the selection of all columns but `excludedColumns`.
    public init(_ excludedColumns: some Collection<String>) {
        self.excludedColumns = Set(excludedColumns.map { $0.lowercased() })
    }

    public var sqlSelection: SQLSelection {
        SQLSelection(kind: .allColumnsExcluding(excludedColumns, nil))
    }
}

extension SQLSelectable where Self == AllColumnsExcluding {
    /// All columns but `excludedColumns`.
    ///
    /// ```swift
    /// Player.select(.allColumns(excluding: ["score"])) // SELECT "id", "name" FROM "player"
    /// ```
    public static func allColumns(excluding excludedColumns: some Collection<String>) -> Self {
        AllColumnsExcluding(excludedColumns)
    }

    /// All columns but `excludedColumns`.
    ///
    /// ```swift
    /// Player.select(.allColumns(excluding: [Column("score")]))
    /// ```
    public static func allColumns(excluding excludedColumns: some Collection<any ColumnExpression>) -> Self {
        AllColumnsExcluding(excludedColumns.map(\.name))
    }
}

extension SQLSelectable where Self == Column {
    /// The hidden rowid column: `"rowid"`.
    ///
    /// ```swift
    /// // SELECT *, "rowid" FROM "player"
    /// static var databaseSelection: [any SQLSelectable] { [.allColumns, .rowID] }
    /// ```
    public static var rowID: Column { Column("rowid") }
}

extension SQLSpecificExpressible {
    /// The expression as a result column named `key`: `expression AS "key"`.
    ///
    /// ```swift
    /// // SELECT "score" + "bonus" AS "total" FROM "player"
    /// Player.select((Column("score") + Column("bonus")).forKey("total"))
    /// ```
    public func forKey(_ key: String) -> SQLSelection {
        SQLSelection(kind: .aliased(sqlExpression, key))
    }

    /// The expression as a result column named after a coding key.
    public func forKey(_ key: some CodingKey) -> SQLSelection {
        forKey(key.stringValue)
    }
}

extension [any SQLSelectable] {
    /// The SQL of a selection list.
    func selectionSQL(_ context: inout SQLGenerationContext) throws -> String {
        try map { try $0.sqlSelection.sql(&context) }.joined(separator: ", ")
    }
}

extension [SQLSelection] {
    /// The SQL of a selection list.
    func selectionSQL(_ context: inout SQLGenerationContext) throws -> String {
        try map { try $0.sql(&context) }.joined(separator: ", ")
    }
}
