import Foundation

extension SQLCipherFile {
    /// What ``encryptInPlace(atPath:key:settings:)`` found and did.
    public enum InPlaceEncryption: String, Sendable {
        /// The file was a plaintext database: it is now encrypted with the key.
        case encrypted
        /// The file was already encrypted with the key: it was left as it was.
        case alreadyEncrypted
        /// There was no file: the first connection will create an encrypted database.
        case noDatabase
    }

    /// Encrypts a plaintext database in place with `key`, unless it is already encrypted with
    /// it. Our addition to GRDB's API, for a service that moves its database from plaintext to
    /// encrypted in a release: call it at startup, before opening the database and running
    /// its ``DatabaseMigrator``.
    ///
    /// The plaintext file is exported beside itself with the key (its WAL folded in first),
    /// the copy is verified (integrity, the same tables and row counts, `user_version`,
    /// application id — `grdb_migrations` is a table like the others), synced, and renamed over
    /// the original. A failure or a crash at any point leaves either the plaintext file or the
    /// encrypted one, never neither. No other connection may use the file meanwhile.
    ///
    /// A file encrypted with another key or other settings, a damaged file, or a file that is
    /// not a database is a thrown error, and the file is left untouched.
    ///
    /// ```swift
    /// let key = CipherKey.passphrase(try loadPassphrase())
    /// try SQLCipherFile.encryptInPlace(atPath: path, key: key)
    /// var config = Configuration()
    /// config.prepareDatabase { db in try db.usePassphrase(try loadPassphrase()) }
    /// let dbPool = try DatabasePool(path: path, configuration: config)
    /// try migrator.migrate(dbPool)
    /// ```
    @discardableResult
    public static func encryptInPlace(
        atPath path: String,
        key: CipherKey,
        settings: CipherSettings = CipherSettings()) throws -> InPlaceEncryption
    {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        guard FileManager.default.fileExists(atPath: url.path) else { return .noDatabase }
        // An interrupted transaction would hide what the file is: roll it back first, as any
        // read-write connection would.
        try rollBackInterruptedTransaction(atPath: url.path)
        let info = try inspect(atPath: url.path, key: key, settings: settings)
        switch info.content {
        case .notADatabase:
            throw DatabaseError(
                resultCode: .SQLITE_NOTADB,
                message: "encrypt in place: the file is not a database\(info.reason.map { " (\($0))" } ?? ""); it was left untouched")
        case .encrypted:
            guard info.keyOpensFile == true else {
                throw DatabaseError(
                    resultCode: .SQLITE_NOTADB,
                    message: "encrypt in place: the file is encrypted, and the key does not open it (another key, or other cipher settings); it was left untouched")
            }
            if let reason = info.reason {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "encrypt in place: \(reason); the file was left untouched")
            }
            return .alreadyEncrypted
        case .plaintext, .empty:
            if let reason = info.reason {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "encrypt in place: \(reason); the file was left untouched")
            }
        }

        removeStaleTemporaryFiles(besidePath: url.path)
        let temporary = try TemporaryFile.create(besidePath: url.path, purpose: "encrypt")
        defer { temporary.remove() }
        // The encrypted file keeps the plaintext file's owner, group and mode.
        try temporary.takeOwner(of: url.path)
        let dbQueue = try DatabaseQueue(path: url.path)
        do {
            let folded = try dbQueue.writeWithoutTransaction { try $0.foldWAL() }
            guard folded else {
                throw DatabaseError(resultCode: .SQLITE_BUSY, message: "encrypt in place: another connection is using the database; it was left untouched")
            }
            let problems = try dbQueue.read { try $0.integrityProblems() }
            guard problems.isEmpty else {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "encrypt in place: the database is damaged (\(problems.count) integrity problem\(problems.count == 1 ? "" : "s")); it was left untouched")
            }
            try dbQueue.exportDatabase(into: temporary, options: .encrypted(with: key, settings: settings))
            try dbQueue.close()
        } catch {
            try? dbQueue.close()
            throw error
        }
        try replace(url.path, with: temporary)
        return .encrypted
    }
}
