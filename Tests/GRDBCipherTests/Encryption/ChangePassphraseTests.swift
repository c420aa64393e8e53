import Foundation
import Testing
@testable import GRDBCipher

/// Passphrase holder that `prepareDatabase` reads, as GRDB recommends.
final class PassphraseStore: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String
    init(_ value: String) { self.value = value }
    var current: String {
        get { lock.lock(); defer { lock.unlock() }; return value }
        set { lock.lock(); value = newValue; lock.unlock() }
    }
}

@Suite("Changing the passphrase")
struct ChangePassphraseTests {
    /// Fast key derivation keeps the suite quick; the settings also prove that the
    /// verification replicates them.
    static let fastKDF = CipherSettings(kdfIterations: 1000)

    private func configuration(_ store: PassphraseStore, journalMode: Configuration.JournalModeConfiguration = .default) -> Configuration {
        var config = Configuration()
        config.journalMode = journalMode
        config.prepareDatabase { db in try db.usePassphrase(store.current, settings: Self.fastKDF) }
        return config
    }

    private func open(_ path: String, _ passphrase: String) throws -> DatabaseQueue {
        try DatabaseQueue(path: path, configuration: configuration(PassphraseStore(passphrase)))
    }

    private func makeDatabase(_ directory: TemporaryDirectory, journalMode: Configuration.JournalModeConfiguration = .default) throws -> (DatabaseQueue, PassphraseStore, String) {
        let store = PassphraseStore("old")
        let path = directory.path("db.sqlite")
        let dbQueue = try DatabaseQueue(path: path, configuration: configuration(store, journalMode: journalMode))
        try dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)") }
        return (dbQueue, store, path)
    }

    @Test(arguments: [Configuration.JournalModeConfiguration.default, .wal])
    func changeInsideWriteAsGRDBDocuments(journalMode: Configuration.JournalModeConfiguration) throws {
        let directory = try TemporaryDirectory()
        let (dbQueue, store, path) = try makeDatabase(directory, journalMode: journalMode)
        try dbQueue.write { db in
            try db.changePassphrase("new")
            // The transaction goes on: writes after the change are committed by `write`.
            #expect(db.isInsideTransaction)
            try db.execute(sql: "INSERT INTO t VALUES (3)")
        }
        store.current = "new"
        #expect(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 3)
        // Again: in the WAL mode, the pages of the first change may still be in the WAL.
        try dbQueue.write { try $0.changePassphrase("newer") }
        store.current = "newer"
        try dbQueue.close()
        #expect(try open(path, "newer").read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 3)
        expectDatabaseError(.SQLITE_NOTADB) { _ = try open(path, "new") }
        expectDatabaseError(.SQLITE_NOTADB) { _ = try open(path, "old") }
    }

    @Test func changeInOneCallOnTheQueue() throws {
        let directory = try TemporaryDirectory()
        let (dbQueue, _, path) = try makeDatabase(directory)
        try dbQueue.changePassphrase(Data("binary-new".utf8))
        try dbQueue.close()
        _ = try open(path, "binary-new")
    }

    @Test func keySetWithPragmaKey() throws {
        // GRDB's documented way of keying with SQL in prepareDatabase.
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        var config = Configuration()
        config.prepareDatabase { try $0.execute(sql: "PRAGMA key = 'old'; PRAGMA kdf_iter = 1000") }
        let dbQueue = try DatabaseQueue(path: path, configuration: config)
        try dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        try dbQueue.write { try $0.changePassphrase("new") }
        try dbQueue.close()
        #expect(try open(path, "new").read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
    }

    @Test func rawKeyChange() throws {
        let directory = try TemporaryDirectory()
        let (dbQueue, _, path) = try makeDatabase(directory)
        let key = Data((0..<32).map { UInt8($0) })
        try dbQueue.writeWithoutTransaction { try $0.changeKey(.rawKey(key)) }
        try dbQueue.close()
        var config = Configuration()
        config.prepareDatabase { db in try db.useRawKey(key, settings: Self.fastKDF) }
        #expect(try DatabaseQueue(path: path, configuration: config).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
    }

    @Test func refusedAfterChangesInTheSameTransaction() throws {
        let directory = try TemporaryDirectory()
        let (dbQueue, _, path) = try makeDatabase(directory)
        let error = expectDatabaseError(.SQLITE_MISUSE) {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (99)")
                try db.changePassphrase("new")
            }
        }
        #expect(error?.message?.contains("uncommitted changes") == true)
        // The change was rolled back with the transaction, and the old passphrase still works.
        #expect(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
        try dbQueue.close()
        _ = try open(path, "old")
    }

    @Test func refusedOnAReadOnlyConnection() throws {
        let directory = try TemporaryDirectory()
        let (dbQueue, store, path) = try makeDatabase(directory)
        try dbQueue.close()
        var config = configuration(store)
        config.readonly = true
        let reader = try DatabaseQueue(path: path, configuration: config)
        let error = expectDatabaseError(.SQLITE_READONLY) {
            try reader.writeWithoutTransaction { try $0.changePassphrase("new") }
        }
        #expect(error?.message == "changePassphrase: the connection is read-only")
        _ = try open(path, "old")
    }

    @Test func refusedOnPlaintextAndInMemoryDatabases() throws {
        let directory = try TemporaryDirectory()
        let plain = try DatabaseQueue(path: directory.path("plain.sqlite"))
        let error = expectDatabaseError(.SQLITE_MISUSE) {
            try plain.writeWithoutTransaction { try $0.changePassphrase("new") }
        }
        #expect(error?.message?.contains("not encrypted") == true)
        var config = Configuration()
        config.prepareDatabase { try $0.usePassphrase("k") }
        let memory = try DatabaseQueue(configuration: config)
        expectDatabaseError(.SQLITE_MISUSE) {
            try memory.writeWithoutTransaction { try $0.changePassphrase("new") }
        }
    }

    @Test func emptyNewPassphraseIsRefused() throws {
        let directory = try TemporaryDirectory()
        let (dbQueue, _, path) = try makeDatabase(directory)
        expectDatabaseError(.SQLITE_MISUSE) {
            try dbQueue.writeWithoutTransaction { try $0.changePassphrase("") }
        }
        try dbQueue.close()
        _ = try open(path, "old")
    }

    @Test func refusedWhileAnotherConnectionHoldsALock() throws {
        let directory = try TemporaryDirectory()
        let (dbQueue, _, path) = try makeDatabase(directory)
        let other = try open(path, "old")
        try other.writeWithoutTransaction { otherDB in
            try otherDB.execute(sql: "BEGIN")
            _ = try Int.fetchOne(otherDB, sql: "SELECT COUNT(*) FROM t") // holds a shared lock
            let error = expectDatabaseError(.SQLITE_BUSY) {
                try dbQueue.writeWithoutTransaction { try $0.changePassphrase("new") }
            }
            #expect(error?.message?.contains("the passphrase was not changed") == true)
            try otherDB.execute(sql: "COMMIT")
        }
        // Both connections still work with the old passphrase.
        #expect(try dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
        try dbQueue.close()
        try other.close()
        _ = try open(path, "old")
        expectDatabaseError(.SQLITE_NOTADB) { _ = try open(path, "new") }
    }
}
