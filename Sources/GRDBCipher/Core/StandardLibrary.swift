import CSQLCipher
import Foundation

// Conversions of the standard library's types, as GRDB converts:
// - `fromDatabaseValue` (database values, copied rows) is strict about storage classes: TEXT
//   never becomes a number. A REAL becomes an integer by truncation toward zero, when the result
//   fits the requested width.
// - `init(sqliteStatement:index:)` (values read straight from a statement: fetched values, rows
//   of a cursor) applies SQLite's own conversions, those of `sqlite3_column_int64`,
//   `_double` and `_text`: TEXT "42" is 42, a REAL read as an integer is truncated, a number read
//   as a String is its text. An integer that does not fit the requested width fails to decode
//   (nil here, an error in throwing APIs). NULL is never converted.
//
// The fast conversions read a column with the `sqlite3_column_*` function of their type: one
// call into SQLite per value; the type is asked only when the result may be a NULL (0, or a
// NULL text pointer).

/// `Bool` is stored as the integers 0 and 1.
extension Bool: DatabaseValueConvertible, StatementColumnConvertible {
    public var databaseValue: DatabaseValue { .init(storage: .int64(self ? 1 : 0)) }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Bool? {
        switch dbValue.storage {
        case .int64(let int64): return int64 != 0
        case .double(let double): return double != 0
        default: return nil
        }
    }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        let value = sqlite3_column_value(sqliteStatement, index)
        switch sqlite3_value_type(value) {
        case SQLITE_NULL: return nil
        case SQLITE_FLOAT: self = sqlite3_value_double(value) != 0
        default: self = sqlite3_value_int64(value) != 0
        }
    }
}

/// Shared by every fixed-width integer: INTEGER values that fit, and REAL values truncated
/// toward zero when the result fits.
protocol DatabaseInteger: FixedWidthInteger, DatabaseValueConvertible, StatementColumnConvertible {}

extension DatabaseInteger {
    /// The INTEGER form of the value, or REAL for an unsigned value above `Int64.max`.
    var integerDatabaseValue: DatabaseValue {
        if let int64 = Int64(exactly: self) {
            return DatabaseValue(storage: .int64(int64))
        }
        // Only UInt64 and UInt values above Int64.max get here.
        return DatabaseValue(storage: .double(Double(self)))
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        switch dbValue.storage {
        case .int64(let int64): return Self(exactly: int64)
        case .double(let double): return Self(exactly: double.rounded(.towardZero))
        default: return nil
        }
    }
}

extension FixedWidthInteger {
    /// The non-NULL column at `index`, converted by SQLite as `sqlite3_column_int64` does (a
    /// REAL truncated, TEXT parsed), if the result fits.
    ///
    /// One call into SQLite for a value: NULL reads as 0, so the type is asked only then.
    @inlinable @inline(__always)
    init?(sqliteColumn sqliteStatement: SQLiteStatement, index: CInt) {
        let int64 = sqlite3_column_int64(sqliteStatement, index)
        if int64 == 0 && sqlite3_column_type(sqliteStatement, index) == SQLITE_NULL { return nil }
        guard let integer = Self(exactly: int64) else { return nil }
        self = integer
    }
}

// Each integer type declares its own conversion (rather than inheriting one from a protocol
// extension) so that specialized code calls it directly and inlines it.
/// `Int` is stored as an SQLite integer; decoding fails when the stored value does not fit.
extension Int: DatabaseInteger {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) { self.init(sqliteColumn: sqliteStatement, index: index) }
}
/// `Int8` is stored as an SQLite integer; decoding fails when the stored value does not fit.
extension Int8: DatabaseInteger {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) { self.init(sqliteColumn: sqliteStatement, index: index) }
}
/// `Int16` is stored as an SQLite integer; decoding fails when the stored value does not fit.
extension Int16: DatabaseInteger {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) { self.init(sqliteColumn: sqliteStatement, index: index) }
}
/// `Int32` is stored as an SQLite integer; decoding fails when the stored value does not fit.
extension Int32: DatabaseInteger {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) { self.init(sqliteColumn: sqliteStatement, index: index) }
}
/// `Int64` is stored as an SQLite integer; decoding fails when the stored value does not fit.
extension Int64: DatabaseInteger {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) { self.init(sqliteColumn: sqliteStatement, index: index) }
}
/// `UInt` is stored as an SQLite integer; decoding fails when the stored value does not fit.
extension UInt: DatabaseInteger {
    /// An INTEGER; a value above `Int64.max` is stored as REAL.
    public var databaseValue: DatabaseValue { integerDatabaseValue }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) { self.init(sqliteColumn: sqliteStatement, index: index) }
}
/// `UInt8` is stored as an SQLite integer; decoding fails when the stored value does not fit.
extension UInt8: DatabaseInteger {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) { self.init(sqliteColumn: sqliteStatement, index: index) }
}
/// `UInt16` is stored as an SQLite integer; decoding fails when the stored value does not fit.
extension UInt16: DatabaseInteger {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) { self.init(sqliteColumn: sqliteStatement, index: index) }
}
/// `UInt32` is stored as an SQLite integer; decoding fails when the stored value does not fit.
extension UInt32: DatabaseInteger {
    /// An INTEGER.
    public var databaseValue: DatabaseValue { integerDatabaseValue }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) { self.init(sqliteColumn: sqliteStatement, index: index) }
}
/// `UInt64` is stored as an SQLite integer; decoding fails when the stored value does not fit.
extension UInt64: DatabaseInteger {
    /// An INTEGER; a value above `Int64.max` is stored as REAL.
    public var databaseValue: DatabaseValue { integerDatabaseValue }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) { self.init(sqliteColumn: sqliteStatement, index: index) }
}

