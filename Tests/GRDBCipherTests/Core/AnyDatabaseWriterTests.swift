import Foundation
import Testing
@testable import GRDBCipher

@Suite("AnyDatabaseReader and AnyDatabaseWriter")
struct AnyDatabaseWriterTests {
    @Test func aWriterForwardsToTheWrappedOne() throws {
        let test = try TestDatabase()
        let writer = AnyDatabaseWriter(test.dbQueue)
        #expect(writer.path == test.path)
        #expect(writer.configuration.label == test.dbQueue.configuration.label)
        try writer.write { try $0.execute(sql: "CREATE TABLE note(text TEXT); INSERT INTO note VALUES ('one')") }
        try writer.write { try $0.execute(sql: "INSERT INTO note VALUES ('two')") }
        #expect(try writer.read { try String.fetchAll($0, sql: "SELECT text FROM note") } == ["one", "two"])
        // Reads through the wrapper are read-only, as they are on the queue.
        expectDatabaseError(.SQLITE_READONLY) { try writer.read { try $0.execute(sql: "DELETE FROM note") } }
        let inside = writer.writeWithoutTransaction { $0.isInsideTransaction }
        #expect(!inside)
        #expect(try writer.barrierWriteWithoutTransaction { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM note") } == 2)
        try writer.writeWithoutTransaction { (db: Database) throws in
            #expect(try writer.unsafeReentrantRead { try Int.fetchOne($0, sql: "SELECT 1") } == 1)
            #expect(writer.unsafeReentrantWrite { _ in 2 } == 2)
        }
        // Erase and vacuum reach the wrapped writer.
        try writer.erase()
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master") } == 0)
        try writer.close()
        expectDatabaseError(.SQLITE_MISUSE) { _ = try test.dbQueue.read { _ in 1 } }
    }

    @Test func aPoolBehindAWriterAndAReader() throws {
        let test = try TestPool()
        let writer: any DatabaseWriter = AnyDatabaseWriter(test.dbPool)
        try writer.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let reader = AnyDatabaseReader(writer)
        #expect(reader.path == test.path)
        #expect(try reader.read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
        #expect(try reader.unsafeRead { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
        expectDatabaseError(.SQLITE_READONLY) { try reader.read { try $0.execute(sql: "DELETE FROM t") } }
        // A snapshot behind a reader.
        let snapshotReader = AnyDatabaseReader(try test.dbPool.makeSnapshot())
        try writer.write { try $0.execute(sql: "DELETE FROM t") }
        #expect(try snapshotReader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 1)
        #expect(try reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 0)
    }

    @Test func asyncAccessesAreForwarded() async throws {
        let test = try TestDatabase()
        let writer = AnyDatabaseWriter(test.dbQueue)
        let reader = AnyDatabaseReader(test.dbQueue)
        let value: Int = try await withCheckedThrowingContinuation { continuation in
            writer.asyncWrite({ db in
                try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (5)")
                return 5
            }, completion: { _, result in continuation.resume(with: result) })
        }
        #expect(value == 5)
        let read: Int = try await withCheckedThrowingContinuation { continuation in
            reader.asyncRead { result in
                continuation.resume(with: Result { try Int.fetchOne(result.get(), sql: "SELECT a FROM t")! })
            }
        }
        #expect(read == 5)
        try await writer.write { try $0.execute(sql: "INSERT INTO t VALUES (6)") }
        #expect(try await writer.read { try Int.fetchAll($0, sql: "SELECT a FROM t") } == [5, 6])
        #expect(try await reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
        #expect(try await writer.writeWithoutTransaction { $0.isInsideTransaction } == false)
        #expect(try await reader.unsafeRead { try Int.fetchOne($0, sql: "SELECT MIN(a) FROM t") } == 5)
        #expect(try await writer.barrierWriteWithoutTransaction { try Int.fetchOne($0, sql: "SELECT MAX(a) FROM t") } == 6)
        reader.interrupt()
        try reader.close()
    }
}
