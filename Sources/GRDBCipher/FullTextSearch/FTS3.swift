/// The FTS3 full-text engine, a ``VirtualTableModule``.
///
/// ```swift
/// // CREATE VIRTUAL TABLE "document" USING fts3(content)
/// try db.create(virtualTable: "document", using: FTS3()) { t in
///     t.column("content")
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts3.html>
public struct FTS3: VirtualTableModule {
    /// How the `unicode61` tokenizer handles diacritics (its `remove_diacritics` option).
    public enum Diacritics: Sendable {
        /// Diacritics are kept: "jérôme" does not match "jerome" (`remove_diacritics=0`).
        case keep
        /// Diacritics of latin script characters are removed, as SQLite did before 3.27
        /// (`remove_diacritics=1`, the default).
        case removeLegacy
        /// Diacritics of latin script characters are removed, more completely than
        /// ``removeLegacy`` (`remove_diacritics=2`).
        case remove

        /// The value of the `remove_diacritics` option, or nil for the default.
        var optionValue: String? {
            switch self {
            case .keep: return "0"
            case .removeLegacy: return nil
            case .remove: return "2"
            }
        }
    }

    /// Creates an FTS3 module.
    public init() { }

    public var moduleName: String { "fts3" }

    public func makeTableDefinition(configuration: VirtualTableConfiguration) -> FTS3TableDefinition {
        FTS3TableDefinition()
    }

    public func moduleArguments(for definition: FTS3TableDefinition, in db: Database) -> [String] {
        var arguments = definition.columns.map(\.fullTextColumnName)
        if let tokenizer = definition.tokenizer {
            arguments.append("tokenize=\(tokenizer.moduleArgument)")
        }
        return arguments
    }

    public func database(_ db: Database, didCreate tableName: String, using definition: FTS3TableDefinition) { }

    /// Returns the tokens of a string, as an FTS3 or FTS4 table with this tokenizer would
    /// index them.
    ///
    /// ```swift
    /// FTS3.tokenize("SQLite database")                          // ["sqlite", "database"]
    /// FTS3.tokenize("SQLite database", withTokenizer: .porter)  // ["sqlite", "databas"]
    /// FTS3.tokenize("Gustave Doré", withTokenizer: .unicode61()) // ["gustave", "dore"]
    /// ```
    ///
    /// The tokens come from SQLite's `fts3tokenize` table, in a private in-memory database.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/fts3.html#querying_tokenizers>
    public static func tokenize(_ string: String, withTokenizer tokenizer: FTS3TokenizerDescriptor = .simple) throws -> [String] {
        try FullTextScratchDatabase.shared.tokenize(string, tokenizer: tokenizer)
    }
}

/// The definition of an FTS3 table, given to the closure of
/// ``Database/create(virtualTable:options:using:_:)``.
///
/// ```swift
/// try db.create(virtualTable: "document", using: FTS3()) { t in
///     t.tokenizer = .porter
///     t.column("content")
/// }
/// ```
public final class FTS3TableDefinition {
    var columns: [String] = []

    /// The tokenizer (nil: SQLite's default, `simple`).
    public var tokenizer: FTS3TokenizerDescriptor?

    init() { }

    /// Appends a column.
    public func column(_ name: String) {
        columns.append(name)
    }
}

/// A tokenizer of FTS3 and FTS4 tables.
///
/// ```swift
/// try db.create(virtualTable: "book", using: FTS4()) { t in
///     t.tokenizer = .unicode61(diacritics: .keep)
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts3.html#tokenizer>
public struct FTS3TokenizerDescriptor: Sendable {
    let name: String
    let arguments: [String]

    init(_ name: String, arguments: [String] = []) {
        self.name = name
        self.arguments = arguments
    }

    /// The `simple` tokenizer, SQLite's default: case-insensitive for ASCII characters only.
    public static let simple = FTS3TokenizerDescriptor("simple")

    /// The `porter` tokenizer: English stemming ("databases" matches "database").
    public static let porter = FTS3TokenizerDescriptor("porter")

    /// The `unicode61` tokenizer: case-insensitive for unicode characters, and, unless told
    /// otherwise, insensitive to the diacritics of latin script characters.
    ///
    /// ```swift
    /// t.tokenizer = .unicode61()
    /// t.tokenizer = .unicode61(diacritics: .keep)
    /// ```
    ///
    /// - parameters:
    ///     - diacritics: How diacritics are handled.
    ///     - separators: Characters that separate tokens, besides SQLite's default ones.
    ///     - tokenCharacters: Characters that belong to tokens, besides letters and digits.
    public static func unicode61(
        diacritics: FTS3.Diacritics = .removeLegacy,
        separators: Set<Character> = [],
        tokenCharacters: Set<Character> = []) -> FTS3TokenizerDescriptor
    {
        var arguments: [String] = []
        if let value = diacritics.optionValue {
            arguments.append("remove_diacritics=\(value)")
        }
        if !separators.isEmpty {
            arguments.append("separators=\(String(separators.sorted()))")
        }
        if !tokenCharacters.isEmpty {
            arguments.append("tokenchars=\(String(tokenCharacters.sorted()))")
        }
        return FTS3TokenizerDescriptor("unicode61", arguments: arguments)
    }

    /// The tokenizer as it appears after `tokenize=` in the SQL: the name, then each argument
    /// as a double-quoted string.
    var moduleArgument: String {
        ([name] + arguments.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" })
            .joined(separator: " ")
    }
}
