import Foundation
import Testing
@testable import GRDBCipher

// Codable records: the coders GRDB gives to nested values (coding paths, single-value
// containers at the record's root, strategies, user info).

@Suite("Codable records")
struct CodableRecordTests {
    /// Coding keys that are plain values of 2, 4 and 8 bytes: the decoder remembers their
    /// columns by their bits (docs/UnsafeCode.md), and keys with other bits find other columns.
    @Test func plainCodingKeysOfEveryWidth() throws {
        struct Keyed<Raw: FixedWidthInteger & Sendable>: Decodable, FetchableRecord {
            struct Key: CodingKey {
                var raw: Raw
                init(_ raw: Raw) { self.raw = raw }
                init?(stringValue: String) { return nil }
                init?(intValue: Int) { return nil }
                var stringValue: String { ["id", "name", "score"][Int(raw)] }
                var intValue: Int? { nil }
            }
            var id: Int
            var name: String
            var score: Double
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                id = try container.decode(Int.self, forKey: Key(0))
                name = try container.decode(String.self, forKey: Key(1))
                score = try container.decode(Double.self, forKey: Key(2))
            }
        }
        let test = try TestDatabase()
        let sql = "SELECT 1 AS score, 'a' AS name, 10 AS id UNION ALL SELECT 2.5, 'b', 20"
        try test.dbQueue.read { (db: Database) throws in
            let narrow = try Keyed<Int16>.fetchAll(db, sql: sql)
            let middle = try Keyed<Int32>.fetchAll(db, sql: sql)
            let wide = try Keyed<Int64>.fetchAll(db, sql: sql)
            for records in [narrow.map { ($0.id, $0.name, $0.score) }, middle.map { ($0.id, $0.name, $0.score) }, wide.map { ($0.id, $0.name, $0.score) }] {
                #expect(records.map(\.0) == [10, 20])
                #expect(records.map(\.1) == ["a", "b"])
                #expect(records.map(\.2) == [1, 2.5])
            }
        }
    }

    /// A live row remembers the column of each key by the order of the lookups: a record that
    /// asks for its keys in another order than the previous one, or finds NULL where the
    /// previous one found a value, still reads the right columns, and the error names them.
    @Test func liveRowsFindKeysAskedInAnotherOrder() throws {
        struct Swapping: Decodable, FetchableRecord {
            enum CodingKeys: String, CodingKey { case kind, a, b }
            var kind: Int
            var a: Int
            var b: String
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                kind = try container.decode(Int.self, forKey: .kind)
                if kind == 0 {
                    a = try container.decode(Int.self, forKey: .a)
                    b = try container.decode(String.self, forKey: .b)
                } else {
                    b = try container.decode(String.self, forKey: .b)
                    a = try container.decode(Int.self, forKey: .a)
                }
            }
        }
        let test = try TestDatabase()
        let sql = "SELECT 0 AS kind, 1 AS a, 'x' AS b UNION ALL SELECT 1, 2, 'y' UNION ALL SELECT 1, 3, 'z' UNION ALL SELECT 0, 4, 'w'"
        try test.dbQueue.read { (db: Database) throws in
            var decoded: [String] = []
            let cursor = try Swapping.fetchCursor(db, sql: sql)
            while let record = try cursor.next() { decoded.append("\(record.kind)\(record.a)\(record.b)") }
            #expect(decoded == ["01x", "12y", "13z", "04w"])

            // The same through an adapter (a joined request's rows read the statement too).
            let adapted = try Swapping.fetchCursor(db, sql: "SELECT 9 AS pad, * FROM (\(sql))", adapter: SuffixRowAdapter(fromIndex: 1))
            decoded = []
            while let record = try adapted.next() { decoded.append("\(record.kind)\(record.a)\(record.b)") }
            #expect(decoded == ["01x", "12y", "13z", "04w"])

            // NULL where the previous records found an integer: the error names the column.
            let withNull = try Swapping.fetchCursor(db, sql: "SELECT 0 AS kind, 1 AS a, 'x' AS b UNION ALL SELECT 0, NULL, 'y'")
            #expect(try withNull.next()?.a == 1)
            do {
                _ = try withNull.next()
                Issue.record("NULL decoded as an Int")
            } catch let error as RowDecodingError {
                #expect(String(describing: error).contains("\"a\""))
            }
        }
    }

    /// A live row remembers the scope of each nested record by the order of the lookups,
    /// and tells the keys apart by their bits: two records of one type, asked for in another
    /// order than for the previous row, still come from their own scopes.
    @Test func liveRowsFindNestedRecordsAskedInAnotherOrder() throws {
        struct Team: Decodable, FetchableRecord {
            var id: Int64
            var name: String
        }
        struct Match: Decodable, FetchableRecord {
            enum CodingKeys: String, CodingKey { case kind, home, away }
            var home: Team
            var away: Team
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                if try container.decode(Int.self, forKey: .kind) == 0 {
                    home = try container.decode(Team.self, forKey: .home)
                    away = try container.decode(Team.self, forKey: .away)
                } else {
                    away = try container.decode(Team.self, forKey: .away)
                    home = try container.decode(Team.self, forKey: .home)
                }
            }
        }
        let test = try TestDatabase()
        let sql = """
            SELECT 0 AS kind, 1 AS id, 'h1' AS name, 2 AS id, 'a1' AS name
            UNION ALL SELECT 1, 3, 'h2', 4, 'a2'
            UNION ALL SELECT 1, 5, 'h3', 6, 'a3'
            UNION ALL SELECT 0, 7, 'h4', 8, 'a4'
            """
        let adapter = ScopeAdapter(["home": RangeRowAdapter(1..<3), "away": RangeRowAdapter(3..<5)])
        try test.dbQueue.read { (db: Database) throws in
            var decoded: [String] = []
            let cursor = try Match.fetchCursor(db, sql: sql, adapter: adapter)
            while let match = try cursor.next() {
                decoded.append("\(match.home.id)\(match.home.name) \(match.away.id)\(match.away.name)")
            }
            #expect(decoded == ["1h1 2a1", "3h2 4a2", "5h3 6a3", "7h4 8a4"])
        }
    }

    /// Nested records of a live row decode with their own `init(row:)` at every row, when
    /// they have one, and with their `Decodable` implementation otherwise: from a scope and
    /// from the row's own columns, through a cursor and `fetchAll` (after the first row, the
    /// decoder goes straight to the record's `init(from:)` only for a type whose
    /// `init(row:)` is the default one).
    @Test func liveRowsDecodeNestedRecordsWithTheirOwnInitRow() throws {
        struct Plain: Decodable, FetchableRecord {
            var id: Int64
            var name: String
        }
        struct Custom: Decodable, FetchableRecord {
            var id: Int64
            var name: String
            init(from decoder: any Decoder) throws {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "init(row:) decodes Custom"))
            }
            init(row: Row) throws {
                id = row["id"]
                name = "custom " + (row["name"] as String)
            }
        }
        struct Pair: Decodable, FetchableRecord {
            var plain: Plain
            var custom: Custom
        }
        struct OwnColumns: Decodable, FetchableRecord {
            var item: Custom
        }
        struct OwnPlainColumns: Decodable, FetchableRecord {
            var item: Plain
        }
        /// A record decoded by generic code that knows it is `Decodable`: still its own
        /// `init(row:)`.
        func decodeGenerically<R: FetchableRecord & Decodable>(_ type: R.Type, _ row: Row) throws -> R {
            try R(row: row)
        }
        let test = try TestDatabase()
        let sql = "SELECT 1 AS id, 'a' AS name, 2 AS id, 'b' AS name UNION ALL SELECT 3, 'c', 4, 'd' UNION ALL SELECT 5, 'e', 6, 'f'"
        let adapter = ScopeAdapter(["plain": RangeRowAdapter(0..<2), "custom": RangeRowAdapter(2..<4)])
        try test.dbQueue.read { (db: Database) throws in
            let expected = ["1a 2custom b", "3c 4custom d", "5e 6custom f"]
            var decoded: [String] = []
            let cursor = try Pair.fetchCursor(db, sql: sql, adapter: adapter)
            while let pair = try cursor.next() {
                decoded.append("\(pair.plain.id)\(pair.plain.name) \(pair.custom.id)\(pair.custom.name)")
            }
            #expect(decoded == expected)
            let all = try Pair.fetchAll(db, sql: sql, adapter: adapter)
            #expect(all.map { "\($0.plain.id)\($0.plain.name) \($0.custom.id)\($0.custom.name)" } == expected)

            let items = try OwnColumns.fetchAll(db, sql: "SELECT 1 AS id, 'a' AS name UNION ALL SELECT 2, 'b' UNION ALL SELECT 3, 'c'")
            #expect(items.map(\.item.name) == ["custom a", "custom b", "custom c"])
            let plainItems = try OwnPlainColumns.fetchAll(db, sql: "SELECT 1 AS id, 'a' AS name UNION ALL SELECT 2, 'b' UNION ALL SELECT 3, 'c'")
            #expect(plainItems.map(\.item.name) == ["a", "b", "c"])

            // Generic code that calls `init(row:)` on the live scope first, then the pair
            // decoded from the same live row.
            var viaBoth: [String] = []
            let rows = try Row.fetchCursor(db, sql: sql, adapter: adapter)
            while let row = try rows.next() {
                let scope = try #require(row.scopes["custom"])
                let custom = try decodeGenerically(Custom.self, scope)
                let pair = try Pair(row: row)
                viaBoth.append("\(custom.name) \(pair.custom.name)")
            }
            #expect(viaBoth == ["custom b custom b", "custom d custom d", "custom f custom f"])
        }
    }

    // MARK: Coding paths (REC-1)

    /// A value stored in one column as text; remembers the coding path it was decoded with.
    struct Flavor: Codable {
        var name: String
        var decodedPath: [String] = []

        init(name: String) { self.name = name }

        init(from decoder: any Decoder) throws {
            name = try decoder.singleValueContainer().decode(String.self)
            decodedPath = decoder.codingPath.map(\.stringValue)
        }

        /// Stores the path next to the name, so that the test sees it in the column.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(encoder.codingPath.map(\.stringValue).joined(separator: ".") + ":" + name)
        }
    }

    /// A value stored as JSON; remembers the coding path it was decoded with.
    struct Recipe: Codable {
        var steps: Int
        var decodedPath: [String] = []

        enum CodingKeys: String, CodingKey { case steps, path }

        init(steps: Int) { self.steps = steps }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            steps = try container.decode(Int.self, forKey: .steps)
            decodedPath = decoder.codingPath.map(\.stringValue)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(steps, forKey: .steps)
            try container.encode(encoder.codingPath.map(\.stringValue), forKey: .path)
        }
    }

    /// A value decoded from a scope with a keyed container (not a FetchableRecord).
    struct Bakery: Decodable {
        var city: String
        var decodedPath: [String]

        enum CodingKeys: String, CodingKey { case city }

        init(from decoder: any Decoder) throws {
            city = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .city)
            decodedPath = decoder.codingPath.map(\.stringValue)
        }
    }

    struct Cake: Codable, FetchableRecord, PersistableRecord {
        var flavor: Flavor
        var recipe: Recipe
    }

    struct CakeWithBakery: Decodable, FetchableRecord {
        var flavor: Flavor
        var bakery: Bakery
    }

    @Test func nestedDecodersHaveTheKeyInTheirCodingPath() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let cake = try #require(try Cake.fetchOne(db, sql: #"SELECT 'lemon' AS flavor, '{"steps":3}' AS recipe"#))
            #expect(cake.flavor.name == "lemon")
            #expect(cake.flavor.decodedPath == ["flavor"])
            // JSON goes through a JSONDecoder: a new path.
            #expect(cake.recipe.steps == 3)
            #expect(cake.recipe.decodedPath == [])

            // A scope decodes with the scope's key.
            let adapter = ScopeAdapter(["bakery": SuffixRowAdapter(fromIndex: 1)])
            let sql = "SELECT 'plum' AS flavor, 'Lyon' AS city"
            let withBakery = try #require(try CakeWithBakery.fetchOne(db, sql: sql, adapter: adapter))
            #expect(withBakery.bakery.city == "Lyon")
            #expect(withBakery.bakery.decodedPath == ["bakery"])
            #expect(withBakery.flavor.decodedPath == ["flavor"])
        }
    }

    @Test func nestedEncodersHaveTheKeyInTheirCodingPath() throws {
        let container = try PersistenceContainer(Cake(flavor: Flavor(name: "mint"), recipe: Recipe(steps: 2)))
        #expect(container["flavor"] as? String == "flavor:mint")
        // JSON goes through a JSONEncoder: a new path.
        #expect(container["recipe"] as? String == #"{"path":[],"steps":2}"#)
    }

    // MARK: Single-value container at the root (REC-2)

    struct Model: Codable, Equatable {
        var name: String
        var score: Int
    }

    /// A record that wraps a model: the model's columns are the record's.
    struct Wrapper: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "item"
        var model: Model
        var extra: String

        enum CodingKeys: String, CodingKey { case extra }

        init(model: Model, extra: String) {
            self.model = model
            self.extra = extra
        }

        init(from decoder: any Decoder) throws {
            let keyed = try decoder.container(keyedBy: CodingKeys.self)
            extra = try keyed.decode(String.self, forKey: .extra)
            model = try decoder.singleValueContainer().decode(Model.self)
        }

        func encode(to encoder: any Encoder) throws {
            var single = encoder.singleValueContainer()
            try single.encode(model)
            var keyed = encoder.container(keyedBy: CodingKeys.self)
            try keyed.encode(extra, forKey: .extra)
        }
    }

    /// A model that is a record itself: its `init(row:)` and `encode(to:)` are the ones used.
    struct RecordModel: Codable, FetchableRecord, EncodableRecord, Equatable {
        var name: String
        var viaRecordMethods = false

        init(name: String) { self.name = name }

        init(row: Row) {
            name = row["name"]
            viaRecordMethods = true
        }

        func encode(to container: inout PersistenceContainer) {
            container["name"] = name.uppercased()
            container["score"] = 0
        }
    }

    struct RecordWrapper: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "item"
        var model: RecordModel
        var extra: String

        enum CodingKeys: String, CodingKey { case extra }

        init(model: RecordModel, extra: String) {
            self.model = model
            self.extra = extra
        }

        init(from decoder: any Decoder) throws {
            model = try decoder.singleValueContainer().decode(RecordModel.self)
            extra = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .extra)
        }

        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: CodingKeys.self)
            try keyed.encode(extra, forKey: .extra)
            var single = encoder.singleValueContainer()
            try single.encode(model)
        }
    }

    static let itemSchema = "CREATE TABLE item (name TEXT NOT NULL, score INTEGER NOT NULL, extra TEXT NOT NULL)"

    @Test func rootSingleValueContainerFlattensAWrappedModel() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try db.execute(sql: Self.itemSchema)
            recorder.record(db)
            try Wrapper(model: Model(name: "kite", score: 12), extra: "red").insert(db)
            try RecordWrapper(model: RecordModel(name: "yoyo"), extra: "blue").insert(db)
            let wrappers = try Wrapper.fetchAll(db, sql: "SELECT * FROM item ORDER BY rowid")
            #expect(wrappers.map(\.model) == [Model(name: "kite", score: 12), Model(name: "YOYO", score: 0)])
            #expect(wrappers.map(\.extra) == ["red", "blue"])
            let recordWrapper = try #require(try RecordWrapper.fetchOne(db, sql: "SELECT * FROM item WHERE extra = 'red'"))
            #expect(recordWrapper.model.name == "kite")
            #expect(recordWrapper.model.viaRecordMethods)
            #expect(recordWrapper.extra == "red")
        }
        #expect(recorder.dataSQL.prefix(2) == [
            "INSERT INTO \"item\" (\"name\", \"score\", \"extra\") VALUES (?,?,?)",
            "INSERT INTO \"item\" (\"extra\", \"name\", \"score\") VALUES (?,?,?)",
        ])
    }

    /// Encodes its one value into the root single-value container.
    struct SingleValueRecord<Value: Encodable>: Encodable, EncodableRecord {
        var value: Value
        func encode(to encoder: any Encoder) throws {
            var single = encoder.singleValueContainer()
            try single.encode(value)
        }
    }

    /// Asks for an unkeyed container.
    struct UnkeyedRecord: Encodable, EncodableRecord {
        var encodesValue: Bool
        func encode(to encoder: any Encoder) throws {
            var unkeyed = encoder.unkeyedContainer()
            if encodesValue { try unkeyed.encode(1) }
        }
    }

    /// Decodes a plain value from the root single-value container.
    struct SingleStringRecord: Decodable, FetchableRecord {
        var value: String
        init(from decoder: any Decoder) throws {
            value = try decoder.singleValueContainer().decode(String.self)
        }
    }

    @Test func misusedRootContainersThrow() throws {
        // A single database value is not a set of columns.
        #expect(throws: EncodingError.self) { _ = try PersistenceContainer(SingleValueRecord(value: 3)) }
        #expect(throws: EncodingError.self) { _ = try PersistenceContainer(SingleValueRecord(value: Date())) }
        #expect(throws: EncodingError.self) { _ = try PersistenceContainer(SingleValueRecord(value: nil as Int?)) }
        // A row has no unkeyed form, whether something is encoded in it or not.
        #expect(throws: EncodingError.self) { _ = try PersistenceContainer(UnkeyedRecord(encodesValue: true)) }
        #expect(throws: EncodingError.self) { _ = try PersistenceContainer(UnkeyedRecord(encodesValue: false)) }

        let test = try TestDatabase()
        _ = try test.dbQueue.read { db in
            #expect(throws: DecodingError.self) { _ = try SingleStringRecord.fetchOne(db, sql: "SELECT 'a' AS value") }
        }
    }

    // MARK: Strategies for nested single values (REC-3)

    /// A date wrapped in a single-value type.
    struct Moment: Codable, Equatable {
        var date: Date
        init(date: Date) { self.date = date }
        init(from decoder: any Decoder) throws {
            date = try decoder.singleValueContainer().decode(Date.self)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(date)
        }
    }

    /// Data wrapped in a single-value type.
    struct Payload: Codable, Equatable {
        var data: Data
        init(data: Data) { self.data = data }
        init(from decoder: any Decoder) throws {
            data = try decoder.singleValueContainer().decode(Data.self)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(data)
        }
    }

    struct Delivery: Codable, FetchableRecord, PersistableRecord {
        var start: Moment
        var end: Moment
        var payload: Payload

        static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
            column == "start" ? .timeIntervalSince1970 : .deferredToDate
        }

        static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
            column == "start" ? .timeIntervalSince1970 : .deferredToDate
        }

        static func databaseDataDecodingStrategy(for column: String) -> DatabaseDataDecodingStrategy {
            .custom { dbValue in String.fromDatabaseValue(dbValue).map { Data(String($0.reversed()).utf8) } }
        }

        static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy {
            .text
        }
    }

    @Test func strategiesApplyToNestedSingleValues() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let delivery = try #require(try Delivery.fetchOne(db, sql: "SELECT 86400 AS start, '1970-01-03 00:00:00' AS \"end\", 'cba' AS payload"))
            #expect(delivery.start.date == Date(timeIntervalSince1970: 86400))
            #expect(delivery.end.date == Date(timeIntervalSince1970: 2 * 86400))
            #expect(delivery.payload.data == Data("abc".utf8))
            // Text that is no date for the strategy of its column is an error.
            #expect(throws: DecodingError.self) {
                _ = try Delivery.fetchOne(db, sql: "SELECT 'soon' AS start, '1970-01-03 00:00:00' AS \"end\", 'x' AS payload")
            }
        }
        let container = try PersistenceContainer(Delivery(
            start: Moment(date: Date(timeIntervalSince1970: 60)),
            end: Moment(date: Date(timeIntervalSince1970: 0)),
            payload: Payload(data: Data("xyz".utf8))))
        #expect(container["start"] as? Double == 60)
        #expect(container["end"] as? String == "1970-01-01 00:00:00.000")
        #expect(container["payload"] as? String == "xyz")
    }

    // MARK: FetchableRecordDecoder

    /// A record whose init(row:) post-processes its Decodable decoding.
    struct TrimmedName: Decodable, FetchableRecord {
        var name: String
        var when: Date

        static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }

        init(row: Row) throws {
            self = try FetchableRecordDecoder().decode(TrimmedName.self, from: row)
            name = name.trimmingCharacters(in: .whitespaces)
        }
    }

    @Test func fetchableRecordDecoderUsesTheDecodableImplementation() throws {
        let test = try TestDatabase()
        _ = try test.dbQueue.read { db in
            let record = try #require(try TrimmedName.fetchOne(db, sql: "SELECT '  Ada  ' AS name, 60 AS \"when\""))
            #expect(record.name == "Ada")
            #expect(record.when == Date(timeIntervalSince1970: 60))
            let row = try #require(try Row.fetchOne(db, sql: "SELECT 'Bo' AS name, 0 AS \"when\""))
            #expect(try FetchableRecordDecoder().decode(TrimmedName.self, from: row).name == "Bo")
            // A missing column.
            #expect(throws: RowDecodingError.self) { _ = try TrimmedName.fetchOne(db, sql: "SELECT 'Cy' AS name") }
        }
    }

    // MARK: User info (REC-4)

    /// A value the user info carries: not Sendable-checked, not a bit-castable size.
    final class Unit: @unchecked Sendable {
        let suffix: String
        init(suffix: String) { self.suffix = suffix }
    }

    static let unitKey = CodingUserInfoKey(rawValue: "unit")!

    /// Decodes and encodes as JSON, with the unit of the user info.
    struct Measure: Codable {
        var text: String

        enum CodingKeys: String, CodingKey { case value }

        init(text: String) { self.text = text }

        init(from decoder: any Decoder) throws {
            let unit = decoder.userInfo[CodableRecordTests.unitKey] as? Unit
            let value = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .value)
            text = "\(value)\(unit?.suffix ?? "?")"
        }

        func encode(to encoder: any Encoder) throws {
            let unit = encoder.userInfo[CodableRecordTests.unitKey] as? Unit
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(Int(text.dropLast((unit?.suffix ?? "").count)), forKey: .value)
        }
    }

    struct Parcel: Codable, FetchableRecord, PersistableRecord {
        var weight: Measure
        static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] {
            [CodableRecordTests.unitKey: Unit(suffix: "kg"), CodingUserInfoKey(rawValue: "tuple")!: (1, "two", 3.0)]
        }
        static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] {
            [CodableRecordTests.unitKey: Unit(suffix: "g"), CodingUserInfoKey(rawValue: "tuple")!: (1, "two", 3.0)]
        }
    }

    @Test func userInfoReachesTheJSONCoders() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let parcel = try #require(try Parcel.fetchOne(db, sql: #"SELECT '{"value":12}' AS weight"#))
            #expect(parcel.weight.text == "12kg")
        }
        let container = try PersistenceContainer(Parcel(weight: Measure(text: "250g")))
        #expect(container["weight"] as? String == #"{"value":250}"#)
        let tupleKey = try #require(CodingUserInfoKey(rawValue: "tuple"))
        #expect(Parcel.databaseJSONDecoder(for: "weight").userInfo[tupleKey] != nil)
        #expect(Parcel.databaseJSONEncoder(for: "weight").userInfo[tupleKey] != nil)
    }

    // MARK: Encoders kept by each thread

    /// A record that, while it encodes, encodes another record of its own type.
    struct Russian: Encodable, EncodableRecord {
        var name: String
        var inner: [Russian] = []
        enum CodingKeys: String, CodingKey { case name, innerColumns }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            if let first = inner.first {
                // Another record of the same type, encoded meanwhile on the same thread.
                let columns = try PersistenceContainer(first).columnNames.joined(separator: ",")
                try container.encode(columns + "=" + (try PersistenceContainer(first)["name"] as? String ?? "?"), forKey: .innerColumns)
            }
        }
    }

    /// Encoders are reused from one record to the next of the same type, on each thread: a
    /// record encoded while another of its type encodes gets its own encoder, an error does
    /// not stay with the encoder, the column strategy is read for each record, an encoder lent
    /// out as a super encoder serves no other record, and records encoded on several threads
    /// at once keep their own values. (The checks of kept encoders run on a new thread, whose
    /// cache starts empty: the test's own thread may keep the encoders of other types.)
    @Test func keptEncodersEncodeEachRecordOnItsOwn() throws {
        let seen = try onNewThread { () throws -> [String] in
            var seen: [String] = []
            let outer = try PersistenceContainer(Russian(name: "outer", inner: [Russian(name: "inner")]))
            seen.append(outer.columnNames.joined(separator: ","))
            seen.append("\(outer["name"] as? String ?? "?") \(outer["innerColumns"] as? String ?? "?")")
            seen.append(try PersistenceContainer(Russian(name: "next"))["name"] as? String ?? "?")

            // A failed encoding (an unkeyed container) leaves no error behind for the next record.
            do {
                _ = try PersistenceContainer(Sometimes(unkeyed: true, value: 1))
                seen.append("no error")
            } catch is EncodingError {
                seen.append("error")
            }
            seen.append("\(try PersistenceContainer(Sometimes(unkeyed: false, value: 2))["value"] as? Int64 ?? 0)")

            // The strategy is read for each record.
            Switching.snakeCase = false
            seen.append(try PersistenceContainer(Switching(playerName: "x")).columnNames.joined())
            Switching.snakeCase = true
            seen.append(try PersistenceContainer(Switching(playerName: "x")).columnNames.joined())

            // A super encoder kept after its record: writing with it does not reach the next
            // record of the type.
            seen.append(try PersistenceContainer(Lending(name: "a")).columnNames.joined(separator: ","))
            seen.append(try PersistenceContainer(Lending(name: "b")).columnNames.joined(separator: ","))
            return seen
        }
        #expect(seen == [
            "name,innerColumns", "outer name=inner", "next",
            "error", "2",
            "playerName", "player_name",
            "name", "name",
        ])

        // Many record types on one thread: the encoders beyond those a thread keeps work too.
        struct Typed<Tag>: Encodable, EncodableRecord { var value: Int }
        enum T0 {}; enum T1 {}; enum T2 {}; enum T3 {}; enum T4 {}; enum T5 {}; enum T6 {}; enum T7 {}; enum T8 {}; enum T9 {}
        let values: [Int64?] = try [
            PersistenceContainer(Typed<T0>(value: 0))["value"], PersistenceContainer(Typed<T1>(value: 1))["value"],
            PersistenceContainer(Typed<T2>(value: 2))["value"], PersistenceContainer(Typed<T3>(value: 3))["value"],
            PersistenceContainer(Typed<T4>(value: 4))["value"], PersistenceContainer(Typed<T5>(value: 5))["value"],
            PersistenceContainer(Typed<T6>(value: 6))["value"], PersistenceContainer(Typed<T7>(value: 7))["value"],
            PersistenceContainer(Typed<T8>(value: 8))["value"], PersistenceContainer(Typed<T9>(value: 9))["value"],
            PersistenceContainer(Typed<T9>(value: 10))["value"],
        ].map { $0 as? Int64 }
        #expect(values == (0...10).map { Int64($0) })

        // Several threads at once.
        let failures = LockedValue(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<500 {
                let name = "\(thread)-\(index)"
                guard let container = try? PersistenceContainer(Russian(name: name)),
                      container["name"] as? String == name, container.count == 1
                else {
                    failures.update { $0 += 1 }
                    continue
                }
            }
        }
        #expect(failures.read() == 0)
    }

    /// The library holds each encoder's `any Encoder` unretained (made once per encoder, not
    /// at each record): a record that keeps the encoder it was given holds a strong reference,
    /// and the encoder outlives its record and the library's use of it.
    @Test func encodersKeptByTheirRecordsOutliveTheirRecords() throws {
        let result = try onNewThread { () throws -> (String, Int, [String]) in
            defer { KeepingEncoder.kept = nil }
            let container = try PersistenceContainer(KeepingEncoder(depth: 0))
            let kept = try #require(KeepingEncoder.kept)
            return (container.columnNames.joined(separator: ","), (container["inner"] as? Int64).map(Int.init) ?? -1, kept.codingPath.map(\.stringValue))
        }
        #expect(result.0 == "depth,inner")
        #expect(result.1 == 1)
        #expect(result.2 == [])
    }
}

