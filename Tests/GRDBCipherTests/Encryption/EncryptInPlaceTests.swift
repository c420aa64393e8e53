import Foundation
import Testing
@testable import GRDBCipher

@Suite("Encrypting a plaintext database in place")
struct EncryptInPlaceTests {
    private static let key = CipherKey.passphrase("release-2026")
    private static let sqliteHeader = Data("SQLite format 3\0".utf8)

    private static func keyed(_ key: CipherKey = key) -> Configuration {
        var config = Configuration()
        config.prepareDatabase { db in try db.use(key) }
        return config
    }

    /// A plaintext database as a service has it in production: migrated, versioned, with an
    /// application id and rows still in its WAL.
    private static func makeProductionDatabase(at path: String) throws -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createAccount") { db in
            try db.create(table: "account") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("holder", .text).notNull()
            }
        }
        var config = Configuration()
        config.journalMode = .wal
        let dbQueue = try DatabaseQueue(path: path, configuration: config)
        try migrator.migrate(dbQueue)
        try dbQueue.write { db in
            try db.execute(sql: "PRAGMA user_version = 7; PRAGMA application_id = 1234")
            for index in 0..<500 {
                try db.execute(sql: "INSERT INTO account(holder) VALUES (?)", arguments: ["holder \(index)"])
            }
        }
        try dbQueue.close()
        return migrator
    }

    private static func header(_ path: String) throws -> Data {
        try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).readData(ofLength: 16)
    }

    @Test func plaintextBecomesEncryptedThenStaysAsItIs() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("service.sqlite")
        let migrator = try Self.makeProductionDatabase(at: path)
        #expect(try Self.header(path) == Self.sqliteHeader)

        #expect(try SQLCipherFile.encryptInPlace(atPath: path, key: Self.key) == .encrypted)
        #expect(try Self.header(path) != Self.sqliteHeader)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(files == ["service.sqlite"]) // no copy, WAL or temporary file left beside it

        let dbQueue = try DatabaseQueue(path: path, configuration: Self.keyed())
        try dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM account") == 500)
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 7)
            #expect(try Int.fetchOne(db, sql: "PRAGMA application_id") == 1234)
            #expect(try migrator.hasCompletedMigrations(db))
        }
        try dbQueue.close()
        #expect(throws: DatabaseError.self) { _ = try DatabaseQueue(path: path) } // no longer plaintext

        // At the next startup: nothing to do, the file is untouched.
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try SQLCipherFile.encryptInPlace(atPath: path, key: Self.key) == .alreadyEncrypted)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func noFileIsNothingToDo() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.sqlite")
        #expect(try SQLCipherFile.encryptInPlace(atPath: path, key: Self.key) == .noDatabase)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func refusedFilesAreLeftUntouched() throws {
        let directory = try TemporaryDirectory()

        // Encrypted with another key.
        let other = directory.path("other.sqlite")
        let otherQueue = try DatabaseQueue(path: other, configuration: Self.keyed(.passphrase("another")))
        try otherQueue.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        try otherQueue.close()

        // Not a database.
        let text = directory.path("notes.txt")
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: text))

        // A damaged plaintext database.
        let damaged = directory.path("damaged.sqlite")
        let damagedQueue = try DatabaseQueue(path: damaged)
        try damagedQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a); CREATE INDEX t_a ON t(a)")
            for index in 0..<2000 { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["row \(index)"]) }
        }
        try damagedQueue.close()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: damaged))
        try handle.seek(toOffset: 4096 * 3 + 100)
        handle.write(Data(repeating: 0xEE, count: 600))
        try handle.close()

        for (path, code) in [(other, ResultCode.SQLITE_NOTADB), (text, .SQLITE_NOTADB), (damaged, .SQLITE_CORRUPT)] {
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let error = expectDatabaseError(code) { try SQLCipherFile.encryptInPlace(atPath: path, key: Self.key) }
            #expect(error?.message?.contains("release-2026") == false)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(path)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
            == ["damaged.sqlite", "notes.txt", "other.sqlite"])
    }

    @Test func crashBeforeTheRenameLeavesThePlaintextFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("service.sqlite")
        _ = try Self.makeProductionDatabase(at: path)
        // Fold the WAL so that the file holds everything and can be compared byte for byte.
        let folding = try DatabaseQueue(path: path)
        _ = try await folding.writeWithoutTransaction { try $0.foldWAL() }
        try folding.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        await #expect(processExitsWith: .exitCode(9)) { [path = path as String] in
            UpgradeTestHooks.beforeRename = { _exit(9) }
            try SQLCipherFile.encryptInPlace(atPath: path, key: .passphrase("release-2026"))
        }
        // Killed after the encrypted copy was written, before it replaced the original.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) where name != "service.sqlite" {
            // What the kill left beside the file is encrypted, never a plaintext copy.
            #expect(try Self.header(directory.path(name)) != Self.sqliteHeader, "\(name)")
        }
        // The next startup succeeds.
        #expect(try SQLCipherFile.encryptInPlace(atPath: path, key: Self.key) == .encrypted)
        let dbQueue = try DatabaseQueue(path: path, configuration: Self.keyed())
        #expect(try await dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM account") } == 500)
    }
}
