import CSQLCipher
import Foundation

extension FetchableRecord where Self: Decodable {
    /// Decodes the record from the row: each coding key reads the column of the same name
    /// (see ``FetchableRecord/databaseColumnDecodingStrategy``). Values that are not database
    /// values (structs, arrays…) decode from JSON text. A missing column or a value of the
    /// wrong type throws a ``RowDecodingError`` that names the column and the record type.
    ///
    /// ```swift
    /// struct Player: Decodable, FetchableRecord {
    ///     var id: Int64
    ///     var name: String
    ///     var achievements: [Achievement] // a JSON column
    /// }
    /// ```
    public init(row: Row) throws {
        // Unsafe: the copied rows of one fetch share their decoders, used without retains:
        // the row (alive for this call) keeps its shared decoders alive, and they keep each
        // decoder they made.
        if let shared = row.unretainedSharedDecoders {
            let decoder = shared._withUnsafeGuaranteedRef { $0.checkOut(Self.self, row: row) }
            defer { decoder._withUnsafeGuaranteedRef { $0.checkIn() } }
            try self.init(from: decoder._withUnsafeGuaranteedRef { $0.decoder })
            return
        }
        // A cursor decodes every record from the same live row: its decoder is made once.
        let recordType = ObjectIdentifier(Self.self)
        if let cache = row.cachedDecoder(for: recordType) {
            // Unsafe: the row, alive for this call, keeps its cache; `init(from:)` gets its
            // own reference to the decoder.
            try self.init(from: cache._withUnsafeGuaranteedRef { $0.decoder })
            return
        }
        let keptByRow = row.readsLiveStatement && row.keepsDecoders
        let decoder: any Decoder & AnyObject = RowDecoder<Self>(row: row, keptByRow: keptByRow)
        if keptByRow {
            row.decoderCaches.append(Row.DecoderCache(recordType: recordType, decoder: decoder))
        }
        try self.init(from: decoder)
    }
}

/// An object that decodes fetchable records from database rows, with their `Decodable`
/// implementation and decoding strategies: the way a record's own `init(row:)` can reuse its
/// `Decodable` decoding.
///
/// ```swift
/// struct Player: Decodable, FetchableRecord {
///     var name: String
///
///     init(row: Row) throws {
///         self = try FetchableRecordDecoder().decode(Player.self, from: row)
///         name = name.trimmingCharacters(in: .whitespaces)
///     }
/// }
/// ```
public final class FetchableRecordDecoder {
    /// Creates a decoder.
    public init() {}

    /// Decodes a record from a row with its `Decodable` initializer (never its `init(row:)`).
    public func decode<T: FetchableRecord & Decodable>(_ type: T.Type, from row: Row) throws -> T {
        try T(from: RowDecoder<T>(row: row))
    }
}

/// Thrown by a column decoder when a value needs keyed or unkeyed containers: it is then
/// decoded from JSON.
private struct JSONRequired: Error {}

/// Decodes a record from a row.
///
/// `codingPath` is empty for the record, and ends with the key of a nested value decoded from
/// a scope or from the same row (`var team: Team` read from the team scope has the path
/// `[team]`).
///
/// A class: the decoders that live rows and shared decoders keep are handed to `init(from:)`
/// as `any Decoder`, and a class reference copies as one retain (a struct went through its
/// generic value witnesses at each record).
final class RowDecoder<Record: FetchableRecord>: Decoder {
    let rowReference: RowReference
    let codingPath: [any CodingKey]
    /// Whether the decoder keeps its keyed containers from one record to the next: it reads
    /// a live row (whose columns and scopes never change), or the copied rows of one fetch
    /// (which have the same columns).
    private let keepsContainers: Bool
    /// Whether the decoder reads the copied rows of one fetch, one after the other.
    private let sharesColumns: Bool
    /// The keyed containers the decoder keeps, by key type (usually one).
    /// (Used on one thread at a time, by accesses that span no call.) Never emptied:
    /// `lastContainerCache` is unretained.
    @exclusivity(unchecked) private var containerCaches: [AnyDecodingContainerCache] = []
    /// The cache of `containerCaches` returned last, and its key type: records of one type
    /// ask for the same key type, record after record.
    // Unsafe: unretained (a retain and a release per record); `containerCaches`, which only
    // grows, keeps it alive as long as the decoder.
    @exclusivity(unchecked) private var lastContainerCache: Unmanaged<AnyDecodingContainerCache>?
    /// The slots of the kept containers, given back when the decoder ends.
    // Unsafe: slots are never freed (see `KeptContainerSlot`).
    @exclusivity(unchecked) private var keptSlots: [Unmanaged<KeptContainerSlot>] = []
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseDecodingUserInfo }
    var row: Row { rowReference.row }

    /// Whether the containers it keeps are handed out through slots (see `KeptContainerSlot`):
    /// only for a decoder that its row, or the rows of its fetch, keep from one record to the
    /// next. A decoder made for one use (`superDecoder()`, `DatabaseRecordMacroSupport`) hands
    /// out its container itself: the container, which may be used after the decoder is gone,
    /// keeps it alive.
    private let handsOutSlots: Bool

    /// `keptByRow`: the row keeps the decoder for its next records (see `handsOutSlots`).
    init(row: Row, codingPath: [any CodingKey] = [], keptByRow: Bool = false) {
        rowReference = RowReference(row)
        self.codingPath = codingPath
        keepsContainers = codingPath.isEmpty && row.readsLiveStatement
        handsOutSlots = keptByRow && keepsContainers
        sharesColumns = false
    }

    /// A decoder for the copied rows of one fetch: `rowReference` is pointed at each row in turn.
    init(sharedReference: RowReference) {
        rowReference = sharedReference
        codingPath = []
        keepsContainers = true
        handsOutSlots = true
        sharesColumns = true
    }

    deinit {
        // Before the containers are released: a container kept by `init(from:)` beyond its
        // decoder then fails instead of reading freed memory.
        for slot in keptSlots { KeptContainerSlot.giveBack(slot) }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        // The container made for the first record serves the next ones (making one per
        // record costs an allocation and generic metadata lookups). Records of one type ask
        // for the same key type, record after record.
        // Unsafe: the last cache is one of `containerCaches`, which the decoder keeps.
        if let last = lastContainerCache, last._withUnsafeGuaranteedRef({ $0.keyType == ObjectIdentifier(Key.self) }) {
            return last._withUnsafeGuaranteedRef { cache in
                cache.rowContainer.willDecodeRecord()
                return unsafeDowncast(cache, to: DecodingContainerCache<Key>.self).container
            }
        }
        return try otherContainer(keyedBy: type)
    }

    /// The other paths of `container(keyedBy:)`, apart from the path of each record, whose
    /// frame then holds none of their temporaries (W3b −10 instructions per record; the copy of
    /// the kept container still looks up the metadata of `KeyedDecodingContainer<Key>`, see
    /// docs/Performance.md).
    @inline(never)
    private func otherContainer<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard keepsContainers else {
            return KeyedDecodingContainer(RowKeyedDecodingContainer<Key, Record>(row: row, codingPath: codingPath))
        }
        let keyType = ObjectIdentifier(Key.self)
        for cache in containerCaches where cache.keyType == keyType {
            // Unsafe: `containerCaches` keeps the cache (see `lastContainerCache`).
            lastContainerCache = Unmanaged.passUnretained(cache)
            cache.rowContainer.willDecodeRecord()
            return unsafeDowncast(cache, to: DecodingContainerCache<Key>.self).container
        }
        let rowContainer = RowKeyedDecodingContainer<Key, Record>(rowReference: rowReference, sharesColumns: sharesColumns)
        let container: KeyedDecodingContainer<Key>
        if handsOutSlots {
            let (slot, generation) = KeptContainerSlot.take(for: rowContainer)
            container = KeyedDecodingContainer(KeptRowKeyedDecodingContainer<Key, Record>(slot: slot, generation: generation))
            keptSlots.append(slot)
        } else {
            container = KeyedDecodingContainer(rowContainer)
        }
        let cache = DecodingContainerCache(container, rowContainer: rowContainer, keyType: keyType)
        containerCaches.append(cache)
        // Unsafe: `containerCaches` keeps the cache (see `lastContainerCache`).
        lastContainerCache = Unmanaged.passUnretained(cache)
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw RowDecodingError(description: "\(Record.self) can not decode from a row with an unkeyed container: decode with a keyed container (CodingKeys)")
    }

    /// A container that decodes whole values from the same row: a `FetchableRecord` with
    /// its `init(row:)`, another `Decodable` type with its `init(from:)` (a wrapper record
    /// decodes the model it wraps this way).
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RowSingleValueDecodingContainer<Record>(row: row, codingPath: codingPath)
    }
}

