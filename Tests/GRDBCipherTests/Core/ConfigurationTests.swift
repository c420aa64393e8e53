import Dispatch
import Foundation
import Testing
@testable import GRDBCipher

@Suite("Configuration")
struct ConfigurationTests {
    @Test func defaults() {
        let config = Configuration()
        #expect(config.foreignKeysEnabled)
        #expect(!config.readonly)
        #expect(config.label == nil)
        #expect(!config.publicStatementArguments)
        #expect(!config.acceptsDoubleQuotedStringLiterals)
        #expect(!config.allowsUnsafeTransactions)
        #expect(config.maximumReaderCount == 5)
        #expect(config.journalMode == .default)
    }

    @Test func foreignKeysAreEnforcedByDefault() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "PRAGMA foreign_keys") == 1)
        }
        var config = Configuration()
        config.foreignKeysEnabled = false
        let other = try TestDatabase(configuration: config)
        try other.dbQueue.write { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "PRAGMA foreign_keys") == 0)
        }
    }

    @Test func labelDescribesTheConnection() throws {
        var config = Configuration()
        config.label = "Players"
        let test = try TestDatabase(configuration: config)
        test.dbQueue.inDatabase { db in
            #expect(db.description == "Players")
        }
    }

    @Test func doubleQuotedStringLiterals() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try String.fetchOne(db, sql: "SELECT \"hello\"") }
            #expect(error?.message?.hasPrefix("no such column: \"hello\"") == true)
        }
        var config = Configuration()
        config.acceptsDoubleQuotedStringLiterals = true
        let lenient = try TestDatabase(configuration: config)
        #expect(try lenient.dbQueue.read { try String.fetchOne($0, sql: "SELECT \"hello\"") } == "hello")
    }

    @Test func prepareDatabaseRunsInOrderOnEveryConnection() throws {
        final class Log: @unchecked Sendable { var entries: [String] = [] }
        let log = Log()
        var config = Configuration()
        config.prepareDatabase { _ in log.entries.append("first") }
        config.prepareDatabase { db in
            log.entries.append("second")
            try db.execute(sql: "CREATE TEMP TABLE prepared(a)")
        }
        let test = try TestDatabase(configuration: config)
        #expect(log.entries == ["first", "second"])
        _ = try test.makeQueue(configuration: config)
        #expect(log.entries == ["first", "second", "first", "second"])
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM prepared") } == 0)
    }

    @Test func prepareDatabaseErrorsFailTheOpen() throws {
        struct Refused: Error {}
        var config = Configuration()
        config.prepareDatabase { _ in throw Refused() }
        #expect(throws: Refused.self) { _ = try TestDatabase(configuration: config) }
    }

    @Test func walJournalMode() throws {
        var config = Configuration()
        config.journalMode = .wal
        let test = try TestDatabase(configuration: config)
        #expect(try test.dbQueue.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test func busyModeTimeoutWaitsForALock() throws {
        var config = Configuration()
        config.busyMode = .timeout(5)
        let test = try TestDatabase(configuration: config)
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let other = try test.makeQueue(configuration: config)
        let immediate = try test.makeQueue()
        let released = DispatchSemaphore(value: 0)
        let locked = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? other.inTransaction(.exclusive) { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                locked.signal()
                Thread.sleep(forTimeInterval: 0.3)
                return .commit
            }
            released.signal()
        }
        locked.wait()
        // Without a timeout: SQLITE_BUSY at once.
        expectDatabaseError(.SQLITE_BUSY) {
            try immediate.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        }
        // With a timeout: waits for the other writer, then succeeds.
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (3)") }
        released.wait()
        #expect(try test.dbQueue.read { try Int.fetchAll($0, sql: "SELECT a FROM t ORDER BY a") } == [1, 3])
    }

    /// The timeout is a total per wait: a connection that waits twice waits the full duration
    /// each time before SQLITE_BUSY, and a timeout of zero does not wait at all.
    @Test func busyModeTimeoutGivesUpAfterItsDuration() throws {
        var config = Configuration()
        config.busyMode = .timeout(0.2)
        let test = try TestDatabase(configuration: config)
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        var noWait = Configuration()
        noWait.busyMode = .timeout(0)
        let impatient = try test.makeQueue(configuration: noWait)
        let other = try test.makeQueue()
        try other.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN EXCLUSIVE TRANSACTION")
            for _ in 0..<2 {
                let start = Date()
                expectDatabaseError(.SQLITE_BUSY) {
                    try test.dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
                }
                #expect(Date().timeIntervalSince(start) >= 0.2)
            }
            expectDatabaseError(.SQLITE_BUSY) {
                try impatient.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
            }
            try db.rollback()
        }
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO t VALUES (3)") }
        #expect(try test.dbQueue.read { try Int.fetchAll($0, sql: "SELECT a FROM t") } == [3])
    }

    @Test func busyModeCallback() throws {
        final class Tries: @unchecked Sendable { var count = 0 }
        let tries = Tries()
        var config = Configuration()
        config.busyMode = .callback { numberOfTries in
            tries.count = numberOfTries + 1
            return numberOfTries < 3
        }
        let test = try TestDatabase(configuration: config)
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let other = try test.makeQueue()
        try other.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN EXCLUSIVE TRANSACTION")
            expectDatabaseError(.SQLITE_BUSY) {
                try test.dbQueue.read { _ = try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") }
            }
            try db.rollback()
        }
        #expect(tries.count == 4)
    }

    @Test func defaultLabels() throws {
        let test = try TestDatabase()
        #expect(try test.dbQueue.read { $0.description } == "GRDB.DatabaseQueue")
        let pool = try TestPool()
        #expect(try pool.dbPool.write { $0.description } == "GRDB.DatabasePool.writer")
        #expect(try pool.dbPool.read { $0.description } == "GRDB.DatabasePool.reader.1")
        #expect(try pool.dbPool.makeSnapshot().read { $0.description } == "GRDB.DatabasePool.snapshot.1")
        #expect(try pool.dbPool.makeSnapshot().read { $0.description } == "GRDB.DatabasePool.snapshot.2")

        var config = Configuration()
        config.label = "Vault"
        let labelled = try TestPool(configuration: config)
        #expect(try labelled.dbPool.write { $0.description } == "Vault.writer")
        #expect(try labelled.dbPool.read { $0.description } == "Vault.reader.1")
        #expect(try labelled.dbPool.makeSnapshot().read { $0.description } == "Vault.snapshot.1")
    }

    @Test func accessesRunOnTheTargetQueues() throws {
        let target = DispatchQueue(label: "target")
        let writeTarget = DispatchQueue(label: "writeTarget")
        var config = Configuration()
        config.targetQueue = target
        config.writeTargetQueue = writeTarget
        // A queue uses the write target; a pool's writer too, its readers the target.
        let test = try TestDatabase(configuration: config)
        try test.dbQueue.write { _ in dispatchPrecondition(condition: .onQueue(writeTarget)) }
        try test.dbQueue.read { _ in dispatchPrecondition(condition: .onQueue(writeTarget)) }
        let pool = try TestPool(configuration: config)
        try pool.dbPool.write { _ in dispatchPrecondition(condition: .onQueue(writeTarget)) }
        try pool.dbPool.read { _ in dispatchPrecondition(condition: .onQueue(target)) }

        // A global queue as target: accesses run on it (no QoS of our own replaces it).
        var globalConfig = Configuration()
        globalConfig.targetQueue = .global(qos: .utility)
        let global = try TestDatabase(configuration: globalConfig)
        try global.dbQueue.write { _ in dispatchPrecondition(condition: .onQueue(.global(qos: .utility))) }

        // Read-only: the target everywhere, the write target ignored.
        var readonly = config
        readonly.readonly = true
        let readonlyQueue = try test.makeQueue(configuration: readonly)
        try readonlyQueue.read { _ in dispatchPrecondition(condition: .onQueue(target)) }
    }

    @Test func releaseMemoryAfterCloseDoesNothing() throws {
        let test = try TestDatabase()
        try test.dbQueue.close()
        test.dbQueue.releaseMemory()
        let pool = try TestPool()
        try pool.dbPool.close()
        pool.dbPool.releaseMemory()
        pool.dbPool.releaseMemoryEventually()
    }

    @Test func walFilesExistOnceOpened() throws {
        let pool = try TestPool()
        for suffix in ["-wal", "-shm"] {
            #expect(FileManager.default.fileExists(atPath: pool.path + suffix))
        }
        let walSize = try FileManager.default.attributesOfItem(atPath: pool.path + "-wal")[.size] as? Int
        #expect((walSize ?? 0) > 0)
        // A queue configured for WAL as well; the content is unchanged.
        var config = Configuration()
        config.journalMode = .wal
        let test = try TestDatabase(configuration: config)
        #expect(FileManager.default.fileExists(atPath: test.path + "-wal"))
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == 0)
        // A database in the DELETE mode, reopened as a pool.
        let plain = try TestDatabase(name: "plain.sqlite")
        try plain.dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        try plain.dbQueue.close()
        let reopened = try DatabasePool(path: plain.path, configuration: TestDatabase.configure(Configuration()))
        #expect(FileManager.default.fileExists(atPath: plain.path + "-wal"))
        #expect(try reopened.read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
    }
}

