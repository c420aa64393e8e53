import Foundation
import Testing
@testable import GRDBCipher

@Suite("Encryption basics")
struct EncryptionTests {
    static let sqliteHeader = Data("SQLite format 3\0".utf8)

    private func configuration(passphrase: String) -> Configuration {
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase(passphrase) }
        return config
    }

    private func header(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path)).prefix(16)
    }

    /// Creates an encrypted database with one row, and returns its path.
    private func makeEncryptedDatabase(_ directory: TemporaryDirectory, passphrase: String = "correct horse") throws -> String {
        let path = directory.path("encrypted.sqlite")
        let dbQueue = try DatabaseQueue(path: path, configuration: configuration(passphrase: passphrase))
        try dbQueue.write { try $0.execute(sql: "CREATE TABLE secret(value TEXT); INSERT INTO secret VALUES ('the data')") }
        try dbQueue.close()
        return path
    }

    @Test func encryptedFileRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let path = try makeEncryptedDatabase(directory)
        #expect(try header(path) != Self.sqliteHeader)
        let contents = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(contents.range(of: Data("the data".utf8)) == nil)
        let dbQueue = try DatabaseQueue(path: path, configuration: configuration(passphrase: "correct horse"))
        #expect(try dbQueue.read { try String.fetchOne($0, sql: "SELECT value FROM secret") } == "the data")
    }

    @Test func wrongPassphraseFailsAtOpen() throws {
        let directory = try TemporaryDirectory()
        let path = try makeEncryptedDatabase(directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = expectDatabaseError(.SQLITE_NOTADB) {
            _ = try DatabaseQueue(path: path, configuration: configuration(passphrase: "wrong horse"))
        }
        #expect(error?.message?.contains("wrong passphrase or cipher settings") == true)
        #expect(error?.message?.contains("none of the SQLCipher 4, 3, 2 or 1 formats") == true)
        #expect(error?.description.contains("wrong horse") == false)
        #expect(error?.description.contains("correct horse") == false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func encryptedFileWithoutPassphrase() throws {
        let directory = try TemporaryDirectory()
        let path = try makeEncryptedDatabase(directory)
        let error = expectDatabaseError(.SQLITE_NOTADB) {
            _ = try DatabaseQueue(path: path)
        }
        #expect(error?.message == "file is not a database: the file looks encrypted (SQLCipher) and no passphrase was given")
    }

    @Test func plaintextFileWithPassphrase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("plain.sqlite")
        let plain = try DatabaseQueue(path: path)
        try plain.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        try plain.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = expectDatabaseError(.SQLITE_NOTADB) {
            _ = try DatabaseQueue(path: path, configuration: configuration(passphrase: "secret"))
        }
        #expect(error?.message?.contains("it is a plaintext SQLite database, and a passphrase was given") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try header(path) == Self.sqliteHeader)
    }

    @Test func emptyPassphraseIsRefused() throws {
        let directory = try TemporaryDirectory()
        let error = expectDatabaseError(.SQLITE_MISUSE) {
            _ = try DatabaseQueue(path: directory.path("a.sqlite"), configuration: configuration(passphrase: ""))
        }
        #expect(error?.message?.contains("empty passphrase") == true)
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase(Data()) }
        expectDatabaseError(.SQLITE_MISUSE) {
            _ = try DatabaseQueue(path: directory.path("b.sqlite"), configuration: config)
        }
    }

    @Test func binaryPassphraseThroughData() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("binary.sqlite")
        let key = Data([0xff, 0x00, 0xfe, 0x80, 0x41]) // not valid UTF-8
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase(key) }
        let dbQueue = try DatabaseQueue(path: path, configuration: config)
        try dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        try dbQueue.close()
        _ = try DatabaseQueue(path: path, configuration: config)
        expectDatabaseError(.SQLITE_NOTADB) {
            _ = try DatabaseQueue(path: path, configuration: configuration(passphrase: "\u{FFFD}"))
        }
    }

    @Test func nonASCIIPassphrase() throws {
        let directory = try TemporaryDirectory()
        let path = try makeEncryptedDatabase(directory, passphrase: "pässwörd-🔑")
        _ = try DatabaseQueue(path: path, configuration: configuration(passphrase: "pässwörd-🔑"))
        expectDatabaseError(.SQLITE_NOTADB) {
            _ = try DatabaseQueue(path: path, configuration: configuration(passphrase: "passwörd-🔑"))
        }
    }

    @Test func encryptedConnectionsKeepTempDataInMemory() throws {
        let directory = try TemporaryDirectory()
        let encrypted = try DatabaseQueue(path: directory.path("e.sqlite"), configuration: configuration(passphrase: "k"))
        #expect(try encrypted.read { try Int.fetchOne($0, sql: "PRAGMA temp_store") } == 2)
        let plain = try DatabaseQueue(path: directory.path("p.sqlite"))
        #expect(try plain.read { try Int.fetchOne($0, sql: "PRAGMA temp_store") } == 0)
    }

    @Test func cipherInformation() throws {
        let directory = try TemporaryDirectory()
        let dbQueue = try DatabaseQueue(path: directory.path("e.sqlite"), configuration: configuration(passphrase: "k"))
        try dbQueue.read { (db: Database) throws in
            #expect(try db.cipherVersion.hasPrefix("4."))
            #expect(try db.cipherProvider == "openssl")
            #expect(try db.cipherProviderVersion?.isEmpty == false)
            #expect(try db.cipherFipsStatus != nil)
            #expect(try ["0", "1"].contains(db.cipherFipsStatus))
        }
    }

    @Test func libraryVersionCheck() throws {
        #expect(SQLCipherLibrary.isSupported("4.6.1 community"))
        #expect(SQLCipherLibrary.isSupported("4.5.0"))
        #expect(SQLCipherLibrary.isSupported("5.0.0"))
        #expect(!SQLCipherLibrary.isSupported("4.4.3 community"))
        #expect(!SQLCipherLibrary.isSupported("3.4.1"))
        #expect(!SQLCipherLibrary.isSupported(""))
        #expect(try SQLCipherLibrary.status.get().hasPrefix("4."))
    }

    @Test func testSuiteEncryptionSwitch() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let isPlaintext = try header(test.path) == Self.sqliteHeader
        #expect(isPlaintext == !TestEnvironment.encrypted)
    }

    @Test func sqlcipherDoesNotLogToStderr() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = try TemporaryDirectory()
            let path = directory.path("e.sqlite")
            var right = Configuration()
            right.prepareDatabase { try $0.usePassphrase("right") }
            try DatabaseQueue(path: path, configuration: right).write { try $0.execute(sql: "CREATE TABLE t(a)") }
            var wrong = Configuration()
            wrong.prepareDatabase { try $0.usePassphrase("wrong") }
            _ = try? DatabaseQueue(path: path, configuration: wrong)
            // Format probing: keying the first connection of the process resets SQLCipher's
            // log level, so it is set again after each key.
            let v3Path = directory.path("v3.sqlite")
            try DatabaseQueue(path: path, configuration: right)
                .exportDatabase(to: v3Path, options: .encrypted(with: .passphrase("right"), settings: .sqlcipher3))
            _ = try SQLCipherFile.inspect(atPath: v3Path, key: .passphrase("right"))
            exit(1)
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? "missing"
        #expect(!stderr.contains("hmac check failed"))
        #expect(!stderr.contains("ERROR CORE"))
    }

    @Test func formatProbingDoesNotLogToStderr() async throws {
        // Keying the first connection of a process resets SQLCipher's log level: inspecting a
        // SQLCipher 3 file as the first thing a process does tries the SQLCipher 4 settings first.
        let directory = try TemporaryDirectory()
        let v3Path = directory.path("v3.sqlite")
        try DatabaseQueue().exportDatabase(to: v3Path, options: .encrypted(with: .passphrase("k"), settings: .sqlcipher3))
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [v3Path = v3Path as String] in
            let info = try SQLCipherFile.inspect(atPath: v3Path, key: .passphrase("k"))
            exit(info.sqlcipherFormat == 3 ? 1 : 2)
        }
        #expect(result?.exitStatus == .exitCode(1))
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? "missing"
        #expect(!stderr.contains("ERROR CORE"))
    }

    @Test func applicationCanTurnCipherLoggingOn() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = try TemporaryDirectory()
            let path = directory.path("e.sqlite")
            var right = Configuration()
            right.prepareDatabase { try $0.usePassphrase("right") }
            let dbQueue = try DatabaseQueue(path: path, configuration: right)
            try dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
            try dbQueue.inDatabase { try $0.enableCipherLogging(logLevel: .error, target: .stderr) }
            var wrong = Configuration()
            wrong.prepareDatabase { try $0.usePassphrase("wrong") }
            _ = try? DatabaseQueue(path: path, configuration: wrong)
            exit(1)
        }
        let stderr = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(stderr.contains("hmac check failed"))
        #expect(!stderr.contains("right"))
        #expect(!stderr.contains("wrong"))
    }

    static let upstreamFixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/upstream-fixtures")

    @Test(.enabled(if: FileManager.default.fileExists(atPath: upstreamFixtures.appendingPathComponent("sqlcipher-4.0-testkey.db").path)))
    func opensAFileWrittenBySQLCipher4() throws {
        let directory = try TemporaryDirectory()
        let copy = directory.path("v4.db")
        try FileManager.default.copyItem(atPath: Self.upstreamFixtures.appendingPathComponent("sqlcipher-4.0-testkey.db").path, toPath: copy)
        let dbQueue = try DatabaseQueue(path: copy, configuration: configuration(passphrase: "testkey"))
        try dbQueue.read { db in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t1") == 78536)
            let rows = try Row.fetchAll(db, sql: "SELECT DISTINCT a, b FROM t1")
            #expect(rows.map { "\($0[0] as (any DatabaseValueConvertible)? ?? "NULL"),\($0[1] as (any DatabaseValueConvertible)? ?? "NULL")" } == ["1,1", "one,one", "1,2", "one,two"])
        }
        // SQLCipher 3 files do not open with v4 defaults, and say so.
        let v3 = directory.path("v3.db")
        try FileManager.default.copyItem(atPath: Self.upstreamFixtures.appendingPathComponent("sqlcipher-3.0-testkey.db").path, toPath: v3)
        let error = expectDatabaseError(.SQLITE_NOTADB) {
            _ = try DatabaseQueue(path: v3, configuration: configuration(passphrase: "testkey"))
        }
        #expect(error?.message?.contains("the passphrase is right, but the file is in the SQLCipher 3 format") == true)
        #expect(error?.message?.contains("testkey") == false)
    }
}
