import CSQLCipher

/// A value that may need the database to be known, such as a filter on the primary key.
struct DatabasePromise<Value: Sendable>: Sendable {
    let resolve: @Sendable (Database) throws -> Value

    init(_ resolve: @escaping @Sendable (Database) throws -> Value) {
        self.resolve = resolve
    }

    init(value: Value) {
        resolve = { _ in value }
    }
}

/// A common table expression attached to a query.
struct SQLCTE: Sendable {
    var tableName: String
    var isRecursive: Bool
    var columns: [String]?
    var subquery: SQLSubquery
}

/// The parts of a SELECT statement built by the query interface, in the shape
/// `WITH ... SELECT ... FROM ... WHERE ... GROUP BY ... HAVING ... ORDER BY ... LIMIT ...`.
struct SQLQuery: Sendable {
    var tableName: String
    var alias: TableAliasBase
    var selection: [SQLSelection]
    /// A selection that needs the database (the primary key), replacing `selection`.
    var deferredSelection: DatabasePromise<[SQLSelection]>?
    var isDistinct = false
    var filters: [DatabasePromise<SQLExpression>] = []
    var grouping: DatabasePromise<[SQLExpression]>?
    var havings: [DatabasePromise<SQLExpression>] = []
    var ordering: DatabasePromise<[SQLOrdering]>?
    var isReversed = false
    var limit: (limit: Int, offset: Int?)?
    var ctes: [SQLCTE] = []
    /// Child relations joined to this one (associations to one, or to many joined).
    var joins: [SQLJoin] = []
    /// Child relations fetched by a second query per level (`including(all:)`).
    var prefetches: [SQLPrefetch] = []
    /// Aliases of relations merged into another joined relation of the same key: they take
    /// the name of the relation they were merged into.
    var mergedAliases: [(merged: TableAliasBase, into: TableAliasBase)] = []
    /// Whether association aggregates group the rows by the table's primary key, when the
    /// request has no grouping of its own.
    var groupsForAggregates = false

    init(tableName: String, selection: [SQLSelection]) {
        self.tableName = tableName
        self.alias = TableAlias<Void>(implicit: ())
        self.selection = selection
    }

    /// Whether rows are aggregated, so that a count must wrap the query.
    var isAggregate: Bool {
        grouping != nil || groupsForAggregates || selection.contains { $0.mayAggregate }
    }

    // MARK: SQL generation

    struct Clauses {
        var selection: String?
        var includesOrdering = true
        var limit: (limit: Int, offset: Int?)?
        var usesLimit = true
    }

    /// The full SELECT statement.
    func sql(_ context: inout SQLGenerationContext) throws -> String {
        try sql(&context, Clauses())
    }

    func sql(_ context: inout SQLGenerationContext, _ clauses: Clauses) throws -> String {
        try checkRequiredJoins()
        nameJoinedAliases(&context)
        return try withScope(&context) { context, aliasName in
            var sql = try withClause(&context)
            let selectionSQL: String
            if let clausesSelection = clauses.selection {
                selectionSQL = clausesSelection
            } else {
                let selection = try resolvedSelection(context.db)
                var parts = selection.isEmpty ? [] : [try selection.selectionSQL(&context)]
                parts += try joinedSelectionSQL(&context)
                selectionSQL = parts.joined(separator: ", ")
            }
            sql += "SELECT \(isDistinct && clauses.selection == nil ? "DISTINCT " : "")\(selectionSQL) FROM \(fromSQL(aliasName))"
            sql += try joinsSQL(&context)
            sql += try whereGroupHavingSQL(&context)
            if clauses.includesOrdering {
                sql += try orderBySQL(&context)
            }
            if clauses.usesLimit, let limit = clauses.limit ?? limit {
                sql += limitSQL(limit)
            }
            return sql
        }
    }

    /// Generates SQL with the query's table as the current one. When a subquery refers to an
    /// outer alias that the query's table name hides, the SQL is generated again with the
    /// table aliased under a numbered name (`"player" "player1"`).
    func withScope(_ context: inout SQLGenerationContext, _ body: (inout SQLGenerationContext, String) throws -> String) throws -> String {
        let snapshot = context
        var sql = try generateInScope(&context, body)
        if context.shadowingAliases.contains(ObjectIdentifier(alias)) {
            context = snapshot
            context.rename(alias)
            sql = try generateInScope(&context, body)
        }
        return sql
    }

