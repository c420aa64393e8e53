import Foundation
import Testing
@testable import GRDBCipher

// Change tracking of `Record` (REC-4), as GRDB 7.10 (checked with tools/grdb-probe): only a
// row fetched from the database is the reference; a record made otherwise has every column
// changed, and `databaseChanges` gives nil for an unknown old value.

private final class Note: Record {
    override class var databaseTableName: String { "note" }
    var id: Int64?
    var text: String

    init(id: Int64?, text: String) {
        self.id = id
        self.text = text
        super.init()
    }

    required init(row: Row) throws {
        id = row["id"]
        text = row["text"] ?? ""
        try super.init(row: row)
    }

    override func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["text"] = text
    }
}

@Suite("Record change tracking")
struct RecordChangeTrackingTests {
    @Test func recordFromALiteralRowUpdatesEveryColumn() throws {
        try withRecordedDatabase("CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT); INSERT INTO note VALUES (7, 'old')") { (db: Database, recorder: SQLRecorder) throws in
            let note = try Note(row: ["id": 7, "text": "new text"])
            #expect(note.hasDatabaseChanges)
            #expect(try note.updateChanges(db))
            #expect(recorder.dataSQL == [#"UPDATE "note" SET "text"=? WHERE "id"=?"#])
            #expect(try String.fetchAll(db, sql: "SELECT text FROM note") == ["new text"])
            // Saved: now it is the reference.
            #expect(!note.hasDatabaseChanges)
            #expect(try !note.updateChanges(db))
        }
    }

    @Test func fetchedRecordsTrackChanges() throws {
        try withRecordedDatabase("CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT); INSERT INTO note VALUES (7, 'old')") { (db: Database, _: SQLRecorder) throws in
            // Fetched through a cursor's live row, and through fetchAll's rows.
            let fetched = try #require(try Note.fetchOne(db, sql: "SELECT * FROM note"))
            #expect(!fetched.hasDatabaseChanges)
            let all = try Note.fetchAll(db, sql: "SELECT * FROM note")
            #expect(!all[0].hasDatabaseChanges)
            // A copied fetched row is still a fetched row.
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM note"))
            #expect(try !Note(row: row).hasDatabaseChanges)
            fetched.text = "changed"
            #expect(try fetched.databaseChanges == ["text": "old".databaseValue])
        }
    }

    @Test func databaseChangesWithoutOldValues() throws {
        try withRecordedDatabase("CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT)") { (db: Database, _: SQLRecorder) throws in
            let fresh = Note(id: 8, text: "x")
            let changes = try fresh.databaseChanges
            #expect(changes.count == 2)
            #expect(changes["id"] == .some(nil))
            #expect(changes["text"] == .some(nil))
            // A fetched row without the column: its old value is unknown (nil), not NULL.
            let partial = try #require(try Note.fetchOne(db, sql: "SELECT 7 AS id, NULL AS other"))
            partial.text = "y"
            let partialChanges = try partial.databaseChanges
            #expect(partialChanges.count == 1)
            #expect(partialChanges["text"] == .some(nil))
        }
    }
}
