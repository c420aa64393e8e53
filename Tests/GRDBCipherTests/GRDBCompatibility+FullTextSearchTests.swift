// A GRDB 7 program, as a GRDB user writes it, with only `import GRDB` changed to
// `import GRDBCipher` (and no @testable import): full-text search with FTS3, FTS4 and FTS5,
// custom FTS5 tokenizers and virtual tables, in the call shapes of GRDB's guides.
import Foundation
import GRDBCipher
import Testing

private struct Book: Codable, FetchableRecord, PersistableRecord {
    var author: String
    var title: String
    var body: String

    enum Columns {
        static let author = Column(CodingKeys.author)
        static let title = Column(CodingKeys.title)
        static let body = Column(CodingKeys.body)
    }
}

private struct Document: Codable, FetchableRecord, PersistableRecord {
    var content: String
}

private final class CompatSynonymsTokenizer: FTS5WrapperTokenizer {
    static let name = "synonyms"
    let wrappedTokenizer: any FTS5Tokenizer
    let synonyms: [Set<String>] = [["first", "1st"]]

    init(db: Database, arguments: [String]) throws {
        wrappedTokenizer = try db.makeTokenizer(.unicode61())
    }

    func synonyms(for token: String) -> Set<String>? {
        synonyms.first { $0.contains(token) }
    }

    func accept(token: String, flags: FTS5TokenFlags, for tokenization: FTS5Tokenization, tokenCallback: FTS5WrapperTokenCallback) throws {
        if tokenization.contains(.query) {
            try tokenCallback(token, flags)
            return
        }
        guard let synonyms = synonyms(for: token) else {
            try tokenCallback(token, flags)
            return
        }
        for (index, synonym) in synonyms.enumerated() {
            let synonymFlags = (index == 0) ? flags : flags.union(.colocated)
            try tokenCallback(synonym, synonymFlags)
        }
    }
}

private func makeQueue(_ configure: (inout Configuration) -> Void = { _ in }) throws -> DatabaseQueue {
    var config = Configuration()
    if ProcessInfo.processInfo.environment["GRDBCIPHER_TEST_ENCRYPTION"] == "1" {
        config.prepareDatabase { db in
            try db.usePassphrase("x'2DD29CA851E7B56E4697B0E1F08507293D761A05CE4D1B628663F411A8086D99'")
        }
    }
    configure(&config)
    return try DatabaseQueue(configuration: config)
}

@Suite("GRDB compatibility: full-text search")
struct GRDBCompatibilityFullTextSearchTests {
    @Test func fts4GuideExample() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            try db.create(virtualTable: "book", using: FTS4()) { t in
                t.tokenizer = .porter
                t.column("author")
                t.column("title")
                t.column("body")
            }
            try Book(author: "Herman Melville", title: "Moby-Dick", body: "Call me Ishmael. Some years ago...").insert(db)
            try db.execute(
                sql: "INSERT INTO book (author, title, body) VALUES (?, ?, ?)",
                arguments: ["Jules Verne", "Twenty Thousand Leagues", "The year 1866 was signalised..."])

