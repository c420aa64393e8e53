import Foundation
import Testing
@testable import GRDBCipher

private struct Owner: FetchableRecord, Equatable {
    var id: Int64
    var name: String
    init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        name = try row.decode(forColumn: "name")
    }
    init(id: Int64, name: String) { self.id = id; self.name = name }
}

@Suite("Row: accessors added for GRDB parity")
struct RowParityTests {
    @Test func coalesceColumns() throws {
        let row: Row = ["nickname": nil, "name": "Ada", "code": 7]
        #expect(row.coalesce([Column("nickname"), Column("name")]) as String? == "Ada")
        #expect(row.coalesce([Column("missing"), Column("code")]) as Int? == 7)
        #expect(row.coalesce([Column("nickname"), Column("missing")]) as String? == nil)
        let noColumns: [any ColumnExpression] = []
        #expect(row.coalesce(noColumns) as String? == nil)
    }

    @Test func dataWithoutCopy() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT x'0A0B0C' AS payload, NULL AS empty")
            let row = try #require(try rows.next())
            #expect(row.dataNoCopy(named: "payload") == Data([10, 11, 12]))
            #expect(row.dataNoCopy(Column("payload")) == Data([10, 11, 12]))
            #expect(row.dataNoCopy(named: "empty") == nil)
            #expect(row.dataNoCopy(named: "missing") == nil)
            #expect(try row.withUnsafeData(at: Column("payload")) { $0?.count } == 3)
            #expect(try row.withUnsafeData(at: Column("empty")) { $0 } == nil)
            #expect(try row.withUnsafeData(at: Column("missing")) { $0 } == nil)
            struct Stop: Error {}
            #expect(throws: Stop.self) { try row.withUnsafeData(at: Column("payload")) { _ in throw Stop() } }
        }
    }

    @Test func recordsFromScopes() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let sql = "SELECT 1 AS id, 'book' AS title, 5 AS id, 'Ann' AS name UNION ALL SELECT 2, 'pamphlet', NULL, NULL"
            let adapter = ScopeAdapter(base: RangeRowAdapter(0..<2), scopes: ["owner": SuffixRowAdapter(fromIndex: 2)])
            let rows = try Row.fetchAll(db, sql: sql, adapter: adapter)
            #expect(try rows[0].decode(Owner.self, forKey: "owner") == Owner(id: 5, name: "Ann"))
            let owner: Owner = try rows[0].decode(forKey: "owner")
            #expect(owner.name == "Ann")
            #expect(try rows[0].decodeIfPresent(Owner.self, forKey: "owner") == Owner(id: 5, name: "Ann"))
            // A scope of NULLs (a missing row of a left join) is nil for decodeIfPresent...
            #expect(try rows[1].decodeIfPresent(Owner.self, forKey: "owner") == nil)
            // ... and an error of the record for decode.
            #expect(throws: (any Error).self) { try rows[1].decode(Owner.self, forKey: "owner") }
            // A missing scope.
            #expect(try rows[0].decodeIfPresent(Owner.self, forKey: "editor") == nil)
            let error = #expect(throws: RowDecodingError.self) { try rows[0].decode(Owner.self, forKey: "editor") }
            #expect(error?.description.contains("scope not found: \"editor\"") == true)
            let index: Row.ScopesView.Index = rows[0].scopes.startIndex
            #expect(rows[0].scopes[index].name == "owner")
        }
    }
}
