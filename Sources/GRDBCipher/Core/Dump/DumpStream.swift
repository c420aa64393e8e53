/// The text output of a dump: a ``DumpFormat`` writes rows into it.
///
/// A dump stream forwards what it is given to the stream of the dump method (standard output
/// when there is none), and separates blocks of output with empty lines: see ``margin()``.
///
/// ```swift
/// struct NameFormat: DumpFormat {
///     mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws {
///         stream.write(String.fromDatabaseValue(DatabaseValue(sqliteStatement: statement.sqliteStatement, index: 0)) ?? "?")
///         stream.write("\n")
///     }
///     mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) { }
/// }
/// ```
public struct DumpStream {
    /// Where the text goes; `nil` for standard output.
    private var base: (any TextOutputStream)?
    /// Whether something was written.
    private var hasWritten = false
    /// Whether an empty line goes before the next text.
    private var needsMargin = false

    init(_ base: (any TextOutputStream)?) {
        self.base = base
    }

    /// Writes `string`, after an empty line if ``margin()`` was called since the last write.
    public mutating func write(_ string: String) {
        if string.isEmpty { return }
        if needsMargin {
            needsMargin = false
            output("\n")
        }
        output(string)
        hasWritten = true
    }

    /// Asks for an empty line before the next text, if anything was written before: the way
    /// dumps separate tables and results. Several calls in a row still give one empty line.
    public mutating func margin() {
        if hasWritten { needsMargin = true }
    }

    private mutating func output(_ string: String) {
        if base == nil {
            print(string, terminator: "")
        } else {
            base!.write(string)
        }
    }
}

extension DumpStream: TextOutputStream { }
