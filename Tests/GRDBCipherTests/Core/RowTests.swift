import Foundation
import Testing
@testable import GRDBCipher

@Suite("Row")
struct RowTests {
    @Test func accessByIndexNameAndColumn() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            let row = try Row.fetchOne(db, sql: "SELECT 1 AS id, 'Arthur' AS name, NULL AS email, 2.5 AS score, x'00ff' AS data")!
            #expect(row.count == 5)
            #expect(row.columnNames == ["id", "name", "email", "score", "data"])
            #expect(row[0] as Int == 1)
            #expect(row[1] as String == "Arthur")
            #expect(row[2] as String? == nil)
            #expect(row["ID"] as Int64 == 1)
            #expect(row["Name"] as String? == "Arthur")
            #expect(row[Column("score")] as Double == 2.5)
            #expect(row["data"] as Data == Data([0, 255]))
            #expect(row[0] as? Int64 == 1)
            #expect(row["email"] == nil)
            #expect(row["missing"] == nil)
            #expect(row["missing"] as Int? == nil)
            #expect(row.hasColumn("NAME"))
            #expect(!row.hasColumn("missing"))
            #expect(row.hasNull(atIndex: 2))
            #expect(row.containsNonNullValue)
            #expect(row.databaseValues == [1.databaseValue, "Arthur".databaseValue, .null, 2.5.databaseValue, Data([0, 255]).databaseValue])
            #expect(row.coalesce(["email", "name"]) as String? == "Arthur")
            #expect(try row.withUnsafeData(named: "data") { $0 } == Data([0, 255]))
        }
    }

    @Test func leftmostColumnWins() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            let row = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS A")!
            #expect(row["a"] as Int == 1)
            #expect(row["A"] as Int == 1)
        }
    }

    /// Lookups by name remember, from row to row, which column the Nth lookup found: they must
    /// stay right when the order, the spelling or the number of lookups changes between rows.
    @Test func namedLookupsFollowChangingOrders() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            let sql = "SELECT 1 AS a, 2 AS b, 3 AS B, NULL AS c FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4)"
            let rows = try Row.fetchCursor(db, sql: sql)
            var seen: [[Int?]] = []
            var rowNumber = 0
            while let row = try rows.next() {
                switch rowNumber {
                case 0: seen.append([row["a"], row["b"], row["c"]])
                case 1: seen.append([row["c"], row["B"], row["a"]])
                case 2: seen.append([row["A"], row["missing"], row["b"], row["a"], row["b"]])
                default: seen.append([row["b"]])
                }
                rowNumber += 1
            }
            #expect(seen == [[1, 2, nil], [nil, 2, 1], [1, nil, 2, 1, 2], [2]])
        }
    }

    @Test func namedLookupsBeyondTheRememberedOnes() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            // More lookups per row than the remembered 64, over two rows.
            let columns = (0..<70).map { "\($0) AS c\($0)" }.joined(separator: ", ")
            let rows = try Row.fetchCursor(db, sql: "SELECT \(columns) UNION ALL SELECT \(columns)")
            var sums: [Int] = []
            while let row = try rows.next() {
                sums.append((0..<70).reduce(0) { $0 + (row["C\($1)"] as Int) })
            }
            #expect(sums == [2415, 2415])
        }
    }

    @Test func fastIntegerConversionsCheckTheStoredType() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            let row = try Row.fetchOne(db, sql: "SELECT 2.0 AS exact, 2.5 AS inexact, '3' AS text, NULL AS none, 300 AS big")!
            #expect(row["exact"] as Int64? == 2)
            #expect(row["exact"] as Int == 2)
            #expect(row["none"] as Int64? == nil)
            #expect(row["none"] as Int32? == nil)
            #expect(row["big"] as Int16 == 300)
            #expect(row["big"] as Bool == true)
            #expect(row["inexact"] as Double == 2.5)
            #expect(row["text"] as String == "3")
            #expect(row["none"] as String? == nil)
            #expect(row["none"] as Data? == nil)
            // Values read from a statement convert as SQLite converts them (REAL truncated,
            // TEXT parsed); values that do not fit fail as errors from the throwing APIs.
            #expect(try Int.fetchOne(db, sql: "SELECT 2.5") == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT 'text'") == 0)
            #expect(throws: RowDecodingError.self) { try Int8.fetchOne(db, sql: "SELECT 300") }
            #expect(throws: RowDecodingError.self) { try UUID.fetchOne(db, sql: "SELECT 'text'") }
        }
    }

    @Test func literalsEqualityDescription() {
        let row: Row = ["id": 1, "name": "Arthur", "email": nil]
        #expect(row.description == "[id:1 name:\"Arthur\" email:NULL]")
        #expect(row == ["id": 1, "name": "Arthur", "email": nil])
        #expect(row != ["name": "Arthur", "id": 1, "email": nil])
        #expect(Set([row, row.copy()]).count == 1)
        #expect(Row().isEmpty)
        #expect(Row(["a": 1]).columnNames == ["a"])
        #expect(Row(["a": 1, "b": NSObject()] as [AnyHashable: Any]) == nil)
        let pairs = row.map { "\($0.0)=\($0.1)" }
        #expect(pairs == ["id=1", "name=\"Arthur\"", "email=NULL"])
    }

    @Test func cursorRowsAreLiveAndCopiesAreNot() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            let cursor = try Row.fetchCursor(db, sql: "SELECT 1 AS a UNION ALL SELECT 2")
            let first = try cursor.next()!
            let copy = first.copy()
            #expect(first.isFetched)
            #expect(!copy.isFetched)
            let second = try cursor.next()!
            #expect(first === second) // the same live row, moved on
            #expect(second["a"] as Int == 2)
            #expect(copy["a"] as Int == 1)
        }
    }

    @Test func fetchAllCopiesRows() throws {
        let test = try TestDatabase()
        let rows = try test.dbQueue.read { try Row.fetchAll($0, sql: "SELECT 1 AS a UNION ALL SELECT 2 ORDER BY 1") }
        #expect(rows.map { $0["a"] as Int } == [1, 2])
        let set = try test.dbQueue.read { try Row.fetchSet($0, sql: "SELECT 1 AS a UNION ALL SELECT 1") }
        #expect(set.count == 1)
        let none = try test.dbQueue.read { try Row.fetchOne($0, sql: "SELECT 1 WHERE 0") }
        #expect(none == nil)
    }

    @Test func nullToNonOptionalIsAFatalError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dbQueue = try DatabaseQueue()
            try dbQueue.read { (db: Database) throws in
                let row = try Row.fetchOne(db, sql: "SELECT NULL AS email")!
                let _: String = row["email"]
            }
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("could not decode String from database value of type NULL - column: \"email\", column index: 0"))
    }

    @Test func inconvertibleValueIsAFatalError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dbQueue = try DatabaseQueue()
            try dbQueue.read { (db: Database) throws in
                // The value is built by SQL so that it appears nowhere in this source, which a
                // crash backtrace may print.
                let row = try Row.fetchOne(db, sql: "SELECT 'pri' || 'vate-' || 'data' AS age")!
                let _: Int? = row["age"]
            }
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("could not decode Optional<Int> from database value of type TEXT - column: \"age\""))
        #expect(!stderr.contains("private-data"))
    }
}
