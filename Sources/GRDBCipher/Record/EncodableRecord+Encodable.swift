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
        try RecordEncoders.with(Self.self, into: &container) { encoder in
            try encode(to: encoder.existential)
        }
    }
}

/// The encoders of `Encodable` records, kept by each thread for the next records of their
/// types: an encoder, the container it points to and its keyed containers are made once per
/// thread and record type, instead of for each record (four allocations, and generic
/// metadata and witness table lookups: about 1,000 instructions a record, W5b in
/// docs/Performance.md).
///
/// An encoder holds no value between two records: the container it encodes into is the
/// caller's, lent for the encoding.
enum RecordEncoders {
    /// The thread's `Box`.
    private static let slot = ThreadSlot<Box>()

    /// The encoders a thread keeps: a few record types, the first ones it encoded.
    private static let capacity = 8

    private final class Box {
        /// Only its own thread reads and writes it: no dynamic exclusivity check.
        @exclusivity(unchecked) var encoders: [RecordEncoderBase] = []

        deinit {
            // A kept encoder and its keyed containers refer to each other.
            for encoder in encoders { encoder.forgetContainers() }
        }
    }

    private static var box: Box {
        slot.object(orMake: Box.init)
    }

    /// Encodes into `container` with an encoder of `Record` that no other encoding uses: the
    /// encoder takes the container over while `body` runs (no copy of its storage), then
    /// gives it back. Throws the error of a container that could not throw when it was made
    /// (unkeyed, nested).
    static func with<Record: EncodableRecord>(
        _ type: Record.Type,
        into container: inout PersistenceContainer,
        _ body: (RecordEncoder<Record>) throws -> Void) throws
    {
        let encoder = take(Record.self)
        defer { giveBack(encoder) }
        swap(&encoder.container.pointee, &container)
        defer { swap(&encoder.container.pointee, &container) }
        try body(encoder)
        if let error = encoder.pendingError { throw error }
    }

    private static func take<Record: EncodableRecord>(_ type: Record.Type) -> RecordEncoder<Record> {
        let box = self.box
        let recordType = ObjectIdentifier(Record.self)
        var keepsOne = false
        for encoder in box.encoders where encoder.recordType == recordType {
            keepsOne = true
            guard !encoder.isInUse else { continue }
            let encoder = unsafeDowncast(encoder, to: RecordEncoder<Record>.self)
            encoder.isInUse = true
            // The strategy is read for each record, as it was when each had its own encoder.
            encoder.readColumnStrategy()
            return encoder
        }
        // The first encoding of the type on this thread (kept, if the thread has room), or a
        // record encoded while another of its type encodes (a nested record: not kept).
        let encoder = RecordEncoder<Record>()
        encoder.isInUse = true
        if !keepsOne && box.encoders.count < capacity {
            encoder.isKept = true
            box.encoders.append(encoder)
        }
        return encoder
    }

    private static func giveBack<Record: EncodableRecord>(_ encoder: RecordEncoder<Record>) {
        encoder.isInUse = false
        encoder.pendingError = nil
        if encoder.isKept && encoder.wasLentOut {
            // The encoder went out as a super encoder, and might be used after its record:
            // it no longer serves other records.
            encoder.isKept = false
            box.encoders.removeAll { $0 === encoder }
        }
        if !encoder.isKept { encoder.forgetContainers() }
    }
}

/// What the encoders' cache needs of a ``RecordEncoder``, whatever its record type.
/// (Used by one thread at a time, by accesses that span no call.)
class RecordEncoderBase {
    let recordType: ObjectIdentifier
    /// Whether a record is being encoded with the encoder.
    @exclusivity(unchecked) var isInUse = false
    /// Whether the thread's cache keeps the encoder: only then does it keep its keyed
    /// containers, which refer to it.
    @exclusivity(unchecked) var isKept = false
    /// The keyed containers the encoder made, by key type, and the one it returned last.
    @exclusivity(unchecked) var containerCaches: [AnyEncodingContainerCache] = []
    @exclusivity(unchecked) var lastContainerCache: AnyEncodingContainerCache?
    /// Whether the encoder was handed out as a super encoder during its record's encoding:
    /// the thread's cache then lets it go.
    @exclusivity(unchecked) var wasLentOut = false

