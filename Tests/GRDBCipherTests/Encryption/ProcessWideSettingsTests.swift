import Foundation
import Testing
@testable import GRDBCipher

@Suite("Process-wide SQLCipher settings")
struct ProcessWideSettingsTests {
    static let defaultPragmas = [
        "cipher_default_kdf_iter", "cipher_default_page_size", "cipher_default_use_hmac",
        "cipher_default_hmac_algorithm", "cipher_default_kdf_algorithm",
        "cipher_default_plaintext_header_size", "cipher_memory_security",
    ]

    static func processDefaults() throws -> [String] {
        let db = try Database.openProbe(path: ":memory:")
        defer { try? db.close() }
        return try defaultPragmas.map { "\($0)=\(try String.fetchOne(db, sql: "PRAGMA \($0)") ?? "nil")" }
    }

    @Test func everyAPILeavesTheDefaultsAlone() throws {
        let before = try Self.processDefaults()
        #expect(before.contains("cipher_default_kdf_iter=256000"))
        let directory = try TemporaryDirectory()
        let settings = CipherSettings(compatibility: 3, pageSize: 2048, kdfIterations: 1234, hmacAlgorithm: .sha256, kdfAlgorithm: .pbkdf2SHA256)
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase("k", settings: settings) }
        let path = directory.path("custom.sqlite")
        let dbQueue = try DatabaseQueue(path: path, configuration: config)
        try dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        try dbQueue.exportDatabase(to: directory.path("plain.sqlite"), options: .plaintext)
        try dbQueue.exportDatabase(to: directory.path("v3.sqlite"), options: .encrypted(with: .passphrase("k"), settings: .sqlcipher3))
        _ = try SQLCipherFile.inspect(atPath: path, key: .passphrase("k"), settings: settings)
        _ = try SQLCipherFile.inspect(atPath: directory.path("v3.sqlite"), key: .passphrase("k"))
        try SQLCipherFile.upgrade(atPath: directory.path("v3.sqlite"), key: .passphrase("k"))
        try dbQueue.backup(to: try DatabaseQueue(path: directory.path("backup.sqlite"))) // by export
        try dbQueue.write { try $0.changePassphrase("k2") }
        _ = try? DatabaseQueue(path: path, configuration: config) // wrong key: diagnosis probes formats
        #expect(try Self.processDefaults() == before)
    }

    @Test func memorySecurityIsOptInAndProcessWide() async {
        await #expect(processExitsWith: .success) {
            let dbQueue = try DatabaseQueue()
            let before = try dbQueue.read { try String.fetchOne($0, sql: "PRAGMA cipher_memory_security") }
            try dbQueue.inDatabase { try $0.enableCipherMemorySecurity() }
            let after = try DatabaseQueue().read { try String.fetchOne($0, sql: "PRAGMA cipher_memory_security") }
            exit(before == "0" && after == "1" ? 0 : 1)
        }
    }
}
