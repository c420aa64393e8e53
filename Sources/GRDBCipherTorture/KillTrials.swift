import Foundation
import GRDBCipher

// Kill trials of the library (docs/Reliability.md): a child process writes through an encrypted
// DatabasePool and reports each commit after it returns; the parent kills it with SIGKILL at a
// random moment, then checks the database.
//
// The child's report lines:
//   ready                      the pool is open, the work begins
//   commit ID                  the write of transaction ID returned
//   OP-begin N / OP-done N     around operation N of kind OP (checkpoint, vacuum, backup,
//                              rekey, rotate); for rekey, N is the new passphrase's generation,
//                              for vacuum and backup `OP-begin N COMMITS` counts the
//                              transactions committed before it began
//   OP-error N CODE            the operation threw (a checkpoint may meet SQLITE_BUSY)

enum KeyMode: String {
    case passphrase, keyring
}

enum Focus: String, CaseIterable {
    case writes, checkpoint, vacuum, backup, rekey, rotate, mixed
}

/// What each trial does, chosen by its seed: every combination comes in turn.
let trialKinds: [(KeyMode, Focus)] = [
    (.passphrase, .writes), (.passphrase, .checkpoint), (.passphrase, .vacuum),
    (.passphrase, .backup), (.passphrase, .rekey), (.passphrase, .mixed),
    (.keyring, .writes), (.keyring, .rotate), (.keyring, .mixed),
]

func passphrase(generation: Int) -> String { "torture passphrase \(generation)" }
let backupPassphrase = "torture backup passphrase"
let keyringSecret = Data("torture keyring slot".utf8)

// MARK: - The child

func runWriter(_ options: Options) throws {
    let path = options.string("db")
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    let mode = KeyMode(rawValue: options.string("mode")) ?? { fail("bad --mode") }()
    let focus = Focus(rawValue: options.string("focus")) ?? { fail("bad --focus") }()
    var generator = SeededGenerator(seed: UInt64(options.int("seed")))
    // The checker's own test: reporting commits before they are made must be caught as losses.
    let reportsEarly = options.string("report-early", default: "no") == "yes"
    let generation = Shared(0)
    var keyring: DatabaseKeyring?
    var config = Configuration()
    config.busyMode = .timeout(10)
    switch mode {
    case .passphrase:
        config.prepareDatabase { db in try db.usePassphrase(passphrase(generation: generation.value_)) }
    case .keyring:
        let unlocked = try DatabaseKeyring.unlock(databaseAt: path, with: .passphrase(keyringSecret))
        keyring = unlocked
        config.prepareDatabase { db in try db.useKeyring(unlocked) }
    }
    let pool = try DatabasePool(path: path, configuration: config)
    var nextID = try pool.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM txn") ?? 0 } + 1
    var committed = 0
    report("ready")

    // Readers beside the writer, as in a service: counts and full-text searches.
    let stop = Shared(false)
    let readerSeed = generator.next()
    Thread.detachNewThread {
        var generator = SeededGenerator(seed: readerSeed)
        while !stop.value_ {
            do {
                let word = Workload.words.randomElement(using: &generator)!
                _ = try pool.read { db in
                    (try Txn.fetchCount(db),
                     try Int.fetchAll(db, sql: "SELECT rowid FROM item_fts WHERE item_fts MATCH ? LIMIT 5", arguments: [word]))
                }
            } catch {
                FileHandle.standardError.write(Data("reader: \(error)\n".utf8))
                exit(3)
            }
        }
    }

    func commitOne() throws {
        let rows = Workload.randomSize(using: &generator)
        let id = nextID
        var local = generator
        if reportsEarly { report("commit \(id)") }
        try pool.write { db in try Workload.writeTransaction(db, id: id, rows: rows, using: &local) }
        generator = local
        nextID += 1
        committed += 1
        if !reportsEarly { report("commit \(id)") }
    }

    var operation = 0
    func perform(_ focus: Focus) throws {
        operation += 1
        switch focus {
        case .writes, .mixed:
            try commitOne()
        case .checkpoint:
            report("checkpoint-begin \(operation)")
            do {
                _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
                report("checkpoint-done \(operation)")
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                report("checkpoint-error \(operation) \(error.extendedResultCode.rawValue)")
            }
        case .vacuum:
            report("vacuum-begin \(operation) \(committed) \(generation.value_)")
            try pool.vacuum(into: "\(directory)/vacuum-\(operation).db")
            report("vacuum-done \(operation)")
        case .backup:
            report("backup-begin \(operation) \(committed)")
            var backupConfig = Configuration()
            backupConfig.prepareDatabase { db in try db.usePassphrase(backupPassphrase) }
            let destination = try DatabaseQueue(path: "\(directory)/backup-\(operation).db", configuration: backupConfig)
            try pool.backup(to: destination)
            try destination.close()
            report("backup-done \(operation)")
        case .rekey:
            let next = generation.value_ + 1
            report("rekey-begin \(next)")
            // The pattern of docs/Encryption.md: change the key, give the new one to the
            // connections opened later, close the readers that have the old one — all inside
            // the barrier, so that no read opens a connection in between.
            try pool.barrierWriteWithoutTransaction { db in
                try db.changePassphrase(passphrase(generation: next))
                generation.update { $0 = next }
                pool.invalidateReadOnlyConnections()
            }
            report("rekey-done \(next)")
        case .rotate:
            report("rotate-begin \(operation)")
            try keyring!.rotateDataKey(in: pool)
            report("rotate-done \(operation)")
        }
    }

    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
        switch focus {
        case .writes:
            try perform(.writes)
        case .mixed:
            let choices: [Focus] = mode == .keyring
                ? [.writes, .writes, .writes, .checkpoint, .rotate]
                : [.writes, .writes, .writes, .checkpoint, .vacuum, .backup, .rekey]
            try perform(choices.randomElement(using: &generator)!)
        default:
            try perform(.writes)
            try perform(focus)
        }
    }
    stop.update { $0 = true }
}

