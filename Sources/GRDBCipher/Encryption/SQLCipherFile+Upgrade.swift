import Foundation

/// What ``SQLCipherFile/upgrade(atPath:key:prepareLegacyConnection:)`` did.
public struct SQLCipherUpgradeReport: Sendable {
    /// How the file was brought to SQLCipher 4.
    public enum Method: String, Sendable {
        /// The file was already in the SQLCipher 4 format: nothing was written.
        case alreadyCurrent
        /// SQLCipher's `cipher_migrate` rewrote a copy of the file.
        case cipherMigrate
        /// The file was exported into a new SQLCipher 4 file (formats `cipher_migrate` cannot
        /// read, such as SQLCipher 2 files with a big-endian HMAC).
        case export
    }

    /// The SQLCipher major version the file had, when it was a standard format.
    public var previousFormat: Int?
    /// How the file was upgraded.
    public var method: Method
}

/// Test hooks: the upgrade calls it right before the new file replaces the old one.
enum UpgradeTestHooks {
    nonisolated(unsafe) static var beforeRename: (() -> Void)?
    /// Called with the path of the copy right before `cipher_migrate` runs on it.
    nonisolated(unsafe) static var beforeMigrate: ((String) -> Void)?
}

extension SQLCipherFile {
    /// Upgrades an SQLCipher 1, 2 or 3 database to the SQLCipher 4 format, in place, keeping the
    /// key.
    ///
    /// The work happens on a copy beside the file: `cipher_migrate` when the file is in a
    /// standard format, or an export when it is not (or when `cipher_migrate` fails). The
    /// result is verified (integrity, the same tables and row counts, opening with SQLCipher 4
    /// defaults) before it replaces the original; on any failure or crash the original is left
    /// as it was.
    ///
    /// Files in non-standard formats need `prepareLegacyConnection`, which receives a keyed
    /// connection to the old file and sets its settings (after the key). For example, SQLCipher
    /// 2.0 files written on a big-endian machine:
    ///
    /// ```swift
    /// try SQLCipherFile.upgrade(atPath: path, key: .passphrase(passphrase)) { db in
    ///     try db.execute(sql: "PRAGMA cipher_compatibility = 2; PRAGMA cipher_hmac_pgno = be")
    /// }
    /// ```
    @discardableResult
    public static func upgrade(
        atPath path: String,
        key: CipherKey,
        prepareLegacyConnection: (@Sendable (Database) throws -> Void)? = nil) throws -> SQLCipherUpgradeReport
    {
        // An interrupted transaction would hide the file from the key: roll it back first.
        try rollBackInterruptedTransaction(atPath: path)
        let info = try inspect(atPath: path, key: key)
        try info.requireSQLCipherDatabase(for: "upgrade")
        if info.sqlcipherFormat == 4 {
            // Nothing to do, if the file is sound: a damaged file is not "fine".
            try verifySQLCipher4File(path: path, key: key, info: info)
            return SQLCipherUpgradeReport(previousFormat: 4, method: .alreadyCurrent)
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        removeStaleTemporaryFiles(besidePath: url.path)

        if let format = info.sqlcipherFormat,
           let expected = try rowCounts(path: url.path, key: key, settings: CipherSettings(compatibility: format))
        {
            let temporary = try TemporaryFile.create(besidePath: url.path, purpose: "upgrade")
            defer { temporary.remove() }
            try temporary.takeOwner(of: url.path)
            if try migrateCopy(of: url.path, to: temporary, key: key, expectedRowCounts: expected) {
                try replace(url.path, with: temporary)
                return SQLCipherUpgradeReport(previousFormat: format, method: .cipherMigrate)
            }
            // The export below starts from a new file: the failed attempt's copy, and the
            // -migrated file SQLCipher may have left, go now.
            temporary.remove()
        }

        // Export: open the old file as the caller describes it (or in its detected format).
        var configuration = Configuration()
        configuration.readonly = true
        let format = info.sqlcipherFormat
        configuration.prepareDatabase { db in
            try db.use(key)
            if let prepareLegacyConnection {
                try prepareLegacyConnection(db)
            } else if let format {
                try db.applyCipherSettings(CipherSettings(compatibility: format))
            }
        }
        let source: DatabaseQueue
        do {
            source = try DatabaseQueue(path: url.path, configuration: configuration)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw DatabaseError(
                resultCode: .SQLITE_NOTADB,
                message: "upgrade: the key does not open the file in a standard SQLCipher format; give its settings in prepareLegacyConnection")
        }
        defer { try? source.close() }
        let temporary = try TemporaryFile.create(besidePath: url.path, purpose: "upgrade")
        defer { temporary.remove() }
        try temporary.takeOwner(of: url.path)
        var options = DatabaseExportOptions.encrypted(with: key, settings: .sqlcipher4)
        options.preservesPageSize = false
        try source.exportDatabase(into: temporary, options: options)
        try source.close()
        try replace(url.path, with: temporary)
        return SQLCipherUpgradeReport(previousFormat: format, method: .export)
    }

    /// Fails with `SQLITE_CORRUPT` unless the SQLCipher 4 file passes `integrity_check` and
    /// `cipher_integrity_check`.
    private static func verifySQLCipher4File(path: String, key: CipherKey, info: SQLCipherFileInfo) throws {
        if let reason = info.reason {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "upgrade: the file is in the SQLCipher 4 format, but \(reason)")
        }
        let db = try Database.openProbe(path: path)
        defer { try? db.close() }
        try db.use(key)
        let problems: [String]
        do {
            problems = try db.integrityAndCipherProblems()
        } catch let error as DatabaseError {
            problems = [error.message ?? "SQLite error \(error.resultCode.rawValue)"]
        }
        guard problems.isEmpty else {
            throw DatabaseError(
                resultCode: .SQLITE_CORRUPT,
                message: "upgrade: the file is in the SQLCipher 4 format, but it is damaged: \(problems.joined(separator: "; "))")
        }
    }

