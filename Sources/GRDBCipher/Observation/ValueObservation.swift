import Foundation

/// Tracks the result of database requests, and notifies a fresh value each time a committed
/// transaction changes what it read.
///
/// ```swift
/// let observation = ValueObservation.tracking { db in
///     try Player.fetchAll(db)
/// }
/// let cancellable = observation.start(in: dbQueue) { error in
///     // handle error
/// } onChange: { (players: [Player]) in
///     print("Fresh players", players)
/// }
/// ```
///
/// The initial value comes first. Only committed changes notify; several commits may give one
/// value, and the last value always reflects the last commit. The observation lasts until the
/// cancellable is cancelled or deallocated, or until an error, which goes to `onError`.
public struct ValueObservation<Reducer: ValueReducer> {
    var trackingMode: ValueObservationTrackingMode
    var reducer: Reducer
    var events = ValueObservationEvents()

    /// Whether the observation fetches in a write access (a savepoint of the writer), so that
    /// its fetch may write, in a temporary table for example. False by default: fetches run in
    /// read-only accesses.
    public var requiresWriteAccess = false

    /// How often the observation checks for commits of other connections and processes
    /// (``observingExternalChanges(every:)``); nil: never, as in GRDB.
    var externalChangesInterval: TimeInterval?

    init(trackingMode: ValueObservationTrackingMode, reducer: Reducer) {
        self.trackingMode = trackingMode
        self.reducer = reducer
    }
}

extension ValueObservation: @unchecked Sendable where Reducer: Sendable {}

/// How an observation knows the region it tracks.
enum ValueObservationTrackingMode {
    /// Given regions, computed once when the observation starts.
    case constantRegion([any DatabaseRegionConvertible])
    /// The region the first fetch reads.
    case constantRegionRecordedFromSelection
    /// The region each fetch reads.
    case nonConstantRegionRecordedFromSelection
}

/// The events that ``ValueObservation/handleEvents(willStart:willFetch:willTrackRegion:databaseDidChange:didReceiveValue:didFail:didCancel:)``
/// tells (but values, which the `Trace` reducer tells).
struct ValueObservationEvents: Sendable {
    var willStart: (@Sendable () -> Void)?
    var willFetch: (@Sendable () -> Void)?
    var willTrackRegion: (@Sendable (DatabaseRegion) -> Void)?
    var databaseDidChange: (@Sendable () -> Void)?
    var didFail: (@Sendable (any Error) -> Void)?
    var didCancel: (@Sendable () -> Void)?

    /// These events, then `other`'s.
    func followed(by other: ValueObservationEvents) -> ValueObservationEvents {
        func chain(_ a: (@Sendable () -> Void)?, _ b: (@Sendable () -> Void)?) -> (@Sendable () -> Void)? {
            guard let a else { return b }
            guard let b else { return a }
            return { a(); b() }
        }
        func chain<T>(_ a: (@Sendable (T) -> Void)?, _ b: (@Sendable (T) -> Void)?) -> (@Sendable (T) -> Void)? {
            guard let a else { return b }
            guard let b else { return a }
            return { a($0); b($0) }
        }
        return ValueObservationEvents(
            willStart: chain(willStart, other.willStart),
            willFetch: chain(willFetch, other.willFetch),
            willTrackRegion: chain(willTrackRegion, other.willTrackRegion),
            databaseDidChange: chain(databaseDidChange, other.databaseDidChange),
            didFail: chain(didFail, other.didFail),
            didCancel: chain(didCancel, other.didCancel))
    }
}

// MARK: - Creating observations

extension ValueObservation {
    /// An observation of the value `fetch` returns, tracking the region its requests read,
    /// again at each fetch (the region may depend on fetched values).
    ///
    /// ```swift
    /// let observation = ValueObservation.tracking { db in
    ///     try Player.fetchAll(db)
    /// }
    /// // The same:
    /// let observation = ValueObservation.tracking(Player.fetchAll)
    /// ```
    @preconcurrency
    public static func tracking<Value>(
        _ fetch: @escaping @Sendable (Database) throws -> Value)
    -> ValueObservation<ValueReducers.Fetch<Value>>
    where Reducer == ValueReducers.Fetch<Value>
    {
        ValueObservation(trackingMode: .nonConstantRegionRecordedFromSelection, reducer: ValueReducers.Fetch(fetch))
    }