// MARK: - The parent

struct TrialOutcome {
    var killedDuring: String
    var commits: Int
    var problems: [String]
}

/// Creates the database that each trial starts from: the schema and 2,000 transactions
/// (several MB), with a passphrase; and its copy under a keyring.
func makeTemplates(in directory: String) throws -> (passphrase: String, keyring: String) {
    let path = "\(directory)/template-passphrase.db"
    var config = Configuration()
    config.prepareDatabase { db in try db.usePassphrase(passphrase(generation: 0)) }
    let pool = try DatabasePool(path: path, configuration: config)
    try Workload.migrator.migrate(pool)
    var generator = SeededGenerator(seed: 1)
    try pool.write { db in
        for id in 1...2_000 {
            try Workload.writeTransaction(db, id: Int64(id), rows: Int.random(in: 1...20, using: &generator), using: &generator)
        }
    }
    try pool.close()
    let keyringPath = "\(directory)/template-keyring.db"
    try FileManager.default.copyItem(atPath: path, toPath: keyringPath)
    try DatabaseKeyring.create(
        databaseAt: keyringPath, currentKey: .passphrase(passphrase(generation: 0)),
        slots: [.source("primary", .passphrase(keyringSecret))], kdfIterations: 1_000)
    return (path, keyringPath)
}

