// `including(all:)`: the associated rows of many fetched rows, by one more query per
// association and level, keyed on the fetched rows.
//
//   SELECT * FROM "author"
//   SELECT *, "authorId" AS "grdb_authorId" FROM "book" WHERE "authorId" IN (?, ?, ?)

extension SQLQuery {
    /// Whether this relation, or a relation joined to it, prefetches.
    var prefetchesInTree: Bool {
        !prefetches.isEmpty || joins.contains { $0.relation.prefetchesInTree }
    }

    /// Runs the prefetch queries of this query for its fetched `rows`, and attaches their rows;
    /// then those of its included relations, for their scopes
    /// (`Book.including(required: Book.author.including(all: Author.awards))`).
    func prefetch(_ db: Database, into rows: [Row]) throws {
        for prefetch in prefetches {
            try prefetch.run(db, parentRows: rows, parentQuery: self)
        }
        for join in joins where join.relation.prefetchesInTree {
            guard join.isIncluded else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "including(all:) is not supported inside an association that is joined without being included:"
                        + " include \(join.key.quotedDatabaseIdentifier) with including(required:) or including(optional:)")
            }
            var parents: [Row] = []
            var scopes: [Row] = []
            for row in rows {
                guard let scope = row.scope(named: join.key) else { continue }
                parents.append(row)
                scopes.append(scope)
            }
            try join.relation.prefetch(db, into: scopes)
            for (parent, scope) in zip(parents, scopes) {
                parent.scopePrefetches[join.key] = Row.PrefetchedScope(rows: scope.prefetchedRowsStorage, scopes: scope.scopePrefetches)
            }
        }
    }
}

extension SQLQuery {
    /// The region the prefetch queries of this query and of its included relations read,
    /// whatever the fetched rows (``QueryInterfaceRequest/databaseRegion(_:)``).
    func prefetchRegion(_ db: Database) throws -> DatabaseRegion {
        var region = DatabaseRegion()
        for prefetch in prefetches {
            region.formUnion(try prefetch.region(db))
        }
        for join in joins where join.relation.prefetchesInTree {
            region.formUnion(try join.relation.prefetchRegion(db))
        }
        return region
    }
}

extension SQLPrefetch {
    /// The region of the prefetch query: the query of ``run(_:parentRows:parentQuery:)``, with
    /// a condition on the key columns that stands for any list of keys (the region is the same
    /// for every list), and its own prefetches.
    func region(_ db: Database) throws -> DatabaseRegion {
        let query = association.requestQuery { _, mapping in
            var condition = SQL(sql: "")
            for (index, pair) in mapping.enumerated() {
                if index > 0 { condition += SQL(sql: " AND ") }
                condition += SQL(SQLExpression(.column(pair.right))) + SQL(sql: " IS NOT NULL")
            }
            return SQLExpression(.literal(condition))
        }
        return try QueryInterfaceRequest<Row>(query: query).databaseRegion(db)
    }

    /// The common table expression of the base request's keys, for composite keys.
    static let baseTableName = "grdb_base"

