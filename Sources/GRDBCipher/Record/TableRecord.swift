import Foundation

/// A type tied to a database table, that builds SQL for it.
///
/// ```swift
/// struct Player: TableRecord {
///     // Optional: the default is "player", the type name with a lowercased first letter.
///     static let databaseTableName = "player"
///
///     enum Columns {
///         static let name = Column("name")
///         static let score = Column("score")
///     }
/// }
///
/// let count = try Player.fetchCount(db)          // SELECT COUNT(*) FROM "player"
/// let exists = try Player.exists(db, key: 1)     // SELECT EXISTS (SELECT * FROM "player" WHERE "id" = ?)
/// try Player.deleteOne(db, key: 1)               // DELETE FROM "player" WHERE "id" = ?
/// ```
public protocol TableRecord {
    /// The name of the database table. The default is the type name with its first word
    /// lowercased, keeping the capital that starts the next word: `Player` → "player",
    /// `HTTPRequest` → "httpRequest", `iPhone` → "iphone".
    static var databaseTableName: String { get }

    /// The columns selected by the record's requests. The default is `[.allColumns]` (`*`).
    static var databaseSelection: [any SQLSelectable] { get }

    /// The type that lists the record's columns: usually an `enum Columns` nested in the record,
    /// found by Swift without further declaration. `Never` when the record has none.
    associatedtype Columns = Never

    /// What the closures of the query interface receive: by default the `Columns` type itself,
    /// so that `$0.score` is `Columns.score`.
    ///
    /// ```swift
    /// struct Player: TableRecord {
    ///     enum Columns {
    ///         static let score = Column("score")
    ///     }
    /// }
    ///
    /// // SELECT * FROM "player" WHERE "score" > 100 ORDER BY "score" DESC
    /// let request = Player
    ///     .filter { $0.score > 100 }
    ///     .order { $0.score.desc }
    /// ```
    associatedtype DatabaseComponents = Self.Columns.Type

    /// The value handed to the closures of the query interface (see ``DatabaseComponents``).
    static var databaseComponents: DatabaseComponents { get }
}

extension TableRecord where DatabaseComponents == Columns.Type {
    /// The `Columns` type of the record.
    public static var databaseComponents: DatabaseComponents { Columns.self }
}

extension TableRecord {
    public static var databaseTableName: String {
        DefaultTableNames.name(for: Self.self)
    }

    public static var databaseSelection: [any SQLSelectable] {
        [AllColumns()]
    }

    /// The number of columns selected by the record (`*` counts the table's columns).
    public static func numberOfSelectedColumns(_ db: Database) throws -> Int {
        var count = 0
        for selectable in databaseSelection {
            let selection = selectable.sqlSelection
            if selection.isAllColumns {
                count += try db.columns(in: databaseTableName).count
            } else if case let .allColumnsExcluding(excluded, _) = selection.kind {
                count += try SQLSelection.columns(db, table: databaseTableName, excluding: excluded).count
            } else {
                count += 1
            }
        }
        return count
    }
}

/// Default table names by type, computed once: the type name comes from the runtime, which is
/// too slow to ask on every insert.
enum DefaultTableNames {
    private static let names = LockedValue<[ObjectIdentifier: String]>([:])

    static func name(for type: Any.Type) -> String {
        let id = ObjectIdentifier(type)
        if let name = names.read({ $0[id] }) { return name }
        let name = defaultDatabaseTableName(String(describing: type))
        names.update { $0[id] = name }
        return name
    }
}

