// The *AndFetch persistence methods: INSERT, UPDATE and upsert statements with a RETURNING
// clause, whose returned row is decoded.
//
//   INSERT INTO "player" ("name") VALUES (?) RETURNING *

extension MutablePersistableRecord {
    /// Runs `sql` + ` RETURNING <selection>` with the values, and hands the statement to
    /// `fetch`; the changes happen when `fetch` steps the statement.
    private static func returning<T>(
        _ db: Database, sql: String, values: [DatabaseValue], selection: [any SQLSelectable],
        fetch: (Statement) throws -> T) throws -> T
    {
        var context = SQLGenerationContext(db)
        context.append(StatementArguments(values))
        // The record's table is the current one, unqualified: `.allColumns(excluding:)`
        // resolves with it (REC-3).
        let alias = TableAlias<Void>(implicit: ())
        _ = context.name(of: alias, tableName: databaseTableName)
        context.currentAlias = alias
        context.qualifiesCurrentColumns = false
        let selectionSQL = try selection.selectionSQL(&context)
        let statement = try db.makeStatement(sql: "\(sql) RETURNING \(selectionSQL)")
        try statement.setArguments(context.arguments)
        let fetched = try fetch(statement)
        // Completes the statement even if `fetch` read one row only, so that the number of
        // changed rows is known.
        statement.reset()
        return fetched
    }

    /// A fetch closure that decodes one `T` and throws recordNotFound when no row comes back
    /// (an ignored conflict, a missing row).
    fileprivate func fetchOneRecord<T: FetchableRecord>(_ db: Database, _ recordType: T.Type) -> (Statement) throws -> T {
        { statement in
            if let record = try T.fetchOne(statement) { return record }
            throw try notFoundError(db)
        }
    }

    /// The error of a statement that returned no row for the record.
    private func notFoundError(_ db: Database) throws -> any Error {
        let container = try PersistenceContainer(self, db)
        let (columns, values) = try type(of: self).primaryKeyValues(db, container)
        return type(of: self).notFound(columns, values)
    }

    private func insertReturning<T>(
        _ db: Database, onConflict conflict: Database.ConflictResolution?, selection: [any SQLSelectable],
        fetch: (Statement) throws -> T) throws -> (InsertionSuccess, T)
    {
        var container = try PersistenceContainer(self, db)
        let table = type(of: self).databaseTableName
        let conflict = conflict ?? type(of: self).persistenceConflictPolicy.conflictResolutionForInsert
        let sql = PersistenceSQL.insert(table: table, columns: container.columns, conflict: conflict)
        let fetched = try type(of: self).returning(db, sql: sql, values: container.databaseValues, selection: selection, fetch: fetch)
        let rowIDColumn = try db.primaryKey(table).rowIDColumn
        return (makeInsertionSuccess(
            rowID: db.lastInsertedRowID, rowIDColumn: rowIDColumn,
            rowIDIndex: rowIDColumn.flatMap { container.index(of: $0) }, container: &container), fetched)
    }

