import Foundation
import GRDBCipher
import GRDBCipherService
import Logging
import MetricsTestKit
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

/// Log entries, kept for the assertions.
final class LogRecorder: @unchecked Sendable {
    struct Entry { var level: Logger.Level; var message: String; var metadata: Logger.Metadata }
    private let lock = NSLock()
    private var storage: [Entry] = []
    var entries: [Entry] { lock.lock(); defer { lock.unlock() }; return storage }
    func append(_ entry: Entry) { lock.lock(); storage.append(entry); lock.unlock() }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    /// Every logged text: messages and metadata values.
    var allText: String {
        entries.map { entry in ([entry.message] + entry.metadata.map { "\($0.key)=\($0.value)" }).joined(separator: " ") }.joined(separator: "\n")
    }

    struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            recorder.append(Entry(level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
        }
    }
}

/// A directory removed when released.
final class Scratch: @unchecked Sendable {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("GRDBCipherServiceTests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

let slotSecret = Data("service test slot secret".utf8)

var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("notes") { db in
        try db.create(table: "note") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("body", .text).notNull().unique()
        }
    }
    return migrator
}

/// A database with a keyring, and a service on it.
func makeService(_ scratch: Scratch, options: DatabaseServiceOptions = DatabaseServiceOptions(), logger: Logger = Logger(label: "test")) throws -> DatabaseService {
    let path = scratch.path + "/notes.db"
    if !FileManager.default.fileExists(atPath: DatabaseKeyring.defaultKeyringPath(forDatabaseAt: path)) {
        try DatabaseKeyring.create(databaseAt: path, slots: [.source("primary", .passphrase(slotSecret))], kdfIterations: 1_000)
    }
    return try DatabaseService(path: path, key: .keyring(.passphrase(slotSecret)), migrator: migrator, options: options, logger: logger)
}

/// Runs the service under a graceful-shutdown trigger of ServiceLifecycleTestKit, and triggers
/// the shutdown once `whileRunning` returns.
func runThenShutDown(_ service: DatabaseService, whileRunning: @Sendable () async throws -> Void = {}) async throws {
    try await testGracefulShutdown { trigger in
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await service.run() }
            try await whileRunning()
            trigger.triggerGracefulShutdown()
            try await group.waitForAll()
        }
    }
}

@Suite("DatabaseService")
struct DatabaseServiceTests {
    @Test func opensMigratesServesAndStopsOnGracefulShutdown() async throws {
        let scratch = try Scratch()
        let logs = LogRecorder()
        let service = try makeService(scratch, logger: logs.logger)
        // Ready before the service runs: migrated.
        try await service.write { db in try db.execute(sql: "INSERT INTO note(body) VALUES ('first')") }
        try await runThenShutDown(service) {
            try await service.write { db in try db.execute(sql: "INSERT INTO note(body) VALUES ('second')") }
        }
        // Closed: the WAL checkpointed and gone, the content in the file, under the keyring's key.
        let walSize = (try? FileManager.default.attributesOfItem(atPath: scratch.path + "/notes.db-wal"))?[.size] as? Int
        #expect(walSize == nil || walSize == 0)
        await #expect(throws: DatabaseError.self) { try await service.read { db in try Int.fetchOne(db, sql: "SELECT 1") } }
        let keyring = try DatabaseKeyring.unlock(databaseAt: scratch.path + "/notes.db", with: .passphrase(slotSecret))
        var config = Configuration()
        config.prepareDatabase { db in try db.useKeyring(keyring) }
        let queue = try DatabaseQueue(path: scratch.path + "/notes.db", configuration: config)
        let bodies = try await queue.read { (db: Database) throws in try String.fetchAll(db, sql: "SELECT body FROM note ORDER BY id") }
        #expect(bodies == ["first", "second"])
        #expect(logs.entries.map(\.message).contains("database closed"))
    }

