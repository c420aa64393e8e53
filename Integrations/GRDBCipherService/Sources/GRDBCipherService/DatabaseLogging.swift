import Foundation
import GRDBCipher
import Logging

extension DatabaseService {
    /// Sends the database diagnostics of the whole process to `logger`: SQLite's error and
    /// warning log, with the library's own warnings (the statements left unfinalized when a
    /// connection closes), and SQLCipher's own log at `sqlcipherLogLevel` (nil: SQLCipher stays
    /// silent, as the library keeps it by default).
    ///
    /// SQLite and SQLCipher have one log each per process: call this once, at start-up, before
    /// any database opens (SQLite takes its log function only before its first connection).
    /// Messages carry SQL text and never statement arguments; SQLCipher's lines are read from
    /// a pipe by a thread of their own, and long hexadecimal strings in them are replaced by
    /// `<redacted>`, so that no key material can reach the logs.
    ///
    /// ```swift
    /// try DatabaseService.bootstrapLogging(logger, sqlcipherLogLevel: .warn)
    /// ```
    public static func bootstrapLogging(_ logger: Logger, sqlcipherLogLevel: Database.SQLCipherLogLevel? = nil) throws {
        Database.logError = { resultCode, message in
            let level: Logger.Level = switch resultCode.primaryResultCode {
            case .SQLITE_NOTICE: .notice
            case .SQLITE_SCHEMA: .debug
            default: .warning
            }
            logger.log(level: level, "sqlite: \(message)", metadata: ["code": "\(resultCode.rawValue)"])
        }
        guard let sqlcipherLogLevel else { return }
        try SQLCipherLogPipe.shared.start(logger: logger, level: sqlcipherLogLevel)
    }
}

/// SQLCipher writes its log to a file: this one is the write end of a pipe, which a thread
/// reads line by line into swift-log.
final class SQLCipherLogPipe: @unchecked Sendable {
    static let shared = SQLCipherLogPipe()

    private let lock = NSLock()
    private var logger: Logger?
    // SQLCipher resets its log level when the last connection of the process closes: this
    // in-memory connection stays open for the life of the process.
    private var anchor: DatabaseQueue?

    func start(logger: Logger, level: Database.SQLCipherLogLevel) throws {
        lock.lock()
        defer { lock.unlock() }
        let firstStart = self.logger == nil
        self.logger = logger
        var writeEnd: Int32 = -1
        if firstStart {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw DatabaseServiceError.fileSystem("pipe", errno) }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            writeEnd = fds[1]
            let readEnd = fds[0]
            let thread = Thread { [self] in readLines(from: readEnd) }
            thread.name = "SQLCipher log"
            thread.start()
            anchor = try DatabaseQueue()
        }
        try anchor?.inDatabase { db in
            if firstStart {
                try db.enableCipherLogging(logLevel: level, target: .file("/dev/fd/\(writeEnd)"))
            } else {
                try db.execute(sql: "PRAGMA cipher_log_level = \(level.rawValue)")
            }
        }
    }

    private func currentLogger() -> Logger? {
        lock.lock()
        defer { lock.unlock() }
        return logger
    }

    private func readLines(from fd: Int32) {
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if let logger = currentLogger() {
                    let entry = SQLCipherLogLine(line)
                    logger.log(level: entry.level, "sqlcipher: \(entry.message)", metadata: ["subsystem": "\(entry.source)"])
                }
            }
        }
    }
}

/// A line of SQLCipher's log: `2026-11-28 05:09:37.028: WARN CORE message`.
struct SQLCipherLogLine {
    var level: Logger.Level
    var source: String
    var message: String

    init(_ line: String) {
        var rest = Substring(line)
        // The date and time end at the first ": ".
        if let separator = rest.range(of: ": ") { rest = rest[separator.upperBound...] }
        let words = rest.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        let levels: [Substring: Logger.Level] = [
            "ERROR": .error, "WARN": .warning, "INFO": .info, "DEBUG": .debug, "TRACE": .trace,
        ]
        if words.count == 3, let level = levels[words[0]] {
            self.level = level
            source = String(words[1])
            message = Self.redacted(words[2])
        } else {
            level = .info
            source = ""
            message = Self.redacted(Substring(line))
        }
    }

    /// The text with every run of 32 or more hexadecimal digits (a raw key, a salt) replaced.
    static func redacted(_ text: Substring) -> String {
        var result = ""
        var run = ""
        func flush() {
            result += run.count >= 32 ? "<redacted>" : run
            run = ""
        }
        for character in text {
            if character.isHexDigit {
                run.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }
}
