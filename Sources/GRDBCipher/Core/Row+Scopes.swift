// Rows adapted by a RowAdapter: the unadapted row, scopes, and records decoded from scopes.

extension Row {
    /// The layout of an adapted row; nil for an unadapted row.
    var adaptedLayout: (base: Row, layout: _RowLayout)? {
        if case .adapted(let base, let layout) = storage { return (base, layout) }
        return nil
    }

    /// Whether the row has scopes (an adapted row whose adapter defines some).
    var hasScopes: Bool {
        if case .adapted(_, let layout) = storage { return !layout.scopes.isEmpty }
        return false
    }

    /// The row as fetched from the database, before any ``RowAdapter``.
    ///
    /// ```swift
    /// let row = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b", adapter: SuffixRowAdapter(fromIndex: 1))!
    /// row           // [b:2]
    /// row.unadapted // [a:1 b:2]
    /// ```
    public var unadapted: Row {
        adaptedLayout?.base ?? self
    }

    /// The row with the same columns, without its scopes.
    public var unscoped: Row {
        let row: Row
        if let (base, layout) = adaptedLayout, !layout.scopes.isEmpty {
            row = Row(base: base, layout: layout.replacingScopes([:]))
            row.keepsDecoders = false
        } else {
            row = self
        }
        // As GRDB: without its prefetched rows too (ROW-1).
        if row.prefetchedRows.isEmpty { return row }
        let plain = Row(columns: Array(row.columnNames), values: Array(row.databaseValues))
        plain.isCopyOfFetchedRow = row.comesFromDatabase
        return plain
    }

    /// The scopes defined by a ``ScopeAdapter``: named rows, read from the same fetched row.
    ///
    /// ```swift
    /// let adapter = ScopeAdapter(["b": SuffixRowAdapter(fromIndex: 1)])
    /// let row = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b", adapter: adapter)!
    /// row.scopes["b"] // [b:2]
    /// ```
    public var scopes: ScopesView {
        ScopesView(row: self)
    }

    /// The scopes of the row and of its scopes, searched breadth-first by name.
    public var scopesTree: ScopesTreeView {
        ScopesTreeView(row: self)
    }

    /// The scope named `name` of this row (not of its scopes), or nil. The scopes of a row
    /// that reads a live statement are made once, and change with it.
    func scope(named name: String) -> Row? {
        if let last = lastLiveScope, last.name == name { return last.row }
        guard let (base, layout) = adaptedLayout, let scopeLayout = layout.scopes[name] else { return nil }
        guard base.isFetched else {
            let scope = Row(base: base, layout: scopeLayout)
            // (Most rows prefetch nothing: no hashing of the name for them.)
            let prefetches = scopePrefetches
            if !prefetches.isEmpty, let prefetched = prefetches[name] {
                scope.prefetchedEntries = prefetched.entries
                scope.scopePrefetches = prefetched.scopes
            }
            return scope
        }
        let extras = self.extras
        if let scope = extras.liveScopeRows[name] {
            extras.lastLiveScope = (name, scope)
            return scope
        }
        let scope = Row(base: base, layout: scopeLayout)
        extras.liveScopeRows[name] = scope
        extras.lastLiveScope = (name, scope)
        return scope
    }

    /// The names of the row's own scopes, sorted.
    var sortedScopeNames: [String] {
        guard let layout = adaptedLayout?.layout, !layout.scopes.isEmpty else { return [] }
        return layout.scopes.keys.sorted()
    }

    /// The scopes of a row, by name.
    public struct ScopesView: Collection {
        /// A position in the scopes, ordered by name.
        public typealias Index = Int

        let row: Row
        let names_: [String]

        init(row: Row) {
            self.row = row
            names_ = row.sortedScopeNames
        }

        public var startIndex: Int { names_.startIndex }
        public var endIndex: Int { names_.endIndex }
        public func index(after index: Int) -> Int { index + 1 }