// MARK: - Effective QoS, journal mode, schema source

extension ConfigurationTests {
    @Test func effectiveQualityOfService() {
        var config = Configuration()
        #expect(config.qos == .default)
        #expect(config.readQoS == .default)
        #expect(config.writeQoS == .default)

        config.qos = .userInitiated
        #expect(config.readQoS == .userInitiated)
        #expect(config.writeQoS == .userInitiated)

        // A target queue gives its own QoS to every access…
        config.targetQueue = DispatchQueue(label: "utility", qos: .utility)
        #expect(config.readQoS == .utility)
        #expect(config.writeQoS == .utility)

        // …and a write target queue to writes.
        config.writeTargetQueue = DispatchQueue(label: "background", qos: .background)
        #expect(config.readQoS == .utility)
        #expect(config.writeQoS == .background)
    }

    @Test func journalModeConfiguration() throws {
        var config = Configuration()
        #expect(config.journalMode == Configuration.JournalModeConfiguration.default)
        let plain = try TestDatabase(configuration: config)
        #expect(try plain.dbQueue.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "delete")

        config.journalMode = Configuration.JournalModeConfiguration.wal
        let wal = try TestDatabase(configuration: config)
        #expect(try wal.dbQueue.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
        // The file stays in WAL mode for the connections that open it later.
        let other = try wal.makeQueue()
        #expect(try other.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test func schemaSourceDefaultsToNil() throws {
        #expect(Configuration().schemaSource == nil)
        let test = try TestDatabase()
        try test.dbQueue.read { db in #expect(db.schemaSource == nil) }
    }
}
