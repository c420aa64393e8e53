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
    /// try SQLCipherFile.upgrade(atPath: path, key: .passphrase("secret")) { db in
    ///     try db.execute(sql: "PRAGMA cipher_compatibility = 2; PRAGMA cipher_hmac_pgno = be")
    /// }
    /// ```
    @discardableResult
    public static func upgrade(
        atPath path: String,
        key: CipherKey,
        prepareLegacyConnection: (@Sendable (Database) throws -> Void)? = nil) throws -> SQLCipherUpgradeReport
    {
        let info = try inspect(atPath: path, key: key)
        try info.requireSQLCipherDatabase(for: "upgrade")
        if info.sqlcipherFormat == 4 {
            return SQLCipherUpgradeReport(previousFormat: 4, method: .alreadyCurrent)
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let workPath = url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".grdbcipher-upgrade"
        removeFileAndSidecars(workPath)
        defer { removeFileAndSidecars(workPath) }

        if let format = info.sqlcipherFormat,
           let expected = try rowCounts(path: url.path, key: key, settings: CipherSettings(compatibility: format)),
           try migrateCopy(of: url.path, to: workPath, key: key, expectedRowCounts: expected)
        {
            try replace(url.path, with: workPath)
            return SQLCipherUpgradeReport(previousFormat: format, method: .cipherMigrate)
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
        var options = DatabaseExportOptions.encrypted(with: key, settings: .sqlcipher4)
        options.preservesPageSize = false
        try source.exportDatabase(to: workPath, options: options)
        try source.close()
        try replace(url.path, with: workPath)
        return SQLCipherUpgradeReport(previousFormat: format, method: .export)
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
    private static func migrateCopy(of path: String, to workPath: String, key: CipherKey, expectedRowCounts: [String: Int]) throws -> Bool {
        try FileManager.default.copyItem(atPath: path, toPath: workPath)
        if FileManager.default.fileExists(atPath: path + "-wal") {
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: workPath + "-wal")
        }
        do {
            let db = try Database.openProbe(path: workPath, readonly: false)
            defer { try? db.close() }
            try db.use(key)
            // cipher_migrate must run right after the key; it answers "0" on success.
            guard try String.fetchOne(db, sql: "PRAGMA cipher_migrate") == "0" else { return false }
        } catch is DatabaseError {
            return false
        }
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

    /// Syncs the new file and renames it over the old one; the old file's journal files go.
    static func replace(_ path: String, with workPath: String) throws {
        try fsyncPath(workPath)
        UpgradeTestHooks.beforeRename?()
        removeFileAndSidecars(path, keepingMainFile: true)
        removeFileAndSidecars(workPath, keepingMainFile: true)
        guard rename(workPath, path) == 0 else {
            throw DatabaseError(resultCode: .SQLITE_IOERR, message: "upgrade: cannot rename the new file into place: \(String(cString: strerror(errno)))")
        }
        try? fsyncPath(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }
}
