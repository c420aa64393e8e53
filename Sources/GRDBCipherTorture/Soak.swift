import Foundation
import GRDBCipher

// The multi-process soak (docs/Reliability.md): writer processes move amounts between accounts
// of one encrypted WAL database and count their commits; reader processes check, in every read
// and in a ValueObservation that watches the other processes' commits, that the balances sum to
// their known total and that no writer's count ever goes back. The parent checks the end state.
//
// Child report lines: `violation TEXT` as soon as one is seen, then one `summary ...` line.

let soakAccounts = 16
let soakBalance = 1_000
let soakPassphrase = "torture soak passphrase"

func soakConfiguration() -> Configuration {
    var config = Configuration()
    // Busy timeouts: with them, SQLITE_BUSY must never reach the caller.
    config.busyMode = .timeout(10)
    config.prepareDatabase { db in try db.usePassphrase(soakPassphrase) }
    return config
}

struct SoakState: Equatable {
    var sum: Int
    var sequences: [Int64: Int64]

    static func fetch(_ db: Database) throws -> SoakState {
        let sum = try Int.fetchOne(db, sql: "SELECT SUM(balance) FROM account")!
        var sequences: [Int64: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT writer, seq FROM progress") {
            sequences[row["writer"]] = row["seq"]
        }
        return SoakState(sum: sum, sequences: sequences)
    }
}

/// Violations of a reader: a sum that is not the total, a sequence that went back.
final class SoakMonitor: @unchecked Sendable {
    private let lock = NSLock()
    private var last: [Int64: Int64] = [:]
    private(set) var violations = 0

    func observe(_ state: SoakState, source: String) {
        lock.lock(); defer { lock.unlock() }
        if state.sum != soakAccounts * soakBalance {
            violations += 1
            report("violation \(source): sum \(state.sum), expected \(soakAccounts * soakBalance)")
        }
        for (writer, seq) in state.sequences {
            if let previous = last[writer], seq < previous {
                violations += 1
                report("violation \(source): writer \(writer) went back from \(previous) to \(seq)")
            }
            last[writer] = max(seq, last[writer] ?? seq)
        }
    }
}

func runSoakWriter(_ options: Options) throws {
    let writer = Int64(options.int("id"))
    let until = Date(timeIntervalSince1970: TimeInterval(options.int("until")))
    var generator = SeededGenerator(seed: UInt64(options.int("seed")))
    let pool = try DatabasePool(path: options.string("db"), configuration: soakConfiguration())
    var commits = 0, busy = 0, errors = 0
    while Date() < until {
        let from = Int.random(in: 1...soakAccounts, using: &generator)
        let to = Int.random(in: 1...soakAccounts, using: &generator)
        let amount = Int.random(in: 1...50, using: &generator)
        do {
            try pool.write { db in
                try db.execute(sql: "UPDATE account SET balance = balance - ? WHERE id = ?", arguments: [amount, from])
                try db.execute(sql: "UPDATE account SET balance = balance + ? WHERE id = ?", arguments: [amount, to])
                try db.execute(sql: "UPDATE progress SET seq = seq + 1 WHERE writer = ?", arguments: [writer])
                try db.execute(sql: "INSERT INTO ledger(writer, amount) VALUES (?, ?)", arguments: [writer, amount])
            }
            commits += 1
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            busy += 1
            report("violation writer \(writer): SQLITE_BUSY surfaced: \(error.extendedResultCode)")
        } catch {
            errors += 1
            report("violation writer \(writer): \(error)")
        }
    }
    try pool.close()
    report("summary writer \(writer) commits \(commits) busy \(busy) errors \(errors)")
}

func runSoakReader(_ options: Options) throws {
    let reader = options.int("id")
    let until = Date(timeIntervalSince1970: TimeInterval(options.int("until")))
    let pool = try DatabasePool(path: options.string("db"), configuration: soakConfiguration())
    // One monitor per stream: an observation value may be delivered after a later read.
    let monitor = SoakMonitor()
    let observationMonitor = SoakMonitor()
    let notifications = Shared(0)
    let observationErrors = Shared(0)
    let observation = ValueObservation
        .tracking(SoakState.fetch)
        .removeDuplicates()
        .observingExternalChanges(every: 0.05)
    let cancellable = observation.start(
        in: pool,
        scheduling: .async(onQueue: DispatchQueue(label: "soak observation")),
        onError: { error in
            observationErrors.update { $0 += 1 }
            report("violation reader \(reader) observation: \(error)")
        },
        onChange: { state in
            notifications.update { $0 += 1 }
            observationMonitor.observe(state, source: "reader \(reader) observation")
        })
    var reads = 0, busy = 0, errors = 0
    while Date() < until {
        do {
            let state = try pool.read(SoakState.fetch)
            monitor.observe(state, source: "reader \(reader)")
            reads += 1
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            busy += 1
            report("violation reader \(reader): SQLITE_BUSY surfaced: \(error.extendedResultCode)")
        } catch {
            errors += 1
            report("violation reader \(reader): \(error)")
        }
        usleep(1_000)
    }
    cancellable.cancel()
    let seen = notifications.value_
    if seen < 2 {
        report("violation reader \(reader): the observation saw no commit of the other processes")
    }
    try pool.close()
    report("summary reader \(reader) reads \(reads) notifications \(seen) busy \(busy) errors \(errors + observationErrors.value_) violations \(monitor.violations + observationMonitor.violations)")
}

