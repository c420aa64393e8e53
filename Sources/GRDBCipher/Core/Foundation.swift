import CSQLCipher
import Foundation

/// `Data` is stored as a blob (and reads text as its UTF-8 bytes).
extension Data: DatabaseValueConvertible, StatementColumnConvertible {
    public var databaseValue: DatabaseValue { .init(storage: .blob(self)) }

    /// Blobs, and the UTF-8 bytes of text.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Data? {
        switch dbValue.storage {
        case .blob(let data): return data
        case .string(let string): return Data(string.utf8)
        default: return nil
        }
    }

    /// Read from a statement, numbers are the bytes of their text, as SQLite converts them
    /// (and as GRDB reads them): `Data.fetchOne(db, sql: "SELECT 1")` is `"1"`'s byte.
    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_BLOB, SQLITE_TEXT, SQLITE_INTEGER, SQLITE_FLOAT:
            // sqlite3_column_blob before sqlite3_column_bytes, as SQLite recommends.
            let bytes = sqlite3_column_blob(sqliteStatement, index)
            let count = Int(sqlite3_column_bytes(sqliteStatement, index))
            if let bytes {
                self.init(bytes: bytes, count: count)
            } else {
                self.init()
            }
        default:
            return nil
        }
    }
}

/// Dates are stored as UTC text, `YYYY-MM-DD HH:MM:SS.SSS`, which sorts and compares correctly
/// and works with SQLite's date functions. They decode from that text and the other formats of
/// ``DatabaseDateComponents`` that contain a day (UTC unless a zone is given), and from numbers
/// as seconds since 1970-01-01 UTC.
extension Date: DatabaseValueConvertible, StatementColumnConvertible {
    public var databaseValue: DatabaseValue {
        .init(storage: .string(DateFormatting.storageString(self)))
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Date? {
        switch dbValue.storage {
        case .int64(let int64): return Date(timeIntervalSince1970: TimeInterval(int64))
        case .double(let double): return Date(timeIntervalSince1970: double)
        case .string(let string): return DateFormatting.parseDate(string)
        default: return nil
        }
    }

    /// Reads a date straight from a statement column, as ``fromDatabaseValue(_:)`` reads it:
    /// numbers are seconds since 1970-01-01 UTC, text is parsed; a BLOB does not convert.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER:
            self.init(timeIntervalSince1970: TimeInterval(sqlite3_column_int64(sqliteStatement, index)))
        case SQLITE_FLOAT:
            self.init(timeIntervalSince1970: sqlite3_column_double(sqliteStatement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(sqliteStatement, index),
                  let date = DateFormatting.parseDate(
                    String(sqliteText: text, count: sqlite3_column_bytes(sqliteStatement, index)))
            else { return nil }
            self = date
        default:
            return nil
        }
    }

    /// Creates a date from a [julian day](https://en.wikipedia.org/wiki/Julian_day), the number
    /// of days since noon in Greenwich on November 24, 4714 B.C., as SQLite's `julianday()`
    /// returns it. Nil when the number is not finite, or outside the range of SQLite's date
    /// functions (days 0 through 5373484, year 9999).
    ///
    /// ```swift
    /// let julianDay = try Double.fetchOne(db, sql: "SELECT julianday('2024-03-01 12:00:00')")!
    /// let date = Date(julianDay: julianDay) // 2024-03-01 12:00:00 UTC
    /// ```
    public init?(julianDay: Double) {
        // SQLite counts julian days in whole milliseconds; so do we.
        guard julianDay.isFinite, julianDay >= 0, julianDay < 5373485 else { return nil }
        let milliseconds = (julianDay * 86_400_000).rounded()
        let unixEpochMilliseconds = 2_440_587.5 * 86_400_000
        self.init(timeIntervalSince1970: (milliseconds - unixEpochMilliseconds) / 1000)
    }
}

/// UUIDs are stored as 16-byte blobs; they decode from such blobs and from their text form.
extension UUID: DatabaseValueConvertible, StatementColumnConvertible {
    public var databaseValue: DatabaseValue {
        withUnsafeBytes(of: uuid) { .init(storage: .blob(Data($0))) }
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UUID? {
        switch dbValue.storage {
        case .blob(let data) where data.count == 16:
            return data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case .string(let string):
            return UUID(uuidString: string)
        default:
            return nil
        }
    }

    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_BLOB:
            guard sqlite3_column_bytes(sqliteStatement, index) == 16,
                  let bytes = sqlite3_column_blob(sqliteStatement, index)
            else { return nil }
            self.init(uuid: bytes.loadUnaligned(as: uuid_t.self))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(sqliteStatement, index) else { return nil }
            self.init(uuidString: String(cString: text))
        default:
            return nil
        }
    }
}

/// URLs are stored as their absolute string.
extension URL: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .init(storage: .string(absoluteString)) }

    /// From text, or a BLOB of UTF-8 text.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> URL? {
        String.fromDatabaseValue(dbValue).flatMap { URL(string: $0) }
    }
}

/// Decimals are stored as text, so that no digit is lost; they decode from text, integers and
/// reals.
extension Decimal: DatabaseValueConvertible, StatementColumnConvertible {
    public var databaseValue: DatabaseValue {
        .init(storage: .string(NSDecimalNumber(decimal: self).description(withLocale: Locale(identifier: "en_US_POSIX"))))
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Decimal? {
        switch dbValue.storage {
        case .int64(let int64): return Decimal(int64)
        case .double(let double): return Decimal(double)
        case .string(let string): return Decimal(string: string, locale: Locale(identifier: "en_US_POSIX"))
        default: return nil
        }
    }

    /// Reads a decimal straight from a statement column, as ``fromDatabaseValue(_:)`` reads
    /// it: from an integer, a real or text; a BLOB does not convert.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER:
            self.init(sqlite3_column_int64(sqliteStatement, index))
        case SQLITE_FLOAT:
            self.init(sqlite3_column_double(sqliteStatement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(sqliteStatement, index),
                  let decimal = Decimal(
                    string: String(sqliteText: text, count: sqlite3_column_bytes(sqliteStatement, index)),
                    locale: Locale(identifier: "en_US_POSIX"))
            else { return nil }
            self = decimal
        default:
            return nil
        }
    }
}
