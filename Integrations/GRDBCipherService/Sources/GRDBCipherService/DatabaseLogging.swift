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
    /// any database opens. SQLite takes its log function only before its first connection: if
    /// one opened earlier, SQLite's own messages are not routed (the library's warnings are).
    /// Messages carry SQL text and never statement arguments; the library withholds a message
    /// that quotes a keying statement (`PRAGMA key`, `ATTACH … KEY`, `PRAGMA cipher_license`),
    /// and runs of 32 or more hexadecimal digits (a raw key, a salt) become `<redacted>`.
    ///
    /// SQLCipher writes its log with C's stdio to a file; here the file is a pseudo-terminal
    /// (which stdio flushes at each line) read by a thread of its own, or a pipe where no
    /// pseudo-terminal can be had (then stdio delivers SQLCipher's lines by blocks of 4 KiB).
    ///
    /// ```swift
    /// try DatabaseService.bootstrapLogging(logger, sqlcipherLogLevel: .warn)
    /// ```
    public static func bootstrapLogging(_ logger: Logger, sqlcipherLogLevel: Database.SQLCipherLogLevel? = nil) throws {
        if let sqlcipherLogLevel {
            try SQLCipherLogPipe.shared.start(logger: logger, level: sqlcipherLogLevel)
        }
        Database.logError = { resultCode, message in
            let level: Logger.Level = switch resultCode.primaryResultCode {
            case .SQLITE_NOTICE: .notice
            case .SQLITE_SCHEMA: .debug
            default: .warning
            }
            logger.log(level: level, "sqlite: \(loggableSQLiteMessage(message))", metadata: ["code": "\(resultCode.rawValue)"])
        }
    }
}

/// SQLite's message as it may be logged: long hexadecimal strings redacted. (The library
/// already withholds a message that quotes a keying statement.)
func loggableSQLiteMessage(_ message: String) -> String {
    SQLCipherLogLine.redacted(Substring(message))
}

/// SQLCipher writes its log to a file: this one is a pseudo-terminal (or a pipe), whose other
/// end a thread reads line by line into swift-log.
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
        if let anchor {
            self.logger = logger
            try anchor.inDatabase { db in try db.execute(sql: "PRAGMA cipher_log_level = \(level.rawValue)") }
            return
        }
        let channel = try LogChannel()
        do {
            let anchor = try DatabaseQueue()
            try anchor.inDatabase { db in
                try db.enableCipherLogging(logLevel: level, target: .file(channel.writerPath))
            }
            self.anchor = anchor
        } catch {
            channel.close()
            throw error
        }
        self.logger = logger
        let readEnd = channel.readEnd
        let thread = Thread { [self] in readLines(from: readEnd) }
        thread.name = "SQLCipher log"
        thread.start()
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

/// Where SQLCipher writes (`writerPath`) and where its lines are read (`readEnd`).
struct LogChannel {
    let readEnd: Int32
    let writerPath: String
    /// The writer's end, kept open by us: for a pseudo-terminal, so that reads never see its
    /// end; for a pipe, the end SQLCipher opens again by its /dev/fd path.
    private let writeEnd: Int32

    init() throws {
        if let (master, slave, path) = Self.openPseudoTerminal() {
            readEnd = master
            writeEnd = slave
            writerPath = path
            return
        }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw DatabaseServiceError.fileSystem("pipe", errno) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        readEnd = fds[0]
        writeEnd = fds[1]
        writerPath = "/dev/fd/\(fds[1])"
    }

    func close() {
        _ = Foundation.close(readEnd)
        _ = Foundation.close(writeEnd)
    }

    /// A pseudo-terminal in raw mode (no echo, no line-ending translation), or nil.
    private static func openPseudoTerminal() -> (Int32, Int32, String)? {
        guard let functions = PseudoTerminalFunctions() else { return nil }
        let master = functions.openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { return nil }
        var name = [CChar](repeating: 0, count: 128)
        guard functions.grant(master) == 0, functions.unlock(master) == 0,
              functions.name(master, &name, name.count) == 0 else {
            _ = Foundation.close(master)
            return nil
        }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            _ = Foundation.close(master)
            return nil
        }
        var attributes = termios()
        if tcgetattr(slave, &attributes) == 0 {
            cfmakeraw(&attributes)
            _ = tcsetattr(slave, TCSANOW, &attributes)
        }
        return (master, slave, path)
    }
}

/// The C library's pseudo-terminal functions, which Swift's Glibc module does not import
/// (they need `_XOPEN_SOURCE`), looked up by name.
private struct PseudoTerminalFunctions {
    typealias Open = @convention(c) (Int32) -> Int32
    typealias Control = @convention(c) (Int32) -> Int32
    typealias Name = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    let openpt: Open
    let grant: Control
    let unlock: Control
    let name: Name

    init?() {
        guard let process = dlopen(nil, RTLD_NOW),
              let openpt = dlsym(process, "posix_openpt"),
              let grant = dlsym(process, "grantpt"),
              let unlock = dlsym(process, "unlockpt"),
              let name = dlsym(process, "ptsname_r") else { return nil }
        // Unsafe: each symbol is the C function of this name, whose C signature the type
        // spells: int posix_openpt(int), int grantpt(int), int unlockpt(int),
        // int ptsname_r(int, char *, size_t).
        self.openpt = unsafeBitCast(openpt, to: Open.self)
        self.grant = unsafeBitCast(grant, to: Control.self)
        self.unlock = unsafeBitCast(unlock, to: Control.self)
        self.name = unsafeBitCast(name, to: Name.self)
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