    /// An observation of the value `fetch` returns, tracking the region its first fetch reads,
    /// for ever. Only correct when that region does not depend on the fetched values: on a
    /// ``DatabasePool``, such an observation fetches its values in reader connections.
    ///
    /// ```swift
    /// let observation = ValueObservation.trackingConstantRegion { db in
    ///     try Player.fetchCount(db)
    /// }
    /// ```
    @preconcurrency
    public static func trackingConstantRegion<Value>(
        _ fetch: @escaping @Sendable (Database) throws -> Value)
    -> ValueObservation<ValueReducers.Fetch<Value>>
    where Reducer == ValueReducers.Fetch<Value>
    {
        ValueObservation(trackingMode: .constantRegionRecordedFromSelection, reducer: ValueReducers.Fetch(fetch))
    }

    /// An observation that fetches with `fetch` whenever the given regions change.
    ///
    /// ```swift
    /// let observation = ValueObservation.tracking(
    ///     region: Player.select(Column("score")).filter(id: 1),
    ///     fetch: { db in try Player.fetchOne(db, id: 1) })
    /// ```
    @preconcurrency
    public static func tracking<Value>(
        region: any DatabaseRegionConvertible,
        _ otherRegions: any DatabaseRegionConvertible...,
        fetch: @escaping @Sendable (Database) throws -> Value)
    -> ValueObservation<ValueReducers.Fetch<Value>>
    where Reducer == ValueReducers.Fetch<Value>
    {
        tracking(regions: [region] + otherRegions, fetch: fetch)
    }

    /// An observation that fetches with `fetch` whenever the given regions change.
    ///
    /// ```swift
    /// let observation = ValueObservation.tracking(
    ///     regions: [Table("player"), Table("team")],
    ///     fetch: { db in try Player.fetchCount(db) + Team.fetchCount(db) })
    /// ```
    @preconcurrency
    public static func tracking<Value>(
        regions: [any DatabaseRegionConvertible],
        fetch: @escaping @Sendable (Database) throws -> Value)
    -> ValueObservation<ValueReducers.Fetch<Value>>
    where Reducer == ValueReducers.Fetch<Value>
    {
        ValueObservation(trackingMode: .constantRegion(regions), reducer: ValueReducers.Fetch(fetch))
    }
}

// MARK: - Operators

extension ValueObservation {
    /// An observation that notifies the values of this one, transformed, off the database
    /// connection. An error thrown by `transform` ends the observation.
    ///
    /// ```swift
    /// let observation = ValueObservation
    ///     .tracking(Player.fetchAll)
    ///     .map { players in players.map(\.name) }
    /// ```
    public func map<T>(_ transform: @escaping @Sendable (Reducer.Value) throws -> T) -> ValueObservation<ValueReducers.Map<Reducer, T>> {
        mapReducer { ValueReducers.Map($0, transform) }
    }

    /// An observation that skips the values equal to the previous one, by `predicate`.
    public func removeDuplicates(by predicate: sending @escaping (Reducer.Value, Reducer.Value) -> Bool) -> ValueObservation<ValueReducers.RemoveDuplicates<Reducer>> {
        mapReducer { ValueReducers.RemoveDuplicates($0, predicate: predicate) }
    }

