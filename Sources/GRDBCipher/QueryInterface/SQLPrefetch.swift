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

    /// Throws "no such table" when a prefetched association reaches a table that does not
    /// exist: before the request runs, as GRDB (PRG-6), rather than after its parent query.
    func checkPrefetchedTablesExist(_ db: Database, ctes: [SQLCTE]) throws {
        for prefetch in prefetches {
            for step in prefetch.association.steps {
                let table = step.relation.tableName
                let isCTE = (ctes + step.relation.ctes).contains { $0.tableName.lowercased() == table.lowercased() }
                if !isCTE, try !db.tableExists(table), try !db.viewExists(table) {
                    throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(table)")
                }
                try step.relation.checkPrefetchedTablesExist(db, ctes: ctes + step.relation.ctes)
            }
        }
        for join in joins {
            try join.relation.checkPrefetchedTablesExist(db, ctes: ctes)
        }
    }

    /// Runs the prefetch queries of this query for its fetched `rows`, and attaches their rows;
    /// then those of its included relations, for their scopes
    /// (`Book.including(required: Book.author.including(all: Author.awards))`).
    func prefetch(_ db: Database, into rows: [Row]) throws {
        try prefetch(db, into: rows, chain: nil)
    }

    /// `chain`: for an included relation, the fetched rows and the joins from the request's
    /// own relation down to this one. Its prefetches are keyed on the fetched rows, through
    /// those joins, as GRDB does: `Book.including(required: Book.author.including(all:
    /// Author.books))` prefetches with `SELECT "book".*, "author"."id" AS "grdb_id" FROM
    /// "book" JOIN "author" ON ("author"."id" = "book"."authorId") AND ("author"."id" IN (?, ?))`.
    private func prefetch(_ db: Database, into rows: [Row], chain: PrefetchChain?) throws {
        for prefetch in prefetches {
            if let chain {
                var composed = prefetch
                composed.association.steps = chain.steps + prefetch.association.steps
                try composed.run(db, parentRows: chain.rootRows, parentQuery: chain.rootQuery, attachingTo: rows)
            } else {
                try prefetch.run(db, parentRows: rows, parentQuery: self)
            }
        }
        for (joinIndex, join) in joins.enumerated() where join.relation.prefetchesInTree {
            // A relation joined without being included has no scope: as GRDB (ASC-3), its
            // prefetched rows go to the rows of the nearest included ancestor, these rows.
            let attachesToRows = !join.isIncluded
            if attachesToRows && !join.condition.isForeignKey {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "including(all:) is not supported inside a common table expression that is joined without being included:"
                        + " include \(join.key.quotedDatabaseIdentifier) with including(required:) or including(optional:)")
            }
            var parents: [Row] = []
            var scopes: [Row] = []
            var rootRows: [Row] = []
            // A joined relation that includes others has a scope without columns (ASC-2): its
            // included relations, and their prefetches, are found there.
            var usesScopes = join.isIncluded
            for (index, row) in rows.enumerated() {
                let scope: Row?
                if attachesToRows, let nested = row.scope(named: join.key) {
                    scope = nested
                    usesScopes = true
                } else {
                    scope = attachesToRows ? row : row.scope(named: join.key)
                }
                guard let scope else { continue }
                parents.append(row)
                scopes.append(scope)
                rootRows.append(chain?.rootRows[index] ?? row)
            }
            let next: PrefetchChain
            if join.condition.isForeignKey {
                // The join becomes a step of the prefetch queries below it (the join that
                // leads further down is joined by the next step, not by this one).
                var steps = chain?.steps ?? []
                if !steps.isEmpty {
                    steps[steps.count - 1].relation.joins.remove(at: joinIndex)
                }
                steps.append(_SQLAssociation.Step(key: .fixed(join.key), condition: join.condition, relation: join.relation, isToMany: false))
                next = PrefetchChain(rootRows: rootRows, rootQuery: chain?.rootQuery ?? self, steps: steps)
            } else {
                // A join on an expression (a common table expression) has no key to go
                // through: the prefetches below are keyed on its rows.
                next = PrefetchChain(rootRows: scopes, rootQuery: join.relation, steps: [])
            }
            try join.relation.prefetch(db, into: scopes, chain: next)
            if !usesScopes { continue }
            for (parent, scope) in zip(parents, scopes) {
                parent.scopePrefetches[join.key] = Row.PrefetchedScope(entries: scope.prefetchedEntries, scopes: scope.scopePrefetches)
            }
        }
    }
}

