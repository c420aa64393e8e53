import Foundation
import Testing
@testable import GRDBCipher

/// `SQLCipherFile.rekey(atPath:key:newKey:settings:progress:)` and
/// `Database.cipherIntegrityProblems()`, on fixture copies.
@Suite("File re-key and cipher integrity")
struct FileRekeyTests {
    static let passphrase = CipherKey.passphrase("correct horse battery staple")
    static let newPassphrase = CipherKey.passphrase("a new passphrase")

    private func fixture(_ name: String, in directory: TemporaryDirectory) throws -> String {
        try FixtureManifest.shared.fixtures.first { $0.file == name }!.copy(into: directory)
    }

    private func itemNames(_ path: String, key: CipherKey, settings: CipherSettings = CipherSettings()) throws -> [String] {
        var config = Configuration()
        config.prepareDatabase { db in try db.use(key, settings: settings) }
        let dbQueue = try DatabaseQueue(path: path, configuration: config)
        defer { try? dbQueue.close() }
        return try dbQueue.read { try String.fetchAll($0, sql: "SELECT name FROM item ORDER BY id") }
    }

    @Test func rekeyKeepsContentAndSettings() throws {
        let directory = try TemporaryDirectory()
        for name in ["v4-default.db", "v4-custom.db", "wal.db"] {
            let path = try fixture(name, in: directory)
            let settings: CipherSettings? = name == "v4-custom.db" ? CipherSettings(pageSize: 8192, kdfIterations: 10000) : nil
            let progress = LockedValue<[DatabaseExportProgress]>([])
            try SQLCipherFile.rekey(atPath: path, key: Self.passphrase, newKey: Self.newPassphrase, settings: settings) { step in
                progress.update { $0.append(step) }
            }
            let names = try itemNames(path, key: Self.newPassphrase, settings: settings ?? CipherSettings())
            #expect(names == ["apple", "café ☕", "zeta"])
            let old = try SQLCipherFile.inspect(atPath: path, key: Self.passphrase, settings: settings)
            #expect(old.keyOpensFile == false, "\(name)")
            let new = try SQLCipherFile.inspect(atPath: path, key: Self.newPassphrase, settings: settings)
            #expect(new.settings?.pageSize == (name == "v4-custom.db" ? 8192 : 4096))
            #expect(new.settings?.kdfIterations == (name == "v4-custom.db" ? 10000 : 256000))
            let walSize = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
            #expect(walSize == nil || walSize == 0, "\(name): a WAL with frames is left beside the new file")
            let steps = progress.read()
            #expect(!steps.isEmpty && steps.allSatisfy { $0.completedPageCount <= $0.totalPageCount }, "\(name): \(steps)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("grdbcipher-") }
        #expect(leftovers.isEmpty)
    }

    @Test func rekeyRefusalsLeaveTheFile() throws {
        let directory = try TemporaryDirectory()
        let v4 = try fixture("v4-default.db", in: directory)
        let plaintext = try fixture("plaintext.db", in: directory)
        let damaged = try fixture("altered-page.db", in: directory)
        let notADatabase = try fixture("not-a-database.db", in: directory)
        let originals = try [v4, plaintext, damaged, notADatabase].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }

        let wrongKey = expectDatabaseError(.SQLITE_NOTADB) {
            try SQLCipherFile.rekey(atPath: v4, key: .passphrase("wrong"), newKey: Self.newPassphrase)
        }
        #expect(wrongKey?.message?.hasPrefix("rekey: the key does not open the file") == true)
        expectDatabaseError(.SQLITE_MISUSE) {
            try SQLCipherFile.rekey(atPath: plaintext, key: Self.passphrase, newKey: Self.newPassphrase)
        }
        expectDatabaseError(.SQLITE_CORRUPT) {
            try SQLCipherFile.rekey(atPath: damaged, key: Self.passphrase, newKey: Self.newPassphrase)
        }
        expectDatabaseError(.SQLITE_NOTADB) {
            try SQLCipherFile.rekey(atPath: notADatabase, key: Self.passphrase, newKey: Self.newPassphrase)
        }
        let after = try [v4, plaintext, damaged, notADatabase].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        #expect(after == originals)
    }

    @Test func cipherIntegrityProblems() throws {
        let directory = try TemporaryDirectory()
        for (name, damaged) in [("v4-default.db", false), ("wal.db", false), ("v1-default.db", false), ("altered-page.db", true)] {
            let path = try fixture(name, in: directory)
            let settings = name == "v1-default.db" ? CipherSettings.sqlcipher1 : CipherSettings()
            var config = Configuration()
            config.prepareDatabase { db in try db.use(Self.passphrase, settings: settings) }
            let dbQueue = try DatabaseQueue(path: path, configuration: config)
            let problems = try dbQueue.writeWithoutTransaction { try $0.cipherIntegrityProblems() }
            if damaged {
                #expect(problems.contains { $0.contains("page 5") }, "\(problems)")
            } else {
                #expect(problems.isEmpty, "\(name): \(problems)")
            }
            try dbQueue.close()
        }
    }

    /// A program killed in the middle of a transaction left a hot journal: rekey and upgrade
    /// roll it back first, instead of failing with "the key does not open the file".
    @Test func rekeyAndUpgradeRollBackAnInterruptedTransactionFirst() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crashed.db")
        try makeDatabaseWithHotJournal(path, passphrase: "old")
        #expect(SQLCipherFile.hotJournalPath(ofDatabaseAt: path) != nil)
        try SQLCipherFile.rekey(atPath: path, key: .passphrase("old"), newKey: .passphrase("new"))
        #expect(SQLCipherFile.hotJournalPath(ofDatabaseAt: path) == nil)
        var configuration = Configuration()
        configuration.prepareDatabase { try $0.usePassphrase("new") }
        let committed = try DatabaseQueue(path: path, configuration: configuration).read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t WHERE data = zeroblob(500)")
        }
        #expect(committed == 2000)

        let other = directory.path("crashed-v4.db")
        try makeDatabaseWithHotJournal(other, passphrase: "old")
        #expect(try SQLCipherFile.upgrade(atPath: other, key: .passphrase("old")).method == .alreadyCurrent)
        #expect(SQLCipherFile.hotJournalPath(ofDatabaseAt: other) == nil)
    }
}
