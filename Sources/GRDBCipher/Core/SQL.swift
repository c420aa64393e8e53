import Foundation

/// SQL text with its arguments, built with string interpolation.
///
/// Interpolated values become `?` parameters, so they are never spliced into SQL text:
///
/// ```swift
/// let name = "O'Brien"
/// try db.execute(literal: "INSERT INTO player (name) VALUES (\(name))")
/// // INSERT INTO player (name) VALUES (?) with arguments ["O'Brien"]
///
/// let ids = [1, 2, 3]
/// let query: SQL = "SELECT * FROM player WHERE id IN \(ids)"
/// // SELECT * FROM player WHERE id IN (?,?,?)
///
/// let table = "player"
/// let count: SQL = "SELECT COUNT(*) FROM \(sql: table)" // raw SQL, not a parameter
/// ```
public struct SQL: Sendable {
    enum Element: Sendable {
        case sql(String, StatementArguments)
        case expression(SQLExpression)
        case selection(SQLSelection)
        case ordering(SQLOrdering)
        case subquery(SQLSubquery)
        /// The columns of `table` but `excluded` (lowercased), each qualified with `qualifier`:
        /// `\(columnsOf:)` of a record whose selection uses `.allColumns(excluding:)`.
        case columnsOf(table: String, qualifier: String, excluded: Set<String>)
    }

    var elements: [Element]

    /// Creates SQL from raw text and arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements = [.sql(sql, arguments)]
    }

    /// Creates SQL from an expression: `SQL(Column("score"))` is `"score"`.
    public init(_ expression: some SQLExpressible) {
        elements = [.expression(expression.sqlExpression)]
    }

    init(elements: [Element]) {
        self.elements = elements
    }

    /// Whether the SQL is empty.
    public var isEmpty: Bool {
        elements.allSatisfy {
            if case let .sql(sql, arguments) = $0 { return sql.isEmpty && arguments.isEmpty }
            return false
        }
    }

    /// Returns the SQL text and its arguments.
    ///
    /// ```swift
    /// let query: SQL = "SELECT * FROM player WHERE \(Column("score")) > \(1000)"
    /// let (sql, arguments) = try query.build(db) // SELECT * FROM player WHERE "score" > ?, [1000]
    /// ```
    public func build(_ db: Database) throws -> (sql: String, arguments: StatementArguments) {
        var context = SQLGenerationContext(db)
        let sql = try self.sql(&context)
        return (sql, context.arguments)
    }

    /// The SQL text, with arguments appended to the context.
    func sql(_ context: inout SQLGenerationContext) throws -> String {
        var sql = ""
        for element in elements {
            switch element {
            case let .sql(text, elementArguments):
                sql += try context.rawSQL(text, elementArguments)
            case .expression(let expression):
                sql += try expression.sql(&context)
            case .selection(let selection):
                sql += try selection.sql(&context)
            case .ordering(let ordering):
                sql += try ordering.sql(&context)
            case .subquery(let subquery):
                sql += try subquery.sql(&context)
            case let .columnsOf(table, qualifier, excluded):
                let prefix = qualifier.quotedDatabaseIdentifier + "."
                sql += try SQLSelection.columns(context.db, table: table, excluding: excluded)
                    .map { prefix + $0.quotedDatabaseIdentifier }
                    .joined(separator: ", ")
            }
        }
        return sql
    }

    /// Appends raw SQL and its arguments.
    public mutating func append(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements.append(.sql(sql, arguments))
    }

    /// Appends an SQL literal.
    public mutating func append(literal sqlLiteral: SQL) {
        elements.append(contentsOf: sqlLiteral.elements)
    }

    /// Concatenates two SQL literals.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        SQL(elements: lhs.elements + rhs.elements)
    }

    /// Appends an SQL literal.
    public static func += (lhs: inout SQL, rhs: SQL) {
        lhs.elements += rhs.elements
    }
}