    /// Row counts of every table, read with `settings`; nil if the file does not open so.
    private static func rowCounts(path: String, key: CipherKey, settings: CipherSettings) throws -> [String: Int]? {
        let db = try Database.openProbe(path: path)
        defer { try? db.close() }
        try db.use(key, settings: settings)
        guard db.canReadSchema() else { return nil }
        return try contentFingerprint(db)
    }

    /// What must be the same before and after an upgrade: row counts and `user_version`.
    private static func contentFingerprint(_ db: Database) throws -> [String: Int] {
        var counts = try db.tableRowCounts()
        counts["pragma user_version"] = try db.pragmaInteger("PRAGMA user_version")
        return counts
    }

    /// Copies the file (and its WAL), runs `cipher_migrate` on the copy and verifies it with
    /// SQLCipher 4 defaults. Returns false when `cipher_migrate` cannot upgrade this file.
    private static func migrateCopy(of path: String, to temporary: TemporaryFile, key: CipherKey, expectedRowCounts: [String: Int]) throws -> Bool {
        let workPath = temporary.path
        try temporary.copyContents(of: path)
        if access(path + "-wal", F_OK) == 0 {
            try temporary.copyContents(of: path + "-wal", suffix: "-wal")
        }
        // SQLCipher writes the SQLCipher 4 pages into WORK-migrated first: created here, it
        // cannot be created with wider permissions.
        try temporary.createSidecar("-migrated")
        UpgradeTestHooks.beforeMigrate?(workPath)
        do {
            let db = try Database.openProbe(path: workPath, readonly: false)
            defer { try? db.close() }
            try db.use(key)
            // cipher_migrate must run right after the key; it answers "0" on success.
            guard try String.fetchOne(db, sql: "PRAGMA cipher_migrate") == "0" else { return false }
        } catch is DatabaseError {
            return false
        }
        // cipher_migrate renamed its -migrated file over the copy: a new file, to lock again.
        try temporary.relock()
        // One connection with SQLCipher 4 defaults checks everything: one key derivation.
        let db = try Database.openProbe(path: workPath)
        defer { try? db.close() }
        try db.use(key)
        guard db.canReadSchema() else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "upgrade: the migrated copy does not open with SQLCipher 4 settings")
        }
        guard try contentFingerprint(db) == expectedRowCounts else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "upgrade: the migrated copy does not hold the same rows as the original")
        }
        guard try db.integrityAndCipherProblems().isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "upgrade: the migrated copy fails its integrity checks")
        }
        return true
    }

    /// Syncs the new file, gives it the old one's permissions and renames it over the old one;
    /// the old file's journal files go.
    static func replace(_ path: String, with temporary: TemporaryFile) throws {
        try temporary.takeOwner(of: path)
        try temporary.takeMode(of: path)
        try fsyncPath(temporary.path)
        UpgradeTestHooks.beforeRename?()
        removeFileAndSidecars(path, keepingMainFile: true)
        removeFileAndSidecars(temporary.path, keepingMainFile: true)
        try temporary.move(to: path, replacing: true)
        try? fsyncPath(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }
}
