/// A full-text search pattern for FTS5 tables.
///
/// Build patterns from any string, such as a user's input, with the failable initializers
/// (nil when the string has no token), or validate a raw pattern against a table with
/// ``Database/makeFTS5Pattern(rawPattern:forTable:)``:
///
/// ```swift
/// let pattern = FTS5Pattern(matchingAllTokensIn: "SQLite database") // sqlite database
/// let documents = try Document.matching(pattern).order(Column.rank).fetchAll(db)
///
/// let raw = try db.makeFTS5Pattern(rawPattern: "title: sqlite", forTable: "document")
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#full_text_query_syntax>
public struct FTS5Pattern: Sendable {
    /// The raw pattern, as given to the `MATCH` operator.
    public let rawPattern: String

    /// Creates a pattern from a raw pattern, after SQLite has checked it against the query
    /// syntax, with the column filters limited to `allowedColumns`.
    ///
    /// ```swift
    /// let pattern = try FTS5Pattern(rawPattern: "title: sqlite", allowedColumns: ["title", "body"])
    /// ```
    ///
    /// - throws: A ``DatabaseError`` when the pattern is not valid.
    public init(rawPattern: String, allowedColumns: [String] = []) throws {
        try FullTextScratchDatabase.shared.validate(fts5Pattern: rawPattern, columns: allowedColumns)
        self.rawPattern = rawPattern
    }

    init(checkedPattern: String) {
        rawPattern = checkedPattern
    }

    /// A pattern that matches documents that contain any of the words of the string.
    ///
    /// ```swift
    /// FTS5Pattern(matchingAnyTokenIn: "SQLite database") // sqlite OR database
    /// FTS5Pattern(matchingAnyTokenIn: "*")               // nil
    /// ```
    public init?(matchingAnyTokenIn string: String) {
        guard let tokens = Self.tokens(string) else { return nil }
        self.init(checkedPattern: tokens.joined(separator: " OR "))
    }

    /// A pattern that matches documents that contain all the words of the string.
    ///
    /// ```swift
    /// FTS5Pattern(matchingAllTokensIn: "SQLite database") // sqlite database
    /// ```
    public init?(matchingAllTokensIn string: String) {
        guard let tokens = Self.tokens(string) else { return nil }
        self.init(checkedPattern: tokens.joined(separator: " "))
    }

    /// A pattern that matches documents that contain words that start with each word of
    /// the string.
    ///
    /// ```swift
    /// FTS5Pattern(matchingAllPrefixesIn: "SQLite data") // sqlite* data*
    /// ```
    public init?(matchingAllPrefixesIn string: String) {
        guard let tokens = Self.tokens(string) else { return nil }
        self.init(checkedPattern: tokens.map { $0 + "*" }.joined(separator: " "))
    }

    /// A pattern that matches documents that contain the words of the string, in the same
    /// order, next to each other.
    ///
    /// ```swift
    /// FTS5Pattern(matchingPhrase: "SQLite database") // "sqlite database"
    /// ```
    public init?(matchingPhrase string: String) {
        guard let tokens = Self.tokens(string) else { return nil }
        self.init(checkedPattern: "\"" + tokens.joined(separator: " ") + "\"")
    }

    /// A pattern that matches documents whose content starts with the words of the string.
    ///
    /// ```swift
    /// FTS5Pattern(matchingPrefixPhrase: "SQLite database") // ^"sqlite database"
    /// ```
    public init?(matchingPrefixPhrase string: String) {
        guard let tokens = Self.tokens(string) else { return nil }
        self.init(checkedPattern: "^\"" + tokens.joined(separator: " ") + "\"")
    }

    /// The tokens of the `ascii` tokenizer (words with their ASCII letters lowercased, so
    /// that they are never operators), or nil when there is none.
    private static func tokens(_ string: String) -> [String]? {
        guard let tokens = try? FullTextScratchDatabase.shared.fts5QueryTokens(string, tokenizer: .ascii()),
              !tokens.isEmpty
        else { return nil }
        return tokens
    }
}

extension FTS5Pattern: DatabaseValueConvertible {
    /// The raw pattern, as text.
    public var databaseValue: DatabaseValue {
        rawPattern.databaseValue
    }

    /// A pattern from text that is a valid pattern, or nil.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> FTS5Pattern? {
        String.fromDatabaseValue(dbValue).flatMap { try? FTS5Pattern(rawPattern: $0) }
    }
}

extension Database {
    /// Creates a pattern from a raw pattern, after SQLite has checked it against the query
    /// syntax and the columns of an FTS5 table.
    ///
    /// ```swift
    /// try db.makeFTS5Pattern(rawPattern: "sqlite", forTable: "book")          // OK
    /// try db.makeFTS5Pattern(rawPattern: "AND", forTable: "book")             // DatabaseError: syntax error
    /// try db.makeFTS5Pattern(rawPattern: "missing: sqlite", forTable: "book") // DatabaseError: no such column
    /// ```
    ///
    /// - throws: A ``DatabaseError`` when the pattern is not valid for the table.
    public func makeFTS5Pattern(rawPattern: String, forTable table: String) throws -> FTS5Pattern {
        let name = table.quotedDatabaseIdentifier
        let statement = try makeStatement(sql: "SELECT rowid FROM \(name) WHERE \(name) MATCH ?")
        // The pattern is parsed when the query starts: one step is enough.
        _ = try Row.fetchCursor(statement, arguments: [rawPattern]).next()
        return FTS5Pattern(checkedPattern: rawPattern)
    }
}
