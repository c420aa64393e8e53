import Foundation
import Testing
import GRDBCipher

/// Mirrors the snippets of docs/Encryption.md, with only the public API, so that the guide
/// compiles and does what it says.
@Suite("docs/Encryption.md")
struct GuideTests {
    /// Stands for the application's secret store.
    struct Secrets: Sendable {
        func passphraseData() throws -> Data { Data("guide passphrase".utf8) }
        func databaseKey() throws -> Data { Data(repeating: 0x42, count: 32) }
    }

    let secrets = Secrets()

    @Test func theGuideWalkthrough() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("guide-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("app.sqlite").path
        let secrets = self.secrets

        // 1. Open
        var config = Configuration()
        config.prepareDatabase { db in
            var passphrase = try secrets.passphraseData()
            defer { passphrase.resetBytes(in: 0..<passphrase.count) }
            try db.usePassphrase(passphrase)
        }
        let dbQueue = try DatabaseQueue(path: path, configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE note(text TEXT); INSERT INTO note VALUES ('hello')")
        }

        // Raw keys
        var rawConfig = Configuration()
        rawConfig.prepareDatabase { db in
            try db.useRawKey(try secrets.databaseKey())
        }
        let rawQueue = try DatabaseQueue(path: directory.appendingPathComponent("raw.sqlite").path, configuration: rawConfig)
        try rawQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }

        // 2. Change the passphrase
        try dbQueue.write { db in
            try db.changePassphrase("new passphrase")
        }
        try dbQueue.changePassphrase(try secrets.passphraseData())

        // 3. Encrypt an existing plaintext database
        let plainPath = directory.appendingPathComponent("plain.sqlite").path
        let encryptedPath = directory.appendingPathComponent("encrypted.sqlite").path
        try DatabaseQueue(path: plainPath).write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let plain = try DatabaseQueue(path: plainPath)
        try plain.exportDatabase(to: encryptedPath, options: .encrypted(with: .passphrase("secret")))

        // 4. Decrypt
        var secretConfig = Configuration()
        secretConfig.prepareDatabase { db in try db.usePassphrase("secret") }
        let encrypted = try DatabaseQueue(path: encryptedPath, configuration: secretConfig)
        let decryptedPath = directory.appendingPathComponent("decrypted.sqlite").path
        try encrypted.exportDatabase(to: decryptedPath, options: .plaintext)
        #expect(try DatabaseQueue(path: decryptedPath).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)

        // 5. Re-encrypt with SQLCipher 3 settings, then 6. upgrade back to 4
        let v3Path = directory.appendingPathComponent("v3.sqlite").path
        try encrypted.exportDatabase(to: v3Path, options: .encrypted(with: .passphrase("new"), settings: .sqlcipher3))
        var v3Config = Configuration()
        v3Config.prepareDatabase { db in
            try db.usePassphrase("new", settings: .sqlcipher3)
        }
        #expect(try DatabaseQueue(path: v3Path, configuration: v3Config).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
        let report = try SQLCipherFile.upgrade(atPath: v3Path, key: .passphrase("new"))
        #expect(report.previousFormat == 3)
        #expect(report.method == .cipherMigrate)

        // 7. Inspect
        let info = try SQLCipherFile.inspect(atPath: v3Path, key: .passphrase("new"))
        #expect(info.sqlcipherFormat == 4)
        #expect(info.description.contains("format: SQLCipher 4"))

        // 8. Plaintext header
        let salt = Data(repeating: 7, count: 16)
        let settings = CipherSettings(plaintextHeaderSize: 32, salt: salt)
        var headerConfig = Configuration()
        headerConfig.prepareDatabase { db in try db.usePassphrase("secret", settings: settings) }
        let headerQueue = try DatabaseQueue(path: directory.appendingPathComponent("header.sqlite").path, configuration: headerConfig)
        try headerQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }

        // Inspecting the library
        try dbQueue.read { (db: Database) throws in
            #expect(try !db.cipherVersion.isEmpty)
            #expect(try db.cipherProvider != nil)
            #expect(try db.cipherProviderVersion != nil)
            #expect(try db.cipherFipsStatus != nil)
        }
    }

    /// "With a DatabasePool" and "Encrypted pools derive the key once".
    @Test func theGuideWithAPool() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("guide-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("pool.sqlite").path
        final class Store: @unchecked Sendable {
            let lock = NSLock()
            var passphrase = "old passphrase"
            func current() -> String { lock.withLock { passphrase } }
        }
        let store = Store()
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase(store.current()) }
        let dbPool = try DatabasePool(path: path, configuration: config)
        try dbPool.write { try $0.execute(sql: "CREATE TABLE note(text TEXT); INSERT INTO note VALUES ('hello')") }
        _ = try dbPool.read { try String.fetchAll($0, sql: "SELECT text FROM note") }

        try dbPool.barrierWriteWithoutTransaction { db in
            try db.changePassphrase("new passphrase")
            dbPool.invalidateReadOnlyConnections()
        }
        store.lock.withLock { store.passphrase = "new passphrase" }
        #expect(try dbPool.read { try String.fetchAll($0, sql: "SELECT text FROM note") } == ["hello"])

        try dbPool.changePassphrase("newer passphrase")
        store.lock.withLock { store.passphrase = "newer passphrase" }
        #expect(try dbPool.read { try String.fetchAll($0, sql: "SELECT text FROM note") } == ["hello"])
        try dbPool.close()

        var noCache = config
        noCache.derivesPoolKeyOnce = false
        let plainPool = try DatabasePool(path: path, configuration: noCache)
        #expect(try plainPool.read { try String.fetchAll($0, sql: "SELECT text FROM note") } == ["hello"])
    }
}
