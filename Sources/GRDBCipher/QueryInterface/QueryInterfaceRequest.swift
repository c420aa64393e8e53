/// A request built by the query interface, from a record type or a `Table`.
///
/// ```swift
/// // SELECT * FROM "player" WHERE "score" > ? ORDER BY "name"
/// let request = Player.filter(Column("score") > 1000).order(Column("name"))
/// let players = try request.fetchAll(db)   // [Player]
/// let count = try request.fetchCount(db)   // SELECT COUNT(*) FROM "player" WHERE "score" > ?
/// try request.deleteAll(db)                // DELETE FROM "player" WHERE "score" > ?
/// ```
///
/// `select`, `order`, `group` and `limit` replace what was set before; `filter` and `having`
/// add conditions joined with `AND`.
public struct QueryInterfaceRequest<RowDecoder>: DerivableRequest, Sendable {
    var query: SQLQuery

    init(query: SQLQuery) {
        self.query = query
    }
}

extension QueryInterfaceRequest {
    /// The request, fetching another type.
    ///
    /// ```swift
    /// let request = Player.select(max(Column("score"))).asRequest(of: Int.self)
    /// ```
    public func asRequest<T>(of type: T.Type) -> QueryInterfaceRequest<T> {
        QueryInterfaceRequest<T>(query: query)
    }

    /// The name of the table the request fetches from.
    public var databaseTableName: String { query.tableName }

    // MARK: SELECT

    /// Defines the result columns.
    ///
    /// ```swift
    /// Player.all().select([Column("id"), Column("name")]) // SELECT "id", "name" FROM "player"
    /// ```
    public func select(_ selection: [any SQLSelectable]) -> Self {
        var request = self
        request.query.selection = selection.map(\.sqlSelection)
        request.query.deferredSelection = nil
        return request
    }

    /// Defines the result columns.
    public func select(_ selection: any SQLSelectable...) -> Self {
        select(selection)
    }

    /// Defines the result columns, and the type fetched.
    ///
    /// ```swift
    /// let request = Player.all().select([max(Column("score"))], as: Int.self)
    /// let maxScore = try request.fetchOne(db) // Int?
    /// ```
    public func select<T>(_ selection: [any SQLSelectable], as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(selection).asRequest(of: T.self)
    }

    /// Defines the result columns, and the type fetched.
    public func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(selection, as: type)
    }

    /// Defines the result columns with raw SQL.
    public func select(sql: String, arguments: StatementArguments = StatementArguments()) -> Self {
        select(SQL(sql: sql, arguments: arguments))
    }

    /// Defines the result columns with an SQL literal.
    public func select(literal sqlLiteral: SQL) -> Self {
        select(sqlLiteral)
    }

    /// Defines the result columns with raw SQL, and the type fetched.
    public func select<T>(sql: String, arguments: StatementArguments = StatementArguments(), as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(SQL(sql: sql, arguments: arguments), as: type)
    }

    /// Defines the result columns with an SQL literal, and the type fetched.
    public func select<T>(literal sqlLiteral: SQL, as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        select(sqlLiteral, as: type)
    }

    /// Selects the primary key columns.
    ///
    /// ```swift
    /// let ids = try Player.all().selectPrimaryKey(as: Int64.self).fetchAll(db) // SELECT "id" FROM "player"
    /// ```
    public func selectPrimaryKey<T>(as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        var request = self
        let tableName = query.tableName
        request.query.selection = []
        request.query.deferredSelection = DatabasePromise { db in
            try db.primaryKey(tableName).columns.map { SQLSelection(kind: .expression(SQLExpression(.column($0)))) }
        }
        return request.asRequest(of: T.self)
    }

    /// Appends result columns to the selection.
    ///
    /// ```swift
    /// // SELECT *, "score" + "bonus" AS "total" FROM "player"
    /// Player.all().annotated(with: (Column("score") + Column("bonus")).forKey("total"))
    /// ```
    public func annotated(with selection: [any SQLSelectable]) -> Self {
        let selection = selection.map(\.sqlSelection)
        var request = self
        if let deferred = query.deferredSelection {
            request.query.deferredSelection = DatabasePromise { db in try deferred.resolve(db) + selection }
        } else {
            request.query.selection.append(contentsOf: selection)
        }
        return request
    }

    /// Returns distinct rows: `SELECT DISTINCT`.
    public func distinct() -> Self {
        var request = self
        request.query.isDistinct = true
        return request
    }

    // MARK: ORDER BY

    /// Reverses the ordering; without ordering, the request is unchanged.
    public func reversed() -> Self {
        var request = self
        request.query.isReversed.toggle()
        return request
    }

    /// Removes the ordering.
    public func unordered() -> Self {
        var request = self
        request.query = query.unordered()
        return request
    }

    /// Sorts rows by their current ordering, then by primary key, so that the order is always
    /// the same.
    public func withStableOrder() -> Self {
        var request = self
        request.query = query.withStableOrder()
        return request
    }

    // MARK: LIMIT

    /// Limits and pages the rows: `LIMIT limit OFFSET offset`.
    public func limit(_ limit: Int, offset: Int? = nil) -> Self {
        var request = self
        request.query.limit = (limit, offset)
        return request
    }

    // MARK: Aliases and common table expressions

    /// Names the request's table, so that other requests can refer to its columns.
    ///
    /// ```swift
    /// let teamAlias = TableAlias()
    /// let players = Player.filter(Column("teamId") == teamAlias[Column("id")])
    /// let teams = Team.all().aliased(teamAlias).filter(players.exists())
    /// ```
    public func aliased(_ alias: TableAlias<RowDecoder>) -> Self {
        aliased(base: alias)
    }

    /// Names the request's table with an alias bound to no record type.
    public func aliased(_ alias: TableAlias<Void>) -> Self {
        aliased(base: alias)
    }

    func aliased(base alias: TableAliasBase) -> Self {
        var request = self
        request.query.alias = alias
        return request
    }

    public func _joining(_ association: _SQLAssociation, _ mode: _SQLJoinMode) -> Self {
        var request = self
        request.query = query.joining(association, mode)
        return request
    }

    /// Embeds a common table expression: `WITH "name" AS (...) SELECT ...`.
    public func with<T>(_ cte: CommonTableExpression<T>) -> Self {
        var request = self
        request.query.ctes.removeAll { $0.tableName.lowercased() == cte.cte.tableName.lowercased() }
        request.query.ctes.append(cte.cte)
        return request
    }
}

