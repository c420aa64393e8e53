import Dispatch
import Foundation

/// The engine of one started ``ValueObservation``.
///
/// - The initial fetch and the registration of the transaction observer happen in one access
///   of the writer, so that no commit can slip between them.
/// - The transaction observer (on the writer) notes the changes of the tracked region; after a
///   commit that made some, it fetches: on the writer, right after the commit (regions that
///   depend on fetched values are recorded again), or, on a ``DatabasePool`` with a constant
///   region, in a reader connection, one fetch at a time, so that values never go back in
///   time and the writer never waits.
/// - Fetched values go through the reducer on a serial queue (off the database connection),
///   then to the scheduler, in order.
final class ValueObserver<Reducer: ValueReducer>: TransactionObserver, @unchecked Sendable {
    private let trackingMode: ValueObservationTrackingMode
    private let events: ValueObservationEvents
    private let requiresWriteAccess: Bool
    private let externalChangesInterval: TimeInterval?
    private let fetcher: Reducer.Fetcher
    private let scheduler: any ValueObservationScheduler
    private let onError: @Sendable (any Error) -> Void
    private let onChange: @Sendable (Reducer.Value) -> Void

    /// Used on `reduceQueue` only (or in the writer access of an immediate start, before any
    /// other value exists).
    private var reducer: Reducer
    private let reduceQueue = DispatchQueue(label: "GRDBCipher.ValueObservation")

    /// Shared state.
    private struct State {
        var isCancelled = false
        var writer: (any DatabaseWriter)?
        /// The pool whose readers fetch, for a constant region on a pool.
        var readerPool: DatabasePool?
        /// Reader fetches (pool, constant region): one in flight at most.
        var isFetching = false
        var needsFetch = false
        /// The timer of ``ValueObservation/observingExternalChanges(every:)``.
        var pollingTimer: (any DispatchSourceTimer)?
        var isPolling = false
    }
    private let state = LockedValue(State())

    /// Used on the writer only.
    private var region = DatabaseRegion() {
        didSet { lastObservedKind = nil }
    }
    /// The last kind of change the writer asked about, and the answer: statements that make
    /// the same changes over and over ask the same question, answered without looking into
    /// the region again.
    private var lastObservedKind: (kind: DatabaseEventKind, observes: Bool)?
    private var isModified = false
    /// Whether fetches after changes run in the readers of a pool.
    private var fetchesInReaders = false
    /// The writer's last `PRAGMA data_version`, when the observation polls for external changes.
    private var dataVersion: Int?
    /// The observation started inside a transaction: its first value may show changes that a
    /// rollback undoes, and then a fresh value is fetched.
    private var startedInsideTransaction = false

    init(
        observation: ValueObservation<Reducer>,
        scheduler: some ValueObservationScheduler,
        onError: @escaping @Sendable (any Error) -> Void,
        onChange: @escaping @Sendable (Reducer.Value) -> Void)
    {
        trackingMode = observation.trackingMode
        events = observation.events
        requiresWriteAccess = observation.requiresWriteAccess
        externalChangesInterval = observation.externalChangesInterval
        reducer = observation.reducer
        fetcher = observation.reducer._makeFetcher()
        self.scheduler = scheduler
        self.onError = onError
        self.onChange = onChange
    }

    private var isCancelled: Bool { state.read { $0.isCancelled } }

    // MARK: Start

    func start(in reader: any DatabaseReader) {
        events.willStart?()
        let immediate = scheduler.immediateInitialValue()
        // A read-only database does not change: one value, and no observation (as GRDB,
        // which tracks no region there).
        guard let writer = reader as? any DatabaseWriter, !reader.configuration.readonly else {
            startWithoutWriter(reader, immediate: immediate)
            return
        }
        var readerPool: DatabasePool?
        if case .nonConstantRegionRecordedFromSelection = trackingMode {
        } else if !requiresWriteAccess, let pool = writer as? DatabasePool {
            readerPool = pool
        }
        fetchesInReaders = readerPool != nil
        state.update { state in
            state.writer = writer
            state.readerPool = readerPool
        }
        if immediate {
            // The initial value is reduced in the writer access too, so that it is the first.
            let result: Result<Reducer.Value?, any Error> = writer.unsafeReentrantWrite { db in
                Result { try startObserving(db).flatMap { try reducer._value($0) } }
            }
            switch result {
            case let .success(value):
                if let value { onChange(value) }
            case let .failure(error):
                stop()
                events.didFail?(error)
                onError(error)
            }
        } else {
            writer.asyncWriteWithoutTransaction { db in
                do {
                    if let fetched = try self.startObserving(db) {
                        self.reduceAndNotify(fetched)
                    }
                } catch {
                    self.fail(error)
                }
            }
        }
    }

