import Foundation

/// A type that can encode itself into a database row.
///
/// ```swift
/// struct Player: EncodableRecord {
///     var id: Int64?
///     var name: String
///
///     func encode(to container: inout PersistenceContainer) {
///         container["id"] = id
///         container["name"] = name
///     }
/// }
/// ```
///
/// `Encodable` types get `encode(to:)` for free: each property goes in the column named after
/// its coding key, nested values as JSON text.
public protocol EncodableRecord {
    /// Puts the record's values into the container, by column.
    func encode(to container: inout PersistenceContainer) throws

    /// Contextual information given to `Encodable.encode(to:)`.
    static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { get }

    /// The `JSONEncoder` for a column that holds a nested `Encodable` value as JSON.
    static func databaseJSONEncoder(for column: String) -> JSONEncoder

    /// How `Date` properties encode (default: ``DatabaseDateEncodingStrategy/deferredToDate``).
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy

    /// How `Data` properties encode (default: ``DatabaseDataEncodingStrategy/deferredToData``).
    static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy

    /// How `UUID` properties encode (default: ``DatabaseUUIDEncodingStrategy/deferredToUUID``).
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy

    /// How coding keys become column names (default: ``DatabaseColumnEncodingStrategy/useDefaultKeys``).
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { get }
}

extension EncodableRecord {
    public static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { [:] }

    public static func databaseJSONEncoder(for column: String) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dataEncodingStrategy = .base64
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .throw
        // Stable output, so that comparing records compares their content.
        encoder.outputFormatting = .sortedKeys
        encoder.userInfo = sendableUserInfo(databaseEncodingUserInfo)
        return encoder
    }

    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .deferredToDate }

    public static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy { .deferredToData }

    public static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .deferredToUUID }

    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .useDefaultKeys }

    /// A key value encoded with the record's strategies (dates, data, UUIDs), for key lookups.
    static func strategyEncodedValue(_ value: any DatabaseValueConvertible, column: String) -> DatabaseValue {
        if let encoded = strategyEncoded(value, column: column) {
            return encoded?.databaseValue ?? .null
        }
        return value.databaseValue
    }

    /// A date, data or UUID encoded with the record's strategies (`.some(nil)` is NULL); nil
    /// for other values.
    static func strategyEncoded(_ value: Any, column: String) -> (any DatabaseValueConvertible)?? {
        switch value {
        case let date as Date: return .some(databaseDateEncodingStrategy(for: column).encode(date))
        case let data as Data: return .some(databaseDataEncodingStrategy(for: column).encode(data))
        case let uuid as UUID: return .some(databaseUUIDEncodingStrategy(for: column).encode(uuid))
        default: return nil
        }
    }
}

/// How `Encodable` records encode their `Date` properties.
public enum DatabaseDateEncodingStrategy {
    /// `Date`'s own database encoding: UTC text `YYYY-MM-DD HH:MM:SS.SSS`.
    case deferredToDate
    /// A number of seconds since 2001-01-01 UTC (Double).
    case timeIntervalSinceReferenceDate
    /// A number of seconds since 1970-01-01 UTC (Double).
    case timeIntervalSince1970
    /// A whole number of seconds since 1970-01-01 UTC (Int64, rounded down).
    case secondsSince1970
    /// A whole number of milliseconds since 1970-01-01 UTC (Int64, rounded down).
    case millisecondsSince1970
    /// ISO 8601 text.
    case iso8601
    /// Text made by the formatter.
    case formatted(DateFormatter)
    /// Your own encoding; nil is NULL.
    case custom((Date) -> (any DatabaseValueConvertible)?)

