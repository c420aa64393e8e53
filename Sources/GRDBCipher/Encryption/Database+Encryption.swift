import CSQLCipher
import Foundation

extension Database {
    /// Sets the passphrase of an encrypted database. Call it from
    /// ``Configuration/prepareDatabase(_:)``, before anything reads the database:
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.prepareDatabase { db in
    ///     try db.usePassphrase("secret")
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

    private func useKeyBytes(_ bytes: UnsafeRawBufferPointer) throws {
        preconditionValidAccess()
        guard bytes.count > 0 else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "empty passphrase: an SQLCipher database needs a non-empty key")
        }
        guard bytes.count <= Int(Int32.max) else {
            throw DatabaseError(resultCode: .SQLITE_TOOBIG, message: "passphrase too long")
        }
        let code = sqlite3_key(handle, bytes.baseAddress, CInt(bytes.count))
        try sqliteCheck(code, handle)
        if !isEncrypted {
            isEncrypted = true
            // Debian's SQLCipher writes temporary tables and sort files unencrypted under
            // /var/tmp unless they are kept in memory. Set right after the key: changing
            // temp_store later would drop temporary tables made by prepareDatabase.
            try execute(sql: "PRAGMA temp_store = MEMORY")
        }
    }

    /// The SQLCipher version, such as "4.6.1 community".
    public var cipherVersion: String? {
        try? String.fetchOne(self, sql: "PRAGMA cipher_version")
    }

    /// The cryptographic provider, such as "openssl". Nil on an unencrypted connection.
    public var cipherProvider: String? {
        try? String.fetchOne(self, sql: "PRAGMA cipher_provider")
    }

    /// The version of the cryptographic provider. Nil on an unencrypted connection.
    public var cipherProviderVersion: String? {
        try? String.fetchOne(self, sql: "PRAGMA cipher_provider_version")
    }

    /// The FIPS status of the provider, "1" in FIPS mode, "0" otherwise. Nil on an unencrypted
    /// connection.
    public var cipherFipsStatus: String? {
        try? String.fetchOne(self, sql: "PRAGMA cipher_fips_status")
    }
}

/// Overwrites key material with zeros before it is released.
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        // memset through a volatile-like C call, which the optimizer does not drop.
        _ = memset(base, 0, buffer.count)
    }
    bytes.removeAll()
}
