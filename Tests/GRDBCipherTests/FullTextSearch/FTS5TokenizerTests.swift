import Foundation
import Testing
@testable import GRDBCipher
import CSQLCipher

// MARK: - Custom tokenizers of the tests

/// The synonyms wrapper of GRDB's guide: "first" and "1st" index each other.
private final class SynonymsTokenizer: FTS5WrapperTokenizer {
    static let name = "synonyms"
    let wrappedTokenizer: any FTS5Tokenizer
    let synonyms: [Set<String>] = [["first", "1st"], ["second", "2nd"]]

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
        // The token first, then its synonyms, colocated.
        try tokenCallback(token, flags)
        for synonym in synonyms.sorted() where synonym != token {
            try tokenCallback(synonym, flags.union(.colocated))
        }
    }
}

/// The Latin ASCII folding wrapper of GRDB's guide: "Großmann" and "GROSSMANN" give the same
/// "grossmann" token.
private final class LatinAsciiTokenizer: FTS5WrapperTokenizer {
    static let name = "latinascii"
    let wrappedTokenizer: any FTS5Tokenizer

    init(db: Database, arguments: [String]) throws {
        wrappedTokenizer = try db.makeTokenizer(.unicode61())
    }

    func accept(token: String, flags: FTS5TokenFlags, for tokenization: FTS5Tokenization, tokenCallback: FTS5WrapperTokenCallback) throws {
        if let token = token.applyingTransform(StringTransform("Latin-ASCII; Lower"), reverse: false) {
            try tokenCallback(token, flags)
        }
    }
}

/// A wrapper that wraps unicode61 unless its arguments name another tokenizer, and drops
/// stop words.
private final class StopWordsTokenizer: FTS5WrapperTokenizer {
    static let name = "stopwords"
    let wrappedTokenizer: any FTS5Tokenizer
    let stopWords: Set<String> = ["the", "a", "and"]

    init(db: Database, arguments: [String]) throws {
        if arguments.isEmpty {
            wrappedTokenizer = try db.makeTokenizer(.unicode61())
        } else {
            wrappedTokenizer = try db.makeTokenizer(FTS5TokenizerDescriptor(components: arguments))
        }
    }

    func accept(token: String, flags: FTS5TokenFlags, for tokenization: FTS5Tokenization, tokenCallback: FTS5WrapperTokenCallback) throws {
        if !stopWords.contains(token) {
            try tokenCallback(token, flags)
        }
    }
}

/// A low-level tokenizer that works on bytes: tokens are the runs of bytes between commas,
/// kept as they are (case-sensitive). Its arguments are recorded; "fail" makes it refuse
/// to be created.
private final class CommaTokenizer: FTS5CustomTokenizer {
    static let name = "comma"
    nonisolated(unsafe) static var lastArguments: [String] = []

    init(db: Database, arguments: [String]) throws {
        if arguments.contains("fail") {
            throw DatabaseError(message: "comma: bad argument")
        }
        Self.lastArguments = arguments
    }

    func tokenize(context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?, nText: CInt, tokenCallback: @escaping FTS5TokenCallback) -> CInt {
        guard let pText else { return SQLITE_OK }
        var start: CInt = 0
        for index in 0...nText {
            if index == nText || pText[Int(index)] == CChar(UInt8(ascii: ",")) {
                if index > start {
                    let code = tokenCallback(context, 0, pText + Int(start), index - start, start, index)
                    if code != SQLITE_OK { return code }
                }
                start = index + 1
            }
        }
        return SQLITE_OK
    }
}

