import Foundation
import Testing
@testable import GRDBCipher

@Suite("Erase and vacuum")
struct DatabaseMaintenanceTests {
    private static func fill(_ writer: some DatabaseWriter) throws {
        try writer.write { (db: Database) throws in
            try db.execute(sql: """
                CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT);
                CREATE INDEX book_title ON book(title);
                CREATE VIEW short_book AS SELECT * FROM book WHERE length(title) < 5;
                CREATE TRIGGER book_guard BEFORE DELETE ON book BEGIN SELECT 1; END;
                INSERT INTO book (title) VALUES ('Dune'), ('Emma'), ('Ulysses');
                PRAGMA user_version = 3;
                """)
        }
    }

    @Test func eraseDropsEverything() throws {
        let test = try TestDatabase()
        try Self.fill(test.dbQueue)
        try test.dbQueue.erase()
        try test.dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") == 0)
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 0)
            #expect(try !db.tableExists("book"))
            expectDatabaseError(.SQLITE_ERROR) { _ = try Row.fetchAll(db, sql: "SELECT * FROM book") }
        }
        // The database is usable again, with the same name reused.
        try test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE book(isbn TEXT PRIMARY KEY)")
            #expect(try db.columns(in: "book").map(\.name) == ["isbn"])
        }
    }

    @Test func asyncForms() async throws {
        let test = try TestDatabase()
        try await test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)")
        }
        try await test.dbQueue.vacuum()
        let copyPath = test.directory.path("copy.sqlite")
        try await test.dbQueue.vacuum(into: copyPath)
        let copy = try test.makeQueueAt(copyPath)
        #expect(try await copy.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
        try await test.dbQueue.erase()
        #expect(try await test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master") } == 0)
        #expect(try await copy.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 2)
    }

    @Test func eraseAPool() throws {
        let test = try TestPool()
        try Self.fill(test.dbPool)
        #expect(try test.dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM book") } == 3)
        try test.dbPool.erase()
        #expect(try test.dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master") } == 0)
        // Still a WAL database.
        #expect(try test.dbPool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test func vacuumShrinksTheFile() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE blob(data BLOB)")
            for _ in 0..<50 { try db.execute(sql: "INSERT INTO blob VALUES (zeroblob(8000))") }
            try db.execute(sql: "DELETE FROM blob")
        }
        func size() throws -> Int { try FileManager.default.attributesOfItem(atPath: test.path)[.size] as! Int }
        let before = try size()
        let recorder = SQLRecorder()
        test.dbQueue.writeWithoutTransaction { recorder.record($0) }
        try test.dbQueue.vacuum()
        #expect(recorder.sql == ["VACUUM"])
        #expect(try size() < before / 4)
        // Not inside a transaction.
        expectDatabaseError(.SQLITE_ERROR) {
            try test.dbQueue.write { db in try db.execute(sql: "VACUUM") }
        }
    }

    @Test func vacuumIntoWritesACopy() throws {
        let test = try TestDatabase()
        try Self.fill(test.dbQueue)
        let copyPath = test.directory.path("copy.sqlite")
        try test.dbQueue.vacuum(into: copyPath)
        let copy = try test.makeQueueAt(copyPath)
        try copy.read { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT title FROM book ORDER BY id") == ["Dune", "Emma", "Ulysses"])
            #expect(try String.fetchAll(db, sql: "SELECT title FROM short_book ORDER BY id") == ["Dune", "Emma"])
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 3)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master ORDER BY name") == ["book", "book_guard", "book_title", "short_book"])
        }
        // From a pool.
        let pool = try TestPool()
        try Self.fill(pool.dbPool)
        let poolCopy = pool.directory.path("copy.sqlite")
        try pool.dbPool.vacuum(into: poolCopy)
        #expect(try test.makeQueueAt(poolCopy).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM book") } == 3)
        // An existing file is refused, and kept.
        let error = expectDatabaseError(.SQLITE_ERROR) { try test.dbQueue.vacuum(into: copyPath) }
        #expect(error?.message == "output file already exists")
        #expect(try copy.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM book") } == 3)
        // A missing directory.
        expectDatabaseError(.SQLITE_CANTOPEN) { try test.dbQueue.vacuum(into: test.directory.path("missing/copy.sqlite")) }
    }
}
