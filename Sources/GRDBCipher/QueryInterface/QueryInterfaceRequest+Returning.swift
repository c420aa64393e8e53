// Batch deletes and updates that return the deleted or updated rows, with a RETURNING clause.
//
//   DELETE FROM "player" WHERE "score" < 10 RETURNING *
//   UPDATE "player" SET "score" = "score" + 10 RETURNING "score"
//
// The changes happen as the returned statement is stepped: a statement that is never
// iterated changes nothing. SQLite's caveats apply (https://www.sqlite.org/lang_returning.html):
// the rows come back in no defined order, whatever the request's ORDER BY.

extension QueryInterfaceRequest {
    /// Returns a `DELETE ... RETURNING` statement for the rows of the request, that returns
    /// the selected columns of each deleted row when it is iterated.
    ///
    /// ```swift
    /// // DELETE FROM "player" WHERE "score" < 10 RETURNING "name"
    /// let statement = try Player.filter(Column("score") < 10)
    ///     .deleteAndFetchStatement(db, selection: [Column("name")])
    /// let deletedNames = try String.fetchAll(statement)
    /// ```
    ///
    /// - throws: A `DatabaseError` of code `SQLITE_MISUSE` when the selection is empty.
    public func deleteAndFetchStatement(_ db: Database, selection: [any SQLSelectable]) throws -> Statement {
        let returning = try Self.returningSelection(selection)
        var context = SQLGenerationContext(db)
        let sql = try query.deleteSQL(&context, returning: returning)
        return try returningStatement(db, sql: sql, arguments: context.arguments)
    }

    /// Returns an `UPDATE ... RETURNING` statement for the rows of the request, that returns
    /// the selected columns of each updated row when it is iterated.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score" = "score" + 10 RETURNING "score"
    /// let statement = try Player.all().updateAndFetchStatement(
    ///     db, [Column("score") += 10], selection: [Column("score")])
    /// let newScores = try Int.fetchAll(statement)
    /// ```
    ///
    /// - throws: A `DatabaseError` of code `SQLITE_MISUSE` when the assignments or the
    ///   selection are empty.
    public func updateAndFetchStatement(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment], selection: [any SQLSelectable]) throws -> Statement
    {
        let returning = try Self.returningSelection(selection)
        if assignments.isEmpty {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "an update that returns rows needs at least one assignment")
        }
        var context = SQLGenerationContext(db)
        let sql = try query.updateSQL(
            &context, conflictResolution: conflictResolution ?? defaultUpdateConflictResolution,
            assignments: assignments, returning: returning)
        return try returningStatement(db, sql: sql, arguments: context.arguments)
    }

    private static func returningSelection(_ selection: [any SQLSelectable]) throws -> [SQLSelection] {
        if selection.isEmpty {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a RETURNING clause needs at least one column")
        }
        return selection.map(\.sqlSelection)
    }

    private func returningStatement(_ db: Database, sql: String, arguments: StatementArguments) throws -> Statement {
        // Not from the cache: the caller holds and iterates the statement.
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        return statement
    }
}

extension QueryInterfaceRequest where RowDecoder: TableRecord {
    /// Returns a `DELETE ... RETURNING` statement for the rows of the request, with columns
    /// selected from the record's columns.
    ///
    /// ```swift
    /// // DELETE FROM "player" RETURNING "name"
    /// let statement = try Player.all().deleteAndFetchStatement(db) { [$0.name] }
    /// let deletedNames = try String.fetchSet(statement)
    /// ```
    public func deleteAndFetchStatement(_ db: Database, select: (DatabaseComponents) throws -> [any SQLSelectable]) throws -> Statement {
        try deleteAndFetchStatement(db, selection: select(RowDecoder.databaseComponents))
    }

    /// Deletes the rows of the request, and returns the ids of the deleted rows.
    ///
    /// ```swift
    /// // DELETE FROM "player" WHERE "score" < 10 RETURNING "id"
    /// let deletedIDs = try Player.filter { $0.score < 10 }.deleteAndFetchIds(db)
    /// ```
    public func deleteAndFetchIds(_ db: Database) throws -> Set<RowDecoder.ID>
    where RowDecoder: Identifiable, RowDecoder.ID: DatabaseValueConvertible & StatementColumnConvertible
    {
        let columns = try db.primaryKey(RowDecoder.databaseTableName).columns
        let statement = try deleteAndFetchStatement(db, selection: columns.map { Column($0) })
        return try RowDecoder.ID.fetchSet(statement)
    }

