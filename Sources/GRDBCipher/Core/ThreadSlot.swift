import Foundation

/// A slot of each thread for one object of its own: made on first use on that thread,
/// retained by the thread, released when the thread exits. The state that only its own thread
/// reads and writes (its accesses, its record encoders) lives in such an object.
struct ThreadSlot<Object: AnyObject>: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        let code = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            // Unsafe: at thread exit, balances the retain of `object(orMake:)`.
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        precondition(code == 0, "pthread_key_create failed: \(code)")
        self.key = key
    }

    /// The thread's object, made by `make` on the thread's first use.
    @inline(__always)
    func object(orMake make: () -> Object) -> Object {
        if let pointer = pthread_getspecific(key) {
            // Unsafe: the thread's slot retains its object until the thread exits.
            return Unmanaged<Object>.fromOpaque(pointer).takeUnretainedValue()
        }
        let object = make()
        // Unsafe: the thread's slot retains the object, released by the key's destructor.
        let retained = Unmanaged.passRetained(object)
        if pthread_setspecific(key, retained.toOpaque()) != 0 {
            // No slot: the object serves this use only.
            // Unsafe: balances the retain above, which no slot holds.
            retained.release()
        }
        return object
    }

    /// `body`'s answer about the thread's object, or nil when the thread has none yet. The
    /// object is read without a retain (for checks made at each record).
    @inline(__always)
    func withObjectIfMade<T>(_ body: (Object) -> T) -> T? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        // Unsafe: the thread's slot retains its object until the thread exits, so it outlives
        // this read, made without a retain.
        return Unmanaged<Object>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }
}