        /// The (name, row) pair at `position`, scopes ordered by name.
        public subscript(position: Int) -> (name: String, row: Row) {
            let name = names_[position]
            return (name, row.scope(named: name)!)
        }

        /// The names of the scopes.
        public var names: Set<String> {
            Set(names_)
        }

        /// The scope named `name`, or nil.
        public subscript(_ name: String) -> Row? {
            row.scope(named: name)
        }
    }

    /// The scopes of a row and of its scopes, searched breadth-first.
    public struct ScopesTreeView {
        let row: Row

        /// The names of every scope in the tree.
        public var names: Set<String> {
            var names = Set<String>()
            var queue = [row]
            while !queue.isEmpty {
                let next = queue.removeFirst()
                for (name, scope) in next.scopes {
                    names.insert(name)
                    queue.append(scope)
                }
            }
            return names
        }

        /// The nearest scope named `key`, breadth-first, or nil.
        public subscript(_ key: String) -> Row? {
            // The path to the scope was found once for the row's layout (a row without
            // scopes, such as an unadapted row, has none).
            guard let path = row.scopePath(to: key) else { return nil }
            var scope = row
            for name in path {
                guard let next = scope.scope(named: name) else { return nil }
                scope = next
            }
            return scope
        }
    }
}

// MARK: - Records in scopes

extension Row {
    /// The record decoded from the scope named `scope` (searched in ``scopesTree``). A missing
    /// scope, or a decoding error, is a fatal error, as for values.
    ///
    /// ```swift
    /// let team: Team = row["team"]
    /// ```
    public subscript<Record: FetchableRecord>(_ scope: String) -> Record {
        guard let scopeRow = scopesTree[scope] else {
            fatalError("scope not found: \(String(reflecting: scope)) (decoding \(Record.self)) - available scopes: \(scopesTree.names.sorted())")
        }
        do {
            return try Record(row: scopeRow)
        } catch {
            fatalError("\(error)")
        }
    }

    /// The record decoded from the scope named `scope` (searched in ``scopesTree``), or nil if
    /// there is no such scope or all its values are NULL (a missing row of a left join).
    ///
    /// ```swift
    /// let team: Team? = row["team"]
    /// ```
    public subscript<Record: FetchableRecord>(_ scope: String) -> Record? {
        guard let scopeRow = scopesTree[scope], scopeRow.containsNonNullValue else { return nil }
        do {
            return try Record(row: scopeRow)
        } catch {
            fatalError("\(error)")
        }
    }

    /// Decodes the record of the scope named `scope` (searched in ``scopesTree``).
    ///
    /// Throws a ``RowDecodingError`` if there is no such scope, or the error of the record's
    /// initializer.
    ///
    /// ```swift
    /// let request = Book.including(required: Book.author)
    /// for row in try Row.fetchAll(db, request) {
    ///     let author = try row.decode(Author.self, forKey: "author")
    /// }
    /// ```
    public func decode<Record: FetchableRecord>(_ type: Record.Type = Record.self, forKey scope: String) throws -> Record {
        guard let scopeRow = scopesTree[scope] else {
            throw RowDecodingError.scopeNotFound(scope, type: Record.self, row: self)
        }
        return try Record(row: scopeRow)
    }

    /// Decodes the records prefetched for `key` (``prefetchedRows``, filled by
    /// `including(all:)`) into a collection.
    ///
    /// Throws a ``RowDecodingError`` if no rows were prefetched for this key, or the error of
    /// the records' initializer.
    ///
    /// ```swift
    /// let request = Author.including(all: Author.books)
    /// for row in try Row.fetchAll(db, request) {
    ///     let books: [Book] = try row.decode(forKey: "books")
    /// }
    /// ```
    public func decode<Collection>(_ type: Collection.Type = Collection.self, forKey key: String) throws -> Collection
    where Collection: RangeReplaceableCollection, Collection.Element: FetchableRecord
    {
        guard let rows = prefetchedRows[key] else {
            throw RowDecodingError.prefetchedRowsNotFound(key, type: Collection.self, row: self)
        }
        var records = Collection()
        records.reserveCapacity(rows.count)
        for row in rows {
            records.append(try Collection.Element(row: row))
        }
        return records
    }

