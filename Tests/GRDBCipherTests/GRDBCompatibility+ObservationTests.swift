// A GRDB 7 program, as a GRDB user writes it, with only `import GRDB` changed to
// `import GRDBCipher` (and no @testable import): ValueObservation, its operators, schedulers,
// async sequences, shared observations and a custom reducer. It must compile and behave the same.
import Dispatch
import Foundation
import GRDBCipher
import Testing

private struct Runner: Codable, Equatable, FetchableRecord, PersistableRecord {
    var id: Int64?
    var name: String
    var score: Int

    enum Columns {
        static let name = Column(CodingKeys.name)
        static let score = Column(CodingKeys.score)
    }
}

/// A reducer written for GRDB: the running total of the fetched scores.
private struct RunningTotal: ValueReducer {
    struct Fetcher: _ValueReducerFetcher {
        func fetch(_ db: Database) throws -> [Int] {
            try Int.fetchAll(db, sql: "SELECT score FROM runner ORDER BY id")
        }
    }
    var notifications = 0

    func _makeFetcher() -> Fetcher { Fetcher() }

    mutating func _value(_ fetched: [Int]) -> String? {
        notifications += 1
        return "#\(notifications): \(fetched.reduce(0, +))"
    }
}

private final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
    func waitFor(_ count: Int) -> [T] {
        let deadline = Date().addingTimeInterval(10)
        while all.count < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
        return all
    }
}

private func makeRunners() throws -> DatabaseQueue {
    let dbQueue = try DatabaseQueue()
    try dbQueue.write { db in
        try db.create(table: "runner") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.column("score", .integer).notNull()
        }
    }
    return dbQueue
}

@Suite("GRDB compatibility: ValueObservation")
struct GRDBCompatibilityObservationTests {
    @Test func observationsWithOperatorsAndSchedulers() throws {
        let dbQueue = try makeRunners()
        let queue = DispatchQueue(label: "runners")
        let names = Box<[String]>()
        let observation = ValueObservation
            .tracking { db in try Runner.order(Runner.Columns.name).fetchAll(db) }
            .map { runners in runners.map(\.name) }
            .removeDuplicates()
        let cancellable = observation.start(in: dbQueue, scheduling: .async(onQueue: queue)) { error in
            Issue.record("\(error)")
        } onChange: { value in
            names.append(value)
        }
        _ = names.waitFor(1)
        try dbQueue.write { db in
            try Runner(id: nil, name: "Zoe", score: 3).insert(db)
            try Runner(id: nil, name: "Al", score: 5).insert(db)
        }
        #expect(names.waitFor(2) == [[], ["Al", "Zoe"]])
        cancellable.cancel()

        let totals = Box<String>()
        // A reducer written for GRDB conforms, and works as GRDB documents its requirements.
        var reducer = RunningTotal()
        let fetched = try dbQueue.read { db in try reducer._makeFetcher().fetch(db) }
        #expect(reducer._value(fetched) == "#1: 8")
        let score = ValueObservation.trackingConstantRegion { db in
            try Runner.select(sum(Runner.Columns.score), as: Int.self).fetchOne(db) ?? 0
        }
        let scoreCancellable = score
            .handleEvents(didReceiveValue: { totals.append("score \($0)") })
            .start(in: dbQueue, scheduling: .async(onQueue: queue), onError: { _ in }, onChange: { _ in })
        #expect(totals.waitFor(1) == ["score 8"])
        scoreCancellable.cancel()
    }

    @MainActor
    @Test func mainActorAndImmediateScheduling() throws {
        let dbQueue = try makeRunners()
        var counts: [Int] = []
        let cancellable = ValueObservation
            .tracking(Runner.fetchCount)
            .start(in: dbQueue, scheduling: .immediate) { error in
                Issue.record("\(error)")
            } onChange: { count in
                counts.append(count)
            }
        #expect(counts == [0])
        cancellable.cancel()
    }

    @Test func asyncSequencesAndSharing() async throws {
        let dbQueue = try makeRunners()
        let regionObservation = ValueObservation.tracking(
            region: Runner.select(Runner.Columns.score),
            fetch: { db in try Runner.fetchCount(db) })
        for try await count in regionObservation.values(in: dbQueue, bufferingPolicy: .bufferingNewest(1)) {
            #expect(count == 0)
            break
        }
        let shared = ValueObservation
            .tracking { db in try Runner.fetchAll(db) }
            .shared(in: dbQueue, scheduling: .task, extent: .whileObserved)
        for try await runners in shared.values() {
            if runners.isEmpty {
                try await dbQueue.write { db in try Runner(id: nil, name: "Bo", score: 1).insert(db) }
            } else {
                #expect(runners.map(\.name) == ["Bo"])
                break
            }
        }
    }
}
