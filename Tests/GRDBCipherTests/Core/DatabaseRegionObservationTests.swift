import Foundation
import Testing
@testable import GRDBCipher

private let library = """
    CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT NOT NULL, pages INTEGER NOT NULL);
    CREATE TABLE reader (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    """

@Suite("DatabaseRegionObservation")
struct DatabaseRegionObservationTests {
    private func makeWriters() throws -> [(String, any DatabaseWriter, TemporaryDirectory)] {
        let queueDirectory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: queueDirectory.path("q.sqlite"), configuration: TestDatabase.configure(Configuration()))
        let poolDirectory = try TemporaryDirectory()
        let pool = try DatabasePool(path: poolDirectory.path("p.sqlite"), configuration: TestDatabase.configure(Configuration()))
        for writer in [queue as any DatabaseWriter, pool] {
            try writer.write { db in try db.execute(sql: library) }
        }
        return [("queue", queue, queueDirectory), ("pool", pool, poolDirectory)]
    }

    @Test func notifiesTransactionsThatChangeTheRegion() throws {
        for (name, writer, _) in try makeWriters() {
            let changes = LockedValue<[Int]>([])
            let observation = DatabaseRegionObservation(tracking: Table("book"))
            let cancellable = observation.start(in: writer) { error in
                Issue.record("unexpected \(error)")
            } onChange: { db in
                // The database is as the transaction left it.
                changes.update { $0.append((try? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book")) ?? -1) }
            }
            try writer.write { db in try db.execute(sql: "INSERT INTO book (title, pages) VALUES ('Dune', 612)") }
            try writer.write { db in try db.execute(sql: "INSERT INTO reader (name) VALUES ('Ann')") }
            try writer.write { db in
                try db.execute(sql: "INSERT INTO book (title, pages) VALUES ('Emma', 474)")
                try db.execute(sql: "INSERT INTO book (title, pages) VALUES ('Ubik', 202)")
            }
            try writer.writeWithoutTransaction { db in
                try db.inTransaction {
                    try db.execute(sql: "DELETE FROM book")
                    return .rollback
                }
            }
            #expect(changes.read() == [1, 3], "\(name)")
            cancellable.cancel()
            try writer.write { db in try db.execute(sql: "DELETE FROM book") }
            // The removal is asynchronous: a write after it runs after it.
            try writer.write { _ in }
            #expect(changes.read() == [1, 3], "\(name)")
        }
    }

    @Test func columnsAndRows() throws {
        for (name, writer, _) in try makeWriters() {
            try writer.write { db in
                try db.execute(sql: "INSERT INTO book (id, title, pages) VALUES (1, 'Dune', 612), (2, 'Emma', 474)")
            }
            let count = LockedValue(0)
            let titleOfBookOne = DatabaseRegionObservation(tracking: Table("book").select(Column("title")).filter(key: 1))
            let cancellable = titleOfBookOne.start(in: writer) { error in
                Issue.record("unexpected \(error)")
            } onChange: { _ in
                count.update { $0 += 1 }
            }
            try writer.write { db in try db.execute(sql: "UPDATE book SET pages = 1") } // other column
            try writer.write { db in try db.execute(sql: "UPDATE book SET title = 'E.' WHERE id = 2") } // other row
            #expect(count.read() == 0, "\(name)")
            try writer.write { db in try db.execute(sql: "UPDATE book SET title = 'D.' WHERE id = 1") }
            try writer.write { db in try db.execute(sql: "DELETE FROM book WHERE id = 1") }
            #expect(count.read() == 2, "\(name)")
            withExtendedLifetime(cancellable) {}
        }
    }

    @Test func deallocatingTheCancellableStopsTheObservation() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: library) }
        let count = LockedValue(0)
        do {
            let cancellable = DatabaseRegionObservation(tracking: .fullDatabase).start(in: test.dbQueue) { _ in
            } onChange: { _ in
                count.update { $0 += 1 }
            }
            try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO reader (name) VALUES ('Bo')") }
            withExtendedLifetime(cancellable) {}
        }
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO reader (name) VALUES ('Cy')") }
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO reader (name) VALUES ('Di')") }
        #expect(count.read() == 1)
    }

    @Test func notifiedChangesAndSeveralRegions() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: library) }
        let count = LockedValue(0)
        let observation = DatabaseRegionObservation(tracking: [Table("reader"), SQLRequest<Row>(sql: "SELECT title FROM book")])
        let cancellable = observation.start(in: test.dbQueue) { _ in } onChange: { _ in count.update { $0 += 1 } }
        try test.dbQueue.write { db in try db.notifyChanges(in: Table("reader")) }
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO book (title, pages) VALUES ('x', 1)") }
        try test.dbQueue.write { db in try db.execute(sql: "UPDATE book SET pages = 2") } // not observed
        #expect(count.read() == 2)
        withExtendedLifetime(cancellable) {}
    }

    @Test func regionErrorsGoToOnError() throws {
        let test = try TestDatabase()
        let errors = LockedValue<[String]>([])
        let observation = DatabaseRegionObservation(tracking: SQLRequest<Row>(sql: "SELECT * FROM missing"))
        let cancellable = observation.start(in: test.dbQueue) { error in
            errors.update { $0.append("\((error as? DatabaseError)?.resultCode.rawValue ?? -1)") }
        } onChange: { _ in
            Issue.record("no change expected")
        }
        try test.dbQueue.write { db in try db.execute(sql: "CREATE TABLE missing (a)") }
        #expect(errors.read() == ["\(ResultCode.SQLITE_ERROR.rawValue)"])
        cancellable.cancel()
    }
}