    func encode(_ date: Date) -> (any DatabaseValueConvertible)? {
        switch self {
        case .deferredToDate: return date
        case .timeIntervalSinceReferenceDate: return date.timeIntervalSinceReferenceDate
        case .timeIntervalSince1970: return date.timeIntervalSince1970
        case .secondsSince1970: return Int64(floor(date.timeIntervalSince1970))
        case .millisecondsSince1970: return Int64(floor(date.timeIntervalSince1970 * 1000))
        case .iso8601: return ISO8601DateFormatter().string(from: date)
        case .formatted(let formatter): return formatter.string(from: date)
        case .custom(let encode): return encode(date)
        }
    }
}

/// How `Encodable` records encode their `Data` properties.
public enum DatabaseDataEncodingStrategy {
    /// A blob.
    case deferredToData
    /// UTF-8 text (data that is not valid UTF-8 is NULL).
    case text
    /// Your own encoding; nil is NULL.
    case custom((Data) -> (any DatabaseValueConvertible)?)

    func encode(_ data: Data) -> (any DatabaseValueConvertible)? {
        switch self {
        case .deferredToData: return data
        case .text: return String(data: data, encoding: .utf8)
        case .custom(let encode): return encode(data)
        }
    }
}

/// How `Encodable` records encode their `UUID` properties.
public enum DatabaseUUIDEncodingStrategy: Sendable {
    /// A 16-byte blob.
    case deferredToUUID
    /// Text such as "E621E1F8-C36C-495A-93FC-0C247A3E6E5F".
    case uppercaseString
    /// Text such as "e621e1f8-c36c-495a-93fc-0c247a3e6e5f".
    case lowercaseString

    func encode(_ uuid: UUID) -> any DatabaseValueConvertible {
        switch self {
        case .deferredToUUID: return uuid
        case .uppercaseString: return uuid.uuidString
        case .lowercaseString: return uuid.uuidString.lowercased()
        }
    }
}

/// How `Encodable` records name the column of a coding key.
public enum DatabaseColumnEncodingStrategy: Sendable {
    /// The column has the name of the key.
    case useDefaultKeys
    /// Camel case keys (`playerId`) go in snake case columns (`player_id`).
    case convertToSnakeCase
    /// Your own naming.
    case custom(@Sendable (any CodingKey) -> String)

    func column(for key: some CodingKey) -> String {
        switch self {
        case .useDefaultKeys: return key.stringValue
        case .convertToSnakeCase: return snakeCased(key.stringValue)
        case .custom(let column): return column(key)
        }
    }
}

/// `playerID` → `player_id`, `httpRequest` → `http_request`.
func snakeCased(_ string: String) -> String {
    var result = ""
    let characters = Array(string)
    for (index, character) in characters.enumerated() {
        if character.isUppercase, index > 0 {
            let previous = characters[index - 1]
            let nextIsLowercase = index + 1 < characters.count && characters[index + 1].isLowercase
            if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLowercase) {
                result.append("_")
            }
        }
        result += character.lowercased()
    }
    return result
}

// MARK: - PersistenceContainer

/// The values a record stores in a database row, by column.
///
/// Column names compare case-insensitively, as in SQLite: setting `"Name"` after `"name"`
/// replaces the value. Columns keep the order they were first set in.
///
/// ```swift
/// func encode(to container: inout PersistenceContainer) {
///     container["name"] = name
///     container[Columns.score] = score
/// }
/// ```
public struct PersistenceContainer {
    /// The columns and values, in one object. A container is copied into the results of an
    /// insertion and through the callbacks around it: each copy retains one reference (it
    /// retained three arrays before). The values live in the object's own memory, destroyed by
    /// code specialized for `DatabaseValue` rather than the runtime's generic witnesses
    /// (docs/Performance.md, W5). Copied on write.
    @usableFromInline var storage: PersistenceContainerStorage

    /// Creates an empty container.
    public init() {
        self.init(template: [])
    }

    init(template: [String]) {
        // One more than the template: an insertion may add the rowid column.
        storage = .make(capacity: Swift.max(template.count + 1, 8), template: template)
    }