func runSoak(_ options: Options) throws {
    let seconds = options.int("seconds", default: 60)
    let writers = options.int("writers", default: 3)
    let readers = options.int("readers", default: 3)
    let root = options.string("dir", default: NSTemporaryDirectory() + "grdbcipher-soak-\(getpid())")
    try? FileManager.default.removeItem(atPath: root)
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let path = "\(root)/soak.db"
    let pool = try DatabasePool(path: path, configuration: soakConfiguration())
    try pool.write { db in
        try db.execute(sql: """
            CREATE TABLE account(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
            CREATE TABLE progress(writer INTEGER PRIMARY KEY, seq INTEGER NOT NULL);
            CREATE TABLE ledger(id INTEGER PRIMARY KEY, writer INTEGER NOT NULL, amount INTEGER NOT NULL);
            """)
        for id in 1...soakAccounts {
            try db.execute(sql: "INSERT INTO account(id, balance) VALUES (?, ?)", arguments: [id, soakBalance])
        }
        for writer in 1...writers {
            try db.execute(sql: "INSERT INTO progress(writer, seq) VALUES (?, 0)", arguments: [writer])
        }
    }
    try pool.close()

    print("soak: \(writers) writer and \(readers) reader processes on one encrypted WAL database for \(seconds) s")
    // Children start a few seconds ahead of the deadline they share: key derivation and
    // opening take time in a debug build.
    let until = Int(Date().timeIntervalSince1970) + seconds + 3
    var children: [(name: String, child: Child)] = []
    for writer in 1...writers {
        children.append(("writer \(writer)", try Child(arguments: [
            "soak-writer", "--db", path, "--id", String(writer), "--until", String(until), "--seed", String(writer)])))
    }
    for reader in 1...readers {
        children.append(("reader \(reader)", try Child(arguments: [
            "soak-reader", "--db", path, "--id", String(reader), "--until", String(until)])))
    }
    var violations: [String] = []
    var writerCommits: [Int64: Int] = [:]
    var totalReads = 0, totalNotifications = 0
    for (name, child) in children {
        // A child still running a minute after the deadline is stuck: a deadlock.
        let remaining = TimeInterval(until) - Date().timeIntervalSince1970 + 60
        if !child.wait(timeout: remaining) {
            child.killHard()
            _ = child.wait(timeout: 10)
            violations.append("\(name) did not finish: deadlock or hang")
        }
        if child.process.terminationStatus != 0 {
            violations.append("\(name) exited with status \(child.process.terminationStatus): \(child.stderrText)")
        }
        let lines = child.lines.value_
        violations += lines.filter { $0.hasPrefix("violation ") }.map { String($0.dropFirst("violation ".count)) }
        guard let summary = lines.last(where: { $0.hasPrefix("summary ") }) else {
            violations.append("\(name) gave no summary")
            continue
        }
        print("  " + summary.dropFirst("summary ".count))
        let fields = summary.split(separator: " ").map(String.init)
        func value(_ key: String) -> Int { fields.firstIndex(of: key).flatMap { Int(fields[$0 + 1]) } ?? 0 }
        if fields[1] == "writer" {
            writerCommits[Int64(fields[2])!] = value("commits")
        } else {
            totalReads += value("reads")
            totalNotifications += value("notifications")
        }
    }

    // The end state: the total kept, every commit of every writer there.
    let queue = try DatabaseQueue(path: path, configuration: soakConfiguration())
    try queue.writeWithoutTransaction { db in
        let state = try SoakState.fetch(db)
        if state.sum != soakAccounts * soakBalance { violations.append("final sum \(state.sum)") }
        for (writer, commits) in writerCommits {
            if state.sequences[writer] != Int64(commits) {
                violations.append("writer \(writer) reported \(commits) commits, the database holds \(state.sequences[writer] ?? -1)")
            }
            let ledger = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ledger WHERE writer = ?", arguments: [writer])!
            if ledger != commits { violations.append("writer \(writer): \(ledger) ledger rows for \(commits) commits") }
        }
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        if integrity != ["ok"] { violations.append("integrity_check: \(integrity.prefix(5))") }
        let cipherIntegrity = try db.cipherIntegrityProblems()
        if !cipherIntegrity.isEmpty { violations.append("cipher_integrity_check: \(cipherIntegrity.prefix(5))") }
    }
    try queue.close()
    let commits = writerCommits.values.reduce(0, +)
    print("soak: \(commits) commits, \(totalReads) reads, \(totalNotifications) observation notifications, \(violations.count) violations")
    for violation in violations.prefix(20) { print("  violation: \(violation)") }
    if !violations.isEmpty { exit(1) }
}
