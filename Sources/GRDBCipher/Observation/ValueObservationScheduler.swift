import Dispatch
import Foundation

/// Where and when a ``ValueObservation`` notifies its values and errors.
///
/// ```swift
/// let cancellable = observation.start(in: dbQueue, scheduling: .async(onQueue: myQueue)) { error in
///     // on myQueue
/// } onChange: { value in
///     // on myQueue
/// }
/// ```
public protocol ValueObservationScheduler: Sendable {
    /// Whether the initial value is fetched and notified synchronously, when the observation
    /// starts.
    func immediateInitialValue() -> Bool

    /// Runs `action` where the observation notifies. Actions run one after the other, in
    /// order.
    func schedule(_ action: @escaping @Sendable () -> Void)
}

/// A scheduler that notifies on the main actor.
public protocol ValueObservationMainActorScheduler: ValueObservationScheduler {
    /// Runs `action` on the main actor.
    func scheduleOnMainActor(_ action: @escaping @MainActor () -> Void)
}

extension ValueObservationMainActorScheduler {
    public func schedule(_ action: @escaping @Sendable () -> Void) {
        scheduleOnMainActor { action() }
    }
}

/// Marks the main queue, which runs the main actor's jobs (on Linux, the thread that drains it
/// is not always the process's first thread).
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Whether the caller runs on the main queue, hence on the main actor.
func isOnMainQueue() -> Bool {
    DispatchQueue.getSpecific(key: mainQueueKey) == true
}

/// Runs `action` on the main actor: at once when the caller is on it, later otherwise.
private func runOnMainActor(_ action: @escaping @MainActor () -> Void) {
    if isOnMainQueue() {
        MainActor.assumeIsolated { action() }
    } else {
        let action = UncheckedSendable(action)
        DispatchQueue.main.async {
            MainActor.assumeIsolated { action.value() }
        }
    }
}

// MARK: - Immediate

/// Notifies the initial value synchronously, when the observation starts, and then the
/// changes on the main actor. Start it from the main actor.
public struct ImmediateValueObservationScheduler: ValueObservationMainActorScheduler {
    /// Creates the scheduler.
    public init() {}

    public func immediateInitialValue() -> Bool { true }

    public func scheduleOnMainActor(_ action: @escaping @MainActor () -> Void) {
        runOnMainActor(action)
    }
}

extension ValueObservationScheduler where Self == ImmediateValueObservationScheduler {
    /// Notifies the initial value synchronously, and the changes on the main actor.
    ///
    /// ```swift
    /// let cancellable = observation.start(in: dbQueue, scheduling: .immediate) { error in
    /// } onChange: { value in
    /// }
    /// // The initial value was notified already.
    /// ```
    public static var immediate: ImmediateValueObservationScheduler { ImmediateValueObservationScheduler() }
}

extension ValueObservationMainActorScheduler where Self == ImmediateValueObservationScheduler {
    /// Notifies the initial value synchronously, and the changes on the main actor.
    public static var immediate: ImmediateValueObservationScheduler { ImmediateValueObservationScheduler() }
}

// MARK: - Main actor, delayed

/// Notifies every value on the main actor, asynchronously: the default of
/// `ValueObservation.start(in:scheduling:onError:onChange:)` on the main actor.
public final class DelayedMainActorValueObservationScheduler: ValueObservationMainActorScheduler {
    init() {}

    public func immediateInitialValue() -> Bool { false }

    public func scheduleOnMainActor(_ action: @escaping @MainActor () -> Void) {
        let action = UncheckedSendable(action)
        DispatchQueue.main.async {
            MainActor.assumeIsolated { action.value() }
        }
    }
}

extension ValueObservationScheduler where Self == DelayedMainActorValueObservationScheduler {
    /// Notifies every value on the main actor, asynchronously.
    public static var mainActor: DelayedMainActorValueObservationScheduler { DelayedMainActorValueObservationScheduler() }
}

// MARK: - Dispatch queue

/// Notifies every value asynchronously on a dispatch queue (make it serial).
public struct AsyncValueObservationScheduler: ValueObservationScheduler {
    let queue: DispatchQueue

    /// Notifies on `queue`.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    public func immediateInitialValue() -> Bool { false }

    public func schedule(_ action: @escaping @Sendable () -> Void) {
        queue.async(execute: action)
    }
}

extension ValueObservationScheduler where Self == AsyncValueObservationScheduler {
    /// Notifies every value asynchronously on `queue` (make it serial).
    ///
    /// ```swift
    /// observation.start(in: dbQueue, scheduling: .async(onQueue: myQueue)) { ... }
    /// ```
    public static func async(onQueue queue: DispatchQueue) -> AsyncValueObservationScheduler {
        AsyncValueObservationScheduler(queue: queue)
    }
}

// MARK: - Task

/// Notifies every value asynchronously in a task of the cooperative thread pool, in order.
public final class TaskValueObservationScheduler: ValueObservationScheduler {
    private let priority: TaskPriority?
    private let state = LockedValue<(actions: [@Sendable () -> Void], isDraining: Bool)>(([], false))

    init(priority: TaskPriority?) {
        self.priority = priority
    }

    public func immediateInitialValue() -> Bool { false }

    public func schedule(_ action: @escaping @Sendable () -> Void) {
        let startsDraining = state.update { state -> Bool in
            state.actions.append(action)
            if state.isDraining { return false }
            state.isDraining = true
            return true
        }
        guard startsDraining else { return }
        // One task at a time runs the actions, so that they keep their order.
        Task(priority: priority) { [self] in
            while let next = nextAction() {
                next()
            }
        }
    }

    private func nextAction() -> (@Sendable () -> Void)? {
        state.update { state in
            if state.actions.isEmpty {
                state.isDraining = false
                return nil
            }
            return state.actions.removeFirst()
        }
    }
}

extension ValueObservationScheduler where Self == TaskValueObservationScheduler {
    /// Notifies every value asynchronously, in order, on the cooperative thread pool.
    public static var task: TaskValueObservationScheduler { TaskValueObservationScheduler(priority: nil) }

    /// Notifies every value asynchronously, in order, in tasks of the given priority.
    public static func task(priority: TaskPriority) -> TaskValueObservationScheduler {
        TaskValueObservationScheduler(priority: priority)
    }
}
