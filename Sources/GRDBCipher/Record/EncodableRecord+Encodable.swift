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

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseEncodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RecordKeyedEncodingContainer<Key, Record>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        fatalError("\(Record.self) can not encode into a row with an unkeyed container: encode with a keyed container (CodingKeys)")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        fatalError("\(Record.self) can not encode into a row with a single value container: encode with a keyed container (CodingKeys)")
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

struct RecordKeyedEncodingContainer<Key: CodingKey, Record: EncodableRecord>: KeyedEncodingContainerProtocol {
    let encoder: RecordEncoder<Record>
    var codingPath: [any CodingKey] { [] }

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
        encoder.container.pointee[column] = try Self.databaseValue(for: value, column: column)
    }

    /// The value stored for any `Encodable` value: dates, data and UUIDs with the record's
    /// strategies; database values as themselves; single values (enums with raw values) as
    /// their value; anything else as JSON text.
    static func databaseValue<T: Encodable>(for value: T, column: String) throws -> (any DatabaseValueConvertible)? {
        if let encoded = Record.strategyEncoded(value, column: column) {
            return encoded
        }
        if let convertible = value as? any DatabaseValueConvertible {
            return convertible
        }
        let columnEncoder = ColumnEncoder(userInfo: Record.databaseEncodingUserInfo)
        try value.encode(to: columnEncoder)
        if !columnEncoder.requiresJSON, columnEncoder.isSet {
            return columnEncoder.value
        }
        let json = try Record.databaseJSONEncoder(for: column).encode(value)
        return String(decoding: json, as: UTF8.self)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        fatalError("\(Record.self): nested containers are not supported (key \(key.stringValue)); encode the nested value itself")
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        fatalError("\(Record.self): nested containers are not supported (key \(key.stringValue)); encode the nested value itself")
    }

    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

/// Encodes one value for a column. A value that asks for a keyed or unkeyed container is
/// marked for JSON encoding instead.
private final class ColumnEncoder: Encoder, SingleValueEncodingContainer {
    let userInfo: [CodingUserInfoKey: Any]
    var codingPath: [any CodingKey] { [] }
    var value: (any DatabaseValueConvertible)?
    var isSet = false
    var requiresJSON = false

    init(userInfo: [CodingUserInfoKey: Any]) {
        self.userInfo = userInfo
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
        if let convertible = value as? any DatabaseValueConvertible {
            self.value = convertible
            isSet = true
        } else {
            try value.encode(to: self)
        }
    }
}

/// A container that drops what it is given: the value is encoded again as JSON.
private struct IgnoringKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
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

private struct IgnoringUnkeyedContainer: UnkeyedEncodingContainer {
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

private struct IgnoringEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(IgnoringKeyedContainer<Key>()) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { IgnoringUnkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { IgnoringSingleValue() }
}

private struct IgnoringSingleValue: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}
