import Dispatch
import Foundation
import Testing
@testable import GRDBCipher

/// Races found by the review of Core: each runs many times, bounded in time.
@Suite("Concurrency races")
struct ConcurrencyRaceTests {
    /// `interrupt()` from another thread while `close()` frees the connection: the interrupt
    /// must wait for the close, then do nothing (before the fix, `sqlite3_interrupt` could read
    /// a connection SQLite was freeing).
    ///
    /// The race runs up to 10,000 times, or for 5 seconds: sanitized builds on a loaded machine
    /// are slower, and the test checks the race, not the speed. It runs on a thread of its own,
    /// and a hang fails after a minute. (Swift Testing's `.timeLimit` also counted the time the
    /// test waited for a thread of the shared pool: in a full run the body started after 85 s,
    /// and ran for 3 s.)
    @Test func interruptWhileClosing() throws {
        // Issues are counted on the thread (it runs outside the test's task) and checked here.
        let (rounds, openAfterClose) = try onNewThread(timeLimit: 60) {
            let deadline = Date().addingTimeInterval(5)
            var rounds = 0
            var openAfterClose = 0
            while rounds < 10_000, rounds < 100 || Date() < deadline {
                rounds += 1
                // In memory, unencrypted: the race is about the handle, not the key.
                let dbQueue = try DatabaseQueue()
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    if index == 0 {
                        try? dbQueue.close()
                    } else {
                        dbQueue.interrupt()
                    }
                }
                // Closed for good: accesses throw, interrupts do nothing.
                dbQueue.interrupt()
                do {
                    try dbQueue.read { _ in }
                    openAfterClose += 1
                } catch is DatabaseError {
                }
            }
            return (rounds, openAfterClose)
        }
        #expect(rounds >= 100)
        #expect(openAfterClose == 0)
    }

    /// A barrier write while writer accesses ask for concurrent reads and reads run: every
    /// access completes (before the hardening fix, the barrier held back the reader that the
    /// writer waited for, while waiting for the writer).
    @Test func barrierWritesAndConcurrentReads() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.path("pool.sqlite"), configuration: TestDatabase.configure(Configuration()))
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (0)") }
        let done = DispatchGroup()
        let failures = LockedValue(0)
        let rounds = 100
        for round in 1...rounds {
            done.enter()
            DispatchQueue.global().async {
                defer { done.leave() }
                dbPool.writeWithoutTransaction { db in
                    do {
                        try db.execute(sql: "UPDATE t SET a = ?", arguments: [round])
                    } catch {
                        failures.update { $0 += 1 }
                    }
                    done.enter()
                    dbPool.asyncConcurrentRead { dbResult in
                        defer { done.leave() }
                        // Sees the write just made, or a later one.
                        let value = (try? Int.fetchOne(dbResult.get(), sql: "SELECT a FROM t")) ?? -1
                        if value < round { failures.update { $0 += 1 } }
                    }
                }
            }
            done.enter()
            DispatchQueue.global().async {
                defer { done.leave() }
                do {
                    try dbPool.barrierWriteWithoutTransaction { db in
                        _ = try Int.fetchOne(db, sql: "SELECT a FROM t")
                    }
                } catch {
                    failures.update { $0 += 1 }
                }
            }
            done.enter()
            dbPool.asyncRead { dbResult in
                defer { done.leave() }
                if (try? Int.fetchOne(dbResult.get(), sql: "SELECT a FROM t")) == nil {
                    failures.update { $0 += 1 }
                }
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success, "deadlock: barrier writes and concurrent reads wait for each other")
        #expect(failures.read() == 0)
    }
}
