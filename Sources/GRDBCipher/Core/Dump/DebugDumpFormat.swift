import Foundation

/// A format that prints one line per database row, suitable for debugging.
///
/// This format may change in future releases: it is not meant for other programs, nor for
/// tests. On each line, values are separated by `separator` (`|` by default); NULL is printed
/// as `nullValue` (nothing by default); strings are printed without quotes; reals as SQLite
/// prints them (`1.5`, `100.0`, `1.0e+300`); blobs as text when they are UTF-8, as a UUID when
/// they have 16 bytes, otherwise in hexadecimal (`X'00FF'`).
///
/// ```swift
/// // 1|Arthur|500
/// // 2|Barbara|1000
/// try db.dumpRequest(Player.all(), format: .debug())
/// ```
public struct DebugDumpFormat: Sendable {
    /// Whether the column names are printed on a first line, before the first row.
    public var header: Bool

    /// The separator between values.
    public var separator: String

    /// The text of NULL.
    public var nullValue: String

    /// Whether the current statement printed its first row.
    private var firstRowWritten = false

    /// Creates a debug format.
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

extension DebugDumpFormat: DumpFormat {
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        if !firstRowWritten {
            firstRowWritten = true
            if header {
                stream.write(statement.dumpColumnNames.joined(separator: separator) + "\n")
            }
        }
        var line = ""
        for index in 0..<statement.dumpColumnCount {
            if index > 0 { line += separator }
            let value = statement.dumpValue(at: index)
            switch value.storage {
            case .null:
                line += nullValue
            case .blob(let data):
                if let text = String(data: data, encoding: .utf8) {
                    line += text
                } else if data.count == 16 {
                    // As GRDB (DMP-5): a 16-byte blob is printed as a UUID.
                    line += data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)).uuidString }
                } else {
                    line += "X'" + DatabaseValue.hexadecimal(data) + "'"
                }
            default:
                line += statement.dumpText(at: index) ?? nullValue
            }
        }
        stream.write(line + "\n")
    }

    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        firstRowWritten = false
    }
}

extension DumpFormat where Self == DebugDumpFormat {
    /// A format that prints one line per database row, suitable for debugging.
    ///
    /// ```swift
    /// // 1|Arthur|500
    /// try db.dumpRequest(Player.all(), format: .debug())
    /// ```
    ///
    /// - parameters:
    ///   - header: Whether the column names are printed before the first row.
    ///   - separator: The separator between values.
    ///   - nullValue: The text of NULL.
    public static func debug(header: Bool = false, separator: String = "|", nullValue: String = "") -> Self {
        DebugDumpFormat(header: header, separator: separator, nullValue: nullValue)
    }
}
