import Foundation
import Testing
@testable import GRDBCipher

private struct Note: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "note"
    var body: String
}

@Suite("FTS5")
struct FTS5Tests {
    /// Runs `body` in a write, and returns the schema statements it ran (CREATE, DROP, and
    /// the INSERT that rebuilds an index).
    private func recordSchema(_ test: TestDatabase? = nil, _ body: (Database) throws -> Void) throws -> [String] {
        let test = try test ?? TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            recorder.record(db)
            try body(db)
        }
        return recorder.sql.filter {
            $0.hasPrefix("CREATE") || $0.hasPrefix("DROP") || $0.hasPrefix("INSERT")
        }
    }

    // MARK: - Tables

    @Test func createTables() throws {
        let sql = try recordSchema { db in
            try db.create(virtualTable: "plain", using: FTS5()) { t in
                t.column("body")
            }
            try db.create(virtualTable: "stemmed", using: FTS5()) { t in
                t.tokenizer = .porter()
                t.column("title")
                t.column("body")
            }
            try db.create(virtualTable: "stemmedAscii", using: FTS5()) { t in
                t.tokenizer = .porter(wrapping: .ascii())
                t.column("body")
            }
            try db.create(virtualTable: "accents", using: FTS5()) { t in
                t.tokenizer = .unicode61(diacritics: .keep, categories: "L* N*", separators: ["X"], tokenCharacters: ["-"])
                t.column("body")
            }
            try db.create(virtualTable: "ascii", using: FTS5()) { t in
                t.tokenizer = .ascii(separators: ["x"], tokenCharacters: ["."])
                t.column("body")
            }
            try db.create(virtualTable: "trigram", using: FTS5()) { t in
                t.tokenizer = FTS5TokenizerDescriptor(components: ["trigram", "case_sensitive", "1"])
                t.column("body")
            }
            try db.create(virtualTable: "contentless", using: FTS5()) { t in
                t.content = ""
                t.column("body")
            }
            try db.create(table: "source") { t in
                t.primaryKey("id", .integer)
                t.column("body")
                t.column("uuid")
            }
            try db.create(virtualTable: "external", using: FTS5()) { t in
                t.column("body")
                t.column("uuid").notIndexed()
                t.tokenizer = .ascii()
                t.content = "source"
                t.contentRowID = "id"
                t.prefixes = [4, 2]
                t.columnSize = 0
                t.detail = "column"
            }
        }
        #expect(sql == [
            "CREATE VIRTUAL TABLE \"plain\" USING fts5(body)",
            "CREATE VIRTUAL TABLE \"stemmed\" USING fts5(title, body, tokenize='''porter''')",
            "CREATE VIRTUAL TABLE \"stemmedAscii\" USING fts5(body, tokenize='''porter'' ''ascii''')",
            "CREATE VIRTUAL TABLE \"accents\" USING fts5(body, tokenize='''unicode61'' ''remove_diacritics'' ''0'' ''categories'' ''L* N*'' ''separators'' ''X'' ''tokenchars'' ''-''')",
            "CREATE VIRTUAL TABLE \"ascii\" USING fts5(body, tokenize='''ascii'' ''separators'' ''x'' ''tokenchars'' ''.''')",
            "CREATE VIRTUAL TABLE \"trigram\" USING fts5(body, tokenize='''trigram'' ''case_sensitive'' ''1''')",
            "CREATE VIRTUAL TABLE \"contentless\" USING fts5(body, content='')",
            "CREATE TABLE \"source\" (\"id\" INTEGER PRIMARY KEY, \"body\", \"uuid\")",
            "CREATE VIRTUAL TABLE \"external\" USING fts5(body, uuid UNINDEXED, tokenize='''ascii''', content='source', content_rowid='id', prefix='2 4', columnSize=0, detail=column)",
        ])
    }

    @Test func createTableRunsInASavepoint() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.create(table: "keep") { t in t.column("a") }
            // The table is created, then the module fails in `database(_:didCreate:using:)`:
            // a missing content table makes the synchronization fail, and the virtual table
            // is rolled back with it.
            expectDatabaseError(.SQLITE_ERROR) {
                try db.create(virtualTable: "orphan", using: FTS5()) { t in
                    t.synchronize(withTable: "missing")
                    t.column("body")
                }
            }
            #expect(try db.tableExists("keep"))
            #expect(try !db.tableExists("orphan"))
        }
    }

    @Test func tokenizersMatchAsDocumented() throws {
        // The table of the guide: which query matches which content, per tokenizer.
        let test = try TestDatabase()
        let tokenizers: [(String, FTS5TokenizerDescriptor)] = [
            ("ascii", .ascii()), ("unicode61", .unicode61()),
            ("porterAscii", .porter(wrapping: .ascii())), ("porterUnicode61", .porter()),
        ]
        let cases: [(content: String, query: String, matches: [Bool])] = [
            ("Foo", "Foo", [true, true, true, true]),
            ("Foo", "FOO", [true, true, true, true]),
            ("Jérôme", "Jérôme", [true, true, true, true]),
            ("Jérôme", "JÉRÔME", [false, true, false, true]),
            ("Jérôme", "Jerome", [false, true, false, true]),
            ("Database", "Databases", [false, false, true, true]),
            ("Frustration", "Frustrated", [false, false, true, true]),
        ]
        try test.dbQueue.write { db in
            for (name, tokenizer) in tokenizers {
                try db.create(virtualTable: name, using: FTS5()) { t in
                    t.tokenizer = tokenizer
                    t.column("content")
                }
            }
            for (content, query, matches) in cases {
                for ((name, _), expected) in zip(tokenizers, matches) {
                    try db.execute(sql: "DELETE FROM \(name)")
                    try db.execute(sql: "INSERT INTO \(name) (content) VALUES (?)", arguments: [content])
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(name) WHERE \(name) MATCH ?", arguments: [FTS5Pattern(matchingPhrase: query)])!
                    #expect((count == 1) == expected, "\(name): \(content) / \(query)")
                }
            }
        }
    }

    // MARK: - Synchronization

    @Test func synchronizedTable() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("author", .text)
                t.column("title", .text)
                t.column("year", .integer)
            }
            try db.execute(sql: "INSERT INTO book (author, title, year) VALUES ('Herman Melville', 'Moby-Dick', 1851)")
        }
        let sql = try recordSchema(test) { db in
            try db.create(virtualTable: "book_ft", using: FTS5()) { t in
                t.synchronize(withTable: "book")
                t.column("author")
                t.column("title")
            }
        }
        #expect(sql == [
            "CREATE VIRTUAL TABLE \"book_ft\" USING fts5(author, title, content='book', content_rowid='id')",
            "CREATE TRIGGER \"__book_ft_ai\" AFTER INSERT ON \"book\" BEGIN\n    INSERT INTO \"book_ft\"(\"rowid\", \"author\", \"title\") VALUES (new.\"id\", new.\"author\", new.\"title\");\nEND",
            "CREATE TRIGGER \"__book_ft_ad\" AFTER DELETE ON \"book\" BEGIN\n    INSERT INTO \"book_ft\"(\"book_ft\", \"rowid\", \"author\", \"title\") VALUES('delete', old.\"id\", old.\"author\", old.\"title\");\nEND",
            "CREATE TRIGGER \"__book_ft_au\" AFTER UPDATE ON \"book\" BEGIN\n    INSERT INTO \"book_ft\"(\"book_ft\", \"rowid\", \"author\", \"title\") VALUES('delete', old.\"id\", old.\"author\", old.\"title\");\n    INSERT INTO \"book_ft\"(\"rowid\", \"author\", \"title\") VALUES (new.\"id\", new.\"author\", new.\"title\");\nEND",
            "INSERT INTO \"book_ft\"(\"book_ft\") VALUES('rebuild')",
        ])
        try test.dbQueue.write { db in
            func matches(_ query: String) throws -> [String] {
                try String.fetchAll(db, sql: """
                    SELECT book.title FROM book JOIN book_ft ON book_ft.rowid = book.id AND book_ft MATCH ?
                    ORDER BY book.id
                    """, arguments: [FTS5Pattern(matchingAllTokensIn: query)])
            }
            // Indexed at creation
            #expect(try matches("melville") == ["Moby-Dick"])
            // Insert, update, delete
            try db.execute(sql: "INSERT INTO book (author, title, year) VALUES ('Jules Verne', 'Twenty Thousand Leagues', 1870)")
            #expect(try matches("verne") == ["Twenty Thousand Leagues"])
            try db.execute(sql: "UPDATE book SET title = 'Around the World' WHERE author = 'Jules Verne'")
            #expect(try matches("leagues") == [])
            #expect(try matches("world") == ["Around the World"])
            try db.execute(sql: "DELETE FROM book WHERE author = 'Herman Melville'")
            #expect(try matches("melville") == [])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book_ft WHERE book_ft MATCH 'verne'") == 1)
        }
        // Dropping the full-text table leaves the triggers, which break the content table,
        // until they are dropped too.
        let dropSQL = try recordSchema(test) { db in
            try db.drop(table: "book_ft")
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO book (author, title) VALUES ('x', 'y')")
            }
            try db.dropFTS5SynchronizationTriggers(forTable: "book_ft")
            try db.execute(sql: "INSERT INTO book (author, title) VALUES ('x', 'y')")
            #expect(try !db.triggerExists("__book_ft_ai"))
        }
        #expect(dropSQL.filter { $0.hasPrefix("DROP") } == [
            "DROP TABLE \"book_ft\"",
            "DROP TRIGGER IF EXISTS \"__book_ft_ai\"",
            "DROP TRIGGER IF EXISTS \"__book_ft_ad\"",
            "DROP TRIGGER IF EXISTS \"__book_ft_au\"",
        ])
    }

    @Test func synchronizedTableOnHiddenRowID() throws {
        let test = try TestDatabase()
        let sql = try recordSchema(test) { db in
            try db.create(table: "memo") { t in t.column("text", .text) }
            try db.execute(sql: "INSERT INTO memo (text) VALUES ('buy milk')")
            try db.create(virtualTable: "memo_ft", using: FTS5()) { t in
                t.synchronize(withTable: "memo")
                t.column("text")
            }
            #expect(try Int.fetchOne(db, sql: "SELECT rowid FROM memo_ft WHERE memo_ft MATCH 'milk'") == 1)
        }
        #expect(sql[2] == "CREATE VIRTUAL TABLE \"memo_ft\" USING fts5(text, content='memo')")
        #expect(sql[3] == "CREATE TRIGGER \"__memo_ft_ai\" AFTER INSERT ON \"memo\" BEGIN\n    INSERT INTO \"memo_ft\"(\"rowid\", \"text\") VALUES (new.\"rowid\", new.\"text\");\nEND")
    }

    // MARK: - Patterns

    @Test func patternBuilders() {
        #expect(FTS5Pattern(matchingAnyTokenIn: "SQLite database")?.rawPattern == "sqlite OR database")
        #expect(FTS5Pattern(matchingAllTokensIn: "SQLite database")?.rawPattern == "sqlite database")
        #expect(FTS5Pattern(matchingAllPrefixesIn: "SQLite database")?.rawPattern == "sqlite* database*")
        #expect(FTS5Pattern(matchingPhrase: "SQLite database")?.rawPattern == "\"sqlite database\"")
        #expect(FTS5Pattern(matchingPrefixPhrase: "SQLite database")?.rawPattern == "^\"sqlite database\"")
        // Operators and punctuation of the input are words, never syntax.
        #expect(FTS5Pattern(matchingAnyTokenIn: "AND OR NOT")?.rawPattern == "and OR or OR not")
        #expect(FTS5Pattern(matchingAllTokensIn: "\"quoted\" (paren) x*")?.rawPattern == "quoted paren x")
        #expect(FTS5Pattern(matchingAllTokensIn: "l'été ÉLAN")?.rawPattern == "l été Élan")
        for empty in ["", "*", "  ", "\"()\""] {
            #expect(FTS5Pattern(matchingAnyTokenIn: empty) == nil)
            #expect(FTS5Pattern(matchingAllTokensIn: empty) == nil)
            #expect(FTS5Pattern(matchingAllPrefixesIn: empty) == nil)
            #expect(FTS5Pattern(matchingPhrase: empty) == nil)
            #expect(FTS5Pattern(matchingPrefixPhrase: empty) == nil)
        }
    }

    @Test func patternsFromManyThreads() {
        // The builders share one private database: concurrent calls are serialized there.
        let results = LockedValue<[Int: String]>([:])
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let pattern = FTS5Pattern(matchingAllTokensIn: "Word\(index) OTHER")?.rawPattern
            let fts3 = FTS3Pattern(matchingAnyTokenIn: "Word\(index)")?.rawPattern
            results.update { $0[index] = "\(pattern ?? "nil")|\(fts3 ?? "nil")" }
        }
        let values = results.read()
        #expect(values.count == 64)
        for index in 0..<64 {
            #expect(values[index] == "word\(index) other|word\(index)")
        }
    }

    @Test func rawPatterns() throws {
        #expect(try FTS5Pattern(rawPattern: "sqlite AND database").rawPattern == "sqlite AND database")
        #expect(try FTS5Pattern(rawPattern: "NEAR(sqlite database)").rawPattern == "NEAR(sqlite database)")
        #expect(try FTS5Pattern(rawPattern: "title: sqlite", allowedColumns: ["title"]).rawPattern == "title: sqlite")
        let syntax = expectDatabaseError(.SQLITE_ERROR) { _ = try FTS5Pattern(rawPattern: "AND") }
        #expect(syntax?.message == "fts5: syntax error near \"AND\"")
        let column = expectDatabaseError(.SQLITE_ERROR) { _ = try FTS5Pattern(rawPattern: "missing: sqlite", allowedColumns: ["title"]) }
        #expect(column?.message == "no such column: missing")
        let unterminated = expectDatabaseError(.SQLITE_ERROR) { _ = try FTS5Pattern(rawPattern: "\"sqlite") }
        #expect(unterminated?.message == "unterminated string")

        // Patterns are values
        let pattern = try #require(FTS5Pattern(matchingPhrase: "a b"))
        #expect(pattern.databaseValue == "\"a b\"".databaseValue)
        #expect(FTS5Pattern.fromDatabaseValue("sqlite*".databaseValue)?.rawPattern == "sqlite*")
        #expect(FTS5Pattern.fromDatabaseValue("AND".databaseValue) == nil)
        #expect(FTS5Pattern.fromDatabaseValue(1.databaseValue) == nil)
    }

    @Test func makeFTS5PatternValidatesAgainstTheTable() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.create(virtualTable: "book", using: FTS5()) { t in
                t.column("title")
                t.column("body")
            }
            #expect(try db.makeFTS5Pattern(rawPattern: "sqlite", forTable: "book").rawPattern == "sqlite")
            #expect(try db.makeFTS5Pattern(rawPattern: "title: sqlite", forTable: "book").rawPattern == "title: sqlite")
            let syntax = expectDatabaseError(.SQLITE_ERROR) { _ = try db.makeFTS5Pattern(rawPattern: "AND", forTable: "book") }
            #expect(syntax?.message == "fts5: syntax error near \"AND\"")
            let column = expectDatabaseError(.SQLITE_ERROR) { _ = try db.makeFTS5Pattern(rawPattern: "missing: sqlite", forTable: "book") }
            #expect(column?.message == "no such column: missing")
            let table = expectDatabaseError(.SQLITE_ERROR) { _ = try db.makeFTS5Pattern(rawPattern: "sqlite", forTable: "nope") }
            #expect(table?.message == "no such table: nope")
        }
    }

    // MARK: - Query interface

    @Test func matching() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try db.create(virtualTable: "note", using: FTS5()) { t in
                t.column("body")
            }
            for body in ["SQLite is a database engine", "A database of databases", "Swift and SQLite", "Nothing here"] {
                try Note(body: body).insert(db)
            }
            recorder.record(db)
            let pattern = FTS5Pattern(matchingAllTokensIn: "SQLite database")
            #expect(try Note.matching(pattern).fetchAll(db) == [Note(body: "SQLite is a database engine")])
            #expect(try Note.all().matching(FTS5Pattern(matchingAnyTokenIn: "swift engine")).fetchCount(db) == 2)
            #expect(try Note.matching(nil as FTS5Pattern?).fetchAll(db) == [])
            #expect(try Note.filter(Column("body").match(FTS5Pattern(matchingPrefixPhrase: "swift")!)).fetchAll(db) == [Note(body: "Swift and SQLite")])
            let ranked = try Note.matching(FTS5Pattern(matchingAnyTokenIn: "database")).order(Column.rank).fetchAll(db)
            #expect(ranked.map(\.body) == ["A database of databases", "SQLite is a database engine"])
            let scores = try Row.fetchAll(db, sql: "SELECT bm25(note) AS score FROM note WHERE note MATCH ? ORDER BY bm25(note)", arguments: [FTS5Pattern(matchingAnyTokenIn: "database")])
            #expect(scores.count == 2)
            #expect((scores[0]["score"] as Double) <= (scores[1]["score"] as Double))
        }
        #expect(recorder.dataSQL == [
            "SELECT * FROM \"note\" WHERE \"note\" MATCH ?",
            "SELECT COUNT(*) FROM \"note\" WHERE \"note\" MATCH ?",
            "SELECT * FROM \"note\" WHERE ?",
            "SELECT * FROM \"note\" WHERE \"body\" MATCH ?",
            "SELECT * FROM \"note\" WHERE \"note\" MATCH ? ORDER BY \"rank\"",
            "SELECT bm25(note) AS score FROM note WHERE note MATCH ? ORDER BY bm25(note)",
        ])
    }

    @Test func matchingAnAssociation() throws {
        struct Shelf: TableRecord, FetchableRecord, Decodable {
            var id: Int64
            var name: String
            static let notes = hasMany(Table("note"), using: ForeignKey(["shelfId"]))
        }
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try db.create(table: "shelf") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text)
            }
            try db.create(virtualTable: "note", using: FTS5()) { t in
                t.column("body")
                t.column("shelfId").notIndexed()
            }
            try db.execute(sql: """
                INSERT INTO shelf (id, name) VALUES (1, 'kitchen'), (2, 'office');
                INSERT INTO note (body, shelfId) VALUES ('bake bread', 1), ('file taxes', 2), ('bread knife', 2);
                """)
            recorder.record(db)
            // TableRequest.matching on an association: the shelves with a note about bread.
            let shelves = try Shelf
                .joining(required: Shelf.notes.matching(FTS5Pattern(matchingAllTokensIn: "bread")))
                .distinct()
                .order(Column("id"))
                .fetchAll(db)
            #expect(shelves.map(\.name) == ["kitchen", "office"])
            let noShelf = try Shelf
                .joining(required: Shelf.notes.matching(FTS5Pattern(matchingAllTokensIn: "taxes bread")))
                .fetchAll(db)
            #expect(noShelf.isEmpty)
        }
        #expect(recorder.dataSQL.first == #"SELECT DISTINCT "shelf".* FROM "shelf" JOIN "note" ON ("note"."shelfId" = "shelf"."id") AND ("note" MATCH ?) ORDER BY "shelf"."id""#)
    }

    @Test func matchingARegularTableFails() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.create(table: "note") { t in t.column("body", .text) }
            try Note(body: "x").insert(db)
            let error = expectDatabaseError(.SQLITE_ERROR) {
                _ = try Note.matching(FTS5Pattern(matchingAllTokensIn: "x")).fetchAll(db)
            }
            #expect(error?.sql == "SELECT * FROM \"note\" WHERE \"note\" MATCH ?")
        }
    }

    // MARK: - API

    @Test func api() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let api = FTS5.api(db)
            #expect(api.pointee.iVersion >= 2)
            #expect(api.pointee.xCreateTokenizer != nil)
        }
    }
}
