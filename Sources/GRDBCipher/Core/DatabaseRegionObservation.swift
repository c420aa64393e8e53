import Foundation

/// Something that can be cancelled: an observation, for example.
public protocol DatabaseCancellable: Sendable {
    /// Cancels; calling it again does nothing.
    func cancel()
}

/// A cancellable that cancels when it is deallocated.
///
/// ```swift
/// let cancellable = observation.start(in: dbQueue) { error in
///     // handle error
/// } onChange: { db in
///     print("Players were changed")
/// }
/// // Later: stop.
/// cancellable.cancel()
/// ```
public final class AnyDatabaseCancellable: DatabaseCancellable {
    private let cancelAction: LockedValue<(@Sendable () -> Void)?>

    /// A cancellable that runs `cancel` the first time it is cancelled or deallocated.
    public init(cancel: @escaping @Sendable () -> Void) {
        cancelAction = LockedValue(cancel)
    }

    /// A cancellable that cancels `base`.
    public convenience init(_ base: some DatabaseCancellable) {
        self.init(cancel: { base.cancel() })
    }

    deinit {
        cancel()
    }

    public func cancel() {
        let action = cancelAction.update { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }
}

// MARK: - DatabaseWriter

extension DatabaseWriter {
    /// Starts telling an observer about the changes and transactions of the writer
    /// connection (see ``Database/add(transactionObserver:extent:)``).
    ///
    /// ```swift
    /// let observer = PlayerChangeCounter()
    /// dbQueue.add(transactionObserver: observer)
    /// ```
    public func add(transactionObserver: some TransactionObserver, extent: Database.TransactionObservationExtent = .observerLifetime) {
        let observer = UncheckedSendable(transactionObserver)
        unsafeReentrantWrite { db in
            db.add(transactionObserver: observer.value, extent: extent)
        }
    }

    /// Stops telling an observer about changes and transactions.
    public func remove(transactionObserver: some TransactionObserver) {
        let observer = UncheckedSendable(transactionObserver)
        unsafeReentrantWrite { db in
            db.remove(transactionObserver: observer.value)
        }
    }
}

// MARK: - DatabaseRegionObservation

/// Tells which transactions change a database region, right after they commit.
///
/// ```swift
/// let observation = DatabaseRegionObservation(tracking: Player.all())
/// let cancellable = observation.start(in: dbQueue) { error in
///     // handle error
/// } onChange: { db in
///     print("Players were changed")
/// }
/// ```
///
/// `onChange` runs on the writer's queue, after the commit and before any other write: it may
/// read the database as the transaction left it.
public struct DatabaseRegionObservation: Sendable {
    let regions: [any DatabaseRegionConvertible]

    /// Observes the union of the regions.
    public init(tracking regions: any DatabaseRegionConvertible...) {
        self.regions = regions
    }

    /// Observes the union of the regions.
    public init(tracking regions: [any DatabaseRegionConvertible]) {
        self.regions = regions
    }

    /// Starts the observation; it lasts until the returned cancellable is cancelled or
    /// deallocated. An error computing the region goes to `onError`, and the observation then
    /// never calls `onChange`.
    @preconcurrency
    public func start(
        in writer: any DatabaseWriter,
        onError: @escaping @Sendable (Error) -> Void,
        onChange: @escaping @Sendable (Database) -> Void) -> AnyDatabaseCancellable
    {
        let observer = RegionObserver(onChange: onChange)
        let regions = regions
        let started: Bool = writer.unsafeReentrantWrite { db in
            do {
                var region = DatabaseRegion()
                for convertible in regions {
                    region.formUnion(try convertible.databaseRegion(db))
                }
                observer.region = region
                db.add(transactionObserver: observer, extent: .databaseLifetime)
                return true
            } catch {
                onError(error)
                return false
            }
        }
        guard started else { return AnyDatabaseCancellable(cancel: {}) }
        let box = UncheckedSendable(observer)
        return AnyDatabaseCancellable { [weak writer] in
            box.value.isCancelled.write(true)
            writer?.asyncWriteWithoutTransaction { db in
                db.remove(transactionObserver: box.value)
            }
        }
    }
}

/// The observer behind a ``DatabaseRegionObservation``.
private final class RegionObserver: TransactionObserver {
    var region = DatabaseRegion()
    let onChange: @Sendable (Database) -> Void
    let isCancelled = LockedValue(false)
    private var isModified = false

    init(onChange: @escaping @Sendable (Database) -> Void) {
        self.onChange = onChange
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        region.isModified(byEventsOfKind: eventKind)
    }

    func databaseDidChange() {
        isModified = true
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if region.isModified(by: event) {
            isModified = true
            stopObservingDatabaseChangesUntilNextTransaction()
        }
    }

    func databaseDidCommit(_ db: Database) {
        guard isModified else { return }
        isModified = false
        if !isCancelled.read() { onChange(db) }
    }

    func databaseDidRollback(_ db: Database) {
        isModified = false
    }
}
