import Foundation
import GRDBCipher

extension DatabaseService {
    /// Reads in a transaction of a reader connection, measuring the wait for a connection and
    /// the transaction, and counting errors by result code.
    ///
    /// ```swift
    /// let notes = try await database.read { db in try Note.fetchAll(db) }
    /// ```
    public func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await measured(kind: "read", wait: metrics.readWait, duration: metrics.readDuration) { started in
            try await self.writer.read { db in
                started()
                return try value(db)
            }
        }
    }

    /// Writes in a transaction of the writer connection, measuring the wait for the writer and
    /// the transaction, and counting errors by result code.
    ///
    /// ```swift
    /// try await database.write { db in try note.insert(db) }
    /// ```
    public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await measured(kind: "write", wait: metrics.writeWait, duration: metrics.writeDuration) { started in
            try await self.writer.write { db in
                started()
                return try updates(db)
            }
        }
    }

    private func measured<T: Sendable>(
        kind: String,
        wait: Metrics.Timer,
        duration: Metrics.Timer,
        _ access: (@escaping @Sendable () -> Void) async throws -> T) async throws -> T
    {
        let requested = ContinuousClock.now
        let startedAt = AccessStart()
        do {
            let result = try await access {
                let now = ContinuousClock.now
                startedAt.set(now)
                wait.recordNanoseconds(requested.duration(to: now).nanoseconds)
            }
            if let start = startedAt.get() { duration.recordNanoseconds(start.duration(to: .now).nanoseconds) }
            metrics.countTransaction(kind: kind, outcome: "success")
            return result
        } catch {
            if let start = startedAt.get() { duration.recordNanoseconds(start.duration(to: .now).nanoseconds) }
            metrics.countTransaction(kind: kind, outcome: "error")
            if let error = error as? DatabaseError { metrics.recordError(error) }
            throw error
        }
    }
}

/// When an access's closure started, set from the connection's thread.
private final class AccessStart: @unchecked Sendable {
    private let lock = NSLock()
    private var instant: ContinuousClock.Instant?
    func set(_ value: ContinuousClock.Instant) { lock.lock(); instant = value; lock.unlock() }
    func get() -> ContinuousClock.Instant? { lock.lock(); defer { lock.unlock() }; return instant }
}

import Metrics