/// The single-value container of a row: values decode from the whole row.
struct RowSingleValueDecodingContainer<Record: FetchableRecord>: SingleValueDecodingContainer {
    let row: Row
    let codingPath: [any CodingKey]

    /// A row is never nil.
    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self is any DatabaseValueConvertible.Type || T.self == Date.self || T.self == Data.self {
            throw DecodingError.typeMismatch(T.self, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "\(Record.self) can not decode a single \(T.self) from a whole row: decode it with a keyed container"))
        }
        if let recordType = T.self as? any FetchableRecord.Type {
            return try decodeRecord(recordType, from: row, as: T.self)
        }
        return try T(from: RowDecoder<Record>(row: row, codingPath: codingPath))
    }
}

/// Decodes a `T` with the `init(row:)` of `recordType`, which is `T`.
///
/// Without a cast: `recordType.init(row:) as! T` boxed each record in an existential and
/// cast it back (an allocation and `swift_dynamicCast`, about 800 instructions a record).
@inline(__always)
func decodeRecord<T>(_ recordType: any FetchableRecord.Type, from row: Row, as type: T.Type) throws -> T {
    try decodeRecord(opening: recordType, from: row, as: T.self)
}

private func decodeRecord<R: FetchableRecord, T>(opening recordType: R.Type, from row: Row, as type: T.Type) throws -> T {
    assert(R.self == T.self)
    // Unsafe: R is T (opened from `T.self as? any FetchableRecord.Type`), so the bits of the
    // record are the bits of the result (the record is copied, and released when it goes).
    return unsafeBitCast(try R(row: row), to: T.self)
}

/// What a key of a kept container resolved to the last time (see
/// ``RowKeyedDecodingContainer``): a column, and, once looked up, a scope.
struct DecodingKeyMemo {
    var key: String
    var index: Int?
    var scope: Row??
    /// For a key of a live row that is not a column: the record decoded for it the last
    /// time, from a scope or from the row's own columns (`var book: Book` in a record of
    /// books and their authors).
    var record: RememberedRecord? = nil
}

/// A record a key of a live row decoded (see ``DecodingKeyMemo``): the next rows decode it
/// the same way, without looking the key up as a column, a scope, or prefetched rows.
struct RememberedRecord {
    var type: ObjectIdentifier
    var recordType: any FetchableRecord.Type
    /// The scope the record was decoded from, or nil for the row's own columns.
    var scope: Row?
}

/// Whether a type decoded from a row is a `FetchableRecord`, whether it is a database value,
/// and whether it is an array of records: each answer is asked of the runtime when first
/// needed (nil until then): the first negative answer for a type scans the conformances of
/// the whole program.
struct DecodingTypeMemo {
    var type: ObjectIdentifier
    var fetchable: (any FetchableRecord.Type)??
    var isValue: Bool?
    var prefetchedArray: (any PrefetchedRecordArray.Type)??
}

/// An array of records, decoded from prefetched rows without `Decodable`.
protocol PrefetchedRecordArray {
    static func decodeRecords(_ group: PrefetchedGroup) throws -> Self
}

extension Array: PrefetchedRecordArray where Element: FetchableRecord {
    static func decodeRecords(_ group: PrefetchedGroup) throws -> [Element] {
        try Element.decodeAll(group)
    }
}

/// Decodes a `T` with `arrayType`, which is `T`.
private func decodeRecordArray<T>(_ arrayType: any PrefetchedRecordArray.Type, from group: PrefetchedGroup, as type: T.Type) throws -> T {
    try decodeRecordArray(opening: arrayType, from: group, as: T.self)
}

private func decodeRecordArray<A: PrefetchedRecordArray, T>(opening arrayType: A.Type, from group: PrefetchedGroup, as type: T.Type) throws -> T {
    assert(A.self == T.self)
    // Unsafe: A is T (opened from `T.self as? any PrefetchedRecordArray.Type`), so the bits of
    // the array are the bits of the result (copied, and released when it goes).
    return unsafeBitCast(try A.decodeRecords(group), to: T.self)
}

/// The row a decoder reads: fixed for the decoders of one row; swapped, record after record,
/// in a decoder shared by the copied rows of one fetch.
final class RowReference {
    /// The row. Unowned: the reference of a decoder of one row owns its row (`owner`); the
    /// reference of a shared decoder reads a row only while a record decodes from it (its
    /// caller keeps the row alive), and reads ``SharedRowDecoder/noRow`` otherwise. Pointing
    /// a shared decoder at each row in turn costs no retain and no release.
    // Unsafe: `owner`, or the caller of a shared decoder while its record decodes, keeps the
    // row alive (`noRow`, immortal, otherwise). Used on one thread at a time (rows are not
    // Sendable), by accesses that span no call.
    @exclusivity(unchecked) unowned(unsafe) private(set) var row: Row
    /// The values of `row` when they are in a block (see ``Row/blockValues``).
    @exclusivity(unchecked) private(set) var blockValues: UnsafePointer<DatabaseValue>?
    private let owner: Row?

