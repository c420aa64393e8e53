import Foundation
import GRDBCipher
@testable import GRDBCipherService
import Logging
import Testing

@Suite("DatabaseService logging")
struct DatabaseLoggingTests {
    @Test func sqlcipherLogLinesAreParsedAndRedacted() {
        let line = SQLCipherLogLine("2026-11-28 05:09:37.028: ERROR CORE sqlcipher_page_cipher: hmac check failed for pgno=1")
        #expect(line.level == .error)
        #expect(line.source == "CORE")
        #expect(line.message == "sqlcipher_page_cipher: hmac check failed for pgno=1")
        #expect(SQLCipherLogLine("2026-11-28 05:09:37.028: WARN MEMORY x").level == .warning)
        #expect(SQLCipherLogLine("2026-11-28 05:09:37.028: DEBUG CORE x").level == .debug)
        #expect(SQLCipherLogLine("2026-11-28 05:09:37.028: TRACE CORE x").level == .trace)
        #expect(SQLCipherLogLine("2026-11-28 05:09:37.028: INFO CORE x").level == .info)

        let key = String(repeating: "a1b2c3d4", count: 8)
        let redacted = SQLCipherLogLine("2026-11-28 05:09:37.028: DEBUG CORE key=x'\(key)' salt=\(key.prefix(32)) ptr=55E1E128BA98")
        #expect(redacted.message == "key=x'<redacted>' salt=<redacted> ptr=55E1E128BA98")
        // A line in another shape is kept, redacted, at the info level.
        let odd = SQLCipherLogLine("unexpected \(key)")
        #expect(odd.level == .info)
        #expect(odd.message == "unexpected <redacted>")
    }

    /// SQLCipher's stdio stream flushes each line to a terminal only: the channel is a
    /// pseudo-terminal where the system has them.
    @Test func sqlcipherWritesToAPseudoTerminal() throws {
        let channel = try LogChannel()
        defer { channel.close() }
        #if os(Linux)
        #expect(channel.writerPath.hasPrefix("/dev/pts/"))
        #endif
        // A line written to the writer's end arrives whole at the reading end.
        let writer = open(channel.writerPath, O_WRONLY | O_NOCTTY)
        #expect(writer >= 0)
        defer { close(writer) }
        let line = "2026-11-28 05:09:37.028: WARN CORE a line\n"
        #expect(write(writer, line, line.utf8.count) == line.utf8.count)
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(channel.readEnd, &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == line)
    }

    @Test func sqliteMessagesAreRedacted() {
        #expect(loggableSQLiteMessage("FOREIGN KEY constraint failed") == "FOREIGN KEY constraint failed")
        let key = String(repeating: "0123456789abcdef", count: 4)
        #expect(loggableSQLiteMessage("unrecognized token: \"x'\(key)'\"") == "unrecognized token: \"x'<redacted>'\"")
    }

    /// In a new process, as in a service: bootstrapped before any connection opens, SQLite's
    /// own messages reach swift-log, and a message quoting a key does not.
    @Test func sqliteLogReachesSwiftLogWhenBootstrappedFirst() async {
        await #expect(processExitsWith: .success) {
            let logs = LogRecorder()
            try DatabaseService.bootstrapLogging(logs.logger)
            let queue = try DatabaseQueue()
            _ = try? queue.read { try $0.execute(sql: "SELEKT 'from the test'") }
            _ = try? queue.read { try $0.execute(sql: "PRAGMA key = 'hunter2' SELEKT") }
            let sqlite = logs.entries.filter { $0.message.hasPrefix("sqlite: ") }
            let routed = sqlite.contains { $0.level == .warning && $0.message.contains("SELEKT 'from the test'") && $0.metadata["code"] == "1" }
            let withheld = sqlite.contains { $0.message == "sqlite: (message withheld: the statement holds a secret)" }
            exit(routed && withheld && !logs.allText.contains("hunter2") ? 0 : 1)
        }
    }

    /// Process-wide: this one test sets the logs of the process, and looks for its own entries
    /// only (other tests run meanwhile).
    @Test func sqliteAndSQLCipherLogsReachSwiftLog() async throws {
        let logs = LogRecorder()
        try DatabaseService.bootstrapLogging(logs.logger, sqlcipherLogLevel: .error)
        defer { Database.logError = nil }
        let scratch = try Scratch()
        let path = scratch.path + "/encrypted.db"
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.usePassphrase("the right passphrase") }
        try await DatabaseQueue(path: path, configuration: configuration).write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
        }

        // SQLCipher logs the failed authentication of page 1 at its ERROR level.
        var wrong = Configuration()
        wrong.prepareDatabase { db in try db.usePassphrase("a wrong passphrase") }
        #expect(throws: DatabaseError.self) {
            try DatabaseQueue(path: path, configuration: wrong).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") }
        }
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while !logs.entries.contains(where: { $0.message.hasPrefix("sqlcipher: ") }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let sqlcipher = logs.entries.filter { $0.message.hasPrefix("sqlcipher: ") }
        #expect(sqlcipher.contains { $0.level == .error && $0.message.contains("hmac check failed") && $0.metadata["subsystem"] == "CORE" })

        // The library's warning about a statement left alive when a connection closes.
        let queue = try DatabaseQueue()
        do {
            let statement = try queue.inDatabase { db in try db.makeStatement(sql: "SELECT 'left unfinalized'") }
            #expect(throws: DatabaseError.self) { try queue.close() }
            withExtendedLifetime(statement) {}
        }
        #expect(logs.entries.contains { $0.level == .warning && $0.message.contains("unfinalized statement: SELECT 'left unfinalized'") })
        try queue.close()

    }
}
