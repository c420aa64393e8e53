import CSQLCipher
import Foundation

/// A custom string comparison for `ORDER BY`, indexes and comparisons.
///
/// ```swift
/// let collation = DatabaseCollation("localized_standard") { $0.localizedStandardCompare($1) }
/// try dbQueue.write { db in
///     db.add(collation: collation)
///     try db.execute(sql: "CREATE TABLE player (name TEXT COLLATE localized_standard)")
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/datatype3.html#collation>
public final class DatabaseCollation: Hashable, Identifiable, Sendable {
    /// The name of the collation.
    public let name: String
    let function: @Sendable (String, String) -> ComparisonResult

    /// The identity of a collation, as SQLite knows it: its name, ignoring case. Two
    /// collations with the same identity replace each other in a connection.
    ///
    /// ```swift
    /// DatabaseCollation("french") { $0.compare($1) }.id
    ///     == DatabaseCollation("FRENCH") { $0.compare($1) }.id // true
    /// ```
    public struct ID: Hashable, Sendable {
        let name: String

        init(name: String) {
            self.name = name.lowercased()
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.name == rhs.name
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
        }
    }

    /// The identity of the collation: its name, ignoring case.
    public var id: ID { ID(name: name) }

    /// Creates a collation.
    public init(_ name: String, function: @escaping @Sendable (String, String) -> ComparisonResult) {
        self.name = name
        self.function = function
    }

    public static func == (lhs: DatabaseCollation, rhs: DatabaseCollation) -> Bool {
        lhs.id == rhs.id
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }

    /// Compares with `String.compare`, unicode-aware.
    public static let unicodeCompare = DatabaseCollation("swiftCompare") { $0 == $1 ? .orderedSame : ($0 < $1 ? .orderedAscending : .orderedDescending) }

    /// Compares with `caseInsensitiveCompare`.
    public static let caseInsensitiveCompare = DatabaseCollation("swiftCaseInsensitiveCompare") { $0.caseInsensitiveCompare($1) }

    /// Compares with `localizedCaseInsensitiveCompare`.
    public static let localizedCaseInsensitiveCompare = DatabaseCollation("swiftLocalizedCaseInsensitiveCompare") { $0.localizedCaseInsensitiveCompare($1) }

    /// Compares with `localizedCompare`.
    public static let localizedCompare = DatabaseCollation("swiftLocalizedCompare") { $0.localizedCompare($1) }

    /// Compares with `localizedStandardCompare`.
    public static let localizedStandardCompare = DatabaseCollation("swiftLocalizedStandardCompare") { $0.localizedStandardCompare($1) }

    /// The collations every connection registers, under the SQL names GRDB gives them
    /// (`swiftCompare`, `swiftCaseInsensitiveCompare`…), so that schemas written by GRDB
    /// applications can be queried.
    static let defaultCollations = [
        unicodeCompare, caseInsensitiveCompare, localizedCaseInsensitiveCompare,
        localizedCompare, localizedStandardCompare,
    ]
}

extension Database {
    /// The names of SQLite's built-in collations.
    public struct CollationName: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The `BINARY` collation: bytes compared with memcmp.
        public static let binary = CollationName(rawValue: "BINARY")
        /// The `NOCASE` collation: ASCII case folded.
        public static let nocase = CollationName(rawValue: "NOCASE")
        /// The `RTRIM` collation: trailing spaces ignored.
        public static let rtrim = CollationName(rawValue: "RTRIM")
    }

    /// Adds or replaces a collation.
    public func add(collation: DatabaseCollation) {
        preconditionValidAccess()
        collations[collation.name.lowercased()] = collation
        // Unsafe: retained for SQLite, which releases it with xDestroy when the collation is
        // replaced or removed, or the connection closes (a failed registration traps below).
        let context = Unmanaged.passRetained(collation).toOpaque()
        let code = sqlite3_create_collation_v2(
            handle, collation.name, SQLITE_UTF8, context,
            { context, length1, bytes1, length2, bytes2 in
                // Unsafe: the context retained above, alive until xDestroy.
                let collation = Unmanaged<DatabaseCollation>.fromOpaque(context!).takeUnretainedValue()
                let lhs = String(decoding: UnsafeRawBufferPointer(start: bytes1, count: Int(length1)), as: UTF8.self)
                let rhs = String(decoding: UnsafeRawBufferPointer(start: bytes2, count: Int(length2)), as: UTF8.self)
                switch collation.function(lhs, rhs) {
                case .orderedAscending: return -1
                case .orderedSame: return 0
                case .orderedDescending: return 1
                }
            },
            // Unsafe: xDestroy, called once by SQLite: balances the retain above.
            { context in Unmanaged<DatabaseCollation>.fromOpaque(context!).release() })
        precondition(code == SQLITE_OK, "could not add collation \(collation.name): \(String(cString: sqlite3_errstr(code)))")
    }

    /// Removes a collation.
    public func remove(collation: DatabaseCollation) {
        preconditionValidAccess()
        collations[collation.name.lowercased()] = nil
        sqlite3_create_collation_v2(handle, collation.name, SQLITE_UTF8, nil, nil, nil)
    }

    /// Rebuilds the indexes that use a built-in collation.
    ///
    /// ```swift
    /// try db.reindex(collation: .nocase) // REINDEX NOCASE
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_reindex.html>
    public func reindex(collation: Database.CollationName) throws {
        // The built-in names as SQLite spells them, unquoted, as GRDB (SQL-7).
        try execute(sql: "REINDEX \(collation.rawValue)")
    }

    /// Rebuilds the indexes that use a custom collation, after its ordering changed.
    ///
    /// ```swift
    /// try db.reindex(collation: .localizedCompare) // REINDEX "swiftLocalizedCompare"
    /// ```
    public func reindex(collation: DatabaseCollation) throws {
        try execute(sql: "REINDEX \(collation.name.quotedDatabaseIdentifier)")
    }
}