    /// A reference that owns its row.
    init(_ row: Row) {
        self.row = row
        blockValues = row.blockValues
        owner = row
    }

    /// The reference of a shared decoder, which reads `noRow` between records.
    init(sharedBy noRow: Row) {
        row = noRow
        blockValues = nil
        owner = nil
    }

    /// Points a shared reference at `row`.
    @inline(__always)
    func point(at row: Row) {
        self.row = row
        blockValues = row.blockValues
    }
}

/// The decoders shared by the copied rows of one fetch (`fetchAll`): the rows have the same
/// columns, so that a record decoded from one of them takes the decoder of its type, points
/// it at its row, and gives it back. A record that decodes another record of its type from
/// another row of the fetch meanwhile gets another decoder.
///
/// Rows are not Sendable: their records are decoded on one thread at a time.
final class SharedRowDecoders {
    @exclusivity(unchecked) private var decoders: [SharedRowDecoder] = []
    /// The decoder checked out last: usually the one the next record takes.
    @exclusivity(unchecked) private var last: SharedRowDecoder?

    /// A decoder of `Record` that reads `row`, until it is checked in. The caller keeps
    /// `row` alive until then.
    /// (Unretained: the decoders are kept in `decoders` as long as `self` lives.)
    // Unsafe: the decoder is returned unretained: `decoders` keeps it as long as `self` lives,
    // and the caller's row keeps `self` alive until it checks the decoder in.
    @inline(__always)
    func checkOut<Record: FetchableRecord & Decodable>(_ type: Record.Type, row: Row) -> Unmanaged<SharedRowDecoder> {
        let recordType = ObjectIdentifier(Record.self)
        if let last, last.recordType == recordType, !last.isInUse {
            last.isInUse = true
            last.rowReference.point(at: row)
            // Unsafe: `last` is one of `decoders`, which `self` keeps.
            return Unmanaged.passUnretained(last)
        }
        // Unsafe: checkOutAnother returns one of `decoders` (appended if new), which `self` keeps.
        return Unmanaged.passUnretained(checkOutAnother(Record.self, row: row))
    }

    private func checkOutAnother<Record: FetchableRecord & Decodable>(_ type: Record.Type, row: Row) -> SharedRowDecoder {
        let recordType = ObjectIdentifier(Record.self)
        for decoder in decoders where decoder.recordType == recordType && !decoder.isInUse {
            decoder.isInUse = true
            decoder.rowReference.point(at: row)
            last = decoder
            return decoder
        }
        let rowReference = RowReference(sharedBy: SharedRowDecoder.noRow)
        rowReference.point(at: row)
        let decoder = SharedRowDecoder(recordType: recordType, rowReference: rowReference, decoder: RowDecoder<Record>(sharedReference: rowReference))
        decoder.isInUse = true
        decoders.append(decoder)
        last = decoder
        return decoder
    }
}

/// A decoder shared by the copied rows of one fetch, for one record type.
final class SharedRowDecoder {
    /// What the shared decoders read between two records: no row.
    nonisolated(unsafe) static let noRow = Row()

    let recordType: ObjectIdentifier
    let rowReference: RowReference
    /// A `RowDecoder<Record>` that reads `rowReference`. (A class existential: its copy for
    /// each record's `init(from:)` is a retain, not a call to a value witness.)
    let decoder: any Decoder & AnyObject
    // Used on one thread at a time, by accesses that span no call.
    @exclusivity(unchecked) var isInUse = false

    /// ``noRow``, without the lazy initialization of a static at each record.
    private let noRow = SharedRowDecoder.noRow

    init(recordType: ObjectIdentifier, rowReference: RowReference, decoder: any Decoder & AnyObject) {
        self.recordType = recordType
        self.rowReference = rowReference
        self.decoder = decoder
    }

    @inline(__always)
    func checkIn() {
        rowReference.point(at: noRow)
        isInUse = false
    }
}

/// A container told when a kept container starts decoding another record.
protocol RecordDecodingContainer: AnyObject {
    func willDecodeRecord()
}

/// A keyed container a decoder keeps (see ``RowDecoder``).
class AnyDecodingContainerCache {
    let keyType: ObjectIdentifier
    let rowContainer: any RecordDecodingContainer

    init(keyType: ObjectIdentifier, rowContainer: any RecordDecodingContainer) {
        self.keyType = keyType
        self.rowContainer = rowContainer
    }
}

final class DecodingContainerCache<Key: CodingKey>: AnyDecodingContainerCache {
    let container: KeyedDecodingContainer<Key>

    init(_ container: KeyedDecodingContainer<Key>, rowContainer: any RecordDecodingContainer, keyType: ObjectIdentifier) {
        self.container = container
        super.init(keyType: keyType, rowContainer: rowContainer)
    }
}

/// Reads the columns of a row by coding key.
///
/// A class: the standard library's container box copies its container on each call, and a
/// class copies as one reference.
final class RowKeyedDecodingContainer<Key: CodingKey, Record: FetchableRecord>: KeyedDecodingContainerProtocol, RecordDecodingContainer {
    private let rowReference: RowReference
    var row: Row { rowReference.row }
    let codingPath: [any CodingKey]
    /// Column indexes by key string, for the non-default column strategies.
    private let keyIndexes: [String: Int]?
    /// The statement the row reads, and the statement's column of each of the row's columns
    /// when the row is adapted: values are read straight from SQLite.
    /// (Two properties, not an optional tuple: binding the tuple retained and released the
    /// array of indexes at each value.)
    private let liveStatement: SQLiteStatement?
    private let liveBaseIndexes: [Int]?
    /// Whether the container reads the copied rows of one fetch, one after the other.
    private let sharesColumns: Bool
    /// For a container of the copied rows of one fetch: the values of the current record's
    /// row when they are in a block, read without going through the row (set when a record
    /// starts decoding; the row outlives its record's decoding).
    @exclusivity(unchecked) private var blockValues: UnsafePointer<DatabaseValue>?