    /// An empty container in a recycled storage (see ``Database/spareContainerStorage``).
    init(recycling storage: PersistenceContainerStorage, template: [String]) {
        storage.reset(template: template)
        self.storage = storage
    }

    /// The storage of the container, if no other container shares it: a finished save gives
    /// it back to its connection, for the next container.
    consuming func uniqueStorage() -> PersistenceContainerStorage? {
        var storage = self.storage
        _ = consume self
        return isKnownUniquelyReferenced(&storage) ? storage : nil
    }

    /// An empty container with no room for values: it grows when it is set.
    init(unreserved: ()) {
        storage = .make(capacity: 0, template: [])
    }

    /// The container of a record.
    public init(_ record: some EncodableRecord) throws {
        self.init()
        try record.encode(to: &self)
    }

    /// The names of the columns, in the order they were set.
    public var columnNames: [String] { columns }

    /// The number of columns.
    public var count: Int { storage.count }

    /// Whether the container has no column.
    public var isEmpty: Bool { storage.count == 0 }

    /// The columns a previous container of the same record type received, in order (see
    /// ``PersistenceContainerTemplates``). Empty when there is none.
    var template: [String] { storage.withHeader { $0.template } }

    /// Whether every column so far was set in template order: the columns are then the first
    /// `count` of the template (no copy of their names is made), known to be distinct ignoring
    /// case, and a new column that is the template's next needs no search.
    var followsTemplate: Bool { storage.withHeader { $0.followsTemplate } }

    /// The names of the columns, in the order they were set.
    var columns: [String] {
        storage.withHeader { header in
            guard header.followsTemplate else { return header.ownColumns }
            return header.count == header.template.count ? header.template : Array(header.template[..<header.count])
        }
    }

    /// Calls `body` with the names of the columns. A container that has exactly its template's
    /// columns lends the template, without the retain and release of a copy.
    func withColumns<Result>(_ body: ([String]) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointerToHeader { header in
            if header.pointee.followsTemplate && header.pointee.count == header.pointee.template.count {
                return try body(header.pointee.template)
            }
            return try body(columns)
        }
    }

    /// Whether the container's columns are `columns`, in order (compared as strings). A
    /// container that follows its template compares the template, usually the same array.
    func hasColumns(_ columns: [String]) -> Bool {
        storage.withUnsafeMutablePointerToHeader { header in
            let count = header.pointee.count
            guard columns.count == count else { return false }
            guard header.pointee.followsTemplate else { return header.pointee.ownColumns == columns }
            if header.pointee.template.count == count { return header.pointee.template == columns }
            return header.pointee.template[..<count].elementsEqual(columns)
        }
    }

    /// The database values, in column order.
    var databaseValues: [DatabaseValue] {
        withValues { Array($0) }
    }

    /// Calls `body` with the database values, in column order, without copying them.
    func withValues<Result>(_ body: (UnsafeBufferPointer<DatabaseValue>) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { header, values in
            try body(UnsafeBufferPointer(start: values, count: header.pointee.count))
        }
    }

    /// The value at `index`.
    func value(at index: Int) -> DatabaseValue {
        precondition(index >= 0 && index < count, "index out of range")
        return storage.withUnsafeMutablePointerToElements { $0[index] }
    }

    /// The value of a column; nil for NULL or a missing column.
    ///
    /// Values are stored as database values: reading one back gives its stored form (a
    /// `Date` reads back as the `String` it is stored as).
    public subscript(_ column: String) -> (any DatabaseValueConvertible)? {
        get {
            guard let index = index(of: column) else { return nil }
            return value(at: index).storage.value
        }
        set {
            // Consuming the existential avoids copying it through its value witnesses.
            switch consume newValue {
            case .none: set(.null, for: column)
            case .some(let value): set(value.databaseValue, for: column)
            }
        }
    }

    /// The value of a column; nil for NULL or a missing column.
    public subscript(_ column: some ColumnExpression) -> (any DatabaseValueConvertible)? {
        get { self[column.name] }
        set { self[column.name] = newValue }
    }

