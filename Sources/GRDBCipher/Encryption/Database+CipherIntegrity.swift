import CSQLCipher

extension Database {
    /// Checks the encrypted pages of the main database with SQLCipher's
    /// `PRAGMA cipher_integrity_check` (each page's HMAC), and returns the problems found; an
    /// empty array means every page is intact. Our addition to GRDB's API.
    ///
    /// `cipher_integrity_check` reads the database file itself: in the WAL mode, the WAL is
    /// first folded into the file (a `TRUNCATE` checkpoint, which changes no content). When
    /// another connection keeps it from folding completely, the check throws `SQLITE_BUSY`
    /// rather than report pages as damaged.
    ///
    /// ```swift
    /// let problems = try dbQueue.writeWithoutTransaction { try $0.cipherIntegrityProblems() }
    /// ```
    ///
    /// Related SQLCipher documentation: <https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_integrity_check>
    public func cipherIntegrityProblems() throws -> [String] {
        guard try foldWAL() else {
            throw DatabaseError(
                resultCode: .SQLITE_BUSY,
                message: "cipher_integrity_check: another connection keeps the WAL from folding into the database file")
        }
        return cipherIntegrityCheckRows()
    }

    /// Folds the WAL into the database file, if the database is in the WAL mode. Returns false
    /// when another connection kept it from folding completely.
    func foldWAL() throws -> Bool {
        guard try String.fetchOne(self, sql: "PRAGMA main.journal_mode")?.lowercased() == "wal" else { return true }
        var logFrames: CInt = 0
        var checkpointedFrames: CInt = 0
        let code = sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_TRUNCATE, &logFrames, &checkpointedFrames)
        return code == SQLITE_OK && logFrames == checkpointedFrames
    }

    /// The problems `cipher_integrity_check` reports, without its note about databases without
    /// HMAC; an error running it is a problem too.
    func cipherIntegrityCheckRows() -> [String] {
        do {
            return try String.fetchAll(self, sql: "PRAGMA main.cipher_integrity_check")
                .filter { !$0.hasPrefix("HMAC is not enabled") }
        } catch let error as DatabaseError {
            return [error.message ?? "unreadable"]
        } catch {
            return ["\(error)"]
        }
    }
}
