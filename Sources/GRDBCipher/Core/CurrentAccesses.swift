import Foundation

/// The connections whose access closures run on the current thread, innermost last.
///
/// A `Database` may be used inside the access closure that received it, and inside any access
/// to another database made from that closure on the same thread (copying rows from one
/// database to another, say): the outer connection's queue is blocked, waiting for the inner
/// access, so nothing else uses it meanwhile.
enum CurrentAccesses {
    /// The thread's `Box`.
    private static let slot = ThreadSlot<Box>()

    private final class Box {
        /// Only its own thread reads and writes it: no dynamic exclusivity check.
        @exclusivity(unchecked) var connections: [ObjectIdentifier] = []
    }

    private static var box: Box {
        slot.object(orMake: Box.init)
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
        slot.withObjectIfMade { $0.connections.contains(ObjectIdentifier(db)) } ?? false
    }
}