    /// The (column, value) pair at `position`, in the order columns were set.
    ///
    /// ```swift
    /// let container = try PersistenceContainer(player)
    /// for (column, dbValue) in container { print(column, dbValue) }
    /// ```
    public subscript(position: Int) -> (String, DatabaseValue) {
        (columns[position], value(at: position))
    }

    /// Makes the storage unique before a change.
    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.transferred(capacity: storage.withHeader { $0.capacity }, moving: false)
        }
    }

    /// Appends a value (the storage is unique).
    @inline(__always)
    private mutating func appendValue(_ value: consuming DatabaseValue) {
        if storage.isFull {
            storage = storage.transferred(capacity: Swift.max(8, storage.count * 2), moving: true)
        }
        storage.append(value)
    }

    /// Sets the value of a column, replacing the value of a column with the same name ignoring
    /// case. (Called by the code `@DatabaseRecord` generates, with a value already converted:
    /// no existential is made.)
    ///
    /// Inlinable, for the record's code: the usual case, the next column of the container's
    /// template in a storage the container owns, is a few loads and stores, and a call cost
    /// about as much (docs/Performance.md, W5m).
    @inlinable @inline(__always)
    mutating func set(_ value: consuming DatabaseValue, for column: String) {
        if isKnownUniquelyReferenced(&storage) && storage.hasRoomForNextTemplateColumn(column) {
            storage.append(value)
            return
        }
        setColumn(value, for: column)
    }

    /// ``set(_:for:)``, in every case.
    @usableFromInline @inline(__always)
    mutating func setColumn(_ value: consuming DatabaseValue, for column: String) {
        makeUnique()
        switch storage.templateMatch(column) {
        case .next:
            // The template's columns are distinct ignoring case.
            appendValue(value)
            return
        case .other:
            stopFollowingTemplate()
        case .notFollowing:
            break
        }
        if let index = index(of: column) {
            storage.replace(at: index, with: value)
        } else {
            storage.withHeader { $0.ownColumns.append(column) }
            appendValue(value)
        }
    }

    /// The columns become the container's own (the storage is unique).
    private mutating func stopFollowingTemplate() {
        let columns = self.columns
        storage.withHeader { header in
            header.ownColumns = columns
            header.followsTemplate = false
        }
    }

    /// Replaces the value at `index`.
    mutating func replaceValue(at index: Int, with value: DatabaseValue) {
        makeUnique()
        storage.replace(at: index, with: value)
    }

    /// Appends a column known to be absent. `columnsAfter`, if given, must be the container's
    /// columns followed by `column` (the insertion that calls this found its statement by
    /// comparing the columns): a container that has exactly its template's columns then takes
    /// them as its template, and still copies no names.
    mutating func appendNewColumn(_ column: String, _ value: DatabaseValue, columnsAfter: [String]? = nil) {
        makeUnique()
        if matchesTemplate, let columnsAfter, columnsAfter.count == count + 1 {
            assert(columnsAfter.last == column && Array(columnsAfter.dropLast()) == template)
            storage.withHeader { $0.template = columnsAfter }
            appendValue(value)
            return
        }
        if followsTemplate { stopFollowingTemplate() }
        storage.withHeader { $0.ownColumns.append(column) }
        appendValue(value)
    }

    /// The index of a column, compared case-insensitively.
    func index(of column: String) -> Int? {
        storage.withHeader { header in
            let names = header.followsTemplate ? header.template[..<header.count] : header.ownColumns[...]
            for index in names.indices where names[index].equalsIgnoringASCIICase(column) {
                return index
            }
            return nil
        }
    }

    /// The database value of a column (NULL for a missing column).
    func databaseValue(of column: String) -> DatabaseValue {
        index(of: column).map { value(at: $0) } ?? .null
    }


    /// The values of `previous` for the columns whose values differ in this container (NULL
    /// for a column `previous` does not have).
    func changes(from previous: PersistenceContainer) -> [String: DatabaseValue] {
        var changes: [String: DatabaseValue] = [:]
        for (column, newValue) in zip(columns, databaseValues) {
            let oldValue = previous.databaseValue(of: column)
            if newValue != oldValue {
                changes[column] = oldValue
            }
        }
        return changes
    }

    /// Whether the columns are exactly those of the template, in order.
    var matchesTemplate: Bool {
        storage.withHeader { $0.followsTemplate && $0.count == $0.template.count }
    }
}

