/// A type that is told about the changes and transactions of a database connection.
///
/// ```swift
/// final class PlayerChangeCounter: TransactionObserver {
///     var pendingChanges = 0
///     var committedChanges = 0
///
///     func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
///         eventKind.tableName == "player"
///     }
///     func databaseDidChange(with event: DatabaseEvent) {
///         pendingChanges += 1
///     }
///     func databaseDidCommit(_ db: Database) {
///         committedChanges += pendingChanges
///         pendingChanges = 0
///     }
///     func databaseDidRollback(_ db: Database) {
///         pendingChanges = 0
///     }
/// }
///
/// let counter = PlayerChangeCounter()
/// dbQueue.add(transactionObserver: counter)
/// ```
///
/// Every callback runs on the writer's queue, serialized with the database updates.
/// `databaseDidChange` and `databaseWillCommit` must not use the connection;
/// `databaseDidCommit` and `databaseDidRollback` may.
///
/// Changes made inside a savepoint are told when the outermost savepoint is released, and never
/// when it is rolled back. Changes made by triggers and foreign key actions are told; schema
/// changes, changes of `WITHOUT ROWID` tables, and changes made by other connections are not
/// (see ``Database/notifyChanges(in:)``).
public protocol TransactionObserver: AnyObject {
    /// Whether the observer wants the changes of this kind. Asked before each statement that
    /// may change the database runs; when it answers false for every kind of change of a
    /// statement, the observer is not told about the statement's changes (it is still told
    /// about transactions).
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool

    /// Called by ``Database/notifyChanges(in:)`` when the notified region touches what the
    /// observer observes. The default does nothing.
    func databaseDidChange()

    /// Called for each inserted, updated or deleted row the observer observes.
    ///
    /// The event is valid during the call only: store `event.copy()` to keep it.
    func databaseDidChange(with event: DatabaseEvent)

    /// Called before a transaction commits. Throwing rolls the transaction back, and the commit
    /// throws this error. The default does nothing.
    func databaseWillCommit() throws

    /// Called after a transaction committed.
    func databaseDidCommit(_ db: Database)

    /// Called after a transaction was rolled back.
    func databaseDidRollback(_ db: Database)
}

extension TransactionObserver {
    public func databaseDidChange() {}

    public func databaseWillCommit() throws {}

    /// Stops the calls to ``databaseDidChange(with:)`` and ``databaseDidChange()`` until the
    /// current transaction ends. Call it from a callback of the observer, when further changes
    /// cannot tell it more:
    ///
    /// ```swift
    /// func databaseDidChange(with event: DatabaseEvent) {
    ///     playerTableWasModified = true
    ///     stopObservingDatabaseChangesUntilNextTransaction()
    /// }
    /// ```
    public func stopObservingDatabaseChangesUntilNextTransaction() {
        ConnectionHooks.currentlyNotifying?.stopObservingChanges(of: self)
    }
}

extension Database {
    /// How long a transaction observer is told about changes and transactions.
    ///
    /// ```swift
    /// db.add(transactionObserver: observer, extent: .nextTransaction)
    /// ```
    public enum TransactionObservationExtent: Sendable {
        /// Until the observer is deallocated: the connection keeps a weak reference to it (the
        /// default).
        case observerLifetime
        /// Until the current or next transaction ends: the connection retains the observer
        /// until its `databaseDidCommit` or `databaseDidRollback` is called.
        case nextTransaction
        /// Until the connection is closed: the connection retains the observer.
        case databaseLifetime
    }

    /// Starts telling an observer about the changes and transactions of this connection.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     db.add(transactionObserver: observer)
    /// }
    /// ```
    public func add(transactionObserver: some TransactionObserver, extent: TransactionObservationExtent = .observerLifetime) {
        preconditionValidAccess()
        hooks.add(transactionObserver, extent: extent)
    }

    /// Stops telling an observer about changes and transactions.
    public func remove(transactionObserver: some TransactionObserver) {
        preconditionValidAccess()
        hooks.remove(transactionObserver)
    }

    /// Runs `onCommit` after the current or next transaction commits, or `onRollback` after it
    /// is rolled back.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     try Player(name: "Arthur").insert(db)
    ///     db.afterNextTransaction { _ in
    ///         print("Arthur is saved")
    ///     }
    /// }
    /// ```
    public func afterNextTransaction(
        onCommit: @escaping @Sendable (Database) -> Void,
        onRollback: @escaping @Sendable (Database) -> Void = { _ in })
    {
        add(transactionObserver: TransactionCompletionHandler(onCommit: onCommit, onRollback: onRollback), extent: .nextTransaction)
    }

    /// Tells the transaction observers that the database changed in `region`: each observer
    /// that observes a change of the region gets ``TransactionObserver/databaseDidChange()``.
    /// Use it for changes SQLite does not report: schema changes, `WITHOUT ROWID` tables, other
    /// processes.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     try db.notifyChanges(in: Table("player"))
    /// }
    /// ```
    ///
    /// - throws: A `DatabaseError` of code `SQLITE_MISUSE` outside of a write transaction.
    public func notifyChanges(in region: some DatabaseRegionConvertible) throws {
        preconditionValidAccess()
        // As GRDB (TXO-5): in a read-only access, nothing can change, and nobody is told.
        if isReadOnly { return }
        guard isInsideTransaction else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "notifyChanges(in:) must be called from a write transaction")
        }
        try hooks.notifyChanges(in: region.databaseRegion(self))
    }

    /// Adds a region to the region that the current observation tracks, if any: for fetches
    /// the library cannot see through (a virtual table, a statement compiled elsewhere).
    ///
    /// ```swift
    /// try db.registerAccess(to: Table("player"))
    /// ```
    public func registerAccess(to region: @autoclosure () -> some DatabaseRegionConvertible) throws {
        guard trackedRegion != nil else { return }
        try trackedRegion!.formUnion(region().databaseRegion(self))
    }
}

/// The observer behind ``Database/afterNextTransaction(onCommit:onRollback:)``.
private final class TransactionCompletionHandler: TransactionObserver {
    let onCommit: @Sendable (Database) -> Void
    let onRollback: @Sendable (Database) -> Void

    init(onCommit: @escaping @Sendable (Database) -> Void, onRollback: @escaping @Sendable (Database) -> Void) {
        self.onCommit = onCommit
        self.onRollback = onRollback
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { onCommit(db) }
    func databaseDidRollback(_ db: Database) { onRollback(db) }
}