/// The fetched rows of a request and the joins that lead to an included relation, whose
/// prefetches are keyed on the fetched rows (see ``SQLQuery/prefetch(_:into:)``).
private struct PrefetchChain {
    /// The rows of the request, one for each row of the included relation.
    var rootRows: [Row]
    var rootQuery: SQLQuery
    var steps: [_SQLAssociation.Step]
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
    /// The region of the prefetch query: the query of ``run(_:parentRows:parentQuery:attachingTo:)``, with
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

    /// Fetches the associated rows of `parentRows`, and attaches them, grouped by parent, to
    /// the parents or to `targets` (one for each parent: the scopes whose rows they are).
    func run(_ db: Database, parentRows: [Row], parentQuery: SQLQuery, attachingTo targets: [Row]? = nil) throws {
        guard !parentRows.isEmpty else { return }
        guard let mapping = try association.steps[0].condition.columnMapping(db) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "including(all:) needs an association defined by a foreign key")
        }
        // The key of each parent row: integers (or NULL) for a single-column key of integers
        // (the usual ids: without an array for each key), arrays of values otherwise.
        let leftColumns = mapping.map(\.left)
        let parentIntegers = leftColumns.count == 1 ? try Self.integerKeys(of: parentRows, column: leftColumns[0]) : nil
        var parentKeys: [[DatabaseValue]] = []
        // Distinct keys without NULL, sorted: the values of the IN list.
        var distinctIntegers: [Int64] = []
        var keys: [[DatabaseValue]] = []
        if let parentIntegers {
            distinctIntegers.reserveCapacity(parentIntegers.count)
            var previous: Int64?
            for integer in parentIntegers.compactMap({ $0 }).sorted() where integer != previous {
                distinctIntegers.append(integer)
                previous = integer
            }
        } else {
            parentKeys.reserveCapacity(parentRows.count)
            for row in parentRows {
                var key: [DatabaseValue] = []
                for column in leftColumns {
                    key.append(try row.databaseValue(ofKeyColumn: column))
                }
                parentKeys.append(key)
            }
            var seen = Set<[DatabaseValue]>()
            keys = parentKeys.filter { key in !key.contains(where: \.isNull) && seen.insert(key).inserted }
            keys.sort { lhs, rhs in
                for (l, r) in zip(lhs, rhs) where l != r { return l.sortsBefore(r) }
                return false
            }
        }
        var childRows = PrefetchQueryRows()
        if !(parentIntegers == nil ? keys.isEmpty : distinctIntegers.isEmpty) {
            let rightColumns = mapping.map(\.right)
            let pivotAlias = association.steps[0].relation.alias
            let isThrough = association.steps.count > 1
            // The values of the IN list of a single-column key.
            let inValues: [SQLExpression] = mapping.count != 1 ? [] : parentIntegers != nil
                ? distinctIntegers.map { SQLExpression(.value(DatabaseValue(storage: .int64($0)))) }
                : keys.map { SQLExpression(.value($0[0])) }
            var query = association.requestQuery { _, mapping in
                let columns = mapping.map { SQLExpression(.column($0.right)) }
                if columns.count == 1 {
                    return SQLExpression.inList(columns[0], inValues)
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
                // (Its joins select nothing: the base selects the key columns only.)
                var base = parentQuery.withoutSelectedJoins()
                base.selection = leftColumns.map { SQLSelection(kind: .expression(SQLExpression(.column($0)))) }
                base.deferredSelection = nil
                base.prefetches = []
                if base.limit == nil { base.ordering = nil }
                var baseCTEs: [SQLCTE] = []
                if !base.ctes.contains(where: { $0.tableName.lowercased() == SQLPrefetch.baseTableName.lowercased() }) {
                    baseCTEs = base.ctes
                    base.ctes = []
                }
                // A parent that is itself a prefetch keyed on a composite key reads its own
                // "grdb_base": it keeps its common table expressions, and the base is a WITH
                // inside a WITH, as GRDB writes it (ASC-9).
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
            let request = QueryInterfaceRequest<Row>(query: query)
            db.prefetchDumpRecorder?.queries.append((path: dumpPath, request: request, keyColumnCount: keySelection.count))
            childRows = try PrefetchQueryRows.fetch(db, request)
        }
        // The rows of each key, in the order of the query, for each parent: the parents share
        // the store of the rows.
        let keyNames = mapping.map { "grdb_\($0.right)" }
        if let parentIntegers {
            let groups = PrefetchGroups(distinctIntegers: distinctIntegers, rows: childRows, keyNames: keyNames)
            let store = groups.store
            for (row, integer) in zip(targets ?? parentRows, parentIntegers) {
                let position = integer.flatMap { groups.position(ofInteger: $0) } ?? -1
                row.setPrefetchedGroup(PrefetchedGroup(store: store, index: position), forKey: self.key)
            }
        } else {
            let groups = PrefetchGroups(keys: keys, rows: childRows, keyNames: keyNames)
            let store = groups.store
            for (row, key) in zip(targets ?? parentRows, parentKeys) {
                row.setPrefetchedGroup(PrefetchedGroup(store: store, index: groups.position(forKey: key) ?? -1), forKey: self.key)
            }
        }
    }

    /// The name `dumpRequest` prints above the prefetched rows: the keys from the fetched
    /// relation to the prefetched one (`books`, `author.books`, the pivot and the target of a
    /// through association, `books.chapters`).
    private var dumpPath: String {
        var names = association.steps.dropLast().map { $0.isToMany ? $0.key.pluralName : $0.key.singularName }
        names.append(key)
        return names.joined(separator: ".")
    }

    /// The keys of rows whose single-column key `column` holds integers or NULL (nil), or
    /// nil if a key holds another value.
    private static func integerKeys(of rows: [Row], column: String) throws -> [Int64?]? {
        var integers: [Int64?] = []
        integers.reserveCapacity(rows.count)
        for row in rows {
            switch try row.databaseValue(ofKeyColumn: column).storage {
            case .int64(let integer): integers.append(integer)
            case .null: integers.append(nil)
            case .double, .string, .blob: return nil
            }
        }
        return integers
    }

    /// The integers of single-column keys that are integers or NULL (skipped), or nil.
    fileprivate static func singleIntegers(_ keys: [[DatabaseValue]]) -> [Int64]? {
        var integers: [Int64] = []
        integers.reserveCapacity(keys.count)
        for key in keys {
            guard key.count == 1 else { return nil }
            switch key[0].storage {
            case .int64(let integer): integers.append(integer)
            case .null: continue
            case .double, .string, .blob: return nil
            }
        }
        return integers
    }
}

