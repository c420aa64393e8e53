import ArgumentParser
import Foundation
import GRDBCipher

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run a read-only SQL query and print its rows.",
        discussion: """
            The database is opened read-only: statements that write fail. Rows are printed as an \
            aligned table (the default), CSV (RFC 4180) or JSON (an array of objects). Blobs are \
            printed in hexadecimal (X'…' in tables).

            Examples:
              grdbcipher query app.db "SELECT name, score FROM player ORDER BY score DESC LIMIT 10"
              grdbcipher query app.db "SELECT * FROM player" --format csv --passphrase-env KEY > players.csv
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, csv, json
    }

    @Argument(help: "The database file.") var file: String
    @Argument(help: "The SQL query.") var sql: String
    @Option(help: "Output format: table, csv or json.") var format: Format = .table
    @OptionGroup var keyOptions: KeyOptions
    @OptionGroup var cipherOptions: InputCipherOptions

    func run() throws {
        let database = try InputDatabase.resolve(path: file, keyOptions: keyOptions, cipherOptions: cipherOptions)
        let dbQueue = try database.open(readonly: true)
        defer { try? dbQueue.close() }
        let (columns, rows) = try dbQueue.read { db -> ([String], [[DatabaseValue]]) in
            let statement = try db.makeStatement(sql: sql)
            let rows = try Row.fetchAll(statement).map(\.databaseValues)
            return (statement.columnNames, rows)
        }
        switch format {
        case .table: print(Self.table(columns, rows))
        case .csv: print(Self.csv(columns, rows), terminator: "")
        case .json: print(try Self.json(columns, rows))
        }
    }

    static func text(_ value: DatabaseValue, nullText: String, blobPrefix: String, blobSuffix: String) -> String {
        switch value.storage {
        case .null: return nullText
        case .int64(let int): return String(int)
        case .double(let double): return String(double)
        case .string(let string): return string
        case .blob(let data): return blobPrefix + data.map { String(format: "%02X", $0) }.joined() + blobSuffix
        }
    }

    static func table(_ columns: [String], _ rows: [[DatabaseValue]]) -> String {
        let cells = rows.map { $0.map { text($0, nullText: "NULL", blobPrefix: "X'", blobSuffix: "'") } }
        var widths = columns.map(\.count)
        for row in cells {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ values: [String], numeric: [Bool]) -> String {
            zip(values.indices, values).map { index, value in
                let pad = String(repeating: " ", count: widths[index] - value.count)
                return numeric[index] ? pad + value : value + pad
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var lines = [line(columns, numeric: columns.map { _ in false })]
        lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        for (row, values) in zip(cells, rows) {
            lines.append(line(row, numeric: values.map { value in
                switch value.storage {
                case .int64, .double: return true
                default: return false
                }
            }))
        }
        lines.append("(\(rows.count) row\(rows.count == 1 ? "" : "s"))")
        return lines.joined(separator: "\n")
    }

    static func csv(_ columns: [String], _ rows: [[DatabaseValue]]) -> String {
        func field(_ text: String) -> String {
            if text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
                return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }
            return text
        }
        var lines = [columns.map(field).joined(separator: ",")]
        for row in rows {
            lines.append(row.map { field(text($0, nullText: "", blobPrefix: "", blobSuffix: "")) }.joined(separator: ","))
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    static func json(_ columns: [String], _ rows: [[DatabaseValue]]) throws -> String {
        let objects: [[String: Any]] = rows.map { row in
            var object: [String: Any] = [:]
            for (column, value) in zip(columns, row) where object[column] == nil {
                switch value.storage {
                case .null: object[column] = NSNull()
                case .int64(let int): object[column] = int
                case .double(let double): object[column] = double
                case .string(let string): object[column] = string
                case .blob(let data): object[column] = data.map { String(format: "%02X", $0) }.joined()
                }
            }
            return object
        }
        let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
