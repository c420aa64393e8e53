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
public struct SQL: Sendable, Hashable {
    enum Element: Sendable, Hashable {
        case sql(String, StatementArguments)
    }

    var elements: [Element]

    /// Creates SQL from raw text and arguments.
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements = [.sql(sql, arguments)]
    }

    init(elements: [Element]) {
        self.elements = elements
    }

    /// Whether the SQL is empty.
    public var isEmpty: Bool {
        elements.allSatisfy {
            switch $0 {
            case let .sql(sql, arguments): return sql.isEmpty && arguments.isEmpty
            }
        }
    }

    /// Returns the SQL text and its arguments.
    public func build(_ db: Database) throws -> (sql: String, arguments: StatementArguments) {
        resolved()
    }

    func resolved() -> (sql: String, arguments: StatementArguments) {
        var sql = ""
        var arguments = StatementArguments()
        for element in elements {
            switch element {
            case let .sql(text, elementArguments):
                sql += text
                arguments += elementArguments
            }
        }
        return (sql, arguments)
    }

    /// Appends raw SQL and its arguments.
    public mutating func append(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements.append(.sql(sql, arguments))
    }

    /// Appends an SQL literal.
    public mutating func append(literal sqlLiteral: SQL) {
        elements.append(contentsOf: sqlLiteral.elements)
    }

    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        SQL(elements: lhs.elements + rhs.elements)
    }

    public static func += (lhs: inout SQL, rhs: SQL) {
        lhs.elements += rhs.elements
    }
}

extension SQL: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(elements: stringInterpolation.elements)
    }

    /// The interpolations SQL literals support.
    public struct StringInterpolation: StringInterpolationProtocol {
        var elements: [Element] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            elements.reserveCapacity(2 * interpolationCount + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            elements.append(.sql(literal, StatementArguments()))
        }

        /// `\(value)`: a `?` parameter, or `NULL` for nil.
        public mutating func appendInterpolation(_ value: (any DatabaseValueConvertible)?) {
            elements.append(.sql("?", [value]))
        }

        /// `\(values)`: a parenthesized list of parameters, `(?,?,?)`.
        public mutating func appendInterpolation<S: Sequence>(_ values: S) where S.Element: DatabaseValueConvertible {
            let values = values.map { $0 as (any DatabaseValueConvertible)? }
            let marks = Array(repeating: "?", count: values.count).joined(separator: ",")
            elements.append(.sql("(\(marks))", StatementArguments(values)))
        }

        /// `\(sql: "raw text")`: raw SQL, with optional arguments.
        public mutating func appendInterpolation(sql: String, arguments: StatementArguments = StatementArguments()) {
            elements.append(.sql(sql, arguments))
        }

        /// `\(literal)`: another SQL literal.
        public mutating func appendInterpolation(_ sqlLiteral: SQL) {
            elements.append(contentsOf: sqlLiteral.elements)
        }

        /// `\(literal: literal)`: another SQL literal.
        public mutating func appendInterpolation(literal sqlLiteral: SQL) {
            elements.append(contentsOf: sqlLiteral.elements)
        }
    }
}

extension Sequence where Element == SQL {
    /// Joins SQL literals with a separator.
    public func joined(separator: String = "") -> SQL {
        var result = SQL(elements: [])
        for (index, literal) in enumerated() {
            if index > 0 { result.append(sql: separator) }
            result.append(literal: literal)
        }
        return result
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