extension SQL: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    public init(stringInterpolation sqlInterpolation: SQLInterpolation) {
        self.init(elements: sqlInterpolation.elements)
    }
}

/// The interpolations of SQL literals: `SQL`, `SQLRequest` and the `literal:` methods build
/// their SQL and arguments from them.
///
/// ```swift
/// let name = "O'Brien"
/// let query: SQL = "SELECT * FROM player WHERE name = \(name)"
/// // SELECT * FROM player WHERE name = ?, with the argument "O'Brien"
/// ```
public struct SQLInterpolation: StringInterpolationProtocol {
    var elements: [SQL.Element] = []

    public init(literalCapacity: Int, interpolationCount: Int) {
        elements.reserveCapacity(2 * interpolationCount + 1)
    }

    public mutating func appendLiteral(_ literal: String) {
        elements.append(.sql(literal, StatementArguments()))
    }

    /// `\(value)`: a `?` parameter, or `NULL` for nil.
    public mutating func appendInterpolation(_ value: (any DatabaseValueConvertible)?) {
        if let value {
            elements.append(.sql("?", [value]))
        } else {
            elements.append(.sql("NULL", StatementArguments()))
        }
    }

    /// `\(data)`: one `?` parameter bound to the blob (not a list of bytes).
    public mutating func appendInterpolation(_ data: Data) {
        elements.append(.sql("?", [data]))
    }

    /// `\(values)`: a parenthesized list of parameters, `(?,?,?)`. An empty sequence gives
    /// `(SELECT NULL WHERE NULL)`, as in GRDB (`x IN` it is false).
    public mutating func appendInterpolation<S: Sequence>(_ values: S) where S.Element: DatabaseValueConvertible {
        let values = values.map { $0 as (any DatabaseValueConvertible)? }
        if values.isEmpty {
            elements.append(.sql(Self.emptyList, StatementArguments()))
            return
        }
        let marks = Array(repeating: "?", count: values.count).joined(separator: ",")
        elements.append(.sql("(\(marks))", StatementArguments(values)))
    }

    /// `\(string)`: a `?` parameter bound to the string (never raw SQL).
    ///
    /// ```swift
    /// let name: Substring = "O'Brien"
    /// let query: SQL = "SELECT * FROM player WHERE name = \(name)" // name = ?
    /// ```
    public mutating func appendInterpolation<S: StringProtocol>(_ string: S) {
        elements.append(.sql("?", [String(string)]))
    }

    /// `\(expressible)`: an expression or value, or `NULL` for nil.
    ///
    /// ```swift
    /// let bonus: (any SQLExpressible)? = Column("bonus")
    /// let query: SQL = "SELECT score + \(bonus) FROM player" // score + "bonus"
    /// ```
    public mutating func appendInterpolation(_ expressible: (any SQLExpressible)?) {
        if let expressible {
            elements.append(.expression(expressible.sqlExpression))
        } else {
            elements.append(.sql("NULL", StatementArguments()))
        }
    }

    /// `\(selection)`: a result column, such as `AllColumns()` (`*`) or an aliased expression.
    ///
    /// ```swift
    /// let query: SQL = "SELECT \(AllColumns()) FROM player" // SELECT * FROM player
    /// ```
    public mutating func appendInterpolation(_ selection: some SQLSelectable) {
        elements.append(.selection(selection.sqlSelection))
    }

    /// `\(selection)`: a result column, or `NULL` for nil.
    public mutating func appendInterpolation(_ selection: (any SQLSelectable)?) {
        if let selection {
            elements.append(.selection(selection.sqlSelection))
        } else {
            elements.append(.sql("NULL", StatementArguments()))
        }
    }

    /// `\(orderingTerm)`: an ordering term, such as `Column("score").desc`.
    ///
    /// ```swift
    /// let query: SQL = "SELECT * FROM player ORDER BY \(Column("score").desc)" // "score" DESC
    /// ```
    public mutating func appendInterpolation(_ orderingTerm: some SQLOrderingTerm) {
        elements.append(.ordering(orderingTerm.sqlOrdering))
    }