func runTrial(seed: UInt64, templates: (passphrase: String, keyring: String), directory: String, reportEarly: Bool) throws -> TrialOutcome {
    var generator = SeededGenerator(seed: seed)
    let (mode, focus) = trialKinds[Int(seed % UInt64(trialKinds.count))]
    try? FileManager.default.removeItem(atPath: directory)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = "\(directory)/trial.db"
    switch mode {
    case .passphrase:
        try FileManager.default.copyItem(atPath: templates.passphrase, toPath: path)
    case .keyring:
        try FileManager.default.copyItem(atPath: templates.keyring, toPath: path)
        try FileManager.default.copyItem(
            atPath: DatabaseKeyring.defaultKeyringPath(forDatabaseAt: templates.keyring),
            toPath: DatabaseKeyring.defaultKeyringPath(forDatabaseAt: path))
    }
    let child = try Child(arguments: [
        "writer", "--db", path, "--mode", mode.rawValue, "--focus", focus.rawValue, "--seed", String(seed &+ 1),
        "--report-early", reportEarly ? "yes" : "no"])
    guard child.waitForLine(timeout: 60, { $0 == "ready" }) else {
        child.killHard()
        _ = child.wait(timeout: 10)
        return TrialOutcome(killedDuring: "start", commits: 0, problems: ["the writer did not start: \(child.stderrText)"])
    }
    usleep(UInt32.random(in: 20_000...2_000_000, using: &generator))
    let exitedEarly = !child.process.isRunning
    child.killHard()
    guard child.wait(timeout: 30) else {
        return TrialOutcome(killedDuring: "?", commits: 0, problems: ["the writer did not die"])
    }
    let lines = child.lines.value_
    var problems: [String] = []
    if exitedEarly {
        problems.append("the writer stopped before the kill: \(child.stderrText)")
    }
    return try check(lines: lines, mode: mode, path: path, directory: directory, problems: problems)
}

func check(lines: [String], mode: KeyMode, path: String, directory: String, problems initialProblems: [String]) throws -> TrialOutcome {
    var problems = initialProblems
    var commits: Set<Int64> = []
    var lastRekeyDone = 0
    var rekeyBegun: Int?
    var open: [String: String] = [:]   // operation kind -> its begin line
    var finished: [(kind: String, number: Int, committedBefore: Int, generation: Int)] = []
    var begins: [String: [String]] = [:]
    for line in lines {
        let parts = line.split(separator: " ").map(String.init)
        guard let first = parts.first else { continue }
        if first == "commit", parts.count == 2, let id = Int64(parts[1]) {
            commits.insert(id)
        } else if first.hasSuffix("-begin") {
            let kind = String(first.dropLast("-begin".count))
            open[kind] = line
            begins["\(kind) \(parts[1])"] = parts
            if kind == "rekey" { rekeyBegun = Int(parts[1]) }
        } else if first.hasSuffix("-done") || first.hasSuffix("-error") {
            let kind = String(first.prefix { $0 != "-" })
            open[kind] = nil
            if first == "rekey-done" { lastRekeyDone = Int(parts[1])!; rekeyBegun = nil }
            if first.hasSuffix("-done"), kind == "vacuum" || kind == "backup",
               let begin = begins["\(kind) \(parts[1])"]
            {
                finished.append((kind, Int(parts[1])!, Int(begin[2])!, begin.count > 3 ? Int(begin[3])! : 0))
            }
        }
    }
    let killedDuring = open.keys.sorted().first ?? "writes"

    // The database opens with the right key: the last passphrase reported as changed, or the
    // next one when a change was under way.
    var config = Configuration()
    var candidates: [Int] = [lastRekeyDone]
    if let rekeyBegun { candidates.append(rekeyBegun) }
    var queue: DatabaseQueue?
    switch mode {
    case .passphrase:
        for generation in candidates {
            var attempt = config
            attempt.prepareDatabase { db in try db.usePassphrase(passphrase(generation: generation)) }
            do {
                let candidate = try DatabaseQueue(path: path, configuration: attempt)
                _ = try candidate.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
                queue = candidate
                break
            } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
                continue
            }
        }
    case .keyring:
        let keyring = try DatabaseKeyring.unlock(databaseAt: path, with: .passphrase(keyringSecret))
        config.prepareDatabase { db in try db.useKeyring(keyring) }
        queue = try DatabaseQueue(path: path, configuration: config)
    }
    guard let queue else {
        problems.append("the database opens with none of the passphrases \(candidates)")
        return TrialOutcome(killedDuring: killedDuring, commits: commits.count, problems: problems)
    }
    try queue.inDatabase { db in
        problems += try Workload.checkConsistency(db)
        let present = Set(try Int64.fetchAll(db, sql: "SELECT id FROM txn"))
        let lost = commits.subtracting(present)
        if !lost.isEmpty { problems.append("\(lost.count) reported commits lost: \(lost.sorted().prefix(5))") }
        // The writer is alone: at most one transaction committed without being reported yet.
        let unreported = present.subtracting(commits).filter { $0 > 2_000 }
        if unreported.count > 1 { problems.append("\(unreported.count) transactions that were never reported") }
        // The database takes writes again.
        try db.execute(sql: "UPDATE meta SET total = total WHERE id = 1")
    }
    try queue.close()

    // The copies that were reported done are complete.
    for copy in finished {
        var copyConfig = Configuration()
        switch copy.kind {
        case "vacuum":
            copyConfig.prepareDatabase { db in try db.usePassphrase(passphrase(generation: copy.generation)) }
        default:
            copyConfig.prepareDatabase { db in try db.usePassphrase(backupPassphrase) }
        }
        let copyPath = "\(directory)/\(copy.kind)-\(copy.number).db"
        do {
            let copyQueue = try DatabaseQueue(path: copyPath, configuration: copyConfig)
            try copyQueue.inDatabase { db in
                problems += try Workload.checkConsistency(db).map { "\(copy.kind) \(copy.number): \($0)" }
                let count = try Txn.fetchCount(db)
                if count < 2_000 + copy.committedBefore {
                    problems.append("\(copy.kind) \(copy.number) holds \(count) transactions, fewer than the \(2_000 + copy.committedBefore) committed before it")
                }
            }
            try copyQueue.close()
        } catch {
            problems.append("\(copy.kind) \(copy.number) reported done does not open: \(error)")
        }
    }
    return TrialOutcome(killedDuring: killedDuring, commits: commits.count, problems: problems)
}

