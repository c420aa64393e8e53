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
    /// When both databases have the same encryption (both plaintext, or the same key and
    /// settings), pages are copied with SQLite's online backup. SQLCipher refuses that between a
    /// plaintext and an encrypted database, or between different keys or settings: then the
    /// content is copied with `sqlcipher_export` inside one transaction of the destination, which
    /// keeps its own key and settings and is left as it was if the copy fails. That path holds a
    /// decrypted copy of the source in memory (wiped afterwards), ignores `pagesPerStep`, and
    /// reports progress once at the start and once at the end. To write a new encrypted or
    /// plaintext file, ``DatabaseReader/exportDatabase(to:options:)`` is the better tool.
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
        if isEncrypted != destination.isEncrypted {
            try copyByExport(to: destination, progress: progress)
            return
        }
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            let error = makeDatabaseError(sqlite3_errcode(destination.handle), destination.handle)
            if isEncrypted && error.resultCode == .SQLITE_ERROR {
                // Both encrypted, with keys or settings SQLCipher will not copy pages between.
                try copyByExport(to: destination, progress: progress)
                return
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
                finished = true
                try sqliteCheck(sqlite3_backup_finish(backup), destination.handle)
                // The backup is complete: an error thrown by `progress` now cannot undo it,
                // and is ignored.
                try? progress?(DatabaseBackupProgress(remainingPageCount: 0, totalPageCount: total, isCompleted: true))
                return
            case SQLITE_READONLY where remaining == total && (isEncrypted || destination.isEncrypted):
                // SQLCipher cannot change an encrypted database's page size: two encrypted
                // databases with different page sizes (SQLCipher 3 and 4 defaults, say).
                sqlite3_backup_finish(backup)
                finished = true
                try copyByExport(to: destination, progress: progress)
                return
            case SQLITE_OK, SQLITE_BUSY, SQLITE_LOCKED:
                try progress?(DatabaseBackupProgress(remainingPageCount: remaining, totalPageCount: total, isCompleted: false))
            default:
                throw makeDatabaseError(code, destination.handle)
            }
        }
    }
}