    /// Fetches the associated rows of `parentRows`, and attaches them, grouped by parent.
    func run(_ db: Database, parentRows: [Row], parentQuery: SQLQuery) throws {
        guard !parentRows.isEmpty else { return }
        guard let mapping = try association.steps[0].condition.columnMapping(db) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "including(all:) needs an association defined by a foreign key")
        }
        // The key of each parent row.
        let leftColumns = mapping.map(\.left)
        var parentKeys: [[DatabaseValue]] = []
        parentKeys.reserveCapacity(parentRows.count)
        for row in parentRows {
            var key: [DatabaseValue] = []
            for column in leftColumns {
                guard let index = row.index(forColumn: column) else {
                    throw DatabaseError(
                        resultCode: .SQLITE_MISUSE,
                        message: "including(all:) needs the column \(column.quotedDatabaseIdentifier) in the selection of the base request")
                }
                key.append(row.databaseValue(at: index))
            }
            parentKeys.append(key)
        }
        // Distinct keys without NULL, sorted: the values of the IN list.
        var seen = Set<[DatabaseValue]>()
        var keys = parentKeys.filter { key in !key.contains(where: \.isNull) && seen.insert(key).inserted }
        keys.sort { lhs, rhs in
            for (l, r) in zip(lhs, rhs) where l != r { return l.sortsBefore(r) }
            return false
        }
        var groups: [[DatabaseValue]: [Row]] = [:]
        if !keys.isEmpty {
            let rightColumns = mapping.map(\.right)
            let pivotAlias = association.steps[0].relation.alias
            let isThrough = association.steps.count > 1
            let keys = keys
            var query = association.requestQuery { _, mapping in
                let columns = mapping.map { SQLExpression(.column($0.right)) }
                if columns.count == 1 {
                    return SQLExpression.inList(columns[0], keys.map { SQLExpression(.value($0[0])) })
                }
                // A composite key: `("a", "b") IN "grdb_base"`, the keys of the base request.
                var rowValue = SQL(sql: "(")
                for (index, column) in columns.enumerated() {
                    if index > 0 { rowValue += SQL(sql: ", ") }
                    rowValue += SQL(column)
                }
                return SQLExpression(.literal(rowValue + SQL(sql: ") IN \(SQLPrefetch.baseTableName.quotedDatabaseIdentifier)")))
            }
            if mapping.count > 1 {
                // The base request, selecting the key columns: its order matters only with a
                // limit.
                var base = parentQuery
                base.selection = leftColumns.map { SQLSelection(kind: .expression(SQLExpression(.column($0)))) }
                base.deferredSelection = nil
                base.prefetches = []
                if base.limit == nil { base.ordering = nil }
                var baseCTEs = base.ctes
                base.ctes = []
                baseCTEs.removeAll { $0.tableName.lowercased() == SQLPrefetch.baseTableName.lowercased() }
                query.ctes = baseCTEs + [SQLCTE(tableName: SQLPrefetch.baseTableName, isRecursive: false, columns: nil, subquery: SQLSubquery(query: base))] + query.ctes
            }
            // The key columns, fetched under a name of their own: "grdb_authorId".
            let keySelection = rightColumns.map { column -> SQLSelection in
                let expression = isThrough ? SQLExpression(.qualifiedColumn(column, pivotAlias)) : SQLExpression(.column(column))
                return SQLSelection(kind: .aliased(expression, "grdb_\(column)"))
            }
            if isThrough, query.groupsForAggregates, query.grouping == nil {
                // Aggregates of the associated rows (`Orchestra.musicians.annotated(with:
                // Musician.awards.count)`) group by the associated row and by the key of the
                // pivot: a musician of two orchestras keeps a row for each.
                let grouping = query.aggregateGrouping
                query.grouping = DatabasePromise { db in
                    try grouping.resolve(db) + rightColumns.map { SQLExpression(.qualifiedColumn($0, pivotAlias)) }
                }
            }
            if let deferred = query.deferredSelection {
                query.deferredSelection = DatabasePromise { db in try deferred.resolve(db) + keySelection }
            } else {
                query.selection += keySelection
            }
            let childRows = try Row.fetchAll(db, QueryInterfaceRequest<Row>(query: query))
            let keyNames = rightColumns.map { "grdb_\($0)" }
            if let firstRow = childRows.first {
                // The key columns are at the same place in every row.
                let keyIndexes = keyNames.map { firstRow.unadapted.index(forColumn: $0) }
                if keyIndexes.count == 1 {
                    // A single-column key: grouped by value, without an array per row.
                    var singleGroups: [DatabaseValue: [Row]] = [:]
                    for row in childRows {
                        let value = keyIndexes[0].map { row.unadapted.databaseValue(at: $0) } ?? .null
                        singleGroups[value, default: []].append(row)
                    }
                    for (row, key) in zip(parentRows, parentKeys) {
                        row.prefetchedRowsStorage[self.key] = singleGroups[key[0]] ?? []
                    }
                    return
                }
                for row in childRows {
                    let base = row.unadapted
                    let key = keyIndexes.map { index in index.map { base.databaseValue(at: $0) } ?? .null }
                    groups[key, default: []].append(row)
                }
            }
        }
        for (row, key) in zip(parentRows, parentKeys) {
            row.prefetchedRowsStorage[self.key] = groups[key] ?? []
        }
    }
}

extension DatabaseValue {
    /// SQLite's order of values: NULL, numbers, text, blobs.
    func sortsBefore(_ other: DatabaseValue) -> Bool {
        func rank(_ value: DatabaseValue) -> Int {
            switch value.storage {
            case .null: return 0
            case .int64, .double: return 1
            case .string: return 2
            case .blob: return 3
            }
        }
        let (lhsRank, rhsRank) = (rank(self), rank(other))
        if lhsRank != rhsRank { return lhsRank < rhsRank }
        switch (storage, other.storage) {
        case let (.int64(l), .int64(r)): return l < r
        case let (.int64(l), .double(r)): return Double(l) < r
        case let (.double(l), .int64(r)): return l < Double(r)
        case let (.double(l), .double(r)): return l < r
        case let (.string(l), .string(r)): return l < r
        case let (.blob(l), .blob(r)): return l.lexicographicallyPrecedes(r)
        default: return false
        }
    }
}
