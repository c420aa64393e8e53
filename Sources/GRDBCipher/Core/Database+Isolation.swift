import Foundation

// How queues and pools set up and isolate the accesses they give out: the WAL mode, and the
// read-only transactions of reads.
extension Database {
    /// Sets the WAL journal mode, and makes sure the `-wal` and `-shm` files exist and the WAL is
    /// not empty: read-only connections can then open the database, and snapshots be taken,
    /// before the first real write.
    func setUpWALMode() throws {
        let mode = try String.fetchOne(self, sql: "PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "could not activate the WAL mode at path: \(path)")
        }
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        if walSize == 0 {
            // A write that changes nothing: the header page goes to the WAL.
            try inTransaction(.immediate) {
                let version = try Int.fetchOne(self, sql: "PRAGMA user_version") ?? 0
                try execute(sql: "PRAGMA user_version = \(version)")
                return .commit
            }
        }
    }

    /// Runs `body` in a deferred transaction, which gives it a stable view of the database.
    ///
    /// - parameter snapshotNow: whether the transaction reads the database at once, so that it
    ///   sees the database as it is when `body` starts, not as it is at its first query (a
    ///   pool's reader: the writer may commit meanwhile).
    func isolated<T>(snapshotNow: Bool = true, _ body: () throws -> T) throws -> T {
        try withOwnedTransaction(.deferred) {
            if snapshotNow { try fixSnapshot() }
            return (try body(), true)
        }
    }

    /// Reads the database, so that the deferred transaction that runs takes its snapshot now
    /// rather than at its first query.
    func fixSnapshot() throws {
        _ = try Row.fetchOne(self, sql: "SELECT rootpage FROM sqlite_master LIMIT 1")
    }

    /// A read access of a queue: a read-only section, in a deferred transaction.
    func isolatedReadOnly<T>(_ body: () throws -> T) throws -> T {
        try readOnly {
            try isolated(snapshotNow: false, body)
        }
    }
}
