import Foundation
import GRDBCipher
@testable import GRDBCipherService
import Testing

/// The bytes of the database files at `path` (the file, its WAL), to show that a failed
/// operation left them as they were.
private func databaseBytes(_ path: String) -> [Data?] {
    ["", "-wal"].map { FileManager.default.contents(atPath: path + $0) }
}

/// A flag set once, read from another task.
private final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}

private func noteCount(_ service: DatabaseService) async throws -> Int {
    try await service.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note")! }
}

@Suite("DatabaseService backups")
struct DatabaseBackupTests {
    @Test func anOnlineBackupIsEncryptedConsistentAndVerified() async throws {
        let scratch = try Scratch()
        let service = try makeService(scratch)
        try await service.write { db in
            for i in 0..<200 { try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["note \(i) marmalade"]) }
        }
        // Writes go on before, during and after the backup: it holds one committed state.
        let stop = LockedFlag()
        let writes = Task {
            var next = 200
            while !stop.isSet {
                let i = next
                try await service.write { db in
                    try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["note \(i) marmalade"])
                    try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["pair of \(i)"])
                }
                next += 1
            }
        }
        while try await noteCount(service) < 300 { try await Task.sleep(for: .milliseconds(1)) }
        let path = scratch.path + "/backup.db"
        let report = try await service.backup(to: path)
        try await Task.sleep(for: .milliseconds(20))
        stop.set()
        try await writes.value
        let finalCount = try await noteCount(service)
        #expect(report.path == path)
        #expect(report.isEncrypted)
        #expect(report.pageCount > 1)
        #expect(report.byteCount == report.pageCount * 4096)
        let header = try #require(FileManager.default.contents(atPath: path)?.prefix(16))
        #expect(header != Data("SQLite format 3\u{0}".utf8), "the backup file is not plaintext SQLite")
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(bytes.range(of: Data("marmalade".utf8)) == nil)
        // No partial file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".partial-") }.isEmpty)
        try await service.stop()

        // The backup opens with the database's keyring only, and holds whole transactions.
        let keyring = try DatabaseKeyring.unlock(databaseAt: scratch.path + "/notes.db", with: .passphrase(slotSecret))
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.useKeyring(keyring) }
        let copy = try DatabaseQueue(path: path, configuration: configuration)
        let (notes, pairs) = try await copy.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note WHERE body LIKE 'note %'")!,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note WHERE body LIKE 'pair of %'")!)
        }
        #expect(notes >= 250)
        #expect(pairs == notes - 200)
        #expect(notes + pairs < finalCount, "the writes went on after the backup started")
        try copy.close()
        var wrongKey = Configuration()
        wrongKey.prepareDatabase { db in try db.usePassphrase("not the key") }
        #expect(throws: DatabaseError.self) {
            try DatabaseQueue(path: path, configuration: wrongKey).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM note") }
        }
    }

    @Test func aBackupNeverReplacesAFile() async throws {
        let scratch = try Scratch()
        let service = try makeService(scratch)
        let path = scratch.path + "/existing.db"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: path))
        await #expect {
            _ = try await service.backup(to: path)
        } throws: { error in
            guard case DatabaseServiceError.backupExists(path)? = error as? DatabaseServiceError else { return false }
            return "\(error)".contains("never replaces")
        }
        #expect(FileManager.default.contents(atPath: path) == Data("precious".utf8))
        // A directory that does not exist: an error, and nothing is left behind.
        await #expect(throws: (any Error).self) {
            _ = try await service.backup(to: scratch.path + "/missing/backup.db")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/missing"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".partial-") }.isEmpty)
        try await service.stop()
    }

    @Test func restoreReplacesTheDatabaseAndKeepsTheOldFilesAside() async throws {
        let scratch = try Scratch()
        let database = scratch.path + "/notes.db"
        var service = try makeService(scratch)
        try await service.write { db in try db.execute(sql: "INSERT INTO note(body) VALUES ('before')") }
        let backup = scratch.path + "/backup.db"
        try await service.backup(to: backup)
        try await service.write { db in try db.execute(sql: "INSERT INTO note(body) VALUES ('after')") }
        try await service.stop()

        let replaced = try DatabaseService.restore(backupAt: backup, to: database, key: .keyring(.passphrase(slotSecret)))
        let aside = try #require(replaced)
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(FileManager.default.fileExists(atPath: backup), "the backup stays")
        service = try makeService(scratch)
        let bodies = try await service.read { db in try String.fetchAll(db, sql: "SELECT body FROM note ORDER BY id") }
        #expect(bodies == ["before"])
        try await service.stop()

        // The files moved aside are the database as it was before the restore.
        let keyring = try DatabaseKeyring.unlock(databaseAt: database, with: .passphrase(slotSecret))
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.useKeyring(keyring) }
        let old = try DatabaseQueue(path: aside, configuration: configuration)
        let oldBodies = try await old.read { try String.fetchAll($0, sql: "SELECT body FROM note ORDER BY id") }
        #expect(oldBodies == ["before", "after"])
        try old.close()
    }

    @Test func restoreRefusesABadBackupAndChangesNothing() async throws {
        let scratch = try Scratch()
        let database = scratch.path + "/notes.db"
        let service = try makeService(scratch)
        try await service.write { db in
            for i in 0..<300 { try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["note \(i) " + String(repeating: "x", count: 100)]) }
        }
        let backup = scratch.path + "/backup.db"
        try await service.backup(to: backup)
        try await service.stop()
        let before = databaseBytes(database)
        let key = DatabaseServiceKey.keyring(.passphrase(slotSecret))

        // A damaged page: cipher_integrity_check finds it.
        let damaged = scratch.path + "/damaged.db"
        var bytes = try #require(FileManager.default.contents(atPath: backup))
        let pageSize = 4096
        #expect(bytes.count > 4 * pageSize)
        bytes[3 * pageSize + 100] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))
        #expect(throws: (any Error).self) {
            try DatabaseService.restore(backupAt: damaged, to: database, key: key)
        }
        #expect(databaseBytes(database) == before)

        // A backup of another database, with another key: it does not open.
        let otherScratch = try Scratch()
        let other = try makeService(otherScratch)
        try await other.stop()
        #expect(throws: (any Error).self) {
            try DatabaseService.restore(backupAt: otherScratch.path + "/notes.db", to: database, key: key)
        }
        #expect(databaseBytes(database) == before)

        // A plaintext file is not taken for an encrypted backup.
        let plaintext = scratch.path + "/plaintext.db"
        try await DatabaseQueue(path: plaintext).write { db in try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)") }
        #expect(throws: (any Error).self) {
            try DatabaseService.restore(backupAt: plaintext, to: database, key: key)
        }
        #expect(databaseBytes(database) == before)

        // A database in use by a running service is not replaced.
        let running = try makeService(scratch)
        let before2 = databaseBytes(database)
        #expect {
            try DatabaseService.restore(backupAt: backup, to: database, key: key)
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .SQLITE_BUSY && "\(error)".contains("in use")
        }
        #expect(databaseBytes(database) == before2)
        try await running.stop()
        let afterService = databaseBytes(database)

        // A missing backup: an error, and no file is made at its path.
        #expect(throws: (any Error).self) {
            try DatabaseService.restore(backupAt: scratch.path + "/missing.db", to: database, key: key)
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/missing.db"))
        #expect(databaseBytes(database) == afterService)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".restoring-") || $0.contains(".replaced-") }.isEmpty)
    }
}
