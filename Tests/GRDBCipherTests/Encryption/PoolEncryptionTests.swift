import Dispatch
import Foundation
import Testing
@testable import GRDBCipher

/// Passphrases for pools whose `prepareDatabase` reads them, as GRDB recommends, and that can
/// become unavailable.
final class PassphraseSource: @unchecked Sendable {
    struct Unavailable: Error {}
    private let lock = NSLock()
    private var value: String?
    init(_ value: String) { self.value = value }
    func set(_ value: String?) { lock.withLock { self.value = value } }
    func get() throws -> String {
        guard let value = lock.withLock({ value }) else { throw Unavailable() }
        return value
    }
}

@Suite("Encrypted pools")
struct PoolEncryptionTests {
    static func makePool(_ directory: TemporaryDirectory, _ source: PassphraseSource, configure: (inout Configuration) -> Void = { _ in }) throws -> DatabasePool {
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase(try source.get()) }
        configure(&config)
        return try DatabasePool(path: directory.path("pool.sqlite"), configuration: config)
    }

    @Test func readersUseTheKeyDerivedOnce() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try Self.makePool(directory, PassphraseSource("secret"))
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        #expect(dbPool.keyCache?.isFilled == true)
        // The writer derived its key in SQLCipher; readers get the cached raw key.
        #expect(dbPool.writeWithoutTransaction { $0.usedCachedKey } == false)
        #expect(try dbPool.read { $0.usedCachedKey } == true)
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
        #expect(try dbPool.makeSnapshot().read { $0.usedCachedKey } == true)
        // No copy of the passphrase is left on the connections.
        #expect(try dbPool.read { $0.passphraseToLearn } == nil)
        #expect(dbPool.writeWithoutTransaction { $0.passphraseToLearn } == nil)
    }

    @Test func theDerivationIsSQLCipherS() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        var config = Configuration()
        config.prepareDatabase { try $0.usePassphrase("secret") }
        try DatabaseQueue(path: path, configuration: config).write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (7)") }
        let salt = Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(16))
        // A connection keyed with the raw key derived outside of SQLCipher reads the file...
        let key = try #require(PoolKeyCache.derive(passphrase: Array("secret".utf8), salt: salt, iterations: 256_000, algorithm: .pbkdf2SHA512))
        var raw = Configuration()
        raw.prepareDatabase { try $0.useRawKey(Data(key)) }
        #expect(try DatabaseQueue(path: path, configuration: raw).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 7)
        // ...and the key derived from another passphrase does not.
        let wrong = try #require(PoolKeyCache.derive(passphrase: Array("Secret".utf8), salt: salt, iterations: 256_000, algorithm: .pbkdf2SHA512))
        var wrongConfig = Configuration()
        wrongConfig.prepareDatabase { try $0.useRawKey(Data(wrong)) }
        expectDatabaseError(.SQLITE_NOTADB) { _ = try DatabaseQueue(path: path, configuration: wrongConfig) }
        // SQLCipher 3 settings: PBKDF2-HMAC-SHA1, 64,000 rounds, also match.
        let v3Path = directory.path("v3.sqlite")
        try DatabaseQueue(path: path, configuration: config)
            .exportDatabase(to: v3Path, options: .encrypted(with: .passphrase("secret"), settings: .sqlcipher3))
        let v3Salt = Array(try Data(contentsOf: URL(fileURLWithPath: v3Path)).prefix(16))
        let v3Key = try #require(PoolKeyCache.derive(passphrase: Array("secret".utf8), salt: v3Salt, iterations: 64_000, algorithm: .pbkdf2SHA1))
        var v3Raw = Configuration()
        v3Raw.prepareDatabase { try $0.useRawKey(Data(v3Key), settings: .sqlcipher3) }
        #expect(try DatabaseQueue(path: v3Path, configuration: v3Raw).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 7)
    }

    @Test func aDifferentPassphraseIsNotServedFromTheCache() throws {
        let directory = try TemporaryDirectory()
        let source = PassphraseSource("secret")
        let dbPool = try Self.makePool(directory, source)
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        source.set("wrong")
        let error = expectDatabaseError(.SQLITE_NOTADB) { _ = try dbPool.read { _ in 1 } }
        #expect(error?.message?.contains("wrong passphrase") == true)
        #expect(error?.message?.contains("secret") == false)
        source.set("secret")
        #expect(try dbPool.read { $0.usedCachedKey } == true)
    }

    @Test func theCacheCanBeTurnedOff() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try Self.makePool(directory, PassphraseSource("secret")) { $0.derivesPoolKeyOnce = false }
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        #expect(dbPool.keyCache == nil)
        #expect(try dbPool.read { $0.usedCachedKey } == false)
    }

    /// A file put in place of the pool's (a restored backup: same passphrase, another salt)
    /// does not open with the key the pool derived: the pool derives it again, and is not
    /// told "an I/O error, try again" by the diagnosis of failed opens.
    @Test func aFileWithAnotherSaltMakesThePoolDeriveAgain() throws {
        let directory = try TemporaryDirectory()
        let source = PassphraseSource("secret")
        let dbPool = try Self.makePool(directory, source)
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
        _ = try dbPool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        let copy = directory.path("copy.sqlite")
        _ = try dbPool.exportDatabase(to: copy, options: .encrypted(with: .passphrase("secret")))
        let copyQueue = try DatabaseQueue(path: copy, configuration: {
            var config = Configuration()
            config.prepareDatabase { try $0.usePassphrase("secret") }
            return config
        }())
        try copyQueue.write { try $0.execute(sql: "UPDATE t SET a = 2") }
        try copyQueue.close()
        dbPool.invalidateReadOnlyConnections()
        #expect(rename(copy, dbPool.path) == 0)
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 2)
    }

    @Test func anUnavailablePassphraseFailsNewReadersOnly() throws {
        let directory = try TemporaryDirectory()
        let source = PassphraseSource("secret")
        let dbPool = try Self.makePool(directory, source)
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        _ = try dbPool.read { _ in 1 } // one reader, now idle
        source.set(nil)
        // The open reader is busy on another thread: the next read needs a new connection.
        let busy = DispatchSemaphore(value: 0)
        let mayEnd = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let result = SQLRecorderLog()
        let thread = Thread {
            let count = try? dbPool.read { db -> Int? in
                busy.signal()
                mayEnd.wait()
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")
            }
            result.append("\(count.flatMap { $0 } ?? -1)")
            ended.signal()
        }
        thread.start()
        busy.wait()
        #expect(throws: PassphraseSource.Unavailable.self) { try dbPool.read { _ in 1 } }
        mayEnd.signal()
        ended.wait()
        #expect(result.entries == ["1"])
        // The open connections keep working.
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
        try dbPool.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
    }

    @Test func changingThePassphraseOfAPoolInOneCall() throws {
        let directory = try TemporaryDirectory()
        let source = PassphraseSource("old")
        let dbPool = try Self.makePool(directory, source)
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        _ = try dbPool.read { _ in 1 }
        try dbPool.changePassphrase("new")
        // The derived key of the old passphrase is gone, and so are the readers that used it.
        #expect(dbPool.keyCache?.isFilled == false)
        source.set("new")
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
        // The first new reader derived the new key; the next ones use it.
        #expect(dbPool.keyCache?.isFilled == true)
        try dbPool.close()
        expectDatabaseError(.SQLITE_NOTADB) { _ = try Self.makePool(directory, PassphraseSource("old")) }
        #expect(try Self.makePool(directory, source).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
    }

    @Test func changingThePassphraseTheGRDBWay() throws {
        let directory = try TemporaryDirectory()
        let source = PassphraseSource("old")
        let dbPool = try Self.makePool(directory, source)
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        _ = try dbPool.read { _ in 1 }
        try dbPool.barrierWriteWithoutTransaction { db in
            try db.changePassphrase("new")
            dbPool.invalidateReadOnlyConnections()
        }
        source.set("new")
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
        try dbPool.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
    }

    /// One writer moves money between accounts while readers check, in every read, that the
    /// total is unchanged: no error, no torn read, no deadlock. Bounded by a count and a time.
    @Test func stressOneWriterAndConcurrentReaders() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try Self.makePool(directory, PassphraseSource("stress")) { $0.maximumReaderCount = 4 }
        let accountCount = 20
        let total = accountCount * 100
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE account(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
            for id in 1...accountCount {
                try db.execute(sql: "INSERT INTO account(id, balance) VALUES (?, 100)", arguments: [id])
            }
        }
        let deadline = Date().addingTimeInterval(20)
        let transferCount = 400
        let writerDone = LockedFlag()
        let problems = SQLRecorderLog()
        let reads = Counter()
        let group = DispatchGroup()
        for readerIndex in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                while !writerDone.value && Date() < deadline {
                    do {
                        let (sum, count) = try readerIndex == 3
                            ? dbPool.unsafeRead { db in try db.isolated { try Self.totals(db) } }
                            : dbPool.read { try Self.totals($0) }
                        if sum != total || count != accountCount {
                            problems.append("torn read: total \(sum), \(count) accounts")
                        }
                        reads.increment()
                    } catch {
                        problems.append("read error: \(error)")
                    }
                }
            }.start()
        }
        var generator = SystemRandomNumberGenerator()
        var transfers = 0
        while transfers < transferCount && Date() < deadline {
            let from = Int.random(in: 1...accountCount, using: &generator)
            let to = Int.random(in: 1...accountCount, using: &generator)
            let amount = Int.random(in: 1...10, using: &generator)
            do {
                try dbPool.write { db in
                    try db.execute(sql: "UPDATE account SET balance = balance - ? WHERE id = ?", arguments: [amount, from])
                    try db.execute(sql: "UPDATE account SET balance = balance + ? WHERE id = ?", arguments: [amount, to])
                }
            } catch {
                problems.append("write error: \(error)")
            }
            transfers += 1
        }
        writerDone.set()
        #expect(group.wait(timeout: .now() + 30) == .success, "readers did not finish: deadlock?")
        #expect(problems.entries.isEmpty, "\(problems.entries.prefix(5))")
        #expect(transfers > 50)
        #expect(reads.count > 0)
        #expect(try dbPool.read { try Self.totals($0).0 } == total)
        #expect(try dbPool.read { try String.fetchAll($0, sql: "PRAGMA cipher_integrity_check") } == [])
    }

    static func totals(_ db: Database) throws -> (Int, Int) {
        let row = try Row.fetchOne(db, sql: "SELECT SUM(balance), COUNT(*) FROM account")!
        return (row[0], row[1])
    }
}

/// A flag set once, read from several threads.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var value: Bool { lock.withLock { flag } }
    func set() { lock.withLock { flag = true } }
}
