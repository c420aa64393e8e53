import Foundation

/// What ``SQLCipherFile/inspect(atPath:key:settings:)`` found out about a database file.
public struct SQLCipherFileInfo: Sendable, CustomStringConvertible {
    /// What the file holds.
    public enum Content: String, Sendable {
        /// A plaintext SQLite database.
        case plaintext
        /// An SQLCipher database (opened or not).
        case encrypted
        /// An empty file, which SQLite treats as a new database.
        case empty
        /// Neither SQLite nor SQLCipher.
        case notADatabase
    }

    /// The path of the file.
    public let path: String
    /// The size of the file in bytes.
    public let fileSize: Int
    /// What the file holds.
    public var content: Content
    /// Whether the first 32 bytes are a plaintext SQLite header (plaintext databases, and
    /// SQLCipher databases made with `cipher_plaintext_header_size = 32`).
    public var hasPlaintextHeader = false
    /// Whether the key opened the file; nil when no key was given or the file is not encrypted.
    public var keyOpensFile: Bool?
    /// The SQLCipher major version whose default settings open the file (1 to 4), when the key
    /// opened it with standard settings.
    public var sqlcipherFormat: Int?
    /// The cipher settings in effect once the file was opened.
    public var settings: CipherSettings?
    /// The page size, once the file was opened.
    public var pageSize: Int?
    /// The journal mode, once the file was opened ("delete", "wal"…).
    public var journalMode: String?
    /// The `user_version`, once the file was opened.
    public var userVersion: Int?
    /// The number of rows of each table, once the file was opened.
    public var tableRowCounts: [String: Int]?
    /// Why the file is not a database, when it is not.
    public var reason: String?
    /// The rollback journal that holds an interrupted transaction, when there is one: the file
    /// cannot be read until a read-write connection rolls it back (see
    /// ``SQLCipherFile/rollBackInterruptedTransaction(atPath:)``). Its key is not tried.
    public var hotJournal: String?

    /// A report for people, one fact per line: what the file is, its size, and with a key that
    /// opens it, its format, cipher settings, journal mode, `user_version` and tables.
    ///
    /// ```
    /// app.db: SQLCipher-encrypted database
    /// size: 36864 bytes
    /// key opens the file: yes
    /// format: SQLCipher 4
    /// ...
    /// ```
    public var description: String {
        var lines: [String] = []
        switch content {
        case .plaintext: lines.append("\(path): plaintext SQLite database")
        case .encrypted: lines.append("\(path): SQLCipher-encrypted database" + (hasPlaintextHeader ? " (plaintext header)" : ""))
        case .empty: lines.append("\(path): empty file (not a database)")
        case .notADatabase: lines.append("\(path): not a database")
        }
        lines.append("size: \(fileSize) bytes")
        if let keyOpensFile { lines.append("key opens the file: \(keyOpensFile ? "yes" : "no")") }
        if let sqlcipherFormat {
            lines.append("format: SQLCipher \(sqlcipherFormat)")
        } else if keyOpensFile == true {
            lines.append("format: custom settings")
        }
        if let settings {
            if let pageSize = settings.pageSize { lines.append("cipher page size: \(pageSize)") }
            if let kdf = settings.kdfAlgorithm {
                lines.append("KDF: \(kdf.rawValue), \(settings.kdfIterations.map(String.init) ?? "?") iterations")
            } else if let iterations = settings.kdfIterations {
                lines.append("KDF iterations: \(iterations)")
            }
            if settings.usesHMAC == false {
                lines.append("HMAC: none")
            } else if let hmac = settings.hmacAlgorithm {
                lines.append("HMAC: \(hmac.rawValue)")
            }
        }
        if let pageSize, settings?.pageSize == nil { lines.append("page size: \(pageSize)") }
        if let journalMode { lines.append("journal mode: \(journalMode)") }
        if let userVersion { lines.append("user_version: \(userVersion)") }
        if let tableRowCounts {
            lines.append("tables: \(tableRowCounts.count)")
            let width = tableRowCounts.keys.map(\.count).max() ?? 0
            for (table, count) in tableRowCounts.sorted(by: { $0.key < $1.key }) {
                let name = table.padding(toLength: width, withPad: " ", startingAt: 0)
                lines.append("  \(name)  \(count) row\(count == 1 ? "" : "s")")
            }
        }
        if let reason { lines.append("note: \(reason)") }
        return lines.joined(separator: "\n")
    }
}

