import Foundation
import Testing
@testable import GRDBCipher

/// A value stored as JSON, whose dates use ISO 8601 text instead of the default milliseconds.
private struct Trip: Codable, Equatable, DatabaseValueConvertible {
    var stops: [Date]

    static func databaseJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    static func databaseJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

private enum Shade: Int, DatabaseValueConvertible {
    case light = 3, dark = 7
}

@Suite("Values: conversions added for GRDB parity")
struct DatabaseValueParityTests {
    @Test func integersDeclareTheirDatabaseValue() {
        #expect(Int(-12).databaseValue.storage == .int64(-12))
        #expect(Int8(-7).databaseValue.storage == .int64(-7))
        #expect(Int16.max.databaseValue.storage == .int64(Int64(Int16.max)))
        #expect(Int32.min.databaseValue.storage == .int64(Int64(Int32.min)))
        #expect(Int64.max.databaseValue.storage == .int64(.max))
        #expect(UInt8(200).databaseValue.storage == .int64(200))
        #expect(UInt16(65000).databaseValue.storage == .int64(65000))
        #expect(UInt32.max.databaseValue.storage == .int64(Int64(UInt32.max)))
        #expect(UInt(5).databaseValue.storage == .int64(5))
        // Above Int64.max: stored as REAL.
        #expect(UInt64.max.databaseValue.storage == .double(Double(UInt64.max)))
    }

    @Test func storageValue() {
        #expect(DatabaseValue.null.storage.value == nil)
        #expect(5.databaseValue.storage.value as? Int64 == 5)
        #expect(2.5.databaseValue.storage.value as? Double == 2.5)
        #expect("kiwi".databaseValue.storage.value as? String == "kiwi")
        #expect(Data([9, 8]).databaseValue.storage.value as? Data == Data([9, 8]))
    }

    @Test func databaseValueHashesLikeItCompares() {
        let values: Set<DatabaseValue> = [1.databaseValue, 1.0.databaseValue, "1".databaseValue, .null]
        #expect(values.count == 3) // 1 and 1.0 are equal
        #expect(1.databaseValue.hashValue == 1.0.databaseValue.hashValue)
    }

    @Test func rawRepresentableBindsItsRawValue() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            let statement = try db.makeStatement(sql: "SELECT ? + 1")
            let code = Shade.dark.bind(to: statement.sqliteStatement, at: 1)
            #expect(code == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT ? * 2", arguments: [Shade.light]) == 6)
            #expect(try Shade.fetchOne(db, sql: "SELECT 7") == .dark)
            #expect(throws: RowDecodingError.self) { try Shade.fetchOne(db, sql: "SELECT 4") }
        }
    }

    @Test func customJSONCoders() throws {
        let trip = Trip(stops: [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 86400)])
        #expect(trip.databaseValue == #"{"stops":["1970-01-01T00:00:00Z","1970-01-02T00:00:00Z"]}"#.databaseValue)
        #expect(Trip.fromDatabaseValue(trip.databaseValue) == trip)
        // Milliseconds, the default format, no longer decode.
        #expect(Trip.fromDatabaseValue(#"{"stops":[0]}"#.databaseValue) == nil)
        // The default coders of other types are unchanged.
        #expect(String(decoding: try Shade.databaseJSONEncoder().encode([Date(timeIntervalSince1970: 1)]), as: UTF8.self) == "[1000]")
    }

    @Test func julianDay() throws {
        #expect(Date(julianDay: 2_440_587.5) == Date(timeIntervalSince1970: 0))
        #expect(Date(julianDay: 2_440_588.0) == Date(timeIntervalSince1970: 43_200))
        #expect(Date(julianDay: .nan) == nil)
        #expect(Date(julianDay: .infinity) == nil)
        #expect(Date(julianDay: -1) == nil)
        #expect(Date(julianDay: 6_000_000) == nil)
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let day = try #require(try Double.fetchOne(db, sql: "SELECT julianday('2024-03-01 12:34:56.789')"))
            let date = try #require(Date(julianDay: day))
            #expect(date.databaseValue == "2024-03-01 12:34:56.789".databaseValue)
        }
    }

    @Test func datesDecimalsAndComponentsReadStraightFromStatements() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let sql = "SELECT '2001-02-03 04:05:06.500' UNION ALL SELECT 60 UNION ALL SELECT 1.5"
            #expect(try Date.fetchAll(db, sql: sql) == [
                Date(timeIntervalSince1970: 981_173_106.5),
                Date(timeIntervalSince1970: 60),
                Date(timeIntervalSince1970: 1.5),
            ])
            // Bad input: a blob, or text that is not a date.
            #expect(throws: (any Error).self) { try Date.fetchOne(db, sql: "SELECT x'00'") }
            #expect(throws: (any Error).self) { try Date.fetchOne(db, sql: "SELECT 'soon'") }

            #expect(try Decimal.fetchAll(db, sql: "SELECT '12.345' UNION ALL SELECT 7 UNION ALL SELECT 0.5")
                == [Decimal(string: "12.345")!, 7, Decimal(string: "0.5")!])
            #expect(throws: (any Error).self) { try Decimal.fetchOne(db, sql: "SELECT 'twelve'") }

            let components = try #require(try DatabaseDateComponents.fetchOne(db, sql: "SELECT '10:20:30'"))
            #expect(components.format == .HMS)
            #expect(components.dateComponents.hour == 10 && components.dateComponents.second == 30)
            #expect(throws: (any Error).self) { try DatabaseDateComponents.fetchOne(db, sql: "SELECT 1020") }

            // A live row reads through the same conversions.
            let cursor = try Row.fetchCursor(db, sql: "SELECT '1999-12-31' AS d, '3.25' AS n")
            let row = try #require(try cursor.next())
            #expect(row["d"] as Date == Date(timeIntervalSince1970: 946_598_400))
            #expect(row["n"] as Decimal == Decimal(string: "3.25")!)
        }
    }

    @Test func dateComponentsAreCodableAsTheirDatabaseText() throws {
        let components = DatabaseDateComponents(DateComponents(year: 2023, month: 7, day: 14, hour: 8, minute: 5), format: .YMD_HM)
        let json = try JSONEncoder().encode([components])
        #expect(String(decoding: json, as: UTF8.self) == #"["2023-07-14 08:05"]"#)
        let decoded = try JSONDecoder().decode([DatabaseDateComponents].self, from: json)
        #expect(decoded == [components])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([DatabaseDateComponents].self, from: Data(#"["July 14"]"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([DatabaseDateComponents].self, from: Data("[42]".utf8))
        }
    }

    @Test func cursorsDeclareTheirElementAndDropFirst() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let names = try String.fetchCursor(db, sql: "SELECT 'a' UNION ALL SELECT 'b' UNION ALL SELECT 'c'")
            #expect(try Array(names.dropFirst()) == ["b", "c"])
            let rows: RowCursor = try Row.fetchCursor(db, sql: "SELECT 1 UNION ALL SELECT 2")
            var seen: [RowCursor.Element] = []
            try rows.forEach { seen.append($0.copy()) }
            #expect(seen.map { $0[0] as Int } == [1, 2])
            let ints: FastDatabaseValueCursor<Int>.Element = 0
            let values: DatabaseValueCursor<Shade>.Element = .light
            #expect(ints == 0 && values == .light)
            // A failed step throws from next() and forEach alike.
            let failing = try Int.fetchCursor(db, sql: "SELECT json_extract('{', '$')")
            #expect(throws: DatabaseError.self) { try failing.forEach { _ in } }
        }
    }
}
