import CSQLCipher

/// The progress of a ``DatabaseReader/backup(to:pagesPerStep:progress:)``.
public struct DatabaseBackupProgress: Sendable, Equatable {
    /// Pages left to copy.
    public let remainingPageCount: Int
    /// Pages of the source database.
    public let totalPageCount: Int
    /// Pages copied so far.
    public var completedPageCount: Int { totalPageCount - remainingPageCount }
    /// Whether the backup is complete.
    public let isCompleted: Bool
}

extension DatabaseReader {
    /// Copies the whole database into `writer`'s database, replacing its content, with SQLite's
    /// online backup.
    ///
    /// ```swift
    /// let copy = try DatabaseQueue(path: backupPath)
    /// try dbQueue.backup(to: copy)
    /// ```
    ///
    /// Both databases must have the same encryption: both plaintext, or both encrypted with the
    /// same key and settings. SQLCipher refuses a backup between a plaintext and an encrypted
    /// database; GRDBCipher reports it with a message that points to
    /// ``DatabaseReader/exportDatabase(to:options:)``, which does that job.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/backup.html>
    public func backup(
        to writer: some DatabaseWriter,
        pagesPerStep: CInt = -1,
        progress: ((DatabaseBackupProgress) throws -> Void)? = nil) throws
    {
        precondition(writer !== self, "A database cannot be backed up into itself")
        try read { sourceDB in
            try writer.barrierWriteWithoutTransaction { destinationDB in
                try sourceDB.backup(to: destinationDB, pagesPerStep: pagesPerStep, progress: progress)
            }
        }
    }
}

extension Database {
    /// Copies the whole database into `destination`, replacing its content.
    public func backup(
        to destination: Database,
        pagesPerStep: CInt = -1,
        progress: ((DatabaseBackupProgress) throws -> Void)? = nil) throws
    {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            let error = makeDatabaseError(sqlite3_errcode(destination.handle), destination.handle)
            if isEncrypted != destination.isEncrypted || error.message?.contains("encrypted") == true {
                throw DatabaseError(
                    resultCode: error.extendedResultCode,
                    message: "backup: SQLCipher cannot copy pages between databases with different encryption "
                        + "(\(error.message ?? "refused")); use exportDatabase(to:options:) to encrypt, decrypt or re-encrypt")
            }
            throw error
        }
        var finished = false
        defer { if !finished { sqlite3_backup_finish(backup) } }
        while true {
            let code = sqlite3_backup_step(backup, pagesPerStep)
            let total = Int(sqlite3_backup_pagecount(backup))
            let remaining = Int(sqlite3_backup_remaining(backup))
            switch code {
            case SQLITE_DONE:
                try progress?(DatabaseBackupProgress(remainingPageCount: 0, totalPageCount: total, isCompleted: true))
                finished = true
                try sqliteCheck(sqlite3_backup_finish(backup), destination.handle)
                return
            case SQLITE_OK, SQLITE_BUSY, SQLITE_LOCKED:
                try progress?(DatabaseBackupProgress(remainingPageCount: remaining, totalPageCount: total, isCompleted: false))
            default:
                throw makeDatabaseError(code, destination.handle)
            }
        }
    }
}
