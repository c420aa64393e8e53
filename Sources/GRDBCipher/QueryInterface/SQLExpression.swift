/// A type that can be used as an SQL expression: database values (`Int`, `String`, `Date`…),
/// columns, SQL literals, subqueries.
///
/// ```swift
/// let expression = 1.sqlExpression          // ?
/// let column = Column("score").sqlExpression // "score"
/// ```
public protocol SQLExpressible {
    /// The SQL expression.
    var sqlExpression: SQLExpression { get }
}

/// A database-specific type that can be used as an SQL expression: columns, expressions,
/// `DatabaseValue`, SQL literals. They accept the query interface operators:
///
/// ```swift
/// Column("score") > 1000            // "score" > ?
/// Column("name") == nil             // "name" IS NULL
/// ```
public protocol SQLSpecificExpressible: SQLExpressible, SQLSelectable, SQLOrderingTerm {}

extension SQLSpecificExpressible {
    /// The expression as a selected column.
    public var sqlSelection: SQLSelection { SQLSelection(kind: .expression(sqlExpression)) }
    /// The expression as an ordering term.
    public var sqlOrdering: SQLOrdering { SQLOrdering(kind: .expression(sqlExpression)) }
}

extension DatabaseValueConvertible {
    /// The value as an SQL expression (a bound argument).
    public var sqlExpression: SQLExpression { SQLExpression(.value(databaseValue)) }
}

extension SQLExpressible where Self: RawRepresentable, Self.RawValue: SQLExpressible {
    /// The expression of the raw value.
    public var sqlExpression: SQLExpression { rawValue.sqlExpression }
}

extension SQLExpressible where Self == Column {
    /// The `rowid` column, where an expression is expected: `Player.filter(.rowID == 1)`.
    public static var rowID: Self { Column.rowID }
}

extension Optional: SQLExpressible where Wrapped: SQLExpressible {
    public var sqlExpression: SQLExpression {
        // A switch, not `??`: the query interface's `??` operator (IFNULL) would be chosen,
        // and ask this very property again.
        switch self {
        case .some(let wrapped): return wrapped.sqlExpression
        case .none: return SQLExpression(.value(.null))
        }
    }
}

extension Optional: SQLSelectable where Wrapped: SQLSpecificExpressible {}
extension Optional: SQLOrderingTerm where Wrapped: SQLSpecificExpressible {}
extension Optional: SQLSpecificExpressible where Wrapped: SQLSpecificExpressible {}

extension DatabaseValue: SQLSpecificExpressible {}

extension ColumnExpression {
    /// The column as an SQL expression.
    public var sqlExpression: SQLExpression { SQLExpression(.column(name)) }

    /// The column, never qualified with a table name: use it to refer to a result column
    /// aliased with `forKey(_:)`.
    ///
    /// ```swift
    /// Player
    ///     .select((Column("score") + Column("bonus")).forKey("total"))
    ///     .order(Column("total").detached.desc)
    /// ```
    public var detached: SQLExpression { SQLExpression(.detachedColumn(name)) }
}

extension ColumnExpression where Self == Column {
    /// The `rowid` column, where a column is expected.
    public static var rowID: Self { Column.rowID }
}

extension SQL: SQLSpecificExpressible {
    /// The literal as an expression, that accepts operators and `forKey(_:)`:
    ///
    /// ```swift
    /// let total = SQL("score + bonus").sqlExpression
    /// Player.order(total.desc)
    /// ```
    public var sqlExpression: SQLExpression { SQLExpression(.literal(self)) }
    public var sqlSelection: SQLSelection { SQLSelection(kind: .literal(self)) }
    public var sqlOrdering: SQLOrdering { SQLOrdering(kind: .literal(self)) }
}

