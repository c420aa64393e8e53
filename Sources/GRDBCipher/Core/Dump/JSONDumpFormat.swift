import Foundation

/// A format that prints database rows as a JSON array of objects, as the `json` mode of the
/// `sqlite3` command-line tool: one object per row, keys in column order, one row per line.
///
/// ```swift
/// // [{"id":1,"name":"Arthur","score":500},
/// // {"id":2,"name":"Barbara","score":1000}]
/// try db.dumpRequest(Player.all(), format: .json())
/// ```
///
/// Values are encoded by a `JSONEncoder`: blobs follow its `dataEncodingStrategy` (base64 by
/// default), reals its `nonConformingFloatEncodingStrategy`. With a pretty-printing encoder,
/// each object spreads over several lines:
///
/// ```swift
/// let encoder = JSONDumpFormat.defaultEncoder
/// encoder.outputFormatting.insert(.prettyPrinted)
/// try db.dumpRequest(Player.all(), format: .json(encoder: encoder))
/// ```
///
/// A statement without rows prints `[]`.
public struct JSONDumpFormat {
    /// The encoder of rows.
    public var encoder: JSONEncoder

    /// Whether the current statement printed its first row.
    private var firstRowWritten = false

    /// A new encoder with the default settings of the format: slashes are not escaped, blobs
    /// are encoded in base64, infinite reals as the strings `"Infinity"` and `"-Infinity"`.
    public static var defaultEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        encoder.dataEncodingStrategy = .base64
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }

    /// Creates a JSON format.
    ///
    /// - parameter encoder: The encoder of rows.
    public init(encoder: JSONEncoder = JSONDumpFormat.defaultEncoder) {
        self.encoder = encoder
    }

    private var isPrettyPrinted: Bool {
        encoder.outputFormatting.contains(.prettyPrinted)
    }
}

extension JSONDumpFormat: DumpFormat {
    public mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws {
        let json = try object(statement)
        if firstRowWritten {
            stream.write(",\n" + json)
        } else {
            firstRowWritten = true
            stream.write(isPrettyPrinted ? "[\n" + json : "[" + json)
        }
    }

    public mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        if firstRowWritten {
            stream.write(isPrettyPrinted ? "\n]\n" : "]\n")
        } else {
            stream.write("[]\n")
        }
        firstRowWritten = false
    }

    /// The JSON object of the current row. Keys and values are encoded one by one, so that
    /// keys keep the order of columns.
    private func object(_ statement: Statement) throws -> String {
        var members: [(key: String, value: String)] = []
        members.reserveCapacity(statement.dumpColumnCount)
        for (index, name) in statement.dumpColumnNames.enumerated() {
            let value: String
            switch statement.dumpValue(at: index).storage {
            case .null: value = "null"
            case .int64(let int): value = try encode(int)
            case .double(let double): value = try encode(double)
            case .string(let string): value = try encode(string)
            case .blob(let data): value = try encode(data)
            }
            members.append((key: try encode(name), value: value))
        }
        // As GRDB (DMP-4): keys in column order (`.sortedKeys` does not apply), and
        // `"key":value` in pretty-printed rows too.
        if members.isEmpty { return "{}" }
        if isPrettyPrinted {
            let lines = members.map { "    \($0.key):\($0.value)" }
            return "  {\n" + lines.joined(separator: ",\n") + "\n  }"
        }
        return "{" + members.map { "\($0.key):\($0.value)" }.joined(separator: ",") + "}"
    }

    private func encode(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension DumpFormat where Self == JSONDumpFormat {
    /// A format that prints database rows as a JSON array of objects.
    ///
    /// ```swift
    /// // [{"id":1,"name":"Arthur","score":500}]
    /// try db.dumpRequest(Player.all(), format: .json())
    /// ```
    ///
    /// - parameter encoder: The encoder of rows.
    public static func json(encoder: JSONEncoder = JSONDumpFormat.defaultEncoder) -> Self {
        JSONDumpFormat(encoder: encoder)
    }
}
