import Foundation
import Testing
@testable import GRDBCipher

// The copied rows of one fetchAll share their records' decoders: each record must still read
// its own row, a decoding error must leave the decoders usable, a record that decodes another
// of its type from another row of the same fetch must get its own decoder, and the rows must
// not be kept alive by their decoders.

private struct Item: Decodable, FetchableRecord, Equatable {
    var id: Int64
    var name: String
    var note: String?
}

/// Decodes an item, and, from its own decoding, the item of the next row of the same fetch.
private struct Chained: Decodable, FetchableRecord {
    nonisolated(unsafe) static var rows: [Row] = []
    var id: Int64
    var next: Int64?

    enum CodingKeys: String, CodingKey { case id }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        let index = Int(id)
        next = index < Chained.rows.count ? try Chained(row: Chained.rows[index]).id : nil
        // The decoder still reads this record's row.
        #expect(try container.decode(Int64.self, forKey: .id) == id)
    }
}

/// Asks its decoder for containers of two key types, in turn, at each record: the decoder
/// keeps a container for each, and must find the right one after the other.
private struct TwoKeyTypes: Decodable, FetchableRecord, Equatable {
    var id: Int64
    var name: String
    var note: String?

    enum IDKeys: String, CodingKey { case id }
    enum TextKeys: String, CodingKey { case name, note }

    init(id: Int64, name: String, note: String?) {
        self.id = id
        self.name = name
        self.note = note
    }

    init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: IDKeys.self).decode(Int64.self, forKey: .id)
        let text = try decoder.container(keyedBy: TextKeys.self)
        name = try text.decode(String.self, forKey: .name)
        // The first key type again, after the second.
        #expect(try decoder.container(keyedBy: IDKeys.self).decode(Int64.self, forKey: .id) == id)
        note = try text.decodeIfPresent(String.self, forKey: .note)
    }
}