            let pattern = FTS3Pattern(matchingPhrase: "Moby-Dick")
            let books = try Book.matching(pattern).fetchAll(db)
            #expect(books.map(\.title) == ["Moby-Dick"])
            let sqlBooks = try Book.fetchAll(db, sql: "SELECT * FROM book WHERE book MATCH ?", arguments: [pattern])
            #expect(sqlBooks.map(\.title) == ["Moby-Dick"])
            let years = try Book.filter(Book.Columns.body.match(FTS3Pattern(matchingAllTokensIn: "years"))).fetchCount(db)
            #expect(years == 2) // porter: "years" matches "year"
            let tokens = try FTS3.tokenize("SQLite database", withTokenizer: .porter)
            #expect(tokens == ["sqlite", "databas"])
        }
    }

    @Test func fts5GuideExample() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            try db.create(virtualTable: "document", using: FTS5()) { t in
                t.tokenizer = .porter(wrapping: .unicode61(diacritics: .keep))
                t.column("content")
            }
            try Document(content: "SQLite is a database").insert(db)
            try Document(content: "Databases everywhere").insert(db)
            let pattern = FTS5Pattern(matchingAnyTokenIn: "database")
            let documents = try Document.matching(pattern).order(Column.rank).fetchAll(db)
            #expect(documents.count == 2)
            let raw = try db.makeFTS5Pattern(rawPattern: "content: sqlite", forTable: "document")
            #expect(try Document.matching(raw).fetchCount(db) == 1)
            do {
                _ = try db.makeFTS5Pattern(rawPattern: "missing: sqlite", forTable: "document")
                Issue.record("expected an error")
            } catch let error as DatabaseError {
                #expect(error.resultCode == .SQLITE_ERROR)
            }
            let ascii = try db.makeTokenizer(.ascii())
            var tokens: [String] = []
            for (token, _) in try ascii.tokenize(query: "SQLite database") {
                tokens.append(token)
            }
            #expect(tokens == ["sqlite", "database"])
        }
    }

    @Test func externalContentTables() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("author", .text)
                t.column("title", .text)
                t.column("content", .text)
            }
            try db.execute(sql: "INSERT INTO book (author, title, content) VALUES ('Melville', 'Moby-Dick', 'whales')")
            try db.create(virtualTable: "book_ft", using: FTS5()) { t in
                t.synchronize(withTable: "book")
                t.column("author")
                t.column("title")
                t.column("content")
            }
            let sql = """
                SELECT book.*
                FROM book
                JOIN book_ft
                    ON book_ft.rowid = book.rowid
                    AND book_ft MATCH ?
                """
            let pattern = FTS5Pattern(matchingAllTokensIn: "whales")
            #expect(try Row.fetchAll(db, sql: sql, arguments: [pattern]).count == 1)
            try db.drop(table: "book_ft")
            try db.dropFTS5SynchronizationTriggers(forTable: "book_ft")

            try db.create(virtualTable: "book_ft4", using: FTS4()) { t in
                t.synchronize(withTable: "book")
                t.column("title")
            }
            try db.drop(table: "book_ft4")
            try db.dropFTS4SynchronizationTriggers(forTable: "book_ft4")
            try db.execute(sql: "DELETE FROM book")
        }
    }

    @Test func customTokenizer() throws {
        let dbQueue = try makeQueue { config in
            config.prepareDatabase { db in
                db.add(tokenizer: CompatSynonymsTokenizer.self)
            }
        }
        try dbQueue.write { db in
            try db.create(virtualTable: "documents", using: FTS5()) { t in
                t.tokenizer = CompatSynonymsTokenizer.tokenizerDescriptor()
                t.column("content")
            }
            try db.execute(sql: "INSERT INTO documents VALUES (?)", arguments: ["I won first place"])
            let pattern = FTS5Pattern(matchingAnyTokenIn: "1st")
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE documents MATCH ?", arguments: [pattern])
            #expect(count == 1)
            let descriptor = FTS5TokenizerDescriptor(components: ["ascii"])
            #expect(CompatSynonymsTokenizer.tokenizerDescriptor(arguments: descriptor.components).components == ["synonyms", "ascii"])
        }
    }

    @Test func virtualTables() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            try db.create(virtualTable: "point", using: "rtree(id, minX, maxX)")
            try db.create(virtualTable: "point", ifNotExists: true, using: "rtree(id, minX, maxX)")
            try db.create(virtualTable: "draft", options: [.temporary, .ifNotExists], using: FTS5()) { t in
                t.column("text")
            }
            try db.create(virtualTable: "note", ifNotExists: true, using: FTS3()) { t in
                t.column("text")
            }
            #expect(try db.tableExists("point"))
            #expect(try db.tableExists("note"))
        }
    }
}
