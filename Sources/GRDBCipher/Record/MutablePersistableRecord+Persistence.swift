import Foundation

// The persistence methods of records: the SQL they run, and the callbacks around it.
//
// Generated SQL (GRDB's text):
//   INSERT INTO "player" ("id", "name") VALUES (?,?)          INSERT OR REPLACE INTO ... with a policy
//   UPDATE "player" SET "name"=? WHERE "id"=?                  UPDATE OR REPLACE "player" ...
//   DELETE FROM "player" WHERE "id"=?
//   INSERT INTO "player" ("id", "name") VALUES (?,?) ON CONFLICT DO UPDATE SET "name" = "excluded"."name" RETURNING "rowid"
//   ... RETURNING * (the *AndFetch methods; upsertAndFetch: RETURNING *, "rowid")

// MARK: - SQL

enum PersistenceSQL {
    static func insert(table: String, columns: [String], conflict: Database.ConflictResolution) -> String {
        let verb = conflict == .abort ? "INSERT" : "INSERT OR \(conflict.rawValue)"
        if columns.isEmpty {
            return "\(verb) INTO \(table.quotedDatabaseIdentifier) DEFAULT VALUES"
        }
        let names = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let marks = repeatElement("?", count: columns.count).joined(separator: ",")
        return "\(verb) INTO \(table.quotedDatabaseIdentifier) (\(names)) VALUES (\(marks))"
    }

    static func update(table: String, setColumns: [String], keyColumns: [String], conflict: Database.ConflictResolution) -> String {
        let verb = conflict == .abort ? "UPDATE" : "UPDATE OR \(conflict.rawValue)"
        let assignments = setColumns.map { "\($0.quotedDatabaseIdentifier)=?" }.joined(separator: ", ")
        let condition = keyColumns.map { "\($0.quotedDatabaseIdentifier)=?" }.joined(separator: " AND ")
        return "\(verb) \(table.quotedDatabaseIdentifier) SET \(assignments) WHERE \(condition)"
    }

    /// The columns as the table spells them (`NAME` → `name`), as an UPDATE names them;
    /// unknown columns as given (SQLite reports them).
    static func tableSpelling(_ db: Database, table: String, columns: [String]) throws -> [String] {
        let tableColumns = try db.columns(in: table).map(\.name)
        return columns.map { column in
            tableColumns.first { $0.equalsIgnoringASCIICase(column) } ?? column
        }
    }

    /// `SELECT EXISTS (SELECT 1 FROM "player" WHERE "id"=?)`
    static func exists(table: String, keyColumns: [String]) -> String {
        let condition = keyColumns.map { "\($0.quotedDatabaseIdentifier)=?" }.joined(separator: " AND ")
        return "SELECT EXISTS (SELECT 1 FROM \(table.quotedDatabaseIdentifier) WHERE \(condition))"
    }

    static func delete(table: String, keyColumns: [String]) -> String {
        let condition = keyColumns.map { "\($0.quotedDatabaseIdentifier)=?" }.joined(separator: " AND ")
        return "DELETE FROM \(table.quotedDatabaseIdentifier) WHERE \(condition)"
    }

    /// `INSERT … ON CONFLICT ["target"] DO UPDATE SET …`: every column that is neither in the
    /// primary key nor in the conflict target is overwritten with the inserted value, unless an
    /// assignment says otherwise (`Column("x").noOverwrite` keeps the stored value). The
    /// assignments' arguments are appended to `context` in SQL order.
    static func upsert(
        _ context: inout SQLGenerationContext, table: String, columns: [String], keyColumns: [String],
        conflictTarget: [String] = [], overwritesColumns: Bool = true, assignments: [ColumnAssignment] = []) throws -> String
    {
        // As GRDB (REC-7): the assignments of the caller first, then the default ones of the
        // other columns; a `noOverwrite` column is left out (no `UPDATE OF` trigger fires for
        // it). With nothing left, the conflict column is assigned to itself, so that
        // `RETURNING` still returns the row.
        let assigned = Set(assignments.map { $0.columnName.lowercased() })
        let kept = Set((keyColumns + conflictTarget).map { $0.lowercased() })
        var sets: [String] = []
        for assignment in assignments where assignment.value != nil {
            sets.append(try assignment.sql(&context))
        }
        for column in columns where overwritesColumns && !kept.contains(column.lowercased()) && !assigned.contains(column.lowercased()) {
            sets.append("\(column.quotedDatabaseIdentifier) = \"excluded\".\(column.quotedDatabaseIdentifier)")
        }
        if sets.isEmpty, let key = conflictTarget.first ?? keyColumns.first {
            sets.append("\(key.quotedDatabaseIdentifier) = \(key.quotedDatabaseIdentifier)")
        }
        var sql = insert(table: table, columns: columns, conflict: .abort) + " ON CONFLICT"
        if !conflictTarget.isEmpty {
            // (GRDB's spelling: `ON CONFLICT("email")`, without a space.)
            sql += "(" + conflictTarget.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
        }
        return sql + " DO UPDATE SET " + sets.joined(separator: ", ")
    }
}

