import CSQLCipher
import Foundation

extension Database {
    /// Sets the passphrase of an encrypted database. Call it from
    /// ``Configuration/prepareDatabase(_:)``, before anything reads the database:
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.prepareDatabase { db in
    ///     // From a key file, a credential or the environment: never from source code.
    ///     try db.usePassphrase(ProcessInfo.processInfo.environment["APP_DB_PASSPHRASE"] ?? "")
    /// }
    /// let dbQueue = try DatabaseQueue(path: path, configuration: config)
    /// ```
    ///
    /// The key goes to `sqlite3_key`, never through SQL text. A wrong passphrase makes the queue
    /// initializer throw SQLITE_NOTADB (26). The copy of the passphrase bytes made here is wiped.
    /// An empty passphrase is refused: SQLCipher would leave the database unencrypted.
    ///
    /// Related SQLCipher documentation: <https://www.zetetic.net/sqlcipher/sqlcipher-api/#key>
    public func usePassphrase(_ passphrase: String) throws {
        var bytes = Array(passphrase.utf8)
        defer { wipe(&bytes) }
        try bytes.withUnsafeBytes { try useKeyBytes($0) }
    }

    /// Sets the passphrase of an encrypted database from bytes. Prefer this overload, and reset
    /// your `Data` after use (`resetBytes(in:)`): a `String` cannot be wiped.
    public func usePassphrase(_ passphrase: Data) throws {
        try passphrase.withUnsafeBytes { try useKeyBytes($0) }
    }

    /// Sets the passphrase, then the cipher settings of the file (for example
    /// ``CipherSettings/sqlcipher3`` for a file written by SQLCipher 3).
    public func usePassphrase(_ passphrase: String, settings: CipherSettings) throws {
        try usePassphrase(passphrase)
        try applyCipherSettings(settings)
    }

    /// Sets the passphrase from bytes, then the cipher settings of the file.
    public func usePassphrase(_ passphrase: Data, settings: CipherSettings) throws {
        try usePassphrase(passphrase)
        try applyCipherSettings(settings)
    }

    /// Sets a raw 256-bit key, which skips SQLCipher's key derivation (256,000 PBKDF2 rounds per
    /// connection open for a SQLCipher 4 passphrase).
    ///
    /// ```swift
    /// config.prepareDatabase { db in
    ///     try db.useRawKey(try keychain.databaseKey()) // 32 bytes
    /// }
    /// ```
    ///
    /// `salt` (16 bytes) is needed only for a database whose salt is not stored in the file
    /// (plaintext header). The key never goes through SQL text, and the hexadecimal copy made for
    /// `sqlite3_key` is wiped.
    public func useRawKey(_ key: Data, salt: Data? = nil, settings: CipherSettings = CipherSettings()) throws {
        try use(try CipherKey.rawKey(key, salt: salt), settings: settings)
    }

    /// Sets a key, passphrase or raw, then the cipher settings of the file.
    public func use(_ key: CipherKey, settings: CipherSettings = CipherSettings()) throws {
        try key.withKeyBytes { try useKeyBytes($0) }
        if !settings.isEmpty {
            try applyCipherSettings(settings)
        }
    }

    func useKeyBytes(_ bytes: UnsafeRawBufferPointer) throws {
        preconditionValidAccess()
        guard bytes.count > 0 else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "empty passphrase: an SQLCipher database needs a non-empty key")
        }
        guard bytes.count <= Int(Int32.max) else {
            throw DatabaseError(resultCode: .SQLITE_TOOBIG, message: "passphrase too long")
        }
        let keying = cipherKeying
        if let keyCache = keying.keyCache, var rawKeyText = keyCache.rawKeyText(for: bytes) {
            // A pool connection: the key derived once for the pool skips SQLCipher's derivation.
            defer { wipe(&rawKeyText) }
            try sqliteCheck(sqlite3_key(handle, rawKeyText, CInt(rawKeyText.count)), handle)
            keying.usedCachedKey = true
        } else {
            try sqliteCheck(sqlite3_key(handle, bytes.baseAddress, CInt(bytes.count)), handle)
            if keying.keyCache != nil {
                keying.discardPassphraseToLearn()
                keying.passphraseToLearn = Array(bytes)
            }
        }
        // SQLCipher resets its log level when the first keyed connection of the process is keyed.
        silenceCipherLoggingIfNeeded()
        keying.keyForDiagnosis?.replace(with: bytes)
        if !keying.isEncrypted {
            keying.isEncrypted = true
            // Debian's SQLCipher writes temporary tables and sort files unencrypted under
            // /var/tmp unless they are kept in memory. Set right after the key: changing
            // temp_store later would drop temporary tables made by prepareDatabase.
            try execute(sql: "PRAGMA temp_store = MEMORY")
        }
    }

    /// A key set with SQL (`PRAGMA key` in `prepareDatabase`, as GRDB documents) does not go
    /// through ``usePassphrase(_:)-(String)``: notice it, so that the connection is known to be
    /// encrypted and keeps its temporary data in memory. temp_store is left alone if
    /// `prepareDatabase` created temporary objects, which changing it would drop.
    func noticeKeyFromSQL() throws {
        guard !isEncrypted, try cipherProvider != nil else { return }
        cipherKeying.isEncrypted = true
        silenceCipherLoggingIfNeeded()
        if try Int.fetchOne(self, sql: "SELECT COUNT(*) FROM temp.sqlite_master") == 0 {
            try execute(sql: "PRAGMA temp_store = MEMORY")
        }
    }

    /// The SQLCipher version, such as "4.6.1 community".
    ///
    /// ```swift
    /// let version = try db.cipherVersion
    /// ```
    public var cipherVersion: String {
        get throws {
            guard let version = try String.fetchOne(self, sql: "PRAGMA cipher_version") else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the SQLite library is not SQLCipher")
            }
            return version
        }
    }

    /// The cryptographic provider, such as "openssl". Nil on an unencrypted connection.
    public var cipherProvider: String? {
        get throws { try String.fetchOne(self, sql: "PRAGMA cipher_provider") }
    }

    /// The version of the cryptographic provider. Nil on an unencrypted connection.
    public var cipherProviderVersion: String? {
        get throws { try String.fetchOne(self, sql: "PRAGMA cipher_provider_version") }
    }

    /// The FIPS status of the provider, "1" in FIPS mode, "0" otherwise. Nil on an unencrypted
    /// connection.
    public var cipherFipsStatus: String? {
        get throws { try String.fetchOne(self, sql: "PRAGMA cipher_fips_status") }
    }

    /// Turns on SQLCipher's memory security: memory SQLCipher allocates is locked and wiped when
    /// freed. It applies to the **whole process, for the rest of its life**: SQLCipher cannot
    /// turn it off again. It costs speed; turn it on only if your threat model includes memory
    /// dumps.
    ///
    /// Related SQLCipher documentation: <https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_memory_security>
    public func enableCipherMemorySecurity() throws {
        _ = try String.fetchOne(self, sql: "PRAGMA cipher_memory_security = ON")
    }
}

/// A copy of the key kept only while a connection opens, to diagnose a failed open by trying
/// the known SQLCipher formats. Wiped when the open ends, successfully or not.
final class DiagnosisKey {
    private(set) var bytes: [UInt8] = []

    func replace(with newBytes: UnsafeRawBufferPointer) {
        GRDBCipher.wipe(&bytes)
        bytes = Array(newBytes)
    }

    func wipe() {
        GRDBCipher.wipe(&bytes)
    }

    deinit {
        wipe()
    }
}

/// Overwrites key material with zeros before it is released.
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { wipe($0) }
    bytes.removeAll()
}

/// Overwrites memory with zeros (key material, or decrypted pages) before it is released.
func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress else { return }
    // memset through libc, which the optimizer does not remove.
    _ = memset(base, 0, buffer.count)
}
