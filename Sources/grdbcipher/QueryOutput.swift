import Foundation
import GRDBCipher

/// Standard output (or another file), written in blocks of 64 KiB: rows go out as they are
/// read, and memory stays flat whatever the size of the result.
final class BufferedOutput {
    private var buffer: [UInt8] = []
    private let capacity = 1 << 16
    private let fileDescriptor: Int32
    /// The errno of the first write that failed, if one did: later writes are dropped.
    private(set) var writeError: Int32?

    init(fileDescriptor: Int32 = STDOUT_FILENO) {
        self.fileDescriptor = fileDescriptor
        buffer.reserveCapacity(capacity)
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { flush() }
    }

    /// Writes bytes as they are (text that may not be valid UTF-8).
    func write(bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { flush() }
    }

    func flush() {
        var offset = 0
        while offset < buffer.count && writeError == nil {
            let written = buffer.withUnsafeBytes { Foundation.write(fileDescriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written < 0 { writeError = errno; break }
            guard written > 0 else { break }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A `TextOutputStream` over a buffered output, for the library's dump methods.
final class BufferedOutputStream: TextOutputStream {
    let output: BufferedOutput

    init(_ output: BufferedOutput) {
        self.output = output
    }

    func write(_ string: String) {
        output.write(string)
    }
}

/// Writes query rows in one format, one row at a time.
protocol RowPrinter {
    mutating func begin(columns: [String])
    mutating func print(_ row: [DatabaseValue])
    mutating func end()
}

/// The text of a value, for people and for CSV.
func cellText(_ value: DatabaseValue, nullText: String, blobPrefix: String, blobSuffix: String) -> String {
    switch value.storage {
    case .null: return nullText
    case .int64(let int): return String(int)
    case .double(let double): return String(double)
    case .string(let string): return string
    case .blob(let data): return blobPrefix + hexadecimal(data) + blobSuffix
    }
}

private let hexDigits = Array("0123456789ABCDEF".utf8)

/// Upper-case hexadecimal digits of a blob.
func hexadecimal(_ data: Data) -> String {
    var digits: [UInt8] = []
    digits.reserveCapacity(data.count * 2)
    for byte in data {
        digits.append(hexDigits[Int(byte >> 4)])
        digits.append(hexDigits[Int(byte & 0x0F)])
    }
    return String(decoding: digits, as: UTF8.self)
}

/// An aligned table. Column widths come from the header and the first `sampleSize` rows,
/// which are held back until then; later rows use those widths (a wider cell pushes the rest
/// of its line to the right).
struct TablePrinter: RowPrinter {
    let output: BufferedOutput
    var sampleSize = 1000
    private var columns: [String] = []
    private var widths: [Int] = []
    private var held: [[DatabaseValue]] = []
    private var rowCount = 0
    private var started = false

    init(output: BufferedOutput) {
        self.output = output
    }

    mutating func begin(columns: [String]) {
        self.columns = columns
    }

    mutating func print(_ row: [DatabaseValue]) {
        rowCount += 1
        if started {
            write(row)
        } else {
            held.append(row)
            if held.count >= sampleSize { start() }
        }
    }

    mutating func end() {
        if !started { start() }
        output.write("(\(rowCount) row\(rowCount == 1 ? "" : "s"))\n")
    }

    private mutating func start() {
        started = true
        widths = columns.map(\.count)
        for row in held {
            for (index, value) in row.enumerated() { widths[index] = max(widths[index], Self.text(value).count) }
        }
        output.write(line(columns, numeric: columns.map { _ in false }))
        output.write(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n")
        for row in held { write(row) }
        held = []
    }

    private func write(_ row: [DatabaseValue]) {
        output.write(line(row.map(Self.text), numeric: row.map { value in
            switch value.storage {
            case .int64, .double: return true
            default: return false
            }
        }))
    }

    private static func text(_ value: DatabaseValue) -> String {
        cellText(value, nullText: "NULL", blobPrefix: "X'", blobSuffix: "'")
    }

    private func line(_ cells: [String], numeric: [Bool]) -> String {
        var line = ""
        for (index, cell) in cells.enumerated() {
            if index > 0 { line += "  " }
            let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
            line += numeric[index] ? pad + cell : cell + pad
        }
        while line.last == " " { line.removeLast() }
        return line + "\n"
    }
}

/// RFC 4180 CSV: a header line, CRLF line ends, fields quoted when they need it.
struct CSVPrinter: RowPrinter {
    let output: BufferedOutput

    mutating func begin(columns: [String]) {
        output.write(columns.map(Self.field).joined(separator: ",") + "\r\n")
    }

    mutating func print(_ row: [DatabaseValue]) {
        output.write(row.map { Self.field(cellText($0, nullText: "", blobPrefix: "", blobSuffix: "")) }.joined(separator: ",") + "\r\n")
    }

    mutating func end() {}

    private static func field(_ text: String) -> String {
        if text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return text
    }
}

/// A JSON array of objects, one per row, keys in alphabetical order (a repeated column name
/// keeps its first value); blobs in hexadecimal; infinite and NaN reals as null.
struct JSONPrinter: RowPrinter {
    let output: BufferedOutput
    /// The columns in key order, with their index in the row.
    private var keys: [(name: String, index: Int)] = []
    private var rowCount = 0

    init(output: BufferedOutput) {
        self.output = output
    }

    mutating func begin(columns: [String]) {
        var seen = Set<String>()
        keys = columns.enumerated()
            .filter { seen.insert($0.element).inserted }
            .map { (name: $0.element, index: $0.offset) }
            .sorted { $0.name < $1.name }
        output.write("[")
    }

    mutating func print(_ row: [DatabaseValue]) {
        var object = rowCount == 0 ? "\n  {" : ",\n  {"
        for (position, key) in keys.enumerated() {
            object += (position == 0 ? "\n    " : ",\n    ") + Self.string(key.name) + " : " + Self.value(row[key.index])
        }
        object += keys.isEmpty ? "}" : "\n  }"
        output.write(object)
        rowCount += 1
    }

    mutating func end() {
        output.write(rowCount == 0 ? "]\n" : "\n]\n")
    }

    private static func value(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "null"
        case .int64(let int): return String(int)
        case .double(let double): return double.isFinite ? String(double) : "null"
        case .string(let string): return Self.string(string)
        case .blob(let data): return "\"" + hexadecimal(data) + "\""
        }
    }

    private static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