// MARK: - Fetching, counting, deleting, updating

extension QueryInterfaceRequest: FetchRequest {
    public var sqlSubquery: SQLSubquery { SQLSubquery(query: query) }

    public func makePreparedRequest(_ db: Database, forSingleResult singleResult: Bool) throws -> PreparedRequest {
        var context = SQLGenerationContext(db)
        var query = try self.query.resolvingPromises(db)
        var clauses = SQLQuery.Clauses()
        if singleResult {
            clauses.limit = try query.singleResultLimit(db)
            clauses.usesLimit = clauses.limit != nil
            if !clauses.usesLimit { query.limit = nil }
        }
        let sql = try query.sql(&context, clauses)
        let statement = try db.preparedStatement(sql: sql, arguments: context.arguments)
        if !query.filters.isEmpty {
            statement.regionNarrowing = RegionNarrowing(query: query)
        }
        var prepared = try PreparedRequest(statement: statement, adapter: query.rowAdapter(db))
        if query.prefetchesInTree {
            try query.checkPrefetchedTablesExist(db, ctes: query.statementCTEs)
            prepared.supplementaryFetch = { [query] db, rows in try query.prefetch(db, into: rows) }
            // An observation that fetches the request tracks the prefetched tables too, even
            // when no parent row is fetched and no prefetch query runs (OBS-1), unless the
            // request matches no row.
            if db.trackedRegion != nil, !statement.databaseRegion.isEmpty {
                db.trackedRegion!.formUnion(try query.prefetchRegion(db))
            }
        }
        return prepared
    }

    /// The number of rows the request fetches.
    ///
    /// ```swift
    /// try Player.filter(Column("email") != nil).fetchCount(db)
    /// // SELECT COUNT(*) FROM "player" WHERE "email" IS NOT NULL
    /// ```
    public func fetchCount(_ db: Database) throws -> Int {
        var context = SQLGenerationContext(db)
        let sql = try query.resolvingPromises(db).countSQL(&context)
        return try Int.fetchOne(db.preparedStatement(sql: sql, arguments: context.arguments)) ?? 0
    }

    /// Whether the request fetches no row: `SELECT EXISTS (...)`, cheaper than counting.
    public func isEmpty(_ db: Database) throws -> Bool {
        var context = SQLGenerationContext(db)
        let sql = try query.resolvingPromises(db).sql(&context)
        return try !(Bool.fetchOne(db.preparedStatement(sql: "SELECT EXISTS (\(sql))", arguments: context.arguments)) ?? false)
    }

