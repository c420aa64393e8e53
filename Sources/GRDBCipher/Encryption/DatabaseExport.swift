import CSQLCipher
import Foundation

/// How ``DatabaseReader/exportDatabase(to:options:)`` writes its new file.
///
/// ```swift
/// // Encrypt a plaintext database:
/// try plainQueue.exportDatabase(to: encryptedPath, options: .encrypted(with: .passphrase(passphrase)))
/// // Decrypt:
/// try encryptedQueue.exportDatabase(to: plainPath, options: .plaintext)
/// // Re-encrypt with SQLCipher 4 settings and a new passphrase:
/// try v3Queue.exportDatabase(to: v4Path, options: .encrypted(with: .passphrase(newPassphrase), settings: .sqlcipher4))
/// ```
public struct DatabaseExportOptions: Sendable {
    /// The key of the new file; nil for a plaintext file.
    public var key: CipherKey?
    /// The cipher settings of the new file, when it is encrypted. Empty settings mean SQLCipher 4
    /// defaults, so that the new file opens with its key alone.
    public var cipherSettings: CipherSettings
    /// Whether an existing file at the target path may be replaced. Default: false.
    public var replacesExistingFile = false
    /// Whether a new plaintext file keeps the source's page size. Default: true.
    ///
    /// An encrypted file's page size is a cipher setting that every connection to it must
    /// repeat: the page size of an encrypted target is the one of ``cipherSettings`` (SQLCipher's
    /// default when it sets none), whatever the source's.
    public var preservesPageSize = true
    /// Whether the new file keeps the source's auto_vacuum mode. Default: true.
    public var preservesAutoVacuum = true
    /// Whether the new file keeps the source's journal mode (WAL or not). Default: true.
    public var preservesJournalMode = true
    /// Called on the exporting connection's queue as pages are written.
    public var progress: (@Sendable (DatabaseExportProgress) -> Void)?

    /// Options for an encrypted file (`key` non-nil) or a plaintext file (`key` nil).
    public init(key: CipherKey?, cipherSettings: CipherSettings = CipherSettings()) {
        self.key = key
        self.cipherSettings = cipherSettings
    }

    /// A new file encrypted with `key` and `settings`.
    public static func encrypted(with key: CipherKey, settings: CipherSettings = CipherSettings()) -> DatabaseExportOptions {
        DatabaseExportOptions(key: key, cipherSettings: settings)
    }

    /// A new plaintext file.
    public static var plaintext: DatabaseExportOptions {
        DatabaseExportOptions(key: nil)
    }
}

/// Progress of an export, in pages of the source database.
public struct DatabaseExportProgress: Sendable, Equatable {
    /// Pages written so far (an estimate from the size of the new file).
    public var completedPageCount: Int
    /// Pages to write.
    public var totalPageCount: Int
}

/// What an export wrote, as verified once it was done.
public struct DatabaseExportReport: Sendable {
    /// The path of the new file.
    public var path: String
    /// The number of tables, and of rows in all tables, in the new file (same as the source).
    public var tableCount: Int
    /// The number of rows in all tables of the new file.
    public var rowCount: Int
    /// The page size and page count of the new file.
    public var pageSize: Int
    /// The number of pages of the new file.
    public var pageCount: Int
}

extension DatabaseReader {
    /// Writes the whole database into a new file: plaintext to encrypted, encrypted to
    /// plaintext, or encrypted again with another key or other settings (SQLCipher 3 to 4, say).
    ///
    /// The source is only read. The new file is written beside the target under a temporary
    /// name, then verified (`integrity_check`, `cipher_integrity_check`, the same tables with the
    /// same row counts, `user_version` and `application_id`), synced, and renamed into place: a
    /// failure or a crash at any point leaves no partial file at the target path. An existing
    /// target is an error unless ``DatabaseExportOptions/replacesExistingFile`` is set.
    ///
    /// Unlike a bare `sqlcipher_export`, it also copies `user_version`, `application_id`, and
    /// (unless told otherwise) the page size, auto_vacuum and journal mode.
    ///
    /// Related SQLCipher documentation: <https://www.zetetic.net/sqlcipher/sqlcipher-api/#sqlcipher_export>
    @discardableResult
    public func exportDatabase(to targetPath: String, options: DatabaseExportOptions) throws -> DatabaseExportReport {
        try withExportingDatabase { db in
            try DatabaseExporter(source: db, targetPath: targetPath, options: options).run()
        }
    }

