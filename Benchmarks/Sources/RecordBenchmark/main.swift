// Rows and records: fetching 200,000 rows of 10 integers as rows (by index, by name) and into
// records, and inserting 50,000 records in
// one transaction, side by side with the raw SQLCipher C API on the same library, in the same
// run. Implementations run interleaved (raw, ours, raw, ours…) and the medians are compared.
//
// Run: make bench (release build). Prints a Markdown table for docs/Performance.md.
import CRawSQLCipher
import Dispatch
import Foundation
import GRDBCipher

let rowCount = 200_000
let insertCount = 50_000
// For profiling: RECORD_BENCH_ONLY=W3 runs one workload, RECORD_BENCH_MODE=plaintext one mode,
// RECORD_BENCH_ROUNDS=1 one round.
let environment = ProcessInfo.processInfo.environment
let rounds = environment["RECORD_BENCH_ROUNDS"].flatMap(Int.init) ?? 7
let onlyWorkload = environment["RECORD_BENCH_ONLY"]
let columns = (0..<10).map { "c\($0)" }

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grdbcipher-records-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000_000
}

func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    return sorted[sorted.count / 2]
}

func check(_ condition: Bool, _ message: String) {
    if !condition {
        FileHandle.standardError.write(Data("benchmark verification failed: \(message)\n".utf8))
        exit(1)
    }
}

// MARK: - Records

/// Reads its columns by name through `init(row:)`.
struct RowRecord: FetchableRecord {
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int64
    init(row: Row) {
        c0 = row["c0"]; c1 = row["c1"]; c2 = row["c2"]; c3 = row["c3"]; c4 = row["c4"]
        c5 = row["c5"]; c6 = row["c6"]; c7 = row["c7"]; c8 = row["c8"]; c9 = row["c9"]
    }
    var sum: Int64 { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }
}

/// Decodes itself with `Decodable`.
struct CodableRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int64
    var sum: Int64 { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }
}

/// Encodes itself with `encode(to:)` written by hand.
struct ManualRecord: PersistableRecord {
    static let databaseTableName = "item"
    var values: [Int64]
    func encode(to container: inout PersistenceContainer) {
        container["c0"] = values[0]; container["c1"] = values[1]; container["c2"] = values[2]
        container["c3"] = values[3]; container["c4"] = values[4]; container["c5"] = values[5]
        container["c6"] = values[6]; container["c7"] = values[7]; container["c8"] = values[8]
        container["c9"] = values[9]
    }
}

func values(_ i: Int) -> [Int64] { (0..<10).map { Int64(i &* 10 &+ $0) } }
let expectedFetchSum: Int64 = (0..<rowCount).reduce(0) { $0 &+ values($1).reduce(0, &+) }
let expectedInsertSum: Int64 = (0..<insertCount).reduce(0) { $0 &+ values($1).reduce(0, &+) }

// MARK: - A database per mode

struct Mode {
    let name: String
    let key: String?
    let path: String
}

let modes = [
    Mode(name: "plaintext", key: nil, path: directory.appendingPathComponent("plain.sqlite").path),
    Mode(name: "encrypted", key: "benchmark passphrase", path: directory.appendingPathComponent("encrypted.sqlite").path),
].filter { mode in environment["RECORD_BENCH_MODE"].map { $0 == mode.name } ?? true }

func configuration(_ mode: Mode) -> Configuration {
    var config = Configuration()
    if let key = mode.key {
        config.prepareDatabase { db in try db.usePassphrase(key) }
    }
    return config
}

let createSQL = "CREATE TABLE item(id INTEGER PRIMARY KEY, \(columns.map { "\($0) INTEGER NOT NULL" }.joined(separator: ", ")))"
let insertSQL = "INSERT INTO item (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ",")))"

