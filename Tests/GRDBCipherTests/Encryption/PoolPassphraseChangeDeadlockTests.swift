import Dispatch
import Foundation
import Testing
@testable import GRDBCipher

/// The load of issue 19: `changePassphrase` on a pool (a barrier) while the writer, in a write
/// access, asks for a reader with `asyncConcurrentRead`, and a read is in progress.
@Suite("Encrypted pools: passphrase change under load")
struct PoolPassphraseChangeDeadlockTests {
    /// The interleaving that hung: a read is in progress; the passphrase change starts (and,
    /// before the fix, held back new reads while it waited for the writer); the writer, busy,
    /// then asks for a concurrent read; the read in progress ends. The change must complete,
    /// and so must the concurrent read.
    @Test func changePassphraseWhileTheWriterWaitsForAReader() throws {
        let directory = try TemporaryDirectory()
        let passphrase = PassphraseSource("old secret")
        let dbPool = try PoolEncryptionTests.makePool(directory, passphrase)
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }

        let readStarted = DispatchSemaphore(value: 0)
        let endRead = DispatchSemaphore(value: 0)
        let writerStarted = DispatchSemaphore(value: 0)
        let changeStarted = DispatchSemaphore(value: 0)
        let everythingDone = DispatchGroup()

        // 1. A read in progress, until told to end.
        everythingDone.enter()
        dbPool.asyncRead { _ in
            readStarted.signal()
            endRead.wait()
            everythingDone.leave()
        }
        readStarted.wait()

        // 2. A write access that will ask for a concurrent read once the change has started.
        let concurrentRead = Result<Int?, any Error>.Box()
        everythingDone.enter()
        DispatchQueue.global().async {
            dbPool.writeWithoutTransaction { db in
                writerStarted.signal()
                changeStarted.wait()
                // Give the change the time to reach the barrier (where the old code held back
                // readers and waited for this writer).
                usleep(300_000)
                everythingDone.enter()
                dbPool.asyncConcurrentRead { dbResult in
                    concurrentRead.set(Result { try Int.fetchOne(dbResult.get(), sql: "SELECT a FROM t") })
                    everythingDone.leave()
                }
                // The read in progress may end now: the barrier, if it holds readers, may start.
                endRead.signal()
            }
            everythingDone.leave()
        }
        writerStarted.wait()

        // 3. The passphrase change.
        let change = Result<Void, any Error>.Box()
        everythingDone.enter()
        DispatchQueue.global().async {
            changeStarted.signal()
            change.set(Result {
                try dbPool.changePassphrase("new secret")
                passphrase.set("new secret")
            })
            everythingDone.leave()
        }

        guard everythingDone.wait(timeout: .now() + 30) == .success else {
            Issue.record("deadlock: changePassphrase and asyncConcurrentRead wait for each other")
            return
        }
        #expect(throws: Never.self) { try change.value?.get() }
        #expect(try concurrentRead.value?.get() == 1)
        // The pool reads and writes with the new passphrase; the old one no longer opens the file.
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
        try dbPool.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        var old = Configuration()
        old.prepareDatabase { try $0.usePassphrase("old secret") }
        expectDatabaseError(.SQLITE_NOTADB) { _ = try DatabaseQueue(path: directory.path("pool.sqlite"), configuration: old) }
    }
}

extension Result {
    /// A result set on one thread and read on another.
    final class Box: @unchecked Sendable {
        // Guarded by `lock`.
        private var stored: Result?
        private let lock = NSLock()

        func set(_ result: Result) { lock.withLock { stored = result } }
        var value: Result? { lock.withLock { stored } }
    }
}
