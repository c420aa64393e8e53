import Foundation

/// The keying of an SQLCipher connection (see ``ConnectionKeying``): whether it was keyed, the
/// copy of the key kept while it opens (to tell a wrong key from a damaged file), and, for a
/// pool's connections, the pool's key cache and the passphrase to teach it.
final class CipherKeying: ConnectionKeying {
    var isEncrypted = false
    /// The key cache of the pool the connection belongs to, if any.
    let keyCache: PoolKeyCache?
    /// A copy of the key while the connection opens, for the diagnosis of error 26.
    var keyForDiagnosis: DiagnosisKey?
    /// A copy of the passphrase this connection was keyed with, kept until the pool's key cache
    /// has learned from it (then wiped), when the cache did not know it.
    var passphraseToLearn: [UInt8]?
    /// Whether the connection was keyed from the pool's key cache.
    var usedCachedKey = false

    var usedSharedKey: Bool { usedCachedKey }

    init(keyCache: PoolKeyCache?) {
        self.keyCache = keyCache
    }

    func connectionWillPrepare(_ db: Database) {
        db.silenceCipherLoggingIfNeeded()
        keyForDiagnosis = DiagnosisKey()
    }

    func explainOpeningFailure(_ error: DatabaseError, in db: Database) -> DatabaseError {
        let path = db.path
        switch error.resultCode {
        case .SQLITE_CORRUPT where !isEncrypted && FileDiagnosis.hasUnreadableSQLiteHeader(path: path):
            // A plaintext SQLite header over pages SQLite cannot read: SQLite's verdict on
            // the encrypted bytes after the header is random (error 1 or 11).
            return DatabaseError(
                resultCode: error.extendedResultCode,
                message: FileDiagnosis.notADatabaseMessage(path: path, keyBytes: nil))
        case .SQLITE_CORRUPT:
            // The first page was read (and, with a key, decrypted and authenticated).
            return DatabaseError(
                resultCode: error.extendedResultCode,
                message: FileDiagnosis.damagedMessage(error.message, encrypted: isEncrypted))
        case .SQLITE_NOTADB,
             // A file with a plaintext SQLCipher header, opened without its key: SQLite reads
             // the header, then pages it cannot use (its verdict varies).
             .SQLITE_ERROR where !isEncrypted && FileDiagnosis.hasUnreadableSQLiteHeader(path: path),
             // The same file opened with a wrong key or salt.
             .SQLITE_ERROR where isEncrypted:
            // Not for a pool connection keyed with the pool's derived key: its NOTADB tells the
            // pool to forget that key (a file restored with a new salt) and derive it again.
            if isEncrypted, !usedCachedKey, let keyBytes = keyForDiagnosis?.bytes,
               let settings = Self.ownSettings(db),
               let probe = probeFormats(path: path, keyBytes: keyBytes, candidates: [(nil, settings)]),
               probe.damage == nil
            {
                // The same key and settings open the file: the failure was not about them.
                // SQLCipher reads the salt once, and a failed read there (an I/O error) or a
                // file changed meanwhile (re-keyed by another process) looks like a wrong key.
                try? probe.db.close()
                return DatabaseError(
                    resultCode: .SQLITE_IOERR,
                    message: "the file could not be read while the connection opened it, although its key and cipher "
                        + "settings open it (an I/O error, or the file changed during the opening): try again")
            }
            return DatabaseError(
                resultCode: error.extendedResultCode,
                message: FileDiagnosis.notADatabaseMessage(path: path, keyBytes: isEncrypted ? keyForDiagnosis?.bytes : nil))
        default:
            return error
        }
    }

    /// The cipher settings the connection used, as a probe applies them.
    private static func ownSettings(_ db: Database) -> CipherSettings? {
        guard var settings = try? db.currentCipherSettings() else { return nil }
        settings.compatibility = nil
        return settings
    }

    func connectionDidOpen(_ db: Database) throws {
        try db.noticeKeyFromSQL()
        teachKeyCacheIfNeeded(db)
    }

    func connectionDidFinishOpening(_ db: Database) {
        keyForDiagnosis?.wipe()
        keyForDiagnosis = nil
    }

    func connectionWillClose(_ db: Database) {
        discardPassphraseToLearn()
    }

    /// After the opening: when the connection was keyed with a passphrase its pool's key cache
    /// did not know, the cache derives the key from it. The copy of the passphrase is wiped
    /// either way.
    func teachKeyCacheIfNeeded(_ db: Database) {
        guard var passphrase = passphraseToLearn else { return }
        passphraseToLearn = nil // `passphrase` is the only reference left: wiped in place below
        keyCache?.learn(passphrase: passphrase, from: db)
        wipe(&passphrase)
    }

    /// Wipes the copy of the passphrase kept for the key cache.
    func discardPassphraseToLearn() {
        guard var passphrase = passphraseToLearn else { return }
        passphraseToLearn = nil // the only reference left is `passphrase`: wiped in place
        wipe(&passphrase)
    }
}

/// The keyings of a queue's connection or of a pool's connections: with
/// `Configuration.derivesPoolKeyOnce`, a pool's connections share a key cache.
final class CipherKeyingSource: ConnectionKeyingSource {
    let keyCache: PoolKeyCache?

    /// The source for a queue, or for a pool (`pool`), of this configuration.
    init(configuration: Configuration, pool: Bool) {
        keyCache = pool && configuration.derivesPoolKeyOnce ? PoolKeyCache() : nil
    }

    func makeKeying() -> any ConnectionKeying {
        CipherKeying(keyCache: keyCache)
    }

    func forgetSharedKey() {
        keyCache?.wipeKey()
    }
}

extension Database {
    /// Whether the connection was keyed from its pool's key cache.
    var usedCachedKey: Bool { cipherKeying.usedCachedKey }

    /// The copy of the passphrase kept until the pool's key cache learns from it, if any.
    var passphraseToLearn: [UInt8]? { cipherKeying.passphraseToLearn }

    /// The connection's SQLCipher keying.
    var cipherKeying: CipherKeying {
        // Every connection of this library is keyed by a CipherKeying (see
        // `Database.makeKeyingSource`).
        keying as! CipherKeying
    }

    /// The keyings of the connections of a queue or a pool: SQLCipher's. The composition point
    /// of decision 14, where Core is handed its keying strategy.
    static func makeKeyingSource(_ configuration: Configuration, pool: Bool) -> any ConnectionKeyingSource {
        CipherKeyingSource(configuration: configuration, pool: pool)
    }
}

extension DatabasePool {
    /// The key cache the pool's connections share, if the configuration derives the pool's key
    /// once.
    var keyCache: PoolKeyCache? {
        (keyingSource as? CipherKeyingSource)?.keyCache
    }
}