/// What a ``PersistenceContainer`` keeps beside its values.
@usableFromInline
struct PersistenceContainerHeader {
    /// The number of values.
    @usableFromInline var count: Int
    /// The number of values the storage has room for.
    @usableFromInline var capacity: Int
    /// See ``PersistenceContainer/template``.
    @usableFromInline var template: [String]
    /// See ``PersistenceContainer/followsTemplate``.
    @usableFromInline var followsTemplate: Bool
    /// The columns, once the container stopped following the template.
    var ownColumns: [String]
}

/// The storage of a ``PersistenceContainer``: its header, then its values, in one allocation.
@usableFromInline
final class PersistenceContainerStorage: ManagedBuffer<PersistenceContainerHeader, DatabaseValue> {
    static func make(capacity: Int, template: [String]) -> PersistenceContainerStorage {
        let buffer = create(minimumCapacity: capacity) { _ in
            PersistenceContainerHeader(count: 0, capacity: capacity, template: template, followsTemplate: true, ownColumns: [])
        }
        // `create`, called on this class, makes an instance of this class.
        return unsafeDowncast(buffer, to: PersistenceContainerStorage.self)
    }

    /// A storage with room for `capacity` values (at least this one's count), with this one's
    /// header and values: moved when `moving` (this one is then left empty), copied otherwise.
    func transferred(capacity: Int, moving: Bool) -> PersistenceContainerStorage {
        withUnsafeMutablePointers { header, values in
            let count = header.pointee.count
            let other = PersistenceContainerStorage.make(capacity: Swift.max(capacity, count), template: header.pointee.template)
            other.withUnsafeMutablePointers { otherHeader, otherValues in
                if moving {
                    otherValues.moveInitialize(from: values, count: count)
                } else {
                    otherValues.initialize(from: values, count: count)
                }
                otherHeader.pointee.count = count
                otherHeader.pointee.followsTemplate = header.pointee.followsTemplate
                otherHeader.pointee.ownColumns = header.pointee.ownColumns
            }
            if moving { header.pointee.count = 0 }
            return other
        }
    }

    // The header is read and written through its pointer: the class property `header` of
    // `ManagedBuffer` would cost a dynamic exclusivity check at each access.

    /// Calls `body` with the header.
    @inline(__always)
    func withHeader<Result>(_ body: (inout PersistenceContainerHeader) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointerToHeader { try body(&$0.pointee) }
    }

