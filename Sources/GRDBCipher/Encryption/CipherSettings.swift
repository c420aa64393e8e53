import Foundation

/// SQLCipher settings of one database: format compatibility, page size, key derivation, HMAC,
/// plaintext header.
///
/// Settings are applied per connection, after the key, with ``Database/applyCipherSettings(_:)``
/// or ``Database/usePassphrase(_:settings:)-(String,_)``; GRDBCipher never changes SQLCipher's process-wide
/// `cipher_default_*` settings.
///
/// ```swift
/// // Open a file written by SQLCipher 3:
/// config.prepareDatabase { db in
///     try db.usePassphrase(passphrase, settings: .sqlcipher3)
/// }
/// ```
///
/// Nil properties keep SQLCipher's value: the defaults, or what `compatibility` implies.
///
/// Related SQLCipher documentation: <https://www.zetetic.net/sqlcipher/sqlcipher-api/>
public struct CipherSettings: Sendable, Hashable, CustomStringConvertible {
    /// HMAC algorithms.
    public enum HMACAlgorithm: String, Sendable, Hashable {
        /// HMAC with SHA-1 (SQLCipher 3 and older).
        case sha1 = "HMAC_SHA1"
        /// HMAC with SHA-256.
        case sha256 = "HMAC_SHA256"
        /// HMAC with SHA-512 (the SQLCipher 4 default).
        case sha512 = "HMAC_SHA512"
    }

    /// Key derivation algorithms.
    public enum KDFAlgorithm: String, Sendable, Hashable {
        /// PBKDF2 with HMAC-SHA-1 (SQLCipher 3 and older).
        case pbkdf2SHA1 = "PBKDF2_HMAC_SHA1"
        /// PBKDF2 with HMAC-SHA-256.
        case pbkdf2SHA256 = "PBKDF2_HMAC_SHA256"
        /// PBKDF2 with HMAC-SHA-512 (the SQLCipher 4 default).
        case pbkdf2SHA512 = "PBKDF2_HMAC_SHA512"
    }

    /// The SQLCipher major version whose defaults apply, 1 to 4 (`cipher_compatibility`).
    public var compatibility: Int?
    /// The page size, a power of two from 512 to 65536 (`cipher_page_size`).
    public var pageSize: Int?
    /// The number of key derivation rounds (`kdf_iter`).
    public var kdfIterations: Int?
    /// The HMAC algorithm (`cipher_hmac_algorithm`).
    public var hmacAlgorithm: HMACAlgorithm?
    /// The key derivation algorithm (`cipher_kdf_algorithm`).
    public var kdfAlgorithm: KDFAlgorithm?
    /// Whether pages carry an HMAC (`cipher_use_hmac`); SQLCipher 1 files have none.
    public var usesHMAC: Bool?
    /// The number of bytes of the SQLite header left unencrypted, 0 or 32
    /// (`cipher_plaintext_header_size`). With a plaintext header, the salt is not in the file:
    /// give it in ``salt`` (or with a raw key).
    public var plaintextHeaderSize: Int?
    /// The 16-byte salt, for databases whose header is plaintext (`cipher_salt`).
    public var salt: Data?

    /// Settings; nil values keep SQLCipher's.
    public init(
        compatibility: Int? = nil,
        pageSize: Int? = nil,
        kdfIterations: Int? = nil,
        hmacAlgorithm: HMACAlgorithm? = nil,
        kdfAlgorithm: KDFAlgorithm? = nil,
        usesHMAC: Bool? = nil,
        plaintextHeaderSize: Int? = nil,
        salt: Data? = nil)
    {
        self.compatibility = compatibility
        self.pageSize = pageSize
        self.kdfIterations = kdfIterations
        self.hmacAlgorithm = hmacAlgorithm
        self.kdfAlgorithm = kdfAlgorithm
        self.usesHMAC = usesHMAC
        self.plaintextHeaderSize = plaintextHeaderSize
        self.salt = salt
    }

    /// SQLCipher 4 defaults: 4096-byte pages, 256,000 PBKDF2-HMAC-SHA512 rounds, HMAC-SHA512.
    public static let sqlcipher4 = CipherSettings(compatibility: 4)
    /// SQLCipher 3 defaults: 1024-byte pages, 64,000 PBKDF2-HMAC-SHA1 rounds, HMAC-SHA1.
    public static let sqlcipher3 = CipherSettings(compatibility: 3)
    /// SQLCipher 2 defaults: 1024-byte pages, 4,000 PBKDF2-HMAC-SHA1 rounds, HMAC-SHA1.
    public static let sqlcipher2 = CipherSettings(compatibility: 2)
    /// SQLCipher 1 defaults: 1024-byte pages, 4,000 PBKDF2-HMAC-SHA1 rounds, no HMAC.
    public static let sqlcipher1 = CipherSettings(compatibility: 1)

    /// The settings of the standard formats, newest first.
    static let standardFormats: [(version: Int, settings: CipherSettings)] = [
        (4, .sqlcipher4), (3, .sqlcipher3), (2, .sqlcipher2), (1, .sqlcipher1),
    ]

