import CSQLCipher
import Foundation

/// The backup path for two databases SQLCipher will not copy pages between (plaintext and
/// encrypted, or different keys or settings).
///
/// The source's pages, as its connection reads them (decrypted), are staged in a plaintext
/// in-memory database that the destination attaches. The destination is then emptied and filled
/// with `sqlcipher_export` inside one transaction, so it keeps its own key and settings, and a
/// failure rolls it back to what it was.
///
/// The source is read through its raw handle: like SQLite's backup API, this runs while the
/// caller holds the source in an access closure of its own, on another thread.
extension Database {
    func copyByExport(to destination: Database, progress: ((DatabaseBackupProgress) throws -> Void)?) throws {
        let staging = try PlaintextStaging(source: handle)
        defer { staging.close() }
        try progress?(DatabaseBackupProgress(remainingPageCount: staging.pageCount, totalPageCount: staging.pageCount, isCompleted: false))

        let schema = "grdbcipher_backup_source"
        // KEY '': without it the attached database would take the destination's key.
        try destination.execute(sql: "ATTACH DATABASE ? AS \(schema) KEY ''", arguments: [staging.uri])
        defer { try? destination.execute(sql: "DETACH DATABASE \(schema)") }

        try destination.inTransaction(.immediate) {
            try destination.removeAllSchemaObjects()
            try destination.runSQLCipherExport("'main', '\(schema)'")
            try destination.execute(sql: "PRAGMA main.user_version = \(staging.userVersion)")
            try destination.execute(sql: "PRAGMA main.application_id = \(staging.applicationID)")
            // sqlcipher_export writes views, triggers and virtual tables straight into
            // sqlite_master: bump the schema cookie so that every connection, this one included,
            // reloads the schema.
            let schemaVersion = try Int.fetchOne(destination, sql: "PRAGMA main.schema_version") ?? 0
            try destination.execute(sql: "PRAGMA main.schema_version = \(schemaVersion + 1)")
            return .commit
        }
        // Complete: an error thrown by `progress` now is ignored, as in `backup(to:)`.
        try? progress?(DatabaseBackupProgress(remainingPageCount: 0, totalPageCount: staging.pageCount, isCompleted: true))
    }

    /// Drops every table, view, index and trigger of the main schema, and empties
    /// `sqlite_sequence`, inside the caller's transaction. Foreign keys are checked at commit,
    /// when the referencing tables are gone too.
    func removeAllSchemaObjects() throws {
        try execute(sql: "PRAGMA defer_foreign_keys = ON")
        let objects = try Row.fetchAll(self, sql: """
            SELECT type, name, sql LIKE 'CREATE VIRTUAL TABLE%' AS isVirtual FROM main.sqlite_master
            WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            ORDER BY isVirtual DESC
            """)
        for object in objects {
            let type: String = object["type"]
            let name: String = object["name"]
            // Virtual tables go first: dropping one drops its shadow tables, which are skipped.
            try execute(sql: "DROP \(type == "view" ? "VIEW" : "TABLE") IF EXISTS main.\(name.quotedDatabaseIdentifier)")
        }
        let hasSequence = try Bool.fetchOne(self, sql: "SELECT COUNT(*) FROM main.sqlite_master WHERE name = 'sqlite_sequence'") ?? false
        if hasSequence {
            try execute(sql: "DELETE FROM main.sqlite_sequence")
        }
    }
}

/// A plaintext in-memory copy of a database, shared by name (memdb VFS) so that another
/// connection can attach it without a key.
///
/// `sqlite3_serialize` gives the source's pages as its connection reads them (decrypted). They
/// cannot be deserialized straight into the destination: SQLCipher gives a deserialized schema the
/// main database's key. So they are deserialized into a private unkeyed connection, then copied
/// with SQLite's backup API into the named database. The serialized buffer is wiped; the named
/// database's memory is released by SQLite when the last connection lets it go, and wiped then
/// only if `cipher_memory_security` is on, like SQLCipher's own page cache.
private final class PlaintextStaging {
    let uri = "file:/grdbcipher-backup-\(UUID().uuidString)?vfs=memdb"
    let userVersion: Int64
    let applicationID: Int64
    let pageCount: Int
    private var holder: OpaquePointer?

    init(source: OpaquePointer) throws {
        func integer(_ sql: String) throws -> Int64 {
            var statement: OpaquePointer?
            try sqliteCheck(sqlite3_prepare_v2(source, sql, -1, &statement, nil), source)
            defer { sqlite3_finalize(statement) }
            let code = sqlite3_step(statement)
            guard code == SQLITE_ROW else {
                throw makeDatabaseError(code == SQLITE_DONE ? SQLITE_ERROR : code, source)
            }
            return sqlite3_column_int64(statement, 0)
        }
        userVersion = try integer("PRAGMA main.user_version")
        applicationID = try integer("PRAGMA main.application_id")
        pageCount = Int(try integer("PRAGMA main.page_count"))

        var size: sqlite3_int64 = 0
        guard let bytes = sqlite3_serialize(source, "main", &size, 0) else {
            let code = sqlite3_errcode(source)
            throw makeDatabaseError(code == SQLITE_OK ? SQLITE_NOMEM : code, source)
        }
        defer {
            wipe(UnsafeMutableRawBufferPointer(start: bytes, count: Int(size)))
            sqlite3_free(bytes)
        }

        var reader: OpaquePointer?
        defer { sqlite3_close_v2(reader) }
        try sqliteCheck(sqlite3_open_v2(":memory:", &reader, SQLITE_OPEN_READWRITE, nil), reader)
        try sqliteCheck(sqlite3_deserialize(reader, "main", bytes, size, size, UInt32(SQLITE_DESERIALIZE_READONLY)), reader)

        do {
            try sqliteCheck(sqlite3_open_v2(uri, &holder, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, nil), holder)
            guard let backup = sqlite3_backup_init(holder, "main", reader, "main") else {
                throw makeDatabaseError(sqlite3_errcode(holder), holder)
            }
            let code = sqlite3_backup_step(backup, -1)
            sqlite3_backup_finish(backup)
            guard code == SQLITE_DONE else { throw makeDatabaseError(code, holder) }
        } catch {
            close()
            throw error
        }
    }

    func close() {
        sqlite3_close_v2(holder)
        holder = nil
    }
}