    private func generateInScope(_ context: inout SQLGenerationContext, _ body: (inout SQLGenerationContext, String) throws -> String) throws -> String {
        let saved = (context.currentAlias, context.qualifiesCurrentColumns)
        let aliasName = context.name(of: alias, tableName: tableName)
        context.enterScope(alias)
        context.currentAlias = alias
        context.qualifiesCurrentColumns = alias.userName != nil || hasJoins
        defer {
            context.leaveScope()
            (context.currentAlias, context.qualifiesCurrentColumns) = saved
        }
        return try body(&context, aliasName)
    }

    /// `"table"`, or `"table" "alias"` when the alias has another name.
    func fromSQL(_ aliasName: String) -> String {
        let table = tableName.quotedDatabaseIdentifier
        return aliasName == tableName ? table : "\(table) \(aliasName.quotedDatabaseIdentifier)"
    }

    /// The common table expressions of the statement: the query's, and those of its joined
    /// associations (`association.with(cte)`), merged by name, the one attached last winning,
    /// as GRDB (CTE-1).
    var statementCTEs: [SQLCTE] {
        guard hasJoins else { return ctes }
        var merged = ctes
        forEachRelation { relation in
            for cte in relation.ctes {
                if let index = merged.firstIndex(where: { $0.tableName.lowercased() == cte.tableName.lowercased() }) {
                    merged[index] = cte
                } else {
                    merged.append(cte)
                }
            }
        }
        return merged
    }

    /// Removes the common table expressions of the query and of its joined relations (a
    /// subquery whose statement's WITH clause has them already).
    mutating func clearCTEs() {
        ctes = []
        for index in joins.indices { joins[index].relation.clearCTEs() }
    }

    func withClause(_ context: inout SQLGenerationContext) throws -> String {
        let ctes = statementCTEs
        guard !ctes.isEmpty else { return "" }
        let recursive = ctes.contains { $0.isRecursive } ? "RECURSIVE " : ""
        let definitions = try ctes.map { cte -> String in
            var sql = cte.tableName.quotedDatabaseIdentifier
            if let columns = cte.columns, !columns.isEmpty {
                sql += "(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
            }
            var cteContext = context.forCommonTableExpression()
            let body = try cte.subquery.sql(&cteContext)
            context.continue(after: cteContext)
            return sql + " AS (\(body))"
        }
        return "WITH \(recursive)\(definitions.joined(separator: ", ")) "
    }

    /// The filter, as one expression, or nil.
    func filterExpression(_ db: Database) throws -> SQLExpression? {
        if filters.isEmpty { return nil }
        return try SQLExpression.associative(.and, filters.map { try $0.resolve(db) })
    }

    func whereGroupHavingSQL(_ context: inout SQLGenerationContext) throws -> String {
        var sql = ""
        if let filter = try filterExpression(context.db) {
            sql += try " WHERE \(filter.sql(&context))"
        }
        if let grouping = grouping ?? (groupsForAggregates ? aggregateGrouping : nil) {
            let expressions = try grouping.resolve(context.db)
            if !expressions.isEmpty {
                sql += try " GROUP BY " + expressions.map { try $0.sql(&context) }.joined(separator: ", ")
            }
        }
        if !havings.isEmpty {
            let predicates = try havings.map { try $0.resolve(context.db) }
            sql += try " HAVING \(SQLExpression.associative(.and, predicates).sql(&context))"
        }
        return sql
    }

    func orderBySQL(_ context: inout SQLGenerationContext) throws -> String {
        var terms = try ordering?.resolve(context.db) ?? []
        if isReversed {
            terms = try terms.map { try $0.reversed }
        }
        var parts = try terms.map { try $0.sql(&context) }
        parts += try joinedOrderingTerms(&context, reversed: isReversed)
        if parts.isEmpty { return "" }
        return " ORDER BY " + parts.joined(separator: ", ")
    }

    func limitSQL(_ limit: (limit: Int, offset: Int?)) -> String {
        if let offset = limit.offset {
            return " LIMIT \(limit.limit) OFFSET \(offset)"
        }
        return " LIMIT \(limit.limit)"
    }

    // MARK: Single results