    /// Whether the container remembers how keys resolve (columns, scopes), by the order of
    /// the lookups in a record's decoding: for a row that reads a live statement, directly or
    /// through an adapter (joined requests), and for the copied rows of one fetch. Such a row
    /// keeps its container from one fetched row to the next, and its columns never change.
    ///
    /// The memos are used by one decoding at a time, on the connection's queue, and no access
    /// spans a call: no dynamic exclusivity checks.
    private let remembersKeys: Bool
    /// Whether the container remembers the scopes of keys too: for a live row (the scopes of
    /// copied rows are made for each row, with their prefetched rows).
    private let remembersScopes: Bool
    @exclusivity(unchecked) private var keyMemos: [DecodingKeyMemo] = []
    /// For keys that are plain values of 1, 2, 4 or 8 bytes (the enums of coding keys), whose
    /// bits tell them apart: their size; 0 for other keys, told apart by their string.
    private let keyBitCount: Int
    /// When `keyBitCount` > 0, the bits of the key of each memo and its column index (-1:
    /// none), parallel to `keyMemos`: a lookup that finds the key of the previous record at
    /// the same place needs not the key's string.
    @exclusivity(unchecked) private var keyBitsMemos: [(bits: UInt64, index: Int)] = []
    /// Whether the keys are looked up in `keyBitsMemos` (the default column strategy, keys
    /// remembered, and keys told apart by their bits).
    private let usesKeyBitsMemos: Bool
    /// The position of the next lookup in the current record's decoding.
    @exclusivity(unchecked) private var lookupOrdinal = 0
    /// The key of the one property decoded from the row's own columns in the current record,
    /// if any: as GRDB (REC-5), a second one is a missing key.
    @exclusivity(unchecked) private var ownColumnsKey: String?
    /// The position of the last lookup, whose memo remembers the key's scope too (-1 before
    /// the first lookup of a record).
    private var lastLookupOrdinal: Int { lookupOrdinal - 1 }
    /// For each type decoded from a row (a scope, or the row itself): whether it is a
    /// `FetchableRecord`, and whether it is a database value.
    @exclusivity(unchecked) private var typeMemos: [DecodingTypeMemo] = []

    convenience init(row: Row, codingPath: [any CodingKey] = []) {
        self.init(rowReference: RowReference(row), codingPath: codingPath, sharesColumns: false)
    }

    /// `sharesColumns`: the container reads the copied rows of one fetch, one after the other.
    init(rowReference: RowReference, codingPath: [any CodingKey] = [], sharesColumns: Bool) {
        self.rowReference = rowReference
        self.codingPath = codingPath
        let row = rowReference.row
        let liveColumns = row.liveColumns
        liveStatement = liveColumns?.sqliteStatement
        liveBaseIndexes = liveColumns?.baseIndexes
        remembersScopes = liveBaseIndexes != nil
        // A live row, adapted or not, never changes its columns; nor do the copied rows of one
        // fetch: the column of a key is the same for every record.
        remembersKeys = liveStatement != nil || sharesColumns
        self.sharesColumns = sharesColumns
        blockValues = sharesColumns ? row.blockValues : nil
        let keySize = MemoryLayout<Key>.size
        keyBitCount = _isPOD(Key.self) && [1, 2, 4, 8].contains(keySize) ? keySize : 0
        switch Record.databaseColumnDecodingStrategy {
        case .useDefaultKeys:
            keyIndexes = nil
        case let strategy:
            var indexes: [String: Int] = [:]
            for (index, column) in row.columnNames.enumerated() {
                let key = strategy.keyString(forColumn: column)
                if indexes[key] == nil { indexes[key] = index }
            }
            keyIndexes = indexes
        }
        usesKeyBitsMemos = keyBitCount > 0 && remembersKeys && keyIndexes == nil
    }

    var allKeys: [Key] {
        if let keyIndexes {
            return keyIndexes.keys.compactMap { Key(stringValue: $0) }
        }
        return row.columnNames.compactMap { Key(stringValue: $0) }
    }

    func willDecodeRecord() {
        lookupOrdinal = 0
        // (Usually nil already: no release to call.)
        if ownColumnsKey != nil { ownColumnsKey = nil }
        if sharesColumns { blockValues = rowReference.blockValues }
    }

    @inline(__always)
    private func index(of key: Key) -> Int? {
        if let keyIndexes { return keyIndexes[key.stringValue] }
        if remembersKeys { return rememberedIndex(key) }
        return row.index(forColumn: key.stringValue)
    }

    /// Whether the memo at `ordinal` is the memo of `key`: its bits compared when keys are
    /// plain values (`keyBitsMemos` grows with `keyMemos`, and is updated with it), its
    /// string otherwise.
    @inline(__always)
    private func memo(at ordinal: Int, isFor key: Key) -> Bool {
        guard ordinal >= 0 && ordinal < keyMemos.count else { return false }
        if keyBitCount > 0, ordinal < keyBitsMemos.count {
            return keyBitsMemo(at: ordinal).bits == keyBits(key)
        }
        return keyMemos[ordinal].key == key.stringValue
    }

    /// The memo of `keyBitsMemos` at `ordinal`, which the caller checked is below its count
    /// (and ordinals count up from 0): read without checks.
    @inline(__always)
    private func keyBitsMemo(at ordinal: Int) -> (bits: UInt64, index: Int) {
        keyBitsMemos.withUnsafeBufferPointer { $0[ordinal] }
    }

    private func rememberedIndex(_ key: Key) -> Int? {
        let ordinal = lookupOrdinal
        lookupOrdinal += 1
        guard keyBitCount > 0 else { return rememberedIndex(key, ordinal: ordinal) }
        let bits = keyBits(key)
        if ordinal < keyBitsMemos.count, keyBitsMemos[ordinal].bits == bits {
            let index = keyBitsMemos[ordinal].index
            return index >= 0 ? index : nil
        }
        let index = rememberedIndex(key, ordinal: ordinal)
        if ordinal < keyBitsMemos.count {
            keyBitsMemos[ordinal] = (bits, index ?? -1)
        } else {
            // (The memos grow together: this is the memo `keyMemos` appended.)
            keyBitsMemos.append((bits, index ?? -1))
        }
        return index
    }

    /// The bits of a key of `keyBitCount` bytes (a plain value: equal bits, equal keys).
    @inline(__always)
    private func keyBits(_ key: Key) -> UInt64 {
        // Unsafe: keyBitCount is the size of Key, a plain value (`_isPOD`: no references to
        // retain), so its bits read as an unsigned integer of the same size. One byte first:
        // the enums of synthesized coding keys.
        if keyBitCount == 1 { return UInt64(unsafeBitCast(key, to: UInt8.self)) }
        if keyBitCount == 2 { return UInt64(unsafeBitCast(key, to: UInt16.self)) }
        if keyBitCount == 4 { return UInt64(unsafeBitCast(key, to: UInt32.self)) }
        return unsafeBitCast(key, to: UInt64.self)
    }

