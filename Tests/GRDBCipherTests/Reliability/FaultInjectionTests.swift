import CFaultInjection
import CSQLCipher
import Foundation
import Testing
@testable import GRDBCipher

// Injected I/O errors (docs/Reliability.md): every public write path runs once to count its
// I/O operations, then again with a fault at each operation in turn — each kind (read, write,
// sync, truncate, lock) failing once, and writes failing from that point on with SQLITE_FULL (a
// full disk). Each run must throw a DatabaseError with SQLite's code or succeed; then, with the
// fault gone, the connection must still work, and the files must reopen intact: what was
// committed before is there, and the operation is all there or not at all.

/// One write path under faults.
struct FaultScenario: Sendable {
    var name: String
    /// Creates the files of the scenario in a directory, without faults.
    var prepare: @Sendable (_ directory: String) throws -> Void
    /// The write path, on a copy of those files; opens and closes its own connections.
    var run: @Sendable (_ directory: String) throws -> Void
    /// Checks the files after a run, without faults: the problems found.
    var check: @Sendable (_ directory: String, _ succeeded: Bool) throws -> [String]
}

/// What a scenario went through.
struct FaultReport: CustomStringConvertible {
    var operations: [Int32: Int] = [:]
    var points = 0
    var injected = 0
    var failed = 0
    var succeededDespiteFault = 0
    var problems: [String] = []

    var description: String {
        let counts = FaultInjection.kinds.map { "\($0.name) \(operations[$0.kind] ?? 0)" }.joined(separator: ", ")
        return "\(points) fault points (\(counts)); \(injected) runs met their fault: \(failed) threw, \(succeededDespiteFault) succeeded anyway"
    }
}

enum FaultInjection {
    static let kinds: [(kind: Int32, name: String, code: Int32)] = [
        (Int32(FAULT_READ), "read", ResultCode.SQLITE_IOERR_READ.rawValue),
        (Int32(FAULT_WRITE), "write", ResultCode.SQLITE_IOERR_WRITE.rawValue),
        (Int32(FAULT_SYNC), "sync", ResultCode.SQLITE_IOERR_FSYNC.rawValue),
        (Int32(FAULT_TRUNCATE), "truncate", ResultCode.SQLITE_IOERR_TRUNCATE.rawValue),
        (Int32(FAULT_LOCK), "lock", ResultCode.SQLITE_IOERR_LOCK.rawValue),
    ]

