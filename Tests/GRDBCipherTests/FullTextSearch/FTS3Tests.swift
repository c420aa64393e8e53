import Foundation
import Testing
@testable import GRDBCipher

private struct Poem: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "poem"
    var verse: String
}

@Suite("FTS3")
struct FTS3Tests {
    private func recordSchema(_ body: (Database) throws -> Void) throws -> [String] {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            recorder.record(db)
            try body(db)
        }
        return recorder.sql.filter { $0.hasPrefix("CREATE") }
    }

    @Test func createTables() throws {
        let sql = try recordSchema { db in
            try db.create(virtualTable: "bare", using: FTS3())
            try db.create(virtualTable: "document", using: FTS3()) { t in
                t.column("content")
            }
            try db.create(virtualTable: "stemmed", using: FTS3()) { t in
                t.tokenizer = .porter
                t.column("title")
                t.column("body")
            }
            try db.create(virtualTable: "simple", using: FTS3()) { t in
                t.tokenizer = .simple
                t.column("body")
            }
            try db.create(virtualTable: "accents", using: FTS3()) { t in
                t.tokenizer = .unicode61(diacritics: .keep, separators: ["X"], tokenCharacters: ["-", "."])
                t.column("body")
            }
            try db.create(virtualTable: "folded", using: FTS3()) { t in
                t.tokenizer = .unicode61(diacritics: .remove)
                t.column("body")
            }
            try db.create(virtualTable: "legacy", using: FTS3()) { t in
                t.tokenizer = .unicode61()
                t.column("my body")
            }
        }
        #expect(sql == [
            "CREATE VIRTUAL TABLE \"bare\" USING fts3",
            "CREATE VIRTUAL TABLE \"document\" USING fts3(content)",
            "CREATE VIRTUAL TABLE \"stemmed\" USING fts3(title, body, tokenize=porter)",
            "CREATE VIRTUAL TABLE \"simple\" USING fts3(body, tokenize=simple)",
            "CREATE VIRTUAL TABLE \"accents\" USING fts3(body, tokenize=unicode61 \"remove_diacritics=0\" \"separators=X\" \"tokenchars=-.\")",
            "CREATE VIRTUAL TABLE \"folded\" USING fts3(body, tokenize=unicode61 \"remove_diacritics=2\")",
            // A column name that is not a plain identifier is quoted.
            "CREATE VIRTUAL TABLE \"legacy\" USING fts3(\"my body\", tokenize=unicode61)",
        ])
    }

    @Test func tokenizersMatchAsDocumented() throws {
        let test = try TestDatabase()
        let tokenizers: [(String, FTS3TokenizerDescriptor)] = [("simple", .simple), ("porter", .porter), ("unicode61", .unicode61())]
        let cases: [(content: String, query: String, matches: [Bool])] = [
            ("Foo", "Foo", [true, true, true]),
            ("Foo", "FOO", [true, true, true]),
            ("Jérôme", "Jérôme", [true, true, true]),
            ("Jérôme", "JÉRÔME", [false, false, true]),
            ("Jérôme", "Jerome", [false, false, true]),
            ("Database", "Databases", [false, true, false]),
            ("Frustration", "Frustrated", [false, true, false]),
        ]
        try test.dbQueue.write { db in
            for (name, tokenizer) in tokenizers {
                try db.create(virtualTable: name, using: FTS3()) { t in
                    t.tokenizer = tokenizer
                    t.column("content")
                }
            }
            for (content, query, matches) in cases {
                for ((name, _), expected) in zip(tokenizers, matches) {
                    try db.execute(sql: "DELETE FROM \(name)")
                    try db.execute(sql: "INSERT INTO \(name) (content) VALUES (?)", arguments: [content])
                    // The query as typed: a phrase, so that SQLite's tokenizer sees it.
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(name) WHERE \(name) MATCH ?", arguments: ["\"\(query)\""])!
                    #expect((count == 1) == expected, "\(name): \(content) / \(query)")
                }
            }
        }
    }

    @Test func tokenize() throws {
        #expect(try FTS3.tokenize("SQLite database") == ["sqlite", "database"])
        #expect(try FTS3.tokenize("Gustave Doré") == ["gustave", "doré"])
        #expect(try FTS3.tokenize("SQLite database", withTokenizer: .porter) == ["sqlite", "databas"])
        #expect(try FTS3.tokenize("Gustave Doré", withTokenizer: .unicode61()) == ["gustave", "dore"])
        #expect(try FTS3.tokenize("Gustave Doré", withTokenizer: .unicode61(diacritics: .keep)) == ["gustave", "doré"])
        #expect(try FTS3.tokenize("a-b c", withTokenizer: .unicode61(tokenCharacters: ["-"])) == ["a-b", "c"])
        #expect(try FTS3.tokenize("") == [])
        #expect(try FTS3.tokenize("*!?") == [])
    }

    @Test func patternBuilders() {
        #expect(FTS3Pattern(matchingAnyTokenIn: "SQLite database")?.rawPattern == "sqlite OR database")
        #expect(FTS3Pattern(matchingAllTokensIn: "SQLite database")?.rawPattern == "sqlite database")
        #expect(FTS3Pattern(matchingAllPrefixesIn: "SQLite database")?.rawPattern == "sqlite* database*")
        #expect(FTS3Pattern(matchingPhrase: "SQLite database")?.rawPattern == "\"sqlite database\"")
        // Operators and punctuation of the input are words, never syntax.
        #expect(FTS3Pattern(matchingAnyTokenIn: "AND OR NOT")?.rawPattern == "and OR or OR not")
        #expect(FTS3Pattern(matchingAllTokensIn: "\"quoted\" (paren) -x*")?.rawPattern == "quoted paren x")
        #expect(FTS3Pattern(matchingAllTokensIn: "Jérôme ÉLAN")?.rawPattern == "jérôme Élan")
        for empty in ["", "*", " - ", "\"()\""] {
            #expect(FTS3Pattern(matchingAnyTokenIn: empty) == nil)
            #expect(FTS3Pattern(matchingAllTokensIn: empty) == nil)
            #expect(FTS3Pattern(matchingAllPrefixesIn: empty) == nil)
            #expect(FTS3Pattern(matchingPhrase: empty) == nil)
        }
    }

    @Test func rawPatterns() throws {
        #expect(try FTS3Pattern(rawPattern: "sqlite AND database").rawPattern == "sqlite AND database")
        #expect(try FTS3Pattern(rawPattern: "sqlite OR data*").rawPattern == "sqlite OR data*")
        #expect(try FTS3Pattern(rawPattern: "\"sqlite database\"").rawPattern == "\"sqlite database\"")
        // This SQLCipher is built without SQLITE_ENABLE_FTS3_PARENTHESIS: AND is a plain word
        // (GRDB's documentation shows an error, with SQLite builds that enable it).
        #expect(try FTS3Pattern(rawPattern: "AND").rawPattern == "AND")
        for invalid in ["OR", "sqlite OR", "\"sqlite", "-sqlite", "NEAR"] {
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try FTS3Pattern(rawPattern: invalid) }
            #expect(error?.message == "malformed MATCH expression: [\(invalid)]")
        }
        let pattern = try #require(FTS3Pattern(matchingPhrase: "a b"))
        #expect(pattern.databaseValue == "\"a b\"".databaseValue)
        #expect(FTS3Pattern.fromDatabaseValue("sqlite*".databaseValue)?.rawPattern == "sqlite*")
        #expect(FTS3Pattern.fromDatabaseValue("sqlite OR".databaseValue) == nil)
        #expect(FTS3Pattern.fromDatabaseValue(DatabaseValue.null) == nil)
    }

    @Test func matching() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try db.create(virtualTable: "poem", using: FTS3()) { t in
                t.column("verse")
            }
            for verse in ["The woods are lovely, dark and deep", "But I have promises to keep", "And miles to go before I sleep"] {
                try Poem(verse: verse).insert(db)
            }
            recorder.record(db)
            #expect(try Poem.matching(FTS3Pattern(matchingAllTokensIn: "DARK woods")).fetchAll(db).map(\.verse) == ["The woods are lovely, dark and deep"])
            #expect(try Poem.all().matching(FTS3Pattern(matchingAnyTokenIn: "keep sleep")).fetchCount(db) == 2)
            #expect(try Poem.matching(FTS3Pattern(matchingAllPrefixesIn: "prom")).fetchCount(db) == 1)
            #expect(try Poem.matching(FTS3Pattern(matchingPhrase: "miles to go")).fetchCount(db) == 1)
            #expect(try Poem.matching(FTS3Pattern(matchingPhrase: "go miles")).fetchCount(db) == 0)
            #expect(try Poem.matching(FTS3Pattern(matchingAnyTokenIn: "")).fetchCount(db) == 0)
            #expect(try Poem.filter(Column("verse").match(FTS3Pattern(matchingAllTokensIn: "promises"))).fetchCount(db) == 1)
            #expect(try Poem.filter(Column("verse").match(nil)).fetchCount(db) == 0)
            let raw = try Poem.fetchAll(db, sql: "SELECT * FROM poem WHERE poem MATCH ?", arguments: [FTS3Pattern(rawPattern: "lovely OR miles")])
            #expect(raw.count == 2)
        }
        #expect(recorder.dataSQL == [
            "SELECT * FROM \"poem\" WHERE \"poem\" MATCH ?",
            "SELECT COUNT(*) FROM \"poem\" WHERE \"poem\" MATCH ?",
            "SELECT COUNT(*) FROM \"poem\" WHERE \"poem\" MATCH ?",
            "SELECT COUNT(*) FROM \"poem\" WHERE \"poem\" MATCH ?",
            "SELECT COUNT(*) FROM \"poem\" WHERE \"poem\" MATCH ?",
            "SELECT COUNT(*) FROM \"poem\" WHERE ?",
            "SELECT COUNT(*) FROM \"poem\" WHERE \"verse\" MATCH ?",
            "SELECT COUNT(*) FROM \"poem\" WHERE \"verse\" MATCH NULL",
            "SELECT * FROM poem WHERE poem MATCH ?",
        ])
    }
}