    /// Exports into a temporary file of ours, which is not renamed: rekey and upgrade rename
    /// it themselves.
    func exportDatabase(into temporary: TemporaryFile, options: DatabaseExportOptions) throws {
        _ = try withExportingDatabase { db in
            try DatabaseExporter(source: db, targetPath: temporary.path, options: options).write(into: temporary)
        }
    }

    /// Runs `body` on a connection that can attach a new file.
    private func withExportingDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        if configuration.readonly || self is DatabasePool, !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") {
            // A read-only connection (a read-only configuration, or a pool's reader) would
            // attach the new file read-only: export from a dedicated read-write connection,
            // which still only reads the source (in the WAL mode, without blocking the pool's
            // writer).
            var exportConfiguration = configuration
            exportConfiguration.readonly = false
            exportConfiguration.journalMode = .default
            let exporter = try DatabaseQueue(path: path, configuration: exportConfiguration)
            defer { try? exporter.close() }
            return try exporter.unsafeRead(body)
        }
        return try unsafeRead(body)
    }
}

/// The export procedure: attach a temporary file beside the target, `sqlcipher_export` into
/// it, copy what `sqlcipher_export` leaves out, verify, sync, rename.
struct DatabaseExporter {
    static let schemaName = "grdbcipher_export"

    let source: Database
    let targetPath: String
    let options: DatabaseExportOptions

    /// What the source holds, for the copy and for the verification.
    struct SourceFacts {
        var pageSize: Int
        var pageCount: Int
        var autoVacuum: Int
        var journalMode: String
        var userVersion: Int
        var applicationID: Int
        var rowCounts: [String: Int]
    }