    /// The upsert of `upsertAndFetch`: `RETURNING *, "rowid"`, as GRDB. The record is
    /// decoded from the selected columns, and the insertion is told the rowid of the row that
    /// was inserted or updated (an update does not change the last inserted rowid).
    private func upsertReturning<T: FetchableRecord>(
        _ db: Database, conflictTarget: [String], strategy: UpsertUpdateStrategy,
        assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])?,
        selection: [any SQLSelectable], as recordType: T.Type) throws -> (InsertionSuccess, T)
    {
        var container = try PersistenceContainer(self, db)
        let table = type(of: self).databaseTableName
        let primaryKey = try db.primaryKey(table)
        var context = SQLGenerationContext(db)
        context.append(StatementArguments(container.databaseValues))
        let excluded = TableAlias<Self>(name: "excluded")
        _ = context.name(of: excluded, tableName: "excluded")
        let sql = try PersistenceSQL.upsert(
            &context, table: table, columns: container.columns, keyColumns: primaryKey.columns,
            conflictTarget: conflictTarget, overwritesColumns: strategy == .allColumns, assignments: assignments?(excluded) ?? [])
        let values = Array(context.arguments.values)
        let hasRowID = try db.tableHasRowID(table)
        let fetch = fetchOneRecord(db, T.self)
        let (fetched, returnedRowID) = try type(of: self).returning(
            db, sql: sql, values: values, selection: hasRowID ? selection + [Column.rowID] : selection)
        { statement -> (T, Int64?) in
            guard hasRowID else { return (try fetch(statement), nil) }
            // The selected columns for the record, the rowid from the last one.
            let selected = RangeRowAdapter(0..<(statement.columnCount - 1))
            guard let row = try Row.fetchOne(statement, adapter: selected) else { throw try notFoundError(db) }
            let rowID = Int64.fromDatabaseValue(row.unadapted.databaseValue(at: statement.columnCount - 1))
            return (try T(row: row), rowID)
        }
        var rowID = returnedRowID ?? db.lastInsertedRowID
        if let rowIDColumn = primaryKey.rowIDColumn {
            if returnedRowID == nil, let value = Int64.fromDatabaseValue(container.databaseValue(of: rowIDColumn)) {
                rowID = value
            } else if rowIDColumn != "rowid" {
                container[rowIDColumn] = rowID
            }
        }
        return (InsertionSuccess(rowID: rowID, rowIDColumn: primaryKey.rowIDColumn, persistenceContainer: container), fetched)
    }

    private func updateReturning<T>(
        _ db: Database, onConflict conflict: Database.ConflictResolution?, columns: Set<String>?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T) throws -> (PersistenceSuccess, T)
    {
        let container = try PersistenceContainer(self, db)
        let (keyColumns, keyValues) = try type(of: self).primaryKeyValues(db, container)
        if keyValues.contains(where: \.isNull) { throw type(of: self).notFound(keyColumns, keyValues) }
        let setColumns = Self.updatedColumns(container, keyColumns: keyColumns, only: columns)
        let conflict = conflict ?? type(of: self).persistenceConflictPolicy.conflictResolutionForUpdate
        let table = type(of: self).databaseTableName
        let sql = try PersistenceSQL.update(
            table: table, setColumns: PersistenceSQL.tableSpelling(db, table: table, columns: setColumns),
            keyColumns: keyColumns, conflict: conflict)
        let values = setColumns.map { container.databaseValue(of: $0) } + keyValues
        let fetched = try type(of: self).returning(db, sql: sql, values: values, selection: selection, fetch: fetch)
        if db.changesCount == 0 { throw type(of: self).notFound(keyColumns, keyValues) }
        return (PersistenceSuccess(persistenceContainer: container), fetched)
    }

    /// Inserts the record and returns the selected columns of the inserted row, read by
    /// `fetch` from the `INSERT ... RETURNING` statement.
    ///
    /// ```swift
    /// // INSERT INTO "player" ("name") VALUES (?) RETURNING "score"
    /// let score = try player.insertAndFetch(db, selection: [Column("score")]) { try Int.fetchOne($0) }
    /// ```
    public mutating func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T) throws -> T
    {
        try mutatingInsertAndFetch(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }

    /// Inserts the record and returns the inserted row as a `T` (default values and generated
    /// columns included); throws ``RecordError/recordNotFound(databaseTableName:key:)`` when
    /// no row was inserted (an ignored conflict).
    ///
    /// ```swift
    /// // INSERT INTO "player" ("name") VALUES (?) RETURNING *
    /// let player = try partialPlayer.insertAndFetch(db, as: Player.self)
    /// ```
    public mutating func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type) throws -> T
    {
        let fetch = fetchOneRecord(db, T.self)
        return try insertAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection, fetch: fetch)
    }

    /// Inserts or updates the record and returns the upserted row as a `T`.
    ///
    /// On conflict with the primary key, or with the unique key `conflictTarget`, the stored
    /// row is updated: every column but the keys is overwritten with the record's value, unless
    /// `doUpdate` assigns it otherwise.
    ///
    /// ```swift
    /// // INSERT INTO "player" ("id", "name", "score") VALUES (?,?,?)
    /// // ON CONFLICT DO UPDATE SET "name" = "excluded"."name", "score" = "score" + "excluded"."score"
    /// // RETURNING *, "rowid"
    /// let player = try player.upsertAndFetch(db, as: Player.self) { excluded in
    ///     [Column("score") += excluded[Column("score")]]
    /// }
    /// ```
    public mutating func upsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil) throws -> T
    {
        try mutatingUpsertAndFetch(db, as: T.self, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }

    /// Updates the record and returns the selected columns of the updated row, read by
    /// `fetch` from the `UPDATE ... RETURNING` statement.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T) throws -> T
    {
        try updateReturningWithCallbacks(db, onConflict: conflictResolution, columns: nil, selection: selection, fetch: fetch)
    }

    /// Updates the given columns and returns the selected columns of the updated row, read by
    /// `fetch` from the `UPDATE ... RETURNING` statement.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score"=? WHERE "id"=? RETURNING "score"
    /// let score = try player.updateAndFetch(db, columns: ["score"], selection: [Column("score")]) {
    ///     try Int.fetchOne($0)
    /// }
    /// ```
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<String>, selection: [any SQLSelectable], fetch: (Statement) throws -> T) throws -> T
    {
        try updateReturningWithCallbacks(db, onConflict: conflictResolution, columns: Set(columns), selection: selection, fetch: fetch)
    }

    /// `UPDATE … RETURNING` of `columns` (all columns when nil), inside the save and update
    /// callbacks, with `fetch`'s result.
    private func updateReturningWithCallbacks<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution?, columns: Set<String>?,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T) throws -> T
    {
        var result: T?
        try updateWithCallbacks(db, columns: columns ?? allUpdatedColumns()) {
            let (success, fetched) = try updateReturning(db, onConflict: conflictResolution, columns: columns, selection: selection, fetch: fetch)
            result = fetched
            return success
        }
        return result!
    }

    /// Updates the given columns and returns the selected columns of the updated row.
    public func updateAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        columns: some Collection<some ColumnExpression>, selection: [any SQLSelectable],
        fetch: (Statement) throws -> T) throws -> T
    {
        try updateAndFetch(db, onConflict: conflictResolution, columns: columns.map(\.name), selection: selection, fetch: fetch)
    }

    /// Modifies the record with `modify`, then updates the columns that changed, and returns
    /// the selected columns of the updated row; nil when nothing changed (no statement runs).
    ///
    /// ```swift
    /// // UPDATE "player" SET "score"=? WHERE "id"=? RETURNING "score"
    /// let score = try player.updateChangesAndFetch(db, selection: [Column("score")], fetch: { try Int.fetchOne($0) }) {
    ///     $0.score = 1000
    /// }
    /// ```
    public mutating func updateChangesAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T,
        modify: (inout Self) throws -> Void) throws -> T?
    {
        let changes = try databaseChanges(modify: modify)
        if changes.isEmpty { return nil }
        return try updateAndFetch(db, onConflict: conflictResolution, columns: changes.keys, selection: selection, fetch: fetch)
    }

    /// Modifies the record with `modify`, then updates the columns that changed, and returns
    /// the updated row as a `T`; nil when nothing changed.
    public mutating func updateChangesAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        as returnedType: T.Type, modify: (inout Self) throws -> Void) throws -> T?
    {
        try updateChangesAndFetch(
            db, onConflict: conflictResolution, selection: T.databaseSelection,
            fetch: fetchOneRecord(db, T.self), modify: modify)
    }

    /// Updates or inserts the record (see ``save(_:onConflict:)``) and returns the selected
    /// columns of the saved row, read by `fetch`.
    ///
    /// ```swift
    /// let score = try player.saveAndFetch(db, selection: [Column("score")]) { try Int.fetchOne($0) }
    /// ```
    public mutating func saveAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T) throws -> T
    {
        try mutatingSaveAndFetch(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }

    /// Updates every column and returns the updated row as a `T`; throws
    /// ``RecordError/recordNotFound(databaseTableName:key:)`` when no row has the record's key.
    public func updateAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type) throws -> T
    {
        try updateAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection, fetch: fetchOneRecord(db, T.self))
    }

    /// Updates or inserts the record (see ``save(_:onConflict:)``) and returns the saved row as
    /// a `T`.
    public mutating func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type) throws -> T
    {
        try mutatingSaveAndFetch(db, onConflict: conflictResolution, as: T.self)
    }
}

