// Runs the benchmark executables side by side and reports medians and ratios.
//
// SQLCipherBenchmarks (GRDBCipher and raw C on SQLCipher) and GRDBBenchmarks (GRDB 7.10 and raw
// C on the system's SQLite) run as two processes, served one run at a time over pipes. Each
// round runs every benchmark once, implementations interleaved (raw, GRDBCipher, raw on the
// system's SQLite, GRDB, then the next workload); a first round warms up and is not counted.
// Every ratio compares medians of the same run, so that the drift of a shared machine cancels.
//
//     BenchmarkDriver [--rounds N] [--only W1,W4,...] [--output FILE] [--update-doc FILE]
//                     [--swift-version TEXT] [--without-grdb] [--grdb-executable PATH]
//
// GRDBBenchmarks is built by its own package (Benchmarks/GRDBSide): GRDB and GRDBCipher's
// `GRDB` product share a target name, which one package graph cannot hold.
import BenchmarkSupport
import Foundation

// MARK: - Options

struct Options {
    var rounds = 7
    var only: Set<String>?
    var output: String?
    var updateDoc: String?
    var swiftVersion = "unknown"
    var withGRDB = true
    var grdbExecutable: String?

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        func value(_ option: String) -> String {
            guard let value = iterator.next() else { fail("\(option) needs a value") }
            return value
        }
        while let argument = iterator.next() {
            switch argument {
            case "--rounds":
                guard let rounds = Int(value(argument)), rounds >= 1 else { fail("--rounds needs a positive number") }
                self.rounds = rounds
            case "--only": only = Set(value(argument).split(separator: ",").map(String.init))
            case "--output": output = value(argument)
            case "--update-doc": updateDoc = value(argument)
            case "--swift-version": swiftVersion = value(argument)
            case "--without-grdb": withGRDB = false
            case "--grdb-executable": grdbExecutable = value(argument)
            default: fail("unknown argument \(argument)")
            }
        }
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))

// MARK: - What is measured, and the targets

struct Workload {
    var name: String
    var label: String
    /// The plaintext target: GRDBCipher's ratio to raw C, at most.
    var target: Double?
    /// For a workload GRDB cannot run (records made by `@DatabaseRecord`), the GRDB workload
    /// it is compared with: the same records with `Codable`.
    var grdbCounterpart: String? = nil
}

let workloads: [Workload] = [
    Workload(name: "W1", label: "W1 fetch 200,000 rows × 10 integers, `Row` by index", target: 1.10),
    Workload(name: "W2", label: "W2 same, `Row` by column name", target: 1.30),
    Workload(name: "W3", label: "W3 same, records via `init(row:)`", target: 1.30),
    Workload(name: "W3b", label: "W3b same, records via `Decodable`", target: 2.0),
    Workload(name: "W3m", label: "W3m same, record made by `@DatabaseRecord` (GRDBCipher only; GRDB: W3b)", target: 1.25, grdbCounterpart: "W3b"),
    Workload(name: "W4", label: "W4 insert 50,000 rows × 10 integers, one transaction, reused statement", target: 1.30),
    Workload(name: "W5", label: "W5 same, `PersistableRecord.insert`", target: 2.0),
    Workload(name: "W5b", label: "W5b same, `Encodable` record", target: 2.5),
    Workload(name: "W5m", label: "W5m same, record made by `@DatabaseRecord` (GRDBCipher only; GRDB: W5b)", target: 1.5, grdbCounterpart: "W5b"),
    Workload(name: "W6", label: "W6 W4 + a TransactionObserver of the table (baseline: W4 without it)", target: 1.15),
    Workload(name: "W6-other", label: "W6 W4 + a TransactionObserver of another table (baseline: W4 without it)", target: 1.03),
    Workload(name: "W7", label: "W7 10,000 single-row writes on a pool with 10 `ValueObservation`s, until each delivered its last value (baseline: the writes without them)", target: 1.5),
    Workload(name: "W8-median", label: "W8 write + `ValueObservation` delivery on a queue, median (baseline: the write alone)", target: nil),
    Workload(name: "W8-p99", label: "W8 same, 99th percentile", target: nil),
    Workload(name: "W9", label: "W9 2,000 authors × 10 books, `Author.including(all: Author.books)` into a `Decodable` `AuthorInfo`", target: 2.0),
    Workload(name: "W10", label: "W10 20,000 books, `Book.including(required: Book.author)` into a `Decodable` `BookInfo`", target: 1.6),
    Workload(name: "W10m", label: "W10m same, records made by `@DatabaseRecord` (GRDBCipher only; GRDB: W10)", target: 1.6, grdbCounterpart: "W10"),
    Workload(name: "W10-row", label: "W10 same, records with `init(row:)` written by hand (`row.decode(_:forKey:)` for the author)", target: 1.6),
    Workload(name: "W11-insert", label: "W11 FTS5: index 100,000 short documents, one transaction, reused statement", target: 1.20),
    Workload(name: "W11-match", label: "W11 FTS5: 1,000 `matching(FTS5Pattern(matchingAllTokensIn:))` queries, records fetched", target: 1.20),
    Workload(name: "OPEN", label: "OPEN open + first query + close, plaintext", target: nil),
    Workload(name: "OPEN-passphrase", label: "OPEN with a passphrase (256,000 PBKDF2 rounds)", target: nil),
    Workload(name: "OPEN-rawkey", label: "OPEN with a raw key", target: nil),
    Workload(name: "OPEN-keyring", label: "OPEN keyed from an unlocked `DatabaseKeyring` (raw: a raw key)", target: nil),
    Workload(name: "POOL", label: "POOL read that opens the Nth reader of a pool (raw: open a connection)", target: nil),
    Workload(name: "POOL-keyring", label: "POOL same, a pool keyed from an unlocked `DatabaseKeyring`", target: nil),
    Workload(name: "EXPORT-encrypt", label: "EXPORT encrypt a 52 MB plaintext database (240,000 rows)", target: nil),
    Workload(name: "EXPORT-rekey", label: "EXPORT re-key the 52 MB encrypted database", target: nil),
].filter { options.only?.contains($0.name) ?? true }

