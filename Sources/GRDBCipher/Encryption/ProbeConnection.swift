import CSQLCipher
import Foundation

extension Database {
    /// Opens a bare connection for probing or verifying a file: not confined to a queue, no
    /// configuration applied, read-only unless asked. Internal tools only.
    static func openProbe(path: String, readonly: Bool = true) throws -> Database {
        var configuration = Configuration()
        configuration.readonly = readonly
        let db = try Database(
            path: path, description: "GRDBCipher.probe", configuration: configuration,
            keying: CipherKeying(keyCache: nil))
        db.silenceCipherLoggingIfNeeded()
        return db
    }

    /// Keys a probe connection with raw `sqlite3_key` bytes.
    func probeKey(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buffer in
            try sqliteCheck(sqlite3_key(handle, buffer.baseAddress, CInt(buffer.count)), handle)
        }
        cipherKeying.isEncrypted = true
        silenceCipherLoggingIfNeeded()
    }

    /// The integer result of a pragma. SQLCipher answers some pragmas with text (on an encrypted
    /// connection, `PRAGMA page_size` returns the text column `cipher_page_size`).
    func pragmaInteger(_ sql: String) throws -> Int? {
        guard let dbValue = try DatabaseValue.fetchOne(self, sql: sql) else { return nil }
        switch dbValue.storage {
        case .int64(let value): return Int(value)
        case .string(let text): return Int(text)
        default: return nil
        }
    }

    /// The number of rows of every table of `schema`, `sqlite_sequence` included: what an
    /// export or an upgrade must carry over, and what its verification compares.
    func tableRowCounts(schema: String = "main") throws -> [String: Int] {
        let qualifier = schema.quotedDatabaseIdentifier
        var counts: [String: Int] = [:]
        for table in try String.fetchAll(self, sql: "SELECT name FROM \(qualifier).sqlite_master WHERE type = 'table'") {
            counts[table] = try Int.fetchOne(self, sql: "SELECT COUNT(*) FROM \(qualifier).\(table.quotedDatabaseIdentifier)") ?? 0
        }
        return counts
    }

    /// Whether `integrity_check` is ok and, on an encrypted connection, `cipher_integrity_check`
    /// reports nothing. Returns the first problems otherwise.
    func integrityAndCipherProblems() throws -> [String] {
        let integrity = try integrityProblems(maxErrors: 3)
        if !integrity.isEmpty { return integrity }
        return isEncrypted ? Array(cipherIntegrityCheckRows().prefix(3)) : []
    }

    /// Whether the schema can be read.
    func canReadSchema() -> Bool {
        schemaReadError() == nil
    }

    /// The error of reading the schema, if any.
    func schemaReadError() -> DatabaseError? {
        do {
            _ = try Int.fetchOne(self, sql: "SELECT COUNT(*) FROM sqlite_master")
            return nil
        } catch let error as DatabaseError {
            return error
        } catch {
            return DatabaseError(resultCode: .SQLITE_ERROR, message: "\(error)")
        }
    }
}

extension CipherKey {
    /// The bytes `sqlite3_key` takes, as an array the caller must wipe.
    func keyBytes() throws -> [UInt8] {
        try withKeyBytes { Array($0) }
    }
}

/// Opens `path` with `keyBytes` and each candidate settings in turn; returns the first that
/// decrypts the file, with the open connection. A file that decrypts but is damaged (truncated, or
/// with altered pages past the first) matches too, with the damage described.
func probeFormats(
    path: String,
    keyBytes: [UInt8],
    candidates: [(format: Int?, settings: CipherSettings)]) -> (format: Int?, settings: CipherSettings, db: Database, damage: String?)?
{
    for candidate in candidates {
        guard let db = try? Database.openProbe(path: path) else { return nil }
        guard (try? db.probeKey(keyBytes)) != nil,
              (try? db.applyCipherSettings(candidate.settings)) != nil
        else {
            try? db.close()
            continue
        }
        switch db.schemaReadError() {
        case nil:
            return (candidate.format, candidate.settings, db, nil)
        case let error? where error.resultCode == .SQLITE_CORRUPT:
            return (candidate.format, candidate.settings, db, error.message ?? "damaged")
        default:
            try? db.close()
        }
    }
    return nil
}