    /// The limit for fetching one row, as GRDB chooses it: an explicit limit stays as it is;
    /// otherwise `LIMIT 1`, unless the query gives one row anyway (a selection of aggregates
    /// alone, without GROUP BY) or the filter targets a unique key of the table.
    func singleResultLimit(_ db: Database) throws -> (limit: Int, offset: Int?)? {
        if let limit { return limit }
        if grouping == nil, !selection.isEmpty, selection.allSatisfy(\.isAggregate) {
            return nil
        }
        // With joins, a key filter keeps LIMIT 1, as GRDB (PRG-3): a join can repeat the row.
        if grouping == nil, ctes.isEmpty, !hasJoins, try filtersUniqueKey(db) {
            return nil
        }
        return (1, nil)
    }

    /// Whether the filter compares the columns of a unique key with values.
    func filtersUniqueKey(_ db: Database) throws -> Bool {
        guard let filter = try filterExpression(db) else { return false }
        let columns = filter.conjunctionTerms.compactMap { $0.equalityColumn(alias: alias) }
        if columns.isEmpty { return false }
        guard try db.tableExists(tableName) else { return false }
        return try db.table(tableName, hasUniqueKey: columns)
    }

    // MARK: Counting

    /// `SELECT COUNT(*) ...` for this query.
    func countSQL(_ context: inout SQLGenerationContext) throws -> String {
        // As GRDB, joins (PRG-4) and aliased selections that a filter may refer to (CNT-1)
        // are counted through a subquery.
        let selectsAliases = selection.contains { if case .aliased = $0.kind { return true } else { return false } }
        if limit == nil, !isAggregate, ctes.isEmpty, !hasJoins, !selectsAliases {
            if !isDistinct {
                return try sql(&context, Clauses(selection: "COUNT(*)", includesOrdering: false))
            }
            if selection.count == 1, let expression = selection[0].expression {
                var countQuery = self
                countQuery.selection = [SQLSelection(kind: .expression(SQLExpression(.function(
                    "COUNT", [expression], aggregate: true, distinct: true, filter: nil))))]
                countQuery.isDistinct = false
                countQuery.ordering = nil
                return try countQuery.sql(&context)
            }
        }
        var inner = self
        if limit == nil { inner.ordering = nil }
        return try "SELECT COUNT(*) FROM (\(inner.sql(&context)))"
    }

    // MARK: Deletion and update

    /// Whether a DELETE or UPDATE needs the rows of a subquery: joins (whose conditions
    /// select the rows), grouping, distinct, or limits that SQLite can not apply to the
    /// statement itself.
    func modificationNeedsSubquery(_ db: Database) -> Bool {
        if hasJoins || grouping != nil || groupsForAggregates || !havings.isEmpty || isDistinct { return true }
        if limit != nil { return !db.supportsUpdateDeleteLimit }
        return false
    }

    /// The WHERE, ORDER BY and LIMIT of a DELETE or UPDATE.
    func modificationTailSQL(_ context: inout SQLGenerationContext) throws -> String {
        var sql = try whereGroupHavingSQL(&context)
        if limit != nil {
            sql += try orderBySQL(&context)
        }
        if let limit {
            sql += limitSQL(limit)
        }
        return sql
    }

    /// ` WHERE "id" IN (SELECT "book"."id" FROM "book" JOIN …)`: the rows of the query, by key.
    func modificationSubquerySQL(_ context: inout SQLGenerationContext) throws -> String {
        let keyColumns = try context.db.rowIdentifyingColumns(tableName)
        let key = keyColumns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        // The same rows and joins, none of whose relations select columns.
        var inner = withoutSelectedJoins()
        inner.selection = keyColumns.map { SQLSelection(kind: .expression(SQLExpression(.column($0)))) }
        inner.deferredSelection = nil
        inner.clearCTEs()
        let keySQL = keyColumns.count == 1 ? key : "(\(key))"
        return try " WHERE \(keySQL) IN (\(inner.sql(&context)))"
    }