// MARK: - Core operations (no callbacks)

extension MutablePersistableRecord {
    /// The conflict resolution of an insert.
    private static func insertConflict(_ conflict: Database.ConflictResolution?) -> Database.ConflictResolution {
        conflict ?? persistenceConflictPolicy.conflictResolutionForInsert
    }

    private static func updateConflict(_ conflict: Database.ConflictResolution?) -> Database.ConflictResolution {
        conflict ?? persistenceConflictPolicy.conflictResolutionForUpdate
    }

    /// The primary key values of the container, by primary key column.
    static func primaryKeyValues(_ db: Database, _ container: PersistenceContainer) throws -> (columns: [String], values: [DatabaseValue]) {
        let primaryKey = try db.primaryKey(databaseTableName)
        return (primaryKey.columns, primaryKey.columns.map { container.databaseValue(of: $0) })
    }

    static func notFound(_ columns: [String], _ values: [DatabaseValue]) -> RecordError {
        RecordError.recordNotFound(databaseTableName: databaseTableName, key: Dictionary(zip(columns, values), uniquingKeysWith: { a, _ in a }))
    }

    /// INSERT; returns the insertion result.
    func performInsert(_ db: Database, onConflict conflict: Database.ConflictResolution?) throws -> InsertionSuccess {
        // A struct's type is known statically, without asking the runtime (see
        // `PersistenceContainer.init(_:_:)`); a class record's may be a subclass.
        let isClass = Self.self is AnyClass
        var container = try PersistenceContainer(self, db, recordIsClass: isClass)
        let recordType: Self.Type = isClass ? type(of: self) : Self.self
        let table = recordType.databaseTableName
        let conflict = recordType.insertConflict(conflict)
        if let entry = db.cachedPersistenceStatement(.insert(conflict), table: table, container: container) {
            return try entry.runInsertion(&container, db)
        }
        let entry = try container.withColumns { columns in
            try db.persistenceStatement(.insert(conflict), table: table, columns: columns) {
                let rowIDColumn = try db.primaryKey(table).rowIDColumn
                return (PersistenceSQL.insert(table: table, columns: columns, conflict: conflict), rowIDColumn, false)
            }
        }
        return try entry.runInsertion(&container, db)
    }
}

/// The insertion result: the container gets the rowid in its rowid column, which is at
/// `rowIDIndex` if the container has it.
@inline(__always)
func makeInsertionSuccess(
    rowID: Int64, rowIDColumn: String?, rowIDIndex: Int?, columnsWithRowID: [String]? = nil,
    container: inout PersistenceContainer) -> InsertionSuccess
{
    if let rowIDIndex {
        container.replaceValue(at: rowIDIndex, with: DatabaseValue(storage: .int64(rowID)))
    } else if let rowIDColumn, columnsWithRowID != nil || rowIDColumn != "rowid" {
        // (A cached statement's `columnsWithRowID` exists only for a rowid column to add: it
        // spares the comparison of the column's name with "rowid" at each insertion.)
        container.appendNewColumn(rowIDColumn, DatabaseValue(storage: .int64(rowID)), columnsAfter: columnsWithRowID)
    }
    return InsertionSuccess(rowID: rowID, rowIDColumn: rowIDColumn, persistenceContainer: container)
}