/// The prefetched rows grouped by key: the distinct keys of the parents (sorted, without
/// NULL), the rows of each key in the order of the query.
private struct PrefetchGroups {
    /// The positions of single-column keys that are all integers (hashing a `DatabaseValue`
    /// cost about 450 instructions a row).
    private let integerKeys: IntegerKeyPositions?
    /// The position of each key among the parents' distinct keys, when they are not
    /// `integerKeys`: by value for single-column keys, by array of values for composite keys.
    private let valuePositions: [DatabaseValue: Int]
    private let positions: [[DatabaseValue]: Int]
    /// The rows, grouped by position among the parents' distinct keys.
    let store: PrefetchedRowStore

    /// Groups for the distinct integers of single-column keys, sorted.
    init(distinctIntegers: [Int64], rows: PrefetchQueryRows, keyNames: [String]) {
        self.init(integerKeys: IntegerKeyPositions(distinctIntegers), valuePositions: [:], positions: [:], keyCount: distinctIntegers.count, rows: rows, keyNames: keyNames)
    }

    init(keys: [[DatabaseValue]], rows: PrefetchQueryRows, keyNames: [String]) {
        // (The keys hold no NULL.)
        let integers = SQLPrefetch.singleIntegers(keys)
        var valuePositions: [DatabaseValue: Int] = [:]
        var positions: [[DatabaseValue]: Int] = [:]
        if integers == nil {
            for (position, key) in keys.enumerated() {
                if key.count == 1 {
                    valuePositions[key[0]] = position
                } else {
                    positions[key] = position
                }
            }
        }
        self.init(integerKeys: integers.map(IntegerKeyPositions.init), valuePositions: valuePositions, positions: positions, keyCount: keys.count, rows: rows, keyNames: keyNames)
    }

