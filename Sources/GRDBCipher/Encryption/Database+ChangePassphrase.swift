import CSQLCipher
import Foundation

extension Database {
    /// Changes the passphrase of the database: every page is re-encrypted with the new key.
    ///
    /// As in GRDB, call it from a write access:
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     try db.changePassphrase(newPassphrase)
    /// }
    /// ```
    ///
    /// Then make sure `prepareDatabase` gives the new passphrase to connections opened later.
    ///
    /// Beyond what SQLCipher's `PRAGMA rekey` does, this method:
    /// - refuses to run when the current transaction has already written something, because
    ///   SQLCipher would commit those changes as part of the re-key (throws `SQLITE_MISUSE`, and
    ///   the changes stay uncommitted);
    /// - refuses read-only connections (`SQLITE_READONLY`), plaintext and in-memory databases
    ///   (`SQLITE_MISUSE`);
    /// - takes an exclusive lock first, so that a re-key that another connection would silently
    ///   prevent fails with `SQLITE_BUSY` instead, the old passphrase still valid;
    /// - refuses a damaged file (`SQLITE_CORRUPT`, found by `cipher_integrity_check`), which
    ///   SQLCipher would stop re-keying at the first bad page while reporting success;
    /// - verifies the result by reading the file with the new key from a fresh connection.
    ///
    /// Related SQLCipher documentation: <https://www.zetetic.net/sqlcipher/sqlcipher-api/#rekey>
    public func changePassphrase(_ passphrase: String) throws {
        try changeKey(.passphrase(passphrase))
    }

    /// Changes the passphrase of the database, given as bytes.
    public func changePassphrase(_ passphrase: Data) throws {
        try changeKey(.passphrase(passphrase))
    }

    /// Changes the key of the database: a passphrase or a raw key. See
    /// ``changePassphrase(_:)-(String)`` for what is checked.
    public func changeKey(_ newKey: CipherKey) throws {
        var keyBytes = try newKey.keyBytes()
        defer { wipe(&keyBytes) }
        try changeKey(keyText: keyBytes)
    }

    /// Changes the key to the bytes `sqlite3_rekey` takes (a passphrase, or `x'…'`).
    func changeKey(keyText keyBytes: [UInt8]) throws {
        preconditionValidAccess()
        func refuse(_ code: ResultCode, _ message: String) -> DatabaseError {
            DatabaseError(resultCode: code, message: "changePassphrase: \(message)")
        }
        guard isEncrypted else {
            throw refuse(.SQLITE_MISUSE, "the database is not encrypted; to encrypt a plaintext database, export it to a new encrypted file (exportDatabase)")
        }
        guard !configuration.readonly, sqlite3_db_readonly(handle, "main") != 1 else {
            throw refuse(.SQLITE_READONLY, "the connection is read-only")
        }
        guard !isInMemory else {
            throw refuse(.SQLITE_MISUSE, "an in-memory database has no file to re-encrypt")
        }
        if isInsideTransaction && transactionHasWrites {
            throw refuse(.SQLITE_MISUSE, "the current transaction has uncommitted changes, which SQLCipher would commit as part of the re-key; commit or roll them back first")
        }
        var settings = try currentCipherSettings()
        settings.compatibility = nil

        // Nothing was written in the current transaction, if any: ending it loses nothing.
        let wasInTransaction = isInsideTransaction
        if wasInTransaction {
            try executeInternal("COMMIT TRANSACTION")
        }
        defer {
            if wasInTransaction && !isInsideTransaction {
                // Give the caller back the transaction it had, so that its commit succeeds.
                try? beginTransaction(.deferred)
            }
        }

        // cipher_integrity_check reads the database file itself: in the WAL mode, pages still in
        // the WAL would look damaged. Fold the WAL first; if another connection keeps it from
        // folding completely, skip that check (the verification below still catches a re-key
        // that SQLCipher did not complete).
        let fileIsComplete = try foldWAL()

        do {
            try executeInternal("BEGIN EXCLUSIVE TRANSACTION")
        } catch let error as DatabaseError {
            throw refuse(error.extendedResultCode, "another connection is using the database, and the passphrase was not changed (\(error.message ?? "locked"))")
        }
        // SQLCipher stops a re-key at the first page it cannot decrypt, and reports success.
        // Look for damage first, while the exclusive lock keeps the file as it is.
        let damage = fileIsComplete ? cipherIntegrityCheckRows() : []
        if let readError = damage.first(where: { $0.hasPrefix("error reading") }) {
            // The check could not read the file: an I/O error, not damage.
            try? rollback()
            throw refuse(.SQLITE_IOERR_READ, "the file could not be read (cipher_integrity_check: \(readError)); the passphrase was not changed")
        }
        if !damage.isEmpty {
            try? rollback()
            throw refuse(.SQLITE_CORRUPT, "the file is damaged (cipher_integrity_check: \(damage.prefix(3).joined(separator: "; "))); the passphrase was not changed")
        }
        // The first page as the file holds it: a committed re-key of a rollback-journal file
        // rewrites it (a new IV), which tells a re-key that happened from one SQLCipher rolled
        // back, whatever the keys (see below).
        let firstPageBefore = fileIsComplete ? firstPageBytes() : nil
        let code = keyBytes.withUnsafeBytes { sqlite3_rekey(handle, $0.baseAddress, CInt($0.count)) }
        if code != SQLITE_OK {
            let error = makeDatabaseError(code, handle)
            try? rollback()
            throw refuse(error.extendedResultCode, error.message ?? "re-key failed")
        }
        if isInsideTransaction {
            try executeInternal("COMMIT TRANSACTION")
        }
        do {
            try verifyKey(keyBytes, settings: settings)
        } catch let error as DatabaseError
            where error.resultCode == .SQLITE_NOTADB && firstPageBefore != nil
                && firstPageBytes() == firstPageBefore && cipherIntegrityCheckRows().isEmpty
        {
            // SQLCipher stops a re-key at a page it cannot read (an I/O error), rolls it back,
            // and reports success. The file's first page is as it was (a committed re-key of a
            // rollback-journal file rewrites it; in the WAL mode, it leaves the file's pages
            // under the old key, which the check below reads with the new one and rejects),
            // and every page authenticates: the re-key did not happen. This connection's codec
            // is left with the new key for writing: it cannot be used any longer.
            throw refuse(.SQLITE_IOERR, "the re-key did not complete (SQLCipher could not read the file, and rolled the re-key back): the passphrase was not changed, and this connection can no longer use the database: close it and open the database again (\(error.message ?? "verification failed"))")
        }
        // A pool's derived key is the old one now.
        cipherKeying.keyCache?.wipeKey()
    }

