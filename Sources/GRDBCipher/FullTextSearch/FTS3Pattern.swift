/// A full-text search pattern for FTS3 and FTS4 tables.
///
/// Build patterns from any string, such as a user's input, with the failable initializers
/// (nil when the string has no token), or validate a raw pattern:
///
/// ```swift
/// let pattern = FTS3Pattern(matchingAllTokensIn: "SQLite database") // sqlite database
/// let documents = try Document.matching(pattern).fetchAll(db)
///
/// let raw = try FTS3Pattern(rawPattern: "sqlite OR database")
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts3.html#full_text_index_queries>
public struct FTS3Pattern: Sendable {
    /// The raw pattern, as given to the `MATCH` operator.
    public let rawPattern: String

    /// Creates a pattern from a raw pattern, after SQLite has checked it.
    ///
    /// ```swift
    /// let pattern = try FTS3Pattern(rawPattern: "sqlite database")
    /// ```
    ///
    /// - throws: A ``DatabaseError`` when the pattern is not valid.
    public init(rawPattern: String) throws {
        try FullTextScratchDatabase.shared.validate(fts3Pattern: rawPattern)
        self.rawPattern = rawPattern
    }

    private init(checkedPattern: String) {
        rawPattern = checkedPattern
    }

    /// A pattern that matches documents that contain any of the words of the string.
    ///
    /// ```swift
    /// FTS3Pattern(matchingAnyTokenIn: "SQLite database") // sqlite OR database
    /// FTS3Pattern(matchingAnyTokenIn: "*")               // nil
    /// ```
    public init?(matchingAnyTokenIn string: String) {
        guard let tokens = Self.tokens(string) else { return nil }
        self.init(checkedPattern: tokens.joined(separator: " OR "))
    }

    /// A pattern that matches documents that contain all the words of the string.
    ///
    /// ```swift
    /// FTS3Pattern(matchingAllTokensIn: "SQLite database") // sqlite database
    /// ```
    public init?(matchingAllTokensIn string: String) {
        guard let tokens = Self.tokens(string) else { return nil }
        self.init(checkedPattern: tokens.joined(separator: " "))
    }

    /// A pattern that matches documents that contain words that start with each word of
    /// the string.
    ///
    /// ```swift
    /// FTS3Pattern(matchingAllPrefixesIn: "SQLite data") // sqlite* data*
    /// ```
    public init?(matchingAllPrefixesIn string: String) {
        guard let tokens = Self.tokens(string) else { return nil }
        self.init(checkedPattern: tokens.map { $0 + "*" }.joined(separator: " "))
    }

    /// A pattern that matches documents that contain the words of the string, in the same
    /// order, next to each other.
    ///
    /// ```swift
    /// FTS3Pattern(matchingPhrase: "SQLite database") // "sqlite database"
    /// ```
    public init?(matchingPhrase string: String) {
        guard let tokens = Self.tokens(string) else { return nil }
        self.init(checkedPattern: "\"" + tokens.joined(separator: " ") + "\"")
    }

    /// The tokens of the `simple` tokenizer (lowercased words, no operator, no punctuation),
    /// or nil when there is none.
    private static func tokens(_ string: String) -> [String]? {
        guard let tokens = try? FTS3.tokenize(string), !tokens.isEmpty else { return nil }
        return tokens
    }
}

extension FTS3Pattern: DatabaseValueConvertible {
    /// The raw pattern, as text.
    public var databaseValue: DatabaseValue {
        rawPattern.databaseValue
    }

    /// A pattern from text that is a valid pattern, or nil.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> FTS3Pattern? {
        String.fromDatabaseValue(dbValue).flatMap { try? FTS3Pattern(rawPattern: $0) }
    }
}
