import Foundation
import Testing
@testable import GRDBCipher

@Suite("DatabaseValue and value conversions")
struct DatabaseValueConvertibleTests {
    /// Stores `value`, reads it back as `T`, and returns it with the stored SQL type.
    private func roundTrip<T: DatabaseValueConvertible>(_ value: T, as type: T.Type = T.self) throws -> (T?, String) {
        let test = try TestDatabase()
        return try test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE t(v)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value])
            let read = try T.fetchOne(db, sql: "SELECT v FROM t")
            let storage = try String.fetchOne(db, sql: "SELECT typeof(v) FROM t")!
            return (read, storage)
        }
    }

    @Test func databaseValueStorage() {
        #expect(DatabaseValue.null.isNull)
        #expect(1.databaseValue.storage == .int64(1))
        #expect(1.5.databaseValue.storage == .double(1.5))
        #expect("a".databaseValue.storage == .string("a"))
        #expect(Data([1]).databaseValue.storage == .blob(Data([1])))
        // Integers and reals compare numerically, and hash alike.
        #expect(1.databaseValue == 1.0.databaseValue)
        #expect(Set([1.databaseValue, 1.0.databaseValue]).count == 1)
        #expect(1.databaseValue != "1".databaseValue)
        #expect(DatabaseValue(value: 1) == 1.databaseValue)
        #expect(DatabaseValue(value: NSNull()) == .null)
        #expect(DatabaseValue(value: NSObject()) == nil)
        #expect("a\"b".databaseValue.description == "\"a\\\"b\"")
        #expect(DatabaseValue.null.description == "NULL")
    }

    @Test func integersOfEveryWidth() throws {
        #expect(try roundTrip(Int.max) == (Int.max, "integer"))
        #expect(try roundTrip(Int8.min) == (Int8.min, "integer"))
        #expect(try roundTrip(Int16(-3)) == (-3, "integer"))
        #expect(try roundTrip(Int32.max) == (Int32.max, "integer"))
        #expect(try roundTrip(Int64.min) == (Int64.min, "integer"))
        #expect(try roundTrip(UInt(7)) == (7, "integer"))
        #expect(try roundTrip(UInt8.max) == (UInt8.max, "integer"))
        #expect(try roundTrip(UInt16.max) == (UInt16.max, "integer"))
        #expect(try roundTrip(UInt32.max) == (UInt32.max, "integer"))
        #expect(try roundTrip(UInt64(Int64.max)) == (UInt64(Int64.max), "integer"))
    }

    @Test func integerOverflowThrows() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            #expect(throws: RowDecodingError.self) { try Int8.fetchOne(db, sql: "SELECT 300") }
            #expect(throws: RowDecodingError.self) { try UInt8.fetchAll(db, sql: "SELECT -1") }
            #expect(throws: RowDecodingError.self) { try Int32.fetchOne(db, sql: "SELECT 4294967296") }
            #expect(throws: RowDecodingError.self) { try UInt.fetchOne(db, sql: "SELECT -5") }
            #expect(try Int.fetchOne(db, sql: "SELECT 2.0") == 2)
            #expect(Int8.fromDatabaseValue(300.databaseValue) == nil)
            #expect(Int16.fromDatabaseValue(300.databaseValue) == 300)
        }
    }

    @Test func conversionErrorsNameTheColumnAndType() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            do {
                _ = try UUID.fetchAll(db, sql: "SELECT 'secret-text' AS code")
                Issue.record("expected an error")
            } catch let error as RowDecodingError {
                #expect(error.description.contains("could not decode UUID from database value of type TEXT"))
                #expect(error.description.contains("column: \"code\""))
                #expect(!error.description.contains("secret-text"))
            }
            #expect(throws: RowDecodingError.self) { try String.fetchAll(db, sql: "SELECT NULL") }
            #expect(try String?.fetchAll(db, sql: "SELECT NULL UNION ALL SELECT 'a'") == [nil, "a"])
            #expect(try String.fetchOne(db, sql: "SELECT NULL") == nil)
            #expect(try String.fetchOne(db, sql: "SELECT 1 WHERE 0") == nil)
        }
    }

    @Test func boolDoubleFloatStringData() throws {
        #expect(try roundTrip(true) == (true, "integer"))
        #expect(try roundTrip(false) == (false, "integer"))
        #expect(try roundTrip(1.25) == (1.25, "real"))
        #expect(try roundTrip(Float(0.5)) == (0.5, "real"))
        #expect(try roundTrip("héllo") == ("héllo", "text"))
        #expect(try roundTrip("a\0b") == ("a\0b", "text"))
        #expect(try roundTrip("") == ("", "text"))
        #expect(try roundTrip(Data([0, 1, 2])) == (Data([0, 1, 2]), "blob"))
        #expect(try roundTrip(Data()) == (Data(), "blob"))
        #expect(Double.fromDatabaseValue(2.databaseValue) == 2.0)
        #expect(Bool.fromDatabaseValue(2.databaseValue) == true)
        #expect(String.fromDatabaseValue(1.databaseValue) == nil)
        #expect(Data([0x66, 0x6f, 0x6f]).databaseValue.description == "Data(3 bytes)")
        #expect(Data.fromDatabaseValue("ab".databaseValue) == Data("ab".utf8))
    }

    @Test func dataReadFromAStatementTakesTheTextOfNumbers() throws {
        // As GRDB: SQLite's blob of a number is its text; a copied number is not data.
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            #expect(try Data.fetchOne(db, sql: "SELECT 1") == Data("1".utf8))
            #expect(try Data.fetchOne(db, sql: "SELECT 1.5") == Data("1.5".utf8))
            #expect(try Data.fetchOne(db, sql: "SELECT NULL") == nil)
            #expect(try Data.fetchAll(db, sql: "SELECT x'00ff' UNION ALL SELECT 'ab'") == [Data([0, 255]), Data("ab".utf8)])
            #expect(Data.fromDatabaseValue(1.databaseValue) == nil)
        }
    }

    @Test func datesAreStoredAsUTCText() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        #expect(date.databaseValue == "2023-11-14 22:13:20.123".databaseValue)
        let (read, storage) = try roundTrip(date)
        #expect(storage == "text")
        #expect(abs(read!.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.0005)
        // Other formats and numbers decode too.
        #expect(Date.fromDatabaseValue("2023-11-14".databaseValue) == Date(timeIntervalSince1970: 1_699_920_000))
        #expect(Date.fromDatabaseValue("2023-11-14T22:13:20Z".databaseValue) == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(Date.fromDatabaseValue("2023-11-14 23:13:20+01:00".databaseValue) == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(Date.fromDatabaseValue(1_700_000_000.databaseValue) == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(Date.fromDatabaseValue("not a date".databaseValue) == nil)
        #expect(Date.fromDatabaseValue("12:30".databaseValue) == nil)
    }

    @Test func dateComponents() throws {
        let components = DatabaseDateComponents(DateComponents(year: 2024, month: 5, day: 1, hour: 9, minute: 30), format: .YMD_HM)
        #expect(components.databaseValue == "2024-05-01 09:30".databaseValue)
        let time = DatabaseDateComponents.fromDatabaseValue("13:45:10.250".databaseValue)!
        #expect(time.format == .HMSS)
        #expect(time.dateComponents.hour == 13)
        #expect(time.dateComponents.second == 10)
        #expect(time.dateComponents.nanosecond == 250_000_000)
        #expect(time.databaseValue == "13:45:10.250".databaseValue)
        let day = DatabaseDateComponents.fromDatabaseValue("2024-02-29".databaseValue)!
        #expect(day.format == .YMD)
        #expect(day.dateComponents.year == 2024)
        #expect(DatabaseDateComponents.fromDatabaseValue("2024-2-29".databaseValue) == nil)
        let (read, _) = try roundTrip(components)
        #expect(read == components)
    }

    @Test func fractionsKeepMillisecondsOnly() throws {
        // VAL-1: as GRDB, the digits after the third are dropped.
        let micro = try #require(DatabaseDateComponents.fromDatabaseValue("2024-02-29 10:20:30.123456".databaseValue))
        #expect(micro.dateComponents.nanosecond == 123_000_000)
        let short = try #require(DatabaseDateComponents.fromDatabaseValue("10:20:30.0078".databaseValue))
        #expect(short.dateComponents.nanosecond == 7_000_000)
        let date = try #require(Date.fromDatabaseValue("2024-02-29 10:20:30.123456".databaseValue))
        #expect(date == Date.fromDatabaseValue("2024-02-29 10:20:30.123".databaseValue))
        #expect(date.databaseValue == "2024-02-29 10:20:30.123".databaseValue)
    }

    @Test func emptyComponentsAreTheFirstDayOfYearZero() throws {
        // VAL-2: a missing month or day is 1.
        let empty = DatabaseDateComponents(DateComponents(), format: .YMD_HMSS)
        #expect(empty.databaseValue == "0000-01-01 00:00:00.000".databaseValue)
        let (read, _) = try roundTrip(empty)
        #expect(read?.dateComponents.year == 0)
        #expect(read?.dateComponents.month == 1)
        #expect(read?.dateComponents.day == 1)
    }

    @Test func uuidURLDecimal() throws {
        let uuid = UUID(uuidString: "56E7D8D3-E9E4-48B6-968E-8D102833AF00")!
        #expect(try roundTrip(uuid) == (uuid, "blob"))
        #expect(UUID.fromDatabaseValue("56E7D8D3-E9E4-48B6-968E-8D102833AF00".databaseValue) == uuid)
        #expect(UUID.fromDatabaseValue(Data([1, 2]).databaseValue) == nil)
        let url = URL(string: "https://example.com/a?b=c")!
        #expect(try roundTrip(url) == (url, "text"))
        let decimal = Decimal(string: "12345678901234567890.123456789")!
        #expect(try roundTrip(decimal) == (decimal, "text"))
        #expect(Decimal.fromDatabaseValue(12.databaseValue) == 12)
    }

    @Test func enumsAndOptionals() throws {
        enum Color: String, DatabaseValueConvertible { case red, green }
        enum Level: Int, DatabaseValueConvertible, StatementColumnConvertible { case low = 1, high = 2 }
        #expect(try roundTrip(Color.green) == (.green, "text"))
        #expect(try roundTrip(Level.high) == (.high, "integer"))
        #expect(Color.fromDatabaseValue("blue".databaseValue) == nil)
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            #expect(try Level.fetchAll(db, sql: "SELECT 1 UNION ALL SELECT 2") == [.low, .high])
            #expect(throws: RowDecodingError.self) { try Level.fetchAll(db, sql: "SELECT 3") }
            #expect(try Color?.fetchAll(db, sql: "SELECT 'red' UNION ALL SELECT NULL") == [.red, nil])
        }
        let none: Int? = nil
        #expect(none.databaseValue == .null)
        #expect(Int?.fromDatabaseValue(.null) == .some(nil))
        #expect(Int?.fromDatabaseValue("x".databaseValue) == nil)
    }

    @Test func fetchSetsAndStatements() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchSet(db, sql: "SELECT 1 UNION ALL SELECT 1 UNION ALL SELECT 2") == [1, 2])
            #expect(try Date.fetchSet(db, sql: "SELECT '2020-01-01'").count == 1)
            let statement = try db.makeStatement(sql: "SELECT ? * 2")
            #expect(try Int.fetchOne(statement, arguments: [21]) == 42)
            #expect(try Int.fetchAll(statement, arguments: [1]) == [2])
            #expect(try URL.fetchAll(db, sql: "SELECT 'https://a.b'") == [URL(string: "https://a.b")!])
            // A statement without columns runs, as in GRDB (here, in a read-only access).
            expectDatabaseError(.SQLITE_READONLY) { _ = try Int.fetchAll(db.makeStatement(sql: "CREATE TABLE x(a)")) }
        }
    }

    // MARK: - Conversions as GRDB makes them

    @Test func realsTruncateTowardZeroWhenTheyFit() {
        #expect(Int64.fromDatabaseValue(1.9.databaseValue) == 1)
        #expect(Int.fromDatabaseValue((-2.7).databaseValue) == -2)
        #expect(Int32.fromDatabaseValue(2147483647.999999.databaseValue) == Int32.max)
        #expect(Int32.fromDatabaseValue(2147483648.0.databaseValue) == nil)
        #expect(UInt8.fromDatabaseValue((-0.5).databaseValue) == 0)
        #expect(Int.fromDatabaseValue(Double.nan.databaseValue) == nil)
        #expect(Int.fromDatabaseValue(Double.infinity.databaseValue) == nil)
        // Database values stay strict about text.
        #expect(Int.fromDatabaseValue("42".databaseValue) == nil)
        #expect(Double.fromDatabaseValue("4.5".databaseValue) == nil)
    }

    @Test func valuesReadFromStatementsConvertAsSQLiteDoes() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            // SQLCipher's pragmas answer with text.
            if TestEnvironment.encrypted {
                #expect(try Int.fetchOne(db, sql: "PRAGMA cipher_page_size") == 4096)
                #expect(try Int.fetchOne(db, sql: "PRAGMA kdf_iter") == 256000)
            }
            #expect(try Int.fetchOne(db, sql: "SELECT '256000'") == 256000)
            #expect(try Int64.fetchOne(db, sql: "SELECT 1.9") == 1)
            #expect(try Int.fetchAll(db, sql: "SELECT '12 monkeys' UNION ALL SELECT -3.5") == [12, -3])
            #expect(try Double.fetchOne(db, sql: "SELECT '2.5'") == 2.5)
            #expect(try String.fetchOne(db, sql: "SELECT 42") == "42")
            #expect(try String.fetchOne(db, sql: "SELECT x'616263'") == "abc")
            #expect(try Bool.fetchOne(db, sql: "SELECT '1'") == true)
            // Narrow integers that do not fit still fail.
            #expect(throws: RowDecodingError.self) { try Int8.fetchOne(db, sql: "SELECT '1000'") }
            // Rows of a cursor read their values the same way; copied rows hold database values.
            let rows = try Row.fetchCursor(db, sql: "SELECT '7' AS n")
            while let row = try rows.next() {
                #expect(row["n"] as Int == 7)
                #expect(Int.fromDatabaseValue(row.copy()["n"] as DatabaseValue) == nil)
            }
        }
    }

    @Test func blobsDecodeAsUTF8Text() {
        #expect(String.fromDatabaseValue(Data("bar".utf8).databaseValue) == "bar")
        #expect(URL.fromDatabaseValue(Data("bar".utf8).databaseValue)?.absoluteString == "bar")
        #expect(String.fromDatabaseValue(Data([0xff, 0xfe]).databaseValue) == nil)
    }

    @Test func fetchOneDistinguishesNoRowFromNull() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            #expect(try DatabaseValue.fetchOne(db, sql: "SELECT NULL") == .null)
            #expect(try DatabaseValue.fetchOne(db, sql: "SELECT 1 WHERE 0") == nil)
            let null = try String?.fetchOne(db, sql: "SELECT NULL")
            #expect(null == .some(nil))
            let noRow = try String?.fetchOne(db, sql: "SELECT 'a' WHERE 0")
            #expect(noRow == nil)
            let value = try Int?.fetchOne(db, sql: "SELECT 5")
            #expect(value == .some(5))
            #expect(try Int.fetchOne(db, sql: "SELECT NULL") == nil)
            // Through a statement and a request too.
            let statement = try db.makeStatement(sql: "SELECT NULL")
            #expect(try Int?.fetchOne(statement) == .some(nil))
            #expect(try DatabaseValue.fetchOne(db, SQLRequest<DatabaseValue>(sql: "SELECT NULL")) == .null)
            #expect(try SQLRequest<Int?>(sql: "SELECT NULL").fetchOne(db) == .some(nil))
            #expect(try Int.fetchOne(db, SQLRequest<Int>(sql: "SELECT NULL")) == nil)
        }
    }

    /// A type whose two conversions differ, to see which one each fetch uses.
    struct Marked: DatabaseValueConvertible, StatementColumnConvertible, Hashable {
        var source: String
        var databaseValue: DatabaseValue { source.databaseValue }
        static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Marked? { Marked(source: "value") }
        init(source: String) { self.source = source }
        init?(sqliteStatement: SQLiteStatement, index: CInt) { source = "statement" }
    }

    @Test func everyFetchOfAStatementColumnConvertibleUsesTheStatement() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            let sql = "SELECT 1"
            let statement = try db.makeStatement(sql: sql)
            let request = SQLRequest<Marked>(sql: sql)
            let statementValue = Marked(source: "statement")
            #expect(try Marked.fetchOne(db, sql: sql) == statementValue)
            #expect(try Marked.fetchOne(statement) == statementValue)
            #expect(try Marked.fetchOne(db, request) == statementValue)
            #expect(try request.fetchOne(db) == statementValue)
            #expect(try Marked.fetchSet(db, sql: sql) == [statementValue])
            #expect(try Marked.fetchSet(db, request) == [statementValue])
            #expect(try request.fetchSet(db) == [statementValue])
            #expect(try Marked.fetchAll(db, request) == [statementValue])
            #expect(try Marked?.fetchOne(db, sql: sql) == .some(statementValue))
            #expect(try Marked?.fetchAll(db, sql: sql) == [statementValue])
            #expect(try SQLRequest<Marked?>(sql: sql).fetchAll(db) == [statementValue])
            #expect(try Marked.fetchOne(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 0)) == statementValue)
        }
    }

    @Test func foundationObjectsAreDatabaseValues() throws {
        let date = NSDate(timeIntervalSince1970: 0)
        #expect(date.databaseValue == "1970-01-01 00:00:00.000".databaseValue)
        #expect(NSData(data: Data([1, 2])).databaseValue == Data([1, 2]).databaseValue)
        #expect(NSNull().databaseValue == .null)
        #expect(NSNumber(value: 7).databaseValue.storage == .int64(7))
        #expect(NSNumber(value: 2.5).databaseValue.storage == .double(2.5))
        #expect(NSString(string: "text").databaseValue == "text".databaseValue)
        #expect(NSURL(string: "https://example.com")!.databaseValue == "https://example.com".databaseValue)
        let uuid = UUID()
        #expect(NSUUID(uuidString: uuid.uuidString)!.databaseValue == uuid.databaseValue)
        #expect(CGFloat(1.5).databaseValue.storage == .double(1.5))

        #expect(NSString.fromDatabaseValue("x".databaseValue) == "x")
        #expect(NSMutableString.fromDatabaseValue("x".databaseValue) == NSMutableString(string: "x"))
        #expect(NSNumber.fromDatabaseValue(3.databaseValue)?.intValue == 3)
        #expect(NSDecimalNumber.fromDatabaseValue("1.25".databaseValue) == NSDecimalNumber(string: "1.25"))
        #expect(NSDate.fromDatabaseValue("1970-01-01 00:00:10".databaseValue)?.timeIntervalSince1970 == 10)
        #expect(NSData.fromDatabaseValue(Data([9]).databaseValue)?.count == 1)
        #expect(NSUUID.fromDatabaseValue(uuid.databaseValue)?.uuidString == uuid.uuidString)
        // As GRDB (VAL-3): NSNull never decodes; NSDecimalNumber is stored as a number;
        // NSNumber decodes from text.
        #expect(NSNull.fromDatabaseValue(.null) == nil)
        #expect(NSNull.fromDatabaseValue(1.databaseValue) == nil)
        #expect(NSDecimalNumber(string: "12").databaseValue == 12.databaseValue)
        #expect(NSDecimalNumber(string: "12").databaseValue.storage == .int64(12))
        #expect(NSDecimalNumber(string: "12.5").databaseValue == 12.5.databaseValue)
        #expect(NSNumber.fromDatabaseValue("0.25".databaseValue) == NSDecimalNumber(string: "0.25"))
        #expect(NSNumber.fromDatabaseValue("abc".databaseValue) == nil)
        let textTest = try TestDatabase()
        #expect(try textTest.dbQueue.read { try NSNumber.fetchOne($0, sql: "SELECT '0.25'") } == NSDecimalNumber(string: "0.25"))
        #expect(CGFloat.fromDatabaseValue(2.databaseValue) == 2)

        // In rows and arguments built from Foundation objects.
        let objects: [AnyHashable: Any] = ["d": NSDate(timeIntervalSince1970: 0), "e": NSData()]
        let row = try #require(Row(objects))
        #expect(row["d"] as String? == "1970-01-01 00:00:00.000")
        #expect(row["e"] as Data? == Data())
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            let arguments = try #require(StatementArguments([NSNumber(value: 4), NSString(string: "four")] as [Any]))
            #expect(try String.fetchOne(db, sql: "SELECT ? || ?", arguments: arguments) == "4four")
            #expect(try NSString.fetchOne(db, sql: "SELECT 'fetched'") == "fetched")
            #expect(try NSNumber.fetchAll(db, sql: "SELECT 1 UNION ALL SELECT 2.5").map(\.doubleValue) == [1, 2.5])
        }
    }
}
