import Foundation
import Testing
@testable import GRDBCipher

/// Copies and rewrites of an encrypted database never put plaintext on disk: `vacuum(into:)`,
/// `erase()`, `vacuum()` and `DatabaseQueue.temporaryCopy` keep the key and the cipher settings.
@Suite("Encrypted copies stay encrypted")
struct EncryptedCopyTests {
    /// Settings other than SQLCipher's defaults, so that "the same settings" means something.
    static let settings = CipherSettings(pageSize: 8192, kdfIterations: 1000, hmacAlgorithm: .sha256, kdfAlgorithm: .pbkdf2SHA256)
    static let plaintextHeader = Data("SQLite format 3\0".utf8)

    static func keyed(_ passphrase: String = "correct horse", _ settings: CipherSettings = settings) -> Configuration {
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase(passphrase, settings: settings) }
        return config
    }

    static func header(_ path: String) throws -> Data {
        let handle = try #require(FileHandle(forReadingAtPath: path))
        defer { try? handle.close() }
        return try handle.read(upToCount: 16) ?? Data()
    }

    static func fill(_ db: Database, marker: String) throws {
        try db.execute(sql: "CREATE TABLE secret(id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX secret_body ON secret(body)")
        for id in 1...200 {
            try db.execute(sql: "INSERT INTO secret (body) VALUES (?)", arguments: ["\(marker) #\(id) " + String(repeating: "x", count: 400)])
        }
        try db.execute(sql: "PRAGMA user_version = 17")
    }

    @Test func vacuumIntoKeepsTheKeyAndTheSettings() throws {
        let directory = try TemporaryDirectory()
        let marker = "marker-\(UUID().uuidString)"
        let dbQueue = try DatabaseQueue(path: directory.path("original.sqlite"), configuration: Self.keyed())
        try dbQueue.write { try Self.fill($0, marker: marker) }
        let copyPath = directory.path("copy.sqlite")
        try dbQueue.vacuum(into: copyPath)

        let bytes = try Data(contentsOf: URL(fileURLWithPath: copyPath))
        #expect(bytes.count > 100_000)
        #expect(bytes.prefix(16) != Self.plaintextHeader)
        #expect(bytes.range(of: Data(marker.utf8)) == nil)
        // The same salt as the original: the same derived key.
        #expect(bytes.prefix(16) == (try Self.header(directory.path("original.sqlite"))))

        // The original's configuration opens the copy, with the original's settings.
        let copy = try DatabaseQueue(path: copyPath, configuration: Self.keyed())
        try copy.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM secret") == 200)
            #expect(try String.fetchOne(db, sql: "SELECT body FROM secret WHERE id = 7")?.hasPrefix("\(marker) #7 ") == true)
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 17)
            #expect(try String.fetchOne(db, sql: "PRAGMA cipher_page_size") == "8192")
            #expect(try String.fetchOne(db, sql: "PRAGMA cipher_hmac_algorithm") == "HMAC_SHA256")
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
            #expect(try Row.fetchAll(db, sql: "PRAGMA cipher_integrity_check").isEmpty)
        }
        // Neither without the key, nor with SQLCipher's default settings.
        expectDatabaseError(.SQLITE_NOTADB) { _ = try DatabaseQueue(path: copyPath) }
        expectDatabaseError(.SQLITE_NOTADB) { _ = try DatabaseQueue(path: copyPath, configuration: Self.keyed("correct horse", CipherSettings())) }
        expectDatabaseError(.SQLITE_NOTADB) { _ = try DatabaseQueue(path: copyPath, configuration: Self.keyed("wrong horse")) }
    }

    @Test func vacuumIntoFromAPoolAndWithARawKey() async throws {
        let directory = try TemporaryDirectory()
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase(TestEnvironment.testKey) }
        let dbPool = try DatabasePool(path: directory.path("pool.sqlite"), configuration: config)
        try await dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES ('pool-row')") }
        let copyPath = directory.path("copy.sqlite")
        try await dbPool.vacuum(into: copyPath)
        #expect(try Self.header(copyPath) != Self.plaintextHeader)
        let copy = try DatabaseQueue(path: copyPath, configuration: config)
        #expect(try await copy.read { try String.fetchAll($0, sql: "SELECT a FROM t") } == ["pool-row"])
    }

    @Test func vacuumIntoAnExistingFileFails() throws {
        let directory = try TemporaryDirectory()
        let dbQueue = try DatabaseQueue(path: directory.path("original.sqlite"), configuration: Self.keyed())
        try dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let existing = directory.path("existing.sqlite")
        try Data("not empty".utf8).write(to: URL(fileURLWithPath: existing))
        let error = expectDatabaseError(.SQLITE_ERROR) { try dbQueue.vacuum(into: existing) }
        #expect(error?.message == "output file already exists")
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("not empty".utf8))
        // An empty file is accepted, as SQLite accepts it.
        let empty = directory.path("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: empty, contents: nil))
        try dbQueue.vacuum(into: empty)
        #expect(try Self.header(empty) != Self.plaintextHeader)
        // No temporary schema is left attached.
        #expect(try dbQueue.read { try String.fetchAll($0, sql: "SELECT name FROM pragma_database_list") } == ["main"])
    }

    @Test func vacuumIntoRefusesAPlaintextHeader() throws {
        let directory = try TemporaryDirectory()
        let settings = CipherSettings(kdfIterations: 1000, plaintextHeaderSize: 32, salt: Data(repeating: 9, count: 16))
        let dbQueue = try DatabaseQueue(path: directory.path("header.sqlite"), configuration: Self.keyed("hunter2-header", settings))
        try dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let copyPath = directory.path("copy.sqlite")
        let error = expectDatabaseError(.SQLITE_MISUSE) { try dbQueue.vacuum(into: copyPath) }
        #expect(error?.message?.contains("plaintext header") == true)
        #expect(error?.message?.contains("hunter2") == false)
        #expect(!FileManager.default.fileExists(atPath: copyPath))
    }

    @Test func eraseAndVacuumKeepTheFileEncrypted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let marker = "marker-\(UUID().uuidString)"
        let dbQueue = try DatabaseQueue(path: path, configuration: Self.keyed())
        try dbQueue.write { try Self.fill($0, marker: marker) }
        let salt = try Self.header(path)

        try dbQueue.vacuum()
        #expect(try Self.header(path) == salt)
        #expect(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM secret") } == 200)

        try dbQueue.erase()
        try dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") == 0)
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 0)
            #expect(try String.fetchOne(db, sql: "PRAGMA cipher_page_size") == "8192")
        }
        try dbQueue.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.prefix(16) != Self.plaintextHeader)
        #expect(bytes.range(of: Data(marker.utf8)) == nil)
        // The same key and settings open the erased file; nothing else does.
        let reopened = try DatabaseQueue(path: path, configuration: Self.keyed())
        try reopened.write { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") == 0)
            try db.execute(sql: "CREATE TABLE again(a)")
        }
        expectDatabaseError(.SQLITE_NOTADB) { _ = try DatabaseQueue(path: path) }
        expectDatabaseError(.SQLITE_NOTADB) { _ = try DatabaseQueue(path: path, configuration: Self.keyed("correct horse", CipherSettings())) }
    }

    @Test func temporaryCopyIsKeyedWithTheSameSettings() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        try DatabaseQueue(path: path, configuration: Self.keyed()).write { try Self.fill($0, marker: "m") }
        let copy = try DatabaseQueue.temporaryCopy(fromPath: path, configuration: Self.keyed())
        try copy.write { (db: Database) throws in
            // SQLite's private temporary database, keyed as the original is: the pages SQLite
            // writes to its temporary file are encrypted with the same key and settings.
            #expect(try String.fetchOne(db, sql: "SELECT file FROM pragma_database_list WHERE name = 'main'") == "")
            #expect(db.isEncrypted)
            #expect(try String.fetchOne(db, sql: "PRAGMA cipher_page_size") == "8192")
            #expect(try String.fetchOne(db, sql: "PRAGMA cipher_hmac_algorithm") == "HMAC_SHA256")
            #expect(try String.fetchOne(db, sql: "PRAGMA kdf_iter") == "1000")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM secret") == 200)
            try db.execute(sql: "DELETE FROM secret")
        }
        // The original is untouched.
        let original = try DatabaseQueue(path: path, configuration: Self.keyed())
        #expect(try original.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM secret") } == 200)
    }

    /// The bytes of the files SQLite keeps open for the process in its temporary directory
    /// (deleted as soon as they are open, so only /proc/self/fd reaches them).
    private static func openTemporaryFileContents() -> [Data] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { fd -> Data? in
            let link = "/proc/self/fd/\(fd)"
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link),
                  target.contains("etilqs_") else { return nil }
            return FileManager.default.contents(atPath: link)
        }
    }

    @Test func temporaryCopyBytesAreEncrypted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let marker = "marker-\(UUID().uuidString)"
        try DatabaseQueue(path: path, configuration: Self.keyed()).write { try Self.fill($0, marker: marker) }
        let copy = try DatabaseQueue.temporaryCopy(fromPath: path, configuration: Self.keyed())
        try copy.write { (db: Database) throws in
            // More than the page cache holds, so that pages go to the temporary file if any.
            try db.execute(sql: "PRAGMA cache_size = 10")
            for id in 1...300 {
                try db.execute(sql: "INSERT INTO secret (body) VALUES (?)", arguments: ["\(marker) copy #\(id) " + String(repeating: "y", count: 400)])
            }
        }
        let markerBytes = Data(marker.utf8)
        try copy.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM secret") == 500)
            // An encrypted connection keeps temporary data in memory (temp_store = MEMORY): the
            // copy, larger than its page cache, has no file at all...
            let temporaryFiles = Self.openTemporaryFileContents()
            #expect(temporaryFiles.isEmpty)
            // ... and no file SQLite keeps open holds plaintext.
            for contents in temporaryFiles {
                #expect(!contents.starts(with: Data("SQLite format 3".utf8)))
                #expect(contents.range(of: markerBytes) == nil)
            }
            #expect(try Int.fetchOne(db, sql: "PRAGMA temp_store") == 2)
        }
    }

    @Test func temporaryCopyRefusesAnUnkeyedCopy() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        try DatabaseQueue(path: path, configuration: Self.keyed()).write { try $0.execute(sql: "CREATE TABLE t(a)") }
        // A configuration that keys the file but not the copy (the copy's path is empty).
        var config = Configuration()
        config.prepareDatabase { db in
            if !db.path.isEmpty { try db.usePassphrase("correct horse", settings: Self.settings) }
        }
        let error = expectDatabaseError(.SQLITE_MISUSE) { _ = try DatabaseQueue.temporaryCopy(fromPath: path, configuration: config) }
        #expect(error?.message?.contains("encrypted") == true)
        #expect(error?.message?.contains("correct horse") == false)
    }

    @Test func inMemoryCopyOfAnEncryptedDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        try DatabaseQueue(path: path, configuration: Self.keyed()).write { try Self.fill($0, marker: "m") }
        let copy = try DatabaseQueue.inMemoryCopy(fromPath: path, configuration: Self.keyed())
        try copy.write { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM secret") == 200)
            try db.execute(sql: "DELETE FROM secret")
        }
        // The original is untouched.
        let original = try DatabaseQueue(path: path, configuration: Self.keyed())
        #expect(try original.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM secret") } == 200)
        // A wrong key fails as opening the file fails.
        expectDatabaseError(.SQLITE_NOTADB) { _ = try DatabaseQueue.inMemoryCopy(fromPath: path, configuration: Self.keyed("wrong")) }
    }
}