    private init(integerKeys: IntegerKeyPositions?, valuePositions: [DatabaseValue: Int], positions: [[DatabaseValue]: Int], keyCount: Int, rows: PrefetchQueryRows, keyNames: [String]) {
        self.integerKeys = integerKeys
        self.valuePositions = valuePositions
        self.positions = positions
        // The group of each row.
        var groupOfRow: [Int32] = []
        groupOfRow.reserveCapacity(rows.count)
        if rows.count > 0 {
            // The key columns are at the same place in every row.
            let keyIndexes = keyNames.map { rows.index(ofColumn: $0) }
            if keyIndexes.count == 1, let keyIndex = keyIndexes[0], let integerKeys {
                // Integer keys, read without copying the values.
                for index in 0..<rows.count {
                    let position: Int?
                    if let integer = rows.integer(row: index, column: keyIndex) {
                        position = integerKeys.position(of: integer)
                    } else {
                        position = Self.position(ofValue: rows.value(row: index, column: keyIndex), integerKeys: integerKeys, valuePositions: valuePositions)
                    }
                    groupOfRow.append(Int32(position ?? -1))
                }
            } else {
                var key: [DatabaseValue] = []
                for index in 0..<rows.count {
                    let position: Int?
                    if keyIndexes.count == 1 {
                        let value = keyIndexes[0].map { rows.value(row: index, column: $0) } ?? .null
                        position = Self.position(ofValue: value, integerKeys: integerKeys, valuePositions: valuePositions)
                    } else {
                        key.removeAll(keepingCapacity: true)
                        for column in keyIndexes { key.append(column.map { rows.value(row: index, column: $0) } ?? .null) }
                        position = positions[key]
                    }
                    groupOfRow.append(Int32(position ?? -1))
                }
            }
        }
        store = PrefetchedRowStore(rows: rows, groupOfRow: groupOfRow, groupCount: keyCount)
    }

    /// The position of a parent's integer key among the distinct integers.
    func position(ofInteger integer: Int64) -> Int? {
        integerKeys?.position(of: integer)
    }

    /// The position of a parent's key among the distinct keys (nil for a NULL key).
    func position(forKey key: [DatabaseValue]) -> Int? {
        key.count == 1
            ? Self.position(ofValue: key[0], integerKeys: integerKeys, valuePositions: valuePositions)
            : positions[key]
    }

    /// The position of a single-column key.
    private static func position(ofValue value: DatabaseValue, integerKeys: IntegerKeyPositions?, valuePositions: [DatabaseValue: Int]) -> Int? {
        guard let integerKeys else { return valuePositions[value] }
        // Equal to an integer: an integer, or a double of the same value.
        let integer: Int64
        switch value.storage {
        case .int64(let value): integer = value
        case .double(let value):
            guard let exact = Int64(exactly: value) else { return nil }
            integer = exact
        case .null, .string, .blob: return nil
        }
        return integerKeys.position(of: integer)
    }
}

/// The positions of sorted, distinct integers: by a table indexed by value when they are
/// close together (ids), by a binary search otherwise.
private struct IntegerKeyPositions {
    private let sorted: [Int64]
    /// The smallest integer, and the position of each integer from it (-1: none), when the
    /// integers span less than four times their number.
    private let minimum: Int64
    private let table: [Int32]?

    init(_ sorted: [Int64]) {
        self.sorted = sorted
        minimum = sorted.first ?? 0
        guard let first = sorted.first, let last = sorted.last, sorted.count < Int32.max else {
            table = nil
            return
        }
        let (span, overflow) = last.subtractingReportingOverflow(first)
        guard !overflow, span < 4 * Int64(sorted.count) + 64 else {
            table = nil
            return
        }
        var table = [Int32](repeating: -1, count: Int(span) + 1)
        for (position, integer) in sorted.enumerated() {
            table[Int(integer - first)] = Int32(position)
        }
        self.table = table
    }

    func position(of integer: Int64) -> Int? {
        if let table {
            let (offset, overflow) = integer.subtractingReportingOverflow(minimum)
            guard !overflow, offset >= 0, offset < table.count else { return nil }
            let position = table[Int(offset)]
            return position >= 0 ? Int(position) : nil
        }
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < integer { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == integer ? low : nil
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

extension Row {
    /// The value of the key column `column` of a parent row.
    fileprivate func databaseValue(ofKeyColumn column: String) throws -> DatabaseValue {
        guard let index = index(forColumn: column) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "including(all:) needs the column \(column.quotedDatabaseIdentifier) in the selection of the base request")
        }
        return databaseValue(at: index)
    }
}

/// The prefetch queries a fetch runs, for `dumpRequest` (``Database/dumpRequest(_:format:to:)``),
/// which prints their rows after the fetched ones.
final class PrefetchDumpRecorder {
    /// In the order they run: a prefetch before the prefetches nested in it.
    var queries: [(path: String, request: QueryInterfaceRequest<Row>, keyColumnCount: Int)] = []
}