// The fetch table; skipped when profiling an insert workload alone.
for mode in modes where onlyWorkload.map({ ["W1", "W2", "W3", "W3b"].contains($0) }) ?? true {
    let dbQueue = try DatabaseQueue(path: mode.path, configuration: configuration(mode))
    try dbQueue.write { db in
        try db.execute(sql: createSQL)
        let statement = try db.makeStatement(sql: insertSQL)
        for i in 0..<rowCount {
            try statement.execute(arguments: StatementArguments(values(i)))
        }
    }
    try dbQueue.close()
}

// MARK: - Raw C

func rawOpen(_ mode: Mode) -> OpaquePointer {
    var handle: OpaquePointer?
    // The same threading mode as GRDBCipher's connections: no per-call mutex on either side.
    guard sqlite3_open_v2(mode.path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle else { fatalError("open") }
    if let key = mode.key {
        _ = key.withCString { sqlite3_key(handle, $0, Int32(strlen($0))) }
    }
    guard sqlite3_exec(handle, "SELECT COUNT(*) FROM sqlite_master", nil, nil, nil) == SQLITE_OK else { fatalError("read") }
    return handle
}

func rawFetch(_ handle: OpaquePointer) -> Double {
    var sum: Int64 = 0
    var count = 0
    let time = seconds {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, "SELECT c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 FROM item", -1, &statement, nil)
        while sqlite3_step(statement) == SQLITE_ROW {
            for index in 0..<Int32(10) { sum = sum &+ sqlite3_column_int64(statement, index) }
            count += 1
        }
        sqlite3_finalize(statement)
    }
    check(count == rowCount && sum == expectedFetchSum, "raw fetch")
    return time
}