/// Tools that work on SQLCipher database files by path.
public enum SQLCipherFile {
    /// Tells what a file is: plaintext SQLite, SQLCipher, or not a database; with a key, which
    /// SQLCipher format opens it, its page size, journal mode and `user_version`.
    ///
    /// Without `settings`, the standard formats are tried, newest first: SQLCipher 4, 3, 2, 1.
    /// The file is only read, never written.
    ///
    /// ```swift
    /// let info = try SQLCipherFile.inspect(atPath: path, key: .passphrase(passphrase))
    /// if info.sqlcipherFormat == 3 { /* upgrade it */ }
    /// ```
    public static func inspect(atPath path: String, key: CipherKey? = nil, settings: CipherSettings? = nil) throws -> SQLCipherFileInfo {
        guard FileManager.default.fileExists(atPath: path) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "no such file: \(path)")
        }
        // A file we cannot read is not an empty file.
        let readable = open(path, O_RDONLY | O_CLOEXEC)
        guard readable >= 0 else { throw TemporaryFile.fileSystemError("cannot read", path) }
        close(readable)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        var info = SQLCipherFileInfo(path: path, fileSize: size, content: .encrypted)
        if let journal = hotJournalPath(ofDatabaseAt: path) {
            // No connection can read it before the rollback: no key would seem to open it.
            info.hotJournal = journal
            info.reason = "an interrupted transaction is in \(journal) (a hot journal): a program that opens the "
                + "file read-write rolls it back (grdbcipher rekey and upgrade do); until then the file cannot be read"
            if case .sqliteHeader = FileDiagnosis.shape(path: path) { info.content = .plaintext }
            return info
        }
        switch FileDiagnosis.shape(path: path) {
        case .unknown, .empty:
            info.content = .empty
            return info
        case .notADatabase(let reason):
            info.content = .notADatabase
            info.reason = reason
            return info
        case .sqliteHeader:
            info.hasPlaintextHeader = true
            if let db = try? Database.openProbe(path: path), db.canReadSchema() {
                defer { try? db.close() }
                info.content = .plaintext
                try readDetails(db, into: &info)
                return info
            }
        case .opaque:
            break
        }
        guard let key else { return info }
        var keyBytes = try key.keyBytes()
        defer { wipe(&keyBytes) }
        let candidates: [(format: Int?, settings: CipherSettings)]
        if let settings {
            candidates = [(settings.compatibility, settings)]
        } else if info.hasPlaintextHeader {
            candidates = [(nil, CipherSettings(plaintextHeaderSize: 32))]
        } else {
            candidates = CipherSettings.standardFormats.map { ($0.version, $0.settings) }
        }
        guard let found = probeFormats(path: path, keyBytes: keyBytes, candidates: candidates) else {
            info.keyOpensFile = false
            return info
        }
        defer { try? found.db.close() }
        info.keyOpensFile = true
        info.sqlcipherFormat = found.settings.isStandardFormat ? found.format : nil
        info.settings = try found.db.currentCipherSettings()
        if let damage = found.damage {
            info.reason = "the key opens the file, but it is damaged: \(damage)"
            try? readDetails(found.db, into: &info)
        } else {
            try readDetails(found.db, into: &info)
        }
        return info
    }

    private static func readDetails(_ db: Database, into info: inout SQLCipherFileInfo) throws {
        info.pageSize = try db.pragmaInteger("PRAGMA page_size")
        info.journalMode = try String.fetchOne(db, sql: "PRAGMA journal_mode")
        info.userVersion = try db.pragmaInteger("PRAGMA user_version")
        do {
            info.tableRowCounts = try db.tableRowCounts()
        } catch let error as DatabaseError {
            // Counting reads every page of every table: a damaged file shows here.
            info.reason = info.reason ?? "the file opens, but its tables cannot be read (\(error.message ?? "SQLite error \(error.resultCode.rawValue)")): it is damaged"
        }
        if let cipherPageSize = info.settings?.pageSize {
            info.pageSize = cipherPageSize
        }
    }
}

extension SQLCipherFileInfo {
    /// Refuses a plaintext database (`SQLITE_MISUSE`) and a file that is not a database
    /// (`SQLITE_NOTADB`), for the file operations that need an SQLCipher database.
    func requireSQLCipherDatabase(for operation: String) throws {
        switch content {
        case .plaintext:
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "\(operation): the file is a plaintext SQLite database; encrypt it with exportDatabase")
        case .empty, .notADatabase:
            throw DatabaseError(resultCode: .SQLITE_NOTADB, message: "\(operation): the file is not an SQLCipher database")
        case .encrypted:
            break
        }
    }
}

extension CipherSettings {
    /// Whether the settings are exactly one of the standard formats.
    var isStandardFormat: Bool {
        CipherSettings.standardFormats.contains { $0.settings == self }
    }
}
