/// A type that presents the rows of a statement differently: other column names, a subset of the
/// columns, or named scopes that split a joined row into the rows of its parts.
///
/// ```swift
/// // SELECT player.*, team.* FROM player JOIN team ON team.id = player.teamId
/// let adapters = try splittingRowAdapters(columnCounts: [playerColumnCount, teamColumnCount])
/// let adapter = ScopeAdapter(base: adapters[0], scopes: ["team": adapters[1]])
/// let rows = try Row.fetchCursor(db, sql: sql, adapter: adapter)
/// while let row = try rows.next() {
///     let player = try Player(row: row)      // the player columns
///     let team: Team = row["team"]           // the team columns, from the "team" scope
/// }
/// ```
///
/// The library provides ``ColumnMapping``, ``SuffixRowAdapter``, ``RangeRowAdapter``,
/// ``ScopeAdapter``, ``EmptyRowAdapter`` and ``RenameColumnAdapter``; they compose.
public protocol RowAdapter: Sendable {
    /// Implementation detail: the columns and scopes this adapter gives a row whose columns
    /// and scopes are `input`. Throws when the input lacks a column the adapter needs.
    func _layout(from input: _RowLayout) throws -> _RowLayout
}

/// Implementation detail of ``RowAdapter``: a list of named columns, each one a column of the
/// unadapted row, and named scopes, themselves layouts of the unadapted row.
public struct _RowLayout: Sendable {
    /// The layout's lists, in one object: a row holds its layout, and rows copy it as one
    /// reference (the four lists were retained and released at each lookup by name).
    final class Storage: Sendable {
        let names: [String]
        let baseIndexes: [Int]
        let scopes: [String: _RowLayout]
        let leftmost: [Int]
        /// Every scope name of the tree of scopes, with the names that lead to its nearest
        /// scope, in the order ``Row/scopesTree`` searches: found once for the layout rather
        /// than searched again for each fetched row (a record whose property is not a scope,
        /// such as the `book` of `BookInfo`, searched the whole tree at each row).
        let scopePaths: [(name: String, path: [String])]

        init(names: [String], baseIndexes: [Int], scopes: [String: _RowLayout], leftmost: [Int]) {
            self.names = names
            self.baseIndexes = baseIndexes
            self.scopes = scopes
            self.leftmost = leftmost
            scopePaths = scopes.isEmpty ? [] : Self.breadthFirstPaths(scopes)
        }

        /// The names leading to the nearest scope named `name`, or nil when the tree has none.
        func scopePath(to name: String) -> [String]? {
            for entry in scopePaths where entry.name == name { return entry.path }
            return nil
        }

        /// The first path to each name of the tree: the scopes of the layout first, then
        /// level by level, each level's scopes in the order of their parents, sorted by name
        /// under each parent.
        private static func breadthFirstPaths(_ scopes: [String: _RowLayout]) -> [(name: String, path: [String])] {
            var paths: [(name: String, path: [String])] = []
            var queue: [(scopes: [String: _RowLayout], path: [String])] = [(scopes, [])]
            var position = 0
            while position < queue.count {
                let (level, parentPath) = queue[position]
                position += 1
                for (name, layout) in level.sorted(by: { $0.key < $1.key }) {
                    let path = parentPath + [name]
                    if !paths.contains(where: { $0.name == name }) { paths.append((name, path)) }
                    if !layout.scopes.isEmpty { queue.append((layout.scopes, path)) }
                }
            }
            return paths
        }

        /// The leftmost column named `name` (ignoring case), trying the column `guess` first;
        /// `guess` becomes the column after the one found (records read their columns in
        /// order, row after row).
        func index(ofColumn name: String, guess: inout Int) -> Int? {
            if guess < names.count && names[guess] == name {
                let found = leftmost[guess]
                guess &+= 1
                return found
            }
            // Most lookups spell a name as the SQL does: an exact comparison (one step for
            // the same literal) finds it without folding cases.
            for index in names.indices where names[index] == name {
                guess = index &+ 1
                return leftmost[index]
            }
            return names.firstIndex { $0.equalsIgnoringASCIICase(name) }
        }
    }

    let storage: Storage

    /// Column names, from left to right.
    var names: [String] { storage.names }
    /// For each column, its index in the unadapted row.
    var baseIndexes: [Int] { storage.baseIndexes }
    /// Layouts of the scopes, by name.
    var scopes: [String: _RowLayout] { storage.scopes }
    /// For each column, the index of the leftmost column with the same name ignoring case.
    var leftmost: [Int] { storage.leftmost }

    init(names: [String], baseIndexes: [Int], scopes: [String: _RowLayout] = [:]) {
        assert(names.count == baseIndexes.count)
        storage = Storage(names: names, baseIndexes: baseIndexes, scopes: scopes, leftmost: Self.leftmostIndexes(names))
    }