    /// `\(orderingTerm)`: an ordering term known only at run time.
    // Disfavored: a coding key that is also a column (`enum CodingKeys: String, CodingKey,
    // ColumnExpression`) would otherwise match it as well as `any CodingKey`. An
    // `any SQLOrderingTerm` value still renders the same, through the generic overload.
    @_disfavoredOverload
    public mutating func appendInterpolation(_ orderingTerm: any SQLOrderingTerm) {
        elements.append(.ordering(orderingTerm.sqlOrdering))
    }

    /// `\(expressions)`: a parenthesized list of expressions, `("a",?,?)`. An empty sequence
    /// gives `(SELECT NULL WHERE NULL)`, as in GRDB (`x IN` it is false).
    ///
    /// ```swift
    /// let candidates = [Column("home"), Column("away")]
    /// let query: SQL = "SELECT * FROM game WHERE \(42) IN \(candidates)" // ? IN ("home","away")
    /// ```
    public mutating func appendInterpolation(_ sequence: some Sequence<some SQLExpressible>) {
        appendList(sequence.map(\.sqlExpression))
    }

    /// `\(expressions)`: a parenthesized list of expressions, `("a",?,?)`.
    public mutating func appendInterpolation(_ sequence: some Sequence<any SQLExpressible>) {
        appendList(sequence.map(\.sqlExpression))
    }

    /// `\(expressible)`: a value that is both an expression and a sequence of expressions is
    /// interpolated as an expression.
    public mutating func appendInterpolation<S>(_ expressible: S) where S: SQLExpressible, S: Sequence, S.Element: SQLExpressible {
        elements.append(.expression(expressible.sqlExpression))
    }

    /// The SQL of an empty list: a subquery without rows, as GRDB writes it.
    private static let emptyList = "(SELECT NULL WHERE NULL)"

    private mutating func appendList(_ expressions: [SQLExpression]) {
        if expressions.isEmpty {
            elements.append(.sql(Self.emptyList, StatementArguments()))
            return
        }
        elements.append(.sql("(", StatementArguments()))
        for (index, expression) in expressions.enumerated() {
            if index > 0 { elements.append(.sql(",", StatementArguments())) }
            elements.append(.expression(expression))
        }
        elements.append(.sql(")", StatementArguments()))
    }

    /// `\(cte)`: the quoted table name of a common table expression.
    ///
    /// ```swift
    /// let cte = CommonTableExpression(named: "top", sql: "SELECT * FROM player ORDER BY score DESC LIMIT 3")
    /// let query: SQL = "WITH \(definitionFor: cte) SELECT * FROM \(cte)"
    /// // WITH "top" AS (SELECT * FROM player ORDER BY score DESC LIMIT 3) SELECT * FROM "top"
    /// ```
    public mutating func appendInterpolation(_ cte: CommonTableExpression<some Any>) {
        elements.append(.sql(cte.tableName.quotedDatabaseIdentifier, StatementArguments()))
    }

    /// `\(definitionFor: cte)`: the definition of a common table expression, for a `WITH`
    /// clause: `"name"("column", ...) AS (SELECT ...)`. Write `WITH RECURSIVE` for a recursive
    /// one.
    public mutating func appendInterpolation(definitionFor cte: CommonTableExpression<some Any>) {
        var head = cte.tableName.quotedDatabaseIdentifier
        if let columns = cte.cte.columns, !columns.isEmpty {
            head += "(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
        }
        elements.append(.sql(head + " AS (", StatementArguments()))
        elements.append(.subquery(cte.cte.subquery))
        elements.append(.sql(")", StatementArguments()))
    }

    /// `\(sql: "raw text")`: raw SQL, with optional arguments.
    public mutating func appendInterpolation(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements.append(.sql(sql, arguments))
    }

    /// `\(literal)`: another SQL literal.
    public mutating func appendInterpolation(_ sqlLiteral: SQL) {
        elements.append(contentsOf: sqlLiteral.elements)
    }

