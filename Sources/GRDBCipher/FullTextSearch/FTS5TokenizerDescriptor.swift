/// An FTS5 tokenizer: its name and arguments, as the `tokenize` option of an FTS5 table
/// lists them.
///
/// ```swift
/// try db.create(virtualTable: "book", using: FTS5()) { t in
///     t.tokenizer = .porter(wrapping: .ascii())
///     t.column("title")
/// }
/// let tokenizer = try db.makeTokenizer(.unicode61(diacritics: .keep))
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#tokenizers>
public struct FTS5TokenizerDescriptor: Sendable {
    /// The tokenizer name, followed by its arguments: `["porter", "ascii"]`.
    public let components: [String]

    /// The tokenizer name.
    var name: String { components.first ?? "" }

    /// The tokenizer arguments.
    var arguments: [String] { Array(components.dropFirst()) }

    /// Creates a descriptor from the tokenizer name, followed by its arguments.
    ///
    /// ```swift
    /// let trigram = FTS5TokenizerDescriptor(components: ["trigram", "case_sensitive", "1"])
    /// ```
    public init(components: [String]) {
        self.components = components
    }

    /// The `ascii` tokenizer: case-insensitive for ASCII characters only.
    ///
    /// - parameters:
    ///     - separators: Characters that separate tokens, besides SQLite's default ones.
    ///     - tokenCharacters: Characters that belong to tokens, besides letters and digits.
    public static func ascii(separators: Set<Character> = [], tokenCharacters: Set<Character> = []) -> FTS5TokenizerDescriptor {
        var components = ["ascii"]
        if !separators.isEmpty {
            components += ["separators", String(separators.sorted())]
        }
        if !tokenCharacters.isEmpty {
            components += ["tokenchars", String(tokenCharacters.sorted())]
        }
        return FTS5TokenizerDescriptor(components: components)
    }

    /// The `porter` tokenizer: English stemming over another tokenizer (SQLite's default
    /// is `unicode61`).
    ///
    /// ```swift
    /// t.tokenizer = .porter()          // porter unicode61
    /// t.tokenizer = .porter(.ascii())  // porter ascii
    /// ```
    public static func porter(wrapping base: FTS5TokenizerDescriptor? = nil) -> FTS5TokenizerDescriptor {
        FTS5TokenizerDescriptor(components: ["porter"] + (base?.components ?? []))
    }

    /// The `unicode61` tokenizer, FTS5's default: case-insensitive for unicode characters,
    /// and, unless told otherwise, insensitive to the diacritics of latin script characters.
    ///
    /// - parameters:
    ///     - diacritics: How diacritics are handled.
    ///     - categories: The unicode categories of token characters (`"L* N* Co"` by default).
    ///     - separators: Characters that separate tokens, besides SQLite's default ones.
    ///     - tokenCharacters: Characters that belong to tokens, besides the categories.
    public static func unicode61(
        diacritics: FTS5.Diacritics = .removeLegacy,
        categories: String = "",
        separators: Set<Character> = [],
        tokenCharacters: Set<Character> = []) -> FTS5TokenizerDescriptor
    {
        var components = ["unicode61"]
        switch diacritics {
        case .removeLegacy: break
        case .keep: components += ["remove_diacritics", "0"]
        case .remove: components += ["remove_diacritics", "2"]
        }
        if !categories.isEmpty {
            components += ["categories", categories]
        }
        if !separators.isEmpty {
            components += ["separators", String(separators.sorted())]
        }
        if !tokenCharacters.isEmpty {
            components += ["tokenchars", String(tokenCharacters.sorted())]
        }
        return FTS5TokenizerDescriptor(components: components)
    }

    /// The value of the `tokenize` option: each component as an SQL string literal, the
    /// whole quoted again, as GRDB writes it (`'''porter'' ''ascii'''`).
    var tokenizeOption: String {
        components.map(\.sqlStringLiteral).joined(separator: " ").sqlStringLiteral
    }
}