/// An SQL expression, built by the query interface.
///
/// ```swift
/// let expression: SQLExpression = Column("score") + Column("bonus")
/// let request = Player.filter(expression > 1000) // SELECT * FROM "player" WHERE "score" + "bonus" > ?
/// ```
public struct SQLExpression: SQLSpecificExpressible, Sendable {
    indirect enum Kind: Sendable {
        /// A value: `?`, or `NULL`.
        case value(DatabaseValue)
        /// A column of the request's table.
        case column(String)
        /// A column of an explicit table alias.
        case qualifiedColumn(String, TableAliasBase)
        /// A column never qualified.
        case detachedColumn(String)
        /// Raw SQL.
        case literal(SQL)
        /// `NOT x`, `-x`, `~x`.
        case unary(UnaryOperator, SQLExpression)
        /// `x = y`, `x - y`…
        case binary(BinaryOperator, SQLExpression, SQLExpression)
        /// `x AND y AND z`, `x + y + z`…
        case associative(AssociativeOperator, [SQLExpression])
        /// `x [NOT] LIKE y [ESCAPE z]`, `x [NOT] GLOB y`, `x MATCH y`
        case pattern(PatternOperator, SQLExpression, SQLExpression, escape: SQLExpression?, negated: Bool)
        /// `x [NOT] BETWEEN y AND z`
        case between(SQLExpression, SQLExpression, SQLExpression, negated: Bool)
        /// `x [NOT] IN (a, b, c)`
        case inList(SQLExpression, [SQLExpression], negated: Bool)
        /// `x [NOT] IN (SELECT ...)`
        case inSubquery(SQLExpression, SQLSubquery, negated: Bool)
        /// `x [NOT] IN "cte"`
        case inTable(SQLExpression, String, negated: Bool)
        /// `[NOT] EXISTS (SELECT ...)`
        case exists(SQLSubquery, negated: Bool)
        /// `(SELECT ...)`
        case subquery(SQLSubquery)
        /// `NAME(a, b)`; `aggregate` tells the query interface the expression aggregates rows.
        case function(String, [SQLExpression], aggregate: Bool, distinct: Bool, filter: SQLExpression?)
        /// `NAME(x ORDER BY y)`, an aggregate with an ordering, and an optional filter.
        case orderedAggregate(String, SQLExpression, SQLOrdering, filter: SQLExpression?)
        /// A constant SQL token that never needs parentheses, such as `1`.
        case constant(String)
        /// `COUNT(*)`, with an optional filter.
        case countAll(filter: SQLExpression?)
        /// `CAST(x AS type)`
        case cast(SQLExpression, String)
        /// `x COLLATE name`
        case collated(SQLExpression, String)
        /// The name of a table in the statement: the alias's name (nil: the request's table),
        /// as in the full-text `"document" MATCH ?`.
        case table(TableAliasBase?)
        /// Whether the row of an aliased table exists (``TableAlias/exists``): its primary key
        /// is not NULL (`negated`: is NULL), written once the table is known.
        case aliasExists(TableAliasBase, negated: Bool)
    }

    enum UnaryOperator: String, Sendable {
        case not = "NOT "
        case negative = "-"
        case bitwiseNot = "~"
    }

    enum BinaryOperator: String, Sendable {
        case equal = "="
        case notEqual = "<>"
        case lessThan = "<"
        case lessThanOrEqual = "<="
        case greaterThan = ">"
        case greaterThanOrEqual = ">="
        case `is` = "IS"
        case isNot = "IS NOT"
        case subtract = "-"
        case divide = "/"
        case leftShift = "<<"
        case rightShift = ">>"
        /// `json -> path`: the JSON representation of a subcomponent (SQLJSONExpressible).
        case jsonRepresentation = "->"
        /// `json ->> path`: the SQL value of a subcomponent (SQLJSONExpressible).
        case jsonValue = "->>"

        /// Comparisons carry the collation of a collated operand at their end.
        var isComparison: Bool {
            switch self {
            case .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .is, .isNot:
                return true
            default:
                return false
            }
        }

        var negated: BinaryOperator? {
            switch self {
            case .equal: return .notEqual
            case .notEqual: return .equal
            case .is: return .isNot
            case .isNot: return .is
            default: return nil
            }
        }
    }

    enum PatternOperator: String, Sendable {
        case like = "LIKE"
        case glob = "GLOB"
        case match = "MATCH"
    }

    let kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
    }

    public var sqlExpression: SQLExpression { self }
}

