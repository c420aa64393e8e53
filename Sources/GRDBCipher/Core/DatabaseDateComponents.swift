import CSQLCipher
import Foundation

/// Date components stored in the database as text, in one of SQLite's date formats.
///
/// ```swift
/// let components = DatabaseDateComponents(
///     DateComponents(year: 2024, month: 5, day: 1, hour: 9, minute: 30),
///     format: .YMD_HM)
/// components.databaseValue // "2024-05-01 09:30"
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/lang_datefunc.html>
public struct DatabaseDateComponents: Sendable, Hashable, DatabaseValueConvertible {
    /// The SQLite date formats.
    public enum Format: String, Sendable {
        /// `YYYY-MM-DD`
        case YMD = "yyyy-MM-dd"
        /// `YYYY-MM-DD HH:MM`
        case YMD_HM = "yyyy-MM-dd HH:mm"
        /// `YYYY-MM-DD HH:MM:SS`
        case YMD_HMS = "yyyy-MM-dd HH:mm:ss"
        /// `YYYY-MM-DD HH:MM:SS.SSS`
        case YMD_HMSS = "yyyy-MM-dd HH:mm:ss.SSS"
        /// `HH:MM`
        case HM = "HH:mm"
        /// `HH:MM:SS`
        case HMS = "HH:mm:ss"
        /// `HH:MM:SS.SSS`
        case HMSS = "HH:mm:ss.SSS"

        var hasYMD: Bool {
            switch self {
            case .YMD, .YMD_HM, .YMD_HMS, .YMD_HMSS: return true
            case .HM, .HMS, .HMSS: return false
            }
        }
    }

    /// The date components.
    public let dateComponents: DateComponents

    /// The format used when the value is stored.
    public let format: Format

    /// Creates components stored with `format`.
    public init(_ dateComponents: DateComponents, format: Format) {
        self.dateComponents = dateComponents
        self.format = format
    }

    public var databaseValue: DatabaseValue {
        let c = dateComponents
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = ""
        if format.hasYMD {
            // As GRDB, a missing month or day is 1: empty components are 0000-01-01.
            text = "\(pad(c.year, 4))-\(pad(c.month ?? 1, 2))-\(pad(c.day ?? 1, 2))"
            if format == .YMD { return DatabaseValue(storage: .string(text)) }
            text += " "
        }
        text += "\(pad(c.hour, 2)):\(pad(c.minute, 2))"
        switch format {
        case .YMD_HMS, .HMS:
            text += ":\(pad(c.second, 2))"
        case .YMD_HMSS, .HMSS:
            let milliseconds = Int((Double(c.nanosecond ?? 0) / 1_000_000).rounded())
            text += ":\(pad(c.second, 2)).\(pad(min(milliseconds, 999), 3))"
        default:
            break
        }
        return DatabaseValue(storage: .string(text))
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseDateComponents? {
        guard case .string(let string) = dbValue.storage else { return nil }
        return DateFormatting.parseComponents(string)
    }
}

extension DatabaseDateComponents: StatementColumnConvertible {
    /// Reads date components straight from a TEXT column, in any of SQLite's date formats.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard sqlite3_column_type(sqliteStatement, index) == SQLITE_TEXT,
              let text = sqlite3_column_text(sqliteStatement, index),
              let components = DateFormatting.parseComponents(
                String(sqliteText: text, count: sqlite3_column_bytes(sqliteStatement, index)))
        else { return nil }
        self = components
    }
}

/// Date components encode as a single string, their database text: `"2024-05-01 09:30"`.
extension DatabaseDateComponents: Codable {
    /// Decodes components from a string in one of SQLite's date formats; the format is the
    /// one of the string.
    ///
    /// ```swift
    /// let components = try JSONDecoder().decode([DatabaseDateComponents].self, from: Data(#"["12:45"]"#.utf8))
    /// components[0].format // .HM
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let components = DateFormatting.parseComponents(string) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "not a date in one of SQLite's formats")
        }
        self = components
    }

    /// Encodes the components as the string stored in the database.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        guard case .string(let string) = databaseValue.storage else {
            preconditionFailure("date components always have a text database value")
        }
        try container.encode(string)
    }
}