func runKillTrials(_ options: Options) throws {
    let trials = options.int("trials", default: 200)
    let firstSeed = UInt64(options.int("seed", default: Int(UInt32.random(in: 1...UInt32.max))))
    let keep = options.string("keep-failures", default: "no") == "yes"
    // --report-early yes: the writer reports each commit before making it, and the run must
    // find losses (the checks can fail).
    let reportEarly = options.string("report-early", default: "no") == "yes"
    let root = options.string("dir", default: NSTemporaryDirectory() + "grdbcipher-kill-trials-\(getpid())")
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { if !keep { try? FileManager.default.removeItem(atPath: root) } }
    print("kill trials: \(trials), first seed \(firstSeed) (replay one: grdbcipher-torture kill-trials --trials 1 --seed SEED)")
    let templates = try makeTemplates(in: root)
    var failures = 0
    var commits = 0
    var byPhase: [String: Int] = [:]
    var byKind: [String: Int] = [:]
    let start = Date()
    for index in 0..<trials {
        let seed = firstSeed &+ UInt64(index)
        let (mode, focus) = trialKinds[Int(seed % UInt64(trialKinds.count))]
        let outcome = try runTrial(seed: seed, templates: templates, directory: "\(root)/trial", reportEarly: reportEarly)
        commits += outcome.commits
        byPhase[outcome.killedDuring, default: 0] += 1
        byKind["\(mode.rawValue)/\(focus.rawValue)", default: 0] += 1
        if !outcome.problems.isEmpty {
            failures += 1
            print("FAIL seed \(seed) (\(mode.rawValue), \(focus.rawValue), killed during \(outcome.killedDuring)):")
            for problem in outcome.problems { print("    \(problem)") }
            if keep {
                try? FileManager.default.moveItem(atPath: "\(root)/trial", toPath: "\(root)/failed-\(seed)")
            }
        }
    }
    let seconds = Int(Date().timeIntervalSince(start))
    print("kinds: " + byKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    print("killed during: " + byPhase.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    print("kill trials: \(trials) trials, \(commits) reported commits, \(failures) with losses or damage, \(seconds) s")
    if reportEarly {
        // The self-test passes when the checks caught the commits reported too early.
        if failures == 0 { print("self-test: no loss found although commits were reported before being made"); exit(1) }
        print("self-test: the checks found the early reports as losses in \(failures) of \(trials) trials")
        return
    }
    if failures > 0 { exit(1) }
}
