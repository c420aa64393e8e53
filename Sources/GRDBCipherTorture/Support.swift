import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A seeded generator (SplitMix64): a trial replays from its seed on any machine.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A value shared between threads, behind a lock.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func read<T>(_ body: (Value) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(value)
    }
    func update<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }
    var value_: Value { read { $0 } }
}

/// A line on standard output, written at once (write(2), no buffering): what the parent reads
/// is what the child had done when it wrote it.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("grdbcipher-torture: \(message)\n".utf8))
    exit(2)
}

/// The path of this executable, to start children.
var executablePath: String {
    Bundle.main.executablePath ?? CommandLine.arguments[0]
}

/// Options given as `--name value`.
struct Options {
    private var values: [String: String] = [:]
    init(_ arguments: ArraySlice<String>) {
        var iterator = arguments.makeIterator()
        while let name = iterator.next() {
            guard name.hasPrefix("--") else { fail("unexpected argument \(name)") }
            guard let value = iterator.next() else { fail("\(name) needs a value") }
            values[String(name.dropFirst(2))] = value
        }
    }
    func string(_ name: String, default defaultValue: String? = nil) -> String {
        guard let value = values[name] ?? defaultValue else { fail("missing --\(name)") }
        return value
    }
    func int(_ name: String, default defaultValue: Int? = nil) -> Int {
        guard let text = values[name] else {
            guard let defaultValue else { fail("missing --\(name)") }
            return defaultValue
        }
        guard let value = Int(text) else { fail("--\(name) needs a number") }
        return value
    }
}

/// A child process whose standard output lines are collected as they come.
final class Child: @unchecked Sendable {
    let process = Process()
    let lines = Shared<[String]>([])
    let errorOutput = Shared<Data>(Data())
    private let done = DispatchSemaphore(value: 0)

    init(arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let lines = self.lines
        let done = self.done
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    lines.update { $0.append(line) }
                }
            }
            done.signal()
        }
        let errorOutput = self.errorOutput
        Thread.detachNewThread {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            errorOutput.update { $0 = data }
        }
    }

    /// Waits for a line for which `predicate` is true, up to `timeout` seconds.
    func waitForLine(timeout: TimeInterval, _ predicate: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if lines.read({ $0.contains(where: predicate) }) { return true }
            if !process.isRunning { return lines.read({ $0.contains(where: predicate) }) }
            usleep(2_000)
        }
        return false
    }

    func killHard() {
        kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the process and the end of its output; false after `timeout` seconds.
    func wait(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { return false }
            usleep(5_000)
        }
        return done.wait(timeout: .now() + 5) == .success
    }

    var stderrText: String {
        String(decoding: errorOutput.value_, as: UTF8.self)
    }
}
