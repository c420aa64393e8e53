import Foundation
import Testing
@testable import GRDBCipher

// Observers that write from their own callbacks (TXO-3) and shared observations started from a
// client's callback (OBS-4) recursed until the stack overflowed. GRDB 7.10's behaviour, checked
// with tools/grdb-probe: the `.nextTransaction` observer hears of its transaction only; the
// second client joins the observation being started.

/// Runs a cleanup transaction from `databaseDidCommit`.
private final class OutboxCleanup: TransactionObserver, @unchecked Sendable {
    var commits = 0
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) {
        commits += 1
        try? db.inTransaction {
            try db.execute(sql: "DELETE FROM outbox WHERE sent")
            return .commit
        }
    }
    func databaseDidRollback(_ db: Database) {}
}

/// Counts the commits it hears of.
private final class CommitCounter: TransactionObserver, @unchecked Sendable {
    var commits = 0
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { commits += 1 }
    func databaseDidRollback(_ db: Database) {}
}

@Suite("Observers that write from their callbacks")
struct ObserverRecursionTests {
    @Test func nextTransactionObserverThatWritesHearsOfItsTransactionOnly() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE outbox(id INTEGER PRIMARY KEY, sent BOOLEAN)") }
        let cleanup = OutboxCleanup()
        let counter = CommitCounter()
        test.dbQueue.add(transactionObserver: cleanup, extent: .nextTransaction)
        test.dbQueue.add(transactionObserver: counter, extent: .observerLifetime)
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO outbox(sent) VALUES (1)") }
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO outbox(sent) VALUES (1)") }
        #expect(cleanup.commits == 1)
        // The other observer heard of the two writes and of the cleanup transaction.
        #expect(counter.commits == 3)
        // The cleanup ran after the first write only.
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM outbox") } == 1)
    }

    @Test func afterNextTransactionThatWrites() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE log(event TEXT)") }
        final class Calls: @unchecked Sendable { var count = 0 }
        let calls = Calls()
        try test.dbQueue.write { db in
            db.afterNextTransaction { db in
                calls.count += 1
                try? db.execute(sql: "INSERT INTO log VALUES ('after commit')")
            }
            try db.execute(sql: "INSERT INTO log VALUES ('write')")
        }
        #expect(calls.count == 1)
        #expect(try test.dbQueue.read { try String.fetchAll($0, sql: "SELECT event FROM log ORDER BY rowid") } == ["write", "after commit"])
    }

    @Test func sharedObservationClientStartedFromAnImmediateCallback() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY)") }
        let shared = ValueObservation.tracking { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM note")! }
            .shared(in: test.dbQueue, scheduling: .immediate)
        final class Log: @unchecked Sendable {
            var values: [String] = []
            var inner: AnyDatabaseCancellable?
            var starts = 0
        }
        let log = Log()
        let first = shared.start(onError: { _ in }, onChange: { value in
            log.values.append("first \(value)")
            log.starts += 1
            if log.starts == 1 {
                log.inner = shared.start(onError: { _ in }, onChange: { value in log.values.append("second \(value)") })
            }
        })
        // The second client joined the observation being started, and got its value once.
        #expect(log.values == ["first 0", "second 0"])
        #expect(log.starts == 1)
        first.cancel()
        log.inner?.cancel()
    }

    @MainActor
    @Test func writeFromTheInitialFetchOfAPoolObservation() throws {
        // OBS-5: the initial fetch runs in the writer; a write from it throws (it stopped the
        // program with "Database methods are not reentrant").
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { try $0.execute(sql: "CREATE TABLE visit(id INTEGER PRIMARY KEY)") }
        let observation = ValueObservation.trackingConstantRegion { db -> Int in
            try dbPool.write { try $0.execute(sql: "INSERT INTO visit DEFAULT VALUES") }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visit")!
        }
        final class Outcome: @unchecked Sendable { var error: (any Error)?; var values: [Int] = [] }
        let outcome = Outcome()
        let cancellable = observation.start(
            in: dbPool, scheduling: .immediate,
            onError: { outcome.error = $0 },
            onChange: { outcome.values.append($0) })
        defer { cancellable.cancel() }
        #expect(outcome.values.isEmpty)
        let error = try #require(outcome.error as? DatabaseError)
        #expect(error.resultCode == .SQLITE_MISUSE)
        #expect(error.message?.contains("can not write from its initial fetch") == true)
        // The pool works on.
        try dbPool.write { try $0.execute(sql: "INSERT INTO visit DEFAULT VALUES") }
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM visit") } == 1)
    }
}