    /// The index of `key`, the lookup at `ordinal`, remembered by the key's string.
    private func rememberedIndex(_ key: Key, ordinal: Int) -> Int? {
        let name = key.stringValue
        if ordinal < keyMemos.count, keyMemos[ordinal].key == name { return keyMemos[ordinal].index }
        let index = row.index(forColumn: name)
        let memo = DecodingKeyMemo(key: name, index: index)
        if ordinal < keyMemos.count {
            keyMemos[ordinal] = memo
        } else {
            keyMemos.append(memo)
        }
        return index
    }

    /// The scope of `key` in the row's scopes tree, right after the key's column lookup.
    private func scope(forKey key: Key) -> Row? {
        // (A row without scopes, such as an unadapted row, is answered without the key's
        // string.)
        guard row.hasScopes else { return nil }
        guard remembersScopes, memo(at: lastLookupOrdinal, isFor: key) else {
            return row.scopesTree[key.stringValue]
        }
        if let scope = keyMemos[lastLookupOrdinal].scope { return scope }
        let scope = row.scopesTree[key.stringValue]
        keyMemos[lastLookupOrdinal].scope = .some(scope)
        return scope
    }

    /// The position of the memo of `T` in `typeMemos`, made if needed; nil when the
    /// container keeps no memos.
    private func typeMemoIndex<T>(_ type: T.Type) -> Int? {
        guard remembersKeys else { return nil }
        let id = ObjectIdentifier(T.self)
        if let index = typeMemos.firstIndex(where: { $0.type == id }) { return index }
        typeMemos.append(DecodingTypeMemo(type: id))
        return typeMemos.count - 1
    }

    /// `T` as a `FetchableRecord` type, if it is one (remembered).
    private func fetchableType<T>(_ type: T.Type) -> (any FetchableRecord.Type)? {
        let index = typeMemoIndex(T.self)
        if let index, let known = typeMemos[index].fetchable { return known }
        let answer = T.self as? any FetchableRecord.Type
        if let index { typeMemos[index].fetchable = .some(answer) }
        return answer
    }

    /// Whether `T` is a database value (remembered).
    private func isValueType<T>(_ type: T.Type) -> Bool {
        let index = typeMemoIndex(T.self)
        if let index, let known = typeMemos[index].isValue { return known }
        let answer = T.self is any DatabaseValueConvertible.Type || T.self == Date.self || T.self == Data.self
        if let index { typeMemos[index].isValue = answer }
        return answer
    }

    /// `T` as an array of records decoded from prefetched rows, if it is one (remembered).
    private func prefetchedArrayType<T>(_ type: T.Type) -> (any PrefetchedRecordArray.Type)? {
        let index = typeMemoIndex(T.self)
        if let index, let known = typeMemos[index].prefetchedArray { return known }
        let answer = T.self as? any PrefetchedRecordArray.Type
        if let index { typeMemos[index].prefetchedArray = .some(answer) }
        return answer
    }

    @inline(__always)
    private func requiredIndex<T>(of key: Key, _ type: T.Type) throws -> Int {
        guard let index = index(of: key) else {
            throw RowDecodingError.columnNotFound(key.stringValue, type: type, row: row, record: Record.self)
        }
        return index
    }

    func contains(_ key: Key) -> Bool {
        index(of: key) != nil || scope(forKey: key) != nil || row.prefetchedGroupInTree(forKey: key.stringValue) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let index = index(of: key) else {
            // Prefetched rows are never nil (ROW-2), as GRDB.
            if row.prefetchedGroupInTree(forKey: key.stringValue) != nil { return false }
            // A scope decodes as nil when all its values are NULL (the missing side of a left join).
            return !(scope(forKey: key)?.containsNonNullValue ?? false)
        }
        return row.databaseValueIsNull(at: index)
    }

    // Database values read straight from SQLite.

    @inline(__always)
    fileprivate func fastDecode<T: DatabaseValueConvertible & StatementColumnConvertible>(_ type: T.Type, forKey key: Key) throws -> T {
        // The key found where it was found for the previous record (its bits compared, not
        // its string), and its value read straight from the live statement, or from the
        // block of copied rows, without a call.
        if usesKeyBitsMemos {
            let ordinal = lookupOrdinal
            if ordinal < keyBitsMemos.count {
                let memo = keyBitsMemo(at: ordinal)
                if memo.index >= 0, memo.bits == keyBits(key), let value = directValue(T.self, at: memo.index) {
                    lookupOrdinal = ordinal + 1
                    return value
                }
            }
        }
        return try slowDecode(type, forKey: key)
    }

    /// The path of `fastDecode` for a key not found where it was for the previous record:
    /// out of line, so that the path of each value keeps fewer registers.
    @inline(never)
    private func slowDecode<T: DatabaseValueConvertible & StatementColumnConvertible>(_ type: T.Type, forKey key: Key) throws -> T {
        let index = try requiredIndex(of: key, type)
        if let sqliteStatement = liveStatement,
           let value = Row.liveValue(T.self, sqliteStatement, liveColumn(index)) {
            return value
        }
        return try decodeValue(type, at: index)
    }

    /// The non-NULL value at `index`, read straight from the live statement or from the block
    /// of copied rows; nil otherwise (the slow path decodes, or throws).
    @inline(__always)
    private func directValue<T: DatabaseValueConvertible & StatementColumnConvertible>(_ type: T.Type, at index: Int) -> T? {
        if let sqliteStatement = liveStatement { return Row.liveValue(T.self, sqliteStatement, liveColumn(index)) }
        if let blockValues { return T.fromDatabaseValue(blockValues[index]) }
        return nil
    }

    /// The statement's column of the row's column `index`, for a live row.
    @inline(__always)
    private func liveColumn(_ index: Int) -> CInt {
        // (Column indexes come from SQLite's column count, a CInt.)
        if liveBaseIndexes != nil { return CInt(truncatingIfNeeded: liveBaseIndexes.unsafelyUnwrapped[index]) }
        return CInt(truncatingIfNeeded: index)
    }