    /// Deletes the rows the request fetches, and returns how many were deleted.
    ///
    /// ```swift
    /// try Player.filter(Column("team") == "red").deleteAll(db) // DELETE FROM "player" WHERE "team" = ?
    /// ```
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int {
        var context = SQLGenerationContext(db)
        let sql = try query.deleteSQL(&context)
        let statement = try db.makeStatement(sql: sql)
        return try db.changedRowCount(in: query.tableName) {
            try statement.execute(arguments: context.arguments)
        }
    }

    /// Updates the rows the request fetches, and returns how many were changed. Without
    /// assignments, nothing runs and 0 is returned.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score" = "score" + ? WHERE "team" = ?
    /// try Player.filter(Column("team") == "red").updateAll(db, Column("score") += 100)
    /// ```
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment]) throws -> Int {
        if assignments.isEmpty { return 0 }
        let resolution = conflictResolution ?? defaultUpdateConflictResolution
        var context = SQLGenerationContext(db)
        let sql = try query.updateSQL(&context, conflictResolution: resolution, assignments: assignments)
        let statement = try db.makeStatement(sql: sql)
        try statement.execute(arguments: context.arguments)
        return db.changesCount
    }

    /// Updates the rows the request fetches, and returns how many were changed.
    @discardableResult
    public func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: ColumnAssignment...) throws -> Int {
        try updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// The conflict resolution of the record type's updates, or abort.
    var defaultUpdateConflictResolution: Database.ConflictResolution {
        if let recordType = RowDecoder.self as? any MutablePersistableRecord.Type {
            return recordType.persistenceConflictPolicy.conflictResolutionForUpdate
        }
        return .abort
    }
}

extension SQLQuery {
    /// The query sorted by its current ordering, then by primary key.
    /// The query and its joined relations without orderings (ORD-1: GRDB removes the
    /// orderings of the joined associations too).
    func unordered() -> SQLQuery {
        var query = self
        query.ordering = nil
        query.isReversed = false
        query.joins = joins.map { join in
            var join = join
            join.relation = join.relation.unordered()
            return join
        }
        return query
    }

    /// The query ordered by its ordering, then by primary key, and so are its joined relations,
    /// each after its own ordering, as GRDB (ORD-1): `ORDER BY "book"."title", "book"."id",
    /// "author"."name", "author"."id"`. A view is ordered by the key a schema source gives it,
    /// or else, at the root, by every column by position (`ORDER BY 1, 2, 3`).
    func withStableOrder(isRoot: Bool = true) -> SQLQuery {
        var query = self
        let tableName = self.tableName
        let ordering = self.ordering
        let isReversed = self.isReversed && isRoot
        let unorderedSelf = self
        query.ordering = DatabasePromise { db in
            var terms = try ordering?.resolve(db) ?? []
            if isReversed { terms = try terms.map { try $0.reversed } }
            let keyColumns: [String]
            if try db.tableExists(tableName) {
                keyColumns = try db.primaryKey(tableName).columns
            } else if try db.viewExists(tableName) {
                if let key = try? db.primaryKey(tableName).columns, !key.isEmpty {
                    keyColumns = key
                } else if isRoot {
                    let count = try unorderedSelf.columnCount(db)
                    return terms + (0..<count).map { SQLOrdering(kind: .expression(SQLExpression(.constant("\($0 + 1)")))) }
                } else {
                    keyColumns = try db.columns(in: tableName).map(\.name)
                }
            } else {
                keyColumns = []
            }
            return terms + keyColumns.map { SQLOrdering(kind: .expression(SQLExpression(.column($0)))) }
        }
        if isRoot { query.isReversed = false }
        query.joins = joins.map { join in
            var join = join
            join.relation = join.relation.withStableOrder(isRoot: false)
            return join
        }
        return query
    }

    /// The query with what needs the database resolved once: the deferred selection (primary
    /// key), and the filters (keys), joined into one expression.
    func resolvingPromises(_ db: Database) throws -> SQLQuery {
        var query = self
        if let deferredSelection {
            query.selection = try deferredSelection.resolve(db)
            query.deferredSelection = nil
        }
        if let filter = try filterExpression(db) {
            query.filters = [DatabasePromise(value: filter)]
        }
        return query
    }
}
