/// A format that prints one line per database row, values as SQL literals, as the `quote`
/// mode of the `sqlite3` command-line tool.
///
/// Values are separated by `separator` (`,` by default) and written as SQL literals: `NULL`,
/// `42`, `1.5`, `'O''Brien'`, `X'00FF'`. The header, if asked for, quotes the column names
/// as strings.
///
/// ```swift
/// // 1,'Arthur',500
/// // 2,'Barbara',1000
/// try db.dumpRequest(Player.all(), format: .quote())
///
/// // 'id','name','score'
/// // 1,'Arthur',500
/// try db.dumpRequest(Player.all(), format: .quote(header: true))
/// ```
public struct QuoteDumpFormat: Sendable {
    /// Whether the column names are printed on a first line, before the first row.
    public var header: Bool

    /// The separator between values.
    public var separator: String

    /// Whether the current statement printed its first row.
    private var firstRowWritten = false

    /// Creates a quote format.
    ///
    /// - parameters:
    ///   - header: Whether the column names are printed before the first row.
    ///   - separator: The separator between values.
    public init(header: Bool = false, separator: String = ",") {
        self.header = header
        self.separator = separator
    }
}

extension QuoteDumpFormat: DumpFormat {
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        if !firstRowWritten {
            firstRowWritten = true
            if header {
                stream.write(statement.dumpColumnNames.map(\.quotedSQLLiteral).joined(separator: separator) + "\n")
            }
        }
        let values = (0..<statement.dumpColumnCount).map { statement.dumpValue(at: $0).quotedSQLLiteral }
        stream.write(values.joined(separator: separator) + "\n")
    }

    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        firstRowWritten = false
    }
}

extension DumpFormat where Self == QuoteDumpFormat {
    /// A format that prints one line per database row, values as SQL literals.
    ///
    /// ```swift
    /// // 1,'Arthur',500
    /// try db.dumpRequest(Player.all(), format: .quote())
    /// ```
    ///
    /// - parameters:
    ///   - header: Whether the column names are printed before the first row.
    ///   - separator: The separator between values.
    public static func quote(header: Bool = false, separator: String = ",") -> Self {
        QuoteDumpFormat(header: header, separator: separator)
    }
}