extension SQLExpression {
    /// An expression from raw SQL and arguments.
    ///
    /// ```swift
    /// let expression = SQLExpression(sql: "score + ?", arguments: [10])
    /// ```
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        self.init(.literal(SQL(sql: sql, arguments: arguments)))
    }

    /// An expression from an SQL literal.
    public init(literal sqlLiteral: SQL) {
        self.init(.literal(sqlLiteral))
    }

    static let null = SQLExpression(.value(.null))

    /// A boolean, bound as an argument (1 or 0), as GRDB binds them: `WHERE ?`.
    static func booleanConstant(_ value: Bool) -> SQLExpression {
        SQLExpression(.value(value.databaseValue))
    }

    /// Whether the expression is the value `true` (a join condition that is no condition).
    var isTrueConstant: Bool {
        if case .value(let value) = kind { return value == true.databaseValue }
        return false
    }

    /// Whether the expression is the NULL value.
    var isNullValue: Bool {
        if case .value(let value) = kind { return value.isNull }
        return false
    }

    /// Whether the expression is a value other than NULL (written `?`).
    var isNonNullValue: Bool {
        if case .value(let value) = kind { return !value.isNull }
        return false
    }

    /// Whether the expression aggregates rows (COUNT, MAX…), or might (raw SQL).
    var mayAggregate: Bool {
        switch kind {
        case .value, .column, .qualifiedColumn, .detachedColumn, .exists, .subquery, .inSubquery, .inTable, .table, .aliasExists:
            return false
        case .literal:
            return true
        case .countAll, .orderedAggregate:
            return true
        case .constant:
            return false
        case let .function(_, arguments, aggregate, _, _):
            return aggregate || arguments.contains { $0.mayAggregate }
        case let .unary(_, expression), let .cast(expression, _), let .collated(expression, _):
            return expression.mayAggregate
        case let .binary(_, lhs, rhs), let .pattern(_, lhs, rhs, _, _):
            return lhs.mayAggregate || rhs.mayAggregate
        case let .associative(_, expressions):
            return expressions.contains { $0.mayAggregate }
        case let .between(expression, lower, upper, _):
            return expression.mayAggregate || lower.mayAggregate || upper.mayAggregate
        case let .inList(expression, list, _):
            return expression.mayAggregate || list.contains { $0.mayAggregate }
        }
    }

    /// Whether the expression is an aggregate, so that a selection of aggregates alone gives
    /// one row: `COUNT(*)`, `MAX("score")`, or operations on aggregates and values
    /// (`MAX("score") + 1`). Raw SQL is not known to be one.
    var isAggregate: Bool {
        switch kind {
        case .countAll, .orderedAggregate:
            return true
        case let .function(_, _, aggregate, _, _):
            return aggregate
        case let .unary(_, expression), let .cast(expression, _), let .collated(expression, _):
            return expression.isAggregate
        case let .binary(_, lhs, rhs):
            return lhs.isAggregateOrValue && rhs.isAggregateOrValue && (lhs.isAggregate || rhs.isAggregate)
        case let .associative(_, expressions):
            return expressions.allSatisfy(\.isAggregateOrValue) && expressions.contains(where: \.isAggregate)
        default:
            return false
        }
    }

    private var isAggregateOrValue: Bool {
        if case .value = kind { return true }
        return isAggregate
    }

    /// The same expression, with the columns of the request's table qualified by `alias`.
    func qualified(with alias: TableAliasBase) -> SQLExpression {
        switch kind {
        case .column(let name):
            return SQLExpression(.qualifiedColumn(name, alias))
        case .value, .qualifiedColumn, .detachedColumn, .literal, .exists, .subquery, .countAll, .constant, .aliasExists:
            return self
        case .table(let tableAlias):
            return tableAlias == nil ? SQLExpression(.table(alias)) : self
        case let .orderedAggregate(name, argument, ordering, filter):
            return SQLExpression(.orderedAggregate(name, argument.qualified(with: alias), ordering.qualified(with: alias), filter: filter?.qualified(with: alias)))
        case let .unary(op, expression):
            return SQLExpression(.unary(op, expression.qualified(with: alias)))
        case let .binary(op, lhs, rhs):
            return SQLExpression(.binary(op, lhs.qualified(with: alias), rhs.qualified(with: alias)))
        case let .associative(op, expressions):
            return SQLExpression(.associative(op, expressions.map { $0.qualified(with: alias) }))
        case let .pattern(op, lhs, rhs, escape, negated):
            return SQLExpression(.pattern(op, lhs.qualified(with: alias), rhs.qualified(with: alias), escape: escape?.qualified(with: alias), negated: negated))
        case let .between(expression, lower, upper, negated):
            return SQLExpression(.between(expression.qualified(with: alias), lower.qualified(with: alias), upper.qualified(with: alias), negated: negated))
        case let .inList(expression, list, negated):
            return SQLExpression(.inList(expression.qualified(with: alias), list.map { $0.qualified(with: alias) }, negated: negated))
        case let .inSubquery(expression, subquery, negated):
            return SQLExpression(.inSubquery(expression.qualified(with: alias), subquery, negated: negated))
        case let .inTable(expression, table, negated):
            return SQLExpression(.inTable(expression.qualified(with: alias), table, negated: negated))
        case let .function(name, arguments, aggregate, distinct, filter):
            return SQLExpression(.function(name, arguments.map { $0.qualified(with: alias) }, aggregate: aggregate, distinct: distinct, filter: filter?.qualified(with: alias)))
        case let .cast(expression, type):
            return SQLExpression(.cast(expression.qualified(with: alias), type))
        case let .collated(expression, collation):
            return SQLExpression(.collated(expression.qualified(with: alias), collation))
        }
    }

    /// The terms of a conjunction: `a AND b AND c` gives `[a, b, c]`.
    var conjunctionTerms: [SQLExpression] {
        if case let .associative(.and, terms) = kind { return terms }
        return [self]
    }

    /// The column compared for equality with a non-NULL value, if the expression is such a
    /// comparison on a column of the request's table (`"id" = ?`).
    func equalityColumn(alias: TableAliasBase) -> String? {
        // `"id" IS NULL` too: as GRDB (SQL-7), a unique key tested against NULL needs no LIMIT.
        if case let .binary(.is, lhs, rhs) = kind, rhs.isNullValue {
            switch lhs.kind {
            case .column(let name): return name
            case let .qualifiedColumn(name, columnAlias) where columnAlias === alias: return name
            default: return nil
            }
        }
        guard case let .binary(.equal, lhs, rhs) = kind else { return nil }
        func column(_ expression: SQLExpression) -> String? {
            switch expression.kind {
            case .column(let name): return name
            case let .qualifiedColumn(name, columnAlias) where columnAlias === alias: return name
            default: return nil
            }
        }
        func isValue(_ expression: SQLExpression) -> Bool {
            if case .value(let value) = expression.kind { return !value.isNull }
            return false
        }
        if let name = column(lhs), isValue(rhs) { return name }
        if let name = column(rhs), isValue(lhs) { return name }
        return nil
    }
}

