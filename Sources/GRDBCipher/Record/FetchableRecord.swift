import Foundation

/// A type that can decode itself from a database row.
///
/// ```swift
/// struct Player: FetchableRecord {
///     var id: Int64
///     var name: String
///
///     init(row: Row) {
///         id = row["id"]
///         name = row["name"]
///     }
/// }
///
/// let players = try Player.fetchAll(db, sql: "SELECT * FROM player")
/// ```
///
/// `Decodable` types get `init(row:)` for free (see ``FetchableRecord/init(row:)``).
public protocol FetchableRecord {
    /// Creates a record from a row. The row may be a live row of a cursor: copy it to keep it.
    init(row: Row) throws

    /// Contextual information given to `Decodable.init(from:)`.
    static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { get }

    /// The `JSONDecoder` for a column that holds a nested `Decodable` value as JSON.
    static func databaseJSONDecoder(for column: String) -> JSONDecoder

    /// How `Date` properties decode (default: ``DatabaseDateDecodingStrategy/deferredToDate``).
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy

    /// How `Data` properties decode (default: ``DatabaseDataDecodingStrategy/deferredToData``).
    static func databaseDataDecodingStrategy(for column: String) -> DatabaseDataDecodingStrategy

    /// How coding keys match columns (default: ``DatabaseColumnDecodingStrategy/useDefaultKeys``).
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { get }
}

extension FetchableRecord {
    public static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { [:] }

    public static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .throw
        decoder.userInfo = sendableUserInfo(databaseDecodingUserInfo)
        return decoder
    }

    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .deferredToDate }

    public static func databaseDataDecodingStrategy(for column: String) -> DatabaseDataDecodingStrategy { .deferredToData }

    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .useDefaultKeys }
}

/// How `Decodable` records decode their `Date` properties.
public enum DatabaseDateDecodingStrategy {
    /// `Date`'s own database decoding: text dates and numbers of seconds since 1970.
    case deferredToDate
    /// A number of seconds since 2001-01-01 UTC.
    case timeIntervalSinceReferenceDate
    /// A number of seconds since 1970-01-01 UTC.
    case timeIntervalSince1970
    /// A number of milliseconds since 1970-01-01 UTC.
    case millisecondsSince1970
    /// ISO 8601 text.
    case iso8601
    /// Text parsed by the formatter.
    case formatted(DateFormatter)
    /// Your own decoding; nil is a decoding error.
    case custom((DatabaseValue) -> Date?)

    func decode(_ dbValue: DatabaseValue) -> Date? {
        switch self {
        case .deferredToDate:
            return Date.fromDatabaseValue(dbValue)
        case .timeIntervalSinceReferenceDate:
            return Double.fromDatabaseValue(dbValue).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .timeIntervalSince1970:
            return Double.fromDatabaseValue(dbValue).map { Date(timeIntervalSince1970: $0) }
        case .millisecondsSince1970:
            return Double.fromDatabaseValue(dbValue).map { Date(timeIntervalSince1970: $0 / 1000) }
        case .iso8601:
            return String.fromDatabaseValue(dbValue).flatMap { ISO8601DateFormatter().date(from: $0) }
        case .formatted(let formatter):
            return String.fromDatabaseValue(dbValue).flatMap { formatter.date(from: $0) }
        case .custom(let decode):
            return decode(dbValue)
        }
    }
}

/// How `Decodable` records decode their `Data` properties.
public enum DatabaseDataDecodingStrategy {
    /// `Data`'s own database decoding: blobs, and text as its UTF-8 bytes.
    case deferredToData
    /// Your own decoding; nil is a decoding error.
    case custom((DatabaseValue) -> Data?)

    func decode(_ dbValue: DatabaseValue) -> Data? {
        switch self {
        case .deferredToData: return Data.fromDatabaseValue(dbValue)
        case .custom(let decode): return decode(dbValue)
        }
    }
}

/// How `Decodable` records look for the column of a coding key.
public enum DatabaseColumnDecodingStrategy: Sendable {
    /// The column has the name of the key.
    case useDefaultKeys
    /// Column names in snake case (`player_id`) match camel case keys (`playerId`).
    case convertFromSnakeCase
    /// Each column name gives the coding key it matches.
    case custom(@Sendable (String) -> any CodingKey)

    /// The coding key string a column name matches, for the non-default strategies.
    func keyString(forColumn column: String) -> String {
        switch self {
        case .useDefaultKeys: return column
        case .convertFromSnakeCase: return camelCasedFromSnakeCase(column)
        case .custom(let key): return key(column).stringValue
        }
    }
}

