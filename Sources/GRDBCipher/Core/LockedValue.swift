import Foundation

/// A value protected by a lock.
///
/// `@unchecked Sendable`: every access to `value` goes through `mutex`. The lock is a plain
/// `pthread_mutex_t` and the value is not checked for exclusivity at run time (the lock already
/// serializes accesses): observation takes these locks several times per commit.
final class LockedValue<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @exclusivity(unchecked) private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        let code = pthread_mutex_init(mutex, nil)
        precondition(code == 0, "pthread_mutex_init failed: \(code)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func read() -> Value {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return value
    }

    func write(_ newValue: Value) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        value = newValue
    }

    /// Changes the value under the lock.
    func update<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Reads part of the value under the lock.
    func read<T>(_ body: (Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(value)
    }
}