// MARK: - Building expressions

extension SQLExpression {
    /// The test of ``TableAlias/exists``, as GRDB writes it (ASC-7, PRG-5): the integer primary
    /// key (`"author"."id" IS NOT NULL`), the rowid of a table with another key, each column of
    /// a `WITHOUT ROWID` key, the key a schema source gives a view, or every column of a view.
    static func existenceTest(of alias: TableAliasBase, negated: Bool, _ db: Database, tableName: String?) throws -> SQLExpression {
        var columns = [Column.rowID.name]
        if let tableName {
            if try db.viewExists(tableName) {
                if let primaryKey = try? db.primaryKey(tableName), !primaryKey.columns.isEmpty {
                    columns = primaryKey.columns
                } else {
                    columns = try db.columns(in: tableName).map(\.name)
                }
            } else if try db.tableExists(tableName) {
                let primaryKey = try db.primaryKey(tableName)
                if let rowIDColumn = primaryKey.rowIDColumn {
                    columns = [rowIDColumn]
                } else if try !db.tableHasRowID(tableName) {
                    columns = primaryKey.columns
                }
            }
        }
        if negated && columns.count == 1 {
            return SQLExpression(.binary(.is, SQLExpression(.qualifiedColumn(columns[0], alias)), .null))
        }
        let tests = columns.map {
            SQLExpression(.binary(.isNot, SQLExpression(.qualifiedColumn($0, alias)), .null))
        }
        let exists = SQLExpression.associative(.and, tests)
        return negated ? SQLExpression(.unary(.not, exists)) : exists
    }
}

