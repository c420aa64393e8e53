// The measuring side of the benchmarks: a suite of named benchmarks, each measuring one run of
// one workload by one implementation, served to `BenchmarkDriver` over a pipe (or run from the
// command line, for a profiler).
//
// In the ordo-one/benchmark convention: a benchmark is registered with a name and a closure;
// the closure does its own setup and verification and measures only the workload, with
// `measure { }`. Unlike that package's runner, ours answers one run at a time, so that the
// driver can interleave implementations that live in different processes (SQLCipher here, the
// system's SQLite there).
import Foundation

/// Whether a workload runs on a plaintext database or on one encrypted with SQLCipher 4 defaults.
public enum Mode: String, CaseIterable, Sendable {
    case plaintext
    case encrypted
}

/// A benchmark's identity: `W1/plaintext/GRDBCipher`.
public struct BenchmarkID: Hashable, Sendable, CustomStringConvertible {
    public var workload: String
    public var mode: Mode
    public var implementation: String

    public init(workload: String, mode: Mode, implementation: String) {
        self.workload = workload
        self.mode = mode
        self.implementation = implementation
    }

    public init?(_ description: String) {
        let parts = description.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let mode = Mode(rawValue: parts[1]), !parts[0].isEmpty, !parts[2].isEmpty else { return nil }
        self.init(workload: parts[0], mode: mode, implementation: parts[2])
    }

    public var description: String { "\(workload)/\(mode.rawValue)/\(implementation)" }
}

/// A workload's result did not match what it must be: the run is void.
public struct VerificationFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Throws a ``VerificationFailure`` unless `condition` holds.
public func verify(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw VerificationFailure(message()) }
}

/// Runs `body` and returns the seconds it took.
public func measure(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let elapsed = clock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Keeps the optimizer from removing a computation whose result is otherwise unused.
@inline(never)
public func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// The median of `samples` (the mean of the two middle ones for an even count).
public func median(_ samples: [Double]) -> Double {
    precondition(!samples.isEmpty, "median of no samples")
    let sorted = samples.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The benchmarks of one executable.
public final class BenchmarkSuite {
    private var bodies: [BenchmarkID: () throws -> Double] = [:]
    private(set) var ids: [BenchmarkID] = []
    /// A line describing the SQLite library this executable links, for the report.
    public var libraryDescription: () -> String = { "unknown" }

    public init() {}

    /// Registers a benchmark; `body` runs the workload once and returns the measured seconds
    /// (from ``measure(_:)``), after verifying the result.
    public func add(_ workload: String, _ mode: Mode, _ implementation: String, _ body: @escaping () throws -> Double) {
        let id = BenchmarkID(workload: workload, mode: mode, implementation: implementation)
        precondition(bodies[id] == nil, "benchmark \(id) registered twice")
        bodies[id] = body
        ids.append(id)
    }

    func run(_ id: BenchmarkID) throws -> Double {
        guard let body = bodies[id] else { throw VerificationFailure("no benchmark \(id)") }
        return try body()
    }

    /// Serves the driver, or runs benchmarks from the command line:
    ///
    /// - no argument: reads commands on standard input, one per line, and answers each with
    ///   one line: `list` (the benchmark ids, space separated), `info` (the library),
    ///   `run ID` (`ok SECONDS`, or `error MESSAGE`);
    /// - `list`, or `run ID [COUNT]` (for a profiler: prints each run's seconds).
    public func main(arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        switch arguments.first {
        case nil:
            while let line = readLine() {
                emit(answer(line))
            }
            exit(0)
        case "list":
            ids.forEach { emit($0.description) }
            exit(0)
        case "run" where arguments.count >= 2:
            guard let id = BenchmarkID(arguments[1]) else { fail("not a benchmark id: \(arguments[1])") }
            let count = arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1
            for _ in 0..<count {
                do {
                    emit(String(format: "%.6f", try run(id)))
                } catch {
                    fail("\(id): \(error)")
                }
            }
            exit(0)
        default:
            fail("usage: \(CommandLine.arguments[0]) [list | run WORKLOAD/MODE/IMPLEMENTATION [COUNT]]")
        }
    }

    private func answer(_ line: String) -> String {
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        switch words.first {
        case "list":
            return ids.map(\.description).joined(separator: " ")
        case "info":
            return libraryDescription()
        case "run":
            guard words.count == 2, let id = BenchmarkID(words[1]) else { return "error bad command: \(line)" }
            do {
                return "ok \(try run(id))"
            } catch {
                return "error \(id): \(String(describing: error).replacingOccurrences(of: "\n", with: " "))"
            }
        default:
            return "error bad command: \(line)"
        }
    }
}

/// Writes one line on standard output, unbuffered: the driver waits for it.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Prints `message` on standard error and exits with status 1.
public func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("benchmark: error: \(message)\n".utf8))
    exit(1)
}

/// A new temporary directory for the databases of the benchmarks, removed when the process exits.
public func scratchDirectory() -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("grdbcipher-bench-\(UUID().uuidString)").path
    do {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
        fail("cannot create \(path): \(error)")
    }
    // Set once, before any other thread starts; read at exit.
    scratchPath = path
    atexit {
        if let scratchPath { try? FileManager.default.removeItem(atPath: scratchPath) }
    }
    return path
}

nonisolated(unsafe) private var scratchPath: String?
