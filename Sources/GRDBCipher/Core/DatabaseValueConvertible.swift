import CSQLCipher
import Foundation

/// A type that can convert itself to and from a database value.
///
/// ```swift
/// struct EvenInteger: DatabaseValueConvertible {
///     let value: Int
///     var databaseValue: DatabaseValue { value.databaseValue }
///     static func fromDatabaseValue(_ dbValue: DatabaseValue) -> EvenInteger? {
///         guard let value = Int.fromDatabaseValue(dbValue), value % 2 == 0 else { return nil }
///         return EvenInteger(value: value)
///     }
/// }
/// ```
public protocol DatabaseValueConvertible: SQLExpressible, StatementBinding {
    /// A database value.
    var databaseValue: DatabaseValue { get }

    /// Returns a value initialized from `dbValue`, if possible.
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self?

    /// Returns a value for a column that is missing from a row, if possible. The default is nil.
    static func fromMissingColumn() -> Self?

    /// The decoder of the JSON form of `Decodable` values stored as JSON (keyed or unkeyed
    /// containers). Implement it to customize how they are read.
    ///
    /// ```swift
    /// struct Itinerary: Codable, DatabaseValueConvertible {
    ///     var stops: [Date]
    ///     static func databaseJSONDecoder() -> JSONDecoder {
    ///         let decoder = JSONDecoder()
    ///         decoder.dateDecodingStrategy = .iso8601
    ///         return decoder
    ///     }
    /// }
    /// ```
    static func databaseJSONDecoder() -> JSONDecoder

    /// The encoder of the JSON form of `Encodable` values stored as JSON (keyed or unkeyed
    /// containers). Implement it to customize how they are written.
    static func databaseJSONEncoder() -> JSONEncoder
}

extension DatabaseValueConvertible {
    public static func fromMissingColumn() -> Self? { nil }
}

/// A type that can bind a statement argument.
public protocol StatementBinding {
    /// Binds the value at `index` (1-based) of a prepared statement and returns the SQLite code.
    func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt
}

extension StatementBinding where Self: RawRepresentable, Self.RawValue: StatementBinding {
    /// Binds the raw value.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        rawValue.bind(to: sqliteStatement, at: index)
    }
}

extension DatabaseValueConvertible {
    /// Binds the value to a statement parameter; returns SQLite's result code.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        databaseValue.bind(to: sqliteStatement, at: index)
    }
}

extension DatabaseValue {
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        switch storage {
        case .null:
            return sqlite3_bind_null(sqliteStatement, index)
        case .int64(let int64):
            return sqlite3_bind_int64(sqliteStatement, index, int64)
        case .double(let double):
            return sqlite3_bind_double(sqliteStatement, index, double)
        case .string(let string):
            return string.withSQLiteText { text, count in
                sqlite3_bind_text(sqliteStatement, index, text, count, SQLITE_TRANSIENT)
            }
        case .blob(let data):
            return data.withUnsafeBytes { buffer in
                // A non-NULL pointer so that an empty blob binds as a blob, not NULL.
                sqlite3_bind_blob(
                    sqliteStatement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    CInt(buffer.count), SQLITE_TRANSIENT)
            }
        }
    }
}

extension String {
    /// Calls `body` with the UTF-8 bytes and their count, never with a NULL pointer (SQLite would
    /// take it for NULL), so that empty strings and embedded NUL characters survive.
    func withSQLiteText<T>(_ body: (UnsafePointer<CChar>, CInt) -> T) -> T {
        var string = self
        return string.withUTF8 { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return "".withCString { body($0, 0) }
            }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                body($0, CInt(buffer.count))
            }
        }
    }
}

/// SQLite's "copy the bytes" destructor, which Swift cannot spell.
let SQLITE_TRANSIENT = grdbcipher_transient_destructor()

