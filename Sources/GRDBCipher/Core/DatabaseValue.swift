import CSQLCipher
import Foundation

/// A value stored in a database table: NULL, an integer, a double, a string or a blob.
///
/// ```swift
/// let dbValue = try DatabaseValue.fetchOne(db, sql: "SELECT name FROM player")!
/// switch dbValue.storage {
/// case .null: print("NULL")
/// case .int64(let int64): print(int64)
/// case .double(let double): print(double)
/// case .string(let string): print(string)
/// case .blob(let data): print(data)
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/datatype3.html>
public struct DatabaseValue: Hashable, Sendable {
    /// The SQLite storage classes.
    public enum Storage: Hashable, Sendable {
        /// The SQL NULL.
        case null
        /// An SQLite integer.
        case int64(Int64)
        /// An SQLite real (a double-precision floating point number).
        case double(Double)
        /// An SQLite text.
        case string(String)
        /// An SQLite blob.
        case blob(Data)

        // Integers and doubles compare numerically, as in SQLite.
        public static func == (lhs: Storage, rhs: Storage) -> Bool {
            switch (lhs, rhs) {
            case (.null, .null): return true
            case let (.int64(a), .int64(b)): return a == b
            case let (.double(a), .double(b)): return a == b
            case let (.int64(a), .double(b)): return int64EqualsDouble(a, b)
            case let (.double(a), .int64(b)): return int64EqualsDouble(b, a)
            case let (.string(a), .string(b)): return a == b
            case let (.blob(a), .blob(b)): return a == b
            default: return false
            }
        }

        /// The stored value: nil for NULL, or an `Int64`, a `Double`, a `String`, a `Data`.
        ///
        /// ```swift
        /// let dbValue = try DatabaseValue.fetchOne(db, sql: "SELECT 42")!
        /// dbValue.storage.value as? Int64 // 42
        /// ```
        public var value: (any DatabaseValueConvertible)? {
            switch self {
            case .null: return nil
            case .int64(let int64): return int64
            case .double(let double): return double
            case .string(let string): return string
            case .blob(let data): return data
            }
        }

        public func hash(into hasher: inout Hasher) {
            switch self {
            case .null:
                hasher.combine(0)
            case .int64(let value):
                // Hash as a double when exactly representable, so that 1 and 1.0 hash alike.
                if let double = Double(exactly: value) {
                    hasher.combine(double)
                } else {
                    hasher.combine(value)
                }
            case .double(let value):
                hasher.combine(value)
            case .string(let value):
                hasher.combine(value)
            case .blob(let value):
                hasher.combine(value)
            }
        }
    }

    /// The value's storage.
    public let storage: Storage

    /// Hashes the storage: equal values (such as the integer 1 and the double 1.0) hash alike.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage)
    }

    /// The NULL value.
    public static let null = DatabaseValue(storage: .null)

    /// Whether the value is NULL.
    public var isNull: Bool {
        if case .null = storage { return true }
        return false
    }

    @usableFromInline
    init(storage: Storage) {
        self.storage = storage
    }

    /// Creates a database value from any value, or nil if it is not a database value.
    ///
    /// ```swift
    /// DatabaseValue(value: 1)        // 1
    /// DatabaseValue(value: "foo")    // "foo"
    /// DatabaseValue(value: NSNull()) // NULL
    /// DatabaseValue(value: Date())   // nil: not a supported Any
    /// ```
    public init?(value: Any) {
        switch value {
        case let value as DatabaseValue:
            self = value
        case is NSNull:
            self = .null
        case let value as any DatabaseValueConvertible:
            self = value.databaseValue
        default:
            return nil
        }
    }

    /// Reads an `sqlite3_value` (function arguments).
    init(sqliteValue: OpaquePointer) {
        switch sqlite3_value_type(sqliteValue) {
        case SQLITE_NULL:
            storage = .null
        case SQLITE_INTEGER:
            storage = .int64(sqlite3_value_int64(sqliteValue))
        case SQLITE_FLOAT:
            storage = .double(sqlite3_value_double(sqliteValue))
        case SQLITE_TEXT:
            let text = sqlite3_value_text(sqliteValue)!
            let count = Int(sqlite3_value_bytes(sqliteValue))
            storage = .string(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        default:
            if let bytes = sqlite3_value_blob(sqliteValue) {
                storage = .blob(Data(bytes: bytes, count: Int(sqlite3_value_bytes(sqliteValue))))
            } else {
                storage = .blob(Data())
            }
        }
    }

    /// The SQLite storage class name, used in error messages instead of the value itself so
    /// that data never leaks into logs.
    var storageClassName: String {
        switch storage {
        case .null: return "NULL"
        case .int64: return "INTEGER"
        case .double: return "REAL"
        case .string: return "TEXT"
        case .blob: return "BLOB"
        }
    }
}

private func int64EqualsDouble(_ i: Int64, _ d: Double) -> Bool {
    guard let exact = Int64(exactly: d) else { return false }
    return exact == i
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseValue? { dbValue }
}

extension DatabaseValue: StatementColumnConvertible {
    @inlinable
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_NULL:
            self.init(storage: .null)
        case SQLITE_INTEGER:
            self.init(storage: .int64(sqlite3_column_int64(sqliteStatement, index)))
        case SQLITE_FLOAT:
            self.init(storage: .double(sqlite3_column_double(sqliteStatement, index)))
        case SQLITE_TEXT:
            self.init(storage: .string(String(sqliteText: sqlite3_column_text(sqliteStatement, index)!, count: sqlite3_column_bytes(sqliteStatement, index))))
        default:
            if let bytes = sqlite3_column_blob(sqliteStatement, index) {
                let count = Int(sqlite3_column_bytes(sqliteStatement, index))
                self.init(storage: .blob(Data(bytes: bytes, count: count)))
            } else {
                self.init(storage: .blob(Data()))
            }
        }
    }
}

extension DatabaseValue: CustomStringConvertible {
    /// An SQL-like description: `NULL`, `1`, `1.5`, `"text"`, `Data(3 bytes)`.
    public var description: String {
        switch storage {
        case .null: return "NULL"
        case .int64(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return String(reflecting: value)
        case .blob(let data): return "Data(\(data.count) bytes)"
        }
    }
}