/// Parsing and formatting of SQLite date text, written by hand: DateFormatter is slow and
/// depends on locale settings.
enum DateFormatting {
    static func storageString(_ date: Date) -> String {
        // Round to the millisecond first, so that 59.9996 seconds do not print as "60.000".
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let rounded = Date(timeIntervalSince1970: milliseconds / 1000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        var c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: rounded)
        let ms = Int(milliseconds.truncatingRemainder(dividingBy: 1000))
        c.nanosecond = (ms < 0 ? ms + 1000 : ms) * 1_000_000
        return DatabaseDateComponents(c, format: .YMD_HMSS).databaseValue.storage.stringValue!
    }

    static func parseDate(_ string: String) -> Date? {
        guard let components = parseComponents(string), components.format.hasYMD else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = components.dateComponents.timeZone ?? TimeZone(secondsFromGMT: 0)!
        var c = components.dateComponents
        let nanosecond = c.nanosecond ?? 0
        c.nanosecond = 0
        guard let date = calendar.date(from: c) else { return nil }
        return date.addingTimeInterval(Double(nanosecond) / 1e9)
    }

    /// Accepts `YYYY-MM-DD`, then optionally ` ` or `T` and `HH:MM[:SS[.S…]]`, then optionally
    /// `Z` or `±HH:MM`; or a time alone.
    static func parseComponents(_ string: String) -> DatabaseDateComponents? {
        var scanner = DigitScanner(Array(string.utf8))
        var c = DateComponents()
        var hasDate = false
        if scanner.peek(at: 4) == UInt8(ascii: "-") {
            guard let year = scanner.digits(4), scanner.skip("-"),
                  let month = scanner.digits(2), scanner.skip("-"),
                  let day = scanner.digits(2)
            else { return nil }
            c.year = year; c.month = month; c.day = day
            hasDate = true
            if scanner.atEnd {
                return DatabaseDateComponents(c, format: .YMD)
            }
            guard scanner.skip(" ") || scanner.skip("T") else { return nil }
        }
        guard let hour = scanner.digits(2), scanner.skip(":"), let minute = scanner.digits(2) else { return nil }
        c.hour = hour; c.minute = minute
        var format: DatabaseDateComponents.Format = hasDate ? .YMD_HM : .HM
        if scanner.skip(":") {
            guard let second = scanner.digits(2) else { return nil }
            c.second = second
            format = hasDate ? .YMD_HMS : .HMS
            if scanner.skip(".") {
                var fraction = 0
                var scale = 1_000_000_000
                var count = 0
                while let digit = scanner.digit() {
                    // As GRDB: milliseconds only, the digits after the third are dropped
                    // (`.123456` is 123 ms, `.0078` is 7 ms).
                    if count < 3 { scale /= 10; fraction += digit * scale }
                    count += 1
                }
                guard count > 0 else { return nil }
                c.nanosecond = fraction
                format = hasDate ? .YMD_HMSS : .HMSS
            }
        }
        if scanner.skip("Z") {
            c.timeZone = TimeZone(secondsFromGMT: 0)
        } else if let sign = scanner.sign() {
            guard let h = scanner.digits(2) else { return nil }
            _ = scanner.skip(":")
            guard let m = scanner.digits(2), let zone = TimeZone(secondsFromGMT: sign * (h * 3600 + m * 60)) else { return nil }
            c.timeZone = zone
        }
        guard scanner.atEnd else { return nil }
        return DatabaseDateComponents(c, format: format)
    }
}

private struct DigitScanner {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position == bytes.count }

    func peek(at offset: Int) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    mutating func digit() -> Int? {
        guard position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 else { return nil }
        defer { position += 1 }
        return Int(bytes[position] - 48)
    }

    mutating func digits(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let d = digit() else { return nil }
            value = value * 10 + d
        }
        return value
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}

extension DatabaseValue.Storage {
    var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}