extension MutablePersistableRecord where Self: FetchableRecord {
    /// Inserts the record and returns the inserted row, decoded; throws
    /// ``RecordError/recordNotFound(databaseTableName:key:)`` when an ignored conflict inserted
    /// nothing.
    ///
    /// As in GRDB, the record itself is not changed (the returned record has the inserted id),
    /// so it can be a constant.
    ///
    /// ```swift
    /// let player = Player(id: nil, name: "Arthur", score: 0)
    /// let inserted = try player.insertAndFetch(db) // INSERT ... RETURNING *
    /// ```
    public func insertAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self {
        var record = self
        return try record.mutatingInsertAndFetch(
            db, onConflict: conflictResolution, selection: Self.databaseSelection, fetch: fetchOneRecord(db, Self.self))
    }

    /// Inserts or updates the record and returns the upserted row, decoded (see
    /// ``upsertAndFetch(_:as:onConflict:updating:doUpdate:)``).
    public mutating func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil) throws -> Self
    {
        try upsertAndFetch(db, as: Self.self, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }

    /// Updates every column and returns the updated row, decoded.
    public func updateAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self {
        try updateAndFetch(db, onConflict: conflictResolution, as: Self.self)
    }

    /// Modifies the record with `modify`, then updates the columns that changed, and returns
    /// the updated row, decoded; nil when nothing changed.
    ///
    /// ```swift
    /// let updated = try player.updateChangesAndFetch(db) { $0.score = 1000 }
    /// ```
    public mutating func updateChangesAndFetch(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        modify: (inout Self) throws -> Void) throws -> Self?
    {
        try updateChangesAndFetch(db, onConflict: conflictResolution, as: Self.self, modify: modify)
    }

    /// Updates or inserts the record and returns the saved row, decoded. The record itself is
    /// not changed, as in GRDB.
    ///
    /// ```swift
    /// let saved = try player.saveAndFetch(db)
    /// ```
    public func saveAndFetch(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self {
        var record = self
        return try record.mutatingSaveAndFetch(db, onConflict: conflictResolution, as: Self.self)
    }
}

extension PersistableRecord {
    /// Inserts the record and returns the selected columns of the inserted row.
    public func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T) throws -> T
    {
        var record = self
        return try record.mutatingInsertAndFetch(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }

    /// Inserts the record and returns the inserted row as a `T`.
    public func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type) throws -> T
    {
        try insertAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection, fetch: fetchOneRecord(db, T.self))
    }

    /// Inserts or updates the record and returns the upserted row as a `T`.
    public func upsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil) throws -> T
    {
        var record = self
        return try record.mutatingUpsertAndFetch(db, as: T.self, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }

    /// Updates or inserts the record and returns the selected columns of the saved row.
    public func saveAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        selection: [any SQLSelectable], fetch: (Statement) throws -> T) throws -> T
    {
        var record = self
        return try record.mutatingSaveAndFetch(db, onConflict: conflictResolution, selection: selection, fetch: fetch)
    }

    /// Updates or inserts the record and returns the saved row as a `T`.
    public func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, as returnedType: T.Type) throws -> T
    {
        var record = self
        return try record.mutatingSaveAndFetch(db, onConflict: conflictResolution, as: T.self)
    }
}

