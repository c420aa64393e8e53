import Foundation

/// Says why SQLite answered "file is not a database" (26), which covers several cases, and
/// classifies files for inspection.
enum FileDiagnosis {
    static let sqliteHeader: [UInt8] = Array("SQLite format 3\0".utf8)

    /// What the first bytes and the size of a file say, before any key is tried.
    enum Shape {
        /// No file to read (in-memory database, URI): nothing can be said.
        case unknown
        /// Zero bytes: SQLite treats it as a new database.
        case empty
        /// Starts with the SQLite header: plaintext, or SQLCipher with a plaintext header.
        case sqliteHeader
        /// Plain text, or a size that is not a whole number of pages.
        case notADatabase(reason: String)
        /// Opaque bytes in whole pages: what an SQLCipher file looks like.
        case opaque
    }

    static func shape(path: String) -> Shape {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:"),
              let handle = FileHandle(forReadingAtPath: path)
        else { return .unknown }
        defer { try? handle.close() }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if size == 0 { return .empty }
        let data: Data? = (try? handle.read(upToCount: 16)) ?? nil
        let header = Array(data ?? Data())
        if header.starts(with: sqliteHeader) { return .sqliteHeader }
        if size < 512 || size % 512 != 0 {
            return .notADatabase(reason: "its size, \(size) bytes, is not a whole number of pages")
        }
        if header.allSatisfy({ $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20..<0x7F).contains($0) }) {
            return .notADatabase(reason: "it starts with plain text")
        }
        return .opaque
    }

    /// Whether the file reads as a plaintext SQLite database.
    static func readsAsPlaintext(path: String) -> Bool {
        guard let db = try? Database.openProbe(path: path) else { return false }
        defer { try? db.close() }
        return db.canReadSchema()
    }

    /// Whether the file starts with the SQLite header but does not read as plaintext SQLite
    /// (an SQLCipher database with a plaintext header, or a damaged file).
    static func hasUnreadableSQLiteHeader(path: String) -> Bool {
        if case .sqliteHeader = shape(path: path) {
            return !readsAsPlaintext(path: path)
        }
        return false
    }

    /// The message of error 11 for a connection whose file is damaged after its first page.
    static func damagedMessage(_ message: String?, encrypted: Bool) -> String {
        let detail = encrypted
            ? "the key and settings open the file, but it is damaged (truncated, or pages altered)"
            : "the file is damaged (truncated, or pages altered)"
        return "\(message ?? "database disk image is malformed"): \(detail); PRAGMA integrity_check"
            + (encrypted ? " and PRAGMA cipher_integrity_check tell" : " tells") + " where"
    }

    /// The message of error 26 for a connection that failed to read `path`, keyed with
    /// `keyBytes` (nil when no key was given). Never includes the key.
    static func notADatabaseMessage(path: String, keyBytes: [UInt8]?) -> String {
        let prefix = "file is not a database"
        switch shape(path: path) {
        case .unknown, .empty:
            return keyBytes != nil
                ? "\(prefix): wrong passphrase or cipher settings, or the file is not an SQLCipher database"
                : "\(prefix): the file is encrypted, or is not an SQLite database"
        case .sqliteHeader:
            if readsAsPlaintext(path: path) {
                return keyBytes != nil
                    ? "\(prefix): it is a plaintext SQLite database, and a passphrase was given "
                        + "(a passphrase does not encrypt an existing file: export it to a new encrypted file)"
                    : "\(prefix): the SQLite header is present, but the file is damaged"
            }
            if keyBytes != nil {
                return "\(prefix): the file starts with a plaintext SQLite header, and the key and settings do not "
                    + "decrypt it: wrong passphrase, or wrong salt or plaintext-header settings (an SQLCipher database "
                    + "with a plaintext header needs its key, its salt and cipher_plaintext_header_size = 32), "
                    + "or a damaged SQLite file"
            }
            return "\(prefix): the file starts with a plaintext SQLite header but cannot be read: an SQLCipher "
                + "database with a plaintext header (it needs its key, its salt and cipher_plaintext_header_size = 32), "
                + "or a damaged SQLite file"
        case .notADatabase(let reason):
            return "\(prefix): the file is neither SQLite nor SQLCipher (\(reason))"
        case .opaque:
            guard let keyBytes else {
                return "\(prefix): the file looks encrypted (SQLCipher) and no passphrase was given"
            }
            let candidates = CipherSettings.standardFormats.map { (Optional($0.version), $0.settings) }
            if let found = probeFormats(path: path, keyBytes: keyBytes, candidates: candidates) {
                try? found.db.close()
                let version = found.format ?? 4
                return "\(prefix): the passphrase is right, but the file is in the SQLCipher \(version) format "
                    + "and the connection used other cipher settings: open it with CipherSettings.sqlcipher\(version) "
                    + "(PRAGMA cipher_compatibility = \(version)), or upgrade it to SQLCipher 4"
            }
            return "\(prefix): wrong passphrase or cipher settings (the file looks encrypted, and the key "
                + "opens it in none of the SQLCipher 4, 3, 2 or 1 formats), or the file is not an SQLCipher database"
        }
    }
}
