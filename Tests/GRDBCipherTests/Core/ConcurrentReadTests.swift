import Dispatch
import Foundation
import Testing
@testable import GRDBCipher

@Suite("Concurrent reads and snapshot readers")
struct ConcurrentReadTests {
    /// Inserts a row, spawns a read, inserts another row; returns what the read saw.
    private func spawnReadBetweenTwoInserts(_ writer: some DatabaseWriter) throws -> [String] {
        try writer.write { db in try db.execute(sql: "CREATE TABLE signal (flag TEXT)") }
        let seen = SQLRecorderLog()
        let done = DispatchSemaphore(value: 0)
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO signal VALUES ('red')")
            writer.spawnConcurrentRead { dbResult in
                do {
                    let db = try dbResult.get()
                    #expect(db.isInsideTransaction)
                    // The read is read-only.
                    _ = expectDatabaseError(.SQLITE_READONLY) { try db.execute(sql: "INSERT INTO signal VALUES ('no')") }
                    seen.append(try String.fetchAll(db, sql: "SELECT flag FROM signal").joined(separator: ","))
                } catch {
                    seen.append("\(error)")
                }
                done.signal()
            }
            try db.execute(sql: "INSERT INTO signal VALUES ('green')")
        }
        done.wait()
        #expect(try writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM signal") } == 2)
        return seen.entries
    }

    @Test func spawnConcurrentReadOnAQueueRunsAtOnce() throws {
        let test = try TestDatabase()
        #expect(try spawnReadBetweenTwoInserts(test.dbQueue) == ["red"])
        // After the read, the connection writes again: the read-only transaction is over.
        try test.dbQueue.writeWithoutTransaction { db in
            #expect(!db.isInsideTransaction)
            try db.execute(sql: "DELETE FROM signal")
        }
    }

    @Test func spawnConcurrentReadOnAPoolSeesTheStateOfItsCall() throws {
        let test = try TestPool()
        #expect(try spawnReadBetweenTwoInserts(test.dbPool) == ["red"])
    }

    @Test func spawnConcurrentReadThroughAnyDatabaseWriter() throws {
        let queue = try TestDatabase()
        #expect(try spawnReadBetweenTwoInserts(AnyDatabaseWriter(queue.dbQueue)) == ["red"])
        let pool = try TestPool()
        #expect(try spawnReadBetweenTwoInserts(AnyDatabaseWriter(pool.dbPool)) == ["red"])
    }

    @Test func snapshotReaderMethods() throws {
        let test = try TestPool()
        let dbPool = test.dbPool
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE lamp (colour TEXT); INSERT INTO lamp VALUES ('amber')")
        }
        let snapshot = try dbPool.makeSnapshot()
        try dbPool.write { try $0.execute(sql: "DELETE FROM lamp") }

        func colours(_ reader: some DatabaseSnapshotReader) throws -> [String] {
            try reader.unsafeRead { try String.fetchAll($0, sql: "SELECT colour FROM lamp") }
        }
        #expect(try colours(snapshot) == ["amber"])

        // reentrantRead may run inside another access of the snapshot, and outside of any.
        let nested = try snapshot.read { _ in
            try snapshot.reentrantRead { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM lamp") }
        }
        #expect(nested == 1)
        #expect(try snapshot.reentrantRead { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM lamp") } == 1)

        let reader: any DatabaseSnapshotReader = snapshot
        let seen = SQLRecorderLog()
        let done = DispatchSemaphore(value: 0)
        reader.asyncUnsafeRead { dbResult in
            let count = try? Int.fetchOne(dbResult.get(), sql: "SELECT COUNT(*) FROM lamp")
            seen.append("\(count ?? -1)")
            done.signal()
        }
        done.wait()
        #expect(seen.entries == ["1"])
        // Errors go through.
        struct Dim: Error {}
        #expect(throws: Dim.self) { try snapshot.reentrantRead { _ in throw Dim() } }
        try snapshot.close()
    }
}