    /// A reader that is not a writer (a snapshot): its content never changes, one value.
    private func startWithoutWriter(_ reader: any DatabaseReader, immediate: Bool) {
        if immediate {
            do {
                events.willFetch?()
                let fetched = try reader.unsafeReentrantRead { db in try fetcher.fetch(db) }
                if let value = try reducer._value(fetched) { onChange(value) }
            } catch {
                stop()
                events.didFail?(error)
                onError(error)
            }
        } else {
            reader.asyncRead { dbResult in
                do {
                    let db = try dbResult.get()
                    self.events.willFetch?()
                    self.reduceAndNotify(try self.fetcher.fetch(db))
                } catch {
                    self.fail(error)
                }
            }
        }
    }

    /// In the writer: the first fetch, the region, and the registration of the observer.
    /// Nil when the observation was cancelled meanwhile.
    private func startObserving(_ db: Database) throws -> Reducer.Fetcher.Value? {
        if isCancelled { return nil }
        // Before the fetch: an external commit that lands after it makes one more fetch at the
        // next poll, instead of being missed.
        if externalChangesInterval != nil {
            dataVersion = try Int.fetchOne(db, sql: "PRAGMA data_version")
        }
        startedInsideTransaction = db.isInsideTransaction
        let startsPoolObservation = db.startsPoolObservation
        db.startsPoolObservation = state.read { $0.writer } is DatabasePool
        defer { db.startsPoolObservation = startsPoolObservation }
        let fetched: Reducer.Fetcher.Value
        switch trackingMode {
        case let .constantRegion(regions):
            var region = DatabaseRegion()
            for convertible in regions {
                region.formUnion(try convertible.databaseRegion(db))
            }
            fetched = try fetch(db).value
            self.region = region
        case .constantRegionRecordedFromSelection, .nonConstantRegionRecordedFromSelection:
            let (value, region) = try fetch(db)
            fetched = value
            self.region = region
        }
        events.willTrackRegion?(region)
        // Held strongly, until `stop()` removes it (the cancellable cancels when it is
        // deallocated): the writer calls it several times per transaction, and a weakly
        // referenced object makes each of those calls load the weak reference and count
        // references the slow way.
        db.add(transactionObserver: self, extent: .databaseLifetime)
        if let externalChangesInterval {
            startPolling(every: externalChangesInterval)
        }
        return fetched
    }

    // MARK: External changes

