import Foundation
import Testing
@testable import GRDBCipher

@Suite("Row throwing accessors")
struct RowDecodeTests {
    private let sql = "SELECT 7 AS pages, 'Dune' AS title, NULL AS subtitle, 'many' AS copies, 3.0 AS rating"

    /// Runs `body` on a row that reads the statement, on a copied row, and on an adapted row.
    private func withRows(_ body: (Row) throws -> Void) throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            let live = try Row.fetchCursor(db, sql: sql)
            while let row = try live.next() { try body(row) }
            try body(Row.fetchOne(db, sql: sql)!)
            let adapted = try Row.fetchOne(db, sql: "SELECT 0 AS ignored, * FROM (\(sql))", adapter: SuffixRowAdapter(fromIndex: 1))!
            try body(adapted)
        }
    }

    @Test func decodesByIndex() throws {
        try withRows { (row: Row) throws in
            #expect(try row.decode(Int.self, atIndex: 0) == 7)
            #expect(try row.decode(String.self, atIndex: 1) == "Dune")
            #expect(try row.decode(String?.self, atIndex: 2) == nil)
            #expect(try row.decode(Double.self, atIndex: 4) == 3.0)
            // Without the type argument, from the context.
            let pages: Int64 = try row.decode(atIndex: 0)
            #expect(pages == 7)
            // A type that only has the DatabaseValueConvertible path.
            #expect(try row.decode(DatabaseValue.self, atIndex: 2) == .null)
        }
    }

    @Test func decodesByColumnNameAndColumn() throws {
        try withRows { (row: Row) throws in
            #expect(try row.decode(Int.self, forColumn: "PAGES") == 7)
            #expect(try row.decode(String.self, forColumn: Column("title")) == "Dune")
            #expect(try row.decode(String?.self, forColumn: "subtitle") == nil)
            #expect(try row.decode(Date?.self, forColumn: Column("subtitle")) == nil)
            // A missing column is nil for an optional.
            #expect(try row.decode(Int?.self, forColumn: "missing") == nil)
            #expect(try row.decode(String?.self, forColumn: Column("missing")) == nil)
        }
    }

    @Test func nullForANonOptionalThrows() throws {
        try withRows { (row: Row) throws in
            let error = #expect(throws: RowDecodingError.self) { try row.decode(String.self, atIndex: 2) }
            #expect(error?.description.contains("NULL") == true)
            #expect(error?.description.contains("\"subtitle\"") == true)
            #expect(throws: RowDecodingError.self) { try row.decode(Int.self, forColumn: "subtitle") }
            #expect(throws: RowDecodingError.self) { try row.decode(Date.self, forColumn: Column("subtitle")) }
        }
    }

    @Test func valueThatDoesNotConvertThrows() throws {
        try withRows { (row: Row) throws in
            // Text that is not a date, nor a UUID. (Text read as a number follows SQLite's
            // conversions on a row that reads a statement, as the subscripts do.)
            let error = #expect(throws: RowDecodingError.self) { try row.decode(Date.self, forColumn: "copies") }
            #expect(error?.description.contains("Date") == true)
            #expect(error?.description.contains("many") == false) // row content stays out of messages
            #expect(throws: RowDecodingError.self) { try row.decode(Date.self, atIndex: 3) }
            #expect(throws: RowDecodingError.self) { try row.decode(UUID.self, forColumn: Column("copies")) }
        }
    }

    @Test func missingColumnThrows() throws {
        try withRows { (row: Row) throws in
            let error = #expect(throws: RowDecodingError.self) { try row.decode(Int.self, forColumn: "missing") }
            #expect(error?.description.contains("column not found") == true)
            #expect(error?.description.contains("\"missing\"") == true)
            #expect(throws: RowDecodingError.self) { try row.decode(String.self, forColumn: Column("missing")) }
            #expect(throws: RowDecodingError.self) { try row.decode(Date.self, forColumn: "missing") }
        }
    }
}