/// `Double` is stored as an SQLite real.
extension Double: DatabaseValueConvertible, StatementColumnConvertible {
    public var databaseValue: DatabaseValue { .init(storage: .double(self)) }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Double? {
        switch dbValue.storage {
        case .int64(let int64): return Double(int64)
        case .double(let double): return double
        default: return nil
        }
    }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        // NULL reads as 0: the type is asked only then.
        let double = sqlite3_column_double(sqliteStatement, index)
        if double == 0 && sqlite3_column_type(sqliteStatement, index) == SQLITE_NULL { return nil }
        self = double
    }
}

/// `Float` is stored as an SQLite real.
extension Float: DatabaseValueConvertible, StatementColumnConvertible {
    public var databaseValue: DatabaseValue { .init(storage: .double(Double(self))) }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Float? {
        Double.fromDatabaseValue(dbValue).map { Float($0) }
    }

    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let double = Double(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self = Float(double)
    }
}

/// `String` is stored as SQLite text.
extension String: DatabaseValueConvertible, StatementColumnConvertible {
    public var databaseValue: DatabaseValue { .init(storage: .string(self)) }

    /// TEXT, or a BLOB read as UTF-8 text (as SQLite reads it), if it is valid UTF-8.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> String? {
        switch dbValue.storage {
        case .string(let string): return string
        case .blob(let data): return String(bytes: data, encoding: .utf8)
        default: return nil
        }
    }

    @inlinable @inline(__always)
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let text = sqlite3_column_text(sqliteStatement, index) else {
            // A NULL pointer for NULL; for another value (an empty blob), the empty string.
            guard sqlite3_column_type(sqliteStatement, index) != SQLITE_NULL else { return nil }
            self = ""
            return
        }
        self.init(sqliteText: text, count: sqlite3_column_bytes(sqliteStatement, index))
    }

    /// Text of a known length: embedded NUL characters are kept.
    @inlinable
    init(sqliteText text: UnsafePointer<UInt8>, count: CInt) {
        self.init(decoding: UnsafeBufferPointer(start: text, count: Int(count)), as: UTF8.self)
    }
}

extension String {
    /// The string with ASCII capitals lowercased, and nothing else: SQLite's folding of
    /// identifiers (`Été` and `été` are two tables for SQLite).
    func asciiLowercased() -> String {
        if !utf8.contains(where: { (0x41...0x5A).contains($0) }) { return self }
        return String(decoding: utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether two identifiers are equal for SQLite: ASCII letters compare case-insensitively,
    /// other characters exactly (SQLite folds ASCII only).
    ///
    /// Compares contiguous bytes: cheaper than `==`, whose slow path for different strings
    /// dominated record encoding in profiles.
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var lhs = self
        var rhs = other
        return lhs.withUTF8 { lhs in
            rhs.withUTF8 { rhs in
                guard lhs.count == rhs.count else { return false }
                for index in lhs.indices {
                    let a = lhs[index]
                    let b = rhs[index]
                    if a == b { continue }
                    let foldedA = a | 0x20
                    if foldedA != b | 0x20 || foldedA < 0x61 || foldedA > 0x7A { return false }
                }
                return true
            }
        }
    }
}

// MARK: - Sendable metatypes

#if compiler(>=6.2)
/// The marker of types whose metatype may cross concurrency domains: `SendableMetatype` with
/// Swift 6.2 and later, `Any` (no requirement) before. It lets generic code that sends record
/// types to other tasks compile with every supported compiler.
///
/// ```swift
/// func fetchAll<T: FetchableRecord & TableRecord & GRDBSendableMetatype>(
///     _ type: T.Type, from reader: some DatabaseReader) async throws -> [T] where T: Sendable
/// {
///     try await reader.read { db in try T.fetchAll(db) }
/// }
/// ```
public typealias GRDBSendableMetatype = SendableMetatype
#else
/// The marker of types whose metatype may cross concurrency domains: `SendableMetatype` with
/// Swift 6.2 and later, `Any` (no requirement) before.
public typealias GRDBSendableMetatype = Any
#endif