    private func startPolling(every interval: TimeInterval) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(Int(min(interval, 60) * 100)))
        timer.setEventHandler { [weak self] in self?.poll() }
        let stored = state.update { state -> Bool in
            if state.isCancelled { return false }
            state.pollingTimer = timer
            return true
        }
        if stored { timer.resume() }
    }

    /// Asks the writer whether another connection committed; one check at a time.
    private func poll() {
        let writer = state.update { state -> (any DatabaseWriter)? in
            guard !state.isCancelled, !state.isPolling else { return nil }
            state.isPolling = true
            return state.writer
        }
        guard let writer else { return }
        writer.asyncWriteWithoutTransaction { db in
            defer { self.state.update { $0.isPolling = false } }
            if self.isCancelled { return }
            let version: Int?
            do {
                version = try Int.fetchOne(db, sql: "PRAGMA data_version")
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                // Another process holds the file: check again at the next tick.
                return
            } catch {
                self.fail(error)
                return
            }
            if version != self.dataVersion {
                self.dataVersion = version
                self.refresh(db)
            }
        }
    }

    // MARK: Fetch

    /// Fetches in the writer, recording the region the fetch reads.
    private func fetch(_ db: Database) throws -> (value: Reducer.Fetcher.Value, region: DatabaseRegion) {
        events.willFetch?()
        let previousRecording = db.trackedRegion
        defer { db.trackedRegion = previousRecording }
        var result: Reducer.Fetcher.Value?
        let body = {
            db.trackedRegion = DatabaseRegion()
            result = try self.fetcher.fetch(db)
        }
        if requiresWriteAccess {
            try db.inSavepoint {
                try body()
                return .commit
            }
        } else if db.isInsideTransaction {
            try db.readOnly(body)
        } else {
            try db.isolatedReadOnly(body)
        }
        return (result!, db.trackedRegion ?? DatabaseRegion())
    }

    /// In a reader of the pool: one fetch at a time; a change that happens meanwhile makes
    /// another fetch when this one is done. The fetches of the pool's observations that wait
    /// together run together, in one read transaction (``BatchedReads``).
    private func fetchInReader(afterChange: Bool) {
        // (The pool through a captured variable: a tuple result cost a lookup of its type.)
        var pool: DatabasePool?
        let isCancelled = state.update { state -> Bool in
            if state.isCancelled { return true }
            if state.isFetching {
                state.needsFetch = true
                return false
            }
            state.isFetching = true
            pool = state.readerPool
            return false
        }
        if afterChange && !isCancelled { events.databaseDidChange?() }
        guard let pool else { return }
        pool.batchedReads.schedule { dbResult in
            let fetched: Result<Reducer.Fetcher.Value, any Error>?
            do {
                let db = try dbResult.get()
                if self.isCancelled {
                    fetched = nil
                } else {
                    self.events.willFetch?()
                    // The batch's read began after the commit that asked for this fetch: its
                    // queries see that commit, or a later one.
                    fetched = .success(try self.fetcher.fetch(db))
                }
            } catch {
                fetched = .failure(error)
            }
            let value = UncheckedSendable(fetched)
            // Once the batch's reader is released: the reducer (and `map`) never hold a
            // connection. The next fetch of this observation starts after this value is
            // reduced, so values are reduced in the order of their fetches.
            return {
                switch value.value {
                case nil:
                    break
                case let .success(fetched):
                    self.reduceQueue.sync { self.reduceAndNotifyOnReduceQueue(fetched) }
                case let .failure(error):
                    self.fail(error)
                }
                let again = self.state.update { state -> Bool in
                    state.isFetching = false
                    defer { state.needsFetch = false }
                    return state.needsFetch && !state.isCancelled
                }
                if again { self.fetchInReader(afterChange: false) }
            }
        }
    }

    private func reduceAndNotify(_ fetched: Reducer.Fetcher.Value) {
        let fetched = UncheckedSendable(fetched)
        reduceQueue.async {
            self.reduceAndNotifyOnReduceQueue(fetched.value)
        }
    }

    /// Reduces a fetched value, and schedules the notification of the result: on `reduceQueue`
    /// (the fetched values of an observation are reduced one at a time, in order).
    private func reduceAndNotifyOnReduceQueue(_ fetched: Reducer.Fetcher.Value) {
        if isCancelled { return }
        do {
            guard let value = try reducer._value(fetched) else { return }
            scheduler.schedule {
                if self.isCancelled { return }
                self.onChange(value)
            }
        } catch {
            fail(error)
        }
    }

    // MARK: Stop

    /// Ends the observation with an error.
    private func fail(_ error: any Error) {
        guard stop() else { return }
        events.didFail?(error)
        scheduler.schedule { self.onError(error) }
    }

    func cancel() {
        guard stop() else { return }
        events.didCancel?()
    }

    /// Marks the observation cancelled, removes the observer and releases the writer; false
    /// when it was stopped already.
    @discardableResult
    private func stop() -> Bool {
        let writer = state.update { state -> (any DatabaseWriter)?? in
            if state.isCancelled { return nil }
            state.isCancelled = true
            state.pollingTimer?.cancel()
            state.pollingTimer = nil
            state.readerPool = nil
            defer { state.writer = nil }
            return .some(state.writer)
        }
        guard let writer else { return false }
        writer?.asyncWriteWithoutTransaction { db in
            db.remove(transactionObserver: self)
        }
        return true
    }

    // MARK: TransactionObserver (on the writer)

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if let last = lastObservedKind, last.kind == eventKind { return last.observes }
        let observes = region.isModified(byEventsOfKind: eventKind)
        lastObservedKind = (eventKind, observes)
        return observes
    }

    func databaseDidChange(with event: DatabaseEvent) {
        guard region.isModified(by: event) else { return }
        if isModified || !fetchesInReaders {
            // The next changes of the transaction cannot tell more. When fetches run in the
            // readers of a pool, the stop waits for a second change: most transactions of an
            // observed table make one, and the stop costs more than being told of a second.
            // (A fetch on the writer stops at once: one that writes, with `requiresWriteAccess`,
            // must not be told of its own changes.)
            stopObservingDatabaseChangesUntilNextTransaction()
        }
        isModified = true
    }

    func databaseDidChange() {
        isModified = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        startedInsideTransaction = false
        guard isModified else { return }
        isModified = false
        if fetchesInReaders {
            // Checks the cancellation under the lock it takes anyway. (Not through
            // `refresh(_:)`, whose generic fetch costs lookups of the reducer's types.)
            fetchInReader(afterChange: true)
        } else {
            refresh(db)
        }
    }

    /// On the writer, after a change of the region: fetches a fresh value.
    private func refresh(_ db: Database) {
        if fetchesInReaders {
            fetchInReader(afterChange: true)
            return
        }
        if isCancelled { return }
        events.databaseDidChange?()
        do {
            let (fetched, newRegion) = try fetch(db)
            if case .nonConstantRegionRecordedFromSelection = trackingMode, newRegion != region {
                region = newRegion
                events.willTrackRegion?(newRegion)
            }
            reduceAndNotify(fetched)
        } catch {
            fail(error)
        }
    }

    func databaseDidRollback(_ db: Database) {
        isModified = false
        if startedInsideTransaction {
            startedInsideTransaction = false
            refresh(db)
        }
    }
}