    /// The bytes of the file's first page, read beside SQLite; nil when they cannot be read.
    private func firstPageBytes() -> Data? {
        guard let pageSize = try? Int.fetchOne(self, sql: "PRAGMA main.page_size"),
              let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        return try? file.read(upToCount: pageSize)
    }

    /// Reads the database file with `keyBytes` from a fresh connection.
    /// A failed read is tried once more, on a new connection: SQLCipher reads the salt once per
    /// connection and turns a failed read (an I/O error) into "not a database".
    private func verifyKey(_ keyBytes: [UInt8], settings: CipherSettings) throws {
        func opens() throws -> Bool {
            let probe = try Database.openProbe(path: path)
            defer { try? probe.close() }
            try probe.probeKey(keyBytes)
            try probe.applyCipherSettings(settings)
            return probe.canReadSchema()
        }
        guard try opens() || opens() else {
            throw DatabaseError(
                resultCode: .SQLITE_NOTADB,
                message: "changePassphrase: the re-key could not be verified: the file does not open with the new key")
        }
    }

    /// Whether the main database lives in memory.
    var isInMemory: Bool {
        path.isEmpty || path == ":memory:" || path.contains("mode=memory")
    }
}

extension DatabaseWriter {
    /// Changes the passphrase in one call, outside of any other access: the same checks and
    /// verification as ``Database/changePassphrase(_:)-(String)``.
    ///
    /// ```swift
    /// try dbPool.changePassphrase(newPassphrase)
    /// ```
    ///
    /// On a ``DatabasePool``, it waits for the reads in progress to end and holds new ones
    /// (`barrierWriteWithoutTransaction`), then closes the read-only connections, which still
    /// use the old key (`invalidateReadOnlyConnections`): later reads open new connections,
    /// whose `prepareDatabase` must give the new passphrase.
    public func changePassphrase(_ passphrase: String) throws {
        try changeKeyOutsideOfAccesses(.passphrase(passphrase))
    }

    /// Changes the passphrase, given as bytes, in one call.
    public func changePassphrase(_ passphrase: Data) throws {
        try changeKeyOutsideOfAccesses(.passphrase(passphrase))
    }

    /// Changes the key, a passphrase or a raw key, in one call.
    public func changeKey(_ key: CipherKey) throws {
        try changeKeyOutsideOfAccesses(key)
    }

    private func changeKeyOutsideOfAccesses(_ key: CipherKey) throws {
        try withRekeyBarrier { db in try db.changeKey(key) }
    }

    /// Runs `rekey` outside of any other access: writes wait, and on a ``DatabasePool`` new
    /// reads too, whose read-only connections (keyed with the old key) are closed before the
    /// barrier ends, so that later reads open connections with the key `prepareDatabase`
    /// gives then.
    func withRekeyBarrier<T>(_ rekey: (Database) throws -> T) throws -> T {
        if let pool = self as? DatabasePool {
            return try pool.barrierWriteWithoutTransaction { db in
                // Inside the barrier, so that no read gets a connection with the old key. Even
                // after a failure: a new connection costs little.
                defer { pool.invalidateReadOnlyConnections() }
                return try rekey(db)
            }
        }
        return try barrierWriteWithoutTransaction(rekey)
    }
}
