import CSQLCipher
import Foundation

extension Database {
    /// `VACUUM INTO` for an encrypted connection: the new file has the key and the cipher
    /// settings of the original.
    ///
    /// SQLCipher's own `VACUUM INTO` attaches the new file with the main database's key but with
    /// the default cipher settings, so the copy of a database with another page size or HMAC
    /// algorithm does not open with the original's configuration. Here the new file is attached
    /// without a key (SQLCipher then gives it the main database's key and salt: no key bytes go
    /// through SQL), it gets the original's cipher settings, and `sqlcipher_export` fills it. The
    /// new file's header is checked before returning: a file that starts like a plaintext SQLite
    /// file is deleted, and the call throws.
    func encryptedVacuum(into filePath: String) throws {
        let settings = try currentCipherSettings()
        if let size = settings.plaintextHeaderSize, size > 0 {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "vacuum(into:): the database has a plaintext header, which a copy cannot keep "
                    + "with the same key: use exportDatabase(to:options:) with the key and settings of the copy")
        }
        let previousSize = (try? FileManager.default.attributesOfItem(atPath: filePath))?[.size] as? Int
        if let size = previousSize, size > 0 {
            // SQLite's own error for VACUUM INTO an existing file.
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "output file already exists", sql: "VACUUM INTO ?")
        }

        let schema = "grdbcipher_vacuum"
        var attached = false
        defer { if attached { try? execute(sql: "DETACH DATABASE \(schema)") } }
        do {
            // Inside the `do`: a failed ATTACH may leave an empty file, removed below.
            try execute(sql: "ATTACH DATABASE ? AS \(schema)", arguments: [filePath])
            attached = true
            // The attached file has SQLCipher's default settings. Changing one makes SQLCipher
            // derive the file's key again, with the file's key derivation settings and the
            // main database's salt: all of them are set, the derivation ones included.
            var copySettings = CipherSettings()
            copySettings.pageSize = settings.pageSize
            copySettings.kdfIterations = settings.kdfIterations
            copySettings.hmacAlgorithm = settings.hmacAlgorithm
            copySettings.kdfAlgorithm = settings.kdfAlgorithm
            copySettings.usesHMAC = settings.usesHMAC
            try applyCipherSettings(copySettings, schema: schema)
            let autoVacuum = try pragmaInteger("PRAGMA main.auto_vacuum") ?? 0
            let userVersion = try pragmaInteger("PRAGMA main.user_version") ?? 0
            let applicationID = try pragmaInteger("PRAGMA main.application_id") ?? 0
            try execute(sql: "PRAGMA \(schema).auto_vacuum = \(autoVacuum)")
            try runSQLCipherExport("'\(schema)'")
            try execute(sql: "PRAGMA \(schema).user_version = \(userVersion)")
            try execute(sql: "PRAGMA \(schema).application_id = \(applicationID)")
            try execute(sql: "DETACH DATABASE \(schema)")
            attached = false
            try checkEncryptedHeader(filePath)
        } catch {
            if attached { try? execute(sql: "DETACH DATABASE \(schema)") }
            attached = false
            // No partial copy: removed when the call created it, emptied again when it was an
            // empty file.
            if previousSize == nil {
                removeFileAndSidecars(filePath)
            } else {
                truncate(filePath, 0)
                removeFileAndSidecars(filePath, keepingMainFile: true)
            }
            throw error
        }
    }

    /// Throws if the file at `path` starts with the plaintext SQLite header.
    private func checkEncryptedHeader(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "vacuum(into:): cannot read the new file")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header == Data("SQLite format 3\0".utf8) {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "vacuum(into:): SQLCipher wrote the copy of an encrypted database unencrypted "
                    + "(the connection's key does not apply to attached files): the copy was deleted")
        }
    }
}

extension Database {
    /// Runs `SELECT sqlcipher_export(arguments)`. The function reports the failure of a
    /// statement it runs as SQLITE_ERROR with that statement's message: an I/O error, a full
    /// disk or a damaged file gets its own result code back, found by SQLite's message for it.
    func runSQLCipherExport(_ arguments: String) throws {
        do {
            _ = try Row.fetchAll(self, sql: "SELECT sqlcipher_export(\(arguments))")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            let codes: [ResultCode] = [.SQLITE_IOERR, .SQLITE_FULL, .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_BUSY, .SQLITE_NOMEM, .SQLITE_READONLY, .SQLITE_INTERRUPT]
            if let code = codes.first(where: { error.message == String(cString: sqlite3_errstr($0.rawValue)) }) {
                throw DatabaseError(resultCode: code, message: error.message, sql: error.sql)
            }
            throw error
        }
    }
}