    init(recordType: ObjectIdentifier) {
        self.recordType = recordType
    }

    func forgetContainers() {
        containerCaches = []
        lastContainerCache = nil
    }
}

/// A keyed encoding container an encoder keeps.
class AnyEncodingContainerCache {
    let keyType: ObjectIdentifier

    init(keyType: ObjectIdentifier) {
        self.keyType = keyType
    }
}

final class EncodingContainerCache<Key: CodingKey>: AnyEncodingContainerCache {
    let container: KeyedEncodingContainer<Key>

    init(_ container: KeyedEncodingContainer<Key>) {
        self.container = container
        super.init(keyType: ObjectIdentifier(Key.self))
    }
}

/// Encodes a record into a persistence container.
final class RecordEncoder<Record: EncodableRecord>: RecordEncoderBase, Encoder {
    /// The container being filled. Behind a pointer: each value sets it, and a stored
    /// property of a class would cost a dynamic exclusivity check per value.
    let container: UnsafeMutablePointer<PersistenceContainer>
    /// The record type's strategy, read for each record (``readColumnStrategy()``).
    /// (Used by one thread at a time, by accesses that span no call.)
    @exclusivity(unchecked) private(set) var columnStrategy: DatabaseColumnEncodingStrategy
    /// Whether coding keys are the column names (no conversion per key).
    @exclusivity(unchecked) private var isDefaultStrategy: Bool
    /// The encoder as the `any Encoder` that `encode(to:)` takes, made once. Made at each
    /// record, the existential looked up the metadata of this generic class and its witness
    /// table: about 430 instructions a record (W5b, docs/Performance.md).
    // Unsafe: unowned(unsafe), since the encoder would otherwise keep itself alive; it is
    // read only through the encoder (`existential`), which is alive while it is read.
    private unowned(unsafe) var unretainedExistential: (any Encoder & AnyObject)?

    init() {
        container = .allocate(capacity: 1)
        container.initialize(to: PersistenceContainer(unreserved: ()))
        columnStrategy = Record.databaseColumnEncodingStrategy
        if case .useDefaultKeys = columnStrategy { isDefaultStrategy = true } else { isDefaultStrategy = false }
        super.init(recordType: ObjectIdentifier(Record.self))
        unretainedExistential = self
    }

    /// The encoder as `any Encoder`, for the record's `encode(to:)`: a retain, with no lookup.
    var existential: any Encoder {
        unretainedExistential.unsafelyUnwrapped
    }

    /// Reads the record type's column strategy again (a kept encoder serves many records).
    func readColumnStrategy() {
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
        guard isKept else {
            return KeyedEncodingContainer(RecordKeyedEncodingContainer<Key, Record>(encoder: self))
        }
        // A kept encoder makes one container per key type, for all its records.
        let keyType = ObjectIdentifier(Key.self)
        if let cache = lastContainerCache, cache.keyType == keyType {
            return unsafeDowncast(cache, to: EncodingContainerCache<Key>.self).container
        }
        for cache in containerCaches where cache.keyType == keyType {
            lastContainerCache = cache
            return unsafeDowncast(cache, to: EncodingContainerCache<Key>.self).container
        }
        let cache = EncodingContainerCache(KeyedEncodingContainer(RecordKeyedEncodingContainer<Key, Record>(encoder: self)))
        containerCaches.append(cache)
        lastContainerCache = cache
        return cache.container
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

    mutating func superEncoder() -> any Encoder {
        encoder.wasLentOut = true
        return encoder
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.wasLentOut = true
        return encoder
    }
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
