import Foundation

/// The values of a ``ValueObservation``, as an asynchronous sequence
/// (see ``ValueObservation/values(in:scheduling:bufferingPolicy:)``).
///
/// Each iteration starts its own observation, which stops when the iteration ends, when the
/// iterating task is cancelled, or with the error that ends the observation.
///
/// ```swift
/// for try await count in ValueObservation.tracking(Player.fetchCount).values(in: dbQueue) {
///     print("Number of players:", count)
/// }
/// ```
public struct AsyncValueObservation<Element: Sendable>: AsyncSequence {
    /// How values that the consumer has not read yet are buffered.
    public typealias BufferingPolicy = AsyncThrowingStream<Element, Error>.Continuation.BufferingPolicy
    public typealias AsyncIterator = Iterator

    private let bufferingPolicy: BufferingPolicy
    private let start: @Sendable (
        _ onError: @escaping @Sendable (any Error) -> Void,
        _ onChange: @escaping @Sendable (Element) -> Void) -> AnyDatabaseCancellable

    init(
        bufferingPolicy: BufferingPolicy,
        start: @escaping @Sendable (
            _ onError: @escaping @Sendable (any Error) -> Void,
            _ onChange: @escaping @Sendable (Element) -> Void) -> AnyDatabaseCancellable)
    {
        self.bufferingPolicy = bufferingPolicy
        self.start = start
    }

    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream<Element, Error>.makeStream(bufferingPolicy: bufferingPolicy)
        let cancellable = start(
            { error in continuation.finish(throwing: error) },
            { value in continuation.yield(value) })
        continuation.onTermination = { _ in cancellable.cancel() }
        return Iterator(base: stream.makeAsyncIterator())
    }

    /// The iterator of an ``AsyncValueObservation``.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, Error>.AsyncIterator

        public mutating func next() async throws -> Element? {
            try await base.next()
        }
    }
}

extension AsyncValueObservation: Sendable {}

/// How long a ``SharedValueObservation`` observes the database.
public enum SharedValueObservationExtent: Sendable {
    /// From the first client until the shared observation is deallocated (or an error).
    case observationLifetime
    /// While it has clients: the last one to leave stops the observation, the next one to come
    /// starts a new one.
    case whileObserved
}

/// A ``ValueObservation`` that several clients share: one fetch for all of them at each
/// change (see ``ValueObservation/shared(in:scheduling:extent:)``).
///
/// A client that joins an observation under way gets its latest value first.
///
/// ```swift
/// let shared = ValueObservation.tracking(Player.fetchAll).shared(in: dbQueue)
/// let cancellable = shared.start { error in
///     // handle error
/// } onChange: { players in
///     print("Fresh players", players)
/// }
/// ```
public final class SharedValueObservation<Element: Sendable>: @unchecked Sendable {
    private final class Client: @unchecked Sendable {
        let onError: @Sendable (any Error) -> Void
        let onChange: @Sendable (Element) -> Void
        /// The number of the last value the client was given (guarded by the state's lock):
        /// a latest value given to a new client never comes after a newer one.
        var deliveredNumber = 0
        /// False once the client cancelled or got the error (guarded by the state's lock).
        var isActive = true

        init(onError: @escaping @Sendable (any Error) -> Void, onChange: @escaping @Sendable (Element) -> Void) {
            self.onError = onError
            self.onChange = onChange
        }
    }

    private struct State {
        var clients: [Int: Client] = [:]
        var nextClientID = 0
        var cancellable: AnyDatabaseCancellable?
        /// Whether the underlying observation is started (or starting: its first value may
        /// reach a client, which may start another client, before `cancellable` is set).
        var isStarted = false
        var lastValue: Element?
        /// Numbers the values of the observation.
        var valueNumber = 0
        /// Counts the underlying observations, so that a stopped one is ignored.
        var generation = 0
    }

    private let scheduler: any ValueObservationScheduler
    private let extent: SharedValueObservationExtent
    private let startObservation: @Sendable (
        _ onError: @escaping @Sendable (any Error) -> Void,
        _ onChange: @escaping @Sendable (Element) -> Void) -> AnyDatabaseCancellable
    private let state = LockedValue(State())

