/// A type that can be selected by a request: a column, all columns, or an SQL literal.
///
/// ```swift
/// struct Player: TableRecord {
///     static var databaseSelection: [any SQLSelectable] {
///         [Column("id"), Column("name")]
///     }
/// }
/// ```
public protocol SQLSelectable: Sendable {
    /// The selection, as the query interface renders it.
    var sqlSelection: SQLSelection { get }
}

/// An opaque result column of a request.
public struct SQLSelection: Sendable {
    enum Kind: Sendable {
        /// `*`
        case allColumns
        /// A column name.
        case column(String)
        /// Raw SQL.
        case literal(SQL)
    }

    let kind: Kind

    /// `*`
    public static let allColumns = SQLSelection(kind: .allColumns)

    /// The SQL of the selection and its arguments.
    func sql(_ arguments: inout StatementArguments) -> String {
        switch kind {
        case .allColumns:
            return "*"
        case .column(let name):
            return name.quotedDatabaseIdentifier
        case .literal(let literal):
            let (sql, literalArguments) = literal.resolved()
            arguments += literalArguments
            return sql
        }
    }

    /// Whether the selection is `*`.
    var isAllColumns: Bool {
        if case .allColumns = kind { return true }
        return false
    }
}

extension SQLSelection: SQLSelectable {
    public var sqlSelection: SQLSelection { self }
}

/// All columns of a table: `*`.
///
/// ```swift
/// static let databaseSelection: [any SQLSelectable] = [.allColumns]
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

extension Column: SQLSelectable {
    public var sqlSelection: SQLSelection { SQLSelection(kind: .column(name)) }
}

extension SQL: SQLSelectable {
    public var sqlSelection: SQLSelection { SQLSelection(kind: .literal(self)) }
}

extension [any SQLSelectable] {
    /// The SQL of a selection list, with its arguments.
    func selectionSQL(_ arguments: inout StatementArguments) -> String {
        map { $0.sqlSelection.sql(&arguments) }.joined(separator: ", ")
    }
}