    /// Decodes the records prefetched for `key` (``prefetchedRows``) into a set.
    ///
    /// ```swift
    /// let books: Set<Book> = try row.decode(forKey: "books")
    /// ```
    public func decode<Record>(_ type: Set<Record>.Type = Set<Record>.self, forKey key: String) throws -> Set<Record>
    where Record: FetchableRecord & Hashable
    {
        guard let rows = prefetchedRows[key] else {
            throw RowDecodingError.prefetchedRowsNotFound(key, type: Set<Record>.self, row: self)
        }
        var records = Set<Record>(minimumCapacity: rows.count)
        for row in rows {
            records.insert(try Record(row: row))
        }
        return records
    }

    /// Decodes the record of the scope named `scope` (searched in ``scopesTree``), or returns
    /// nil if there is no such scope or all its values are NULL (the missing row of a left
    /// join).
    ///
    /// ```swift
    /// let request = Book.including(optional: Book.author)
    /// for row in try Row.fetchAll(db, request) {
    ///     let author = try row.decodeIfPresent(Author.self, forKey: "author") // Author?
    /// }
    /// ```
    public func decodeIfPresent<Record: FetchableRecord>(_ type: Record.Type = Record.self, forKey scope: String) throws -> Record? {
        guard let scopeRow = scopesTree[scope], scopeRow.containsNonNullValue else { return nil }
        return try Record(row: scopeRow)
    }

    /// Whether the scopes of two rows are equal.
    func hasEqualScopes(_ other: Row) -> Bool {
        let lhs = scopes
        let rhs = other.scopes
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { $0.name == $1.name && $0.row == $1.row }
    }
}

// MARK: - Prefetched rows

extension Row {
    /// The rows that `including(all:)` fetched for this row, by association key.
    ///
    /// ```swift
    /// let row = try Row.fetchOne(db, Author.including(all: Author.books))!
    /// let bookRows = row.prefetchedRows["books"] // [Row]?
    /// ```
    ///
    /// Rows of the scopes are searched too, so that a prefetch nested in a joined association
    /// is found from the base row.
    public var prefetchedRows: PrefetchedRowsView {
        PrefetchedRowsView(row: self)
    }

    /// The rows prefetched for a row and its scopes, by association key.
    public struct PrefetchedRowsView: Equatable {
        let row: Row

        public static func == (lhs: PrefetchedRowsView, rhs: PrefetchedRowsView) -> Bool {
            lhs.row.prefetchedRowsStorage == rhs.row.prefetchedRowsStorage
        }

        /// Whether no row was prefetched.
        public var isEmpty: Bool {
            keys.isEmpty
        }

        /// The keys of the prefetched rows, in the row and its scopes.
        public var keys: Set<String> {
            var keys = Set(row.prefetchedEntries.map(\.key))
            for (_, scope) in row.scopes {
                keys.formUnion(scope.prefetchedRows.keys)
            }
            return keys
        }

        /// The rows prefetched for `key`, or nil when no association of that key was
        /// prefetched.
        public subscript(_ key: String) -> [Row]? {
            row.prefetchedGroupInTree(forKey: key)?.rows
        }
    }
}

extension Row {
    /// The group of rows prefetched for `key`, for the row or, when it has none of that key,
    /// for its scopes (see ``prefetchedRows``).
    func prefetchedGroupInTree(forKey key: String) -> PrefetchedGroup? {
        if let group = prefetchedGroup(forKey: key) { return group }
        // Rows are prefetched for copied rows only (the fetch is complete before).
        guard let layout = adaptedLayout?.layout, !layout.scopes.isEmpty, !readsLiveStatement else { return nil }
        for (_, scope) in scopes {
            if let group = scope.prefetchedGroupInTree(forKey: key) { return group }
        }
        return nil
    }
}