    /// `\(Column("name"))`, `\(expression)`: an expression, such as a column, rendered as
    /// the query interface does (columns quoted, values as parameters).
    public mutating func appendInterpolation(_ expressible: some SQLExpressible & SQLSelectable & SQLOrderingTerm) {
        elements.append(.expression(expressible.sqlExpression))
    }

    /// `\(selection)`: a result column.
    public mutating func appendInterpolation(_ selection: SQLSelection) {
        elements.append(.selection(selection))
    }

    /// `\(ordering)`: an ordering term, such as `Column("score").desc`.
    public mutating func appendInterpolation(_ ordering: SQLOrdering) {
        elements.append(.ordering(ordering))
    }

    /// `\(request)`: a subquery, without parentheses: `SELECT ...`.
    public mutating func appendInterpolation(_ subquery: some SQLSubqueryable) {
        elements.append(.subquery(subquery.sqlSubquery))
    }

    /// `\(Player.self)`: the quoted table name of a record type.
    public mutating func appendInterpolation(_ table: (some TableRecord).Type) {
        elements.append(.sql(table.databaseTableName.quotedDatabaseIdentifier, StatementArguments()))
    }

    /// `\(table)`: the quoted name of a `Table`.
    ///
    /// ```swift
    /// let player = Table("player")
    /// let query: SQL = "SELECT COUNT(*) FROM \(player)" // SELECT COUNT(*) FROM "player"
    /// ```
    public mutating func appendInterpolation<T>(_ table: Table<T>) {
        elements.append(.sql(table.tableName.quotedDatabaseIdentifier, StatementArguments()))
    }

    /// `\(recordType)`: the quoted table name of a record type known only at run time.
    public mutating func appendInterpolation(_ table: any TableRecord.Type) {
        elements.append(.sql(table.databaseTableName.quotedDatabaseIdentifier, StatementArguments()))
    }

    /// `\(tableOf: record)`: the quoted table name of a record's type.
    ///
    /// ```swift
    /// let query: SQL = "DELETE FROM \(tableOf: player) WHERE id = \(player.id)"
    /// ```
    public mutating func appendInterpolation(tableOf record: some TableRecord) {
        appendInterpolation(type(of: record))
    }

    /// `\(tableOf: record)`: the quoted table name of a record's type.
    public mutating func appendInterpolation(tableOf record: any TableRecord) {
        appendInterpolation(type(of: record) as any TableRecord.Type)
    }

    /// `\(key)`: the quoted column name of a coding key.
    ///
    /// ```swift
    /// let query: SQL = "SELECT \(CodingKeys.name) FROM player" // SELECT "name" FROM player
    /// ```
    public mutating func appendInterpolation(_ key: some CodingKey) {
        elements.append(.sql(key.stringValue.quotedDatabaseIdentifier, StatementArguments()))
    }

    /// `\(key)`: a coding key that is also a column (`enum CodingKeys: String, CodingKey,
    /// ColumnExpression`), rendered as the column.
    public mutating func appendInterpolation(_ key: some CodingKey & SQLExpressible & SQLSelectable & SQLOrderingTerm) {
        elements.append(.expression(key.sqlExpression))
    }

    /// `\(key)`: the quoted column name of a coding key.
    public mutating func appendInterpolation(_ key: any CodingKey) {
        elements.append(.sql(key.stringValue.quotedDatabaseIdentifier, StatementArguments()))
    }

    /// `\(collation)`: the name of a built-in collation, in `COLLATE \(…)`.
    public mutating func appendInterpolation(_ collation: Database.CollationName) {
        elements.append(.sql(collation.rawValue, StatementArguments()))
    }

    /// `\(collation)`: the name of a custom collation, in `COLLATE \(…)`.
    ///
    /// ```swift
    /// let query: SQL = "SELECT * FROM city ORDER BY name COLLATE \(DatabaseCollation.localizedCompare)"
    /// ```
    public mutating func appendInterpolation(_ collation: DatabaseCollation) {
        elements.append(.sql(collation.name, StatementArguments()))
    }

