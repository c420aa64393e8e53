import Foundation

/// The connections whose access closures run on the current thread, innermost last.
///
/// A `Database` may be used inside the access closure that received it, and inside any access
/// to another database made from that closure on the same thread (copying rows from one
/// database to another, say): the outer connection's queue is blocked, waiting for the inner
/// access, so nothing else uses it meanwhile.
enum CurrentAccesses {
    /// Per-thread storage: a `Box`, retained by the thread, released when the thread exits.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let code = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            // Unsafe: at thread exit, balances the retain of the thread's box (`box` below).
            Unmanaged<Box>.fromOpaque(pointer).release()
        }
        precondition(code == 0, "pthread_key_create failed: \(code)")
        return key
    }()

    private final class Box {
        /// Only its own thread reads and writes it: no dynamic exclusivity check.
        @exclusivity(unchecked) var connections: [ObjectIdentifier] = []
    }

    private static var box: Box {
        if let pointer = pthread_getspecific(key) {
            // Unsafe: the thread's slot retains its box until the thread exits.
            return Unmanaged<Box>.fromOpaque(pointer).takeUnretainedValue()
        }
        let box = Box()
        // Unsafe: the thread's slot retains the box, released by the key's destructor.
        pthread_setspecific(key, Unmanaged.passRetained(box).toOpaque())
        return box
    }

    /// Runs `body` with `db` registered as accessed by the current thread.
    static func run<T>(_ db: Database, _ body: () throws -> T) rethrows -> T {
        let box = self.box
        box.connections.append(ObjectIdentifier(db))
        defer { box.connections.removeLast() }
        return try body()
    }

    /// Whether an access closure of `db` runs on the current thread.
    static func contains(_ db: Database) -> Bool {
        guard let pointer = pthread_getspecific(key) else { return false }
        // Unsafe: the thread's slot retains its box until the thread exits.
        // Unsafe: the thread's slot retains its box until the thread exits, so the box
        // outlives this read, made without a retain (the check runs at each record insertion).
        return Unmanaged<Box>.fromOpaque(pointer)._withUnsafeGuaranteedRef { box in
            box.connections.contains(ObjectIdentifier(db))
        }
    }
}
