/// A type that names a database column.
///
/// Columns build SQL expressions for the query interface, and read rows:
///
/// ```swift
/// enum Columns {
///     static let name = Column("name")
/// }
/// let name: String = row[Columns.name]
/// ```
public protocol ColumnExpression: SQLSpecificExpressible {
    /// The name of the column.
    var name: String { get }
}

/// A column of a database table.
public struct Column: ColumnExpression {
    /// The hidden rowid column.
    public static let rowID = Column("rowid")

    /// The name of the column.
    public let name: String

    /// Creates a column.
    public init(_ name: String) {
        self.name = name
    }

    /// Creates a column from a coding key, for Codable records.
    public init(_ codingKey: some CodingKey) {
        self.name = codingKey.stringValue
    }
}

extension Row {
    /// The value of the column: `Int64`, `Double`, `String`, `Data`, or nil.
    public subscript<Column: ColumnExpression>(_ column: Column) -> (any DatabaseValueConvertible)? {
        self[column.name]
    }

    /// The value of the column, converted to `Value`.
    public subscript<Value: DatabaseValueConvertible, Column: ColumnExpression>(_ column: Column) -> Value {
        self[column.name]
    }

    /// The value of the column, converted to `Value` (fast path).
    public subscript<Value: DatabaseValueConvertible & StatementColumnConvertible, Column: ColumnExpression>(_ column: Column) -> Value {
        self[column.name]
    }
}

extension ColumnExpression where Self: RawRepresentable, RawValue == String {
    /// The raw value: `enum Columns: String, ColumnExpression { case id, name }`.
    public var name: String { rawValue }
}
