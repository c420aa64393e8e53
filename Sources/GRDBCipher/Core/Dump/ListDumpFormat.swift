/// A format that prints one line per database row, as the `list` mode of the `sqlite3`
/// command-line tool.
///
/// Values are separated by `separator` (`|` by default); NULL is printed as `nullValue`
/// (nothing by default); strings and blobs are printed as they are, without quotes; reals as
/// SQLite prints them (`1.5`, `100.0`).
///
/// ```swift
/// // 1|Arthur|500
/// // 2|Barbara|1000
/// try db.dumpRequest(Player.all(), format: .list())
///
/// // id|name|score
/// // 1|Arthur|500
/// try db.dumpRequest(Player.all(), format: .list(header: true))
/// ```
public struct ListDumpFormat: Sendable {
    /// Whether the column names are printed on a first line, before the first row.
    public var header: Bool

    /// The separator between values.
    public var separator: String

    /// The text of NULL.
    public var nullValue: String

    /// Whether the current statement printed its first row.
    private var firstRowWritten = false

    /// Creates a list format.
    ///
    /// - parameters:
    ///   - header: Whether the column names are printed before the first row.
    ///   - separator: The separator between values.
    ///   - nullValue: The text of NULL.
    public init(header: Bool = false, separator: String = "|", nullValue: String = "") {
        self.header = header
        self.separator = separator
        self.nullValue = nullValue
    }
}

extension ListDumpFormat: DumpFormat {
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        if !firstRowWritten {
            firstRowWritten = true
            if header {
                stream.write(statement.dumpColumnNames.joined(separator: separator) + "\n")
            }
        }
        let values = (0..<statement.dumpColumnCount).map { statement.dumpText(at: $0) ?? nullValue }
        stream.write(values.joined(separator: separator) + "\n")
    }

    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        firstRowWritten = false
    }
}

extension DumpFormat where Self == ListDumpFormat {
    /// A format that prints one line per database row, as the `list` mode of the `sqlite3` tool.
    ///
    /// ```swift
    /// // 1|Arthur|500
    /// try db.dumpRequest(Player.all(), format: .list())
    /// ```
    ///
    /// - parameters:
    ///   - header: Whether the column names are printed before the first row.
    ///   - separator: The separator between values.
    ///   - nullValue: The text of NULL.
    public static func list(header: Bool = false, separator: String = "|", nullValue: String = "") -> Self {
        ListDumpFormat(header: header, separator: separator, nullValue: nullValue)
    }
}
