import Foundation

// What the `@DatabaseRecord` macro of GRDBCipherMacros generates calls these: one call per
// stored property, whose overload the type checker picks from the property's type. Database
// values are read and written directly (by column name, straight from SQLite when the value
// type allows); dates, data, nested `Codable` values (JSON), and the non-default column
// strategies go through the same decoder and encoder as `Codable` records, so that they behave
// exactly as they do for a `Codable` record. Not for direct use: the names may change.

/// The coding key of a property, for the decoder and encoder of `Codable` records.
@usableFromInline
struct DatabaseRecordKey: CodingKey {
    @usableFromInline var stringValue: String
    @usableFromInline var intValue: Int? { nil }
    @usableFromInline init(_ string: String) { stringValue = string }
    @usableFromInline init?(stringValue: String) { self.stringValue = stringValue }
    @usableFromInline init?(intValue: Int) { nil }
}

/// The keyed container of the `Codable` decoder, for the properties of a `@DatabaseRecord`
/// record that need it, in an object: the decoding state keeps a fixed layout. Stored inline,
/// the container (a type of the standard library whose layout is resolved at run time) is
/// initialized and destroyed through the runtime's generic witnesses at each record, about
/// 220 instructions, even when no property uses it (docs/Performance.md, W3m).
@usableFromInline
final class _CodableContainerBox {
    let container: KeyedDecodingContainer<DatabaseRecordKey>

    init(_ container: KeyedDecodingContainer<DatabaseRecordKey>) {
        self.container = container
    }
}

/// Reads the properties of a `@DatabaseRecord` record from a row (macro support).
@_documentation(visibility: internal)
public struct _DatabaseRecordDecoding<Record: FetchableRecord> {
    @usableFromInline let row: Row
    /// Whether the column of a property has the property's name.
    @usableFromInline let usesDefaultKeys: Bool
    @usableFromInline var codable: _CodableContainerBox?

    // Inlinable, as the fast accessors it serves: specialized in the record's module, a
    // generic call per column would cost more than reading the column.
    @inlinable
    public init(row: Row) {
        self.row = row
        if case .useDefaultKeys = Record.databaseColumnDecodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
        codable = nil
    }

    /// The keyed container of the `Codable` decoder, made once per record.
    private mutating func codableContainer() throws -> KeyedDecodingContainer<DatabaseRecordKey> {
        if let codable { return codable.container }
        let made = try RowDecoder<Record>(row: row).container(keyedBy: DatabaseRecordKey.self)
        codable = _CodableContainerBox(made)
        return made
    }

    // MARK: Database values

    public mutating func decode<Value: DatabaseValueConvertible>(_ key: String) throws -> Value {
        guard usesDefaultKeys else { return try viaCodable(Value.self, key) }
        return try row.decode(Value.self, forColumn: key)
    }

