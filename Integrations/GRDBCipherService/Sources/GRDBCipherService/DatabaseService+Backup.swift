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
        let encrypted: Bool
        do {
            encrypted = try await writer.read { source in
                let destination = try DatabaseQueue(path: partial, configuration: configuration)
                try destination.writeWithoutTransaction { try source.backup(to: $0) }
                try destination.close()
                return try source.cipherProvider != nil
            }
        } catch {
            if let error = error as? DatabaseError { metrics.recordError(error) }
            throw error
        }
        let pageCount = try Self.verifyCopy(at: partial, configuration: configuration, encrypted: encrypted)
        try Self.sync(partial)
        // link(2) fails when a file appeared at `path` meanwhile: a backup never replaces one.
        guard link(partial, path) == 0 else {
            if errno == EEXIST { throw DatabaseServiceError.backupExists(path) }
            throw DatabaseServiceError.fileSystem("link to \(path)", errno)
        }
        try Self.sync(Self.directory(of: path))
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
    /// The backup is copied beside the database, and the copy must open with `key` (for a
    /// keyring, the database's keyring unlocks it) and pass `integrity_check` and
    /// `cipher_integrity_check`; the backup itself is only read. The copy is synced; then the
    /// current database files are moved aside (to `<path>.replaced-<date>` and its `-wal`,
    /// kept for you to delete), and the copy is renamed to `path`. A failure at any step leaves
    /// the database as it was: moves already made are undone. A database some process has
    /// open is refused (`SQLITE_BUSY`).
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
        if let size = (try? FileManager.default.attributesOfItem(atPath: backupPath + "-wal"))?[.size] as? Int, size > 0 {
            throw DatabaseServiceError.backupNotVerified(backupPath, "it has a WAL beside it, still open or not closed cleanly")
        }
        let (configuration, keyring) = try keyedConfiguration(path: path, key: key, configure: configure)
        defer { keyring?.forget() }
        let restoring = sidePath(path, "restoring")
        defer { removeDatabaseFiles(restoring) }
        do {
            try FileManager.default.copyItem(atPath: backupPath, toPath: restoring)
        } catch {
            throw DatabaseServiceError.fileSystem("copy \(backupPath) to \(restoring)", EIO)
        }
        let encrypted = if case .keyring = key.kind { true } else { try isKeyed(restoring, configuration) }
        _ = try verifyCopy(at: restoring, configuration: configuration, encrypted: encrypted)
        try refuseIfInUse(path, configuration: configuration)
        try sync(restoring)

        let aside = path + ".replaced-" + timestamp()
        var moved: [(from: String, to: String)] = []
        do {
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try rename(path + suffix, aside + suffix)
                moved.append((path + suffix, aside + suffix))
            }
            try rename(restoring, path)
        } catch {
            for move in moved.reversed() {
                _ = Foundation.rename(move.to, move.from)
            }
            throw error
        }
        try sync(directory(of: path))
        return moved.isEmpty ? nil : aside
    }

    /// Whether the database at `path` opens keyed with `configuration`.
    private static func isKeyed(_ path: String, _ configuration: Configuration) throws -> Bool {
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.inDatabase { try $0.cipherProvider != nil }
    }

    /// Throws `SQLITE_BUSY` when a connection has the database at `path` open. A database that
    /// does not open (damaged, the reason for the restore) is not in use by a service.
    private static func refuseIfInUse(_ path: String, configuration: Configuration) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        var configuration = configuration
        configuration.busyMode = .immediateError
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            try queue.writeWithoutTransaction { db in
                // Exclusive locking: the first transaction takes the file for this connection
                // alone, which fails while another connection has it open.
                try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "COMMIT")
            }
        } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) {
            throw DatabaseError(
                resultCode: error.resultCode,
                message: "the database at \(path) is in use: stop the service before restoring")
        } catch {
            return
        }
    }

    /// Opens the copy at `path` and checks it; returns its page count.
    private static func verifyCopy(at path: String, configuration: Configuration, encrypted: Bool) throws -> Int {
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.writeWithoutTransaction { db in
            guard (try db.cipherProvider != nil) == encrypted else {
                throw DatabaseServiceError.backupNotVerified(path, encrypted ? "the copy is not encrypted" : "the copy is encrypted")
            }
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

    /// A path beside `path` for a file in the making.
    private static func sidePath(_ path: String, _ purpose: String) -> String {
        "\(path).\(purpose)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    private static func directory(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
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