func rawInsert(_ handle: OpaquePointer) -> Double {
    let time = seconds {
        sqlite3_exec(handle, "BEGIN IMMEDIATE; DELETE FROM inserted", nil, nil, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, insertSQL.replacingOccurrences(of: "INTO item", with: "INTO inserted"), -1, &statement, nil)
        for i in 0..<insertCount {
            let base = Int64(i * 10)
            for index in 0..<Int32(10) { sqlite3_bind_int64(statement, index + 1, base + Int64(index)) }
            guard sqlite3_step(statement) == SQLITE_DONE else { fatalError("insert") }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        sqlite3_exec(handle, "COMMIT", nil, nil, nil)
    }
    return time
}

// MARK: - GRDBCipher

/// Fetches every row into `Record`s and checks the checksum.
func fetchRecords<Record: FetchableRecord>(_ dbQueue: DatabaseQueue, _ type: Record.Type, sum: (Record) -> Int64) throws -> Double {
    var total: Int64 = 0
    var count = 0
    let time = try seconds {
        try dbQueue.read { db in
            let records = try Record.fetchCursor(db, sql: "SELECT c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 FROM item")
            while let record = try records.next() {
                total = total &+ sum(record)
                count += 1
            }
        }
    }
    check(count == rowCount && total == expectedFetchSum, "\(Record.self) fetch")
    return time
}

/// Fetches every row with `Row.fetchCursor` over a query interface request, reading columns
/// by index (W1) or by name (W2).
func fetchRows(_ dbQueue: DatabaseQueue, byName: Bool) throws -> Double {
    var total: Int64 = 0
    var count = 0
    let request = Table("item").select(columns.map { Column($0) })
    let time = try seconds {
        try dbQueue.read { db in
            let rows = try Row.fetchCursor(db, request)
            if byName {
                while let row = try rows.next() {
                    let a: Int64 = row["c0"], b: Int64 = row["c1"], c: Int64 = row["c2"], d: Int64 = row["c3"], e: Int64 = row["c4"]
                    let f: Int64 = row["c5"], g: Int64 = row["c6"], h: Int64 = row["c7"], i: Int64 = row["c8"], j: Int64 = row["c9"]
                    total = total &+ a &+ b &+ c &+ d &+ e &+ f &+ g &+ h &+ i &+ j
                    count += 1
                }
            } else {
                while let row = try rows.next() {
                    for index in 0..<10 {
                        total = total &+ (row[index] as Int64)
                    }
                    count += 1
                }
            }
        }
    }
    check(count == rowCount && total == expectedFetchSum, "row fetch")
    return time
}

func insertRecords(_ dbQueue: DatabaseQueue, _ insert: @escaping (Database, Int) throws -> Void) throws -> Double {
    let time = try seconds {
        try dbQueue.write { db in
            try db.execute(sql: "DELETE FROM item")
            for i in 0..<insertCount {
                try insert(db, i)
            }
        }
    }
    let (count, sum) = try dbQueue.read { db in
        (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item")!,
         try Int64.fetchOne(db, sql: "SELECT SUM(\(columns.joined(separator: " + "))) FROM item")!)
    }
    check(count == insertCount && sum == expectedInsertSum, "record inserts")
    return time
}

// MARK: - Run

var table = """
    | Workload | Mode | raw C (s) | GRDBCipher (s) | ratio |
    |---|---|---:|---:|---:|

    """
for mode in modes {
    let handle = rawOpen(mode)
    sqlite3_exec(handle, "CREATE TABLE IF NOT EXISTS inserted(id INTEGER PRIMARY KEY, \(columns.map { "\($0) INTEGER NOT NULL" }.joined(separator: ", ")))", nil, nil, nil)
    let fetchQueue = try DatabaseQueue(path: mode.path, configuration: configuration(mode))
    // Inserts go to another database, so that the fetch table keeps its rows.
    let insertQueue = try DatabaseQueue(path: mode.path + "-insert", configuration: configuration(mode))
    try insertQueue.write { try $0.execute(sql: createSQL) }

    var raw: [String: [Double]] = [:]
    var ours: [String: [Double]] = [:]
    let workloads: [(name: String, raw: () throws -> Double, ours: () throws -> Double)] = [
        ("W1", { rawFetch(handle) }, { try fetchRows(fetchQueue, byName: false) }),
        ("W2", { rawFetch(handle) }, { try fetchRows(fetchQueue, byName: true) }),
        ("W3", { rawFetch(handle) }, { try fetchRecords(fetchQueue, RowRecord.self) { $0.sum } }),
        ("W3b", { rawFetch(handle) }, { try fetchRecords(fetchQueue, CodableRecord.self) { $0.sum } }),
        ("W5", { rawInsert(handle) }, { try insertRecords(insertQueue) { db, i in try ManualRecord(values: values(i)).insert(db) } }),
        ("W5b", { rawInsert(handle) }, { try insertRecords(insertQueue) { db, i in
            let v = values(i)
            try CodableRecord(c0: v[0], c1: v[1], c2: v[2], c3: v[3], c4: v[4], c5: v[5], c6: v[6], c7: v[7], c8: v[8], c9: v[9]).insert(db)
        } }),
    ].filter { onlyWorkload == nil || $0.name == onlyWorkload }
    for _ in 0..<rounds {
        for workload in workloads {
            raw[workload.name, default: []].append(try workload.raw())
            ours[workload.name, default: []].append(try workload.ours())
        }
    }
    sqlite3_close(handle)
    let labels = [
        "W1": "W1 Row.fetchCursor 200,000 rows, columns by index",
        "W2": "W2 Row.fetchCursor 200,000 rows, columns by name",
        "W3": "W3 fetch 200,000 records, init(row:) by column name",
        "W3b": "W3b fetch 200,000 records, Decodable",
        "W5": "W5 insert 50,000 records, PersistableRecord.insert",
        "W5b": "W5b insert 50,000 records, Encodable",
    ]
    for workload in workloads.map(\.name) {
        let rawMedian = median(raw[workload]!)
        let ourMedian = median(ours[workload]!)
        table += "| \(labels[workload]!) | \(mode.name) | \(String(format: "%.4f", rawMedian)) | \(String(format: "%.4f", ourMedian)) | \(String(format: "%.2f", ourMedian / rawMedian)) |\n"
    }
}
print(table)