/// The default table name of a type, GRDB's rule: the first word is lowercased, and the
/// capital that starts the second word stays. `Place` → "place", `PostalAddress` →
/// "postalAddress", `HTTPRequest` → "httpRequest", `TOEFL` → "toefl", `iPhone` → "iphone".
/// The first word is the run of capitals after any leading lowercase letters: the run is
/// lowercased, except its last capital when a lowercase letter follows it and the run has more
/// than one capital ("HTTPR" + "equest": "R" starts "Request"). Generic arguments are dropped:
/// `Box<Int>` → "box".
func defaultDatabaseTableName(_ typeName: String) -> String {
    let characters = Array(typeName.prefix { $0 != "<" })
    var runStart = 0
    while runStart < characters.count, !characters[runStart].isUppercase {
        runStart += 1
    }
    var runEnd = runStart
    while runEnd < characters.count, characters[runEnd].isUppercase {
        runEnd += 1
    }
    // The capitals to lowercase: the whole run, or all but the one that starts the next word.
    let lowered = runEnd - runStart > 1 && runEnd < characters.count ? runEnd - 1 : runEnd
    return characters[..<lowered].map { $0.lowercased() }.joined() + String(characters[lowered...])
}

// MARK: - Errors

/// An error thrown by records: a row that should exist does not.
///
/// ```swift
/// do {
///     let player = try Player.find(db, id: 42)
/// } catch let RecordError.recordNotFound(databaseTableName: table, key: key) {
///     print("No \(table) row for \(key.keys)")
/// }
/// ```
///
/// The description names the table and the key columns, not the key values: they may be
/// personal data (see docs/GRDB-Differences.md).
public enum RecordError: Error, CustomStringConvertible, Sendable {
    /// No row of `databaseTableName` has this key.
    case recordNotFound(databaseTableName: String, key: [String: DatabaseValue])

    public var description: String {
        switch self {
        case let .recordNotFound(databaseTableName: table, key: key):
            let columns = key.keys.sorted().map(\.quotedDatabaseIdentifier).joined(separator: ", ")
            return "Key not found in table \(table.quotedDatabaseIdentifier) (key columns: \(columns))"
        }
    }
}

/// The former name of ``RecordError``.
@available(*, deprecated, renamed: "RecordError")
public typealias PersistenceError = RecordError

// MARK: - Keys

extension TableRecord {
    /// The database value of a key component, encoded with the record's UUID, date and data
    /// strategies when it has some.
    static func keyDatabaseValue(_ value: (any DatabaseValueConvertible)?, column: String) -> DatabaseValue {
        guard let value else { return .null }
        if let encodable = Self.self as? any EncodableRecord.Type {
            return encodable.strategyEncodedValue(value, column: column)
        }
        return value.databaseValue
    }

    /// Primary key values: one value per key; the primary key must have one column.
    static func primaryKeyValues(_ db: Database, _ values: [(any DatabaseValueConvertible)?]) throws -> (column: String, values: [DatabaseValue]) {
        let column = try db.singlePrimaryKeyColumn(databaseTableName)
        return (column, values.map { keyDatabaseValue($0, column: column) })
    }

}

extension Database {
    /// The column of a single-column primary key; a composite primary key is an error, since
    /// one value can not identify a row.
    func singlePrimaryKeyColumn(_ tableName: String) throws -> String {
        let primaryKey = try primaryKey(tableName)
        guard primaryKey.columns.count == 1 else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "table \(tableName.quotedDatabaseIdentifier) has a composite primary key (\(primaryKey.columns.joined(separator: ", "))): give keys as dictionaries")
        }
        return primaryKey.columns[0]
    }
}

// MARK: - Counting, existence, deletion

extension TableRecord {
    /// Returns the number of rows in the table.
    ///
    /// ```swift
    /// let count = try Player.fetchCount(db) // SELECT COUNT(*) FROM "player"
    /// ```
    public static func fetchCount(_ db: Database) throws -> Int {
        try all().fetchCount(db)
    }

    /// Returns whether a row exists for this primary key.
    public static func exists(_ db: Database, key: some DatabaseValueConvertible) throws -> Bool {
        try !filter(key: key).isEmpty(db)
    }

    /// Returns whether a row exists for this primary or unique key.
    ///
    /// ```swift
    /// try Player.exists(db, key: ["email": "arthur@example.com"])
    /// ```
    public static func exists(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try !filter(key: key).isEmpty(db)
    }

