import Foundation

extension SQLCipherFile {
    /// Re-encrypts an SQLCipher database with a new key, in place, keeping its cipher settings.
    /// Our addition to GRDB's API, for tools that work on files (`grdbcipher rekey`).
    ///
    /// Unlike ``Database/changePassphrase(_:)-(String)``, which re-keys the pages of the open
    /// file, the file is exported beside itself with the new key, verified (integrity, the same
    /// tables and row counts, opening with the new key), and renamed over the original, whose
    /// mode, owner and group it keeps. A failure or a crash at any point leaves the original
    /// file as it was. The WAL, if any, is folded into the file first, and an interrupted
    /// transaction (a hot journal) rolled back; no other connection may use the file meanwhile.
    ///
    /// `settings` describes a file that is not in a standard SQLCipher format (1 to 4); the
    /// standard formats are found without it.
    ///
    /// ```swift
    /// try SQLCipherFile.rekey(atPath: path, key: .passphrase(oldPassphrase), newKey: .passphrase(newPassphrase))
    /// ```
    public static func rekey(
        atPath path: String,
        key: CipherKey,
        newKey: CipherKey,
        settings inputSettings: CipherSettings? = nil,
        progress: (@Sendable (DatabaseExportProgress) -> Void)? = nil) throws
    {
        // An interrupted transaction would hide the file from the key: roll it back first, as
        // the read-write connection below would.
        try rollBackInterruptedTransaction(atPath: path)
        let info = try inspect(atPath: path, key: key, settings: inputSettings)
        try info.requireSQLCipherDatabase(for: "rekey")
        guard info.keyOpensFile == true, var settings = info.settings else {
            throw DatabaseError(resultCode: .SQLITE_NOTADB, message: "rekey: the key does not open the file (wrong key, or not an SQLCipher database)")
        }
        if let reason = info.reason {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "rekey: \(reason); the key was not changed")
        }
        let openSettings = inputSettings ?? info.sqlcipherFormat.map { CipherSettings(compatibility: $0) } ?? settings
        // The new file repeats the settings in effect, not a compatibility level.
        settings.compatibility = nil

        let url = URL(fileURLWithPath: path).standardizedFileURL
        removeStaleTemporaryFiles(besidePath: url.path)
        let temporary = try TemporaryFile.create(besidePath: url.path, purpose: "rekey")
        defer { temporary.remove() }
        try temporary.takeOwner(of: url.path)

        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.use(key, settings: openSettings) }
        let dbQueue = try DatabaseQueue(path: url.path, configuration: configuration)
        do {
            let folded = try dbQueue.writeWithoutTransaction { try $0.foldWAL() }
            guard folded else {
                throw DatabaseError(resultCode: .SQLITE_BUSY, message: "rekey: another connection is using the database; the key was not changed")
            }
            var options = DatabaseExportOptions.encrypted(with: newKey, settings: settings)
            options.progress = progress
            try dbQueue.exportDatabase(into: temporary, options: options)
            try dbQueue.close()
        } catch {
            try? dbQueue.close()
            throw error
        }
        try replace(url.path, with: temporary)
    }
}
