// Rows adapted by a RowAdapter: the unadapted row, scopes, and records decoded from scopes.

extension Row {
    /// The layout of an adapted row; nil for an unadapted row.
    var adaptedLayout: (base: Row, layout: _RowLayout)? {
        if case .adapted(let base, let layout) = storage { return (base, layout) }
        return nil
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
        guard let (base, layout) = adaptedLayout, !layout.scopes.isEmpty else { return self }
        return Row(base: base, layout: layout.replacingScopes([:]))
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

    /// The scopes of a row, by name.
    public struct ScopesView: Collection {
        /// A position in the scopes, ordered by name.
        public typealias Index = Int

        let base: Row?
        let layouts: [(name: String, layout: _RowLayout)]

        init(row: Row) {
            if let (base, layout) = row.adaptedLayout {
                self.base = base
                layouts = layout.scopes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            } else {
                base = nil
                layouts = []
            }
        }

        public var startIndex: Int { layouts.startIndex }
        public var endIndex: Int { layouts.endIndex }
        public func index(after index: Int) -> Int { index + 1 }

        /// The (name, row) pair at `position`, scopes ordered by name.
        public subscript(position: Int) -> (name: String, row: Row) {
            let (name, layout) = layouts[position]
            return (name, Row(base: base!, layout: layout))
        }

        /// The names of the scopes.
        public var names: Set<String> {
            Set(layouts.map(\.name))
        }

        /// The scope named `name`, or nil.
        public subscript(_ name: String) -> Row? {
            guard let base, let layout = layouts.first(where: { $0.name == name })?.layout else { return nil }
            return Row(base: base, layout: layout)
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
            var queue = [row]
            while !queue.isEmpty {
                let next = queue.removeFirst()
                let scopes = next.scopes
                if let scope = scopes[key] { return scope }
                queue.append(contentsOf: scopes.map(\.row))
            }
            return nil
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
            var keys = Set(row.prefetchedRowsStorage.keys)
            for (_, scope) in row.scopes {
                keys.formUnion(scope.prefetchedRows.keys)
            }
            return keys
        }

        /// The rows prefetched for `key`, or nil when no association of that key was
        /// prefetched.
        public subscript(_ key: String) -> [Row]? {
            if let rows = row.prefetchedRowsStorage[key] { return rows }
            for (_, scope) in row.scopes {
                if let rows = scope.prefetchedRows[key] { return rows }
            }
            return nil
        }
    }
}