extension SQLExpression {
    /// A comparison, with `= NULL` turned into `IS NULL` as GRDB does.
    static func compare(_ op: BinaryOperator, _ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        switch op {
        case .equal where rhs.isNullValue:
            return SQLExpression(.binary(.is, lhs, rhs))
        case .equal where lhs.isNullValue:
            return SQLExpression(.binary(.is, rhs, lhs))
        case .notEqual where rhs.isNullValue:
            return SQLExpression(.binary(.isNot, lhs, rhs))
        case .notEqual where lhs.isNullValue:
            return SQLExpression(.binary(.isNot, rhs, lhs))
        default:
            return SQLExpression(.binary(op, lhs, rhs))
        }
    }

    /// `a op b op c`. As GRDB, nested `AND` and `OR` are flattened; arithmetic keeps the
    /// grouping the code wrote (`1 + ("a" + "b")`: SQL-5), which can change REAL results and
    /// overflows.
    static func associative(_ op: AssociativeOperator, _ expressions: [SQLExpression]) -> SQLExpression {
        let flattens = op == .and || op == .or
        var flattened: [SQLExpression] = []
        for expression in expressions {
            if flattens, case let .associative(innerOp, terms) = expression.kind, innerOp == op {
                flattened.append(contentsOf: terms)
            } else {
                flattened.append(expression)
            }
        }
        if flattened.isEmpty { return op.neutralElement }
        if flattened.count == 1 { return flattened[0] }
        return SQLExpression(.associative(op, flattened))
    }

    /// The logical negation, simplified where SQL has a negated form.
    var negated: SQLExpression {
        switch kind {
        case let .value(value):
            // A bound boolean negates to the other one (`!names.contains(x)` for an empty
            // list is `?` with 1); NOT 0 and NOT 1 give the same results.
            if value == false.databaseValue { return .booleanConstant(true) }
            if value == true.databaseValue { return .booleanConstant(false) }
        case let .binary(op, lhs, rhs):
            if let negatedOp = op.negated { return SQLExpression(.binary(negatedOp, lhs, rhs)) }
        case let .pattern(op, lhs, rhs, escape, negated) where op != .match:
            return SQLExpression(.pattern(op, lhs, rhs, escape: escape, negated: !negated))
        case let .between(expression, lower, upper, negated):
            return SQLExpression(.between(expression, lower, upper, negated: !negated))
        case let .inList(expression, list, negated):
            return SQLExpression(.inList(expression, list, negated: !negated))
        case let .inSubquery(expression, subquery, negated):
            return SQLExpression(.inSubquery(expression, subquery, negated: !negated))
        case let .inTable(expression, table, negated):
            return SQLExpression(.inTable(expression, table, negated: !negated))
        case let .exists(subquery, negated):
            return SQLExpression(.exists(subquery, negated: !negated))
        case let .aliasExists(alias, negated):
            return SQLExpression(.aliasExists(alias, negated: !negated))
        default:
            break
        }
        return SQLExpression(.unary(.not, self))
    }

    /// `x IN (list)`, with the list reduced when it has zero or one element.
    static func inList(_ expression: SQLExpression, _ list: [SQLExpression]) -> SQLExpression {
        switch list.count {
        case 0: return .booleanConstant(false)
        case 1: return compare(.equal, expression, list[0])
        default: return SQLExpression(.inList(expression, list, negated: false))
        }
    }
}

extension SQLExpression {
    /// An associative operator that joins a sequence of expressions.
    ///
    /// ```swift
    /// // "score" + "bonus" + ?
    /// [Column("score"), Column("bonus"), 1000.databaseValue].joined(operator: .add)
    /// ```
    public struct AssociativeBinaryOperator: Hashable, Sendable {
        let sql: String
        let neutralSQL: String

