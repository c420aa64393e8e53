import Foundation

/// English singular and plural forms, used to derive association keys from table names
/// (`book` → `books`, `person` → `people`, `bookCount`).
///
/// Rules are regular expressions tried from the most recently added; irregular words and
/// uncountable words take precedence. Only the last word of a camelCased name is inflected
/// (`lineItem` → `lineItems`), and digits at the end are kept (`book2` → `books2`).
///
/// ```swift
/// Inflections.default.pluralize("mouse")     // "mice"
/// Inflections.default.singularize("people")  // "person"
///
/// // Your own words, before associations are defined:
/// Inflections.default.irregularSuffix("foot", "feet")
/// Inflections.default.uncountableWords(["metadata"])
/// ```
public struct Inflections: Sendable {
    private var pluralRules: [(NSRegularExpression, String)] = []
    private var singularRules: [(NSRegularExpression, String)] = []
    private var uncountables: Set<String> = []

    /// The inflections the library uses: English rules. Changing them is not thread-safe:
    /// do it once, before associations are used.
    nonisolated(unsafe) public static var `default`: Inflections = .english

    /// Creates inflections without rules: words are left as they are.
    public init() {}

    /// Adds a rule for plurals: words that match `pattern` are pluralized with `template`
    /// (`$1` refers to the first captured group).
    public mutating func plural(_ pattern: String, options: NSRegularExpression.Options = [.caseInsensitive], _ template: String) {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: options) else { return }
        pluralRules.append((regex, template))
    }

    /// Adds a rule for singulars: words that match `pattern` are singularized with `template`.
    public mutating func singular(_ pattern: String, options: NSRegularExpression.Options = [.caseInsensitive], _ template: String) {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: options) else { return }
        singularRules.append((regex, template))
    }

    /// Adds an irregular word ending: `irregularSuffix("person", "people")`.
    public mutating func irregularSuffix(_ singular: String, _ plural: String) {
        let singularHead = String(singular.prefix(1))
        let singularTail = NSRegularExpression.escapedPattern(for: String(singular.dropFirst()))
        let pluralHead = String(plural.prefix(1))
        let pluralTail = NSRegularExpression.escapedPattern(for: String(plural.dropFirst()))
        let singularTailTemplate = NSRegularExpression.escapedTemplate(for: String(singular.dropFirst()))
        let pluralTailTemplate = NSRegularExpression.escapedTemplate(for: String(plural.dropFirst()))
        self.plural("(\(singularHead))\(singularTail)$", "$1\(pluralTailTemplate)")
        self.plural("(\(pluralHead))\(pluralTail)$", "$1\(pluralTailTemplate)")
        self.singular("(\(singularHead))\(singularTail)$", "$1\(singularTailTemplate)")
        self.singular("(\(pluralHead))\(pluralTail)$", "$1\(singularTailTemplate)")
    }

    /// Adds words that have no distinct plural.
    public mutating func uncountableWords(_ words: [String]) {
        uncountables.formUnion(words.map { $0.lowercased() })
    }

    /// The plural of a string: `"player"` → `"players"`.
    public func pluralize(_ string: String) -> String {
        inflect(string, with: pluralRules)
    }

    /// The singular of a string: `"players"` → `"player"`.
    public func singularize(_ string: String) -> String {
        inflect(string, with: singularRules)
    }

    private func inflect(_ string: String, with rules: [(NSRegularExpression, String)]) -> String {
        // Trailing digits stay; the last camelCased word is inflected.
        let digits = string.reversed().prefix { $0.isNumber }
        let body = String(string.dropLast(digits.count))
        guard !body.isEmpty else { return string }
        var lastWordStart = body.startIndex
        for index in body.indices where body[index].isUppercase || body[index] == "_" {
            lastWordStart = body[index] == "_" ? body.index(after: index) : index
        }
        let lastWord = String(body[lastWordStart...])
        if lastWord.isEmpty || uncountables.contains(lastWord.lowercased()) { return string }
        let range = NSRange(body.startIndex..<body.endIndex, in: body)
        for (regex, template) in rules.reversed() {
            guard let match = regex.firstMatch(in: body, range: range) else { continue }
            let inflected = regex.replacementString(for: match, in: body, offset: 0, template: template)
            let matchRange = Range(match.range, in: body)!
            return String(body[..<matchRange.lowerBound]) + inflected + String(body[matchRange.upperBound...]) + String(digits.reversed())
        }
        return string
    }

    /// English rules, after Ruby on Rails' ActiveSupport inflections.
    static var english: Inflections {
        var inflections = Inflections()
        inflections.plural("$", "s")
        inflections.plural("s$", "s")
        inflections.plural("^(ax|test)is$", "$1es")
        inflections.plural("(octop|vir)us$", "$1i")
        inflections.plural("(octop|vir)i$", "$1i")
        inflections.plural("(alias|status)$", "$1es")
        inflections.plural("(bu)s$", "$1ses")
        inflections.plural("(buffal|tomat)o$", "$1oes")
        inflections.plural("([ti])um$", "$1a")
        inflections.plural("([ti])a$", "$1a")
        inflections.plural("sis$", "ses")
        inflections.plural("(?:([^f])fe|([lr])f)$", "$1$2ves")
        inflections.plural("(hive)$", "$1s")
        inflections.plural("([^aeiouy]|qu)y$", "$1ies")
        inflections.plural("(x|ch|ss|sh)$", "$1es")
        inflections.plural("(matr|vert|ind)(?:ix|ex)$", "$1ices")
        inflections.plural("^(m|l)ouse$", "$1ice")
        inflections.plural("^(m|l)ice$", "$1ice")
        inflections.plural("^(ox)$", "$1en")
        inflections.plural("^(oxen)$", "$1")
        inflections.plural("(quiz)$", "$1zes")

        inflections.singular("s$", "")
        inflections.singular("(ss)$", "$1")
        inflections.singular("(n)ews$", "$1ews")
        inflections.singular("([ti])a$", "$1um")
        inflections.singular("((a)naly|(b)a|(d)iagno|(p)arenthe|(p)rogno|(s)ynop|(t)he)(sis|ses)$", "$1sis")
        inflections.singular("(^analy)(sis|ses)$", "$1sis")
        inflections.singular("([^f])ves$", "$1fe")
        inflections.singular("(hive)s$", "$1")
        inflections.singular("(tive)s$", "$1")
        inflections.singular("([lr])ves$", "$1f")
        inflections.singular("([^aeiouy]|qu)ies$", "$1y")
        inflections.singular("(s)eries$", "$1eries")
        inflections.singular("(m)ovies$", "$1ovie")
        inflections.singular("(x|ch|ss|sh)es$", "$1")
        inflections.singular("^(m|l)ice$", "$1ouse")
        inflections.singular("(bus)(es)?$", "$1")
        inflections.singular("(o)es$", "$1")
        inflections.singular("(shoe)s$", "$1")
        inflections.singular("(cris|test)(is|es)$", "$1is")
        inflections.singular("^(a)x[ie]s$", "$1xis")
        inflections.singular("(octop|vir)(us|i)$", "$1us")
        inflections.singular("(alias|status)(es)?$", "$1")
        inflections.singular("^(ox)en", "$1")
        inflections.singular("(vert|ind)ices$", "$1ex")
        inflections.singular("(matr)ices$", "$1ix")
        inflections.singular("(quiz)zes$", "$1")
        inflections.singular("(database)s$", "$1")

        inflections.irregularSuffix("person", "people")
        inflections.irregularSuffix("man", "men")
        inflections.irregularSuffix("child", "children")
        inflections.irregularSuffix("sex", "sexes")
        inflections.irregularSuffix("move", "moves")
        inflections.irregularSuffix("zombie", "zombies")
        inflections.irregularSuffix("foot", "feet")
        inflections.irregularSuffix("tooth", "teeth")
        inflections.irregularSuffix("goose", "geese")

        inflections.uncountableWords([
            "equipment", "information", "rice", "money", "species", "series", "fish", "sheep",
            "jeans", "police", "news", "data", "metadata", "deer",
        ])
        return inflections
    }
}