    /// `DELETE FROM ... WHERE ...`, followed by `RETURNING <returning>` unless `returning` is
    /// empty. A query that needs a subquery (joins, grouping) deletes by key, with
    /// unqualified columns in `RETURNING`, as GRDB:
    /// `DELETE FROM "book" WHERE "id" IN (SELECT "book"."id" FROM "book" JOIN …) RETURNING *`.
    func deleteSQL(_ context: inout SQLGenerationContext, returning: [SQLSelection] = []) throws -> String {
        if modificationNeedsSubquery(context.db) {
            var sql = try withClause(&context)
            sql += "DELETE FROM \(tableName.quotedDatabaseIdentifier)"
            sql += try modificationSubquerySQL(&context)
            return try sql + unqualifiedReturningSQL(&context, returning)
        }
        return try withScope(&context) { context, aliasName in
            var sql = try withClause(&context)
            sql += "DELETE FROM \(tableName.quotedDatabaseIdentifier)"
            if aliasName != tableName { sql += " AS \(aliasName.quotedDatabaseIdentifier)" }
            sql += try modificationTailSQL(&context)
            return try sql + returningSQL(&context, returning)
        }
    }

    /// `UPDATE ... SET ... WHERE ...`, followed by `RETURNING <returning>` unless `returning`
    /// is empty. A query that needs a subquery updates by key, with unqualified assignments
    /// and `RETURNING`, as GRDB.
    func updateSQL(
        _ context: inout SQLGenerationContext, conflictResolution: Database.ConflictResolution,
        assignments: [ColumnAssignment], returning: [SQLSelection] = []) throws -> String
    {
        if modificationNeedsSubquery(context.db) {
            var sql = try withClause(&context)
            sql += updateHeadSQL(conflictResolution)
            let sets = try inUnqualifiedScope(&context) { context in
                try assignments.map { try $0.sql(&context) }.joined(separator: ", ")
            }
            sql += " SET \(sets)"
            sql += try modificationSubquerySQL(&context)
            return try sql + unqualifiedReturningSQL(&context, returning)
        }
        return try withScope(&context) { context, aliasName in
            var sql = try withClause(&context)
            sql += updateHeadSQL(conflictResolution)
            if aliasName != tableName { sql += " AS \(aliasName.quotedDatabaseIdentifier)" }
            let sets = try assignments.map { try $0.sql(&context) }.joined(separator: ", ")
            sql += " SET \(sets)"
            sql += try modificationTailSQL(&context)
            return try sql + returningSQL(&context, returning)
        }
    }

    private func updateHeadSQL(_ conflictResolution: Database.ConflictResolution) -> String {
        var sql = "UPDATE "
        if conflictResolution != .abort { sql += "OR \(conflictResolution.rawValue) " }
        return sql + tableName.quotedDatabaseIdentifier
    }

    /// Generates SQL in the scope of the statement's own table, with columns unqualified
    /// (the outer statement of a DELETE or UPDATE by key).
    private func inUnqualifiedScope(_ context: inout SQLGenerationContext, _ body: (inout SQLGenerationContext) throws -> String) throws -> String {
        let saved = (context.currentAlias, context.qualifiesCurrentColumns)
        context.currentAlias = alias
        context.qualifiesCurrentColumns = false
        defer { (context.currentAlias, context.qualifiesCurrentColumns) = saved }
        return try body(&context)
    }

    private func unqualifiedReturningSQL(_ context: inout SQLGenerationContext, _ selection: [SQLSelection]) throws -> String {
        if selection.isEmpty { return "" }
        let sql = try inUnqualifiedScope(&context) { context in try selection.selectionSQL(&context) }
        return " RETURNING " + sql
    }

    private func returningSQL(_ context: inout SQLGenerationContext, _ selection: [SQLSelection]) throws -> String {
        if selection.isEmpty { return "" }
        return try " RETURNING " + selection.selectionSQL(&context)
    }
}

extension Database {
    /// The columns that identify a row, as GRDB chooses them for the key subquery of a DELETE
    /// or UPDATE and for `groupByPrimaryKey()`: a single-column primary key, else the rowid,
    /// else the columns of the primary key (WITHOUT ROWID).
    func rowIdentifyingColumns(_ tableName: String) throws -> [String] {
        let primaryKey = try primaryKey(tableName)
        if primaryKey.columns.count == 1 { return primaryKey.columns }
        if try tableHasRowID(tableName) { return [Column.rowID.name] }
        return primaryKey.columns
    }

    /// Whether SQLite was built with `SQLITE_ENABLE_UPDATE_DELETE_LIMIT`, so that DELETE and
    /// UPDATE accept ORDER BY and LIMIT.
    var supportsUpdateDeleteLimit: Bool {
        sqlite3_compileoption_used("ENABLE_UPDATE_DELETE_LIMIT") != 0
    }
}
