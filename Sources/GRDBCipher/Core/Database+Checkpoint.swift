import CSQLCipher

extension Database {
    /// How a WAL checkpoint runs: see <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>.
    public enum CheckpointMode: CInt, Sendable {
        /// Copies what it can without waiting for readers or writers.
        case passive = 0
        /// Waits for the writer, then copies everything; readers may hold the WAL.
        case full = 1
        /// Like `full`, then waits for readers so that the next writer restarts the WAL.
        case restart = 2
        /// Like `restart`, then truncates the WAL file to zero bytes.
        case truncate = 3
    }

    /// Runs a WAL checkpoint, and returns the size of the WAL and the number of frames copied
    /// into the database (both -1 when the database is not in the WAL mode).
    ///
    /// ```swift
    /// try dbPool.writeWithoutTransaction { db in
    ///     _ = try db.checkpoint(.truncate)
    /// }
    /// ```
    @discardableResult
    public func checkpoint(_ kind: CheckpointMode = .passive, on dbName: String? = "main") throws -> (walFrameCount: Int, checkpointedFrameCount: Int) {
        preconditionValidAccess()
        var walFrameCount: CInt = -1
        var checkpointedFrameCount: CInt = -1
        let code = sqlite3_wal_checkpoint_v2(handle, dbName, kind.rawValue, &walFrameCount, &checkpointedFrameCount)
        try sqliteCheck(code, handle)
        return (Int(walFrameCount), Int(checkpointedFrameCount))
    }
}
