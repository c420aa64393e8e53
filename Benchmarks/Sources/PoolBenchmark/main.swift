// Encrypted DatabasePool: the cost of opening the Nth read-only connection, and how concurrent
// reads scale, side by side with the raw SQLCipher C API measured in the same run.
//
// Run: make bench (release build). Prints one Markdown table for docs/Performance.md.
import CRawSQLCipher
import Dispatch
import Foundation
import GRDBCipher

let passphrase = "benchmark passphrase"
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grdbcipher-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let path = directory.appendingPathComponent("pool.sqlite").path

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
}

func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func format(_ value: Double) -> String {
    String(format: value < 10 ? "%.3f" : "%.1f", value)
}

// MARK: - The database

var config = Configuration()
config.prepareDatabase { db in try db.usePassphrase(passphrase) }
let setUpPool = try DatabasePool(path: path, configuration: config)
try setUpPool.write { db in
    try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, value INTEGER NOT NULL, label TEXT NOT NULL)")
    let statement = try db.makeStatement(sql: "INSERT INTO item(value, label) VALUES (?, ?)")
    for i in 0..<50_000 {
        try statement.execute(arguments: [i % 997, "label \(i)"])
    }
}
try setUpPool.close()

// MARK: - Raw C: opening a connection, with the passphrase and with the raw key

/// Opens a connection with `key` (a passphrase, or `x'…'`), reads the schema, closes it.
func rawOpen(key: String) -> Double {
    milliseconds {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { fatalError("open") }
        _ = key.withCString { sqlite3_key(handle, $0, Int32(strlen($0))) }
        guard sqlite3_exec(handle, "SELECT COUNT(*) FROM sqlite_master", nil, nil, nil) == SQLITE_OK else { fatalError("read") }
        sqlite3_close(handle)
    }
}

let slowSamples = 5
let fastSamples = 101
let rawPassphrase = median((0..<slowSamples).map { _ in rawOpen(key: passphrase) })

// The raw-key baseline: a copy of the database encrypted with a known raw key.
let rawKeyHex = String(repeating: "3C", count: 32)
let rawKeyPath = directory.appendingPathComponent("raw.sqlite").path
do {
    let source = try DatabaseQueue(path: path, configuration: config)
    try source.exportDatabase(to: rawKeyPath, options: .encrypted(with: try .rawKey(hex: rawKeyHex)))
}
func rawOpenRawKey() -> Double {
    milliseconds {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(rawKeyPath, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { fatalError("open") }
        let key = "x'\(rawKeyHex)'"
        _ = key.withCString { sqlite3_key(handle, $0, Int32(strlen($0))) }
        guard sqlite3_exec(handle, "SELECT COUNT(*) FROM sqlite_master", nil, nil, nil) == SQLITE_OK else { fatalError("read") }
        sqlite3_close(handle)
    }
}
let rawRawKey = median((0..<fastSamples).map { _ in rawOpenRawKey() })

// MARK: - GRDBCipher: the Nth reader of a pool

/// The time to open the Nth reader (N > 1) of a pool: the pool's first reader is already open,
/// and a second one opens while the first is busy.
func nthReaderOpen(_ pool: DatabasePool) throws -> Double {
    pool.invalidateReadOnlyConnections()
    _ = try pool.read { _ in 0 } // reader 1, which re-derives and caches the key
    // Measure opening reader 2, while reader 1 is held busy.
    let busy = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    Thread {
        _ = try? pool.read { _ in busy.signal(); release.wait() }
        done.signal()
    }.start()
    busy.wait()
    let elapsed = try milliseconds {
        _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
    }
    release.signal()
    done.wait()
    return elapsed
}

let cachedPool = try DatabasePool(path: path, configuration: config)
let cached = median(try (0..<21).map { _ in try nthReaderOpen(cachedPool) })
try cachedPool.close()

var uncachedConfig = config
uncachedConfig.derivesPoolKeyOnce = false
let uncachedPool = try DatabasePool(path: path, configuration: uncachedConfig)
let uncached = median(try (0..<slowSamples).map { _ in try nthReaderOpen(uncachedPool) })
try uncachedPool.close()

// MARK: - Concurrent reads on two cores

func workload(_ db: Database) throws {
    for _ in 0..<20 {
        _ = try Int.fetchOne(db, sql: "SELECT SUM(value * length(label)) FROM item")
    }
}

let readPool = try DatabasePool(path: path, configuration: config)
_ = try readPool.read { try workload($0) } // warm the readers' caches
var oneReaderSamples: [Double] = []
var twoReaderSamples: [Double] = []
for _ in 0..<5 {
    oneReaderSamples.append(try milliseconds {
        try readPool.read { try workload($0) }
        try readPool.read { try workload($0) }
    })
    twoReaderSamples.append(milliseconds {
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread {
                try? readPool.read { try workload($0) }
                group.leave()
            }.start()
        }
        group.wait()
    })
}
try readPool.close()
let oneReader = median(oneReaderSamples)
let twoReaders = median(twoReaderSamples)

// MARK: - Report

print("""
| Measure (median, ms) | GRDBCipher | Raw SQLCipher C | Ratio |
|---|---|---|---|
| Nth reader of an encrypted v4 pool, key derived once (default) | \(format(cached)) | \(format(rawRawKey)) (open with the raw key) | \(String(format: "%.2f", cached / rawRawKey)) |
| Nth reader, `derivesPoolKeyOnce = false` | \(format(uncached)) | \(format(rawPassphrase)) (open with the passphrase) | \(String(format: "%.2f", uncached / rawPassphrase)) |
| Fixed read workload: one reader, twice | \(format(oneReader)) | | |
| Same workload: two readers at once | \(format(twoReaders)) | | \(String(format: "%.2f", twoReaders / oneReader)) of one reader |
""")