extension PersistableRecord where Self: FetchableRecord {

    /// Inserts or updates the record and returns the upserted row, decoded.
    public func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])? = nil) throws -> Self
    {
        try upsertAndFetch(db, as: Self.self, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }

}

// Names that always reach the mutating implementations (the non-mutating ones of
// PersistableRecord would otherwise win overload resolution and call themselves).
extension MutablePersistableRecord {
    fileprivate mutating func mutatingInsertAndFetch<T>(
        _ db: Database, onConflict: Database.ConflictResolution?, selection: [any SQLSelectable],
        fetch: (Statement) throws -> T) throws -> T
    {
        var result: T?
        try insertWithCallbacks(db) { record in
            let (success, fetched) = try record.insertReturning(db, onConflict: onConflict, selection: selection, fetch: fetch)
            result = fetched
            return success
        }
        return result!
    }

    fileprivate mutating func mutatingUpsertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, as returnedType: T.Type, onConflict conflictTarget: [String], updating strategy: UpsertUpdateStrategy,
        doUpdate assignments: ((_ excluded: TableAlias<Self>) -> [ColumnAssignment])?) throws -> T
    {
        var result: T?
        try insertWithCallbacks(db) { record in
            let (success, fetched) = try record.upsertReturning(
                db, conflictTarget: conflictTarget, strategy: strategy, assignments: assignments,
                selection: T.databaseSelection, as: T.self)
            result = fetched
            return success
        }
        return result!
    }

    fileprivate mutating func mutatingSaveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict: Database.ConflictResolution?, as returnedType: T.Type) throws -> T
    {
        try mutatingSaveAndFetch(db, onConflict: onConflict, selection: T.databaseSelection, fetch: fetchOneRecord(db, T.self))
    }

    fileprivate mutating func mutatingSaveAndFetch<T>(
        _ db: Database, onConflict: Database.ConflictResolution?, selection: [any SQLSelectable],
        fetch: (Statement) throws -> T) throws -> T
    {
        // One willSave/aroundSave/didSave around the update and, when no row has the key, the
        // insert, as GRDB (REC-2: they ran twice).
        var result: T?
        try withoutActuallyEscaping(fetch) { fetch in
            try saveWithCallbacks(
                db,
                update: { record in
                    let (success, fetched) = try record.updateReturning(db, onConflict: onConflict, columns: nil, selection: selection, fetch: fetch)
                    result = fetched
                    return success
                },
                insert: { record in
                    let (success, fetched) = try record.insertReturning(db, onConflict: onConflict, selection: selection, fetch: fetch)
                    result = fetched
                    return success
                })
        }
        return result!
    }
}

// MARK: - Selections built from the record's columns

extension MutablePersistableRecord {
    /// Inserts the record and returns the columns selected from the record's columns, read by
    /// `fetch` from the `INSERT ... RETURNING` statement.
    ///
    /// ```swift
    /// // INSERT INTO "player" ("name") VALUES (?) RETURNING "score"
    /// let score = try partialPlayer.insertAndFetch(db) { statement in
    ///     try Int.fetchOne(statement)
    /// } select: {
    ///     [$0.score]
    /// }
    /// ```
    public mutating func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        fetch: (Statement) throws -> T, select: (DatabaseComponents) throws -> [any SQLSelectable]) throws -> T
    {
        try insertAndFetch(db, onConflict: conflictResolution, selection: select(Self.databaseComponents), fetch: fetch)
    }
}

extension PersistableRecord {
    /// Inserts the record and returns the columns selected from the record's columns, read by
    /// `fetch` from the `INSERT ... RETURNING` statement.
    public func insertAndFetch<T>(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        fetch: (Statement) throws -> T, select: (DatabaseComponents) throws -> [any SQLSelectable]) throws -> T
    {
        try insertAndFetch(db, onConflict: conflictResolution, selection: select(Self.databaseComponents), fetch: fetch)
    }
}