    /// The number of values.
    var count: Int {
        @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.count } }
    }

    /// Whether there is no room for another value.
    var isFull: Bool {
        @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.count == $0.pointee.capacity } }
    }

    enum TemplateMatch {
        /// The column is the template's next one.
        case next
        /// The container follows its template, and the column is not its next one.
        case other
        /// The container no longer follows its template.
        case notFollowing
    }

    /// How `column`, about to be set, relates to the template.
    @inline(__always)
    func templateMatch(_ column: String) -> TemplateMatch {
        withUnsafeMutablePointerToHeader { header in
            guard header.pointee.followsTemplate else { return .notFollowing }
            let count = header.pointee.count
            return count < header.pointee.template.count && header.pointee.template[count] == column ? .next : .other
        }
    }

    /// Whether `column` is the template's next column, the storage follows its template, and
    /// it has room for another value.
    @inlinable @inline(__always)
    func hasRoomForNextTemplateColumn(_ column: String) -> Bool {
        withUnsafeMutablePointerToHeader { header in
            let count = header.pointee.count
            return header.pointee.followsTemplate && count < header.pointee.capacity
                && count < header.pointee.template.count && header.pointee.template[count] == column
        }
    }

    /// Appends a value; there must be room for it.
    @inlinable @inline(__always)
    func append(_ value: consuming DatabaseValue) {
        // The value is moved into place: captured by the closure of
        // `withUnsafeMutablePointers`, it would be copied, and the caller's copy destroyed.
        // Unsafe: the pointers are used while `self` (the caller's storage) is alive.
        let (header, values) = withUnsafeMutablePointers { ($0, $1) }
        (values + header.pointee.count).initialize(to: value)
        header.pointee.count += 1
    }

    /// Whether the storage has room for `count` values.
    func hasRoom(for count: Int) -> Bool {
        withUnsafeMutablePointerToHeader { $0.pointee.capacity >= count }
    }

    /// Destroys the values; the columns stay.
    func removeValues() {
        withUnsafeMutablePointers { header, values in
            destroyDatabaseValues(values, count: header.pointee.count)
            header.pointee.count = 0
        }
    }

    /// Empties the storage for a new container that follows `template`.
    func reset(template: [String]) {
        withUnsafeMutablePointers { header, values in
            destroyDatabaseValues(values, count: header.pointee.count)
            header.pointee.count = 0
            header.pointee.template = template
            header.pointee.followsTemplate = true
            if !header.pointee.ownColumns.isEmpty {
                header.pointee.ownColumns = []
            }
        }
    }

    @inline(__always)
    func replace(at index: Int, with value: DatabaseValue) {
        withUnsafeMutablePointerToElements { $0[index] = value }
    }

    deinit {
        withUnsafeMutablePointers { header, values in
            destroyDatabaseValues(values, count: header.pointee.count)
        }
    }
}

/// The columns the last container of each record type received, so that the next container
/// of the type checks each column against one name instead of searching all previous ones.
/// Kept by each connection for the types it persisted most recently.
struct PersistenceContainerTemplates {
    private var entries: [(type: ObjectIdentifier, columns: [String])] = []
    private static let capacity = 16

    func template(for type: Any.Type) -> [String] {
        let id = ObjectIdentifier(type)
        for entry in entries where entry.type == id {
            return entry.columns
        }
        return []
    }

    mutating func remember(_ columns: [String], for type: Any.Type) {
        let id = ObjectIdentifier(type)
        if let index = entries.firstIndex(where: { $0.type == id }) {
            entries[index].columns = columns
        } else {
            if entries.count >= Self.capacity { entries.removeLast() }
            entries.insert((id, columns), at: 0)
        }
    }
}

extension Database {
    /// Takes the connection's spare container storage, if it has room for `room` values.
    func takeSpareContainerStorage(room: Int) -> PersistenceContainerStorage? {
        guard let spare = spareContainerStorage, spare.hasRoom(for: room) else { return nil }
        spareContainerStorage = nil
        return spare
    }

    /// Keeps the storage of a container nobody else holds, for the next container: a save
    /// then allocates no storage (docs/Performance.md, W5). Its values are destroyed now: the
    /// connection keeps no copy of a saved value (a token, a large blob) until its next save.
    func recycle(_ container: consuming PersistenceContainer) {
        if let storage = container.uniqueStorage() {
            storage.removeValues()
            spareContainerStorage = storage
        }
    }
}

extension PersistenceContainer {
    /// The container of a record encoded on a connection, which remembers its columns for the
    /// next record of the same type.
    init<Record: EncodableRecord>(_ record: Record, _ db: Database) throws {
        try self.init(record, db, recordIsClass: Record.self is AnyClass)
    }

