import Foundation
import Testing
@testable import GRDBCipher

// `.allColumns(excluding:)` resolves with the record's table wherever a selection is used
// (REC-3), as GRDB 7.10: the RETURNING clause of the …AndFetch methods, `\(columnsOf:)`.

private struct Member: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "member"
    static let databaseSelection: [any SQLSelectable] = [.allColumns(excluding: ["passwordHash"])]
    var id: Int64?
    var name: String
    var passwordHash: String?

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

@Suite("allColumns(excluding:)")
struct AllColumnsExcludingTests {
    @Test func returningAndInterpolation() throws {
        let schema = "CREATE TABLE member(id INTEGER PRIMARY KEY, name TEXT NOT NULL, passwordHash TEXT)"
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            var member = Member(id: nil, name: "Ann", passwordHash: "secret-hash")
            let inserted = try member.insertAndFetch(db, selection: [.allColumns(excluding: ["passwordHash"])]) { try Row.fetchOne($0) }
            #expect(inserted == ["id": 1, "name": "Ann"])
            var other = Member(id: nil, name: "Bob", passwordHash: "other-hash")
            let fetched = try other.insertAndFetch(db, as: Member.self)
            #expect(fetched.name == "Bob" && fetched.passwordHash == nil)
            #expect(recorder.dataSQL == [
                #"INSERT INTO "member" ("id", "name", "passwordHash") VALUES (?,?,?) RETURNING "id", "name""#,
                #"INSERT INTO "member" ("id", "name", "passwordHash") VALUES (?,?,?) RETURNING "id", "name""#,
            ])
            let request: SQLRequest<Row> = "SELECT \(columnsOf: Member.self) FROM member ORDER BY id"
            #expect(try request.makePreparedRequest(db).statement.sql == #"SELECT "member"."id", "member"."name" FROM member ORDER BY id"#)
            #expect(try Row.fetchAll(db, request).map(\.count) == [2, 2])
            let aliased: SQLRequest<Row> = "SELECT \(columnsOf: Member.self, tableAlias: "m") FROM member m"
            #expect(try aliased.makePreparedRequest(db).statement.sql == #"SELECT "m"."id", "m"."name" FROM member m"#)
        }
    }

    @Test func excludingNothingIsStar() throws {
        // SQL-7: as GRDB, a selection that excludes no column of the table is `*`.
        try withRecordedDatabase("CREATE TABLE member(id INTEGER PRIMARY KEY, name TEXT, passwordHash TEXT); INSERT INTO member VALUES (1, 'a', 'x'), (2, 'a', 'x')") { (db: Database, recorder: SQLRecorder) throws in
            #expect(try Table("member").select(.allColumns(excluding: [String]())).distinct().fetchCount(db) == 2)
            #expect(try Table("member").select(.allColumns(excluding: ["missing"])).distinct().fetchCount(db) == 2)
            #expect(try Table("member").select(.allColumns(excluding: ["id"])).distinct().fetchCount(db) == 1)
            #expect(recorder.dataSQL == [
                #"SELECT COUNT(*) FROM (SELECT DISTINCT * FROM "member")"#,
                #"SELECT COUNT(*) FROM (SELECT DISTINCT * FROM "member")"#,
                #"SELECT COUNT(*) FROM (SELECT DISTINCT "name", "passwordHash" FROM "member")"#,
            ])
        }
    }
}
