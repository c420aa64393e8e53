import Foundation
import Testing
@testable import GRDBCipher

@Suite("FTS4")
struct FTS4Tests {
    private func recordSchema(_ test: TestDatabase? = nil, _ body: (Database) throws -> Void) throws -> [String] {
        let test = try test ?? TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            recorder.record(db)
            try body(db)
        }
        return recorder.sql.filter { $0.hasPrefix("CREATE") || $0.hasPrefix("DROP") || $0.hasPrefix("INSERT") }
    }

    @Test func createTables() throws {
        let sql = try recordSchema { db in
            try db.create(virtualTable: "document", using: FTS4()) { t in
                t.column("content")
            }
            try db.create(virtualTable: "book", using: FTS4()) { t in
                t.tokenizer = .porter
                t.column("author")
                t.column("title")
                t.column("body")
            }
            try db.create(virtualTable: "options", using: FTS4()) { t in
                t.content = ""
                t.compress = "zip"
                t.uncompress = "unzip"
                t.prefixes = [4, 2]
                t.matchinfo = "fts3"
                t.column("content")
                t.column("uuid").notIndexed()
                t.column("lid").asLanguageId()
            }
            try db.create(virtualTable: "draft", options: [.temporary, .ifNotExists], using: FTS4()) { t in
                t.column("text")
            }
        }
        #expect(sql == [
            "CREATE VIRTUAL TABLE \"document\" USING fts4(content)",
            "CREATE VIRTUAL TABLE \"book\" USING fts4(author, title, body, tokenize=porter)",
            "CREATE VIRTUAL TABLE \"options\" USING fts4(content, uuid, notindexed=uuid, languageid=\"lid\", content=\"\", compress=\"zip\", uncompress=\"unzip\", matchinfo=\"fts3\", prefix=\"2,4\")",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.\"draft\" USING fts4(text)",
        ])
    }

    @Test func notIndexedAndLanguageIdColumns() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.create(virtualTable: "message", using: FTS4()) { t in
                t.column("body")
                t.column("uuid").notIndexed()
                t.column("lang").asLanguageId()
            }
            try db.execute(sql: "INSERT INTO message (body, uuid, lang) VALUES ('hello world', 'hello-uuid', 1)")
            try db.execute(sql: "INSERT INTO message (body, uuid, lang) VALUES ('bonjour le monde', 'other', 2)")
            // The uuid is stored, not indexed
            #expect(try String.fetchOne(db, sql: "SELECT uuid FROM message WHERE message MATCH 'hello' AND lang = 1") == "hello-uuid")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE message MATCH 'other' AND lang = 2") == 0)
            // Each language has its own index (0 when not told).
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE message MATCH 'hello'") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE message MATCH 'monde' AND lang = 2") == 1)
        }
    }

    @Test func synchronizedTable() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("author", .text)
                t.column("title", .text)
                t.column("price", .double)
            }
            try db.execute(sql: "INSERT INTO book (author, title, price) VALUES ('Herman Melville', 'Moby-Dick', 12.5)")
        }
        let sql = try recordSchema(test) { db in
            try db.create(virtualTable: "book_ft", using: FTS4()) { t in
                t.synchronize(withTable: "book")
                t.column("author")
                t.column("title")
            }
        }
        #expect(sql == [
            "CREATE VIRTUAL TABLE \"book_ft\" USING fts4(author, title, content=\"book\")",
            "CREATE TRIGGER \"__book_ft_bu\" BEFORE UPDATE ON \"book\" BEGIN\n    DELETE FROM \"book_ft\" WHERE docid=old.\"id\";\nEND",
            "CREATE TRIGGER \"__book_ft_bd\" BEFORE DELETE ON \"book\" BEGIN\n    DELETE FROM \"book_ft\" WHERE docid=old.\"id\";\nEND",
            "CREATE TRIGGER \"__book_ft_au\" AFTER UPDATE ON \"book\" BEGIN\n    INSERT INTO \"book_ft\"(\"docid\", \"author\", \"title\") VALUES(new.\"id\", new.\"author\", new.\"title\");\nEND",
            "CREATE TRIGGER \"__book_ft_ai\" AFTER INSERT ON \"book\" BEGIN\n    INSERT INTO \"book_ft\"(\"docid\", \"author\", \"title\") VALUES(new.\"id\", new.\"author\", new.\"title\");\nEND",
            "INSERT INTO \"book_ft\"(\"book_ft\") VALUES('rebuild')",
        ])
        try test.dbQueue.write { db in
            func titles(_ query: String) throws -> [String] {
                try String.fetchAll(db, sql: """
                    SELECT book.title FROM book JOIN book_ft ON book_ft.docid = book.id AND book_ft MATCH ?
                    ORDER BY book.id
                    """, arguments: [FTS3Pattern(matchingAllTokensIn: query)])
            }
            #expect(try titles("melville") == ["Moby-Dick"])
            try db.execute(sql: "INSERT INTO book (author, title) VALUES ('Jules Verne', 'Twenty Thousand Leagues')")
            #expect(try titles("verne") == ["Twenty Thousand Leagues"])
            try db.execute(sql: "UPDATE book SET title = 'Around the World' WHERE author = 'Jules Verne'")
            #expect(try titles("leagues") == [])
            #expect(try titles("world") == ["Around the World"])
            try db.execute(sql: "DELETE FROM book WHERE author = 'Herman Melville'")
            #expect(try titles("melville") == [])
        }
        let dropSQL = try recordSchema(test) { db in
            try db.drop(table: "book_ft")
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "DELETE FROM book")
            }
            try db.dropFTS4SynchronizationTriggers(forTable: "book_ft")
            try db.execute(sql: "DELETE FROM book")
            // Dropping again is harmless (IF EXISTS)
            try db.dropFTS4SynchronizationTriggers(forTable: "book_ft")
        }
        #expect(Array(dropSQL.prefix(5)) == [
            "DROP TABLE \"book_ft\"",
            "DROP TRIGGER IF EXISTS \"__book_ft_bu\"",
            "DROP TRIGGER IF EXISTS \"__book_ft_bd\"",
            "DROP TRIGGER IF EXISTS \"__book_ft_au\"",
            "DROP TRIGGER IF EXISTS \"__book_ft_ai\"",
        ])
    }

    @Test func synchronizedTableOnHiddenRowID() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.create(table: "memo") { t in t.column("text", .text) }
            try db.execute(sql: "INSERT INTO memo (text) VALUES ('buy milk')")
        }
        let sql = try recordSchema(test) { db in
            try db.create(virtualTable: "memo_ft", using: FTS4()) { t in
                t.synchronize(withTable: "memo")
                t.column("text")
            }
            #expect(try Int.fetchOne(db, sql: "SELECT docid FROM memo_ft WHERE memo_ft MATCH 'milk'") == 1)
        }
        #expect(sql[1] == "CREATE TRIGGER \"__memo_ft_bu\" BEFORE UPDATE ON \"memo\" BEGIN\n    DELETE FROM \"memo_ft\" WHERE docid=old.\"rowid\";\nEND")
    }

    @Test func contentlessTable() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.create(virtualTable: "secret", using: FTS4()) { t in
                t.content = ""
                t.column("body")
            }
            try db.execute(sql: "INSERT INTO secret (docid, body) VALUES (7, 'hidden treasure')")
            #expect(try Int.fetchOne(db, sql: "SELECT docid FROM secret WHERE secret MATCH 'treasure'") == 7)
            // The text itself is not stored: SQLite refuses to read it.
            expectDatabaseError(.SQLITE_ERROR) {
                _ = try Row.fetchOne(db, sql: "SELECT body FROM secret WHERE docid = 7")
            }
        }
    }
}