    /// An observation that tells the events of its life to the given closures, for debugging.
    ///
    /// ```swift
    /// let observation = ValueObservation
    ///     .tracking(Player.fetchAll)
    ///     .handleEvents(willFetch: { print("fetch") })
    /// ```
    public func handleEvents(
        willStart: (@Sendable () -> Void)? = nil,
        willFetch: (@Sendable () -> Void)? = nil,
        willTrackRegion: (@Sendable (DatabaseRegion) -> Void)? = nil,
        databaseDidChange: (@Sendable () -> Void)? = nil,
        didReceiveValue: (@Sendable (Reducer.Value) -> Void)? = nil,
        didFail: (@Sendable (Error) -> Void)? = nil,
        didCancel: (@Sendable () -> Void)? = nil)
    -> ValueObservation<ValueReducers.Trace<Reducer>>
    {
        var observation = mapReducer { ValueReducers.Trace($0, didReceiveValue: didReceiveValue) }
        observation.events = events.followed(by: ValueObservationEvents(
            willStart: willStart,
            willFetch: willFetch,
            willTrackRegion: willTrackRegion,
            databaseDidChange: databaseDidChange,
            didFail: didFail,
            didCancel: didCancel))
        return observation
    }

    /// An observation that prints the events of its life (`start`, `fetch`, `tracked region`,
    /// `database did change`, `value`, `failure`, `cancel`), each after `prefix` when given, to
    /// `stream`, or to the standard output.
    ///
    /// ```swift
    /// let observation = ValueObservation.tracking(Player.fetchAll).print("players")
    /// // players: start
    /// // players: fetch
    /// // players: tracked region: player(*)
    /// // players: value: [...]
    /// ```
    public func print(_ prefix: String = "", to stream: sending TextOutputStream? = nil) -> ValueObservation<ValueReducers.Trace<Reducer>> {
        let printer = ObservationPrinter(prefix: prefix, stream: stream)
        return handleEvents(
            willStart: { printer.log("start") },
            willFetch: { printer.log("fetch") },
            willTrackRegion: { printer.log("tracked region: \($0)") },
            databaseDidChange: { printer.log("database did change") },
            didReceiveValue: { printer.log("value: \($0)") },
            didFail: { printer.log("failure: \($0)") },
            didCancel: { printer.log("cancel") })
    }

    private func mapReducer<R: ValueReducer>(_ transform: (Reducer) -> R) -> ValueObservation<R> {
        var observation = ValueObservation<R>(trackingMode: trackingMode, reducer: transform(reducer))
        observation.events = events
        observation.requiresWriteAccess = requiresWriteAccess
        observation.externalChangesInterval = externalChangesInterval
        return observation
    }

    /// An observation that also notices the commits of other connections and processes on
    /// the same database file (a migration job, a command-line tool, a second instance of a
    /// service), which GRDB's observations do not see. A GRDBCipher addition.
    ///
    /// Every `interval` seconds, the observation asks the writer connection whether another
    /// connection committed since the last check (`PRAGMA data_version`), and then fetches a
    /// fresh value: it cannot know what the other connection changed, so any external commit
    /// makes a fetch (combine with ``removeDuplicates()`` to skip identical values).
    ///
    /// ```swift
    /// let observation = ValueObservation
    ///     .tracking(Player.fetchAll)
    ///     .observingExternalChanges(every: 1.0)
    /// ```
    ///
    /// - precondition: `interval` is positive.
    public func observingExternalChanges(every interval: TimeInterval) -> ValueObservation {
        precondition(interval > 0, "observingExternalChanges(every:) needs a positive interval")
        var observation = self
        observation.externalChangesInterval = interval
        return observation
    }
}

extension ValueObservation where Reducer.Value: Equatable {
    /// An observation that skips the values equal to the previous one.
    ///
    /// ```swift
    /// let observation = ValueObservation
    ///     .tracking { db in try Player.fetchCount(db) }
    ///     .removeDuplicates()
    /// ```
    public func removeDuplicates() -> ValueObservation<ValueReducers.RemoveDuplicates<Reducer>> {
        removeDuplicates(by: ==)
    }
}

/// Writes the events of ``ValueObservation/print(_:to:)``, one at a time: one `write` per event
/// to a stream, one line per event to the standard output.
private final class ObservationPrinter: @unchecked Sendable {
    private let prefix: String
    private var stream: (any TextOutputStream)?
    private let lock = NSLock()