    /// Deletes all rows, and returns the number of deleted rows.
    ///
    /// ```swift
    /// try Player.deleteAll(db) // DELETE FROM "player"
    /// ```
    @discardableResult
    public static func deleteAll(_ db: Database) throws -> Int {
        try all().deleteAll(db)
    }

    /// Deletes the rows with these primary keys, and returns the number of deleted rows.
    @discardableResult
    public static func deleteAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Int {
        if keys.isEmpty { return 0 }
        return try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the rows with these primary or unique keys, and returns the number of deleted
    /// rows.
    @discardableResult
    public static func deleteAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Int {
        if keys.isEmpty { return 0 }
        return try filter(keys: keys).deleteAll(db)
    }

    /// Deletes the row with this primary key, and returns whether a row was deleted.
    ///
    /// ```swift
    /// try Player.deleteOne(db, key: 1) // DELETE FROM "player" WHERE "id" = ?
    /// ```
    @discardableResult
    public static func deleteOne(_ db: Database, key: (some DatabaseValueConvertible)?) throws -> Bool {
        guard let key else { return false }
        return try deleteAll(db, keys: [key]) > 0
    }

    /// Deletes the row with this primary or unique key, and returns whether a row was deleted.
    @discardableResult
    public static func deleteOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try deleteAll(db, keys: [key]) > 0
    }

    /// The error for a primary key that matches no row.
    public static func recordNotFound(_ db: Database, key: some DatabaseValueConvertible) -> any Error {
        do {
            let (column, values) = try primaryKeyValues(db, [key])
            return RecordError.recordNotFound(databaseTableName: databaseTableName, key: [column: values[0]])
        } catch {
            return error
        }
    }

    /// The error for a primary or unique key that matches no row.
    public static func recordNotFound(key: [String: (any DatabaseValueConvertible)?]) -> RecordError {
        var dbKey: [String: DatabaseValue] = [:]
        for (column, value) in key {
            dbKey[column] = keyDatabaseValue(value, column: column)
        }
        return RecordError.recordNotFound(databaseTableName: databaseTableName, key: dbKey)
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// Returns whether a row exists for this id.
    ///
    /// ```swift
    /// try Player.exists(db, id: 1)
    /// ```
    public static func exists(_ db: Database, id: ID) throws -> Bool {
        // As GRDB: a nil id (optional `ID`) matches no row, and runs no statement.
        if id.databaseValue.isNull { return false }
        return try exists(db, key: id)
    }

    /// Deletes the rows with these ids, and returns the number of deleted rows.
    @discardableResult
    public static func deleteAll(_ db: Database, ids: some Collection<ID>) throws -> Int {
        try deleteAll(db, keys: ids)
    }

    /// Deletes the row with this id, and returns whether a row was deleted.
    @discardableResult
    public static func deleteOne(_ db: Database, id: ID) throws -> Bool {
        if id.databaseValue.isNull { return false }
        return try deleteOne(db, key: id)
    }

    /// The error for an id that matches no row.
    public static func recordNotFound(_ db: Database, id: ID) -> any Error {
        recordNotFound(db, key: id)
    }
}

extension TableRecord where Self: EncodableRecord {
    /// The error for this record, when no row has its primary key: the one `update` throws.
    ///
    /// ```swift
    /// guard try player.exists(db) else {
    ///     throw player.recordNotFound(db) // RecordError.recordNotFound
    /// }
    /// ```
    public func recordNotFound(_ db: Database) -> any Error {
        do {
            let container = try PersistenceContainer(self, db)
            let columns = try db.primaryKey(Self.databaseTableName).columns
            let key = Dictionary(columns.map { ($0, container.databaseValue(of: $0)) }, uniquingKeysWith: { first, _ in first })
            return RecordError.recordNotFound(databaseTableName: Self.databaseTableName, key: key)
        } catch {
            return error
        }
    }
}