    func run() throws -> DatabaseExportReport {
        let target = URL(fileURLWithPath: targetPath).standardizedFileURL
        let targetPath = target.path
        if !source.isInMemory, URL(fileURLWithPath: source.path).standardizedFileURL.path == targetPath {
            throw exportError("the target is the source database itself")
        }
        let directory = target.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "export: no such directory: \(directory)")
        }
        if FileManager.default.fileExists(atPath: targetPath) && !options.replacesExistingFile {
            throw exportError("the target file exists: \(targetPath) (set replacesExistingFile to replace it)")
        }
        // A run killed earlier may have left a temporary file here (a complete plaintext copy,
        // for a decryption): it goes first.
        SQLCipherFile.removeStaleTemporaryFiles(besidePath: targetPath)
        let temporary = try TemporaryFile.create(besidePath: targetPath, purpose: "export")
        defer { temporary.remove() }
        let report = try write(into: temporary)
        let mode = newFileMode()
        if mode != 0o600 { try temporary.setMode(mode) }
        if options.replacesExistingFile || access(targetPath, F_OK) != 0 {
            // Journal files of a former target must not travel with the new file.
            removeFileAndSidecars(targetPath, keepingMainFile: true)
        }
        try temporary.move(to: targetPath, replacing: options.replacesExistingFile)
        try? fsyncPath(directory)
        return DatabaseExportReport(
            path: targetPath,
            tableCount: report.tableCount,
            rowCount: report.rowCount,
            pageSize: report.pageSize,
            pageCount: report.pageCount)
    }

    /// Exports into the temporary file and verifies it. It is synced, not renamed.
    func write(into temporary: TemporaryFile) throws -> (tableCount: Int, rowCount: Int, pageSize: Int, pageCount: Int) {
        guard !source.isInsideTransaction else {
            throw exportError("cannot export from inside a transaction")
        }
        try options.cipherSettings.validate()
        let facts = try readSourceFacts()
        try exportInto(temporary.path, facts: facts)
        let report: (tableCount: Int, rowCount: Int, pageSize: Int, pageCount: Int)
        do {
            report = try verify(temporary.path, facts: facts)
        } catch {
            // A read of the new file can fail once (an I/O error: SQLCipher even turns a failed
            // read of the salt into "not a database"): a new connection verifies again before
            // the file is called bad. Only a file that fails twice is.
            report = try verify(temporary.path, facts: facts)
        }
        for suffix in ["-wal", "-shm", "-journal"] {
            // A checkpointed WAL file is empty; a stale one must not travel with the new file.
            unlink(temporary.path + suffix)
        }
        try fsyncPath(temporary.path)
        return report
    }

    /// The mode of a new file: 0600, or the source's owner permissions if they are stricter
    /// (a source readable by its owner only gives a copy readable by its owner only).
    private func newFileMode() -> mode_t {
        var info = stat()
        guard !source.isInMemory, stat(source.path, &info) == 0 else { return 0o600 }
        return info.st_mode & 0o600
    }

    private func exportError(_ message: String) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISUSE, message: "export: \(message)")
    }

    private func readSourceFacts() throws -> SourceFacts {
        let db = source
        return SourceFacts(
            pageSize: try db.pragmaInteger("PRAGMA main.page_size") ?? 4096,
            pageCount: try db.pragmaInteger("PRAGMA main.page_count") ?? 0,
            autoVacuum: try db.pragmaInteger("PRAGMA main.auto_vacuum") ?? 0,
            journalMode: try String.fetchOne(db, sql: "PRAGMA main.journal_mode") ?? "delete",
            userVersion: try db.pragmaInteger("PRAGMA main.user_version") ?? 0,
            applicationID: try db.pragmaInteger("PRAGMA main.application_id") ?? 0,
            rowCounts: try db.tableRowCounts())
    }

    /// The cipher settings of an encrypted target.
    private func targetSettings(_ facts: SourceFacts) -> CipherSettings {
        options.cipherSettings
    }

    private func exportInto(_ temporaryPath: String, facts: SourceFacts) throws {
        let db = source
        let schema = Self.schemaName
        // The path is a statement argument; the key never goes through SQL.
        try db.execute(sql: "ATTACH DATABASE ? AS \(schema) KEY ''", arguments: [temporaryPath])
        var attached = true
        var progressHandler: Int?
        defer {
            // Only this export's handler goes: a task cancellation handler stays.
            if let progressHandler { db.hooks.removeProgressHandler(progressHandler) }
            if attached { try? db.execute(sql: "DETACH DATABASE \(schema)") }
        }
        if let key = options.key {
            try key.withKeyBytes { bytes in
                try sqliteCheck(sqlite3_key_v2(db.handle, schema, bytes.baseAddress, CInt(bytes.count)), db.handle)
            }
            db.silenceCipherLoggingIfNeeded()
            try db.applyCipherSettings(targetSettings(facts), schema: schema)
        } else if options.preservesPageSize {
            try db.execute(sql: "PRAGMA \(schema).page_size = \(facts.pageSize)")
        }
        if options.preservesAutoVacuum {
            try db.execute(sql: "PRAGMA \(schema).auto_vacuum = \(facts.autoVacuum)")
        }

        let progress = options.progress.map { ProgressReporter(path: temporaryPath, pageSize: facts.pageSize, total: facts.pageCount, report: $0) }
        if let progress {
            progress.start()
            progressHandler = db.hooks.addProgressHandler {
                progress.poll()
                return false
            }
        }
        try db.runSQLCipherExport("'\(schema)'")
        try db.execute(sql: "PRAGMA \(schema).user_version = \(facts.userVersion)")
        try db.execute(sql: "PRAGMA \(schema).application_id = \(facts.applicationID)")
        try db.execute(sql: "DETACH DATABASE \(schema)")
        attached = false
        progress?.finish()

        if options.preservesJournalMode && facts.journalMode.lowercased() == "wal" {
            let target = try openTarget(temporaryPath, readonly: false, facts: facts)
            defer { try? target.close() }
            _ = try String.fetchOne(target, sql: "PRAGMA journal_mode = WAL")
        }
    }

    private func openTarget(_ path: String, readonly: Bool, facts: SourceFacts) throws -> Database {
        let db = try Database.openProbe(path: path, readonly: readonly)
        if let key = options.key {
            try db.use(key, settings: targetSettings(facts))
        }
        return db
    }

    private func verify(_ temporaryPath: String, facts: SourceFacts) throws -> (tableCount: Int, rowCount: Int, pageSize: Int, pageCount: Int) {
        let db = try openTarget(temporaryPath, readonly: true, facts: facts)
        defer { try? db.close() }
        func fail(_ message: String) -> DatabaseError {
            DatabaseError(resultCode: .SQLITE_CORRUPT, message: "export: verification of the new file failed: \(message)")
        }
        let problems = try db.integrityAndCipherProblems()
        guard problems.isEmpty else { throw fail("integrity checks: \(problems.joined(separator: "; "))") }
        let rowCounts = try db.tableRowCounts()
        guard Set(rowCounts.keys) == Set(facts.rowCounts.keys) else { throw fail("the tables differ from the source's") }
        for (table, expected) in facts.rowCounts where rowCounts[table] != expected {
            throw fail("table \(table) has \(rowCounts[table] ?? 0) rows instead of \(expected)")
        }
        guard try db.pragmaInteger("PRAGMA user_version") == facts.userVersion,
              try db.pragmaInteger("PRAGMA application_id") == facts.applicationID
        else { throw fail("user_version or application_id differ") }
        let userTables = rowCounts.filter { !$0.key.hasPrefix("sqlite_") }
        return (
            userTables.count, userTables.values.reduce(0, +),
            try db.pragmaInteger("PRAGMA page_size") ?? 0,
            try db.pragmaInteger("PRAGMA page_count") ?? 0)
    }

}

