import Foundation
import Testing
@testable import GRDBCipher

// Full-text table definitions as GRDB 7.10 writes them (PRG-9, SQL-7: FTS4 options in GRDB's
// order, checked with tools/grdb-probe), and synchronization triggers that honor
// `.ifNotExists` (FTS-1).

@Suite("Full-text table definitions")
struct FullTextDefinitionTests {
    @Test func fts4OptionsInGRDBOrder() throws {
        try withRecordedDatabase("CREATE TABLE other(author, body, lid)") { (db: Database, recorder: SQLRecorder) throws in
            try db.create(virtualTable: "doc4", using: FTS4()) { t in
                t.tokenizer = .porter
                t.column("author").notIndexed()
                t.column("body")
                t.column("lid").asLanguageId()
                t.compress = "zip"
                t.uncompress = "unzip"
                t.matchinfo = "fts3"
                t.prefixes = [2, 4]
                t.content = "other"
            }
            #expect(recorder.sql.contains(#"CREATE VIRTUAL TABLE "doc4" USING fts4(author, notindexed=author, body, languageid="lid", tokenize=porter, content="other", compress="zip", uncompress="unzip", matchinfo="fts3", prefix="2,4")"#))
        }
    }

    @Test func synchronizedTablesCanBeCreatedAgainIfNotExists() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
            for _ in 0..<2 {
                try db.create(virtualTable: "note_fts4", options: .ifNotExists, using: FTS4()) { t in
                    t.synchronize(withTable: "note")
                    t.column("body")
                }
                try db.create(virtualTable: "note_fts5", options: .ifNotExists, using: FTS5()) { t in
                    t.synchronize(withTable: "note")
                    t.column("body")
                }
            }
            try db.execute(sql: "INSERT INTO note(body) VALUES ('encrypted at rest')")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note_fts4 WHERE note_fts4 MATCH 'rest'") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note_fts5 WHERE note_fts5 MATCH 'rest'") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'") == 7)
            // Without the option, a second run fails.
            expectDatabaseError(.SQLITE_ERROR) {
                try db.create(virtualTable: "note_fts5", using: FTS5()) { t in
                    t.synchronize(withTable: "note")
                    t.column("body")
                }
            }
        }
    }
}
