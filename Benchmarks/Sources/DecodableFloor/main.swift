// The floor of `Decodable` decoding for the record shapes of W3b, W9 and W10, and of `Encodable`
// encoding for W5b's: what the standard library's keyed containers cost by themselves, with a
// decoder (an encoder) that does no work at all. Its
// containers return constant values (no database, no string made), and it keeps one container
// per key type, as GRDBCipher's decoder does, so that no container is allocated per record.
// Each record is decoded (encoded) the way a library does it: from generic code that is not
// specialized for the record, with an `any Decoder` (`decodeRecord`, `encodeRecord`). Until
// 2026-11-29 the records were decoded here by a concrete decoder the compiler could see, which
// spared the floor one metadata lookup per top-level record: a library's records are its users'
// types, and its generic code calls their `init(from:)` without knowing them.
//
// A library that decodes W10's `BookInfo` through its `Decodable` implementation pays at least
// this on top of what raw C pays (stepping SQLite, reading columns, making strings): with raw C
// at 66 M instructions for W10, a floor above 40 M puts a ratio of 1.6 out of reach.
//
// Run (instructions counted in the measured functions only):
//   swift build -c release --product DecodableFloor
//   valgrind --tool=callgrind --toggle-collect='*floorW10*' .build/release/DecodableFloor w10
//   valgrind --tool=callgrind --toggle-collect='*floorW9*' .build/release/DecodableFloor w9
//   valgrind --tool=callgrind --toggle-collect='*floorW3b*' .build/release/DecodableFloor w3b
//   valgrind --tool=callgrind --toggle-collect='*floorW5b*' .build/release/DecodableFloor w5b
// Without valgrind, it prints the median time of 7 rounds of each.
import Foundation

/// The records of W9 and W10, with the same properties as in the benchmarks.
struct Author: Decodable {
    var id: Int
    var name: String
    var country: String
}

struct Book: Decodable {
    var id: Int
    var authorId: Int
    var title: String
    var year: Int
}

struct BookInfo: Decodable {
    var book: Book
    var author: Author
}

/// The record of W3b and W5b: ten integer columns.
struct ItemRecord: Codable {
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int64
}

/// W9's `AuthorInfo` without its array of books (the library decodes the array from
/// prefetched rows without `Decodable`): its books are decoded one by one beside it.
struct AuthorHeader: Decodable {
    var author: Author
}

/// A keyed container kept by the decoder, by key type.
class KeptContainer {
    let keyType: ObjectIdentifier

    init(keyType: ObjectIdentifier) {
        self.keyType = keyType
    }
}

final class TypedKeptContainer<Key: CodingKey>: KeptContainer {
    let container: KeyedDecodingContainer<Key>

    init(_ container: KeyedDecodingContainer<Key>) {
        self.container = container
        super.init(keyType: ObjectIdentifier(Key.self))
    }
}

/// A decoder that reads nothing.
final class FloorDecoder: Decoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// The string every string value is (a copy is a retain, no string is made).
    let text = String(repeating: "t", count: 24)
    private var kept: [KeptContainer] = []

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let keyType = ObjectIdentifier(Key.self)
        for container in kept where container.keyType == keyType {
            return unsafeDowncast(container, to: TypedKeptContainer<Key>.self).container
        }
        let container = KeyedDecodingContainer(FloorContainer<Key>(decoder: self))
        kept.append(TypedKeptContainer(container))
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "no arrays"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "no single values"))
    }
}

/// A keyed container that reads nothing: a class, copied by one retain.
final class FloorContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    unowned let decoder: FloorDecoder

    init(decoder: FloorDecoder) {
        self.decoder = decoder
    }

    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { 1 }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { 1 }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { decoder.text }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try T(from: decoder) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}

/// How a library decodes its caller's record: from generic code that the compiler does not
/// specialize for the record type, with the decoder as `any Decoder`. A record decoded by a
/// concrete decoder visible to the compiler (`BookInfo(from: decoder)` in this file) gets an
/// `init(from:)` specialized for that decoder, and its `container(keyedBy:)` call loses its
/// metadata lookup: a library never gets that, since its records are its users' types.
@inline(never)
@_semantics("optimize.sil.specialize.generic.never")
func decodeRecord<Record: Decodable>(_ type: Record.Type, from decoder: consuming any Decoder) throws -> Record {
    try Record(from: consume decoder)
}

