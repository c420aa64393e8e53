import CSQLCipher
import Foundation

extension DatabaseWriter {
    /// Erases the database: deletes all content, drops all tables, views, triggers and indexes,
    /// and resets `user_version`. An encrypted database stays encrypted, with the same key and
    /// cipher settings.
    ///
    /// ```swift
    /// try dbQueue.erase()
    /// ```
    ///
    /// It runs when no read is running, and holds reads until it is done.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/c_dbconfig_defensive.html#sqlitedbconfigresetdatabase>
    public func erase() throws {
        try barrierWriteWithoutTransaction { db in try db.erase() }
    }

    /// Erases the database; see ``erase()``.
    ///
    /// ```swift
    /// try await dbQueue.erase()
    /// ```
    public func erase() async throws {
        try await barrierWriteWithoutTransaction { db in try db.erase() }
    }

    /// Rebuilds the database file, repacking it into a minimal amount of disk space (`VACUUM`).
    /// An encrypted database stays encrypted, with the same key and cipher settings.
    ///
    /// ```swift
    /// try dbQueue.vacuum()
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_vacuum.html>
    public func vacuum() throws {
        try writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
    }

    /// Rebuilds the database file; see ``vacuum()``.
    ///
    /// ```swift
    /// try await dbQueue.vacuum()
    /// ```
    public func vacuum() async throws {
        try await writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
    }

    /// Writes a copy of the database, repacked into a minimal amount of disk space, into a new
    /// file at `filePath` (`VACUUM INTO`). The file must not exist, or be empty.
    ///
    /// ```swift
    /// try dbQueue.vacuum(into: "/path/to/copy.sqlite")
    /// ```
    ///
    /// The copy of an encrypted database is encrypted with the same key and the same cipher
    /// settings: it opens with the configuration that opens the original. A database with a
    /// plaintext header (`cipher_plaintext_header_size`) is refused: copy it with
    /// ``DatabaseReader/exportDatabase(to:options:)``, which takes the key and the settings of
    /// the new file.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_vacuum.html#vacuuminto>
    public func vacuum(into filePath: String) throws {
        try writeWithoutTransaction { db in try db.vacuum(into: filePath) }
    }

    /// Writes a repacked copy of the database into a new file; see ``vacuum(into:)``.
    ///
    /// ```swift
    /// try await dbQueue.vacuum(into: "/path/to/copy.sqlite")
    /// ```
    public func vacuum(into filePath: String) async throws {
        try await writeWithoutTransaction { db in try db.vacuum(into: filePath) }
    }
}

extension Database {
    /// Deletes everything in the database, with `SQLITE_DBCONFIG_RESET_DATABASE` and `VACUUM`.
    /// The connection keeps its key: an encrypted file is rewritten encrypted.
    func erase() throws {
        try sqliteCheck(grdbcipher_db_config_int(handle, SQLITE_DBCONFIG_RESET_DATABASE, 1, nil), handle)
        defer {
            _ = grdbcipher_db_config_int(handle, SQLITE_DBCONFIG_RESET_DATABASE, 0, nil)
            clearSchemaCache()
        }
        try execute(sql: "VACUUM")
    }

    /// `VACUUM INTO`, or, on an encrypted connection, the copy that keeps the key and the
    /// cipher settings (SQLCipher's `VACUUM INTO` writes the new file with the default page
    /// size and HMAC algorithm, which the original's settings do not open).
    ///
    /// A copy that fails (an I/O error, a full disk) leaves no partial file behind: the file is
    /// removed when the call created it, and emptied again when it was an empty file before.
    func vacuum(into filePath: String) throws {
        if isEncrypted {
            try encryptedVacuum(into: filePath)
            return
        }
        let previousSize = (try? FileManager.default.attributesOfItem(atPath: filePath))?[.size] as? Int
        do {
            try execute(sql: "VACUUM INTO ?", arguments: [filePath])
        } catch {
            // VACUUM INTO refuses a non-empty file without touching it.
            switch previousSize {
            case nil:
                removeFileAndSidecars(filePath)
            case 0:
                truncate(filePath, 0)
                removeFileAndSidecars(filePath, keepingMainFile: true)
            default:
                break
            }
            throw error
        }
    }
}
