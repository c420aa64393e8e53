import Foundation
import GRDBCipher

/// What ``DatabaseService/health(timeout:)`` found.
public struct DatabaseHealth: Sendable, CustomStringConvertible {
    public enum Status: String, Sendable {
        /// The checks passed in time.
        case healthy
        /// A check found a problem, or failed.
        case unhealthy
        /// The checks did not finish in time (the database is busy, or the disk slow).
        case timedOut
    }

    public var status: Status
    /// The problems found (never a key, never a statement argument).
    public var problems: [String]
    /// How long the checks took.
    public var duration: Duration

    public var description: String {
        problems.isEmpty ? "\(status.rawValue) (\(duration))" : "\(status.rawValue) (\(duration)): \(problems.joined(separator: "; "))"
    }
}

extension DatabaseService {
    /// Quick checks a service can expose (a health endpoint): on a reader connection,
    /// `PRAGMA quick_check` and, on an encrypted database, that the first page authenticates
    /// with the key (`PRAGMA cipher_integrity_check` reads every page: too slow for a probe
    /// of a large file; `grdbcipher verify` runs it). Bounded in time.
    ///
    /// ```swift
    /// router.get("/health") { _, _ in
    ///     let health = await database.health()
    ///     return health.status == .healthy ? HTTPResponse.Status.ok : .serviceUnavailable
    /// }
    /// ```
    public func health(timeout: Duration = .seconds(2)) async -> DatabaseHealth {
        let start = ContinuousClock.now
        let writer = self.writer
        let check = Task { () -> [String] in
            try await writer.read { db in
                var problems: [String] = []
                let quick = try String.fetchAll(db, sql: "PRAGMA quick_check")
                if quick != ["ok"] { problems += quick.prefix(5).map { "quick_check: \($0)" } }
                // Reading the schema decrypts and authenticates page 1 of an encrypted file.
                _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master")
                return problems
            }
        }
        let outcome = await result(of: check, within: timeout)
        let duration = start.duration(to: .now)
        switch outcome {
        case nil:
            return DatabaseHealth(status: .timedOut, problems: ["the checks took longer than \(timeout)"], duration: duration)
        case .success(let problems):
            return DatabaseHealth(status: problems.isEmpty ? .healthy : .unhealthy, problems: problems, duration: duration)
        case .failure(let error):
            if let error = error as? DatabaseError { metrics.recordError(error) }
            return DatabaseHealth(status: .unhealthy, problems: ["\(error)"], duration: duration)
        }
    }
}
