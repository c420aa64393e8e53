/// A format that prints one line per database value, as the `line` mode of the `sqlite3`
/// command-line tool.
///
/// Each value is printed on its own line, after its column name (right-aligned on the longest
/// column name) and ` = `. Rows are separated by an empty line. NULL is printed as `nullValue`
/// (nothing by default).
///
/// ```swift
/// //    id = 1
/// //  name = Arthur
/// // score = 500
/// //
/// //    id = 2
/// //  name = Barbara
/// // score = 1000
/// try db.dumpRequest(Player.all(), format: .line())
/// ```
public struct LineDumpFormat: Sendable {
    /// The text of NULL.
    public var nullValue: String

    /// Whether the current statement printed its first row.
    private var firstRowWritten = false

    /// Creates a line format.
    ///
    /// - parameter nullValue: The text of NULL.
    public init(nullValue: String = "") {
        self.nullValue = nullValue
    }
}

extension LineDumpFormat: DumpFormat {
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        if firstRowWritten {
            stream.margin()
        }
        firstRowWritten = true
        let names = statement.dumpColumnNames
        let width = names.map(\.count).max() ?? 0
        var text = ""
        for (index, name) in names.enumerated() {
            text += String(repeating: " ", count: width - name.count) + name + " = "
            text += (statement.dumpText(at: index) ?? nullValue) + "\n"
        }
        stream.write(text)
    }

    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        firstRowWritten = false
    }
}

extension DumpFormat where Self == LineDumpFormat {
    /// A format that prints one line per database value, rows separated by an empty line.
    ///
    /// ```swift
    /// //    id = 1
    /// //  name = Arthur
    /// // score = 500
    /// try db.dumpRequest(Player.all(), format: .line())
    /// ```
    ///
    /// - parameter nullValue: The text of NULL.
    public static func line(nullValue: String = "") -> Self {
        LineDumpFormat(nullValue: nullValue)
    }
}
