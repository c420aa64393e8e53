import Foundation
import Testing
@testable import GRDBCipher

/// `Codable` types that declare `DatabaseValueConvertible` and rely on their `Codable`
/// implementation for their database form.
@Suite("Codable database values")
struct CodableDatabaseValueTests {
    /// A keyed container: stored as JSON.
    struct Dimensions: Codable, Equatable, DatabaseValueConvertible {
        var width: Double
        var height: Double
        var label: String?
    }

    /// An unkeyed container: stored as JSON.
    struct Path: Codable, Equatable, DatabaseValueConvertible {
        var steps: [Int]
        init(steps: [Int]) { self.steps = steps }
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            var steps: [Int] = []
            while !container.isAtEnd { steps.append(try container.decode(Int.self)) }
            self.steps = steps
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for step in steps { try container.encode(step) }
        }
    }

    /// Single values: stored as the database form of the value they wrap.
    struct Deadline: Codable, Equatable, DatabaseValueConvertible {
        var date: Date
        init(date: Date) { self.date = date }
        init(from decoder: any Decoder) throws { date = try decoder.singleValueContainer().decode(Date.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(date)
        }
    }

    struct Token: Codable, Equatable, DatabaseValueConvertible {
        var id: UUID
        init(id: UUID) { self.id = id }
        init(from decoder: any Decoder) throws { id = try decoder.singleValueContainer().decode(UUID.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(id)
        }
    }

    struct Score: Codable, Equatable, DatabaseValueConvertible {
        var points: Int
        init(points: Int) { self.points = points }
        init(from decoder: any Decoder) throws { points = try decoder.singleValueContainer().decode(Int.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(points)
        }
    }

    /// A raw value and Codable: the raw value wins.
    enum Level: Int, Codable, DatabaseValueConvertible {
        case low = 1, high = 9
    }

    @Test func keyedAndUnkeyedContainersAreJSON() throws {
        let dimensions = Dimensions(width: 2.5, height: 4, label: nil)
        #expect(dimensions.databaseValue == #"{"height":4,"width":2.5}"#.databaseValue)
        #expect(Path(steps: [3, 1, 2]).databaseValue == "[3,1,2]".databaseValue)
        #expect(Dimensions.fromDatabaseValue(#"{"width":1,"height":2,"label":"A4"}"#.databaseValue) == Dimensions(width: 1, height: 2, label: "A4"))
        // JSON in a blob decodes too.
        #expect(Path.fromDatabaseValue(Data("[7]".utf8).databaseValue) == Path(steps: [7]))
        // Bad input: not JSON, JSON of another shape, another storage class, NULL.
        #expect(Dimensions.fromDatabaseValue("not json".databaseValue) == nil)
        #expect(Dimensions.fromDatabaseValue(#"{"width":1}"#.databaseValue) == nil)
        #expect(Path.fromDatabaseValue(12.databaseValue) == nil)
        #expect(Path.fromDatabaseValue(.null) == nil)
    }

    @Test func singleValuesKeepTheirDatabaseForm() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(Deadline(date: date).databaseValue == date.databaseValue)
        #expect(Deadline(date: date).databaseValue == "2023-11-14 22:13:20.000".databaseValue)
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(Token(id: uuid).databaseValue == uuid.databaseValue)
        #expect(Score(points: 42).databaseValue == 42.databaseValue)
        #expect(Deadline.fromDatabaseValue("2023-11-14 22:13:20.000".databaseValue) == Deadline(date: date))
        #expect(Token.fromDatabaseValue(uuid.databaseValue) == Token(id: uuid))
        #expect(Score.fromDatabaseValue(42.databaseValue) == Score(points: 42))
        #expect(Score.fromDatabaseValue("forty-two".databaseValue) == nil)
        #expect(Deadline.fromDatabaseValue("tomorrow".databaseValue) == nil)
        #expect(Score.fromDatabaseValue(.null) == nil)
    }

    @Test func rawValuesWin() throws {
        #expect(Level.high.databaseValue == 9.databaseValue)
        #expect(Level.fromDatabaseValue(1.databaseValue) == .low)
        #expect(Level.fromDatabaseValue(5.databaseValue) == nil)
    }

    @Test func jsonCodersHaveGRDBsSettings() throws {
        struct Stamp: Codable, DatabaseValueConvertible {
            var at: Date
            var bytes: Data
        }
        let stamp = Stamp(at: Date(timeIntervalSince1970: 1.5), bytes: Data([1, 2, 3]))
        #expect(stamp.databaseValue == #"{"at":1500,"bytes":"AQID"}"#.databaseValue)
        let decoded = Stamp.fromDatabaseValue(#"{"at":2000,"bytes":"BAU="}"#.databaseValue)
        #expect(decoded?.at == Date(timeIntervalSince1970: 2))
        #expect(decoded?.bytes == Data([4, 5]))
        #expect(Stamp.databaseJSONEncoder().outputFormatting.contains(.sortedKeys))
        #expect(throws: EncodingError.self) { try Dimensions.databaseJSONEncoder().encode(Dimensions(width: .infinity, height: 1)) }
    }

    @Test func valuesGoThroughStatementsAndRecords() throws {
        struct Room: Codable, FetchableRecord, PersistableRecord, Equatable {
            var id: Int64
            var size: Dimensions
            var level: Level
            var due: Deadline?
        }
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            try db.create(table: "room") { t in
                t.primaryKey("id", .integer)
                t.column("size", .text)
                t.column("level", .integer)
                t.column("due", .datetime)
            }
            let due = Deadline(date: Date(timeIntervalSince1970: 1_700_000_000))
            let room = Room(id: 1, size: Dimensions(width: 3, height: 4), level: .high, due: due)
            try room.insert(db)
            let row = try Row.fetchOne(db, sql: "SELECT size, level, due FROM room")!
            #expect(row["size"] as String == #"{"height":4,"width":3}"#)
            #expect(row["level"] as Int == 9)
            #expect(row["due"] as String == "2023-11-14 22:13:20.000")
            #expect(try Room.fetchOne(db) == room)
            try db.execute(sql: "INSERT INTO room VALUES (?, ?, ?, ?)", arguments: [2, Dimensions(width: 1, height: 1, label: "tiny"), Level.low, nil])
            #expect(try Dimensions.fetchAll(db, sql: "SELECT size FROM room ORDER BY id").map(\.label) == [nil, "tiny"])
            #expect(try Level.fetchOne(db, sql: "SELECT level FROM room WHERE id = 2") == .low)
            #expect(try Deadline?.fetchAll(db, sql: "SELECT due FROM room ORDER BY id") == [due, nil])
        }
    }
}
