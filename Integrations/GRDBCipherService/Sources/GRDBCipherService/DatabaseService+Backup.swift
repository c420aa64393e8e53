import Foundation
import GRDBCipher

/// What ``DatabaseService/backup(to:)`` wrote.
public struct DatabaseBackupReport: Sendable, Codable {
    /// The backup file.
    public var path: String
    /// Its size in pages and in bytes.
    public var pageCount: Int
    public var byteCount: Int
    /// Whether it is encrypted: it always is when the database is.
    public var isEncrypted: Bool
    /// How long the copy and its verification took, in seconds.
    public var seconds: Double
}

extension DatabaseService {
    /// Copies the database, while it serves, into a new file at `path`, encrypted with the
    /// database's own key, then verifies it.
    ///
    /// The copy is one consistent state of the database (a read transaction of a reader: the
    /// writer goes on meanwhile). It is written beside `path`, checked (`integrity_check`,
    /// and `cipher_integrity_check` when encrypted), synced, and only then renamed to `path`:
    /// a failure leaves no file at `path`. An existing file at `path` is never replaced.
    ///
    /// A backup of a keyring-keyed database opens with the keyring's data key of the day of the
    /// backup: keep a copy of the keyring file with the backups when you rotate data keys.
    ///
    /// ```swift
    /// let report = try await database.backup(to: "/var/backups/notes/notes-2026-11-28.db")
    /// ```
    @discardableResult
    public func backup(to path: String) async throws -> DatabaseBackupReport {
        let start = ContinuousClock.now
        guard !FileManager.default.fileExists(atPath: path) else {
            throw DatabaseServiceError.backupExists(path)
        }
        let partial = Self.sidePath(path, "partial")
        defer { Self.removeDatabaseFiles(partial) }
        let configuration = connectionConfiguration
        let encrypted = Self.fileIsEncrypted(self.path)
        do {
            try await writer.read { source in
                let destination = try DatabaseQueue(path: partial, configuration: configuration)
                try destination.writeWithoutTransaction { try source.backup(to: $0) }
                try destination.close()
            }
        } catch {
            if let error = error as? DatabaseError { metrics.recordError(error) }
            throw error
        }
        let pageCount = try Self.verifyCopy(at: partial, configuration: configuration, encrypted: encrypted)
        try Self.moveIntoPlace(partial, path)
        let byteCount = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
        let duration = start.duration(to: .now)
        let report = DatabaseBackupReport(
            path: path, pageCount: pageCount, byteCount: byteCount, isEncrypted: encrypted,
            seconds: Double(duration.nanoseconds) / 1e9)
        logger.info("database backed up", metadata: [
            "backup": "\(path)", "pages": "\(pageCount)", "encrypted": "\(encrypted)",
        ])
        return report
    }

    /// Replaces the database at `path` with the backup at `backupPath`, with the service
    /// stopped: no process may have the database open.
    ///
    /// The backup must open with `key` (for a keyring, the database's keyring unlocks it) and
    /// pass `integrity_check` and `cipher_integrity_check`. It is then copied beside the
    /// database, the copy is verified and synced, the current database files are moved aside
    /// (to `<path>.replaced-<date>` and its `-wal`, kept for you to delete), and the copy is
    /// renamed to `path`. A failure at any step before the last rename leaves the database as
    /// it was.
    ///
    /// ```swift
    /// try DatabaseService.restore(
    ///     backupAt: "/var/backups/notes/notes-2026-11-28.db",
    ///     to: "/var/lib/notes/notes.db",
    ///     key: .keyring(.credential("notes-db-key")))
    /// ```
    ///
    /// - returns: where the replaced database files were moved, if there was a database.
    @discardableResult
    public static func restore(
        backupAt backupPath: String,
        to path: String,
        key: DatabaseServiceKey,
        configure: (inout Configuration) -> Void = { _ in }) throws -> String?
    {
        guard FileManager.default.fileExists(atPath: backupPath) else {
            throw DatabaseServiceError.fileSystem("open \(backupPath)", ENOENT)
        }
        let (configuration, keyring) = try keyedConfiguration(path: path, key: key, configure: configure)
        defer { keyring?.forget() }
        let encrypted = fileIsEncrypted(backupPath)
        let source = try DatabaseQueue(path: backupPath, configuration: configuration)
        _ = try verifyCopy(at: backupPath, configuration: configuration, encrypted: encrypted, reader: source)
        let restoring = sidePath(path, "restoring")
        defer { removeDatabaseFiles(restoring) }
        do {
            let destination = try DatabaseQueue(path: restoring, configuration: configuration)
            try source.backup(to: destination)
            try destination.close()
            try source.close()
        }
        _ = try verifyCopy(at: restoring, configuration: configuration, encrypted: encrypted)
        var replaced: String?
        if FileManager.default.fileExists(atPath: path) {
            let aside = path + ".replaced-" + timestamp()
            for suffix in ["-wal", "-shm", ""] where FileManager.default.fileExists(atPath: path + suffix) {
                try rename(path + suffix, aside + suffix)
            }
            replaced = aside
        }
        try moveIntoPlace(restoring, path)
        return replaced
    }

    /// Opens the copy at `path` and checks it; returns its page count.
    private static func verifyCopy(
        at path: String,
        configuration: Configuration,
        encrypted: Bool,
        reader: DatabaseQueue? = nil) throws -> Int
    {
        let queue = try reader ?? DatabaseQueue(path: path, configuration: configuration)
        guard fileIsEncrypted(path) == encrypted else {
            throw DatabaseServiceError.backupNotVerified(path, encrypted ? "the copy is not encrypted" : "the copy is encrypted")
        }
        return try queue.writeWithoutTransaction { db in
            let check = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            guard check == ["ok"] else {
                throw DatabaseServiceError.backupNotVerified(path, "integrity_check: \(check.prefix(3).joined(separator: "; "))")
            }
            if encrypted {
                let problems = try db.cipherIntegrityProblems()
                guard problems.isEmpty else {
                    throw DatabaseServiceError.backupNotVerified(path, "cipher_integrity_check: \(problems.prefix(3).joined(separator: "; "))")
                }
            }
            return try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        }
    }

    /// Whether the file at `path` does not start with the header of a plaintext SQLite
    /// database (an encrypted file starts with its salt, or is all ciphertext).
    static func fileIsEncrypted(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return header.count == 16 && header != Data("SQLite format 3\u{0}".utf8)
    }

    /// A path beside `path` for a file in the making.
    private static func sidePath(_ path: String, _ purpose: String) -> String {
        "\(path).\(purpose)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    private static func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: Date())
    }

    /// Removes a database file and its companions, if present.
    private static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            unlink(path + suffix)
        }
    }

    /// Syncs `source`, renames it to `destination` (never over an existing file when
    /// `destination` is a backup: the caller checked), and syncs the directory.
    private static func moveIntoPlace(_ source: String, _ destination: String) throws {
        try sync(source)
        try rename(source, destination)
        try sync(URL(fileURLWithPath: destination).deletingLastPathComponent().path)
    }

    private static func rename(_ source: String, _ destination: String) throws {
        guard Foundation.rename(source, destination) == 0 else {
            throw DatabaseServiceError.fileSystem("rename to \(destination)", errno)
        }
    }

    private static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw DatabaseServiceError.fileSystem("open \(path)", errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw DatabaseServiceError.fileSystem("fsync \(path)", errno) }
    }
}