@Suite("FTS5 tokenizers", .serialized)
struct FTS5TokenizerTests {
    /// The connection's fts5_api is SQLite's memory, freed when the connection closes: after
    /// close(), asking for a tokenizer throws instead of reading it (AddressSanitizer reports
    /// a use after free otherwise).
    @Test func tokenizerAfterCloseThrows() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in _ = try db.makeTokenizer(.ascii()) }
        try test.dbQueue.close()
        expectDatabaseError(.SQLITE_MISUSE) {
            try test.dbQueue.writeWithoutTransaction { db in _ = try db.makeTokenizer(.ascii()) }
        }
    }

    private func tokens(_ list: [(token: String, flags: FTS5TokenFlags)]) -> [String] {
        list.map { $0.flags.contains(.colocated) ? "+" + $0.token : $0.token }
    }

    @Test func builtInTokenizers() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let ascii = try db.makeTokenizer(.ascii())
            #expect(tokens(try ascii.tokenize(query: "SQLite database")) == ["sqlite", "database"])
            #expect(tokens(try ascii.tokenize(document: "Jérôme ÉLAN")) == ["jérôme", "Élan"])
            let unicode61 = try db.makeTokenizer(.unicode61())
            #expect(tokens(try unicode61.tokenize(document: "Jérôme ÉLAN")) == ["jerome", "elan"])
            let keep = try db.makeTokenizer(.unicode61(diacritics: .keep))
            #expect(tokens(try keep.tokenize(document: "Jérôme")) == ["jérôme"])
            let porter = try db.makeTokenizer(.porter())
            #expect(tokens(try porter.tokenize(query: "SQLite databases frustrated")) == ["sqlite", "databas", "frustrat"])
            let trigram = try db.makeTokenizer(FTS5TokenizerDescriptor(components: ["trigram"]))
            #expect(tokens(try trigram.tokenize(document: "Abcd")) == ["abc", "bcd"])
            let separators = try db.makeTokenizer(.ascii(separators: ["x"], tokenCharacters: ["-"]))
            #expect(tokens(try separators.tokenize(document: "fooxbar-baz")) == ["foo", "bar-baz"])
            #expect(tokens(try ascii.tokenize(document: "")) == [])
        }
    }

    @Test func unknownTokenizersAndBadArguments() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let unknown = expectDatabaseError(.SQLITE_ERROR) { _ = try db.makeTokenizer(FTS5TokenizerDescriptor(components: ["nope"])) }
            #expect(unknown?.message == "no such tokenizer: nope")
            expectDatabaseError(.SQLITE_ERROR) { _ = try db.makeTokenizer(FTS5TokenizerDescriptor(components: ["ascii", "bad", "argument"])) }
        }
    }

    @Test func descriptors() {
        #expect(FTS5TokenizerDescriptor.porter(wrapping: .unicode61(diacritics: .keep)).components == ["porter", "unicode61", "remove_diacritics", "0"])
        #expect(FTS5TokenizerDescriptor.unicode61(diacritics: .remove, categories: "L*", separators: ["b", "a"], tokenCharacters: ["c"]).components
                == ["unicode61", "remove_diacritics", "2", "categories", "L*", "separators", "ab", "tokenchars", "c"])
        #expect(FTS5TokenizerDescriptor.ascii().components == ["ascii"])
        #expect(SynonymsTokenizer.tokenizerDescriptor(arguments: ["x"]).components == ["synonyms", "x"])
        #expect(FTS5Tokenization.query.rawValue == 1)
        #expect(FTS5Tokenization.prefix.rawValue == 2)
        #expect(FTS5Tokenization.document.rawValue == 4)
        #expect(FTS5Tokenization.aux.rawValue == 8)
        #expect(FTS5TokenFlags.colocated.rawValue == 1)
    }

    @Test func synonyms() throws {
        var config = Configuration()
        config.prepareDatabase { db in
            db.add(tokenizer: SynonymsTokenizer.self)
        }
        let test = try TestDatabase(configuration: config)
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            recorder.record(db)
            try db.create(virtualTable: "documents", using: FTS5()) { t in
                t.tokenizer = SynonymsTokenizer.tokenizerDescriptor()
                t.column("content")
            }
            try db.execute(sql: "INSERT INTO documents VALUES (?)", arguments: ["I won first place"])
            try db.execute(sql: "INSERT INTO documents VALUES (?)", arguments: ["She came 2nd"])
            func count(_ query: String) throws -> Int {
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE documents MATCH ?", arguments: [FTS5Pattern(matchingAllTokensIn: query)])!
            }
            #expect(try count("first") == 1)
            #expect(try count("1st place") == 1)
            #expect(try count("second") == 1)
            #expect(try count("third") == 0)
            let tokenizer = try db.makeTokenizer(SynonymsTokenizer.tokenizerDescriptor())
            #expect(tokens(try tokenizer.tokenize(document: "I won FIRST place")) == ["i", "won", "first", "+1st", "place"])
            #expect(tokens(try tokenizer.tokenize(query: "first")) == ["first"])
        }
        #expect(recorder.sql.contains("CREATE VIRTUAL TABLE \"documents\" USING fts5(content, tokenize='''synonyms''')"))
    }

    @Test func latinAscii() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            db.add(tokenizer: LatinAsciiTokenizer.self)
            try db.create(virtualTable: "documents", using: FTS5()) { t in
                t.tokenizer = LatinAsciiTokenizer.tokenizerDescriptor()
                t.column("authors")
                t.column("title")
            }
            try db.execute(sql: "INSERT INTO documents VALUES (?, ?)", arguments: ["Großmann", "Encyclopædia"])
            for query in ["grossmann", "GROSSMANN", "Großmann", "encyclopaedia"] {
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE documents MATCH ?", arguments: [FTS5Pattern(matchingAnyTokenIn: query)])
                #expect(count == 1, "\(query)")
            }
        }
    }

    @Test func wrapperArgumentsAndDroppedTokens() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            db.add(tokenizer: StopWordsTokenizer.self)
            let ascii = FTS5TokenizerDescriptor.ascii()
            try db.create(virtualTable: "documents", using: FTS5()) { t in
                t.tokenizer = StopWordsTokenizer.tokenizerDescriptor(arguments: ascii.components)
                t.column("content")
            }
            try db.execute(sql: "INSERT INTO documents VALUES ('The cat and the hat')")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE documents MATCH 'cat'") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE documents MATCH 'the'") == 0)
            // Wrapping ascii: diacritics stay.
            let tokenizer = try db.makeTokenizer(StopWordsTokenizer.tokenizerDescriptor(arguments: ascii.components))
            #expect(tokens(try tokenizer.tokenize(document: "the Élan and a café")) == ["Élan", "café"])
            let unicode = try db.makeTokenizer(StopWordsTokenizer.tokenizerDescriptor())
            #expect(tokens(try unicode.tokenize(document: "the Élan and a café")) == ["elan", "cafe"])
        }
    }

    @Test func lowLevelCustomTokenizer() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            db.add(tokenizer: CommaTokenizer.self)
            try db.create(virtualTable: "tags", using: FTS5()) { t in
                t.tokenizer = CommaTokenizer.tokenizerDescriptor(arguments: ["one", "it's two"])
                t.column("list")
            }
            try db.execute(sql: "INSERT INTO tags VALUES ('red,Green,blue sky')")
            #expect(CommaTokenizer.lastArguments == ["one", "it's two"])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tags WHERE tags MATCH '\"blue sky\"'") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tags WHERE tags MATCH 'Green'") == 1)
            // Case-sensitive: no lowercasing
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tags WHERE tags MATCH 'green'") == 0)
            let tokenizer = try db.makeTokenizer(CommaTokenizer.tokenizerDescriptor())
            #expect(tokens(try tokenizer.tokenize(document: "a,,b,")) == ["a", "b"])
            // A tokenizer that refuses its arguments makes table creation fail.
            expectDatabaseError(.SQLITE_ERROR) {
                try db.create(virtualTable: "bad", using: FTS5()) { t in
                    t.tokenizer = CommaTokenizer.tokenizerDescriptor(arguments: ["fail"])
                    t.column("list")
                }
            }
            #expect(try !db.tableExists("bad"))
        }
    }

    @Test func tokenizerInPoolReaders() throws {
        let directory = try TemporaryDirectory()
        var config = Configuration()
        config.prepareDatabase { db in
            db.add(tokenizer: SynonymsTokenizer.self)
        }
        let pool = try DatabasePool(path: directory.path("pool.sqlite"), configuration: TestDatabase.configure(config))
        try pool.write { db in
            try db.create(virtualTable: "documents", using: FTS5()) { t in
                t.tokenizer = SynonymsTokenizer.tokenizerDescriptor()
                t.column("content")
            }
            try db.execute(sql: "INSERT INTO documents VALUES ('second thoughts')")
        }
        let count = try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE documents MATCH '2nd'")
        }
        #expect(count == 1)
    }

    @Test func tableWithUnregisteredTokenizerFails() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            db.add(tokenizer: SynonymsTokenizer.self)
            try db.create(virtualTable: "documents", using: FTS5()) { t in
                t.tokenizer = SynonymsTokenizer.tokenizerDescriptor()
                t.column("content")
            }
        }
        // Another connection, without the tokenizer: the table can not be used.
        let other = try test.makeQueue()
        try other.read { db in
            _ = expectDatabaseError(.SQLITE_ERROR) {
                _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM documents WHERE documents MATCH 'x'")
            }
        }
    }
}