/// A record that keeps the encoder its `encode(to:)` gets. The inner one is encoded while the
/// outer one encodes: its encoder is not kept by the thread, and the library lets it go after
/// the record.
struct KeepingEncoder: Encodable, EncodableRecord {
    nonisolated(unsafe) static var kept: (any Encoder)?
    var depth: Int
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DatabaseRecordKeyForTests.self)
        try container.encode(depth, forKey: DatabaseRecordKeyForTests("depth"))
        if depth == 0 {
            let inner = try PersistenceContainer(KeepingEncoder(depth: 1))
            try container.encode(inner["depth"] as? Int64 ?? -1, forKey: DatabaseRecordKeyForTests("inner"))
        } else {
            KeepingEncoder.kept = encoder
        }
    }
}

/// Encodes a keyed container, or asks for an unkeyed one (which fails the encoding).
struct Sometimes: Encodable, EncodableRecord {
    var unkeyed: Bool
    var value: Int
    func encode(to encoder: any Encoder) throws {
        if unkeyed { _ = encoder.unkeyedContainer(); return }
        var container = encoder.container(keyedBy: DatabaseRecordKeyForTests.self)
        try container.encode(value, forKey: DatabaseRecordKeyForTests("value"))
    }
}

/// A record whose column strategy changes.
struct Switching: Encodable, EncodableRecord {
    nonisolated(unsafe) static var snakeCase = false
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy {
        snakeCase ? .convertToSnakeCase : .useDefaultKeys
    }
    var playerName: String
}

/// A record that keeps the super encoder of its first encoding, and writes with it while the
/// next record encodes.
struct Lending: Encodable, EncodableRecord {
    nonisolated(unsafe) static var kept: (any Encoder)?
    var name: String
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DatabaseRecordKeyForTests.self)
        try container.encode(name, forKey: DatabaseRecordKeyForTests("name"))
        if let kept = Lending.kept {
            var intruder = kept.container(keyedBy: DatabaseRecordKeyForTests.self)
            try intruder.encode("x", forKey: DatabaseRecordKeyForTests("intruder"))
        } else {
            Lending.kept = container.superEncoder()
        }
    }
}

/// A coding key made of any string.
struct DatabaseRecordKeyForTests: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