        /// `AND`; an empty sequence gives `1` (true).
        public static let and = AssociativeBinaryOperator(sql: "AND", neutralSQL: "1")
        /// `OR`; an empty sequence gives `0` (false).
        public static let or = AssociativeBinaryOperator(sql: "OR", neutralSQL: "0")
        /// `+`; an empty sequence gives `0`.
        public static let add = AssociativeBinaryOperator(sql: "+", neutralSQL: "0")
        /// `*`; an empty sequence gives `1`.
        public static let multiply = AssociativeBinaryOperator(sql: "*", neutralSQL: "1")
        /// `||`; an empty sequence gives `''`.
        public static let concat = AssociativeBinaryOperator(sql: "||", neutralSQL: "''")
        /// `&`; an empty sequence gives `-1` (all bits set).
        public static let bitwiseAnd = AssociativeBinaryOperator(sql: "&", neutralSQL: "-1")
        /// `|`; an empty sequence gives `0`.
        public static let bitwiseOr = AssociativeBinaryOperator(sql: "|", neutralSQL: "0")

        var neutralElement: SQLExpression { SQLExpression(sql: neutralSQL) }
    }

    typealias AssociativeOperator = AssociativeBinaryOperator
}

/// Combines SQL expressions.
extension Sequence where Element: SQLExpressible {
    /// Joins expressions with an operator: `[a, b].joined(operator: .and)` is `a AND b`.
    public func joined(operator: SQLExpression.AssociativeBinaryOperator) -> SQLExpression {
        SQLExpression.associative(`operator`, map(\.sqlExpression))
    }
}

extension Sequence where Element == any SQLExpressible {
    /// Joins expressions with an operator: `[a, b].joined(operator: .and)` is `a AND b`.
    public func joined(operator: SQLExpression.AssociativeBinaryOperator) -> SQLExpression {
        SQLExpression.associative(`operator`, map(\.sqlExpression))
    }
}

extension Sequence where Element == any SQLSpecificExpressible {
    /// Joins expressions with an operator: `[a, b].joined(operator: .and)` is `a AND b`.
    public func joined(operator: SQLExpression.AssociativeBinaryOperator) -> SQLExpression {
        SQLExpression.associative(`operator`, map(\.sqlExpression))
    }
}

// MARK: - SQL generation

