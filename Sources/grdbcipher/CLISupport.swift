import Foundation
import GRDBCipher

/// The documented exit statuses.
enum ExitStatus: Int32 {
    case ok = 0
    case failure = 1
    case usage = 2
    case keyOrNotADatabase = 3
    case integrityProblems = 4
}

/// A failure to report in one line, with its exit status.
struct CLIFailure: Error {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    static func usage(_ message: String) -> CLIFailure {
        CLIFailure(.usage, message)
    }

    /// A library error: its message only (never statement arguments, which the library hides
    /// anyway), and the status its result code calls for.
    init(_ error: DatabaseError) {
        let message = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        switch error.resultCode {
        case .SQLITE_NOTADB:
            self.init(.keyOrNotADatabase, message)
        case .SQLITE_CORRUPT:
            self.init(.integrityProblems, message)
        default:
            self.init(.failure, message)
        }
    }
}

/// Writes a diagnostic line on standard error.
func printError(_ message: String, prefix: Bool = true) {
    FileHandle.standardError.write(Data(((prefix ? "grdbcipher: error: " : "") + message + "\n").utf8))
}

/// Writes a note on standard error (not an error).
func printNote(_ message: String) {
    FileHandle.standardError.write(Data(("grdbcipher: " + message + "\n").utf8))
}

/// Whether standard error is a terminal: progress bars are drawn only there.
var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

/// A progress bar on standard error, drawn only when it is a terminal and not `--quiet`.
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let enabled: Bool
    private let lock = NSLock()
    private var lastPercent = -1

    init(_ label: String, quiet: Bool) {
        self.label = label
        self.enabled = !quiet && standardErrorIsTerminal
    }

    /// The export progress callback that draws the bar.
    var callback: (@Sendable (DatabaseExportProgress) -> Void)? {
        guard enabled else { return nil }
        return { [self] progress in update(progress) }
    }

    private func update(_ progress: DatabaseExportProgress) {
        let total = max(progress.totalPageCount, 1)
        let percent = min(100, progress.completedPageCount * 100 / total)
        lock.lock()
        defer { lock.unlock() }
        guard percent != lastPercent else { return }
        lastPercent = percent
        let width = 30
        let filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(percent)%".utf8))
    }

    /// Ends the bar's line, if one was drawn.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if enabled && lastPercent >= 0 {
            FileHandle.standardError.write(Data("\n".utf8))
        }
    }
}

/// Common checks on paths.
enum Paths {
    /// Fails unless `path` is an existing regular file.
    static func requireInput(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIFailure(.failure, "no such file: \(path)")
        }
        if isDirectory.boolValue {
            throw CLIFailure(.failure, "not a file: \(path)")
        }
    }

    /// Fails when `output` is the input file, or exists and `force` is not set. `hint` says
    /// what to do instead of writing over the input.
    static func requireOutput(_ output: String, besides input: String, force: Bool, hint: String? = nil) throws {
        if same(input, output) {
            throw CLIFailure.usage("the output is the input file" + (hint.map { ": \($0)" } ?? ""))
        }
        if FileManager.default.fileExists(atPath: output) && !force {
            throw CLIFailure(.failure, "the output file exists: \(output) (use --force to replace it)")
        }
    }

    /// Removes the temporary files a killed run of ours left beside `target` (a plaintext copy,
    /// for a killed `decrypt`), and says so on standard error.
    static func removeStaleTemporaries(besides target: String) {
        for path in SQLCipherFile.removeStaleTemporaryFiles(besidePath: target) {
            printNote("removed \(path), a temporary file left by an interrupted run")
        }
    }

    /// Whether two paths name the same file.
    private static func same(_ lhs: String, _ rhs: String) -> Bool {
        URL(fileURLWithPath: lhs).standardizedFileURL.resolvingSymlinksInPath().path
            == URL(fileURLWithPath: rhs).standardizedFileURL.resolvingSymlinksInPath().path
    }
}

/// Writes a result line on standard output.
func printResult(_ line: String, quiet: Bool = false) {
    if !quiet { print(line) }
}

/// "1 table", "3 tables".
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