@Suite("Decoders shared by the rows of a fetch")
struct SharedRowDecodersTests {
    private func makeDatabase() throws -> TestDatabase {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, note TEXT);
                INSERT INTO item VALUES (1, 'a', NULL), (2, 'b', 'x'), (3, 'c', NULL);
                """)
        }
        return test
    }

    @Test func decodersFindTheContainerOfEachKeyType() throws {
        let test = try makeDatabase()
        let expected = [
            TwoKeyTypes(id: 1, name: "a", note: nil), TwoKeyTypes(id: 2, name: "b", note: "x"),
            TwoKeyTypes(id: 3, name: "c", note: nil),
        ]
        try test.dbQueue.read { db in
            let sql = "SELECT * FROM item ORDER BY id"
            // A cursor (one live row, its decoder kept by the row), fetchAll (copied rows,
            // shared decoders), and a record decoded from a row on its own.
            #expect(try Array(TwoKeyTypes.fetchCursor(db, sql: sql)) == expected)
            #expect(try TwoKeyTypes.fetchAll(db, sql: sql) == expected)
            let row = try #require(try Row.fetchOne(db, sql: sql + " DESC"))
            #expect(try TwoKeyTypes(row: row) == TwoKeyTypes(id: 3, name: "c", note: nil))
        }
    }

    @Test func eachRecordReadsItsRow() throws {
        let test = try makeDatabase()
        try test.dbQueue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM item ORDER BY id")
            // Out of order, twice: the shared decoder is pointed at each row.
            let items = try [2, 0, 1, 2].map { try Item(row: rows[$0]) }
            #expect(items == [
                Item(id: 3, name: "c", note: nil), Item(id: 1, name: "a", note: nil),
                Item(id: 2, name: "b", note: "x"), Item(id: 3, name: "c", note: nil),
            ])
            #expect(try Item.fetchAll(db, sql: "SELECT * FROM item ORDER BY id DESC").map(\.id) == [3, 2, 1])
        }
    }

    @Test func aDecodingErrorLeavesTheDecodersUsable() throws {
        let test = try makeDatabase()
        try test.dbQueue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, CASE id WHEN 2 THEN NULL ELSE name END AS name, note FROM item ORDER BY id")
            #expect(try Item(row: rows[0]).name == "a")
            #expect(throws: (any Error).self) { try Item(row: rows[1]) }
            #expect(try Item(row: rows[2]).name == "c")
        }
    }

    @Test func aRecordDecodingAnotherOfItsTypeGetsItsOwnDecoder() throws {
        let test = try makeDatabase()
        try test.dbQueue.read { db in
            Chained.rows = try Row.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")
            defer { Chained.rows = [] }
            let first = try Chained(row: Chained.rows[0])
            #expect(first.id == 1)
            #expect(first.next == 2)
            #expect(try Chained(row: Chained.rows[2]).next == nil)
        }
    }

    /// The rows a record reads from a cursor's live row (its unadapted row, a row without its
    /// scopes) are not kept by the decoders of their records once the cursor is gone.
    @Test func liveRowsAreNotKeptByTheirDecoders() throws {
        final class WeakRows: @unchecked Sendable {
            weak var unadapted: Row?
            weak var unscoped: Row?
        }
        let test = try makeDatabase()
        let weakRows = WeakRows()
        try test.dbQueue.read { db in
            let adapter = ScopeAdapter(["s": SuffixRowAdapter(fromIndex: 1)])
            let cursor = try Row.fetchCursor(db, sql: "SELECT 1 AS id, 2 AS other", adapter: adapter)
            var ids: [Int] = []
            while let row = try cursor.next() {
                let unadapted = row.unadapted
                let unscoped = row.unscoped
                ids.append(try Identified(row: unadapted).id)
                ids.append(try Identified(row: unscoped).id)
                weakRows.unadapted = unadapted
                weakRows.unscoped = unscoped
            }
            #expect(ids == [1, 1])
        }
        #expect(weakRows.unadapted == nil)
        #expect(weakRows.unscoped == nil)
    }

    /// A record that keeps its keyed container beyond its decoding (legal, if odd).
    struct Escaping: Decodable, FetchableRecord {
        nonisolated(unsafe) static var escaped: KeyedDecodingContainer<CodingKeys>?
        enum CodingKeys: String, CodingKey { case id }
        var id: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            Self.escaped = container
            id = try container.decode(Int.self, forKey: .id)
        }
    }

    /// The containers kept from one record to the next are reached without a retain: one
    /// kept beyond its decoder throws (or, for the members that can not throw, traps) instead
    /// of reading freed memory.
    @Test func keptContainersFailAfterTheirDecoder() throws {
        let test = try makeDatabase()
        let sql = "SELECT 1 AS id UNION ALL SELECT 2"
        for fetch in ["cursor", "all", "one"] {
            let ids = try test.dbQueue.read { db -> [Int] in
                switch fetch {
                case "cursor":
                    var ids: [Int] = []
                    let cursor = try Escaping.fetchCursor(db, sql: sql)
                    while let record = try cursor.next() {
                        // Within the decoding's life, the container reads the current row.
                        #expect(try Escaping.escaped?.decode(Int.self, forKey: .id) == record.id)
                        ids.append(record.id)
                    }
                    return ids
                case "all":
                    return try Escaping.fetchAll(db, sql: sql).map(\.id)
                default:
                    return try [#require(try Escaping.fetchOne(db, sql: sql)).id]
                }
            }
            #expect(ids == (fetch == "one" ? [1] : [1, 2]))
            let escaped = try #require(Escaping.escaped)
            let error = #expect(throws: RowDecodingError.self, "\(fetch)") {
                try escaped.decode(Int.self, forKey: .id)
            }
            #expect(error.map(String.init(describing:))?.contains("used after the decoding of its record ended") == true)
            Escaping.escaped = nil
        }
    }

    /// Decodes through a container of a decoder made for one use (`superDecoder()`), gone
    /// at the end of the statement: the container keeps working.
    struct ThroughSuperDecoder: Decodable, FetchableRecord {
        enum CodingKeys: String, CodingKey { case id }
        var id: Int
        init(from decoder: any Decoder) throws {
            let other = try decoder.container(keyedBy: CodingKeys.self).superDecoder().container(keyedBy: CodingKeys.self)
            id = try other.decode(Int.self, forKey: .id)
        }
    }

    /// Only the decoders a row keeps hand out containers through slots: a decoder made for one
    /// use hands out a container that outlives it. A slot given back and taken again by
    /// another fetch does not revive the containers of its earlier generation.
    @Test func containersOfDecodersMadeForOneUseOutliveThem() throws {
        let test = try makeDatabase()
        let sql = "SELECT 1 AS id UNION ALL SELECT 2"
        try test.dbQueue.read { db in
            #expect(try ThroughSuperDecoder.fetchAll(db, sql: sql).map(\.id) == [1, 2])
            let cursor = try ThroughSuperDecoder.fetchCursor(db, sql: sql)
            var ids: [Int] = []
            while let record = try cursor.next() { ids.append(record.id) }
            #expect(ids == [1, 2])

            _ = try Escaping.fetchAll(db, sql: sql)
            let escaped = try #require(Escaping.escaped)
            // The escaped container's slot is free again: another fetch takes it.
            var others: [Int] = []
            let next = try Identified.fetchCursor(db, sql: "SELECT 7 AS id UNION ALL SELECT 8")
            while let record = try next.next() {
                others.append(record.id)
                #expect(throws: RowDecodingError.self) { try escaped.decode(Int.self, forKey: .id) }
            }
            #expect(others == [7, 8])
            Escaping.escaped = nil
        }
    }

    /// A slot given back changes generation, and is taken again (by this test, or by a test
    /// running meanwhile) with its new generation and its new container.
    @Test func slotsGivenBackChangeGeneration() {
        let first = SlotTestObject(), second = SlotTestObject()
        let (slot, generation) = KeptContainerSlot.take(for: first)
        let pointsAtFirst = slot.takeUnretainedValue().container.toOpaque() == Unmanaged.passUnretained(first).toOpaque()
        #expect(pointsAtFirst)
        KeptContainerSlot.giveBack(slot)
        let after = slot.takeUnretainedValue().generation
        #expect(after != generation)
        let (again, againGeneration) = KeptContainerSlot.take(for: second)
        let pointsAtSecond = again.takeUnretainedValue().container.toOpaque() == Unmanaged.passUnretained(second).toOpaque()
        #expect(pointsAtSecond)
        let sameSlot = again.toOpaque() == slot.toOpaque()
        #expect(!sameSlot || againGeneration == after)
        KeptContainerSlot.giveBack(again)
        #expect(again.takeUnretainedValue().generation != againGeneration)
    }

    struct Identified: Decodable, FetchableRecord {
        var id: Int
    }

    @Test func rowsAreNotKeptByTheirDecoders() throws {
        let test = try makeDatabase()
        weak var weakRow: Row?
        try test.dbQueue.read { db in
            var rows: [Row]? = try Row.fetchAll(db, sql: "SELECT * FROM item")
            // The last row decoded: the one a shared decoder would still read.
            weakRow = rows!.last
            _ = try rows!.map { try Item(row: $0) }
            rows = nil
        }
        #expect(weakRow == nil)
    }
}

/// An object for a slot to point at.
final class SlotTestObject {}