extension MutablePersistableRecord {
    /// UPSERT; returns the insertion result (the rowid of the inserted or updated row).
    func performUpsert(_ db: Database) throws -> InsertionSuccess {
        var container = try PersistenceContainer(self, db)
        let table = type(of: self).databaseTableName
        let entry = try db.persistenceStatement(.upsert, table: table, columns: container.columns) {
            let primaryKey = try db.primaryKey(table)
            let hasRowID = try db.tableHasRowID(table)
            var context = SQLGenerationContext(db)
            let sql = try PersistenceSQL.upsert(&context, table: table, columns: container.columns, keyColumns: primaryKey.columns)
            // GRDB's clause: the rowid of the inserted or updated row (an update does not
            // change the last inserted rowid).
            return (hasRowID ? sql + " RETURNING \"rowid\"" : sql, primaryKey.rowIDColumn, hasRowID)
        }
        try container.withValues { try entry.statement.bindPersistenceValues($0) }
        let rowID = try entry.statement.executePersistence(returnsRowID: entry.returnsRowID, in: db) ?? db.lastInsertedRowID
        return makeInsertionSuccess(
            rowID: rowID, rowIDColumn: entry.rowIDColumn, rowIDIndex: entry.rowIDIndex,
            columnsWithRowID: entry.columnsWithRowID, container: &container)
    }

    /// The columns an update sets: the given ones (all but the primary key by default), in
    /// container order.
    static func updatedColumns(_ container: PersistenceContainer, keyColumns: [String], only columns: Set<String>?) -> [String] {
        let keys = Set(keyColumns.map { $0.lowercased() })
        let wanted = columns.map { Set($0.map { $0.lowercased() }) }
        let updated = container.columns.filter { column in
            let lowercased = column.lowercased()
            return !keys.contains(lowercased) && (wanted?.contains(lowercased) ?? true)
        }
        // Nothing to set: set the key to itself, which still tells whether the row exists.
        return updated.isEmpty ? keyColumns : updated
    }

    /// UPDATE; throws ``RecordError/recordNotFound(databaseTableName:key:)`` when no row has the
    /// record's primary key.
    func performUpdate(_ db: Database, onConflict conflict: Database.ConflictResolution?, columns: Set<String>?) throws -> PersistenceSuccess {
        let container = try PersistenceContainer(self, db)
        let table = type(of: self).databaseTableName
        let (keyColumns, keyValues) = try type(of: self).primaryKeyValues(db, container)
        if keyValues.contains(where: \.isNull) {
            throw type(of: self).notFound(keyColumns, keyValues)
        }
        let setColumns = Self.updatedColumns(container, keyColumns: keyColumns, only: columns)
        let conflict = type(of: self).updateConflict(conflict)
        let entry = try db.persistenceStatement(.update(conflict), table: table, columns: setColumns + ["\u{0}"] + keyColumns) {
            let sql = try PersistenceSQL.update(
                table: table, setColumns: PersistenceSQL.tableSpelling(db, table: table, columns: setColumns),
                keyColumns: keyColumns, conflict: conflict)
            return (sql, try db.primaryKey(table).rowIDColumn, false)
        }
        let values = setColumns.map { container.databaseValue(of: $0) } + keyValues
        try values.withUnsafeBufferPointer { try entry.statement.bindPersistenceValues($0) }
        let changedRowCount = try db.changedRowCount(in: table) {
            _ = try entry.statement.executePersistence(returnsRowID: false, in: db)
        }
        if changedRowCount == 0 {
            throw type(of: self).notFound(keyColumns, keyValues)
        }
        return PersistenceSuccess(persistenceContainer: container)
    }

    /// DELETE; returns whether a row was deleted.
    func performDelete(_ db: Database) throws -> Bool {
        let container = try PersistenceContainer(self, db)
        let (keyColumns, keyValues) = try type(of: self).primaryKeyValues(db, container)
        if keyValues.contains(where: \.isNull) { return false }
        let table = type(of: self).databaseTableName
        let sql = PersistenceSQL.delete(table: table, keyColumns: keyColumns)
        return try db.changedRowCount(in: table) {
            try db.fetchStatement(sql: sql).execute(arguments: StatementArguments(keyValues))
        } > 0
    }

