import Foundation

extension EncodableRecord where Self: Encodable {
    /// Encodes the record into the container: each coding key names a column (see
    /// ``EncodableRecord/databaseColumnEncodingStrategy``); nil optionals are NULL; values that
    /// are not database values (structs, arrays…) are stored as JSON text.
    ///
    /// ```swift
    /// struct Player: Encodable, PersistableRecord {
    ///     var id: Int64
    ///     var name: String
    ///     var achievements: [Achievement] // a JSON column
    /// }
    /// ```
    public func encode(to container: inout PersistenceContainer) throws {
        // The encoder takes the container over while it encodes (no copy of its storage).
        let encoder = RecordEncoder<Self>()
        swap(&encoder.container.pointee, &container)
        defer { swap(&encoder.container.pointee, &container) }
        try encode(to: encoder)
        // Containers that can not throw when they are made (unkeyed, nested) report here.
        if let error = encoder.pendingError { throw error }
    }
}

/// Encodes a record into a persistence container.
final class RecordEncoder<Record: EncodableRecord>: Encoder {
    /// The container being filled. Behind a pointer: each value sets it, and a stored
    /// property of a class would cost a dynamic exclusivity check per value.
    let container: UnsafeMutablePointer<PersistenceContainer>
    let columnStrategy: DatabaseColumnEncodingStrategy
    /// Whether coding keys are the column names (no conversion per key).
    private let isDefaultStrategy: Bool

    init() {
        container = .allocate(capacity: 1)
        container.initialize(to: PersistenceContainer(unreserved: ()))
        columnStrategy = Record.databaseColumnEncodingStrategy
        if case .useDefaultKeys = columnStrategy { isDefaultStrategy = true } else { isDefaultStrategy = false }
    }

    deinit {
        container.deinitialize(count: 1)
        container.deallocate()
    }

    /// The record's encoder is at the root: its path is empty.
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseEncodingUserInfo }
    /// The error of a container that could not throw when it was asked for; thrown once the
    /// record is encoded.
    var pendingError: EncodingError?

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RecordKeyedEncodingContainer<Key, Record>(encoder: self))
    }

    /// A row has no unkeyed form: the container throws, and so does the encoding of the
    /// record even if nothing is encoded in it.
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let error = EncodingError.invalidValue(Record.self, EncodingError.Context(
            codingPath: codingPath,
            debugDescription: "\(Record.self) can not encode into a row with an unkeyed container: encode with a keyed container (CodingKeys)"))
        if pendingError == nil { pendingError = error }
        return ThrowingUnkeyedEncodingContainer(codingPath: codingPath, error: error)
    }

    /// A container whose values add their columns to the row: an `EncodableRecord` with its
    /// `encode(to:)`, another `Encodable` value with its keyed container (a wrapper record
    /// encodes the model it wraps this way).
    func singleValueContainer() -> any SingleValueEncodingContainer {
        RecordSingleValueEncodingContainer(encoder: self)
    }

    @inline(__always)
    func column(for key: some CodingKey) -> String {
        isDefaultStrategy ? key.stringValue : columnStrategy.column(for: key)
    }

    @inline(__always)
    func set<Value: DatabaseValueConvertible>(_ value: Value?, for key: some CodingKey) {
        container.pointee.set(value?.databaseValue ?? .null, for: column(for: key))
    }

    @inline(__always)
    func setNull(for key: some CodingKey) {
        container.pointee.set(.null, for: column(for: key))
    }
}

/// The root single-value container of a record: encoding a value adds its columns.
struct RecordSingleValueEncodingContainer<Record: EncodableRecord>: SingleValueEncodingContainer {
    let encoder: RecordEncoder<Record>
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func notAColumnSet(_ value: Any) -> EncodingError {
        EncodingError.invalidValue(value, EncodingError.Context(
            codingPath: codingPath,
            debugDescription: "\(Record.self) can not encode a single \(type(of: value)) as a whole row: encode a record, or use a keyed container"))
    }

    mutating func encodeNil() throws { throw notAColumnSet(Optional<Int>.none as Any) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if value is any DatabaseValueConvertible || value is Date || value is Data {
            throw notAColumnSet(value)
        }
        if let record = value as? any EncodableRecord {
            try record.encode(to: &encoder.container.pointee)
        } else {
            try value.encode(to: encoder)
        }
    }
}