    @inlinable @inline(__always)
    public mutating func decode<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ key: String) throws -> Value {
        if let value = liveValue(Value.self, key) { return value }
        return try slowDecode(Value.self, key)
    }

    public mutating func decode<Value: DatabaseValueConvertible & Decodable>(_ key: String) throws -> Value {
        guard usesDefaultKeys else { return try codableContainer().decode(Value.self, forKey: DatabaseRecordKey(key)) }
        return try row.decode(Value.self, forColumn: key)
    }

    @inlinable @inline(__always)
    public mutating func decode<Value: DatabaseValueConvertible & StatementColumnConvertible & Decodable>(_ key: String) throws -> Value {
        if let value = liveValue(Value.self, key) { return value }
        return try slowDecodeDecodable(Value.self, key)
    }

    /// The non-NULL value of the column named `key`, read straight from SQLite, when the row
    /// reads a statement and the column has the key's name; nil otherwise (the slow path
    /// decodes, or throws).
    @inlinable @inline(__always)
    func liveValue<Value: StatementColumnConvertible>(_ type: Value.Type, _ key: String) -> Value? {
        guard usesDefaultKeys, let index = row.index(forColumn: key) else { return nil }
        if let sqliteStatement = row.sqliteStatement {
            return Row.liveValue(Value.self, sqliteStatement, CInt(index))
        }
        if let sqliteStatement = row.adaptedSQLiteStatement {
            return Row.liveValue(Value.self, sqliteStatement, CInt(row.adaptedBaseIndexes.unsafelyUnwrapped[index]))
        }
        return nil
    }

    @usableFromInline
    mutating func slowDecode<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ type: Value.Type, _ key: String) throws -> Value {
        guard usesDefaultKeys else { return try viaCodable(Value.self, key) }
        return try row.decode(Value.self, forColumn: key)
    }

    @usableFromInline
    mutating func slowDecodeDecodable<Value: DatabaseValueConvertible & StatementColumnConvertible & Decodable>(_ type: Value.Type, _ key: String) throws -> Value {
        guard usesDefaultKeys else { return try codableContainer().decode(Value.self, forKey: DatabaseRecordKey(key)) }
        return try row.decode(Value.self, forColumn: key)
    }

    public mutating func decodeIfPresent<Value: DatabaseValueConvertible>(_ key: String) throws -> Value? {
        guard usesDefaultKeys else { return try viaCodable(Value?.self, key) }
        return try row.decode(Value?.self, forColumn: key)
    }

    @inlinable @inline(__always)
    public mutating func decodeIfPresent<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ key: String) throws -> Value? {
        if let value = liveValue(Value.self, key) { return value }
        guard usesDefaultKeys else { return try viaCodable(Value?.self, key) }
        return try row.decode(Value?.self, forColumn: key)
    }

    public mutating func decodeIfPresent<Value: DatabaseValueConvertible & Decodable>(_ key: String) throws -> Value? {
        guard usesDefaultKeys else { return try codableContainer().decodeIfPresent(Value.self, forKey: DatabaseRecordKey(key)) }
        return try row.decode(Value?.self, forColumn: key)
    }

    @inlinable @inline(__always)
    public mutating func decodeIfPresent<Value: DatabaseValueConvertible & StatementColumnConvertible & Decodable>(_ key: String) throws -> Value? {
        if let value = liveValue(Value.self, key) { return value }
        return try slowDecodeIfPresentDecodable(Value.self, key)
    }

    @usableFromInline
    mutating func slowDecodeIfPresentDecodable<Value: DatabaseValueConvertible & StatementColumnConvertible & Decodable>(_ type: Value.Type, _ key: String) throws -> Value? {
        guard usesDefaultKeys else { return try codableContainer().decodeIfPresent(Value.self, forKey: DatabaseRecordKey(key)) }
        return try row.decode(Value?.self, forColumn: key)
    }

    /// A database value that is not `Decodable`, under a non-default column strategy: the
    /// column whose key is `key`.
    @usableFromInline
    func viaCodable<Value: DatabaseValueConvertible>(_ type: Value.Type, _ key: String) throws -> Value {
        let strategy = Record.databaseColumnDecodingStrategy
        let column = row.columnNames.first { strategy.keyString(forColumn: $0) == key } ?? key
        return try row.decode(Value.self, forColumn: column)
    }

    // MARK: Dates and data: the record's strategies

    public mutating func decode(_ key: String) throws -> Date {
        try codableContainer().decode(Date.self, forKey: DatabaseRecordKey(key))
    }

    public mutating func decodeIfPresent(_ key: String) throws -> Date? {
        try codableContainer().decodeIfPresent(Date.self, forKey: DatabaseRecordKey(key))
    }

    public mutating func decode(_ key: String) throws -> Data {
        try codableContainer().decode(Data.self, forKey: DatabaseRecordKey(key))
    }

    public mutating func decodeIfPresent(_ key: String) throws -> Data? {
        try codableContainer().decodeIfPresent(Data.self, forKey: DatabaseRecordKey(key))
    }

    // MARK: Other Decodable values (JSON columns, records, prefetched arrays)

    public mutating func decode<Value: Decodable>(_ key: String) throws -> Value {
        try codableContainer().decode(Value.self, forKey: DatabaseRecordKey(key))
    }

    public mutating func decodeIfPresent<Value: Decodable>(_ key: String) throws -> Value? {
        try codableContainer().decodeIfPresent(Value.self, forKey: DatabaseRecordKey(key))
    }

    // MARK: Records that are not Decodable: from the scope named after the key, or the row

    public mutating func decode<Value: FetchableRecord>(_ key: String) throws -> Value {
        try Value(row: row.scopesTree[key] ?? row)
    }

    public mutating func decode<Value: FetchableRecord & Decodable>(_ key: String) throws -> Value {
        try Value(row: row.scopesTree[key] ?? row)
    }

    public mutating func decodeIfPresent<Value: FetchableRecord>(_ key: String) throws -> Value? {
        try row.decodeIfPresent(Value.self, forKey: key)
    }

    public mutating func decodeIfPresent<Value: FetchableRecord & Decodable>(_ key: String) throws -> Value? {
        try row.decodeIfPresent(Value.self, forKey: key)
    }

    /// Prefetched records (`including(all:)`).
    public mutating func decode<Element: FetchableRecord>(_ key: String) throws -> [Element] {
        try row.decode([Element].self, forKey: key)
    }

    public mutating func decode<Element: FetchableRecord & Decodable>(_ key: String) throws -> [Element] {
        try row.decode([Element].self, forKey: key)
    }
}