    /// Whether the primary key matches a row.
    func performExists(_ db: Database) throws -> Bool {
        let container = try PersistenceContainer(self, db)
        let (keyColumns, keyValues) = try type(of: self).primaryKeyValues(db, container)
        if keyValues.contains(where: \.isNull) { return false }
        let sql = PersistenceSQL.exists(table: type(of: self).databaseTableName, keyColumns: keyColumns)
        return try Bool.fetchOne(db.fetchStatement(sql: sql), arguments: StatementArguments(keyValues)) ?? false
    }
}

// MARK: - Callbacks

extension MutablePersistableRecord {
    /// willSave, aroundSave around `save`, didSave; returns the record as `save` left it.
    private func withSaveCallbacks(_ db: Database, _ save: (inout Self) throws -> PersistenceSuccess) throws -> Self {
        try willSave(db)
        var record = self
        var saved: PersistenceSuccess?
        try aroundSave(db) {
            let success = try save(&record)
            saved = success
            return success
        }
        // Taken out of the optional, so that it holds the only copy of the container.
        guard let success = saved.take() else {
            throw Self.persistenceCallbackMisuse("aroundSave")
        }
        record.didSave(success)
        db.recycle((consume success).persistenceContainer)
        return record
    }

    /// willSave, aroundSave, willInsert, aroundInsert, `insert`, didInsert, didSave.
    mutating func insertWithCallbacks(_ db: Database, insert: (Self) throws -> InsertionSuccess) throws {
        let type = ObjectIdentifier(Self.self)
        let arounds = db.defaultArounds.arounds(of: type)
        switch arounds {
        case .defaults:
            // Without the default arounds (see `DefaultAroundCallbacks`): the steps of
            // `withSaveCallbacks` and `insertWithoutSaveCallbacks`, in their order, on the
            // same copies of the record.
            try willSave(db)
            var record = self
            try record.willInsert(db)
            let inserted = try insert(record)
            record.didInsert(inserted)
            let success = PersistenceSuccess(inserted)
            record.didSave(success)
            db.recycle((consume success).persistenceContainer)
            self = record
        case .custom, .unknown:
            try db.watchingArounds(of: type, learning: arounds == .unknown) {
                self = try withSaveCallbacks(db) { record in
                    try record.insertWithoutSaveCallbacks(db, insert: insert)
                }
            }
        }
    }

    /// willSave, aroundSave, willUpdate, aroundUpdate, `update`, didUpdate, didSave.
    func updateWithCallbacks(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        _ = try withSaveCallbacks(db) { record in
            try record.updateWithoutSaveCallbacks(db, columns: columns, update: update)
        }
    }

    /// willUpdate, aroundUpdate, `update`, didUpdate.
    private func updateWithoutSaveCallbacks(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws -> PersistenceSuccess {
        try willUpdate(db, columns: columns)
        var updated: PersistenceSuccess?
        try aroundUpdate(db, columns: columns) {
            let success = try update()
            updated = success
            return success
        }
        guard let updated else {
            throw Self.persistenceCallbackMisuse("aroundUpdate")
        }
        didUpdate(updated)
        return updated
    }

    /// The error of an `around…` persistence callback that did not call its action, or did not
    /// rethrow its error, as GRDB: SQLITE_MISUSE, not a crash (the swallowed error only shows
    /// when the database refuses a write).
    static func persistenceCallbackMisuse(_ callback: String) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message: "Incorrect implementation of the `\(Self.self).\(callback)` persistence callback: the action function was not called, or its error was not rethrown.")
    }

    /// The columns an update without a column list sets, for the callbacks.
    func allUpdatedColumns() throws -> Set<String> {
        Set(try PersistenceContainer(self).columns)
    }
}

// MARK: - Public persistence methods