/// A type that reads itself straight from `sqlite3_column_*`, skipping `DatabaseValue`.
///
/// Values read this way follow SQLite's conversions (those of `sqlite3_column_int64`,
/// `sqlite3_column_double`, `sqlite3_column_text`…), as GRDB's do.
///
/// Conforming types are decoded faster when fetched, or read from a `Row`:
///
/// ```swift
/// let scores = try Int.fetchAll(db, sql: "SELECT score FROM player") // fast path
/// ```
///
/// The initializer is called for non-NULL columns only. Return nil when the column holds a
/// value the type cannot represent; the caller then reports a decoding error.
public protocol StatementColumnConvertible {
    /// Creates an instance from the column at `index` of the current row, if possible.
    init?(sqliteStatement: SQLiteStatement, index: CInt)

    /// Returns a value from the column at `index` of the current row, or nil for NULL or a
    /// value that does not convert. The index is not checked.
    static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Self?
}

extension StatementColumnConvertible {
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Self? {
        guard sqlite3_column_type(sqliteStatement, index) != SQLITE_NULL else { return nil }
        return Self(sqliteStatement: sqliteStatement, index: index)
    }
}

/// A raw SQLite statement handle.
public typealias SQLiteStatement = OpaquePointer

/// A raw SQLite connection handle.
public typealias SQLiteConnection = OpaquePointer

// MARK: - Optional

extension Optional: StatementBinding where Wrapped: DatabaseValueConvertible {}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        switch self {
        case .none: return .null
        case .some(let value): return value.databaseValue
        }
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Wrapped?? {
        if dbValue.isNull { return .some(.none) }
        guard let value = Wrapped.fromDatabaseValue(dbValue) else { return nil }
        return .some(value)
    }

    public static func fromMissingColumn() -> Wrapped?? { .some(.none) }
}

/// Optional values read straight from SQLite: NULL is `nil`, other values convert as
/// `Wrapped` does.
///
/// ```swift
/// let emails = try String?.fetchAll(db, sql: "SELECT email FROM player") // [String?]
/// ```
extension Optional: StatementColumnConvertible where Wrapped: StatementColumnConvertible {
    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        if sqlite3_column_type(sqliteStatement, index) == SQLITE_NULL {
            self = .none
            return
        }
        guard let value = Wrapped(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self = .some(value)
    }

    /// `.some(nil)` for NULL, `.some(value)` for a value that converts, nil otherwise.
    @inlinable
    public static func fromStatement(_ sqliteStatement: SQLiteStatement, atUncheckedIndex index: CInt) -> Wrapped?? {
        Wrapped?(sqliteStatement: sqliteStatement, index: index)
    }
}

// MARK: - RawRepresentable

extension DatabaseValueConvertible where Self: RawRepresentable, Self.RawValue: DatabaseValueConvertible {
    /// The raw value, as a database value.
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    /// The value whose raw value is decoded from `dbValue`, or nil.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        RawValue.fromDatabaseValue(dbValue).flatMap { Self(rawValue: $0) }
    }
}

extension StatementColumnConvertible where Self: RawRepresentable, Self.RawValue: StatementColumnConvertible {
    @inlinable
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard let rawValue = RawValue(sqliteStatement: sqliteStatement, index: index) else { return nil }
        self.init(rawValue: rawValue)
    }
}

// MARK: - ReferenceConvertible

/// A Foundation value type converts as its reference type does, when that one is convertible.
extension DatabaseValueConvertible where Self: ReferenceConvertible, Self.ReferenceType: DatabaseValueConvertible {
    /// The database value of the bridged reference.
    public var databaseValue: DatabaseValue {
        (self as! ReferenceType).databaseValue
    }

    /// The value bridged from the reference decoded from `dbValue`, if any.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        ReferenceType.fromDatabaseValue(dbValue).flatMap { $0 as? Self }
    }
}

// A Codable Foundation value type would get both its reference type's form and its Codable
// form: the reference type's form wins.

extension DatabaseValueConvertible
where Self: ReferenceConvertible & Encodable, Self.ReferenceType: DatabaseValueConvertible
{
    /// The database value of the bridged reference.
    public var databaseValue: DatabaseValue {
        (self as! ReferenceType).databaseValue
    }
}

extension DatabaseValueConvertible
where Self: ReferenceConvertible & Decodable, Self.ReferenceType: DatabaseValueConvertible
{
    /// The value bridged from the reference decoded from `dbValue`, if any.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        ReferenceType.fromDatabaseValue(dbValue).flatMap { $0 as? Self }
    }
}