    @inline(__always)
    fileprivate func fastDecodeIfPresent<T: DatabaseValueConvertible & StatementColumnConvertible>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = index(of: key) else { return nil }
        if let sqliteStatement = liveStatement {
            let column = liveColumn(index)
            if let value = Row.liveValue(T.self, sqliteStatement, column) { return value }
            if sqlite3_column_type(sqliteStatement, column) == SQLITE_NULL { return nil }
        }
        if row.databaseValueIsNull(at: index) { return nil }
        return try decodeValue(type, at: index)
    }

    @inline(__always)
    private func decodeValue<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int) throws -> T {
        // (Not through `Row.decode(_:at:)`: its generic `Result` costs a metadata lookup per
        // value, in the records of copied rows. Inlined in the methods of each type, so that
        // `fromDatabaseValue` is specialized: generic, its `Optional<T>` result cost another.)
        if let blockValues, let value = T.fromDatabaseValue(blockValues[index]) { return value }
        let dbValue = row.databaseValue(at: index)
        if let value = T.fromDatabaseValue(dbValue) { return value }
        throw mismatch(type, dbValue, index)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try fastDecode(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try fastDecode(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try fastDecode(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try fastDecode(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try fastDecode(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try fastDecode(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try fastDecode(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try fastDecode(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try fastDecode(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try fastDecode(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try fastDecode(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try fastDecode(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try fastDecode(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try fastDecode(type, forKey: key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try fastDecodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try fastDecodeIfPresent(type, forKey: key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = index(of: key) else {
            if let group = row.prefetchedGroupInTree(forKey: key.stringValue) {
                return try decodePrefetched(type, from: group, key: key)
            }
            guard let scope = scope(forKey: key), scope.containsNonNullValue else { return nil }
            return try decode(type, fromRow: scope, key: key)
        }
        if row.databaseValueIsNull(at: index) { return nil }
        return try decode(type, at: index, key: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        // A live row: the key resolves as it did for the previous row (one lookup instead of
        // three: column, scope, own columns).
        if remembersScopes, let record = rememberedRecord(key, T.self) {
            guard let scope = record.scope else {
                try claimOwnColumns(for: key)
                do {
                    return try decodeRemembered(record, from: row, as: T.self)
                } catch {
                    throw ownColumnsError(error, type, key: key)
                }
            }
            return try decodeRemembered(record, from: scope, as: T.self)
        }
        if let index = index(of: key) {
            return try decode(type, at: index, key: key)
        }
        // Not a column: a record in the scope of that name, records prefetched for that key,
        // or a record read from the same columns (`var book: Book` in a record of books and
        // their authors).
        if let scope = scope(forKey: key) {
            let value = try decode(type, fromRow: scope, key: key)
            if remembersScopes { rememberRecord(key, T.self, scope: scope) }
            return value
        }
        if let group = row.prefetchedGroupInTree(forKey: key.stringValue) {
            return try decodePrefetched(type, from: group, key: key)
        }
        // (Never the record's own type: that would recurse forever.)
        if T.self == Record.self || isValueType(T.self) {
            throw RowDecodingError.columnNotFound(key.stringValue, type: type, row: row, record: Record.self)
        }
        try claimOwnColumns(for: key)
        do {
            let value = try decode(type, fromRow: row, key: key)
            if remembersScopes { rememberRecord(key, T.self, scope: nil) }
            return value
        } catch {
            throw ownColumnsError(error, type, key: key)
        }
    }

    /// One property only may decode from the row's own columns: a second one is a missing key
    /// (`DecodingError.keyNotFound`), as in GRDB, not a second copy of the same values.
    private func claimOwnColumns(for key: Key) throws {
        if let claimed = ownColumnsKey, claimed != key.stringValue {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "No column, scope or prefetched rows for key \(key.stringValue.debugDescription), and the row's own columns already decode \(claimed.debugDescription)"))
        }
        ownColumnsKey = key.stringValue
    }

    /// The error of a record that is neither a column nor a scope, and that failed to decode
    /// from the row's own columns. (The message is made only here: it lists the row's
    /// columns.)
    private func ownColumnsError<T>(_ error: any Error, _ type: T.Type, key: Key) -> RowDecodingError {
        let notFound = RowDecodingError.columnNotFound(key.stringValue, type: type, row: row, record: Record.self)
        return RowDecodingError(description: "\(notFound.description); decoding \(T.self) from the row's own columns failed too: \(error)")
    }

    /// The record the next lookup, of `key`, decoded as a `T` for the previous row, if any:
    /// the lookup is then done.
    private func rememberedRecord<T>(_ key: Key, _ type: T.Type) -> RememberedRecord? {
        let ordinal = lookupOrdinal
        guard ordinal < keyMemos.count,
              let record = keyMemos[ordinal].record,
              record.type == ObjectIdentifier(T.self),
              memo(at: ordinal, isFor: key)
        else { return nil }
        lookupOrdinal = ordinal + 1
        return record
    }

    /// Remembers that the last lookup, of `key`, decoded a `T` from `scope` (nil: from the
    /// row's own columns), when `T` is a record.
    private func rememberRecord<T>(_ key: Key, _ type: T.Type, scope: Row?) {
        guard memo(at: lastLookupOrdinal, isFor: key), let recordType = fetchableType(T.self) else { return }
        keyMemos[lastLookupOrdinal].record = RememberedRecord(type: ObjectIdentifier(T.self), recordType: recordType, scope: scope)
    }

    /// Decodes a remembered record from `row` (a scope, or the row itself).
    ///
    /// A row keeps a decoder for a record type only when that type's `init(row:)` is the
    /// default one of `Decodable` records, which made the decoder for that row and type
    /// (``FetchableRecord/init(row:)``): nothing else adds to a row's decoders, and that
    /// `init(row:)` runs for a type only when it is the type's own (a type's own `init(row:)`
    /// shadows it, and generic code, even code that knows the type is `Decodable`, calls the
    /// requirement: test `liveRowsDecodeNestedRecordsWithTheirOwnInitRow`). The record is then
    /// decoded as that `init(row:)` would, from the row's decoder, straight into the result:
    /// through `init(row:)`, the record came back as the opened type, copied into the result
    /// and destroyed (W10: about 300 instructions a joined row, docs/Performance.md).
    @inline(__always)
    private func decodeRemembered<T: Decodable>(_ record: RememberedRecord, from row: Row, as type: T.Type) throws -> T {
        if row.unretainedSharedDecoders == nil, let cache = row.cachedDecoder(for: record.type) {
            // Unsafe: the row, alive for this call, keeps its cache; `init(from:)` gets its
            // own reference to the decoder.
            return try T(from: cache._withUnsafeGuaranteedRef { $0.decoder })
        }
        return try decodeRecord(record.recordType, from: row, as: T.self)
    }

    /// Decodes a record from a whole row (a scope, or the row itself), for `key`.
    private func decode<T: Decodable>(_ type: T.Type, fromRow row: Row, key: Key) throws -> T {
        if let recordType = fetchableType(T.self) {
            return try decodeRecord(recordType, from: row, as: T.self)
        }
        return try T(from: RowDecoder<Record>(row: row, codingPath: codingPath + [key]))
    }

    /// Decodes a collection from the rows prefetched for `key`.
    private func decodePrefetched<T: Decodable>(_ type: T.Type, from group: PrefetchedGroup, key: Key) throws -> T {
        // An array of records (`[Book]`) is decoded straight from the rows: the standard
        // library's `Decodable` array, generic and unspecialized, looked up the metadata of the
        // array for each element, and the unkeyed container added a box.
        if let arrayType = prefetchedArrayType(T.self) {
            return try decodeRecordArray(arrayType, from: group, as: T.self)
        }
        return try T(from: PrefetchedRowsDecoder<Record>(rows: group.rows, codingPath: codingPath + [key]))
    }

    /// Decodes any `Decodable` value from a column: with the record's date and data strategies,
    /// as a database value, as a single value (enums with raw values, wrappers), or from JSON
    /// (whose decoder starts a new coding path, as in GRDB).
    private func decode<T: Decodable>(_ type: T.Type, at index: Int, key: Key) throws -> T {
        let dbValue = row.databaseValue(at: index)
        let columnName = row.columnName(at: index)
        if T.self == Date.self {
            guard let date = Record.databaseDateDecodingStrategy(for: columnName).decode(dbValue) else {
                throw mismatch(type, dbValue, index)
            }
            return date as! T
        }
        if T.self == Data.self {
            guard let data = Record.databaseDataDecodingStrategy(for: columnName).decode(dbValue) else {
                throw mismatch(type, dbValue, index)
            }
            return data as! T
        }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            guard let value = convertible.fromDatabaseValue(dbValue) else {
                throw mismatch(type, dbValue, index)
            }
            return value as! T
        }
        do {
            return try T(from: ColumnDecoder<Record>(dbValue: dbValue, column: columnName, codingPath: codingPath + [key]))
        } catch is JSONRequired {
            let json: Data
            switch dbValue.storage {
            case .string(let string): json = Data(string.utf8)
            case .blob(let data): json = data
            default: throw mismatch(type, dbValue, index)
            }
            do {
                return try Record.databaseJSONDecoder(for: columnName).decode(type, from: json)
            } catch {
                throw RowDecodingError(description:
                    "could not decode \(T.self) from the JSON of column \(String(reflecting: columnName)) (decoding \(Record.self)): \(jsonErrorSummary(error))")
            }
        }
    }

    private func mismatch(_ type: Any.Type, _ dbValue: DatabaseValue, _ index: Int) -> RowDecodingError {
        RowDecodingError.valueMismatch(type, dbValue: dbValue, column: row.columnName(at: index), index: index, row: row).decoding(Record.self)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw RowDecodingError(description: "\(Record.self): nested containers are not supported (column \(String(reflecting: key.stringValue)))")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw RowDecodingError(description: "\(Record.self): nested containers are not supported (column \(String(reflecting: key.stringValue)))")
    }

    func superDecoder() throws -> any Decoder {
        RowDecoder<Record>(row: row)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        RowDecoder<Record>(row: row)
    }
}

/// The kind of a JSON decoding error, without the JSON itself (it is row content).
private func jsonErrorSummary(_ error: any Error) -> String {
    switch error {
    case DecodingError.keyNotFound(let key, _): return "key not found: \(key.stringValue)"
    case DecodingError.typeMismatch(let type, _): return "type mismatch for \(type)"
    case DecodingError.valueNotFound(let type, _): return "value not found for \(type)"
    case DecodingError.dataCorrupted: return "invalid JSON"
    default: return "\(type(of: error))"
    }
}

/// Decodes one value from a column: database values and single-value types (such as enums with
/// raw values). Dates and data read with the record's strategies for the column. Keyed and
/// unkeyed containers throw ``JSONRequired``.
private struct ColumnDecoder<Record: FetchableRecord>: Decoder, SingleValueDecodingContainer {
    let dbValue: DatabaseValue
    /// The column that holds the value, for the date and data strategies.
    let column: String
    /// The path of the property: it ends with the key of the column.
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseDecodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw JSONRequired() }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw JSONRequired() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { dbValue.isNull }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Date.self {
            guard let date = Record.databaseDateDecodingStrategy(for: column).decode(dbValue) else {
                throw mismatch(T.self)
            }
            return date as! T
        }
        if T.self == Data.self {
            guard let data = Record.databaseDataDecodingStrategy(for: column).decode(dbValue) else {
                throw mismatch(T.self)
            }
            return data as! T
        }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            guard let value = convertible.fromDatabaseValue(dbValue) else {
                throw mismatch(T.self)
            }
            return value as! T
        }
        return try T(from: self)
    }

    private func mismatch(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: codingPath,
            debugDescription: "could not decode \(type) from a database \(dbValue.storageClassName) (column \(String(reflecting: column)))"))
    }
}

extension RowDecodingError {
    /// The same error, naming the record type being decoded.
    func decoding(_ record: Any.Type) -> RowDecodingError {
        RowDecodingError(description: description + " - decoding \(record)")
    }

    static func columnNotFound(_ column: String, type: Any.Type, row: Row, record: Any.Type) -> RowDecodingError {
        RowDecodingError(description:
            "column not found: \(String(reflecting: column)) (decoding \(type) for \(record))"
            + " - available columns: \(row.columnNames)")
    }
}

// MARK: - Prefetched rows

/// Decodes a collection (`[Book]`, `Set<Book>`, `[String]`) from rows prefetched by
/// `including(all:)`: each row decodes one element.
struct PrefetchedRowsDecoder<Record: FetchableRecord>: Decoder {
    let rows: [Row]
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { Record.databaseDecodingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DecodingError.typeMismatch([Row].self, DecodingError.Context(
            codingPath: codingPath,
            debugDescription: "prefetched rows decode as a collection (an array or a set), not as a keyed value"))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        PrefetchedRowsContainer<Record>(rows: rows, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch([Row].self, DecodingError.Context(
            codingPath: codingPath,
            debugDescription: "prefetched rows decode as a collection (an array or a set), not as a single value"))
    }
}

struct PrefetchedRowsContainer<Record: FetchableRecord>: UnkeyedDecodingContainer {
    let rows: [Row]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    private var elementType: (type: ObjectIdentifier, fetchable: (any FetchableRecord.Type)?)?

    init(rows: [Row], codingPath: [any CodingKey]) {
        self.rows = rows
        self.codingPath = codingPath
    }

    var count: Int? { rows.count }
    var isAtEnd: Bool { currentIndex >= rows.count }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(T.self, DecodingError.Context(codingPath: codingPath, debugDescription: "no more prefetched rows"))
        }
        let row = rows[currentIndex]
        currentIndex += 1
        // The elements are all of one type: it is asked once whether it is a record.
        let recordType: (any FetchableRecord.Type)?
        if let memo = elementType, memo.type == ObjectIdentifier(T.self) {
            recordType = memo.fetchable
        } else {
            recordType = T.self as? any FetchableRecord.Type
            elementType = (ObjectIdentifier(T.self), recordType)
        }
        if let recordType {
            return try decodeRecord(recordType, from: row, as: T.self)
        }
        if let valueType = T.self as? any DatabaseValueConvertible.Type {
            // One selected column: the first column of the row (the key column follows).
            let dbValue = row.count > 0 ? row.databaseValue(at: 0) : .null
            guard let value = valueType.fromDatabaseValue(dbValue) else {
                throw DecodingError.typeMismatch(T.self, DecodingError.Context(codingPath: codingPath, debugDescription: "could not decode \(T.self) from \(dbValue)"))
            }
            return value as! T
        }
        return try T(from: RowDecoder<Record>(row: row, codingPath: codingPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let row = rows[currentIndex]
        currentIndex += 1
        return try RowDecoder<Record>(row: row, codingPath: codingPath).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Row].self, DecodingError.Context(codingPath: codingPath, debugDescription: "a prefetched row does not decode as a collection"))
    }

    mutating func superDecoder() throws -> any Decoder {
        let row = rows[currentIndex]
        currentIndex += 1
        return RowDecoder<Record>(row: row, codingPath: codingPath)
    }
}

/// The slot a kept keyed container is reached through, from the `KeyedDecodingContainer` that
/// `init(from:)` gets (`KeptRowKeyedDecodingContainer`). The standard library's container box
/// copies its container at each call: a container holding a class reference cost a retain and
/// a release per decoded value (about 40 instructions, and two atomic operations). A container
/// that holds this slot's address is copied as plain bits.
///
/// Slots are never freed: a decoder gives its slots back when it ends, bumping their
/// generation, and a container kept beyond its decoder by `init(from:)` finds its generation
/// gone, and fails, instead of reading freed memory. Free slots are reused: their number is the
/// most kept containers alive at once.
final class KeptContainerSlot {
    /// Changes when the slot is given back.
    /// (Read and written on the thread that decodes, by accesses that span no call.)
    @exclusivity(unchecked) private(set) var generation: UInt = 0
    /// The container, kept alive by its decoder until the slot is given back (a slot given
    /// back keeps the address, never read again: its handles find another generation).
    // Unsafe: not owning; the decoder owns the container, and gives the slot back first.
    @exclusivity(unchecked) private(set) var container: Unmanaged<AnyObject>

    /// The free slots.
    // Unsafe: slots are never freed.
    private static let free = LockedValue<[Unmanaged<KeptContainerSlot>]>([])

    private init(container: AnyObject) {
        // Unsafe: see `container`.
        self.container = Unmanaged.passUnretained(container)
    }

    /// A slot for `container`, and the generation its handles must find.
    // Unsafe: the slot returned is never freed.
    static func take(for container: AnyObject) -> (slot: Unmanaged<KeptContainerSlot>, generation: UInt) {
        // Unsafe: the slots of the free list are never freed.
        if let slot = free.update({ $0.popLast() }) {
            // Unsafe: slots are never freed; the decoder keeps `container` alive until `giveBack`.
            return slot._withUnsafeGuaranteedRef { object in
                object.container = Unmanaged.passUnretained(container)
                return (slot, object.generation)
            }
        }
        // Unsafe: a new slot is retained for ever (slots are never freed, see above).
        return (Unmanaged.passRetained(KeptContainerSlot(container: container)), 0)
    }

    /// Ends the handles of the slot's current generation, and frees the slot for reuse.
    // Unsafe: a slot from `take`, never freed.
    static func giveBack(_ slot: Unmanaged<KeptContainerSlot>) {
        // Unsafe: slots are never freed.
        slot._withUnsafeGuaranteedRef { $0.generation &+= 1 }
        free.update { $0.append(slot) }
    }
}

/// The keyed container of a kept `RowKeyedDecodingContainer`, handed to `init(from:)`: the
/// address of its slot and the slot's generation (see `KeptContainerSlot`). Each member reads
/// the container without a retain: its decoder keeps it alive while the generation lasts.
/// The members are inlined into their witnesses, and the values of the standard library's
/// types are read by the container's inlined `fastDecode` (one call per value, not three).
struct KeptRowKeyedDecodingContainer<Key: CodingKey, Record: FetchableRecord>: KeyedDecodingContainerProtocol {
    typealias Container = RowKeyedDecodingContainer<Key, Record>
    // Unsafe: a slot from `KeptContainerSlot.take`, never freed.
    private let slot: Unmanaged<KeptContainerSlot>
    private let generation: UInt

    // Unsafe: a slot from `KeptContainerSlot.take`, never freed.
    init(slot: Unmanaged<KeptContainerSlot>, generation: UInt) {
        self.slot = slot
        self.generation = generation
    }

    /// `body`'s result with the container; throws when the container's decoder has ended.
    @inline(__always)
    private func with<T>(_ body: (Container) throws -> T) throws -> T {
        // Unsafe: slots are never freed; the generation check tells that the decoder, which
        // keeps the container alive, has not ended.
        try slot._withUnsafeGuaranteedRef { object in
            guard object.generation == generation else {
                throw RowDecodingError(description: "\(Record.self): a keyed decoding container was used after the decoding of its record ended")
            }
            // Unsafe: the slot holds a `Container` (see `RowDecoder.container(keyedBy:)`).
            return try Unmanaged<Container>.fromOpaque(object.container.toOpaque())._withUnsafeGuaranteedRef(body)
        }
    }

    /// For the members that can not throw: a container used after its decoder ended traps.
    @inline(__always)
    private func withLive<T>(_ body: (Container) -> T) -> T {
        do {
            return try with(body)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    var codingPath: [any CodingKey] { withLive { $0.codingPath } }
    var allKeys: [Key] { withLive { $0.allKeys } }
    func contains(_ key: Key) -> Bool { withLive { $0.contains(key) } }
    @inline(__always) func decodeNil(forKey key: Key) throws -> Bool { try with { try $0.decodeNil(forKey: key) } }
    @inline(__always) func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: String.Type, forKey key: Key) throws -> String { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try with { try $0.fastDecode(type, forKey: key) } }
    @inline(__always) func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try with { try $0.fastDecode(type, forKey: key) } }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try with { try $0.decode(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    @inline(__always) func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try with { try $0.fastDecodeIfPresent(type, forKey: key) } }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try with { try $0.decodeIfPresent(type, forKey: key) } }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try with { try $0.nestedContainer(keyedBy: type, forKey: key) }
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try with { try $0.nestedUnkeyedContainer(forKey: key) } }
    func superDecoder() throws -> any Decoder { try with { try $0.superDecoder() } }
    func superDecoder(forKey key: Key) throws -> any Decoder { try with { try $0.superDecoder(forKey: key) } }
}
