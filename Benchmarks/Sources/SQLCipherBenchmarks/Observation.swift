// W7 and W8: ValueObservation, written with the library (GRDBBenchmarks compiles this file
// through a symbolic link: only the import differs).
#if SQLCIPHER
import GRDBCipher
#else
import GRDB
#endif
import BenchmarkSupport
import Dispatch
import Foundation

enum ObservationWorkloads {
    static let categories = 10
    /// W7: single-row write transactions.
    static let writeCount = 10_000
    /// W8: write transactions, each waiting for the observation's value.
    static let latencySamples = 500

    static let createSQL = """
        CREATE TABLE event (id INTEGER PRIMARY KEY, category INTEGER NOT NULL);
        CREATE INDEX event_category ON event(category);
        """

    /// The workload's configuration: `synchronous = OFF` on both sides, so that the disk's
    /// flushes do not hide what is measured.
    static func workloadConfiguration(_ mode: Mode) -> Configuration {
        var config = configuration(mode)
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
        return config
    }

    static func makePool(path: String, mode: Mode) throws -> DatabasePool {
        let pool = try DatabasePool(path: path, configuration: workloadConfiguration(mode))
        try pool.write { db in try db.execute(sql: createSQL) }
        return pool
    }

    static func makeQueue(path: String, mode: Mode) throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue(path: path, configuration: workloadConfiguration(mode))
        try dbQueue.write { db in try db.execute(sql: createSQL) }
        return dbQueue
    }

    /// W7: 10,000 single-row write transactions on a pool, each in one of 10 categories; with
    /// `observed`, 10 observations (one per category) of `SELECT COUNT(*) … WHERE category = ?`
    /// are running, and the time runs until each has delivered its final count.
    static func writes(_ pool: DatabasePool, observed: Bool) throws -> Double {
        try pool.write { db in try db.execute(sql: "DELETE FROM event") }
        let counts = LatestCounts(categories)
        var cancellables: [AnyDatabaseCancellable] = []
        let notificationQueue = DispatchQueue(label: "W7")
        if observed {
            for category in 0..<categories {
                let observation = ValueObservation.trackingConstantRegion { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE category = ?", arguments: [category])!
                }
                cancellables.append(observation.start(
                    in: pool,
                    scheduling: .async(onQueue: notificationQueue),
                    onError: { _ in counts.fail() },
                    onChange: { counts.set(category, $0) }))
            }
            try verify(counts.wait(untilEach: 0), "W7: initial values")
        }
        let perCategory = writeCount / categories
        var delivered = true
        let time = try measure {
            for i in 0..<writeCount {
                try pool.write { db in
                    try db.execute(sql: "INSERT INTO event (category) VALUES (?)", arguments: [i % categories])
                }
            }
            if observed { delivered = counts.wait(untilEach: perCategory) }
        }
        cancellables.forEach { $0.cancel() }
        try verify(delivered, "W7: observations did not deliver the final counts")
        let total = try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event")! }
        try verify(total == writeCount, "W7: \(total) rows")
        return time
    }

    /// W8: the time from the start of a single-row write transaction on a queue to the
    /// `onChange` of an observation of the table (`observed`), or to the end of the write
    /// (the baseline); the given percentile of 500 samples.
    static func latency(_ dbQueue: DatabaseQueue, percentile: Double, observed: Bool) throws -> Double {
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM event") }
        let counts = LatestCounts(1)
        var cancellable: AnyDatabaseCancellable?
        if observed {
            cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event")! }
                .start(in: dbQueue, scheduling: .async(onQueue: DispatchQueue(label: "W8")), onError: { _ in counts.fail() }, onChange: { counts.set(0, $0) })
            try verify(counts.wait(untilEach: 0), "W8: initial value")
        }
        var samples: [Double] = []
        samples.reserveCapacity(latencySamples)
        for i in 1...latencySamples {
            let start = DispatchTime.now().uptimeNanoseconds
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO event (category) VALUES (0)") }
            if observed {
                try verify(counts.wait(untilEach: i), "W8: value \(i) not delivered")
            }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        cancellable?.cancel()
        samples.sort()
        return samples[min(samples.count - 1, Int(Double(samples.count) * percentile))]
    }
}

/// The latest value of each observation, and a wait for them.
final class LatestCounts: @unchecked Sendable {
    private let condition = NSCondition()
    private var values: [Int]
    private var failed = false

    init(_ count: Int) {
        values = Array(repeating: -1, count: count)
    }

    func set(_ index: Int, _ value: Int) {
        condition.lock()
        values[index] = value
        condition.broadcast()
        condition.unlock()
    }

    func fail() {
        condition.lock()
        failed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every value is `target` (60 s at most); false on timeout or failure.
    func wait(untilEach target: Int) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        condition.lock()
        defer { condition.unlock() }
        while !values.allSatisfy({ $0 == target }) {
            if failed || !condition.wait(until: deadline) { return false }
        }
        return true
    }
}