    /// Whether all properties are nil.
    public var isEmpty: Bool { self == CipherSettings() }

    /// Throws if a value is out of SQLCipher's range.
    public func validate() throws {
        func fail(_ message: String) -> DatabaseError {
            DatabaseError(resultCode: .SQLITE_MISUSE, message: "invalid cipher settings: \(message)")
        }
        if let compatibility, !(1...4).contains(compatibility) {
            throw fail("compatibility must be 1 to 4, not \(compatibility)")
        }
        if let pageSize, !(512...65536).contains(pageSize) || pageSize & (pageSize - 1) != 0 {
            throw fail("page size must be a power of two from 512 to 65536, not \(pageSize)")
        }
        if let kdfIterations, kdfIterations < 1 {
            throw fail("KDF iterations must be positive, not \(kdfIterations)")
        }
        if let plaintextHeaderSize, plaintextHeaderSize != 0 && plaintextHeaderSize != 32 {
            throw fail("plaintext header size must be 0 or 32, not \(plaintextHeaderSize)")
        }
        if let salt, salt.count != 16 {
            throw fail("the salt has 16 bytes, not \(salt.count)")
        }
    }

    /// The pragmas, in the order SQLCipher needs them: compatibility first, since it resets the
    /// other settings. None of them holds a secret.
    func pragmas(schema: String) -> [String] {
        let prefix = "PRAGMA \(schema.quotedDatabaseIdentifier)."
        var pragmas: [String] = []
        if let compatibility { pragmas.append("\(prefix)cipher_compatibility = \(compatibility)") }
        if let pageSize { pragmas.append("\(prefix)cipher_page_size = \(pageSize)") }
        if let kdfIterations { pragmas.append("\(prefix)kdf_iter = \(kdfIterations)") }
        if let hmacAlgorithm { pragmas.append("\(prefix)cipher_hmac_algorithm = \(hmacAlgorithm.rawValue)") }
        if let kdfAlgorithm { pragmas.append("\(prefix)cipher_kdf_algorithm = \(kdfAlgorithm.rawValue)") }
        if let usesHMAC { pragmas.append("\(prefix)cipher_use_hmac = \(usesHMAC ? "ON" : "OFF")") }
        if let plaintextHeaderSize { pragmas.append("\(prefix)cipher_plaintext_header_size = \(plaintextHeaderSize)") }
        if let salt { pragmas.append("\(prefix)cipher_salt = \"x'\(salt.hexadecimal)'\"") }
        return pragmas
    }

    public var description: String {
        var parts: [String] = []
        if let compatibility { parts.append("compatibility: \(compatibility)") }
        if let pageSize { parts.append("page size: \(pageSize)") }
        if let kdfIterations { parts.append("KDF iterations: \(kdfIterations)") }
        if let hmacAlgorithm { parts.append("HMAC: \(hmacAlgorithm.rawValue)") }
        if let kdfAlgorithm { parts.append("KDF: \(kdfAlgorithm.rawValue)") }
        if let usesHMAC { parts.append("uses HMAC: \(usesHMAC)") }
        if let plaintextHeaderSize { parts.append("plaintext header: \(plaintextHeaderSize)") }
        if salt != nil { parts.append("salt: given") }
        return "CipherSettings(" + parts.joined(separator: ", ") + ")"
    }
}

extension Database {
    /// Applies cipher settings to the connection, after the key and before anything reads the
    /// database. A mismatch with the file makes the open fail with error 26.
    public func applyCipherSettings(_ settings: CipherSettings) throws {
        try applyCipherSettings(settings, schema: "main")
    }

    func applyCipherSettings(_ settings: CipherSettings, schema: String) throws {
        try settings.validate()
        for pragma in settings.pragmas(schema: schema) {
            // Each pragma is its own statement; they return a row on success.
            let statement = try makeStatement(sql: pragma)
            _ = try Row.fetchAll(statement)
        }
    }

    /// Reads the cipher settings in effect on an encrypted connection.
    func currentCipherSettings(schema: String = "main") throws -> CipherSettings {
        let prefix = "PRAGMA \(schema.quotedDatabaseIdentifier)."
        func text(_ name: String) throws -> String? {
            try String.fetchOne(self, sql: prefix + name)
        }
        var settings = CipherSettings()
        settings.pageSize = try text("cipher_page_size").flatMap { Int($0) }
        settings.kdfIterations = try text("kdf_iter").flatMap { Int($0) }
        settings.hmacAlgorithm = try text("cipher_hmac_algorithm").flatMap { CipherSettings.HMACAlgorithm(rawValue: $0) }
        settings.kdfAlgorithm = try text("cipher_kdf_algorithm").flatMap { CipherSettings.KDFAlgorithm(rawValue: $0) }
        settings.usesHMAC = try text("cipher_use_hmac").map { $0 == "1" }
        settings.plaintextHeaderSize = try text("cipher_plaintext_header_size").flatMap { Int($0) }
        if let size = settings.plaintextHeaderSize, size > 0 {
            // The salt is not in the file: keep it, so that the file can be opened again.
            settings.salt = try text("cipher_salt").flatMap { Data(hexadecimal: $0) }
        }
        return settings
    }
}
