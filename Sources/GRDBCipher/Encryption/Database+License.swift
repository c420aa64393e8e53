import CSQLCipher

extension Database {
    /// Applies the license of a commercial or enterprise edition of SQLCipher:
    /// `PRAGMA cipher_license = '…'`. Call it from ``Configuration/prepareDatabase(_:)``,
    /// before the key:
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.prepareDatabase { db in
    ///     try db.applySQLCipherLicense(license)
    ///     try db.usePassphrase(passphrase)
    /// }
    /// ```
    ///
    /// The license is a secret: the statement is left out of ``trace(options:_:)``, SQLite's
    /// messages about it are withheld from ``logError``, and errors never quote it. The
    /// community edition of SQLCipher ignores the pragma.
    ///
    /// Related SQLCipher documentation: <https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_license>
    public func applySQLCipherLicense(_ license: String) throws {
        preconditionValidAccess()
        if license.utf8.contains(0) {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "invalid SQLCipher license: it contains a NUL character")
        }
        // A pragma takes no bound parameter: the license goes into the SQL text, quoted, in a
        // buffer that is wiped afterwards.
        var sql = Array("PRAGMA cipher_license = '".utf8)
        for byte in license.utf8 {
            sql.append(byte)
            if byte == UInt8(ascii: "'") { sql.append(byte) }
        }
        sql += Array("'".utf8)
        sql.append(0)
        defer { wipe(&sql) }
        let handle = self.handle
        let code: CInt = withSecretStatement {
            sql.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { text in
                    var statement: OpaquePointer?
                    var code = sqlite3_prepare_v2(handle, text.baseAddress, -1, &statement, nil)
                    guard code == SQLITE_OK else { return code }
                    defer { sqlite3_finalize(statement) }
                    repeat {
                        code = sqlite3_step(statement)
                    } while code == SQLITE_ROW
                    return code == SQLITE_DONE ? SQLITE_OK : code
                }
            }
        }
        guard code == SQLITE_OK else {
            // SQLite's message may quote the statement: it is kept only when it does not.
            let sqliteMessage = lastErrorMessage.flatMap { $0.contains(license) ? nil : $0 }
            throw DatabaseError(
                resultCode: ResultCode(rawValue: sqlite3_extended_errcode(handle)),
                message: "the SQLCipher license was not applied" + (sqliteMessage.map { ": \($0)" } ?? ""))
        }
    }
}
