import CSQLCipher
import Foundation

// Which data key opens the database, after an interrupted rotation or creation, a power loss,
// or a keyring restored from an old backup. A key is dropped only when another key is proven
// to open the database and this one is refused with SQLITE_NOTADB: a probe that fails for
// another reason (the database busy, no file descriptor left) decides nothing, and the
// keyring is left as it is.

/// What a probe connection made of a key.
enum KeyProbe: Equatable {
    case opens
    case refused
    case undecided(String)
}

extension DatabaseKeyring {
    /// Opens the database read-only with `keyText`, and reads its schema.
    static func probe(_ keyText: [UInt8], path: String) -> KeyProbe {
        do {
            let probe = try Database.openProbe(path: path)
            defer { try? probe.close() }
            sqlite3_busy_timeout(probe.handle, 2_000)
            try probe.probeKey(keyText)
            guard let error = probe.schemaReadError() else { return .opens }
            return error.resultCode == .SQLITE_NOTADB ? .refused : .undecided(error.message ?? "SQLite error \(error.resultCode.rawValue)")
        } catch let error as DatabaseError {
            return .undecided(error.message ?? "SQLite error \(error.resultCode.rawValue)")
        } catch {
            return .undecided("\(type(of: error))")
        }
    }

    /// The probe of a data key of the document.
    static func probe(_ entry: KeyringDocument.DataKey, document: KeyringDocument, masterKey: [UInt8], databasePath: String, keyringPath: String) throws -> KeyProbe {
        var key = try unwrapDataKey(entry, document: document, masterKey: masterKey, keyringPath: keyringPath)
        defer { wipe(&key) }
        var text = sqlcipherRawKeyText(key: key, salt: Array(document.databaseSalt))
        defer { wipe(&text) }
        return probe(text, path: databasePath)
    }

    /// Settles the document with the database, under the keyring's lock (the caller holds
    /// it), and writes it when it changed. Returns the document with one active key, and
    /// perhaps a retired one.
    static func settle(_ document: KeyringDocument, masterKey: [UInt8], databasePath: String, keyringPath: String) throws -> KeyringDocument {
        guard fileSize(databasePath).map({ $0 > 0 }) ?? false else {
            // No database yet: the first connection creates it with the active key.
            return document
        }
        var settled = document
        func undecided(_ reason: String) -> KeyringError {
            KeyringError(.databaseUnavailable, "cannot tell which key of the keyring \(keyringPath) opens the database \(databasePath) (\(reason)); nothing was changed: try again")
        }
        func keep(_ winner: KeyringDocument.DataKey, retiring loser: KeyringDocument.DataKey?) {
            settled.dataKeys = [winner]
            settled.dataKeys[0].state = .active
            if var loser {
                loser.state = .retired
                settled.dataKeys.append(loser)
            }
        }
        let active = document.activeDataKey
        if let pending = document.pendingDataKey {
            // A re-key killed in its transaction left a hot journal, and pages of both keys:
            // its rollback (which needs no key) brings back the old key's pages first.
            try SQLCipherFile.rollBackInterruptedTransaction(atPath: databasePath)
            let pendingProbe = try probe(pending, document: document, masterKey: masterKey, databasePath: databasePath, keyringPath: keyringPath)
            guard let active else {
                // An interrupted creation.
                switch pendingProbe {
                case .opens:
                    keep(pending, retiring: nil)
                case .refused:
                    throw KeyringError(.wrongDatabase, "the database \(databasePath) was not re-encrypted to the keyring's key (an interrupted creation): remove \(keyringPath) and create the keyring again")
                case .undecided(let reason):
                    throw undecided(reason)
                }
                return try written(settled, original: document, masterKey: masterKey, keyringPath: keyringPath)
            }
            let activeProbe = try probe(active, document: document, masterKey: masterKey, databasePath: databasePath, keyringPath: keyringPath)
            switch (pendingProbe, activeProbe) {
            case (.opens, .refused):
                // The re-key went through. The old key stays retired until the next rotation:
                // nothing proves the re-encryption reached the disk.
                keep(pending, retiring: active)
            case (.refused, .opens):
                keep(active, retiring: nil)
            case (.undecided(let reason), _), (_, .undecided(let reason)):
                throw undecided(reason)
            default:
                throw undecided("the keys gave \(pendingProbe) and \(activeProbe)")
            }
            return try written(settled, original: document, masterKey: masterKey, keyringPath: keyringPath)
        }
        guard let active else {
            throw KeyringError(.damagedKeyring, "the keyring \(keyringPath) has no data key")
        }
        let activeProbe = try probe(active, document: document, masterKey: masterKey, databasePath: databasePath, keyringPath: keyringPath)
        switch activeProbe {
        case .opens:
            return document
        case .undecided:
            // A connection will tell.
            return document
        case .refused:
            if let retired = document.retiredDataKey,
               try probe(retired, document: document, masterKey: masterKey, databasePath: databasePath, keyringPath: keyringPath) == .opens
            {
                // A power loss undid the last rotation: the database has the retired key.
                keep(retired, retiring: nil)
                return try written(settled, original: document, masterKey: masterKey, keyringPath: keyringPath)
            }
            throw KeyringError(.wrongDatabase, "the data key of the keyring \(keyringPath) does not open the database \(databasePath): the keyring is older than the database (restored from a backup?), or the database was replaced")
        }
    }

    private static func written(_ settled: KeyringDocument, original: KeyringDocument, masterKey: [UInt8], keyringPath: String) throws -> KeyringDocument {
        if settled != original {
            try KeyringFile.write(settled, masterKey: masterKey, to: keyringPath, replacing: true)
        }
        return settled
    }

    /// Makes the re-encryption of the database durable: the WAL checkpointed and truncated,
    /// the file and its directory synced. False when it could not be done.
    static func makeDurable(_ db: Database) -> Bool {
        do {
            if try String.fetchOne(db, sql: "PRAGMA journal_mode")?.lowercased() == "wal" {
                _ = try db.checkpoint(.truncate)
            }
            try fsyncPath(db.path)
            try fsyncPath(URL(fileURLWithPath: db.path).deletingLastPathComponent().path)
            return true
        } catch {
            return false
        }
    }

    static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }
}
