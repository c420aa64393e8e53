import Foundation
import Testing
@testable import GRDBCipher

/// The SQLCipher fixtures in ../shared/upstream-fixtures, written by real SQLCipher 1.1.8 to
/// 4.0 builds (all with the passphrase "testkey").
enum UpstreamFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/upstream-fixtures")

    static var available: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("sqlcipher-3.0-testkey.db").path)
    }

    /// Copies a fixture into `directory` and returns the copy's path.
    static func copy(_ name: String, into directory: TemporaryDirectory) throws -> String {
        let path = directory.path(name)
        try FileManager.default.copyItem(atPath: self.directory.appendingPathComponent(name).path, toPath: path)
        return path
    }
}

@Suite("Inspection and format upgrade")
struct UpgradeTests {
    static let key = CipherKey.passphrase("testkey")

    private func openV4(_ path: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.prepareDatabase { db in try db.use(Self.key) }
        return try DatabaseQueue(path: path, configuration: config)
    }

    @Test func inspectsLocalFiles() throws {
        let directory = try TemporaryDirectory()
        let plain = directory.path("plain.sqlite")
        try DatabaseQueue(path: plain).write { try $0.execute(sql: "CREATE TABLE t(a); PRAGMA user_version = 7") }
        let info = try SQLCipherFile.inspect(atPath: plain)
        #expect(info.content == .plaintext)
        #expect(info.userVersion == 7)
        #expect(info.pageSize == 4096)

        let text = directory.path("notes.txt")
        try Data(String(repeating: "hello ", count: 200).utf8).write(to: URL(fileURLWithPath: text))
        #expect(try SQLCipherFile.inspect(atPath: text).content == .notADatabase)

        let encrypted = directory.path("e.sqlite")
        let key = CipherKey.passphrase("k")
        try DatabaseQueue(named: nil).exportDatabase(to: encrypted, options: .encrypted(with: key))
        let unkeyed = try SQLCipherFile.inspect(atPath: encrypted)
        #expect(unkeyed.content == .encrypted)
        #expect(unkeyed.keyOpensFile == nil)
        let keyed = try SQLCipherFile.inspect(atPath: encrypted, key: key)
        #expect(keyed.keyOpensFile == true)
        #expect(keyed.sqlcipherFormat == 4)
        #expect(keyed.settings?.kdfIterations == 256_000)
        #expect(try SQLCipherFile.inspect(atPath: encrypted, key: .passphrase("wrong")).keyOpensFile == false)
        expectDatabaseError(.SQLITE_CANTOPEN) { _ = try SQLCipherFile.inspect(atPath: directory.path("missing")) }
    }