    private static func leftmostIndexes(_ names: [String]) -> [Int] {
        if names.count <= 16 {
            return names.indices.map { index in
                names.firstIndex { $0.equalsIgnoringASCIICase(names[index]) } ?? index
            }
        }
        var first: [String: Int] = [:]
        return names.indices.map { index in
            let folded = names[index].asciiLowercased()
            if let leftmost = first[folded] { return leftmost }
            first[folded] = index
            return index
        }
    }

    /// The columns of an unadapted row.
    init(columnNames: [String]) {
        self.init(names: columnNames, baseIndexes: Array(columnNames.indices))
    }

    /// The leftmost column named `name`, compared case-insensitively.
    func index(ofColumn name: String) -> Int? {
        var noGuess = Int.max
        return storage.index(ofColumn: name, guess: &noGuess)
    }

    /// The leftmost column named `name`, compared case-insensitively, trying the column
    /// `guess` first (see ``Row/lookupGuess``).
    func index(ofColumn name: String, guess: inout Int) -> Int? {
        storage.index(ofColumn: name, guess: &guess)
    }

    /// The columns in `range`, without scopes.
    func slice(_ range: Range<Int>, adapter: String) throws -> _RowLayout {
        guard range.lowerBound >= 0, range.upperBound <= names.count else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "\(adapter): columns \(range.lowerBound)..<\(range.upperBound) are out of the row's \(names.count) columns")
        }
        return _RowLayout(names: Array(names[range]), baseIndexes: Array(baseIndexes[range]))
    }

    func replacingScopes(_ scopes: [String: _RowLayout]) -> _RowLayout {
        _RowLayout(names: names, baseIndexes: baseIndexes, scopes: scopes)
    }
}

/// An adapter that keeps no column.
///
/// ```swift
/// let row = try Row.fetchOne(db, sql: "SELECT 1 AS a", adapter: EmptyRowAdapter())!
/// row.isEmpty // true
/// ```
public struct EmptyRowAdapter: RowAdapter {
    /// Creates an adapter that keeps no column.
    public init() {}

    public func _layout(from input: _RowLayout) throws -> _RowLayout {
        _RowLayout(names: [], baseIndexes: [])
    }
}

/// An adapter that renames columns: each key of the mapping is a column of the adapted row, and
/// its value the name of the column it reads (case-insensitive). Other columns are left out.
/// The adapted columns keep the order of the columns they read.
///
/// ```swift
/// let adapter = ColumnMapping(["id": "playerId", "name": "playerName"])
/// let row = try Row.fetchOne(db, sql: "SELECT 1 AS playerId, 'Arthur' AS playerName", adapter: adapter)!
/// row["name"] // "Arthur"
/// ```
///
/// A mapping that names a column the row does not have makes the fetch throw.
public struct ColumnMapping: RowAdapter {
    /// Read column names, by adapted column name.
    public let mapping: [String: String]

    /// Creates an adapter from a dictionary of read column names, by adapted column name.
    public init(_ mapping: [String: String]) {
        self.mapping = mapping
    }

    public func _layout(from input: _RowLayout) throws -> _RowLayout {
        var columns: [(name: String, index: Int)] = []
        for (name, readName) in mapping {
            guard let index = input.index(ofColumn: readName) else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "ColumnMapping: column \(String(reflecting: readName)) (mapped to \(String(reflecting: name))) not found; the row's columns are \(input.names)")
            }
            columns.append((name, index))
        }
        columns.sort { ($0.index, $0.name) < ($1.index, $1.name) }
        return _RowLayout(names: columns.map(\.name), baseIndexes: columns.map { input.baseIndexes[$0.index] })
    }
}

/// An adapter that keeps the columns from an index to the end.
///
/// ```swift
/// let adapter = SuffixRowAdapter(fromIndex: 2)
/// let row = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c", adapter: adapter)!
/// row // [c:3]
/// ```
public struct SuffixRowAdapter: RowAdapter {
    /// The index of the first kept column.
    public let index: Int

    /// Creates an adapter that keeps the columns from `index` to the end.
    public init(fromIndex index: Int) {
        precondition(index >= 0, "SuffixRowAdapter: negative index \(index)")
        self.index = index
    }

    public func _layout(from input: _RowLayout) throws -> _RowLayout {
        try input.slice(index..<max(index, input.names.count), adapter: "SuffixRowAdapter")
    }
}

/// An adapter that keeps the columns in a range of indexes.
///
/// ```swift
/// let adapter = RangeRowAdapter(1..<3)
/// let row = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d", adapter: adapter)!
/// row // [b:2 c:3]
/// ```
public struct RangeRowAdapter: RowAdapter {
    /// The indexes of the kept columns.
    public let range: Range<Int>