/// The unkeyed container of a record: rows have no unkeyed form.
struct ThrowingUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let codingPath: [any CodingKey]
    let error: EncodingError
    var count: Int { 0 }

    mutating func encodeNil() throws { throw error }
    mutating func encode<T: Encodable>(_ value: T) throws { throw error }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(IgnoringKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { IgnoringEncoder() }
}

struct RecordKeyedEncodingContainer<Key: CodingKey, Record: EncodableRecord>: KeyedEncodingContainerProtocol {
    let encoder: RecordEncoder<Record>
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws { encoder.setNull(for: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { encoder.set(value, for: key) }

    // Nil optionals are NULL (the standard library's default would leave the column out, and
    // an update would then keep the old value).
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { encoder.set(value, for: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { encoder.set(value, for: key) }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value {
            try encode(value, forKey: key)
        } else {
            encoder.setNull(for: key)
        }
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let column = encoder.column(for: key)
        encoder.container.pointee[column] = try Self.databaseValue(for: value, column: column, key: key, codingPath: codingPath)
    }

    /// The value stored for any `Encodable` value: dates, data and UUIDs with the record's
    /// strategies; database values as themselves; single values (enums with raw values) as
    /// their value, encoded with the path `codingPath` + `key`; anything else as JSON text
    /// (whose encoder starts a new coding path, as in GRDB).
    static func databaseValue<T: Encodable>(
        for value: T, column: String, key: some CodingKey, codingPath: [any CodingKey]) throws -> (any DatabaseValueConvertible)?
    {
        if let encoded = Record.strategyEncoded(value, column: column) {
            return encoded
        }
        if let convertible = value as? any DatabaseValueConvertible {
            return convertible
        }
        let columnEncoder = ColumnEncoder<Record>(column: column, codingPath: codingPath + [key])
        try value.encode(to: columnEncoder)
        if !columnEncoder.requiresJSON, columnEncoder.isSet {
            return columnEncoder.value
        }
        let json = try Record.databaseJSONEncoder(for: column).encode(value)
        return String(decoding: json, as: UTF8.self)
    }

    /// Nested containers are not supported: the record's encoding throws.
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.pendingError = encoder.pendingError ?? nestedContainerError(key)
        return KeyedEncodingContainer(IgnoringKeyedContainer<NestedKey>())
    }

    /// Nested containers are not supported: the record's encoding throws.
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let error = nestedContainerError(key)
        encoder.pendingError = encoder.pendingError ?? error
        return ThrowingUnkeyedEncodingContainer(codingPath: codingPath + [key], error: error)
    }

    private func nestedContainerError(_ key: Key) -> EncodingError {
        EncodingError.invalidValue(Record.self, EncodingError.Context(
            codingPath: codingPath + [key],
            debugDescription: "\(Record.self): nested containers are not supported (key \(key.stringValue)); encode the nested value itself"))
    }

    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

/// Encodes one value for a column. A value that asks for a keyed or unkeyed container is
/// marked for JSON encoding instead. Dates, data and UUIDs encode with the record's
/// strategies for the column.
private final class ColumnEncoder<Record: EncodableRecord>: Encoder, SingleValueEncodingContainer {
    let column: String
    /// The path of the property: it ends with the key of the column.
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseEncodingUserInfo }
    var value: (any DatabaseValueConvertible)?
    var isSet = false
    var requiresJSON = false

    init(column: String, codingPath: [any CodingKey]) {
        self.column = column
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        requiresJSON = true
        return KeyedEncodingContainer(IgnoringKeyedContainer<Key>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        requiresJSON = true
        return IgnoringUnkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws {
        value = nil
        isSet = true
    }

    func encode<T: Encodable>(_ value: T) throws {
        if let encoded = Record.strategyEncoded(value, column: column) {
            self.value = encoded
            isSet = true
        } else if let convertible = value as? any DatabaseValueConvertible {
            self.value = convertible
            isSet = true
        } else {
            try value.encode(to: self)
        }
    }
}

/// A container that drops what it is given: the value is encoded again as JSON.
struct IgnoringKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(IgnoringKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { IgnoringUnkeyedContainer() }
    mutating func superEncoder() -> any Encoder { IgnoringEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { IgnoringEncoder() }
}

struct IgnoringUnkeyedContainer: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(IgnoringKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { IgnoringUnkeyedContainer() }
    mutating func superEncoder() -> any Encoder { IgnoringEncoder() }
}

struct IgnoringEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(IgnoringKeyedContainer<Key>()) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { IgnoringUnkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { IgnoringSingleValue() }
}

struct IgnoringSingleValue: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}
