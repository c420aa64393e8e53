import Foundation
import Testing
@testable import GRDBCipher

private let schema = """
    CREATE TABLE counter (id INTEGER PRIMARY KEY, value INTEGER NOT NULL);
    INSERT INTO counter (id, value) VALUES (1, 0);
    CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
    CREATE TABLE flag (id INTEGER PRIMARY KEY, on_ INTEGER NOT NULL);
    INSERT INTO flag (id, on_) VALUES (1, 0);
    """

/// Collects what an observation notifies, and waits for it.
final class Recorder<Value: Sendable>: Sendable {
    let values = LockedValue<[Value]>([])
    let errors = LockedValue<[any Error]>([])

    func onChange(_ value: Value) { values.update { $0.append(value) } }
    func onError(_ error: any Error) { errors.update { $0.append(error) } }

    /// Waits until `condition` holds for the values (10 s at most).
    @discardableResult
    func wait(until condition: ([Value]) -> Bool) -> [Value] {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let values = values.read()
            if condition(values) { return values }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return values.read()
    }

    /// Waits without blocking a thread of the cooperative pool (for values delivered by tasks).
    @discardableResult
    func waitAsync(until condition: ([Value]) -> Bool) async throws -> [Value] {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let values = values.read()
            if condition(values) { return values }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        return values.read()
    }

    func waitForErrors(_ count: Int) -> [any Error] {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, errors.read().count < count {
            Thread.sleep(forTimeInterval: 0.002)
        }
        return errors.read()
    }
}