/// POOL: the median Nth-reader read of an encrypted pool, at most (seconds).
let poolTarget = 0.002
/// Encrypted: each ratio at most this factor of the workload's plaintext ratio.
let encryptedTolerance = 1.10

let implementations = ["raw", "GRDBCipher", "raw-system", "GRDB"]

// MARK: - The benchmark processes

final class BenchmarkProcess {
    let name: String
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    init(executable: URL) {
        name = executable.lastPathComponent
        process.executableURL = executable
        process.standardInput = input
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            fail("cannot start \(executable.path): \(error)")
        }
    }

    /// Sends one command and returns the answer line.
    func ask(_ command: String) -> String {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { fail("\(name) exited while running `\(command)`") }
            buffer.append(chunk)
        }
    }

    func run(_ id: BenchmarkID) -> Double {
        let answer = ask("run \(id)")
        guard answer.hasPrefix("ok "), let seconds = Double(answer.dropFirst(3)) else {
            fail("\(name): \(answer)")
        }
        return seconds
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
var processes = [BenchmarkProcess(executable: binDirectory.appendingPathComponent("SQLCipherBenchmarks"))]
if options.withGRDB {
    // Benchmarks/.build/<triple>/release → Benchmarks/GRDBSide/.build/release/GRDBBenchmarks.
    let grdbExecutable = options.grdbExecutable.map { URL(fileURLWithPath: $0) }
        ?? binDirectory.appendingPathComponent("../../../GRDBSide/.build/release/GRDBBenchmarks").standardizedFileURL
    processes.append(BenchmarkProcess(executable: grdbExecutable))
}

var owner: [BenchmarkID: BenchmarkProcess] = [:]
for process in processes {
    for word in process.ask("list").split(separator: " ") {
        guard let id = BenchmarkID(String(word)) else { fail("\(process.name) lists \(word)") }
        owner[id] = process
    }
}
let libraries = processes.map { $0.ask("info") }

/// Every benchmark to run, in the order of a round.
let schedule: [BenchmarkID] = workloads.flatMap { workload in
    Mode.allCases.flatMap { mode in
        implementations.map { BenchmarkID(workload: workload.name, mode: mode, implementation: $0) }
    }
}.filter { owner[$0] != nil }

// MARK: - Rounds

var samples: [BenchmarkID: [Double]] = [:]
for round in 0...options.rounds {
    FileHandle.standardError.write(Data((round == 0 ? "warm-up round\n" : "round \(round)/\(options.rounds)\n").utf8))
    for id in schedule {
        let seconds = owner[id]!.run(id)
        if round > 0 { samples[id, default: []].append(seconds) }
    }
}
processes.forEach { $0.stop() }

// MARK: - Report

func milliseconds(_ seconds: Double) -> String {
    let ms = seconds * 1000
    return String(format: ms < 1 ? "%.3f" : ms < 100 ? "%.2f" : "%.0f", ms)
}

func format(_ ratio: Double) -> String { String(format: "%.2f", ratio) }

struct Comparison {
    var baseline: Double
    var library: Double
    var ratio: Double { library / baseline }
    /// The ratios of the rounds (each round's own two runs), lowest and highest.
    var roundRatios: ClosedRange<Double>
}

@MainActor
func compare(_ workload: String, _ mode: Mode, baseline: String, library: String) -> Comparison? {
    guard let base = samples[BenchmarkID(workload: workload, mode: mode, implementation: baseline)],
          let lib = samples[BenchmarkID(workload: workload, mode: mode, implementation: library)] else { return nil }
    let perRound = zip(base, lib).map { $1 / $0 }
    return Comparison(baseline: median(base), library: median(lib), roundRatios: perRound.min()!...perRound.max()!)
}

var table = """
    | Workload | Mode | raw C (ms) | GRDBCipher (ms) | ratio | rounds | target | GRDB: raw C (ms) | GRDB (ms) | GRDB ratio | verdict |
    |---|---|---:|---:|---:|---:|---|---:|---:|---:|---|

    """
var missed: [String] = []
for workload in workloads {
    var labelled = false
    for mode in Mode.allCases {
        guard let ours = compare(workload.name, mode, baseline: "raw", library: "GRDBCipher") else { continue }
        let grdb = compare(workload.grdbCounterpart ?? workload.name, mode, baseline: "raw-system", library: "GRDB")
        var target = ""
        var verdict = ""
        switch (workload.name, mode) {
        case ("POOL", .encrypted), ("POOL-keyring", .encrypted):
            target = "< 2 ms"
            verdict = ours.library < poolTarget ? "met" : "**missed**"
        case (_, .plaintext):
            if let limit = workload.target {
                target = "≤ \(format(limit))"
                let beatsGRDB = grdb.map { ours.ratio < $0.ratio } ?? false
                verdict = ours.ratio <= limit && beatsGRDB ? "met" : "**missed**"
                if ours.ratio > limit { verdict += " (target)" }
                if !beatsGRDB { verdict += grdb == nil ? " (GRDB not measured)" : " (GRDB is faster)" }
            }
        case (_, .encrypted):
            if workload.target != nil, let plain = compare(workload.name, .plaintext, baseline: "raw", library: "GRDBCipher") {
                let limit = plain.ratio * encryptedTolerance
                target = "≤ \(format(limit)) (plaintext + 10%)"
                verdict = ours.ratio <= limit ? "met" : "**missed**"
            }
        }
        if verdict.hasPrefix("**missed") { missed.append("\(workload.name) \(mode.rawValue)") }
        let roundRange = "\(format(ours.roundRatios.lowerBound))–\(format(ours.roundRatios.upperBound))"
        table += "| \(labelled ? workload.name : workload.label) | \(mode.rawValue) | \(milliseconds(ours.baseline)) | \(milliseconds(ours.library)) | **\(format(ours.ratio))** | \(roundRange) | \(target) "
        if let grdb {
            table += "| \(milliseconds(grdb.baseline)) | \(milliseconds(grdb.library)) | \(format(grdb.ratio)) "
        } else {
            table += "| | | "
        }
        table += "| \(verdict) |\n"
        labelled = true
    }
}

func shell(_ command: String) -> String {
    let process = Process()
    let pipe = Pipe()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return "" }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

let date = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
let machine = [
    shell("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-"),
    "\(ProcessInfo.processInfo.activeProcessorCount) cores",
    "\(ProcessInfo.processInfo.physicalMemory / (1 << 30)) GiB",
    shell(". /etc/os-release && echo \"$PRETTY_NAME\""),
    "Linux \(shell("uname -r"))",
].filter { !$0.isEmpty }.joined(separator: ", ")

let report = """
    Run of \(date), `make bench`: \(options.rounds) rounds after a warm-up round, medians.

    - Machine: \(machine).
    - \(options.swiftVersion); release build.
    - GRDBCipher and raw C: \(libraries[0]). GRDB 7.10.0 and its raw C baseline: \(libraries.count > 1 ? libraries[1] : "not run").
    - ratio: GRDBCipher's median over raw C's median; rounds: the lowest and highest ratio of a
      single round. GRDB ratio: GRDB over raw C on the system's SQLite, in the same run.
    - Targets not met in this run: \(missed.isEmpty ? "none" : missed.joined(separator: ", ")).

    \(table)
    """

print(report)
if let output = options.output {
    do {
        try report.write(toFile: output, atomically: true, encoding: .utf8)
    } catch {
        fail("cannot write \(output): \(error)")
    }
}
if let docPath = options.updateDoc {
    let begin = "<!-- BEGIN make bench -->"
    let end = "<!-- END make bench -->"
    guard let document = try? String(contentsOfFile: docPath, encoding: .utf8),
          let start = document.range(of: begin), let stop = document.range(of: end), start.upperBound <= stop.lowerBound else {
        fail("\(docPath) has no \(begin) … \(end) section")
    }
    let updated = document[..<start.upperBound] + "\n" + report + "\n" + document[stop.lowerBound...]
    do {
        try String(updated).write(toFile: docPath, atomically: true, encoding: .utf8)
    } catch {
        fail("cannot write \(docPath): \(error)")
    }
    FileHandle.standardError.write(Data("updated \(docPath)\n".utf8))
}