    init(prefix: String, stream: (any TextOutputStream)?) {
        self.prefix = prefix
        self.stream = stream
    }

    func log(_ message: String) {
        let line = prefix.isEmpty ? message : "\(prefix): \(message)"
        lock.lock()
        defer { lock.unlock() }
        if stream != nil {
            // As GRDB: one write per event, without a newline (the stream adds its own).
            stream!.write(line)
        } else {
            Swift.print(line)
        }
    }
}

// MARK: - Starting

extension ValueObservation {
    /// Starts the observation, with values and errors on the main actor (by default
    /// asynchronously; `.immediate` notifies the initial value before this method returns).
    ///
    /// ```swift
    /// let cancellable = observation.start(in: dbQueue) { error in
    ///     // handle error
    /// } onChange: { value in
    ///     print("Fresh value", value)
    /// }
    /// ```
    @preconcurrency @MainActor
    public func start(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationMainActorScheduler = .mainActor,
        onError: @escaping @MainActor (Error) -> Void,
        onChange: @escaping @MainActor (Reducer.Value) -> Void)
    -> AnyDatabaseCancellable
    {
        let onError = UncheckedSendable(onError)
        let onChange = UncheckedSendable(onChange)
        return startObservation(
            in: reader,
            scheduler: scheduler,
            onError: { error in MainActor.assumeIsolated { onError.value(error) } },
            onChange: { value in MainActor.assumeIsolated { onChange.value(value) } })
    }

    /// Starts the observation, with values and errors where `scheduler` says.
    ///
    /// ```swift
    /// let cancellable = observation.start(in: dbQueue, scheduling: .async(onQueue: myQueue)) { error in
    ///     // handle error
    /// } onChange: { value in
    ///     print("Fresh value", value)
    /// }
    /// ```
    @preconcurrency
    public func start(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler,
        onError: @escaping @Sendable (Error) -> Void,
        onChange: @escaping @Sendable (Reducer.Value) -> Void)
    -> AnyDatabaseCancellable
    {
        startObservation(in: reader, scheduler: scheduler, onError: onError, onChange: onChange)
    }

    /// The values of the observation, as an asynchronous sequence. The observation starts when
    /// the iteration starts, and stops when the iterating task is cancelled.
    ///
    /// ```swift
    /// for try await players in observation.values(in: dbQueue) {
    ///     print("Fresh players", players)
    /// }
    /// ```
    public func values(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .task,
        bufferingPolicy: AsyncValueObservation<Reducer.Value>.BufferingPolicy = .unbounded)
    -> AsyncValueObservation<Reducer.Value>
    {
        let observation = UncheckedSendable(self)
        return AsyncValueObservation(bufferingPolicy: bufferingPolicy) { onError, onChange in
            observation.value.startObservation(in: reader, scheduler: scheduler, onError: onError, onChange: onChange)
        }
    }

    /// An observation that several clients share: one fetch for all of them at each change.
    ///
    /// ```swift
    /// let shared = ValueObservation.tracking(Player.fetchAll).shared(in: dbQueue)
    /// let cancellable = shared.start { error in } onChange: { players in }
    /// ```
    public func shared(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main),
        extent: SharedValueObservationExtent = .whileObserved)
    -> SharedValueObservation<Reducer.Value>
    {
        let observation = UncheckedSendable(self)
        return SharedValueObservation(scheduler: scheduler, extent: extent) { onError, onChange in
            observation.value.startObservation(in: reader, scheduler: scheduler, onError: onError, onChange: onChange)
        }
    }

    func startObservation(
        in reader: any DatabaseReader,
        scheduler: some ValueObservationScheduler,
        onError: @escaping @Sendable (Error) -> Void,
        onChange: @escaping @Sendable (Reducer.Value) -> Void)
    -> AnyDatabaseCancellable
    {
        let observer = ValueObserver(observation: self, scheduler: scheduler, onError: onError, onChange: onChange)
        observer.start(in: reader)
        return AnyDatabaseCancellable(cancel: { observer.cancel() })
    }
}
