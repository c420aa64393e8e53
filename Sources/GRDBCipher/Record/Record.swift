/// A base class for records that are fetched and saved, and that track their changes.
///
/// ```swift
/// class Player: Record {
///     var id: Int64?
///     var name: String
///
///     override class var databaseTableName: String { "player" }
///
///     init(id: Int64?, name: String) {
///         self.id = id
///         self.name = name
///         super.init()
///     }
///
///     required init(row: Row) throws {
///         id = row["id"]
///         name = row["name"]
///         try super.init(row: row)
///     }
///
///     override func encode(to container: inout PersistenceContainer) throws {
///         container["id"] = id
///         container["name"] = name
///     }
///
///     override func didInsert(_ inserted: InsertionSuccess) {
///         super.didInsert(inserted)
///         id = inserted.rowID
///     }
/// }
///
/// let player = try Player.find(db, key: 1)
/// player.name = "Barbara"
/// try player.updateChanges(db) // UPDATE "player" SET "name"=? WHERE "id"=?
/// ```
///
/// A fetched or saved record remembers its database values; ``hasDatabaseChanges`` and
/// ``updateChanges(_:)`` compare against them. Subclasses that override
/// `didSave`, `didInsert`, `didUpdate` or `didDelete` call `super`.
open class Record: FetchableRecord, TableRecord, PersistableRecord {
    /// The values last fetched or saved, or nil for a record that is not known to be saved.
    private var referenceRow: Row?

    /// Creates a record.
    public init() {}

    /// Creates a record from a row. A row fetched from the database is remembered for change
    /// tracking; a record made from another row (a literal) has all its columns changed.
    public required init(row: Row) throws {
        referenceRow = row.comesFromDatabase ? row.copy() : nil
    }

    /// The table name; subclasses override it.
    open class var databaseTableName: String {
        fatalError("subclass must override: \(self).databaseTableName")
    }

    /// The selected columns (default: all).
    open class var databaseSelection: [any SQLSelectable] { [AllColumns()] }

    /// The conflict policy of inserts and updates (default: abort).
    open class var persistenceConflictPolicy: PersistenceConflictPolicy { PersistenceConflictPolicy() }

    /// Encodes the record; subclasses override it.
    open func encode(to container: inout PersistenceContainer) throws {}

    // MARK: Change tracking

    /// Whether the record has values that differ from the database (always true for a record
    /// that was neither fetched nor saved).
    public var hasDatabaseChanges: Bool {
        (try? !changedColumns().isEmpty) ?? true
    }

    /// The changed columns, with their database values: nil when there is none (a record
    /// neither fetched nor saved, or a column the fetched row did not have).
    public var databaseChanges: [String: DatabaseValue?] {
        get throws {
            var changes: [String: DatabaseValue?] = [:]
            for column in try changedColumns() {
                let old: DatabaseValue? = referenceRow.flatMap { row in
                    row.index(forColumn: column).map { row.databaseValue(at: $0) }
                }
                // updateValue keeps a nil value (a subscript assignment would remove the key).
                changes.updateValue(old, forKey: column)
            }
            return changes
        }
    }

    private func changedColumns() throws -> [String] {
        let container = try PersistenceContainer(self)
        guard let referenceRow else { return container.columns }
        return zip(container.columns, container.databaseValues).compactMap { column, value in
            guard let index = referenceRow.index(forColumn: column) else { return column }
            return referenceRow.databaseValue(at: index) == value ? nil : column
        }
    }

    /// Updates the columns that changed since the record was fetched or saved, if any;
    /// returns whether it did. Without changes, nothing is executed.
    ///
    /// ```swift
    /// let player = try Player.fetchOne(db, key: 1)!
    /// player.score = 1000
    /// try player.updateChanges(db) // UPDATE "player" SET "score"=? WHERE "id"=?
    /// try player.updateChanges(db) // false: nothing changed since
    /// ```
    @discardableResult
    public final func updateChanges(_ db: Database) throws -> Bool {
        let columns = try changedColumns()
        if columns.isEmpty { return false }
        // Opening the existential binds the persistence methods to the subclass, whose
        // table name and callbacks they use (`self` is statically a `Record` here).
        func update(_ record: some MutablePersistableRecord) throws {
            try record.update(db, columns: columns)
        }
        let existential: any MutablePersistableRecord = self
        try update(existential)
        return true
    }

    /// Returns a copy of the record, with the same change tracking.
    open func copy() throws -> Self {
        let container = try PersistenceContainer(self)
        let copy = try Self(row: Row(columns: container.columns, values: container.databaseValues))
        copy.referenceRow = referenceRow
        return copy
    }

    // MARK: Callbacks

    open func willSave(_ db: Database) throws {}
    open func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws { _ = try save() }
    open func didSave(_ saved: PersistenceSuccess) {
        let container = saved.persistenceContainer
        referenceRow = Row(columns: container.columns, values: container.databaseValues)
    }

    open func willInsert(_ db: Database) throws {}
    open func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws { _ = try insert() }
    open func didInsert(_ inserted: InsertionSuccess) {}

    open func willUpdate(_ db: Database, columns: Set<String>) throws {}
    open func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws { _ = try update() }
    open func didUpdate(_ updated: PersistenceSuccess) {}

    open func willDelete(_ db: Database) throws {}
    open func aroundDelete(_ db: Database, delete: () throws -> Bool) throws { _ = try delete() }
    open func didDelete(deleted: Bool) {
        referenceRow = nil
    }
}