    init(
        scheduler: some ValueObservationScheduler,
        extent: SharedValueObservationExtent,
        start: @escaping @Sendable (
            _ onError: @escaping @Sendable (any Error) -> Void,
            _ onChange: @escaping @Sendable (Element) -> Void) -> AnyDatabaseCancellable)
    {
        self.scheduler = scheduler
        self.extent = extent
        self.startObservation = start
    }

    deinit {
        state.read { $0.cancellable }?.cancel()
    }

    /// Starts observing, with values and errors where the shared observation's scheduler says.
    @preconcurrency
    public func start(
        onError: @escaping @Sendable (Error) -> Void,
        onChange: @escaping @Sendable (Element) -> Void)
    -> AnyDatabaseCancellable
    {
        let client = Client(onError: onError, onChange: onChange)
        let (id, startsObservation, generation, lastValue, lastNumber) = state.update { state in
            let id = state.nextClientID
            state.nextClientID += 1
            state.clients[id] = client
            let starts = !state.isStarted
            if starts {
                state.isStarted = true
                state.generation += 1
            }
            return (id, starts, state.generation, state.lastValue, state.valueNumber)
        }
        if startsObservation {
            let cancellable = startObservation(
                { [weak self] error in self?.fail(error, generation: generation) },
                { [weak self] value in self?.receive(value, generation: generation) })
            let stale = state.update { state -> Bool in
                guard state.generation == generation, !state.clients.isEmpty else { return true }
                if state.cancellable == nil { state.cancellable = cancellable }
                return false
            }
            if stale { cancellable.cancel() }
        } else if let lastValue {
            let replay: @Sendable () -> Void = { [weak self] in
                guard let self, self.takeDelivery(of: lastNumber, to: client) else { return }
                onChange(lastValue)
            }
            if scheduler.immediateInitialValue() {
                replay()
            } else {
                scheduler.schedule(replay)
            }
        }
        // The client keeps the shared observation alive until it cancels: an observation
        // whose clients are all gone is the one that stops.
        return AnyDatabaseCancellable { [self] in
            removeClient(id)
        }
    }

    /// The values of the shared observation, as an asynchronous sequence.
    ///
    /// ```swift
    /// for try await players in shared.values() {
    ///     print("Fresh players", players)
    /// }
    /// ```
    public func values(bufferingPolicy: AsyncValueObservation<Element>.BufferingPolicy = .unbounded) -> AsyncValueObservation<Element> {
        AsyncValueObservation(bufferingPolicy: bufferingPolicy) { [self] onError, onChange in
            start(onError: onError, onChange: onChange)
        }
    }

    private func receive(_ value: Element, generation: Int) {
        let (clients, number) = state.update { state -> ([Client], Int) in
            guard state.generation == generation else { return ([], 0) }
            state.lastValue = value
            state.valueNumber += 1
            return (state.clients.sorted { $0.key < $1.key }.map(\.value), state.valueNumber)
        }
        for client in clients where takeDelivery(of: number, to: client) {
            client.onChange(value)
        }
    }

    /// Whether the value of this number is newer than what the client was given (and then
    /// records that it is given).
    private func takeDelivery(of number: Int, to client: Client) -> Bool {
        state.update { _ in
            guard client.isActive, client.deliveredNumber < number else { return false }
            client.deliveredNumber = number
            return true
        }
    }

    private func fail(_ error: any Error, generation: Int) {
        // The observation is over: the next client starts a new one.
        let clients = state.update { state -> [Client] in
            guard state.generation == generation else { return [] }
            let clients = state.clients.sorted { $0.key < $1.key }.map(\.value)
            for client in clients { client.isActive = false }
            state.clients = [:]
            state.cancellable = nil
            state.isStarted = false
            state.lastValue = nil
            state.valueNumber = 0
            state.generation += 1
            return clients
        }
        for client in clients { client.onError(error) }
    }

    private func removeClient(_ id: Int) {
        let cancellable = state.update { state -> AnyDatabaseCancellable? in
            guard let client = state.clients.removeValue(forKey: id) else { return nil }
            client.isActive = false
            guard state.clients.isEmpty, extent == .whileObserved else { return nil }
            defer {
                state.cancellable = nil
                state.isStarted = false
                state.lastValue = nil
                state.valueNumber = 0
                state.generation += 1
            }
            return state.cancellable
        }
        cancellable?.cancel()
    }
}