/// Reports progress from the size of the file being written.
final class ProgressReporter {
    let path: String
    let pageSize: Int
    let total: Int
    let report: @Sendable (DatabaseExportProgress) -> Void
    private var last = -1

    init(path: String, pageSize: Int, total: Int, report: @escaping @Sendable (DatabaseExportProgress) -> Void) {
        self.path = path
        self.pageSize = max(pageSize, 512)
        self.total = total
        self.report = report
    }

    func start() { emit(0) }

    func poll() {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        emit(min(total, Int(info.st_size) / pageSize))
    }

    func finish() { emit(total) }

    private func emit(_ completed: Int) {
        guard completed > last else { return }
        last = completed
        report(DatabaseExportProgress(completedPageCount: completed, totalPageCount: total))
    }
}

/// Removes a database file's journal, WAL and shared-memory files, and the file itself unless
/// told otherwise.
func removeFileAndSidecars(_ path: String, keepingMainFile: Bool = false) {
    let suffixes = keepingMainFile ? ["-journal", "-wal", "-shm"] : ["", "-journal", "-wal", "-shm"]
    for suffix in suffixes {
        try? FileManager.default.removeItem(atPath: path + suffix)
    }
}

/// Flushes a file or directory to disk.
func fsyncPath(_ path: String) throws {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else {
        throw DatabaseError(resultCode: .SQLITE_IOERR, message: "cannot open \(path) to sync it: \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    guard fsync(fd) == 0 else {
        throw DatabaseError(resultCode: .SQLITE_IOERR_FSYNC, message: "cannot sync \(path): \(String(cString: strerror(errno)))")
    }
}