    /// `recordIsClass`: whether `Record` is a class (`Record.self is AnyClass`, a call to the
    /// runtime: a caller that needs the answer too asks once).
    @inline(__always)
    init<Record: EncodableRecord>(_ record: Record, _ db: Database, recordIsClass: Bool) throws {
        // A struct's type is known statically: `type(of:)` would ask the runtime (78
        // instructions a record, W5m). A class record may be a subclass that encodes more
        // columns, and keeps a template of its own.
        let type: Any.Type = recordIsClass ? Swift.type(of: record) : Record.self
        let template = db.containerTemplates.template(for: type)
        if let spare = db.takeSpareContainerStorage(room: template.count + 1) {
            self.init(recycling: spare, template: template)
        } else {
            self.init(template: template)
        }
        try record.encode(to: &self)
        if !matchesTemplate {
            db.containerTemplates.remember(columns, for: type)
        }
    }
}

// MARK: - Dictionary and comparison

extension EncodableRecord {
    /// The record's values, by column.
    ///
    /// ```swift
    /// let dictionary = try player.databaseDictionary // ["id": 1, "name": "Arthur", ...]
    /// ```
    public var databaseDictionary: [String: DatabaseValue] {
        get throws {
            let container = try PersistenceContainer(self)
            var dictionary: [String: DatabaseValue] = [:]
            for (column, value) in zip(container.columns, container.databaseValues) {
                dictionary[column] = value
            }
            return dictionary
        }
    }

    /// Returns the values of `record` for the columns whose values differ in this record.
    ///
    /// ```swift
    /// let changes = try newPlayer.databaseChanges(from: oldPlayer) // ["score": 100]
    /// ```
    public func databaseChanges<Record: EncodableRecord>(from record: Record) throws -> [String: DatabaseValue] {
        try PersistenceContainer(self).changes(from: PersistenceContainer(record))
    }

    /// Modifies the record with `modify`, and returns the previous values of the columns that
    /// changed.
    ///
    /// The values are compared before and after `modify` runs, so this works for classes
    /// too (a copy of a class instance would be the same object, and see no change).
    ///
    /// ```swift
    /// let changes = try player.databaseChanges { $0.score = 100 } // ["score": 10]
    /// ```
    public mutating func databaseChanges(modify: (inout Self) throws -> Void) throws -> [String: DatabaseValue] {
        let previous = try PersistenceContainer(self)
        try modify(&self)
        return try PersistenceContainer(self).changes(from: previous)
    }

    /// Returns whether the two records have the same database values.
    public func databaseEquals(_ record: Self) -> Bool {
        guard let lhs = try? PersistenceContainer(self), let rhs = try? PersistenceContainer(record) else {
            return false
        }
        guard lhs.count == rhs.count else { return false }
        return zip(lhs.columns, lhs.databaseValues).allSatisfy { column, value in
            rhs.index(of: column) != nil && value == rhs.databaseValue(of: column)
        }
    }
}

/// Foundation's coders take `Sendable` user info; GRDB's record API gives `Any`.
///
/// Each value is cast at run time to `any Sendable`, a marker protocol that every value
/// passes: whether the values are really safe to share is the record type's responsibility,
/// as with any user info. (The compiler refuses a static conversion from `Any`, and a bit
/// cast is wrong: the two existentials need not have the same size.)
func sendableUserInfo(_ userInfo: [CodingUserInfoKey: Any]) -> [CodingUserInfoKey: any Sendable] {
    if userInfo.isEmpty { return [:] }
    return userInfo.compactMapValues { runtimeCast($0, to: (any Sendable).self) }
}

/// `value as? T`, for a `T` known only at run time (so that the compiler does not reason
/// about marker protocols).
private func runtimeCast<T>(_ value: Any, to type: T.Type) -> T? {
    value as? T
}

/// A container is a collection of (column, value) pairs, in the order columns were set.
extension PersistenceContainer: RandomAccessCollection {
    public typealias Index = Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
}
