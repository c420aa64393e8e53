// The query interface methods that take a closure over the record's database components
// (its `Columns`), and the `…WhenConnected` methods whose closure runs with the database.
//
//   Player.filter { $0.score > 100 }.order { $0.name }
//   // SELECT * FROM "player" WHERE "score" > 100 ORDER BY "name"

extension QueryInterfaceRequest where RowDecoder: TableRecord {
    /// The record's database components, handed to the closures of the request methods.
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents

    private var components: DatabaseComponents { RowDecoder.databaseComponents }

    /// Defines the result column from the record's columns, and the type fetched.
    ///
    /// ```swift
    /// let names = try Player.all().select({ $0.name }, as: String.self).fetchAll(db)
    /// ```
    public func select<T>(_ selection: (DatabaseComponents) throws -> any SQLSelectable, as type: T.Type = T.self) rethrows -> QueryInterfaceRequest<T> {
        try select([selection(components)], as: type)
    }

    /// Updates the rows the request fetches with one assignment built from the record's
    /// columns, and returns how many were changed.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score" = "score" + 10 WHERE "team" = 'red'
    /// try Player.filter { $0.team == "red" }.updateAll(db) { $0.score += 10 }
    /// ```
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignment: (DatabaseComponents) throws -> ColumnAssignment) throws -> Int
    {
        try updateAll(db, onConflict: conflictResolution, [assignment(components)])
    }

    /// Updates the rows the request fetches with assignments built from the record's columns,
    /// and returns how many were changed.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]) throws -> Int
    {
        try updateAll(db, onConflict: conflictResolution, assignments(components))
    }
}

extension QueryInterfaceRequest {
    /// Filters rows with a condition built when the request runs, with the database at hand.
    ///
    /// ```swift
    /// let request = Player.all().filterWhenConnected { db in
    ///     try db.columns(in: "player").contains { $0.name == "deleted" } ? Column("deleted") == false : true
    /// }
    /// ```
    public func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        var request = self
        request.query.filters.append(DatabasePromise { db in try predicate(db).sqlExpression })
        return request
    }

    /// Defines the result columns when the request runs, with the database at hand.
    public func selectWhenConnected(_ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        var request = self
        request.query.selection = []
        request.query.deferredSelection = DatabasePromise { db in try selection(db).map(\.sqlSelection) }
        return request
    }

    /// Appends result columns built when the request runs, with the database at hand.
    public func annotatedWhenConnected(with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        var request = self
        let base = query.deferredSelection ?? DatabasePromise(value: query.selection)
        request.query.deferredSelection = DatabasePromise { db in
            try base.resolve(db) + selection(db).map(\.sqlSelection)
        }
        return request
    }

    /// Groups rows by expressions built when the request runs, with the database at hand.
    public func groupWhenConnected(_ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]) -> Self {
        var request = self
        request.query.grouping = DatabasePromise { db in try expressions(db).map(\.sqlExpression) }
        return request
    }

    /// Filters groups with a condition built when the request runs, with the database at hand.
    public func havingWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        var request = self
        request.query.havings.append(DatabasePromise { db in try predicate(db).sqlExpression })
        return request
    }

    /// Sorts rows by terms built when the request runs, with the database at hand, replacing
    /// any previous ordering.
    public func orderWhenConnected(_ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]) -> Self {
        var request = self
        request.query.ordering = DatabasePromise { db in try orderings(db).map(\.sqlOrdering) }
        request.query.isReversed = false
        return request
    }
}

extension QueryInterfaceRequest where RowDecoder: Identifiable {
    /// Selects the primary key, fetched as the record's `ID`.
    ///
    /// ```swift
    /// let ids = try Player.filter { $0.score > 100 }.selectID().fetchAll(db) // [Player.ID]
    /// // SELECT "id" FROM "player" WHERE "score" > 100
    /// ```
    public func selectID() -> QueryInterfaceRequest<RowDecoder.ID> {
        selectPrimaryKey(as: RowDecoder.ID.self)
    }
}