/// Writes the properties of a `@DatabaseRecord` record into a persistence container (macro
/// support).
@_documentation(visibility: internal)
public struct _DatabaseRecordEncoding<Record: EncodableRecord> {
    /// Whether the column of a property has the property's name.
    @usableFromInline let usesDefaultKeys: Bool

    @inlinable
    public init() {
        if case .useDefaultKeys = Record.databaseColumnEncodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
    }

    @inlinable @inline(__always)
    func column(_ key: String) -> String {
        usesDefaultKeys ? key : strategyColumn(key)
    }

    @usableFromInline
    func strategyColumn(_ key: String) -> String {
        Record.databaseColumnEncodingStrategy.column(for: DatabaseRecordKey(key))
    }

    // MARK: Database values

    // The value is converted here, in the record's module where its type is known, and the
    // container receives a database value: `container[column] = value` would box it in an
    // existential first (about 70 instructions a column; docs/Performance.md, W5m).

    @inlinable @inline(__always)
    public func encode<Value: DatabaseValueConvertible>(_ value: Value, _ key: String, into container: inout PersistenceContainer) throws {
        container.set(value.databaseValue, for: column(key))
    }

    @inlinable @inline(__always)
    public func encode<Value: DatabaseValueConvertible & Encodable>(_ value: Value, _ key: String, into container: inout PersistenceContainer) throws {
        container.set(value.databaseValue, for: column(key))
    }

    @inlinable @inline(__always)
    public func encodeIfPresent<Value: DatabaseValueConvertible>(_ value: Value?, _ key: String, into container: inout PersistenceContainer) throws {
        container.set(value?.databaseValue ?? .null, for: column(key))
    }

    @inlinable @inline(__always)
    public func encodeIfPresent<Value: DatabaseValueConvertible & Encodable>(_ value: Value?, _ key: String, into container: inout PersistenceContainer) throws {
        container.set(value?.databaseValue ?? .null, for: column(key))
    }

    // MARK: Dates, data, UUIDs (the record's strategies) and other Encodable values (JSON)

    public func encode<Value: Encodable>(_ value: Value, _ key: String, into container: inout PersistenceContainer) throws {
        try viaCodable(into: &container) { try $0.encode(value, forKey: DatabaseRecordKey(key)) }
    }

    public func encodeIfPresent<Value: Encodable>(_ value: Value?, _ key: String, into container: inout PersistenceContainer) throws {
        try viaCodable(into: &container) { try $0.encodeIfPresent(value, forKey: DatabaseRecordKey(key)) }
    }

    public func encode(_ value: Date, _ key: String, into container: inout PersistenceContainer) throws {
        try viaCodable(into: &container) { try $0.encode(value, forKey: DatabaseRecordKey(key)) }
    }

    public func encodeIfPresent(_ value: Date?, _ key: String, into container: inout PersistenceContainer) throws {
        try viaCodable(into: &container) { try $0.encodeIfPresent(value, forKey: DatabaseRecordKey(key)) }
    }

    public func encode(_ value: Data, _ key: String, into container: inout PersistenceContainer) throws {
        try viaCodable(into: &container) { try $0.encode(value, forKey: DatabaseRecordKey(key)) }
    }

    public func encodeIfPresent(_ value: Data?, _ key: String, into container: inout PersistenceContainer) throws {
        try viaCodable(into: &container) { try $0.encodeIfPresent(value, forKey: DatabaseRecordKey(key)) }
    }

    public func encode(_ value: UUID, _ key: String, into container: inout PersistenceContainer) throws {
        try viaCodable(into: &container) { try $0.encode(value, forKey: DatabaseRecordKey(key)) }
    }

    public func encodeIfPresent(_ value: UUID?, _ key: String, into container: inout PersistenceContainer) throws {
        try viaCodable(into: &container) { try $0.encodeIfPresent(value, forKey: DatabaseRecordKey(key)) }
    }

    /// Encodes with the encoder of `Codable` records, which takes the container over while it
    /// encodes.
    private func viaCodable(
        into container: inout PersistenceContainer,
        _ body: (inout KeyedEncodingContainer<DatabaseRecordKey>) throws -> Void) throws
    {
        try RecordEncoders.with(Record.self, into: &container) { encoder in
            var keyed = encoder.container(keyedBy: DatabaseRecordKey.self)
            try body(&keyed)
        }
    }
}