    static func copyDirectory(_ source: String, to destination: String) throws {
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.copyItem(atPath: "\(source)/\(name)", toPath: "\(destination)/\(name)")
        }
    }

    /// Runs the scenario with a fault at every I/O operation in turn.
    static func exercise(_ scenario: FaultScenario) throws -> FaultReport {
        #expect(faultvfs_register() == SQLITE_OK)
        let root = try TemporaryDirectory()
        let template = root.path("template")
        try FileManager.default.createDirectory(atPath: template, withIntermediateDirectories: true)
        try scenario.prepare(template)

        var report = FaultReport()
        // The count: the same run without faults.
        let counting = root.path("count")
        try copyDirectory(template, to: counting)
        faultvfs_arm(counting + "/", -1, 0, 0, 0)
        try scenario.run(counting)
        faultvfs_disarm()
        for kind in kinds { report.operations[kind.kind] = Int(faultvfs_count(kind.kind)) }
        report.problems += try scenario.check(counting, true).map { "without faults: \($0)" }

        var faults: [(kind: Int32, name: String, at: Int, code: Int32, persistent: Bool)] = []
        for kind in kinds {
            for at in stride(from: 1, through: report.operations[kind.kind] ?? 0, by: 1) {
                faults.append((kind.kind, kind.name, at, kind.code, false))
                if kind.kind == Int32(FAULT_WRITE) {
                    faults.append((kind.kind, "write (disk full)", at, ResultCode.SQLITE_FULL.rawValue, true))
                }
            }
        }
        for (index, fault) in faults.enumerated() {
            let directory = root.path("trial-\(index)")
            try copyDirectory(template, to: directory)
            faultvfs_arm(directory + "/", fault.kind, Int32(fault.at), fault.code, fault.persistent ? 1 : 0)
            var succeeded = true
            do {
                try scenario.run(directory)
            } catch let error as DatabaseError {
                succeeded = false
                let primary = error.resultCode
                if primary != .SQLITE_IOERR && primary != .SQLITE_FULL {
                    report.problems.append("\(fault.name) #\(fault.at): \(error.extendedResultCode) is not the injected I/O error: \(error)")
                }
            } catch {
                succeeded = false
                report.problems.append("\(fault.name) #\(fault.at): not a DatabaseError: \(error)")
            }
            let injected = faultvfs_injected()
            faultvfs_disarm()
            report.points += 1
            if injected > 0 {
                report.injected += 1
                if succeeded { report.succeededDespiteFault += 1 } else { report.failed += 1 }
            }
            report.problems += try scenario.check(directory, succeeded).map { "\(fault.name) #\(fault.at): \($0)" }
            try? FileManager.default.removeItem(atPath: directory)
        }
        return report
    }

    /// Runs `operation` on `writer`; when it throws, checks that the connection works again
    /// once the fault is gone (or fails with a DatabaseError that says why), then rethrows.
    static func attempt(_ writer: some DatabaseWriter, _ operation: () throws -> Void) throws {
        do {
            try operation()
        } catch {
            faultvfs_disarm()
            do {
                // The writer connection, the one that met the fault (a pool's `read` would
                // take a reader).
                let count = try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM base") }
                if count != baseRows {
                    throw FaultCheckFailure("after the fault, the connection reads \(count ?? -1) base rows")
                }
            } catch let failure as FaultCheckFailure {
                throw failure
            } catch is DatabaseError {
                // The connection says it cannot go on: acceptable, it said so clearly.
            }
            throw error
        }
    }

    // MARK: Databases

    static let baseRows = 100
    static let key = try! CipherKey.rawKey(hex: String(repeating: "3C", count: 32))
    static let newKey = try! CipherKey.rawKey(hex: String(repeating: "A7", count: 32))

    static func configuration(key: CipherKey?) -> Configuration {
        var config = Configuration()
        if let key { config.prepareDatabase { db in try db.use(key) } }
        return config
    }

    /// The key of the scenarios that do not test keys: the suite's choice.
    static var suiteKey: CipherKey? { TestEnvironment.encrypted ? key : nil }

    /// The committed content every scenario starts from.
    static func makeBase(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE base(id INTEGER PRIMARY KEY, v INTEGER NOT NULL, filler BLOB NOT NULL);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(baseRows))
            INSERT INTO base(id, v, filler) SELECT x, x, zeroblob(300) FROM c;
            CREATE TABLE t(x INTEGER NOT NULL, payload BLOB NOT NULL);
            """)
    }

    /// The base content intact: the problems found.
    static func checkBase(_ db: Database, extraV: Int = 0) throws -> [String] {
        var problems: [String] = []
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        if integrity != ["ok"] { problems.append("integrity_check: \(integrity.prefix(3))") }
        if db.isEncrypted {
            let cipher = try String.fetchAll(db, sql: "PRAGMA cipher_integrity_check")
            if !cipher.isEmpty { problems.append("cipher_integrity_check: \(cipher.prefix(3))") }
        }
        let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, SUM(v) AS s FROM base")!
        let expectedSum = baseRows * (baseRows + 1) / 2
        if row["n"] as Int != baseRows { problems.append("base has \(row["n"] as Int) rows") }
        if row["s"] as Int != expectedSum && row["s"] as Int != expectedSum + extraV {
            problems.append("base sum \(row["s"] as Int)")
        }
        return problems
    }

    static func openQueue(_ path: String, key: CipherKey?) throws -> DatabaseQueue {
        try DatabaseQueue(path: path, configuration: configuration(key: key))
    }

    /// Whether the file at `path` opens with `key`.
    static func opens(_ path: String, key: CipherKey?) -> Bool {
        do {
            let queue = try openQueue(path, key: key)
            defer { try? queue.close() }
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
            return true
        } catch {
            return false
        }
    }

    /// The files a scenario may leave in its directory.
    static func strayFiles(_ directory: String, allowed: Set<String>) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { !allowed.contains($0) && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
            .map { "file left behind: \($0)" }
    }
}

struct FaultCheckFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - The write paths

@Suite("Injected I/O errors", .serialized)
struct FaultInjectionTests {
    typealias F = FaultInjection

    /// Runs a scenario at every fault point and expects no problem.
    func expectNoProblem(_ scenario: FaultScenario, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let report = try F.exercise(scenario)
        print("fault injection, \(scenario.name): \(report)")
        for problem in report.problems.prefix(10) { print("    problem: \(problem)") }
        #expect(report.points > 0, sourceLocation: sourceLocation)
        #expect(report.failed > 0, "no fault made the operation fail", sourceLocation: sourceLocation)
        #expect(report.problems.isEmpty, "\(report.problems.prefix(10))", sourceLocation: sourceLocation)
    }

    /// A base, then the template's own extra preparation.
    static func prepare(pool: Bool = false, key: CipherKey? = F.suiteKey, _ extra: @escaping @Sendable (Database) throws -> Void = { _ in }) -> @Sendable (String) throws -> Void {
        { directory in
            let path = "\(directory)/db.sqlite"
            if pool {
                let writer = try DatabasePool(path: path, configuration: F.configuration(key: key))
                try writer.write { db in try F.makeBase(db); try extra(db) }
                try writer.close()
            } else {
                let writer = try F.openQueue(path, key: key)
                try writer.write { db in try F.makeBase(db); try extra(db) }
                try writer.close()
            }
        }
    }

    /// The checks of a transaction that inserts `rows` rows into `t` and adds 1 to every
    /// base value: all there or not at all, and there when the call succeeded.
    static func checkAllOrNothing(rows: Int, key: CipherKey? = F.suiteKey) -> @Sendable (String, Bool) throws -> [String] {
        { directory, succeeded in
            let queue = try F.openQueue("\(directory)/db.sqlite", key: key)
            defer { try? queue.close() }
            return try queue.read { db in
                var problems = try F.checkBase(db, extraV: F.baseRows)
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")!
                let sum = try Int.fetchOne(db, sql: "SELECT SUM(v) FROM base")!
                let applied = sum != F.baseRows * (F.baseRows + 1) / 2
                if count != (applied ? rows : 0) { problems.append("half a transaction: \(count) rows of t, base updated: \(applied)") }
                if succeeded && !applied { problems.append("the call succeeded, the transaction is not there") }
                return problems
            }
        }
    }

    static let insertSQL = """
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 400)
        INSERT INTO t(x, payload) SELECT x, randomblob(200) FROM c;
        UPDATE base SET v = v + 1;
        """

    @Test func executeInATransaction() throws {
        try expectNoProblem(FaultScenario(
            name: "execute (DatabaseQueue)",
            prepare: Self.prepare(),
            run: { directory in
                let queue = try F.openQueue("\(directory)/db.sqlite", key: F.suiteKey)
                defer { try? queue.close() }
                try F.attempt(queue) { try queue.write { db in try db.execute(sql: Self.insertSQL) } }
            },
            check: Self.checkAllOrNothing(rows: 400)))
    }

    @Test func executeThroughAPool() throws {
        try expectNoProblem(FaultScenario(
            name: "execute (DatabasePool, WAL)",
            prepare: Self.prepare(pool: true),
            run: { directory in
                let pool = try DatabasePool(path: "\(directory)/db.sqlite", configuration: F.configuration(key: F.suiteKey))
                defer { try? pool.close() }
                try F.attempt(pool) { try pool.write { db in try db.execute(sql: Self.insertSQL) } }
            },
            check: Self.checkAllOrNothing(rows: 400)))
    }

    struct Thing: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "t"
        var x: Int
        var payload: Data
    }

    @Test func records() throws {
        try expectNoProblem(FaultScenario(
            name: "records",
            prepare: Self.prepare(),
            run: { directory in
                let queue = try F.openQueue("\(directory)/db.sqlite", key: F.suiteKey)
                defer { try? queue.close() }
                try F.attempt(queue) {
                    try queue.write { db in
                        for x in 1...150 { try Thing(x: x, payload: Data(repeating: UInt8(x % 256), count: 300)).insert(db) }
                        try db.execute(sql: "UPDATE base SET v = v + 1")
                    }
                }
            },
            check: Self.checkAllOrNothing(rows: 150)))
    }

    @Test func migrations() throws {
        @Sendable func migrator() -> DatabaseMigrator {
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { db in
                try db.create(table: "note") { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.column("body", .text).notNull()
                }
                try db.execute(sql: """
                    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300)
                    INSERT INTO note(body) SELECT hex(randomblob(100)) FROM c
                    """)
            }
            migrator.registerMigration("v2") { db in
                try db.alter(table: "note") { t in t.add(column: "length", .integer) }
                try db.execute(sql: "UPDATE note SET length = length(body)")
                try db.create(index: "note_length", on: "note", columns: ["length"])
            }
            return migrator
        }
        try expectNoProblem(FaultScenario(
            name: "migrations",
            prepare: Self.prepare(),
            run: { directory in
                let queue = try F.openQueue("\(directory)/db.sqlite", key: F.suiteKey)
                defer { try? queue.close() }
                try F.attempt(queue) { try migrator().migrate(queue) }
            },
            check: { directory, succeeded in
                let queue = try F.openQueue("\(directory)/db.sqlite", key: F.suiteKey)
                defer { try? queue.close() }
                return try queue.read { db in
                    var problems = try F.checkBase(db)
                    let applied = try migrator().appliedIdentifiers(db)
                    let hasNote = try db.tableExists("note")
                    let hasLength = hasNote ? try db.columns(in: "note").contains { $0.name == "length" } : false
                    switch applied {
                    case []:
                        if hasNote { problems.append("no migration applied, the note table exists") }
                    case ["v1"]:
                        if !hasNote || hasLength { problems.append("v1 applied, the schema differs") }
                        if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note") != 300 { problems.append("v1 applied without its rows") }
                    case ["v1", "v2"]:
                        let hasIndex = try db.indexes(on: "note").contains { $0.name == "note_length" }
                        if !hasLength || !hasIndex {
                            problems.append("v2 applied, the schema differs")
                        }
                        if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note WHERE length IS NULL") != 0 {
                            problems.append("v2 applied without its update")
                        }
                    default:
                        problems.append("applied migrations \(applied)")
                    }
                    if succeeded && applied != ["v1", "v2"] { problems.append("migrate succeeded, applied \(applied)") }
                    return problems
                }
            }))
    }

    /// After a key change that threw or succeeded: the file opens with one of the two keys
    /// (the new one if the call succeeded), its content intact.
    static func checkKeyChange(_ directory: String, _ succeeded: Bool) throws -> [String] {
        let path = "\(directory)/db.sqlite"
        let oldOpens = F.opens(path, key: F.key)
        let newOpens = F.opens(path, key: F.newKey)
        if oldOpens == newOpens { return ["the file opens with \(oldOpens ? "both keys" : "neither key")"] }
        if succeeded && !newOpens { return ["the key change succeeded, the file does not open with the new key"] }
        let queue = try F.openQueue(path, key: newOpens ? F.newKey : F.key)
        defer { try? queue.close() }
        return try queue.read { db in try F.checkBase(db) }
            + F.strayFiles(directory, allowed: ["db.sqlite", "db.sqlite-journal"])
    }

    @Test func changeKeyOnAQueue() throws {
        try expectNoProblem(FaultScenario(
            name: "changeKey (DatabaseQueue)",
            prepare: Self.prepare(key: F.key),
            run: { directory in
                let queue = try F.openQueue("\(directory)/db.sqlite", key: F.key)
                defer { try? queue.close() }
                do {
                    try queue.changeKey(F.newKey)
                } catch {
                    // After the failure, the connection writes again: it must write with the
                    // key the file has, or refuse.
                    faultvfs_disarm()
                    try? queue.write { db in try db.execute(sql: "UPDATE base SET filler = zeroblob(300) WHERE id % 7 = 0") }
                    throw error
                }
            },
            check: Self.checkKeyChange))
    }

    @Test func changeKeyOnAPool() throws {
        try expectNoProblem(FaultScenario(
            name: "changeKey (DatabasePool, WAL)",
            prepare: Self.prepare(pool: true, key: F.key),
            run: { directory in
                let pool = try DatabasePool(path: "\(directory)/db.sqlite", configuration: F.configuration(key: F.key))
                defer { try? pool.close() }
                try pool.changeKey(F.newKey)
            },
            check: Self.checkKeyChange))
    }

    /// A copy written to `copy.sqlite`: absent, or complete with `key` (and there when the
    /// call succeeded); the source intact.
    static func checkCopy(key: CipherKey?, sourceKey: CipherKey?, allowed: Set<String> = ["db.sqlite", "copy.sqlite"]) -> @Sendable (String, Bool) throws -> [String] {
        { directory, succeeded in
            var problems: [String] = []
            let source = try F.openQueue("\(directory)/db.sqlite", key: sourceKey)
            problems += try source.read { db in try F.checkBase(db) }
            try source.close()
            let copyPath = "\(directory)/copy.sqlite"
            if FileManager.default.fileExists(atPath: copyPath) {
                do {
                    let copy = try F.openQueue(copyPath, key: key)
                    problems += try copy.read { db in try F.checkBase(db) }.map { "copy: \($0)" }
                    try copy.close()
                } catch {
                    problems.append("a copy is left that does not open: \(error)")
                }
            } else if succeeded {
                problems.append("the call succeeded, there is no copy")
            }
            return problems + (try F.strayFiles(directory, allowed: allowed))
        }
    }

    @Test func export() throws {
        try expectNoProblem(FaultScenario(
            name: "exportDatabase",
            prepare: Self.prepare(key: F.key),
            run: { directory in
                let queue = try F.openQueue("\(directory)/db.sqlite", key: F.key)
                defer { try? queue.close() }
                _ = try queue.exportDatabase(to: "\(directory)/copy.sqlite", options: .encrypted(with: F.newKey))
            },
            check: Self.checkCopy(key: F.newKey, sourceKey: F.key)))
    }

    @Test func vacuumInto() throws {
        try expectNoProblem(FaultScenario(
            name: "vacuum(into:)",
            prepare: Self.prepare(),
            run: { directory in
                let queue = try F.openQueue("\(directory)/db.sqlite", key: F.suiteKey)
                defer { try? queue.close() }
                try F.attempt(queue) { try queue.vacuum(into: "\(directory)/copy.sqlite") }
            },
            check: Self.checkCopy(key: F.suiteKey, sourceKey: F.suiteKey)))
    }

    @Test func backup() throws {
        try expectNoProblem(FaultScenario(
            name: "backup(to:)",
            prepare: { directory in
                try Self.prepare()(directory)
                // The destination holds a previous copy, which a failed backup must leave.
                try FileManager.default.copyItem(atPath: "\(directory)/db.sqlite", toPath: "\(directory)/copy.sqlite")
            },
            run: { directory in
                let source = try F.openQueue("\(directory)/db.sqlite", key: F.suiteKey)
                defer { try? source.close() }
                try source.write { db in try db.execute(sql: "UPDATE base SET v = v + 1") }
                let destination = try F.openQueue("\(directory)/copy.sqlite", key: F.suiteKey)
                defer { try? destination.close() }
                try F.attempt(destination) { try source.backup(to: destination) }
            },
            check: { directory, succeeded in
                var problems: [String] = []
                let source = try F.openQueue("\(directory)/db.sqlite", key: F.suiteKey)
                let sourceSum = try source.read { db in
                    problems += try F.checkBase(db, extraV: F.baseRows)
                    return try Int.fetchOne(db, sql: "SELECT SUM(v) FROM base")!
                }
                try source.close()
                let copy = try F.openQueue("\(directory)/copy.sqlite", key: F.suiteKey)
                let copySum = try copy.read { db in
                    problems += try F.checkBase(db, extraV: F.baseRows).map { "copy: \($0)" }
                    return try Int.fetchOne(db, sql: "SELECT SUM(v) FROM base")!
                }
                try copy.close()
                if succeeded && copySum != sourceSum { problems.append("the backup succeeded, the copy differs from the source") }
                return problems
            }))
    }

    @Test func checkpoint() throws {
        try expectNoProblem(FaultScenario(
            name: "checkpoint (TRUNCATE)",
            prepare: Self.prepare(pool: true),
            run: { directory in
                let pool = try DatabasePool(path: "\(directory)/db.sqlite", configuration: F.configuration(key: F.suiteKey))
                defer { try? pool.close() }
                // The transaction goes to the WAL first; the checkpoint copies it into the file.
                try pool.write { db in try db.execute(sql: Self.insertSQL) }
                try F.attempt(pool) { _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) } }
            },
            check: Self.checkAllOrNothing(rows: 400)))
    }
}
