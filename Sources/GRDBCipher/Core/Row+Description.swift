// How rows describe themselves: `[id:1 name:"Arthur"]`, and the adapted rows, scopes and
// prefetched rows of their debug description, in GRDB's format.

extension Row: CustomStringConvertible, CustomDebugStringConvertible {
    /// `[id:1 name:"Arthur"]`
    public var description: String {
        "[" + (0..<count).map { "\(columnName(at: $0)):\(databaseValue(at: $0))" }.joined(separator: " ") + "]"
    }

    /// The description; for an adapted row, or a row with prefetched rows, followed by the
    /// unadapted row, the scopes (`-`, nested) and the prefetched rows (`+`), by name:
    ///
    /// ```
    /// ▿ [id:1 authorId:1 title:"Gigi"]
    ///   unadapted: [id:1 authorId:1 title:"Gigi" id:1 name:"Colette"]
    ///   - author: [id:1 name:"Colette"]
    ///     + prizes: 2 rows
    ///   + prizes: 2 rows
    /// ```
    public var debugDescription: String {
        var details: [String] = []
        if let (base, _) = adaptedLayout { details.append("unadapted: \(base.description)") }
        details += scopeAndPrefetchLines
        guard !details.isEmpty else { return description }
        return (["▿ \(description)"] + details.map { "  " + $0 }).joined(separator: "\n")
    }

    /// The lines of the scopes and prefetched rows of ``debugDescription``, not indented.
    private var scopeAndPrefetchLines: [String] {
        var lines: [String] = []
        for (name, scope) in scopes {
            lines.append("- \(name): \(scope.description)")
            lines += scope.scopeAndPrefetchLines.map { "  " + $0 }
        }
        let prefetched = prefetchedRows
        for key in prefetched.keys.sorted() {
            let count = prefetched[key]?.count ?? 0
            lines.append("+ \(key): \(count) row\(count > 1 ? "s" : "")")
        }
        return lines
    }
}
