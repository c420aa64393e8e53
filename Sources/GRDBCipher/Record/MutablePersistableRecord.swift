extension Database {
    /// An SQLite conflict resolution algorithm (`INSERT OR REPLACE`, `ON CONFLICT IGNORE`…).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_conflict.html>
    public enum ConflictResolution: String, Sendable {
        /// Rolls back the transaction (`ON CONFLICT ROLLBACK`).
        case rollback = "ROLLBACK"
        /// Aborts the statement, keeping earlier changes of the transaction (the SQLite default).
        case abort = "ABORT"
        /// Stops the statement, keeping its changes so far (`ON CONFLICT FAIL`).
        case fail = "FAIL"
        /// Skips the row that conflicts (`ON CONFLICT IGNORE`).
        case ignore = "IGNORE"
        /// Deletes the rows that conflict, then inserts (`ON CONFLICT REPLACE`).
        case replace = "REPLACE"
    }
}

/// How a record's inserts and updates handle conflicts (the default aborts, as plain `INSERT`
/// and `UPDATE` do).
///
/// ```swift
/// struct Player: PersistableRecord {
///     // INSERT OR REPLACE INTO "player" ...
///     static let persistenceConflictPolicy = PersistenceConflictPolicy(insert: .replace, update: .replace)
/// }
/// ```
public struct PersistenceConflictPolicy: Sendable {
    /// The conflict resolution of inserts.
    public let conflictResolutionForInsert: Database.ConflictResolution
    /// The conflict resolution of updates.
    public let conflictResolutionForUpdate: Database.ConflictResolution

    /// Creates a policy.
    public init(insert: Database.ConflictResolution = .abort, update: Database.ConflictResolution = .abort) {
        conflictResolutionForInsert = insert
        conflictResolutionForUpdate = update
    }
}

/// The result of a successful insertion.
public struct InsertionSuccess {
    /// The rowid of the inserted row.
    public var rowID: Int64
    /// The column that holds the rowid (an `INTEGER PRIMARY KEY` column, or `"rowid"`), or nil
    /// when the table has another kind of primary key.
    public var rowIDColumn: String?
    /// The inserted values, with the rowid column set.
    public var persistenceContainer: PersistenceContainer
}

/// The result of a successful insertion or update.
///
/// As in GRDB, it holds the saved values only: an update does not learn the rowid of the row
/// it updated (that would cost a query).
public struct PersistenceSuccess {
    /// The saved values.
    public var persistenceContainer: PersistenceContainer

    /// Creates a success from an insertion.
    public init(_ inserted: InsertionSuccess) {
        persistenceContainer = inserted.persistenceContainer
    }

    init(persistenceContainer: PersistenceContainer) {
        self.persistenceContainer = persistenceContainer
    }
}

/// A type that can be saved in the database, and may change on insertion (to learn an
/// auto-incremented id).
///
/// ```swift
/// struct Player: Codable, MutablePersistableRecord {
///     var id: Int64?
///     var name: String
///
///     mutating func didInsert(_ inserted: InsertionSuccess) {
///         id = inserted.rowID
///     }
/// }
///
/// var player = Player(id: nil, name: "Arthur")
/// try player.insert(db) // INSERT INTO "player" ("id", "name") VALUES (?,?)
/// print(player.id!)
/// ```
///
/// Callbacks run in this order. Insert: `willSave`, `aroundSave`, `willInsert`, `aroundInsert`,
/// INSERT, `didInsert`, `didSave`. Update: `willSave`, `aroundSave`, `willUpdate`,
/// `aroundUpdate`, UPDATE, `didUpdate`, `didSave`. Delete: `willDelete`, `aroundDelete`,
/// DELETE, `didDelete`. An upsert runs the insert callbacks.
public protocol MutablePersistableRecord: EncodableRecord, TableRecord {
    /// How inserts and updates handle conflicts.
    static var persistenceConflictPolicy: PersistenceConflictPolicy { get }