extension SQLExpression {
    /// The SQL of the expression. `wrapped` asks for parentheses around compound expressions,
    /// as operands of operators are.
    func sql(_ context: inout SQLGenerationContext, wrapped: Bool = false) throws -> String {
        switch kind {
        case .value(let value):
            if value.isNull { return "NULL" }
            if context.inlinesValues { return value.sqlLiteral }
            context.append(value)
            return "?"
        case .column(let name):
            return context.columnSQL(name, alias: nil)
        case let .qualifiedColumn(name, alias):
            return context.columnSQL(name, alias: alias)
        case .detachedColumn(let name):
            return name.quotedDatabaseIdentifier
        case .literal(let literal):
            let sql = try literal.sql(&context)
            return wrapped ? "(\(sql))" : sql
        case let .unary(op, expression):
            let operand = try expression.sql(&context, wrapped: true)
            let sql = op.rawValue + operand
            // GRDB parenthesizes every unary operation that is an operand: `(-"score") < ?`.
            return wrapped ? "(\(sql))" : sql
        case let .binary(op, lhs, rhs):
            var collation: String?
            var lhs = lhs, rhs = rhs
            if op.isComparison {
                if case let .collated(inner, name) = lhs.kind { lhs = inner; collation = name }
                if case let .collated(inner, name) = rhs.kind { rhs = inner; collation = name }
            }
            var sql = try "\(lhs.sql(&context, wrapped: true)) \(op.rawValue) \(rhs.sql(&context, wrapped: true))"
            if let collation { sql += " COLLATE \(collation)" }
            return wrapped ? "(\(sql))" : sql
        case let .associative(op, expressions):
            let sql = try expressions.map { try $0.sql(&context, wrapped: true) }.joined(separator: " \(op.sql) ")
            return wrapped ? "(\(sql))" : sql
        case let .pattern(op, lhs, rhs, escape, negated):
            var sql = try "\(lhs.sql(&context, wrapped: true)) \(negated ? "NOT " : "")\(op.rawValue) \(rhs.sql(&context, wrapped: true))"
            if let escape { sql += try " ESCAPE \(escape.sql(&context, wrapped: true))" }
            return wrapped ? "(\(sql))" : sql
        case let .between(expression, lower, upper, negated):
            // A collation of the tested value or of the upper bound ends the expression, as
            // GRDB writes it: `"name" BETWEEN ? AND ? COLLATE NOCASE`.
            var expression = expression, upper = upper
            var collation: String?
            if case let .collated(inner, name) = expression.kind { expression = inner; collation = name }
            if case let .collated(inner, name) = upper.kind { upper = inner; collation = name }
            var sql = try "\(expression.sql(&context, wrapped: true)) \(negated ? "NOT " : "")BETWEEN \(lower.sql(&context, wrapped: true)) AND \(upper.sql(&context, wrapped: true))"
            if let collation { sql += " COLLATE \(collation)" }
            return wrapped ? "(\(sql))" : sql
        case let .inList(expression, list, negated):
            // The left side first, then the values, in the order of the SQL text (their
            // arguments are appended in that order).
            var sql = try expression.sql(&context, wrapped: true)
            sql += negated ? " NOT IN (" : " IN ("
            if !context.inlinesValues, list.count > 1, list.allSatisfy(\.isNonNullValue) {
                // Values only (the keys of `including(all:)`): their arguments, and the
                // parameters written at once (`?, ?, ?`) rather than value by value.
                for element in list {
                    if case .value(let value) = element.kind { context.append(value) }
                }
                sql += String(repeating: "?, ", count: list.count - 1)
                sql += "?)"
                return wrapped ? "(\(sql))" : sql
            }
            sql.reserveCapacity(sql.utf8.count + 3 * list.count + 1)
            for (index, element) in list.enumerated() {
                if index > 0 { sql += ", " }
                sql += try element.sql(&context)
            }
            sql += ")"
            return wrapped ? "(\(sql))" : sql
        case let .inSubquery(expression, subquery, negated):
            let sql = try "\(expression.sql(&context, wrapped: true)) \(negated ? "NOT " : "")IN (\(subquery.sql(&context)))"
            return wrapped ? "(\(sql))" : sql
        case let .inTable(expression, table, negated):
            let sql = try "\(expression.sql(&context, wrapped: true)) \(negated ? "NOT " : "")IN \(table.quotedDatabaseIdentifier)"
            return wrapped ? "(\(sql))" : sql
        case let .exists(subquery, negated):
            let sql = try "\(negated ? "NOT " : "")EXISTS (\(subquery.sql(&context)))"
            return wrapped && negated ? "(\(sql))" : sql
        case .subquery(let subquery):
            return try "(\(subquery.sql(&context)))"
        case let .function(name, arguments, _, distinct, filter):
            let list = try arguments.map { try $0.sql(&context) }.joined(separator: ", ")
            var sql = "\(name)(\(distinct ? "DISTINCT " : "")\(list))"
            if let filter { sql += try " FILTER (WHERE \(filter.sql(&context)))" }
            return sql
        case let .orderedAggregate(name, argument, ordering, filter):
            var sql = try "\(name)(\(argument.sql(&context)) ORDER BY \(ordering.sql(&context)))"
            if let filter { sql += try " FILTER (WHERE \(filter.sql(&context)))" }
            return sql
        case .constant(let token):
            return token
        case .countAll(let filter):
            var sql = "COUNT(*)"
            if let filter { sql += try " FILTER (WHERE \(filter.sql(&context)))" }
            return sql
        case let .cast(expression, type):
            return try "CAST(\(expression.sql(&context)) AS \(type))"
        case let .collated(expression, collation):
            let sql = try "\(expression.sql(&context, wrapped: true)) COLLATE \(collation)"
            return wrapped ? "(\(sql))" : sql
        case let .aliasExists(alias, negated):
            let test = try Self.existenceTest(of: alias, negated: negated, context.db, tableName: context.tableName(of: alias))
            return try test.sql(&context, wrapped: wrapped)
        case .table(let alias):
            guard let alias = alias ?? context.currentAlias, let name = context.resolvedName(of: alias) else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a full-text match needs the table of a request")
            }
            return name.quotedDatabaseIdentifier
        }
    }
}