/// `player_id` → `playerId`; leading and trailing underscores are kept.
func camelCasedFromSnakeCase(_ string: String) -> String {
    guard let first = string.firstIndex(where: { $0 != "_" }) else { return string }
    var last = string.index(before: string.endIndex)
    while last > first, string[last] == "_" { last = string.index(before: last) }
    let core = string[first...last]
    let words = core.split(separator: "_", omittingEmptySubsequences: true)
    guard words.count > 1 else { return string }
    let joined = words[0].lowercased() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
    return String(string[..<first]) + joined + String(string[string.index(after: last)...])
}

// MARK: - Cursor

/// A cursor of records decoded from the rows of a statement.
///
/// ```swift
/// let players = try Player.fetchCursor(db, sql: "SELECT * FROM player")
/// while let player = try players.next() { ... }
/// ```
public final class RecordCursor<Record: FetchableRecord>: DatabaseCursor {
    public typealias Element = Record

    /// Nil for a cursor over rows fetched beforehand.
    @usableFromInline let stepper: StatementStepper?

    /// The statement that feeds the cursor.
    public let statement: Statement

    /// Rows fetched beforehand (requests that prefetch associated rows), or nil.
    private var preloaded: IndexingIterator<[Row]>?

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        stepper = try StatementStepper(statement: statement, arguments: arguments, adapter: adapter)
        self.statement = statement
    }

    /// A cursor over records decoded from rows fetched already.
    init(statement: Statement, preloaded rows: [Row]) {
        stepper = nil
        self.statement = statement
        preloaded = rows.makeIterator()
    }

    // Inlinable: specialized in the caller's module, the record's `init(row:)` is called
    // directly, and the record returned without generic witnesses (docs/Performance.md, W3m).
    @inlinable
    public func next() throws -> Record? {
        guard let stepper else { return try nextPreloaded() }
        guard try stepper.step() else { return nil }
        return try Record(row: stepper.row)
    }

    @usableFromInline
    func nextPreloaded() throws -> Record? {
        try preloaded?.next().map { try Record(row: $0) }
    }
}

// MARK: - Fetching from SQL and statements