/// How a library encodes its caller's record: from generic code, with `any Encoder`.
@inline(never)
@_semantics("optimize.sil.specialize.generic.never")
func encodeRecord<Record: Encodable>(_ record: Record, to encoder: any Encoder) throws {
    try record.encode(to: encoder)
}

/// W10's records: 20,000 `BookInfo`.
@inline(never)
func floorW10(_ decoder: FloorDecoder) throws -> Int {
    var infos: [BookInfo] = []
    infos.reserveCapacity(20_000)
    for _ in 0..<20_000 {
        infos.append(try decodeRecord(BookInfo.self, from: decoder))
    }
    return infos.count
}

/// W9's records: 2,000 authors in their `AuthorInfo`, 20,000 books.
@inline(never)
func floorW9(_ decoder: FloorDecoder) throws -> Int {
    var authors: [AuthorHeader] = []
    authors.reserveCapacity(2_000)
    var books: [Book] = []
    books.reserveCapacity(20_000)
    for _ in 0..<2_000 {
        authors.append(try decodeRecord(AuthorHeader.self, from: decoder))
        for _ in 0..<10 {
            books.append(try decodeRecord(Book.self, from: decoder))
        }
    }
    return authors.count + books.count
}

/// W3b's records: 200,000 `ItemRecord`s decoded.
@inline(never)
func floorW3b(_ decoder: FloorDecoder) throws -> Int {
    var sum: Int64 = 0
    for _ in 0..<200_000 {
        let record = try decodeRecord(ItemRecord.self, from: decoder)
        sum &+= record.c0 &+ record.c9
    }
    return Int(sum)
}

/// An encoder that keeps nothing, with one kept keyed container, as GRDBCipher's encoder of
/// persistence containers keeps its own.
final class FloorEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    private var kept: [ObjectIdentifier: Any] = [:]
    var sink: Int64 = 0

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if let container = kept[ObjectIdentifier(Key.self)] {
            return container as! KeyedEncodingContainer<Key>
        }
        let container = KeyedEncodingContainer(FloorEncodingContainer<Key>(encoder: self))
        kept[ObjectIdentifier(Key.self)] = container
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("no arrays") }
    func singleValueContainer() -> any SingleValueEncodingContainer { fatalError("no single values") }
}

/// A keyed container that keeps nothing but a running sum, so that the values are used.
final class FloorEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    unowned let encoder: FloorEncoder

    init(encoder: FloorEncoder) {
        self.encoder = encoder
    }

    var codingPath: [any CodingKey] { [] }
    func encodeNil(forKey key: Key) throws {}
    func encode(_ value: Int64, forKey key: Key) throws { encoder.sink &+= value }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try value.encode(to: encoder) }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.container(keyedBy: keyType)
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { encoder.unkeyedContainer() }
    func superEncoder() -> any Encoder { encoder }
    func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

/// W5b's records: 50,000 `ItemRecord`s encoded.
@inline(never)
func floorW5b(_ encoder: FloorEncoder) throws -> Int {
    for i in 0..<50_000 {
        let value = Int64(i)
        let record = ItemRecord(c0: value, c1: value, c2: value, c3: value, c4: value, c5: value, c6: value, c7: value, c8: value, c9: value)
        try encodeRecord(record, to: encoder)
    }
    return Int(encoder.sink)
}

func medianTime(_ body: () throws -> Int) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<7 {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return times.sorted()[times.count / 2]
}

let decoder = FloorDecoder()
switch CommandLine.arguments.dropFirst().first {
case "w10":
    print(try floorW10(decoder))
case "w9":
    print(try floorW9(decoder))
case "w3b":
    print(try floorW3b(decoder))
case "w5b":
    print(try floorW5b(FloorEncoder()))
default:
    print("W10 floor: \(String(format: "%.2f", try medianTime { try floorW10(decoder) })) ms")
    print("W9 floor: \(String(format: "%.2f", try medianTime { try floorW9(decoder) })) ms")
    print("W3b floor: \(String(format: "%.2f", try medianTime { try floorW3b(decoder) })) ms")
    let encoder = FloorEncoder()
    print("W5b floor: \(String(format: "%.2f", try medianTime { try floorW5b(encoder) })) ms")
}