    @Test func plaintextHeaderDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("header.sqlite")
        let salt = Data((0..<16).map { UInt8($0 + 100) })
        let settings = CipherSettings(kdfIterations: 1000, plaintextHeaderSize: 32, salt: salt)
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase("k", settings: settings) }
        try DatabaseQueue(path: path, configuration: config).write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        // The file starts with the SQLite header, but is encrypted.
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(16)
        #expect(header == Data("SQLite format 3\0".utf8))
        // Without its key, SQLite reads the plaintext header, then the encrypted bytes after it
        // as header fields: it stops at "unsupported file format" (code 1) or "malformed"
        // (code 11) depending on those random bytes. Either way the message says what the
        // file is.
        do {
            _ = try DatabaseQueue(path: path)
            Issue.record("expected an error")
        } catch let error as DatabaseError {
            #expect(error.resultCode == .SQLITE_ERROR || error.resultCode == .SQLITE_CORRUPT, "got \(error)")
            #expect(error.message?.contains("an SQLCipher database with a plaintext header") == true)
        }
        let info = try SQLCipherFile.inspect(atPath: path, key: .passphrase("k"), settings: settings)
        #expect(info.content == .encrypted)
        #expect(info.hasPlaintextHeader)
        #expect(info.keyOpensFile == true)
        #expect(info.settings?.plaintextHeaderSize == 32)
        #expect(try DatabaseQueue(path: path, configuration: config).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
    }

    @Test func upgradesALocalSQLCipher3File() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v3.sqlite")
        let memory = try DatabaseQueue()
        try memory.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2); PRAGMA user_version = 3") }
        try memory.exportDatabase(to: path, options: .encrypted(with: Self.key, settings: .sqlcipher3))
        #expect(try SQLCipherFile.inspect(atPath: path, key: Self.key).sqlcipherFormat == 3)

        let report = try SQLCipherFile.upgrade(atPath: path, key: Self.key)
        #expect(report.previousFormat == 3)
        #expect(report.method == .cipherMigrate)
        #expect(try SQLCipherFile.inspect(atPath: path, key: Self.key).sqlcipherFormat == 4)
        try openV4(path).read { (db: Database) throws in
            #expect(try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a") == [1, 2])
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 3)
        }
        // Nothing left beside it; upgrading again does nothing.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["v3.sqlite"])
        #expect(try SQLCipherFile.upgrade(atPath: path, key: Self.key).method == .alreadyCurrent)
    }

    @Test func upgradeRefusesWrongKeyAndPlaintext() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v3.sqlite")
        try DatabaseQueue().exportDatabase(to: path, options: .encrypted(with: Self.key, settings: .sqlcipher3))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        expectDatabaseError(.SQLITE_NOTADB) { try SQLCipherFile.upgrade(atPath: path, key: .passphrase("wrong")) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let plain = directory.path("plain.sqlite")
        try DatabaseQueue(path: plain).write { try $0.execute(sql: "CREATE TABLE t(a)") }
        expectDatabaseError(.SQLITE_MISUSE) { try SQLCipherFile.upgrade(atPath: plain, key: Self.key) }
    }

    @Test func crashBeforeTheRenameLeavesTheOriginal() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v3.sqlite")
        let memory = try DatabaseQueue()
        try await memory.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        try memory.exportDatabase(to: path, options: .encrypted(with: Self.key, settings: .sqlcipher3))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        await #expect(processExitsWith: .exitCode(9)) { [path = path as String] in
            UpgradeTestHooks.beforeRename = { _exit(9) }
            try SQLCipherFile.upgrade(atPath: path, key: .passphrase("testkey"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try SQLCipherFile.inspect(atPath: path, key: Self.key).sqlcipherFormat == 3)
        // A later upgrade succeeds.
        #expect(try SQLCipherFile.upgrade(atPath: path, key: Self.key).method == .cipherMigrate)
    }

    @Test(.enabled(if: UpstreamFixtures.available), arguments: [
        ("sqlcipher-1.1.8-testkey.db", 1, 75709),
        ("sqlcipher-2.0-le-testkey.db", 2, 78536),
        ("sqlcipher-3.0-testkey.db", 3, 78536),
    ])
    func upgradesUpstreamFiles(name: String, format: Int, rows: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try UpstreamFixtures.copy(name, into: directory)
        #expect(try SQLCipherFile.inspect(atPath: path, key: Self.key).sqlcipherFormat == format)
        let error = expectDatabaseError(.SQLITE_NOTADB) { _ = try openV4(path) }
        #expect(error?.message?.contains("SQLCipher \(format) format") == true)
        let report = try SQLCipherFile.upgrade(atPath: path, key: Self.key)
        #expect(report.previousFormat == format)
        #expect(report.method == .cipherMigrate)
        #expect(try openV4(path).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t1") } == rows)
    }

    @Test(.enabled(if: UpstreamFixtures.available))
    func upgradesABigEndianSQLCipher2FileByExport() throws {
        let directory = try TemporaryDirectory()
        let path = try UpstreamFixtures.copy("sqlcipher-2.0-be-testkey.db", into: directory)
        #expect(try SQLCipherFile.inspect(atPath: path, key: Self.key).keyOpensFile == false)
        // Without its settings, the file cannot be upgraded, and is left alone.
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        expectDatabaseError(.SQLITE_NOTADB) { try SQLCipherFile.upgrade(atPath: path, key: Self.key) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let report = try SQLCipherFile.upgrade(atPath: path, key: Self.key) { db in
            try db.applyCipherSettings(.sqlcipher2)
            _ = try Row.fetchAll(db, sql: "PRAGMA cipher_hmac_pgno = be")
        }
        #expect(report.method == .export)
        try openV4(path).read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t1") == 78536)
            #expect(try String.fetchAll(db, sql: "PRAGMA cipher_integrity_check") == [])
        }
    }

    /// The SQLCipher 2.0 beta file needs `cipher_hmac_salt_mask`, which is process-wide: the
    /// upgrade runs in a child process, and the parent checks the result with default settings.
    @Test(.enabled(if: UpstreamFixtures.available))
    func upgradesTheSQLCipher2BetaFileByExport() async throws {
        let directory = try TemporaryDirectory()
        let path = try UpstreamFixtures.copy("sqlcipher-2.0-beta-testkey.db", into: directory)
        #expect(try SQLCipherFile.inspect(atPath: path, key: Self.key).keyOpensFile == false)
        await #expect(processExitsWith: .success) { [path = path as String] in
            let report = try SQLCipherFile.upgrade(atPath: path, key: .passphrase("testkey")) { db in
                try db.applyCipherSettings(.sqlcipher2)
                _ = try Row.fetchAll(db, sql: "PRAGMA fast_kdf_iter = 4000")
                _ = try Row.fetchAll(db, sql: "PRAGMA cipher_hmac_salt_mask = \"x'00'\"")
                // The HMAC key is derived at the first read; then the mask goes back to its default.
                _ = try Row.fetchAll(db, sql: "SELECT COUNT(*) FROM sqlite_master")
                _ = try Row.fetchAll(db, sql: "PRAGMA cipher_hmac_salt_mask = \"x'3a'\"")
            }
            if report.method != .export { exit(3) }
        }
        try await openV4(path).read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t1") == 38768)
            #expect(try Row.fetchAll(db, sql: "SELECT DISTINCT * FROM t1").map { [$0[0] as String, $0[1] as String] }
                == [["test-0-0", "test-0-1"], ["test-1-0", "test-1-1"]])
            #expect(try String.fetchAll(db, sql: "PRAGMA cipher_integrity_check") == [])
        }
    }
}