@Suite("ValueObservation")
struct ValueObservationTests {
    /// A queue and a pool, with the schema.
    private func makeWriters() throws -> [(String, any DatabaseWriter, TemporaryDirectory)] {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("q.sqlite"), configuration: TestDatabase.configure(Configuration()))
        let pool = try DatabasePool(path: directory.path("p.sqlite"), configuration: TestDatabase.configure(Configuration()))
        for writer in [queue as any DatabaseWriter, pool] {
            try writer.write { db in try db.execute(sql: schema) }
        }
        return [("queue", queue, directory), ("pool", pool, directory)]
    }

    private let queue = DispatchQueue(label: "ValueObservationTests")

    private func counterValue(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT value FROM counter WHERE id = 1")!
    }

    private func increment(_ writer: some DatabaseWriter) throws {
        try writer.write { db in try db.execute(sql: "UPDATE counter SET value = value + 1 WHERE id = 1") }
    }

    @Test func initialValueThenCommittedChanges() throws {
        for (name, writer, _) in try makeWriters() {
            for observation in [
                ValueObservation.tracking(counterValue),
                ValueObservation.trackingConstantRegion(counterValue),
                ValueObservation.tracking(region: Table("counter"), fetch: counterValue),
            ] {
                let recorder = Recorder<Int>()
                let cancellable = observation.start(in: writer, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
                #expect(recorder.wait { $0.count == 1 } == [0], "\(name)")
                try increment(writer)
                #expect(recorder.wait { $0.count == 2 }.last == 1, "\(name)")
                // A rolled back transaction notifies nothing; a commit elsewhere neither.
                try writer.writeWithoutTransaction { db in
                    try db.inTransaction {
                        try db.execute(sql: "UPDATE counter SET value = 100 WHERE id = 1")
                        return .rollback
                    }
                }
                try writer.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('elsewhere')") }
                try increment(writer)
                let values = recorder.wait { $0.count == 3 }
                #expect(values == [0, 1, 2], "\(name)")
                cancellable.cancel()
                try writer.write { db in try db.execute(sql: "UPDATE counter SET value = 0") }
            }
        }
    }

    @MainActor
    @Test func immediateSchedulingNotifiesTheInitialValueBeforeStartReturns() throws {
        for (name, writer, _) in try makeWriters() {
            var received: [Int] = []
            let cancellable = ValueObservation.tracking(counterValue).start(in: writer, scheduling: .immediate) { error in
                Issue.record("unexpected \(error)")
            } onChange: { value in
                received.append(value)
            }
            #expect(received == [0], "\(name)")
            cancellable.cancel()
        }
    }

    @MainActor
    @Test func defaultSchedulingIsTheMainActorAsynchronously() async throws {
        let test = try TestDatabase()
        try await test.dbQueue.write { db in try db.execute(sql: schema) }
        var received: [Int] = []
        var onMainThread = true
        let cancellable = ValueObservation.tracking(counterValue).start(in: test.dbQueue) { error in
            Issue.record("unexpected \(error)")
        } onChange: { value in
            onMainThread = onMainThread && isOnMainQueue()
            received.append(value)
        }
        // Asynchronous: nothing yet.
        #expect(received.isEmpty)
        let deadline = Date().addingTimeInterval(10)
        while received.count < 1, Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
        try await test.dbQueue.write { db in try db.execute(sql: "UPDATE counter SET value = 5") }
        while received.count < 2, Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(received == [0, 5])
        #expect(onMainThread)
        cancellable.cancel()
    }

    @Test func taskSchedulerKeepsTheOrder() async throws {
        let test = try TestDatabase()
        try await test.dbQueue.write { db in try db.execute(sql: schema) }
        for scheduler in [TaskValueObservationScheduler.task, .task(priority: .low)] {
            try await test.dbQueue.write { db in try db.execute(sql: "UPDATE counter SET value = 0") }
            let recorder = Recorder<Int>()
            let cancellable = ValueObservation.tracking(counterValue)
                .start(in: test.dbQueue, scheduling: scheduler, onError: recorder.onError, onChange: recorder.onChange)
            // The values come in tasks: wait without holding a thread of the cooperative pool.
            try await recorder.waitAsync { $0.count == 1 }
            for _ in 0..<100 { try increment(test.dbQueue) }
            let values = try await recorder.waitAsync { $0.last == 100 }
            // One fetch per commit on a queue: every value, in order.
            #expect(values == Array(0...100))
            cancellable.cancel()
        }
    }

    @Test func bufferingPolicyOfTheAsyncSequence() async throws {
        /// Runs each action at once, and counts them: the values are in the stream's buffer
        /// when `delivered` is incremented.
        final class CountingScheduler: ValueObservationScheduler {
            let delivered = LockedValue(0)
            func immediateInitialValue() -> Bool { false }
            func schedule(_ action: @escaping @Sendable () -> Void) {
                action()
                delivered.update { $0 += 1 }
            }
        }
        let test = try TestDatabase()
        try await test.dbQueue.write { db in try db.execute(sql: schema) }
        for (policy, expected) in [
            (AsyncValueObservation<Int>.BufferingPolicy.bufferingNewest(1), [0, 5]),
            (.bufferingOldest(2), [0, 1, 2]),
            (.unbounded, [0, 1, 2, 3, 4, 5]),
        ] {
            try await test.dbQueue.write { db in try db.execute(sql: "UPDATE counter SET value = 0") }
            let scheduler = CountingScheduler()
            var iterator = ValueObservation.tracking(counterValue)
                .values(in: test.dbQueue, scheduling: scheduler, bufferingPolicy: policy)
                .makeAsyncIterator()
            var received = [try await iterator.next()!]
            for _ in 0..<5 { try increment(test.dbQueue) }
            let deadline = Date().addingTimeInterval(10)
            while scheduler.delivered.read() < 6, Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
            for _ in 1..<expected.count { received.append(try await iterator.next()!) }
            #expect(received == expected, "\(policy)")
        }
    }

    @MainActor
    @Test func anImmediateStartInsideARolledBackTransactionFetchesAgain() async throws {
        struct Abort: Error {}
        let test = try TestDatabase()
        var received: [Int] = []
        // Synchronous accesses, in a synchronous function.
        func startInsideATransactionThatRollsBack() throws -> AnyDatabaseCancellable? {
            try test.dbQueue.write { db in try db.execute(sql: schema) }
            var cancellable: AnyDatabaseCancellable?
            do {
                try test.dbQueue.write { db in
                    try db.execute(sql: "UPDATE counter SET value = 9")
                    cancellable = ValueObservation.tracking(counterValue).start(in: test.dbQueue, scheduling: .immediate) { error in
                        Issue.record("unexpected \(error)")
                    } onChange: { value in
                        received.append(value)
                    }
                    throw Abort()
                }
            } catch is Abort {}
            return cancellable
        }
        let cancellable = try startInsideATransactionThatRollsBack()
        #expect(received == [9])
        // The first value showed the change that the rollback undid: a fresh value follows.
        let deadline = Date().addingTimeInterval(10)
        while received.count < 2, Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(received == [9, 0])
        cancellable?.cancel()
    }

    @Test func aFetchInASavepointDoesNotRepeatAfterNextTransaction() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        var observation = ValueObservation.tracking(counterValue)
        observation.requiresWriteAccess = true
        let recorder = Recorder<Int>()
        let cancellable = observation.start(in: test.dbQueue, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
        recorder.wait { $0.count == 1 }
        let commits = LockedValue(0)
        try test.dbQueue.write { db in
            db.afterNextTransaction { _ in commits.update { $0 += 1 } }
            try db.execute(sql: "UPDATE counter SET value = 4")
        }
        #expect(recorder.wait { $0.count == 2 } == [0, 4])
        #expect(commits.read() == 1)
        cancellable.cancel()
    }

    @Test func valuesNeverGoBackInTimeAndTheLastCommitIsSeen() throws {
        for (name, writer, _) in try makeWriters() {
            for observation in [ValueObservation.tracking(counterValue), ValueObservation.trackingConstantRegion(counterValue)] {
                try writer.write { db in try db.execute(sql: "UPDATE counter SET value = 0") }
                let recorder = Recorder<Int>()
                let cancellable = observation.start(in: writer, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
                for _ in 0..<1000 {
                    try increment(writer)
                }
                let values = recorder.wait { $0.last == 1000 }
                #expect(values.last == 1000, "\(name)")
                #expect(values == values.sorted(), "\(name): \(values.prefix(20))")
                #expect(values.count <= 1001, "\(name)")
                #expect(recorder.errors.read().isEmpty)
                cancellable.cancel()
            }
        }
    }

    @Test func aRegionThatDependsOnFetchedValuesIsTrackedAgain() throws {
        for (name, writer, _) in try makeWriters() {
            // Reads `note` only when the flag is on.
            let fetch: @Sendable (Database) throws -> Int = { db in
                let on = try Int.fetchOne(db, sql: "SELECT on_ FROM flag WHERE id = 1")!
                return on == 0 ? -1 : try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note")!
            }
            for constant in [false, true] {
                try writer.write { db in
                    try db.execute(sql: "UPDATE flag SET on_ = 0; DELETE FROM note")
                }
                let regions = LockedValue<[String]>([])
                let observation = (constant ? ValueObservation.trackingConstantRegion(fetch) : ValueObservation.tracking(fetch))
                    .handleEvents(willTrackRegion: { region in regions.update { $0.append(region.description) } })
                let recorder = Recorder<Int>()
                let cancellable = observation.start(in: writer, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
                #expect(recorder.wait { $0.count == 1 } == [-1])
                try writer.write { db in try db.execute(sql: "UPDATE flag SET on_ = 1") }
                #expect(recorder.wait { $0.count == 2 } == [-1, 0])
                try writer.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('a')") }
                try increment(writer) // unrelated: a sentinel commit
                try writer.write { db in try db.execute(sql: "UPDATE flag SET on_ = 2") }
                let values = recorder.wait { $0.count == (constant ? 3 : 4) }
                if constant {
                    // The first region only: the note insert was not seen, the flag change was.
                    #expect(values == [-1, 0, 1], "\(name)")
                    // Raw SQL regions are table-level.
                    #expect(regions.read() == ["flag(id,on_)"], "\(name)")
                } else {
                    #expect(values == [-1, 0, 1, 1], "\(name)")
                    #expect(regions.read() == ["flag(id,on_)", "flag(id,on_),note(*)"], "\(name)")
                }
                cancellable.cancel()
            }
        }
    }

    @Test func prefetchedAssociationsAreTracked() throws {
        struct Author: TableRecord, FetchableRecord, Decodable, Equatable {
            static let books = hasMany(Book.self)
            var id: Int64
            var name: String
        }
        struct Book: TableRecord, FetchableRecord, Decodable, Equatable {
            var id: Int64
            var authorId: Int64
            var title: String
        }
        struct AuthorInfo: FetchableRecord, Decodable, Equatable {
            var author: Author
            var books: [Book]
        }
        for (name, writer, _) in try makeWriters() {
            try writer.write { db in
                try db.execute(sql: """
                    CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id), title TEXT NOT NULL);
                    INSERT INTO author (id, name) VALUES (1, 'Le Guin');
                    """)
            }
            let recorder = Recorder<[Int]>()
            let cancellable = ValueObservation
                .tracking { db in
                    try Author.including(all: Author.books).asRequest(of: AuthorInfo.self).fetchAll(db).map(\.books.count)
                }
                .start(in: writer, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
            #expect(recorder.wait { $0.count == 1 } == [[0]], "\(name)")
            // A change of the prefetched table only: the prefetch query's region is tracked.
            try writer.write { db in try db.execute(sql: "INSERT INTO book (authorId, title) VALUES (1, 'Lathe of Heaven')") }
            #expect(recorder.wait { $0.count == 2 } == [[0], [1]], "\(name)")
            #expect(recorder.errors.read().isEmpty)
            cancellable.cancel()
        }
    }

    @Test func trackingRegionFetchesOnlyWhenTheRegionChanges() throws {
        for (name, writer, _) in try makeWriters() {
            let fetches = LockedValue(0)
            let observation = ValueObservation.tracking(
                region: Table("note"), Table("flag"),
                fetch: { db in try counterValue(db) })
                .handleEvents(willFetch: { fetches.update { $0 += 1 } })
            let recorder = Recorder<Int>()
            let cancellable = observation.start(in: writer, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
            recorder.wait { $0.count == 1 }
            try increment(writer) // not in the region
            try writer.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('b')") }
            #expect(recorder.wait { $0.count == 2 } == [0, 1], "\(name)")
            #expect(fetches.read() == 2)
            cancellable.cancel()
        }
    }

    @Test func anErrorEndsTheObservation() throws {
        struct Failure: Error {}
        for (name, writer, _) in try makeWriters() {
            let fetches = LockedValue(0)
            let didCancel = LockedValue(false)
            let observation = ValueObservation.tracking { db -> Int in
                let value = try counterValue(db)
                if value == 1 { throw Failure() }
                return value
            }.handleEvents(willFetch: { fetches.update { $0 += 1 } }, didCancel: { didCancel.write(true) })
            let recorder = Recorder<Int>()
            let cancellable = observation.start(in: writer, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
            recorder.wait { $0.count == 1 }
            try increment(writer)
            let errors = recorder.waitForErrors(1)
            #expect(errors.count == 1 && errors.first is Failure, "\(name)")
            // The observer is gone: later commits fetch nothing (the fetches of this
            // observation run on the writer, synchronously after the commit).
            try increment(writer)
            try increment(writer)
            writer.writeWithoutTransaction { db in #expect(!db.hooks.hasObservers, "\(name)") }
            #expect(fetches.read() == 2, "\(name)")
            #expect(recorder.values.read() == [0], "\(name)")
            #expect(recorder.errors.read().count == 1, "\(name)")
            // Cancelling after an error tells no cancellation.
            cancellable.cancel()
            #expect(!didCancel.read())
        }
    }

    /// On a pool, the fetches of constant-region observations that wait together run together
    /// in one reader: a failing one ends its own observation only, the others go on, and each
    /// ends on the last commit.
    @Test func poolObservationsFetchedTogetherFailAlone() throws {
        struct Failure: Error {}
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("batch.sqlite"), configuration: TestDatabase.configure(Configuration()))
        try pool.write { db in try db.execute(sql: schema) }
        let failing = ValueObservation.trackingConstantRegion { db -> Int in
            let value = try counterValue(db)
            if value >= 3 { throw Failure() }
            return value
        }
        let failingRecorder = Recorder<Int>()
        let failingCancellable = failing.start(in: pool, scheduling: .async(onQueue: queue), onError: failingRecorder.onError, onChange: failingRecorder.onChange)
        let recorders = (0..<6).map { _ in Recorder<Int>() }
        let cancellables = recorders.enumerated().map { index, recorder in
            ValueObservation.trackingConstantRegion { db in try counterValue(db) + 1000 * index }
                .start(in: pool, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
        }
        for _ in 0..<200 {
            try increment(pool)
        }
        for (index, recorder) in recorders.enumerated() {
            let values = recorder.wait { $0.last == 200 + 1000 * index }
            #expect(values.last == 200 + 1000 * index)
            #expect(values == values.sorted())
            #expect(recorder.errors.read().isEmpty)
        }
        let errors = failingRecorder.waitForErrors(1)
        #expect(errors.count == 1 && errors.first is Failure)
        #expect(failingRecorder.values.read().allSatisfy { $0 < 3 })
        // After the failure, the others still hear of commits.
        try increment(pool)
        for (index, recorder) in recorders.enumerated() {
            #expect(recorder.wait { $0.last == 201 + 1000 * index }.last == 201 + 1000 * index)
        }
        failingCancellable.cancel()
        cancellables.forEach { $0.cancel() }
    }

    @Test func aFailingInitialFetchGoesToOnError() throws {
        for (name, writer, _) in try makeWriters() {
            let recorder = Recorder<Int>()
            let cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT nope FROM counter") ?? 0 }
                .start(in: writer, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
            let errors = recorder.waitForErrors(1)
            #expect((errors.first as? DatabaseError)?.resultCode == .SQLITE_ERROR, "\(name)")
            #expect(recorder.values.read().isEmpty)
            cancellable.cancel()
        }
    }

    @Test func mapAndRemoveDuplicates() throws {
        for (name, writer, _) in try makeWriters() {
            let observation = ValueObservation.tracking(counterValue)
                .map { $0 / 2 }
                .removeDuplicates()
                .map { "half: \($0)" }
            let recorder = Recorder<String>()
            let cancellable = observation.start(in: writer, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
            recorder.wait { $0.count == 1 }
            for _ in 0..<4 {
                try increment(writer)
            }
            let values = recorder.wait { $0.last == "half: 2" }
            #expect(values == ["half: 0", "half: 1", "half: 2"], "\(name)")
            cancellable.cancel()
        }
    }

    @Test func removeDuplicatesByPredicateAndThrowingMap() throws {
        struct Odd: Error {}
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        let recorder = Recorder<Int>()
        let cancellable = ValueObservation.tracking(counterValue)
            .removeDuplicates(by: { a, b in a / 10 == b / 10 })
            .map { value -> Int in
                if value >= 20 { throw Odd() }
                return value
            }
            .start(in: test.dbQueue, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
        recorder.wait { $0.count == 1 }
        try test.dbQueue.write { db in try db.execute(sql: "UPDATE counter SET value = 5") }
        try test.dbQueue.write { db in try db.execute(sql: "UPDATE counter SET value = 12") }
        #expect(recorder.wait { $0.count == 2 } == [0, 12])
        try test.dbQueue.write { db in try db.execute(sql: "UPDATE counter SET value = 25") }
        #expect(recorder.waitForErrors(1).first is Odd)
        cancellable.cancel()
    }

    @Test func printTellsTheEvents() throws {
        // As GRDB (OBS-3): one write per event, without a newline.
        final class Events: TextOutputStream, @unchecked Sendable {
            var events: [String] = []
            let lock = NSLock()
            func write(_ string: String) { lock.lock(); events.append(string); lock.unlock() }
        }
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        let events = Events()
        let recorder = Recorder<Int>()
        let cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note")! }
            .print("notes", to: events)
            .start(in: test.dbQueue, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
        recorder.wait { $0.count == 1 }
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO note (text) VALUES ('c')") }
        recorder.wait { $0.count == 2 }
        cancellable.cancel()
        #expect(events.events == [
            "notes: start",
            "notes: fetch",
            "notes: tracked region: note(*)",
            "notes: value: 0",
            "notes: database did change",
            "notes: fetch",
            "notes: value: 1",
            "notes: cancel",
        ])
    }

    @Test func printOnAReadOnlyDatabaseTracksNoRegion() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        var configuration = Configuration()
        configuration.readonly = true
        let readOnly = try test.makeQueue(configuration: configuration)
        final class Events: TextOutputStream, @unchecked Sendable {
            var events: [String] = []
            let lock = NSLock()
            func write(_ string: String) { lock.lock(); events.append(string); lock.unlock() }
        }
        let events = Events()
        let recorder = Recorder<Int>()
        let cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note")! }
            .print(to: events)
            .start(in: readOnly, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
        #expect(recorder.wait { $0.count == 1 } == [0])
        cancellable.cancel()
        #expect(!events.events.contains { $0.hasPrefix("tracked region") })
        #expect(events.events.prefix(3) == ["start", "fetch", "value: 0"])
    }

    @Test func cancellingStopsFetchesAndReleasesTheConnection() throws {
        let directory = try TemporaryDirectory()
        weak var weakQueue: DatabaseQueue?
        let fetches = LockedValue(0)
        let recorder = Recorder<Int>()
        do {
            let dbQueue = try DatabaseQueue(path: directory.path("db.sqlite"), configuration: TestDatabase.configure(Configuration()))
            weakQueue = dbQueue
            try dbQueue.write { db in try db.execute(sql: schema) }
            let cancellable = ValueObservation.tracking(counterValue)
                .handleEvents(willFetch: { fetches.update { $0 += 1 } })
                .start(in: dbQueue, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
            recorder.wait { $0.count == 1 }
            cancellable.cancel()
            try increment(dbQueue)
            try dbQueue.write { db in
                // The observer is gone.
                #expect(!db.hooks.hasObservers)
            }
            #expect(fetches.read() == 1)
        }
        let deadline = Date().addingTimeInterval(5)
        while weakQueue != nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(weakQueue == nil)
        #expect(recorder.values.read() == [0])
    }

    @Test func deallocatingTheCancellableCancels() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        let recorder = Recorder<Int>()
        let fetches = LockedValue(0)
        var cancellable: AnyDatabaseCancellable? = ValueObservation.tracking(counterValue)
            .handleEvents(willFetch: { fetches.update { $0 += 1 } })
            .start(in: test.dbQueue, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
        recorder.wait { $0.count == 1 }
        _ = cancellable
        cancellable = nil
        try increment(test.dbQueue)
        try test.dbQueue.read { db in #expect(!db.hooks.hasObservers) }
        #expect(fetches.read() == 1)
        #expect(recorder.values.read() == [0])
    }

    @Test func poolFetchesOfAConstantRegionNeverBlockTheWriter() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("p.sqlite"), configuration: TestDatabase.configure(Configuration()))
        try pool.write { db in try db.execute(sql: schema) }
        let gate = DispatchSemaphore(value: 0)
        let fetches = LockedValue(0)
        let recorder = Recorder<Int>()
        let cancellable = ValueObservation.trackingConstantRegion { db -> Int in
            let count = fetches.update { $0 += 1; return $0 }
            // The second fetch (after the first change) waits for the gate.
            if count == 2 { gate.wait() }
            return try counterValue(db)
        }
        .start(in: pool, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
        recorder.wait { $0.count == 1 }
        try increment(pool)
        // The fetch waits; the writer goes on.
        for _ in 0..<5 { try increment(pool) }
        #expect(try pool.read(counterValue) == 6)
        gate.signal()
        let values = recorder.wait { $0.last == 6 }
        #expect(values.first == 0 && values.last == 6 && values == values.sorted())
        cancellable.cancel()
    }

    @Test func requiresWriteAccessFetchesInAWriteAccess() throws {
        for (name, writer, _) in try makeWriters() {
            var observation = ValueObservation.tracking { db -> Int in
                try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS scratch (x); DELETE FROM scratch")
                try db.execute(sql: "INSERT INTO scratch SELECT value FROM counter")
                return try Int.fetchOne(db, sql: "SELECT SUM(x) FROM scratch")!
            }
            observation.requiresWriteAccess = true
            let recorder = Recorder<Int>()
            let cancellable = observation.start(in: writer, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
            #expect(recorder.wait { $0.count == 1 } == [0], "\(name)")
            try increment(writer)
            #expect(recorder.wait { $0.count == 2 } == [0, 1], "\(name)")
            #expect(recorder.errors.read().isEmpty, "\(name)")
            cancellable.cancel()
        }
        // Without write access, the fetch cannot write.
        let test = try TestDatabase()
        let recorder = Recorder<Int>()
        let cancellable = ValueObservation.tracking { db -> Int in
            try db.execute(sql: "CREATE TABLE scratch (x)")
            return 0
        }.start(in: test.dbQueue, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
        #expect((recorder.waitForErrors(1).first as? DatabaseError)?.resultCode == .SQLITE_READONLY)
        cancellable.cancel()
    }

    @Test func aSnapshotGivesOneValue() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("p.sqlite"), configuration: TestDatabase.configure(Configuration()))
        try pool.write { db in try db.execute(sql: schema) }
        let snapshot = try pool.makeSnapshot()
        let recorder = Recorder<Int>()
        let cancellable = ValueObservation.tracking(counterValue)
            .start(in: snapshot, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
        #expect(recorder.wait { $0.count == 1 } == [0])
        // Nothing observes the pool's writer: a commit there tells nobody.
        try increment(pool)
        pool.writeWithoutTransaction { db in #expect(!db.hooks.hasObservers) }
        #expect(recorder.values.read() == [0])
        cancellable.cancel()
    }

    @Test func notifyChangesTriggersAFetch() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        let recorder = Recorder<Int>()
        let cancellable = ValueObservation.tracking(counterValue)
            .start(in: test.dbQueue, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
        recorder.wait { $0.count == 1 }
        try test.dbQueue.write { db in try db.notifyChanges(in: Table("counter")) }
        #expect(recorder.wait { $0.count == 2 } == [0, 0])
        cancellable.cancel()
    }

    @Test func externalCommitsAreNoticedOnlyWhenAsked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let configuration = TestDatabase.configure(Configuration())
        let service = try DatabaseQueue(path: path, configuration: configuration)
        try service.write { db in try db.execute(sql: schema) }
        // Another connection to the same file: a migration job, a command-line tool.
        let other = try DatabaseQueue(path: path, configuration: configuration)

        let plainFetches = LockedValue(0)
        let plain = Recorder<Int>()
        let plainCancellable = ValueObservation.tracking(counterValue)
            .handleEvents(willFetch: { plainFetches.update { $0 += 1 } })
            .start(in: service, scheduling: .async(onQueue: queue), onError: plain.onError, onChange: plain.onChange)
        let polling = Recorder<Int>()
        let pollingCancellable = ValueObservation.tracking(counterValue)
            .observingExternalChanges(every: 0.02)
            .start(in: service, scheduling: .async(onQueue: queue), onError: polling.onError, onChange: polling.onChange)
        plain.wait { $0.count == 1 }
        polling.wait { $0.count == 1 }

        try increment(other)
        #expect(polling.wait { $0.count == 2 } == [0, 1])
        try increment(other)
        #expect(polling.wait { $0.count == 3 } == [0, 1, 2])
        // The service's own commits are told as usual, once.
        try increment(service)
        #expect(polling.wait { $0.count == 4 } == [0, 1, 2, 3])
        #expect(polling.errors.read().isEmpty)
        // GRDB's behaviour by default: the other connection's commits are not seen.
        #expect(plainFetches.read() == 2)
        #expect(plain.wait { $0.count == 2 } == [0, 3])
        plainCancellable.cancel()
        pollingCancellable.cancel()
    }

    @Test func poolObservationsKeepDeliveringAfterAPassphraseChange() throws {
        let directory = try TemporaryDirectory()
        // As GRDB documents: new connections read the current passphrase.
        let passphrase = LockedValue("first passphrase")
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.usePassphrase(passphrase.read()) }
        let pool = try DatabasePool(path: directory.path("pool.sqlite"), configuration: configuration)
        try pool.write { db in try db.execute(sql: schema) }
        for observation in [ValueObservation.tracking(counterValue), ValueObservation.trackingConstantRegion(counterValue)] {
            let recorder = Recorder<Int>()
            let cancellable = observation.start(in: pool, scheduling: .async(onQueue: queue), onError: recorder.onError, onChange: recorder.onChange)
            let first = try #require(recorder.wait { $0.count == 1 }.first)
            passphrase.write("second passphrase \(first)")
            try pool.changePassphrase(passphrase.read())
            try increment(pool)
            try increment(pool)
            // Readers reopen with the new key: the observation goes on.
            #expect(recorder.wait { $0.last == first + 2 }.last == first + 2)
            #expect(recorder.errors.read().isEmpty)
            cancellable.cancel()
        }
        #expect(try pool.read(counterValue) == 4)
    }

    @Test func asyncSequenceOfValues() async throws {
        for (name, writer, _) in try makeWriters() {
            let observation = ValueObservation.tracking(counterValue)
            let task = Task {
                var received: [Int] = []
                for try await value in observation.values(in: writer) {
                    received.append(value)
                    if value == 0 { try increment(writer) }
                    if value == 1 { break }
                }
                return received
            }
            let received = try await task.value
            #expect(received == [0, 1], "\(name)")
            // Leaving the loop stopped the observation.
            try await waitUntilNoObserver(writer)
        }
    }

    @Test func cancellingTheIteratingTaskStopsTheObservation() async throws {
        let test = try TestDatabase()
        try await test.dbQueue.write { db in try db.execute(sql: schema) }
        let started = LockedValue(false)
        let task = Task {
            for try await _ in ValueObservation.tracking(counterValue).values(in: test.dbQueue) {
                started.write(true)
            }
        }
        while !started.read() { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        _ = await task.result
        try await waitUntilNoObserver(test.dbQueue)
    }

    @Test func asyncSequenceThrowsTheObservationError() async throws {
        let test = try TestDatabase()
        do {
            for try await _ in ValueObservation.tracking({ db in try Int.fetchOne(db, sql: "SELECT * FROM missing") }).values(in: test.dbQueue) {
                Issue.record("no value expected")
            }
            Issue.record("expected an error")
        } catch let error as DatabaseError {
            #expect(error.resultCode == .SQLITE_ERROR)
            #expect(error.message == "no such table: missing")
        }
    }
}

/// The observer of a stopped observation is removed by an asynchronous write access: waits for
/// it (10 s at most).
private func waitUntilNoObserver(_ writer: some DatabaseWriter) async throws {
    let deadline = Date().addingTimeInterval(10)
    while try await writer.writeWithoutTransaction({ db in db.hooks.hasObservers }), Date() < deadline {
        try await Task.sleep(nanoseconds: 1_000_000)
    }
    let remains = try await writer.writeWithoutTransaction { db in db.hooks.hasObservers }
    #expect(!remains)
}

/// Holds the actions until the test runs them.
final class ManualScheduler: ValueObservationScheduler {
    let actions = LockedValue<[@Sendable () -> Void]>([])
    func immediateInitialValue() -> Bool { false }
    func schedule(_ action: @escaping @Sendable () -> Void) { actions.update { $0.append(action) } }
    func waitForActions(_ count: Int) {
        let deadline = Date().addingTimeInterval(10)
        while actions.read().count < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
    }
    func runAll() {
        for action in actions.update({ actions in defer { actions = [] }; return actions }) { action() }
    }
}

@Suite("SharedValueObservation")
struct SharedValueObservationTests {
    private let queue = DispatchQueue(label: "SharedValueObservationTests")

    @Test func clientsShareOneFetchPerChange() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        let fetches = LockedValue(0)
        let shared = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT value FROM counter")! }
            .handleEvents(willFetch: { fetches.update { $0 += 1 } })
            .shared(in: test.dbQueue, scheduling: .async(onQueue: queue))
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        let c1 = shared.start(onError: first.onError, onChange: first.onChange)
        first.wait { $0.count == 1 }
        // The second client gets the latest value without a fetch.
        let c2 = shared.start(onError: second.onError, onChange: second.onChange)
        #expect(second.wait { $0.count == 1 } == [0])
        #expect(fetches.read() == 1)
        try test.dbQueue.write { db in try db.execute(sql: "UPDATE counter SET value = 7") }
        #expect(first.wait { $0.count == 2 } == [0, 7])
        #expect(second.wait { $0.count == 2 } == [0, 7])
        #expect(fetches.read() == 2)
        c1.cancel()
        c2.cancel()
        // whileObserved: the observation stopped with its last client.
        try test.dbQueue.write { db in #expect(!db.hooks.hasObservers) }
        // A new client starts a new observation.
        let third = Recorder<Int>()
        let c3 = shared.start(onError: third.onError, onChange: third.onChange)
        #expect(third.wait { $0.count == 1 } == [7])
        #expect(fetches.read() == 3)
        c3.cancel()
    }

    @Test func aJoiningClientNeverGetsAnOlderValueAfterANewerOne() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        let scheduler = ManualScheduler()
        let shared = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT value FROM counter")! }
            .shared(in: test.dbQueue, scheduling: scheduler)
        let first = Recorder<Int>()
        let c1 = shared.start(onError: first.onError, onChange: first.onChange)
        scheduler.waitForActions(1)
        scheduler.runAll()
        #expect(first.values.read() == [0])
        // A new value is on its way when the second client joins: the latest value given to
        // the joining client (0) is scheduled after the newer one (3).
        try test.dbQueue.write { db in try db.execute(sql: "UPDATE counter SET value = 3") }
        scheduler.waitForActions(1)
        let second = Recorder<Int>()
        let c2 = shared.start(onError: second.onError, onChange: second.onChange)
        scheduler.waitForActions(2)
        scheduler.runAll()
        #expect(first.values.read() == [0, 3])
        #expect(second.values.read() == [3])
        c1.cancel()
        c2.cancel()
    }

    @Test func aClientThatCancelsGetsNothingMore() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        let scheduler = ManualScheduler()
        let shared = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT value FROM counter")! }
            .shared(in: test.dbQueue, scheduling: scheduler)
        let first = Recorder<Int>()
        let c1 = shared.start(onError: first.onError, onChange: first.onChange)
        scheduler.waitForActions(1)
        scheduler.runAll()
        // The second client joins (its latest value is scheduled), then cancels at once.
        let second = Recorder<Int>()
        let c2 = shared.start(onError: second.onError, onChange: second.onChange)
        c2.cancel()
        scheduler.runAll()
        #expect(second.values.read().isEmpty)
        #expect(first.values.read() == [0])
        c1.cancel()
    }

    @Test func clientsKeepTheSharedObservationAlive() async throws {
        let test = try TestDatabase()
        try await test.dbQueue.write { db in try db.execute(sql: schema) }
        var received: [Int] = []
        // Nothing but the iteration holds the shared observation.
        for try await value in ValueObservation.tracking({ db in try Int.fetchOne(db, sql: "SELECT value FROM counter")! })
            .shared(in: test.dbQueue, scheduling: .task)
            .values()
        {
            received.append(value)
            if value == 0 {
                try await test.dbQueue.write { db in try db.execute(sql: "UPDATE counter SET value = 2") }
            } else {
                break
            }
        }
        #expect(received == [0, 2])
    }

    @Test func observationLifetimeKeepsObserving() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        let shared = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT value FROM counter")! }
            .shared(in: test.dbQueue, scheduling: .async(onQueue: queue), extent: .observationLifetime)
        let first = Recorder<Int>()
        let c1 = shared.start(onError: first.onError, onChange: first.onChange)
        first.wait { $0.count == 1 }
        c1.cancel()
        try test.dbQueue.write { db in try db.execute(sql: "UPDATE counter SET value = 3") }
        try test.dbQueue.write { db in #expect(db.hooks.hasObservers) }
        let second = Recorder<Int>()
        let c2 = shared.start(onError: second.onError, onChange: second.onChange)
        #expect(second.wait { $0.last == 3 }.last == 3)
        c2.cancel()
    }

    @Test func sharedValuesAsAnAsyncSequence() async throws {
        let test = try TestDatabase()
        try await test.dbQueue.write { db in try db.execute(sql: schema) }
        let shared = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT value FROM counter")! }
            .shared(in: test.dbQueue, scheduling: .task)
        var received: [Int] = []
        for try await value in shared.values() {
            received.append(value)
            if value == 0 {
                try await test.dbQueue.write { db in try db.execute(sql: "UPDATE counter SET value = 1") }
            } else {
                break
            }
        }
        #expect(received == [0, 1])
    }
}