    /// Called before the record is inserted.
    mutating func willInsert(_ db: Database) throws
    /// Called around the insertion: call `insert` once, and return its result.
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws
    /// Called after a successful insertion.
    mutating func didInsert(_ inserted: InsertionSuccess)

    /// Called before the record is updated, with the updated columns.
    func willUpdate(_ db: Database, columns: Set<String>) throws
    /// Called around the update: call `update` once, and return its result.
    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws
    /// Called after a successful update.
    func didUpdate(_ updated: PersistenceSuccess)

    /// Called before the record is inserted or updated.
    func willSave(_ db: Database) throws
    /// Called around an insertion or update: call `save` once, and return its result.
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws
    /// Called after a successful insertion or update.
    func didSave(_ saved: PersistenceSuccess)

    /// Called before the record is deleted.
    func willDelete(_ db: Database) throws
    /// Called around the deletion: call `delete` once, and return its result.
    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws
    /// Called after the deletion, with whether a row was deleted.
    func didDelete(deleted: Bool)
}

extension MutablePersistableRecord {
    public static var persistenceConflictPolicy: PersistenceConflictPolicy { PersistenceConflictPolicy() }

    public mutating func willInsert(_ db: Database) throws {}
    public func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        db.defaultArounds.noteDefault(.aroundInsert, of: ObjectIdentifier(Self.self))
        _ = try insert()
    }
    public mutating func didInsert(_ inserted: InsertionSuccess) {}

    public func willUpdate(_ db: Database, columns: Set<String>) throws {}
    public func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws { _ = try update() }
    public func didUpdate(_ updated: PersistenceSuccess) {}

    public func willSave(_ db: Database) throws {}
    public func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        db.defaultArounds.noteDefault(.aroundSave, of: ObjectIdentifier(Self.self))
        _ = try save()
    }
    public func didSave(_ saved: PersistenceSuccess) {}

    public func willDelete(_ db: Database) throws {}
    public func aroundDelete(_ db: Database, delete: () throws -> Bool) throws { _ = try delete() }
    public func didDelete(deleted: Bool) {}
}

/// A type that can be saved in the database, and does not change on insertion (classes, and
/// structs whose ids are not generated by the database).
///
/// ```swift
/// struct Country: Codable, PersistableRecord {
///     var code: String
///     var name: String
/// }
///
/// try Country(code: "FR", name: "France").insert(db)
/// ```
public protocol PersistableRecord: MutablePersistableRecord {
    /// Called before the record is inserted.
    func willInsert(_ db: Database) throws
    /// Called after a successful insertion.
    func didInsert(_ inserted: InsertionSuccess)
}

extension PersistableRecord {
    /// Does nothing by default.
    public func willInsert(_ db: Database) throws {}
    /// Does nothing by default.
    public func didInsert(_ inserted: InsertionSuccess) {}
}

/// Which columns an upsert overwrites when the inserted row conflicts with a stored one.
///
/// ```swift
/// // INSERT INTO "player" ("id", "name", "score") VALUES (?,?,?)
/// // ON CONFLICT DO UPDATE SET "score" = "score" + 1 RETURNING *, "rowid"
/// let player = try player.upsertAndFetch(db, updating: .noColumnUnlessSpecified) { _ in
///     [Column("score") += 1]
/// }
/// ```
public struct UpsertUpdateStrategy: RawRepresentable, Hashable, Sendable {
    /// The number of the strategy.
    public let rawValue: Int

    /// Creates a strategy from its number (`0` is ``allColumns``, `1` is
    /// ``noColumnUnlessSpecified``).
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Every inserted column but the primary key and the conflict target is overwritten with
    /// the inserted value, unless an assignment says otherwise (the default).
    public static let allColumns = UpsertUpdateStrategy(rawValue: 0)

    /// Only the columns of the assignments change.
    public static let noColumnUnlessSpecified = UpsertUpdateStrategy(rawValue: 1)
}