    /// Creates an adapter that keeps the columns in `range`.
    public init(_ range: Range<Int>) {
        precondition(range.lowerBound >= 0, "RangeRowAdapter: negative index \(range.lowerBound)")
        self.range = range
    }

    /// Creates an adapter that keeps the columns in `range`.
    public init(_ range: ClosedRange<Int>) {
        self.init(range.lowerBound..<(range.upperBound + 1))
    }

    public func _layout(from input: _RowLayout) throws -> _RowLayout {
        try input.slice(range, adapter: "RangeRowAdapter")
    }
}

/// An adapter that defines scopes: named rows read from the same columns, that
/// ``Row/scopes`` returns and that record subscripts decode (`let team: Team = row["team"]`).
///
/// ```swift
/// // SELECT player.*, team.* FROM player JOIN team ...  (player has 3 columns)
/// let adapter = ScopeAdapter(base: RangeRowAdapter(0..<3), scopes: ["team": SuffixRowAdapter(fromIndex: 3)])
/// ```
///
/// Each scope adapter reads the same columns as the base adapter does, not the base's result.
public struct ScopeAdapter: RowAdapter {
    /// The adapter of the row itself; nil keeps the columns unchanged.
    let base: (any RowAdapter)?
    /// The adapters of the scopes, by name.
    let scopes: [String: any RowAdapter]

    /// Creates an adapter that keeps the columns and defines scopes.
    public init(_ scopes: [String: any RowAdapter]) {
        self.base = nil
        self.scopes = scopes
    }

    /// Creates an adapter that adapts the columns with `base` and defines scopes.
    public init(base: any RowAdapter, scopes: [String: any RowAdapter]) {
        self.base = base
        self.scopes = scopes
    }

    public func _layout(from input: _RowLayout) throws -> _RowLayout {
        let baseLayout = try base?._layout(from: input) ?? input
        var scopeLayouts = baseLayout.scopes
        for (name, adapter) in scopes {
            scopeLayouts[name] = try adapter._layout(from: input)
        }
        return baseLayout.replacingScopes(scopeLayouts)
    }
}

/// An adapter that renames every column with a function.
///
/// ```swift
/// let adapter = RenameColumnAdapter { $0.replacingOccurrences(of: "player_", with: "") }
/// ```
public struct RenameColumnAdapter: RowAdapter {
    let transform: @Sendable (String) -> String

    /// Creates an adapter that renames every column with `transform`.
    public init(_ transform: @escaping @Sendable (String) -> String) {
        self.transform = transform
    }

    public func _layout(from input: _RowLayout) throws -> _RowLayout {
        _RowLayout(names: input.names.map(transform), baseIndexes: input.baseIndexes, scopes: input.scopes)
    }
}

/// Applies `second` to the result of `first` (an adapted request adapted again).
struct ChainedAdapter: RowAdapter {
    let first: any RowAdapter
    let second: any RowAdapter

    func _layout(from input: _RowLayout) throws -> _RowLayout {
        try second._layout(from: first._layout(from: input))
    }
}

extension RowAdapter {
    /// Returns an adapter that adapts the columns as this one does, and defines scopes.
    ///
    /// ```swift
    /// let adapter = SuffixRowAdapter(fromIndex: 0).addingScopes(["team": SuffixRowAdapter(fromIndex: 3)])
    /// ```
    public func addingScopes(_ scopes: [String: any RowAdapter]) -> any RowAdapter {
        if scopes.isEmpty { return self }
        return ScopeAdapter(base: self, scopes: scopes)
    }
}

/// Returns adapters that split a row into consecutive parts: one ``RangeRowAdapter`` per
/// column count, then a ``SuffixRowAdapter`` for the remaining columns. Handy for rows of joined
/// tables, as in `SELECT player.*, team.* FROM ...`.
///
/// ```swift
/// let counts = try [Player.numberOfSelectedColumns(db), Team.numberOfSelectedColumns(db)]
/// let adapters = splittingRowAdapters(columnCounts: counts)
/// let adapter = ScopeAdapter(base: adapters[0], scopes: ["team": adapters[1]])
/// ```
public func splittingRowAdapters(columnCounts: [Int]) -> [any RowAdapter] {
    precondition(columnCounts.allSatisfy { $0 >= 0 }, "splittingRowAdapters: negative column count")
    var adapters: [any RowAdapter] = []
    var start = 0
    for count in columnCounts {
        adapters.append(RangeRowAdapter(start..<(start + count)))
        start += count
    }
    adapters.append(SuffixRowAdapter(fromIndex: start))
    return adapters
}