    /// `\(identifier: name)`: a quoted identifier.
    public mutating func appendInterpolation(identifier: String) {
        elements.append(.sql(identifier.quotedDatabaseIdentifier, StatementArguments()))
    }

    /// `\(columnsOf: Player.self)`: the columns selected by a record type, qualified with
    /// the table name, or with `tableAlias` when given: `"player".*`, or
    /// `"p"."id", "p"."name"` for a record with a custom `databaseSelection`.
    ///
    /// ```swift
    /// let request: SQLRequest<Row> = """
    ///     SELECT \(columnsOf: Player.self), \(columnsOf: Team.self)
    ///     FROM player JOIN team ON team.id = player.teamId
    ///     """
    /// // SELECT "player".*, "team".* FROM ...
    /// ```
    public mutating func appendInterpolation(columnsOf recordType: (some TableRecord).Type, tableAlias: String? = nil) {
        let qualifier = (tableAlias ?? recordType.databaseTableName).quotedDatabaseIdentifier
        let selections = recordType.databaseSelection.map(\.sqlSelection)
        for (index, selection) in selections.enumerated() {
            if index > 0 { elements.append(.sql(", ", StatementArguments())) }
            switch selection.kind {
            case .allColumns:
                elements.append(.sql("\(qualifier).*", StatementArguments()))
            case .expression(let expression):
                if case .column(let name) = expression.kind {
                    elements.append(.sql("\(qualifier).\(name.quotedDatabaseIdentifier)", StatementArguments()))
                } else {
                    elements.append(.selection(selection))
                }
            case let .allColumnsExcluding(excluded, nil):
                // As GRDB (REC-3): the record's table resolves the columns.
                elements.append(.columnsOf(
                    table: recordType.databaseTableName,
                    qualifier: tableAlias ?? recordType.databaseTableName,
                    excluded: excluded))
            default:
                elements.append(.selection(selection))
            }
        }
    }

    /// `\(literal: literal)`: another SQL literal.
    public mutating func appendInterpolation(literal sqlLiteral: SQL) {
        elements.append(contentsOf: sqlLiteral.elements)
    }
}

extension Sequence where Element == SQL {
    /// Joins SQL literals with a separator.
    ///
    /// ```swift
    /// let conditions: [SQL] = ["score > \(1000)", "name = \("Arthur")"]
    /// let whereClause = conditions.joined(separator: " AND ") // score > ? AND name = ?
    /// ```
    public func joined(separator: String = "") -> SQL {
        var result = SQL(elements: [])
        for (index, literal) in enumerated() {
            if index > 0 { result.append(sql: separator) }
            result.append(literal: literal)
        }
        return result
    }
}

/// Joins SQL literals.
extension Collection where Element == SQL {
    /// Joins SQL literals with a separator.
    ///
    /// ```swift
    /// let columns: [SQL] = ["\(Column("name"))", "\(Column("score"))"]
    /// let query: SQL = "SELECT \(columns.joined(separator: ", ")) FROM player"
    /// // SELECT "name", "score" FROM player
    /// ```
    public func joined(separator: String = "") -> SQL {
        var elements: [SQL.Element] = []
        elements.reserveCapacity(count * 2)
        for (index, literal) in enumerated() {
            if index > 0 && !separator.isEmpty { elements.append(.sql(separator, StatementArguments())) }
            elements.append(contentsOf: literal.elements)
        }
        return SQL(elements: elements)
    }
}

/// Returns `?,?,?` with `count` question marks.
public func databaseQuestionMarks(count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ",")
}

extension String {
    /// The string as a quoted SQL identifier, safe to insert in SQL text.
    ///
    /// ```swift
    /// let tableName = "player list"
    /// try db.execute(sql: "DROP TABLE \(tableName.quotedDatabaseIdentifier)") // DROP TABLE "player list"
    /// ```
    public var quotedDatabaseIdentifier: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