extension FetchableRecord {
    /// Returns a cursor over records fetched from an SQL query.
    ///
    /// ```swift
    /// let players = try Player.fetchCursor(db, sql: "SELECT * FROM player WHERE score > ?", arguments: [10])
    /// ```
    public static func fetchCursor(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> RecordCursor<Self> {
        try RecordCursor(statement: db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns an array of records fetched from an SQL query.
    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> [Self] {
        try fetchAll(db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns a set of records fetched from an SQL query.
    public static func fetchSet(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> Set<Self> where Self: Hashable {
        try fetchSet(db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns the first record fetched from an SQL query, if any.
    public static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), adapter: (any RowAdapter)? = nil) throws -> Self? {
        try fetchOne(db.fetchStatement(sql: sql), arguments: arguments, adapter: adapter)
    }

    /// Returns a cursor over records fetched from a prepared statement.
    public static func fetchCursor(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> RecordCursor<Self> {
        try RecordCursor(statement: statement, arguments: arguments, adapter: adapter)
    }

    /// Returns an array of records fetched from a prepared statement.
    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> [Self] {
        // Records go straight from their initializer into the array (through a cursor,
        // each was copied out of an optional, then destroyed: about 300 instructions a
        // record of two nested records, in this unspecialized code).
        let stepper = try StatementStepper(statement: statement, arguments: arguments, adapter: adapter)
        var records = RecordArrayBuilder<Self>()
        while try stepper.step() {
            records.append(try Self(row: stepper.row))
        }
        return records.makeArray()
    }

    /// Returns a set of records fetched from a prepared statement.
    public static func fetchSet(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> Set<Self> where Self: Hashable {
        var records = Set<Self>()
        let cursor = try RecordCursor<Self>(statement: statement, arguments: arguments, adapter: adapter)
        while let record = try cursor.next() {
            records.insert(record)
        }
        return records
    }

    /// Returns the first record fetched from a prepared statement, if any.
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil, adapter: (any RowAdapter)? = nil) throws -> Self? {
        try RecordCursor<Self>(statement: statement, arguments: arguments, adapter: adapter).next()
    }
}

// MARK: - Fetching from the record's table

extension FetchableRecord where Self: TableRecord {
    /// Returns a cursor over all records of the table.
    ///
    /// ```swift
    /// let players = try Player.fetchCursor(db) // SELECT * FROM "player"
    /// ```
    public static func fetchCursor(_ db: Database) throws -> RecordCursor<Self> {
        try all().fetchCursor(db)
    }

    /// Returns an array of all records of the table.
    public static func fetchAll(_ db: Database) throws -> [Self] {
        try all().fetchAll(db)
    }

    /// Returns a set of all records of the table.
    public static func fetchSet(_ db: Database) throws -> Set<Self> where Self: Hashable {
        try all().fetchSet(db)
    }

    /// Returns a record of the table, if any (`SELECT * FROM "player" LIMIT 1`).
    public static func fetchOne(_ db: Database) throws -> Self? {
        try all().fetchOne(db)
    }

    // Primary keys

    /// Returns a cursor over the records with these primary keys.
    public static func fetchCursor(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> RecordCursor<Self> {
        try filter(keys: keys).fetchCursor(db)
    }

    /// Returns an array of the records with these primary keys.
    ///
    /// ```swift
    /// let players = try Player.fetchAll(db, keys: [1, 2, 3]) // ... WHERE "id" IN (?, ?, ?)
    /// ```
    public static func fetchAll(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> [Self] {
        if keys.isEmpty { return [] }
        return try filter(keys: keys).fetchAll(db)
    }

    /// Returns a set of the records with these primary keys.
    public static func fetchSet(_ db: Database, keys: some Collection<some DatabaseValueConvertible>) throws -> Set<Self> where Self: Hashable {
        if keys.isEmpty { return [] }
        return try filter(keys: keys).fetchSet(db)
    }

    /// Returns the record with this primary key, if any.
    ///
    /// ```swift
    /// let player = try Player.fetchOne(db, key: 1) // SELECT * FROM "player" WHERE "id" = ?
    /// ```
    public static func fetchOne(_ db: Database, key: (some DatabaseValueConvertible)?) throws -> Self? {
        guard let key else { return nil }
        return try filter(key: key).fetchOne(db)
    }

    /// Returns the record with this primary key, or throws ``RecordError/recordNotFound(databaseTableName:key:)``.
    public static func find(_ db: Database, key: some DatabaseValueConvertible) throws -> Self {
        guard let record = try fetchOne(db, key: key) else {
            throw recordNotFound(db, key: key)
        }
        return record
    }

    // Unique keys

    /// Returns a cursor over the records with these primary or unique keys.
    public static func fetchCursor(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> RecordCursor<Self> {
        try filter(keys: keys).fetchCursor(db)
    }

    /// Returns an array of the records with these primary or unique keys.
    public static func fetchAll(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> [Self] {
        if keys.isEmpty { return [] }
        return try filter(keys: keys).fetchAll(db)
    }

    /// Returns a set of the records with these primary or unique keys.
    public static func fetchSet(_ db: Database, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Set<Self> where Self: Hashable {
        if keys.isEmpty { return [] }
        return try filter(keys: keys).fetchSet(db)
    }

    /// Returns the record with this primary or unique key, if any. A key whose columns are not
    /// a unique key of the table is an error.
    ///
    /// ```swift
    /// let player = try Player.fetchOne(db, key: ["email": "arthur@example.com"])
    /// ```
    public static func fetchOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]?) throws -> Self? {
        guard let key else { return nil }
        return try filter(key: key).fetchOne(db)
    }

    /// Returns the record with this primary or unique key, or throws
    /// ``RecordError/recordNotFound(databaseTableName:key:)``.
    public static func find(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Self {
        guard let record = try fetchOne(db, key: key) else {
            throw recordNotFound(key: key)
        }
        return record
    }
}

extension FetchableRecord where Self: TableRecord & Identifiable, ID: DatabaseValueConvertible {
    /// Returns a cursor over the records with these ids.
    public static func fetchCursor(_ db: Database, ids: some Collection<ID>) throws -> RecordCursor<Self> {
        try fetchCursor(db, keys: ids)
    }

    /// Returns an array of the records with these ids.
    ///
    /// ```swift
    /// let players = try Player.fetchAll(db, ids: [1, 2, 3])
    /// ```
    public static func fetchAll(_ db: Database, ids: some Collection<ID>) throws -> [Self] {
        try fetchAll(db, keys: ids)
    }

    /// Returns a set of the records with these ids.
    public static func fetchSet(_ db: Database, ids: some Collection<ID>) throws -> Set<Self> where Self: Hashable {
        try fetchSet(db, keys: ids)
    }

    /// Returns the record with this id, if any.
    public static func fetchOne(_ db: Database, id: ID) throws -> Self? {
        try fetchOne(db, key: id)
    }

    /// Returns the record with this id, or throws ``RecordError/recordNotFound(databaseTableName:key:)``.
    ///
    /// ```swift
    /// let player = try Player.find(db, id: 1)
    /// ```
    public static func find(_ db: Database, id: ID) throws -> Self {
        try find(db, key: id)
    }
}