extension MutablePersistableRecord {
    /// Inserts the record (`INSERT INTO "player" (...) VALUES (...)`), then calls
    /// ``didInsert(_:)``.
    ///
    /// ```swift
    /// var player = Player(id: nil, name: "Arthur")
    /// try player.insert(db)
    /// ```
    ///
    /// - parameter db: A connection.
    /// - parameter conflictResolution: overrides ``persistenceConflictPolicy``.
    public mutating func insert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        try insertWithCallbacks(db) { try $0.performInsert(db, onConflict: conflictResolution) }
    }

    /// Returns an inserted copy of the record (the record itself is not changed).
    public func inserted(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self {
        var record = self
        try record.insert(db, onConflict: conflictResolution)
        return record
    }

    /// Inserts the record, or updates the row with the same primary or unique key
    /// (`INSERT ... ON CONFLICT DO UPDATE SET` every column but the primary key). Runs the
    /// insert callbacks.
    ///
    /// ```swift
    /// try player.upsert(db)
    /// ```
    public mutating func upsert(_ db: Database) throws {
        try insertWithCallbacks(db) { try $0.performUpsert(db) }
    }

    /// Updates every column of the row with the record's primary key; throws
    /// ``RecordError/recordNotFound(databaseTableName:key:)`` when there is no such row.
    ///
    /// ```swift
    /// player.score += 10
    /// try player.update(db) // UPDATE "player" SET "name"=?, "score"=? WHERE "id"=?
    /// ```
    public func update(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        try updateWithCallbacks(db, columns: allUpdatedColumns()) {
            try performUpdate(db, onConflict: conflictResolution, columns: nil)
        }
    }

    /// Updates the given columns of the row with the record's primary key.
    ///
    /// ```swift
    /// try player.update(db, columns: ["score"]) // UPDATE "player" SET "score"=? WHERE "id"=?
    /// ```
    public func update(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, columns: some Collection<String>) throws {
        let columns = Set(columns)
        try updateWithCallbacks(db, columns: columns) {
            try performUpdate(db, onConflict: conflictResolution, columns: columns)
        }
    }

    /// Updates the given columns of the row with the record's primary key.
    public func update(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, columns: some Collection<some ColumnExpression>) throws {
        try update(db, onConflict: conflictResolution, columns: columns.map(\.name))
    }

    /// Updates the columns that differ from `record`, if any, and returns whether it did.
    ///
    /// ```swift
    /// if try newPlayer.updateChanges(db, from: oldPlayer) { print("updated") }
    /// ```
    @discardableResult
    public func updateChanges(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, from record: some EncodableRecord) throws -> Bool {
        let changes = try databaseChanges(from: record)
        if changes.isEmpty { return false }
        try update(db, onConflict: conflictResolution, columns: changes.keys)
        return true
    }

    /// Modifies the record with `modify`, then updates the columns that changed, if any;
    /// returns whether it did.
    ///
    /// The record's values are compared before and after `modify` runs, so this works for
    /// classes as well as structs.
    ///
    /// ```swift
    /// try player.updateChanges(db) { $0.score = 1000 } // UPDATE "player" SET "score"=? WHERE "id"=?
    /// ```
    @discardableResult
    public mutating func updateChanges(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, modify: (inout Self) throws -> Void) throws -> Bool {
        let changes = try databaseChanges(modify: modify)
        if changes.isEmpty { return false }
        try update(db, onConflict: conflictResolution, columns: changes.keys)
        return true
    }

    /// Updates the record when its primary key is set and matches a row, inserts it
    /// otherwise.
    ///
    /// ```swift
    /// try player.save(db)
    /// ```
    public mutating func save(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        try saveWithCallbacks(db, onConflict: conflictResolution)
    }

    /// willSave, aroundSave, the update or insert with their callbacks, didSave.
    mutating func saveWithCallbacks(_ db: Database, onConflict conflictResolution: Database.ConflictResolution?) throws {
        try saveWithCallbacks(
            db,
            update: { record in try record.performUpdate(db, onConflict: conflictResolution, columns: nil) },
            insert: { record in try record.performInsert(db, onConflict: conflictResolution) })
    }

    /// willSave, aroundSave, then the update with its callbacks, or, when no row has the
    /// record's key, the insert with its callbacks, then didSave: the save callbacks run once,
    /// whichever statement saves (`save`, `saveAndFetch`).
    mutating func saveWithCallbacks(
        _ db: Database,
        update: @escaping (Self) throws -> PersistenceSuccess,
        insert: @escaping (Self) throws -> InsertionSuccess) throws
    {
        self = try withSaveCallbacks(db) { record in
            let (_, keyValues) = try type(of: record).primaryKeyValues(db, PersistenceContainer(record, db))
            if !keyValues.contains(where: \.isNull) {
                do {
                    let current = record
                    return try current.updateWithoutSaveCallbacks(db, columns: current.allUpdatedColumns()) {
                        try update(current)
                    }
                } catch RecordError.recordNotFound {
                    // No row with this key yet: insert it.
                }
            }
            return try record.insertWithoutSaveCallbacks(db, insert: insert)
        }
    }

    /// willInsert, aroundInsert, `insert`, didInsert.
    private mutating func insertWithoutSaveCallbacks(_ db: Database, insert: (Self) throws -> InsertionSuccess) throws -> PersistenceSuccess {
        try willInsert(db)
        var inserted: InsertionSuccess?
        let current = self
        try current.aroundInsert(db) {
            let success = try insert(current)
            inserted = success
            return success
        }
        guard let inserted else {
            throw Self.persistenceCallbackMisuse("aroundInsert")
        }
        didInsert(inserted)
        return PersistenceSuccess(inserted)
    }

    /// Returns a saved copy of the record (the record itself is not changed).
    public func saved(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws -> Self {
        var record = self
        try record.save(db, onConflict: conflictResolution)
        return record
    }

    /// Deletes the row with the record's primary key; returns whether a row was deleted.
    ///
    /// ```swift
    /// try player.delete(db) // DELETE FROM "player" WHERE "id"=?
    /// ```
    @discardableResult
    public func delete(_ db: Database) throws -> Bool {
        try willDelete(db)
        var deleted: Bool?
        try aroundDelete(db) {
            let result = try performDelete(db)
            deleted = result
            return result
        }
        guard let deleted else {
            throw Self.persistenceCallbackMisuse("aroundDelete")
        }
        didDelete(deleted: deleted)
        return deleted
    }

    /// Returns whether a row has the record's primary key.
    public func exists(_ db: Database) throws -> Bool {
        try performExists(db)
    }
}

// MARK: - PersistableRecord (non-mutating)

extension PersistableRecord {
    /// Inserts the record (see ``MutablePersistableRecord/insert(_:onConflict:)``).
    ///
    /// ```swift
    /// try Country(code: "FR", name: "France").insert(db)
    /// ```
    public func insert(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        try insertWithNonMutatingCallbacks(db) { try performInsert(db, onConflict: conflictResolution) }
    }

    /// Inserts or updates the record (see ``MutablePersistableRecord/upsert(_:)``).
    public func upsert(_ db: Database) throws {
        try insertWithNonMutatingCallbacks(db) { try performUpsert(db) }
    }

    /// willSave, aroundSave, willInsert, aroundInsert, `insert`, didInsert, didSave: the order
    /// of ``MutablePersistableRecord/insertWithCallbacks(_:insert:)``, for a record whose
    /// callbacks cannot change it, so that the record is never copied (docs/Performance.md, W5).
    private func insertWithNonMutatingCallbacks(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        try willSave(db)
        let type = ObjectIdentifier(Self.self)
        let arounds = db.defaultArounds.arounds(of: type)
        switch arounds {
        case .defaults:
            // The default `aroundSave` and `aroundInsert` call their closure once and return:
            // the same callbacks run in the same order without them and their closures
            // (docs/Performance.md, W5).
            try willInsert(db)
            let insertion = try insert()
            didInsert(insertion)
            let success = PersistenceSuccess(consume insertion)
            didSave(success)
            db.recycle((consume success).persistenceContainer)
        case .custom, .unknown:
            try db.watchingArounds(of: type, learning: arounds == .unknown) {
                try insertThroughArounds(db, insert: insert)
            }
        }
    }

    /// The insertion of ``insertWithNonMutatingCallbacks(_:insert:)`` after `willSave`,
    /// through `aroundSave` and `aroundInsert`.
    private func insertThroughArounds(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        var saved: PersistenceSuccess?
        try aroundSave(db) {
            try willInsert(db)
            var inserted: InsertionSuccess?
            try aroundInsert(db) {
                let success = try insert()
                inserted = success
                return success
            }
            guard let insertion = inserted.take() else {
                throw Self.persistenceCallbackMisuse("aroundInsert")
            }
            didInsert(insertion)
            let success = PersistenceSuccess(consume insertion)
            saved = success
            return success
        }
        // Taken out of the optional, so that it holds the only copy of the container.
        guard let success = saved.take() else {
            throw Self.persistenceCallbackMisuse("aroundSave")
        }
        didSave(success)
        db.recycle((consume success).persistenceContainer)
    }

    /// Updates or inserts the record (see ``MutablePersistableRecord/save(_:onConflict:)``).
    public func save(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil) throws {
        var record = self
        try record.saveWithCallbacks(db, onConflict: conflictResolution)
    }
}

extension Database {
    /// Runs `insert`, an insert of a record of `type` through its `aroundSave` and
    /// `aroundInsert`. With `learning`, the type's first insert on the connection: the
    /// default arounds tell that they ran for it (see ``DefaultAroundCallbacks``), and the
    /// connection remembers whether both are the defaults once the insert succeeded.
    func watchingArounds(of type: ObjectIdentifier, learning: Bool, _ insert: () throws -> Void) rethrows {
        guard learning else { return try insert() }
        let watched = defaultArounds.startWatching(type)
        defer { defaultArounds.stopWatching(watched) }
        try insert()
        defaultArounds.learn(type)
    }
}

/// Which record types have the default `aroundSave` and `aroundInsert` (those of
/// `MutablePersistableRecord`'s extension), by connection. An insert through them builds two
/// closures and passes its success values through optionals: about 430 instructions a record
/// (W5m, docs/Performance.md). A record type whose arounds are both the defaults inserts
/// without them, with the same callbacks in the same order (the inserts of
/// `PersistableRecord` and the mutating ones of `MutablePersistableRecord`).
///
/// Nothing tells which implementation a type's witness is, so each type's first insert on the
/// connection is watched: the defaults note that they ran for the watched type. A default runs
/// with `Self` the watched type only when it is that type's own: an implementation of the type
/// shadows it, and cannot call it. (Classes: a subclass shares its superclass's witnesses;
/// `Record`'s arounds are its own methods, so its subclasses are never on the fast path.)
///
/// Used by the connection's accesses only, by calls that span no user code.
struct DefaultAroundCallbacks {
    enum Arounds { case defaults, custom, unknown }

    struct Seen: OptionSet {
        let rawValue: UInt8
        static let aroundSave = Seen(rawValue: 1)
        static let aroundInsert = Seen(rawValue: 2)
    }

    /// A type found with both defaults: most inserts are of the type inserted before.
    private var lastDefaults: ObjectIdentifier?
    private var known: [ObjectIdentifier: Bool] = [:]
    /// The type whose insert is watched, and the defaults that ran for it.
    private var watched: ObjectIdentifier?
    private var seen: Seen = []

    @inline(__always)
    func arounds(of type: ObjectIdentifier) -> Arounds {
        if lastDefaults == type { return .defaults }
        return arounds(ofOther: type)
    }

    private func arounds(ofOther type: ObjectIdentifier) -> Arounds {
        guard let isDefault = known[type] else { return .unknown }
        return isDefault ? .defaults : .custom
    }

    /// Called by the default arounds.
    @inline(__always)
    mutating func noteDefault(_ callback: Seen, of type: ObjectIdentifier) {
        if watched == type { seen.insert(callback) }
    }

    /// Watches the insert of a record of `type`; returns what was watched before (an insert
    /// made by the callbacks of another one), for ``stopWatching(_:)``.
    mutating func startWatching(_ type: ObjectIdentifier) -> (type: ObjectIdentifier?, seen: Seen) {
        let previous = (watched, seen)
        watched = type
        seen = []
        return previous
    }

    mutating func stopWatching(_ previous: (type: ObjectIdentifier?, seen: Seen)) {
        (watched, seen) = previous
    }

    /// Records what the watched insert of `type`, which succeeded, found.
    mutating func learn(_ type: ObjectIdentifier) {
        guard watched == type else { return }
        let isDefault = seen == [.aroundSave, .aroundInsert]
        known[type] = isDefault
        if isDefault { lastDefaults = type }
    }
}