    @Test func aDatabaseMigratedByANewerVersionIsRefused() async throws {
        let scratch = try Scratch()
        let service = try makeService(scratch)
        try await service.stop()
        var newer = migrator
        newer.registerMigration("a later version") { db in
            try db.alter(table: "note") { t in t.add(column: "archived", .boolean) }
        }
        let path = scratch.path + "/notes.db"
        let upgraded = try DatabaseService(path: path, key: .keyring(.passphrase(slotSecret)), migrator: newer, logger: Logger(label: "test"))
        try await upgraded.stop()
        #expect {
            _ = try DatabaseService(path: path, key: .keyring(.passphrase(slotSecret)), migrator: migrator, logger: Logger(label: "test"))
        } throws: { error in
            guard case DatabaseServiceError.schemaIsNewer? = error as? DatabaseServiceError else { return false }
            return true
        }
    }

    @Test func aWrongKeyDoesNotOpen() throws {
        let scratch = try Scratch()
        _ = try makeService(scratch)
        #expect(throws: KeyringError.self) {
            _ = try DatabaseService(path: scratch.path + "/notes.db", key: .keyring(.passphrase(Data("wrong".utf8))), logger: Logger(label: "test"))
        }
    }

    /// A statement that runs at shutdown is interrupted after the timeout, and the service
    /// still checkpoints and closes.
    @Test func shutdownInterruptsStatementsAfterItsTimeout() async throws {
        let scratch = try Scratch()
        var options = DatabaseServiceOptions()
        options.shutdownTimeout = .milliseconds(200)
        let service = try makeService(scratch, options: options)
        let started = AsyncStream<Void>.makeStream()
        let endless = Task {
            try await service.read { db in
                started.continuation.yield()
                // Long (many seconds), not endless: without the interruption, the test fails
                // on its duration instead of hanging.
                return try Int.fetchOne(db, sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000000) SELECT COUNT(*) FROM c")
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        let start = ContinuousClock.now
        try await runThenShutDown(service)
        #expect(start.duration(to: .now) < .seconds(5))
        await #expect(throws: DatabaseError.self) { try await endless.value }
    }

    /// An access that runs no SQL cannot be interrupted: the service stops anyway, in bounded
    /// time, and says so.
    @Test func shutdownIsBoundedWhenAnAccessHangs() async throws {
        let scratch = try Scratch()
        var options = DatabaseServiceOptions()
        options.shutdownTimeout = .milliseconds(100)
        let logs = LogRecorder()
        let service = try makeService(scratch, options: options, logger: logs.logger)
        let started = AsyncStream<Void>.makeStream()
        let hanging = Task {
            try await service.read { _ in
                started.continuation.yield()
                Thread.sleep(forTimeInterval: 3)
                return 0
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        let start = ContinuousClock.now
        await #expect(throws: DatabaseServiceError.self) {
            try await runThenShutDown(service)
        }
        #expect(start.duration(to: .now) < .seconds(2))
        #expect(logs.entries.contains { $0.level == .error })
        _ = try await hanging.value
    }

    @Test func slowStatementsAreLoggedWithTheirSQLNeverTheirArguments() async throws {
        let scratch = try Scratch()
        var options = DatabaseServiceOptions()
        options.slowStatementThreshold = .zero
        let logs = LogRecorder()
        let service = try makeService(scratch, options: options, logger: logs.logger)
        try await service.write { db in
            try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["the secret word is marmalade"])
        }
        let slow = logs.entries.filter { $0.message == "slow statement" }
        #expect(slow.contains { "\($0.metadata["sql"] ?? "")" == "INSERT INTO note(body) VALUES (?)" })
        #expect(slow.allSatisfy { $0.metadata["duration_ms"] != nil })
        #expect(!logs.allText.contains("marmalade"))
    }

    @Test func metricsCountTransactionsWaitsAndErrors() async throws {
        let scratch = try Scratch()
        let metrics = TestMetrics()
        var options = DatabaseServiceOptions()
        options.metricsFactory = metrics
        let service = try makeService(scratch, options: options)
        try await service.write { db in try db.execute(sql: "INSERT INTO note(body) VALUES ('a')") }
        await #expect(throws: DatabaseError.self) {
            try await service.write { db in try db.execute(sql: "INSERT INTO note(body) VALUES ('a')") }
        }
        _ = try await service.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note") }
        #expect(metrics.counterTotal(label: "grdbcipher_transactions_total", dimensions: [("kind", "write"), ("outcome", "success")]) == 1)
        #expect(metrics.counterTotal(label: "grdbcipher_transactions_total", dimensions: [("kind", "write"), ("outcome", "error")]) == 1)
        #expect(metrics.counterTotal(label: "grdbcipher_transactions_total", dimensions: [("kind", "read"), ("outcome", "success")]) == 1)
        #expect(metrics.counterTotal(label: "grdbcipher_errors_total", dimensions: [("code", "SQLITE_CONSTRAINT")]) == 1)
        #expect(try metrics.expectTimer("grdbcipher_access_wait_seconds", [("kind", "write")]).values.count == 2)
        #expect(try metrics.expectTimer("grdbcipher_transaction_duration_seconds", [("kind", "read")]).values.count == 1)
        try await service.stop()
        #expect(try metrics.expectTimer("grdbcipher_checkpoint_duration_seconds").values.count == 1)
    }

    /// A health check that cannot run (a barrier holds the readers) returns at its timeout.
    @Test func healthCheckIsBoundedInTime() async throws {
        let scratch = try Scratch()
        let service = try makeService(scratch)
        let barrierHeld = DispatchSemaphore(value: 0)
        let writer = service.writer
        Thread.detachNewThread {
            try? writer.barrierWriteWithoutTransaction { _ in
                barrierHeld.signal()
                Thread.sleep(forTimeInterval: 1.5)
            }
        }
        barrierHeld.wait()
        let start = ContinuousClock.now
        let health = await service.health(timeout: .milliseconds(100))
        #expect(health.status == .timedOut, "\(health)")
        #expect(start.duration(to: .now) < .seconds(1))
        try await service.stop()
    }

    @Test func healthCheck() async throws {
        let scratch = try Scratch()
        let service = try makeService(scratch)
        let health = await service.health()
        #expect(health.status == .healthy, "\(health)")
        #expect(health.problems.isEmpty)
        try await service.stop()
        let closed = await service.health()
        #expect(closed.status == .unhealthy)
    }
}