    /// Returns an `UPDATE ... RETURNING` statement, with assignments and returned columns
    /// built from the record's columns.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score" = "score" + 10 RETURNING "score"
    /// let statement = try Player.all().updateAndFetchStatement(db) {
    ///     [$0.score += 10]
    /// } select: {
    ///     [$0.score]
    /// }
    /// let newScores = try Int.fetchAll(statement)
    /// ```
    public func updateAndFetchStatement(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment],
        select: (DatabaseComponents) -> [any SQLSelectable]) throws -> Statement
    {
        let components = RowDecoder.databaseComponents
        return try updateAndFetchStatement(
            db, onConflict: conflictResolution, assignments(components), selection: select(components))
    }
}

extension QueryInterfaceRequest where RowDecoder: FetchableRecord & TableRecord {
    /// Deletes the rows of the request, and returns a cursor over the deleted records. The rows
    /// are deleted as the cursor is iterated.
    public func deleteAndFetchCursor(_ db: Database) throws -> RecordCursor<RowDecoder> {
        try RowDecoder.fetchCursor(deleteAndFetchStatement(db, selection: RowDecoder.databaseSelection))
    }

    /// Deletes the rows of the request, and returns the deleted records.
    ///
    /// ```swift
    /// // DELETE FROM "player" WHERE "score" < 10 RETURNING *
    /// let deletedPlayers = try Player.filter { $0.score < 10 }.deleteAndFetchAll(db)
    /// ```
    public func deleteAndFetchAll(_ db: Database) throws -> [RowDecoder] {
        try RowDecoder.fetchAll(deleteAndFetchStatement(db, selection: RowDecoder.databaseSelection))
    }

    /// Updates the rows of the request, and returns a cursor over the updated records. The
    /// rows are updated as the cursor is iterated.
    public func updateAndFetchCursor(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment]) throws -> RecordCursor<RowDecoder>
    {
        try RowDecoder.fetchCursor(updateAndFetchStatement(
            db, onConflict: conflictResolution, assignments, selection: RowDecoder.databaseSelection))
    }

    /// Updates the rows of the request with assignments built from the record's columns, and
    /// returns a cursor over the updated records.
    public func updateAndFetchCursor(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]) throws -> RecordCursor<RowDecoder>
    {
        try updateAndFetchCursor(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }

    /// Updates the rows of the request, and returns the updated records.
    ///
    /// ```swift
    /// // UPDATE "player" SET "score" = "score" + 10 RETURNING *
    /// let players = try Player.all().updateAndFetchAll(db, [Column("score") += 10])
    /// ```
    public func updateAndFetchAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment]) throws -> [RowDecoder]
    {
        try Array(updateAndFetchCursor(db, onConflict: conflictResolution, assignments))
    }

    /// Updates the rows of the request with assignments built from the record's columns, and
    /// returns the updated records.
    ///
    /// ```swift
    /// let players = try Player.all().updateAndFetchAll(db) { [$0.score += 10] }
    /// ```
    public func updateAndFetchAll(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]) throws -> [RowDecoder]
    {
        try updateAndFetchAll(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }
}

extension QueryInterfaceRequest where RowDecoder: FetchableRecord & TableRecord & Hashable {
    /// Deletes the rows of the request, and returns the set of deleted records.
    public func deleteAndFetchSet(_ db: Database) throws -> Set<RowDecoder> {
        try RowDecoder.fetchSet(deleteAndFetchStatement(db, selection: RowDecoder.databaseSelection))
    }

    /// Updates the rows of the request, and returns the set of updated records.
    public func updateAndFetchSet(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        _ assignments: [ColumnAssignment]) throws -> Set<RowDecoder>
    {
        try Set(updateAndFetchCursor(db, onConflict: conflictResolution, assignments))
    }

    /// Updates the rows of the request with assignments built from the record's columns, and
    /// returns the set of updated records.
    public func updateAndFetchSet(
        _ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil,
        assignments: (DatabaseComponents) throws -> [ColumnAssignment]) throws -> Set<RowDecoder>
    {
        try updateAndFetchSet(db, onConflict: conflictResolution, assignments(RowDecoder.databaseComponents))
    }
}
