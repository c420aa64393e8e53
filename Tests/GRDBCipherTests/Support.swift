import Foundation
import Testing
@testable import GRDBCipher

/// Test settings from the environment.
enum TestEnvironment {
    /// `GRDBCIPHER_TEST_ENCRYPTION=1` makes every test database encrypted.
    static let encrypted = ProcessInfo.processInfo.environment["GRDBCIPHER_TEST_ENCRYPTION"] == "1"

    /// A raw 256-bit key in SQLCipher's `x'…'` syntax: it skips the 256,000-round key
    /// derivation, which would cost ~130 ms per connection. Tests of passphrases use real
    /// passphrases.
    static let testKey = "x'2DD29CA851E7B56E4697B0E1F08507293D761A05CE4D1B628663F411A8086D99'"
}

/// A temporary directory, deleted when released.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("GRDBCipherTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A fresh database for one test: a file in its own temporary directory, encrypted when the
/// suite runs encrypted.
final class TestDatabase: @unchecked Sendable {
    let directory: TemporaryDirectory
    let path: String
    let dbQueue: DatabaseQueue

    init(configuration: Configuration = Configuration(), name: String = "db.sqlite") throws {
        directory = try TemporaryDirectory()
        path = directory.path(name)
        dbQueue = try DatabaseQueue(path: path, configuration: Self.configure(configuration))
    }

    /// Adds the test key to a configuration when the suite runs encrypted.
    static func configure(_ configuration: Configuration) -> Configuration {
        var configuration = configuration
        if TestEnvironment.encrypted {
            var keyed = Configuration()
            keyed.prepareDatabase { db in try db.usePassphrase(TestEnvironment.testKey) }
            // The key goes first, before the test's own preparation.
            configuration.setUpFunctions = keyed.setUpFunctions + configuration.setUpFunctions
        }
        return configuration
    }

    /// Opens a queue on another file, encrypted when the suite runs encrypted.
    func makeQueueAt(_ path: String, configuration: Configuration = Configuration()) throws -> DatabaseQueue {
        try DatabaseQueue(path: path, configuration: Self.configure(configuration))
    }

    /// Opens another queue on the same file.
    func makeQueue(configuration: Configuration = Configuration()) throws -> DatabaseQueue {
        try DatabaseQueue(path: path, configuration: Self.configure(configuration))
    }
}

/// Runs `body` in a write access to a new test database made by `schema`, with the SQL it
/// runs from then on recorded.
func withRecordedDatabase(_ schema: String, _ body: (Database, SQLRecorder) throws -> Void) throws {
    let test = try TestDatabase()
    try test.dbQueue.write { db in
        try db.execute(sql: schema)
        let recorder = SQLRecorder()
        recorder.record(db)
        try body(db, recorder)
    }
}

/// Records the SQL a connection runs.
final class SQLRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _sql: [String] = []

    var sql: [String] {
        lock.lock(); defer { lock.unlock() }
        return _sql
    }

    /// The SQL, without the schema queries (pragmas) of the schema cache, commits, and the
    /// statements of triggers and virtual tables (traced as "-- comments").
    var dataSQL: [String] {
        sql.filter { !$0.hasPrefix("PRAGMA") && !$0.contains("FROM pragma_") && !$0.hasPrefix("COMMIT") && !$0.hasPrefix("--") }
    }

    func record(_ db: Database) {
        db.trace { event in
            self.lock.lock(); defer { self.lock.unlock() }
            self._sql.append(event.sql)
        }
    }

    func reset() {
        lock.lock(); defer { lock.unlock() }
        _sql = []
    }
}

/// Runs `body`, expecting a `DatabaseError` with `code`; returns it for more checks.
@discardableResult
func expectDatabaseError(
    _ code: ResultCode,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void) -> DatabaseError?
{
    do {
        try body()
        Issue.record("expected DatabaseError \(code), got no error", sourceLocation: sourceLocation)
        return nil
    } catch let error as DatabaseError {
        #expect(code ~= error.extendedResultCode, "got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected DatabaseError \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Why `onNewThread` gave up.
struct ThreadTimeout: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "the thread did not finish within \(seconds) s" }
}

/// Runs `body` on a new thread, and returns its result. With `timeLimit`, throws `ThreadTimeout`
/// when the thread has not finished by then (the thread is left running): a test that could
/// hang fails instead. The limit counts from the thread's start, unlike Swift Testing's
/// `.timeLimit`, which also counts the time the test waits for a thread of the shared pool
/// while the rest of the suite runs.
func onNewThread<T: Sendable>(timeLimit: Double? = nil, _ body: @escaping @Sendable () throws -> T) throws -> T {
    let result = LockedValue<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        result.write(Result { try body() })
        done.signal()
    }
    thread.start()
    if let timeLimit {
        guard done.wait(timeout: .now() + timeLimit) == .success else { throw ThreadTimeout(seconds: timeLimit) }
    } else {
        done.wait()
    }
    return try result.read()!.get()
}
