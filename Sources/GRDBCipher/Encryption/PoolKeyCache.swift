import CSQLCipher
import Foundation

/// The key a ``DatabasePool`` derives once from its passphrase, so that its other connections
/// skip SQLCipher's key derivation (256,000 PBKDF2-HMAC-SHA512 rounds for SQLCipher 4).
///
/// The first connection opened with a passphrase derives its key the usual way, inside
/// SQLCipher. The cache then derives the same 32-byte key with OpenSSL's PBKDF2, from the
/// passphrase, the file's salt, and the connection's KDF algorithm and iteration count, and
/// checks it by opening a connection with it as a raw key. Later connections whose
/// `prepareDatabase` calls `usePassphrase` with the same passphrase are keyed with that raw key
/// instead. A different passphrase is not recognized, and goes through SQLCipher's derivation.
///
/// The cache never holds the passphrase: it recognizes it by an HMAC-SHA256 keyed with the
/// derived key. The derived key is wiped when the pool closes, when its read-only connections
/// are invalidated, and when the passphrase changes.
///
/// `@unchecked Sendable`: the entry is only touched under `lock`.
final class PoolKeyCache: @unchecked Sendable {
    private struct Entry {
        var key: [UInt8]
        var salt: [UInt8]
        var fingerprint: [UInt8]
    }

    private let lock = NSLock()
    private var entry: Entry?

    deinit {
        wipeKey()
    }

    /// Whether a derived key is cached.
    var isFilled: Bool {
        lock.withLock { entry != nil }
    }

    /// The text `sqlite3_key` takes for the cached raw key (`x'…'`, key and salt), when
    /// `passphrase` is the one it was derived from. The caller wipes it.
    func rawKeyText(for passphrase: UnsafeRawBufferPointer) -> [UInt8]? {
        lock.withLock {
            guard let entry else { return nil }
            var fingerprint = Self.fingerprint(of: passphrase, key: entry.key)
            defer { GRDBCipher.wipe(&fingerprint) }
            guard KeyringCrypto.constantTimeEquals(fingerprint, entry.fingerprint) else { return nil }
            return sqlcipherRawKeyText(key: entry.key, salt: entry.salt)
        }
    }

    /// Derives and caches the key of `db`, a connection that was just keyed with `passphrase`
    /// and read successfully. Leaves the cache as it was when the connection's settings cannot
    /// be read, or when the derived key does not open the file.
    func learn(passphrase: [UInt8], from db: Database) {
        // SQLCipher takes `x'…'` (64 or 96 hexadecimal digits) as a raw key: nothing to derive.
        if passphrase.first == UInt8(ascii: "x") && passphrase.dropFirst().first == UInt8(ascii: "'")
            && passphrase.last == UInt8(ascii: "'") && (passphrase.count == 67 || passphrase.count == 99)
        {
            return
        }
        guard let settings = try? db.currentCipherSettings(),
              let iterations = settings.kdfIterations, iterations > 0,
              let algorithm = settings.kdfAlgorithm,
              let saltText = try? String.fetchOne(db, sql: "PRAGMA main.cipher_salt"),
              let saltData = Data(hexadecimal: saltText), saltData.count == 16
        else { return }
        let salt = Array(saltData)
        guard var key = Self.derive(passphrase: passphrase, salt: salt, iterations: iterations, algorithm: algorithm) else { return }
        defer { GRDBCipher.wipe(&key) }
        guard Self.keyOpens(path: db.path, key: key, salt: salt, settings: settings) else { return }
        let fingerprint = passphrase.withUnsafeBytes { Self.fingerprint(of: $0, key: key) }
        lock.withLock {
            Self.wipe(&entry)
            entry = Entry(key: key, salt: salt, fingerprint: fingerprint)
        }
    }

    /// Forgets the derived key, wiping it.
    func wipeKey() {
        lock.withLock { Self.wipe(&entry) }
    }

    /// Takes the entry out (so that its arrays are not shared, and are wiped in place), wipes it.
    private static func wipe(_ entry: inout Entry?) {
        guard var old = entry else { return }
        entry = nil
        GRDBCipher.wipe(&old.key)
        GRDBCipher.wipe(&old.fingerprint)
    }

    /// The 32-byte key SQLCipher derives from `passphrase` and `salt`.
    static func derive(passphrase: [UInt8], salt: [UInt8], iterations: Int, algorithm: CipherSettings.KDFAlgorithm) -> [UInt8]? {
        let algorithmCode: CInt = switch algorithm {
        case .pbkdf2SHA1: 1
        case .pbkdf2SHA256: 256
        case .pbkdf2SHA512: 512
        }
        var key = [UInt8](repeating: 0, count: 32)
        let success = passphrase.withUnsafeBytes { passphraseBytes in
            grdbcipher_pbkdf2(
                passphraseBytes.baseAddress, CInt(passphraseBytes.count),
                salt, CInt(salt.count),
                CInt(iterations), algorithmCode,
                &key, CInt(key.count))
        }
        guard success == 1 else {
            GRDBCipher.wipe(&key)
            return nil
        }
        return key
    }

    /// Whether a connection keyed with the raw key reads the file.
    static func keyOpens(path: String, key: [UInt8], salt: [UInt8], settings: CipherSettings) -> Bool {
        guard let probe = try? Database.openProbe(path: path) else { return false }
        defer { try? probe.close() }
        var text = sqlcipherRawKeyText(key: key, salt: salt)
        defer { GRDBCipher.wipe(&text) }
        guard (try? probe.probeKey(text)) != nil,
              (try? probe.applyCipherSettings(settings)) != nil
        else { return false }
        return probe.canReadSchema()
    }

    private static func fingerprint(of passphrase: UnsafeRawBufferPointer, key: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        _ = grdbcipher_hmac_sha256(key, CInt(key.count), passphrase.baseAddress, passphrase.count, &out)
        return out
    }
}
