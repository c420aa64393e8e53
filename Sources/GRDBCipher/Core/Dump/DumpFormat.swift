import CSQLCipher
import Foundation

/// A type that prints database rows, for the dump methods of ``Database`` and
/// ``DatabaseReader`` (``Database/dumpContent(format:to:)``, ``Database/dumpRequest(_:format:to:)``,
/// ``Database/dumpSQL(_:format:to:)``, ``Database/dumpTables(_:format:tableHeader:stableOrder:to:)``).
///
/// The built-in formats mirror the output modes of the `sqlite3` command-line tool:
///
/// ```swift
/// try db.dumpRequest(Player.all(), format: .debug())  // 1|Arthur|500
/// try db.dumpRequest(Player.all(), format: .list())   // 1|Arthur|500
/// try db.dumpRequest(Player.all(), format: .quote())  // 1,'Arthur',500
/// try db.dumpRequest(Player.all(), format: .line())   //    id = 1 …
/// try db.dumpRequest(Player.all(), format: .json())   // [{"id":1,"name":"Arthur","score":500}]
/// ```
///
/// A format is given each row of a statement in turn (``writeRow(_:statement:to:)``: the
/// statement sits on the row), then ``finalize(_:statement:to:)`` once the statement is done.
/// The same format value prints the results of several statements in a row: `finalize` resets
/// what it remembers of one statement.
public protocol DumpFormat {
    /// Writes the row the statement sits on.
    mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws

    /// Ends the output of a statement whose rows were all written.
    mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream)
}

/// Options for printing table names in ``Database/dumpTables(_:format:tableHeader:stableOrder:to:)``.
public enum DumpTableHeaderOptions: Sendable {
    /// Table names are printed when several tables are dumped.
    case automatic

    /// Table names are always printed.
    case always
}

// MARK: - Reading the statement's current row

extension Statement {
    /// The number of columns the dump formats print.
    var dumpColumnCount: Int { columnCount - (dumpHiddenColumns?.count ?? 0) }

    /// The names of the columns the dump formats print.
    var dumpColumnNames: [String] {
        let names = columnNames
        guard let hidden = dumpHiddenColumns else { return names }
        return Array(names[..<hidden.lowerBound] + names[hidden.upperBound...])
    }

    /// The statement's column of a printed column.
    private func dumpColumn(_ index: Int) -> CInt {
        guard let hidden = dumpHiddenColumns, index >= hidden.lowerBound else { return CInt(index) }
        return CInt(index + hidden.count)
    }

    /// The value of a printed column of the current row.
    func dumpValue(at index: Int) -> DatabaseValue {
        DatabaseValue(sqliteStatement: sqliteStatement, index: dumpColumn(index))
    }

    /// The text SQLite gives for a printed column of the current row (`1.5`, `1.0e+300` for
    /// reals, as the `sqlite3` tool prints them), or nil for NULL. Blobs are decoded as UTF-8.
    func dumpText(at index: Int) -> String? {
        let column = dumpColumn(index)
        switch sqlite3_column_type(sqliteStatement, column) {
        case SQLITE_NULL:
            return nil
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(sqliteStatement, column))
            guard count > 0, let bytes = sqlite3_column_blob(sqliteStatement, column) else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
        default:
            guard let text = sqlite3_column_text(sqliteStatement, column) else { return "" }
            let count = Int(sqlite3_column_bytes(sqliteStatement, column))
            return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
        }
    }
}

// MARK: - SQL literals, as SQLite's quote() writes them

/// Formats a double with one of SQLite's printf formats (`%!.15g`…).
func sqlitePrintf(_ format: String, _ value: Double) -> String {
    withVaList([value]) { arguments in
        guard let pointer = sqlite3_vmprintf(format, arguments) else { return "\(value)" }
        defer { sqlite3_free(pointer) }
        return String(cString: pointer)
    }
}

extension DatabaseValue {
    /// The value as an SQL literal that reads back exactly, written as SQLite's `quote()`
    /// writes it: `NULL`, `42`, `1.5`, `1.0e+300`, `'O''Brien'`, `X'00FF'`.
    var quotedSQLLiteral: String {
        switch storage {
        case .null:
            return "NULL"
        case .int64(let value):
            return String(value)
        case .double(let value):
            return Self.quotedSQLLiteral(value)
        case .string(let value):
            return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data):
            return "X'" + Self.hexadecimal(data) + "'"
        }
    }

    static func quotedSQLLiteral(_ value: Double) -> String {
        if value.isNaN { return "NULL" }
        if value.isInfinite { return value > 0 ? "9.0e+999" : "-9.0e+999" }
        // SQLite's quote(): 15 significant digits when they read back, more otherwise.
        let short = sqlitePrintf("%!.15g", value)
        if Double(short) == value { return short }
        return sqlitePrintf("%!.17g", value)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    static func hexadecimal(_ data: Data) -> String {
        var digits: [UInt8] = []
        digits.reserveCapacity(data.count * 2)
        for byte in data {
            digits.append(hexDigits[Int(byte >> 4)])
            digits.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