// MARK: - Record types

extension TableRecord {
    /// All rows whose record columns match a condition.
    ///
    /// ```swift
    /// let players = try Player.filter { $0.score > 100 }.fetchAll(db)
    /// ```
    public static func filter(_ predicate: (DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows -> QueryInterfaceRequest<Self> {
        try all().filter(predicate)
    }

    /// The request that selects record columns.
    public static func select(_ selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> QueryInterfaceRequest<Self> {
        try all().select(selection)
    }

    /// The request that selects one record column.
    public static func select(_ selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> QueryInterfaceRequest<Self> {
        try all().select(selection)
    }

    /// The request that selects one record column, fetched as `RowDecoder`.
    ///
    /// ```swift
    /// let maxScore = try Player.select({ max($0.score) }, as: Int.self).fetchOne(db)
    /// ```
    public static func select<RowDecoder>(
        _ selection: (DatabaseComponents) throws -> any SQLSelectable,
        as type: RowDecoder.Type = RowDecoder.self) rethrows -> QueryInterfaceRequest<RowDecoder>
    {
        try all().select(selection, as: type)
    }

    /// The request that selects all columns and extra ones built from record columns.
    public static func annotated(with selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> QueryInterfaceRequest<Self> {
        try all().annotated(with: selection)
    }

    /// The request that selects all columns and an extra one built from record columns.
    public static func annotated(with selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> QueryInterfaceRequest<Self> {
        try all().annotated(with: selection)
    }

    /// The request sorted by record columns.
    ///
    /// ```swift
    /// let players = try Player.order { [$0.score.desc, $0.name] }.fetchAll(db)
    /// ```
    public static func order(_ orderings: (DatabaseComponents) throws -> [any SQLOrderingTerm]) rethrows -> QueryInterfaceRequest<Self> {
        try all().order(orderings)
    }

    /// The request sorted by a record column.
    public static func order(_ orderings: (DatabaseComponents) throws -> any SQLOrderingTerm) rethrows -> QueryInterfaceRequest<Self> {
        try all().order(orderings)
    }

    /// Updates all rows with one assignment built from record columns, and returns how many
    /// were changed.
    ///
    /// ```swift
    /// try Player.updateAll(db) { $0.score.set(to: 0) } // UPDATE "player" SET "score" = 0
    /// ```
    @discardableResult
    public static func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignment: (DatabaseComponents) throws -> ColumnAssignment) throws -> Int
    {
        try all().updateAll(db, onConflict: conflictResolution, assignment: assignment)
    }

    /// Updates all rows with assignments built from record columns, and returns how many were
    /// changed.
    @discardableResult
    public static func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]) throws -> Int
    {
        try all().updateAll(db, onConflict: conflictResolution, assignments: assignments)
    }
}

extension TableRecord where Self: Identifiable {
    /// The request that selects the primary key, fetched as the record's `ID`.
    ///
    /// ```swift
    /// let ids = try Player.selectID().fetchAll(db) // SELECT "id" FROM "player"
    /// ```
    public static func selectID() -> QueryInterfaceRequest<ID> {
        all().selectID()
    }
}

extension Table where RowDecoder: TableRecord {
    /// The record's database components, handed to the closures of the request methods.
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents

    /// Updates all rows with one assignment built from the record's columns, and returns how
    /// many were changed.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignment: (DatabaseComponents) throws -> ColumnAssignment) throws -> Int
    {
        try all().updateAll(db, onConflict: conflictResolution, assignment: assignment)
    }

    /// Updates all rows with assignments built from the record's columns, and returns how many
    /// were changed.
    @discardableResult
    public func updateAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]) throws -> Int
    {
        try all().updateAll(db, onConflict: conflictResolution, assignments: assignments)
    }
}

extension Table where RowDecoder: Identifiable {
    /// The request that selects the primary key, fetched as the record's `ID`.
    public func selectID() -> QueryInterfaceRequest<RowDecoder.ID> {
        all().selectID()
    }
}
