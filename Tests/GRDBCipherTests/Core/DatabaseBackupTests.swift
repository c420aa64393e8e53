import Foundation
import Testing
@testable import GRDBCipher

@Suite("Backup")
struct DatabaseBackupTests {
    @Test func backupCopiesEverything() throws {
        let source = try TestDatabase()
        try source.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a); PRAGMA user_version = 9")
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (randomblob(500))")
            for _ in 0..<200 { try statement.execute() }
        }
        let destination = try TestDatabase()
        try destination.dbQueue.write { try $0.execute(sql: "CREATE TABLE old(x)") }
        final class Log: @unchecked Sendable { var steps: [DatabaseBackupProgress] = [] }
        let log = Log()
        try source.dbQueue.backup(to: destination.dbQueue, pagesPerStep: 10) { log.steps.append($0) }
        try destination.dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 200)
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 9)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'old'") == 0)
        }
        #expect(log.steps.count > 2)
        #expect(log.steps.last?.isCompleted == true)
        #expect(log.steps.last?.completedPageCount == log.steps.last?.totalPageCount)
    }

    @Test func progressErrorsStopTheBackup() throws {
        let source = try TestDatabase()
        try source.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (randomblob(500))")
            for _ in 0..<200 { try statement.execute() }
        }
        let destination = try TestDatabase()
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try source.dbQueue.backup(to: destination.dbQueue, pagesPerStep: 5) { _ in throw Stop() }
        }
        #expect(try destination.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master") } == 0)
    }

    @Test func progressErrorAfterCompletionIsIgnored() throws {
        let source = try TestDatabase()
        try source.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (randomblob(500))")
            for _ in 0..<40 { try statement.execute() }
        }
        let destination = try TestDatabase()
        struct Late: Error {}
        final class Log: @unchecked Sendable { var completed: [Int] = []; var total = 0 }
        let log = Log()
        // Thrown when the backup is complete: the backup is kept, and no error reaches the caller.
        try source.dbQueue.backup(to: destination.dbQueue, pagesPerStep: 1) { progress in
            log.completed.append(progress.completedPageCount)
            log.total = progress.totalPageCount
            if progress.isCompleted { throw Late() }
        }
        #expect(log.completed == Array(1...log.total))
        #expect(try destination.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 40)
    }

    // MARK: - Between different encryptions: sqlcipher_export inside one transaction

    private static let richSchema = """
        CREATE TABLE parent(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);
        CREATE TABLE child(id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES parent(id), note BLOB);
        CREATE INDEX child_parent ON child(parentId) WHERE parentId IS NOT NULL;
        CREATE VIEW names AS SELECT name FROM parent;
        CREATE TRIGGER parent_delete AFTER DELETE ON parent BEGIN DELETE FROM child WHERE parentId = old.id; END;
        CREATE TABLE pair(a, b, PRIMARY KEY (a, b)) WITHOUT ROWID;
        CREATE VIRTUAL TABLE document USING fts5(body);
        INSERT INTO parent(name) VALUES ('a'), ('b'), ('c');
        DELETE FROM parent WHERE name = 'c';
        INSERT INTO child(parentId, note) VALUES (1, x'00ff'), (2, NULL);
        INSERT INTO pair VALUES (1, 2);
        INSERT INTO document(body) VALUES ('encrypted at rest');
        PRAGMA user_version = 12;
        PRAGMA application_id = 77;
        """

    private static func passphraseQueue(_ path: String, _ passphrase: String, settings: CipherSettings = CipherSettings(kdfIterations: 1000)) throws -> DatabaseQueue {
        var config = Configuration()
        config.prepareDatabase { try $0.usePassphrase(passphrase, settings: settings) }
        return try DatabaseQueue(path: path, configuration: config)
    }

    private static func expectRichContent(_ dbQueue: DatabaseQueue) throws {
        try dbQueue.read { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT name FROM names ORDER BY name") == ["a", "b"])
            #expect(try Int.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'parent'") == 3)
            #expect(try Data.fetchOne(db, sql: "SELECT note FROM child WHERE id = 1") == Data([0x00, 0xff]))
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pair") == 1)
            #expect(try String.fetchOne(db, sql: "SELECT body FROM document WHERE document MATCH 'rest'") == "encrypted at rest")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('child_parent', 'parent_delete')") == 2)
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 12)
            #expect(try Int.fetchOne(db, sql: "PRAGMA application_id") == 77)
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
        }
    }

    @Test func plaintextIntoEncrypted() throws {
        let directory = try TemporaryDirectory()
        let plain = try DatabaseQueue(path: directory.path("plain.sqlite"))
        try plain.write { try $0.execute(sql: Self.richSchema) }
        let encryptedPath = directory.path("e.sqlite")
        let encrypted = try Self.passphraseQueue(encryptedPath, "k")
        try encrypted.write { try $0.execute(sql: "CREATE TABLE old(x); INSERT INTO old VALUES (1)") }

        final class Log: @unchecked Sendable { var steps: [DatabaseBackupProgress] = [] }
        let log = Log()
        try plain.backup(to: encrypted) { log.steps.append($0) }
        #expect(log.steps.first?.isCompleted == false)
        #expect(log.steps.last?.isCompleted == true)
        #expect(try encrypted.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'old'") } == 0)
        try Self.expectRichContent(encrypted)
        try encrypted.close()

        // The destination kept its key: the file is encrypted, and opens with that passphrase only.
        let header = try Data(contentsOf: URL(fileURLWithPath: encryptedPath)).prefix(16)
        #expect(header != Data("SQLite format 3\0".utf8))
        try Self.expectRichContent(try Self.passphraseQueue(encryptedPath, "k"))
        expectDatabaseError(.SQLITE_NOTADB) { _ = try Self.passphraseQueue(encryptedPath, "wrong") }
    }

    @Test func encryptedIntoPlaintext() throws {
        let directory = try TemporaryDirectory()
        let encrypted = try Self.passphraseQueue(directory.path("e.sqlite"), "k")
        try encrypted.write { try $0.execute(sql: Self.richSchema) }
        let plainPath = directory.path("plain.sqlite")
        let plain = try DatabaseQueue(path: plainPath)
        try encrypted.backup(to: plain)
        try Self.expectRichContent(plain)
        let header = try Data(contentsOf: URL(fileURLWithPath: plainPath)).prefix(16)
        #expect(header == Data("SQLite format 3\0".utf8))
    }

    @Test func betweenDifferentKeysAndSettings() throws {
        let directory = try TemporaryDirectory()
        let v3 = try Self.passphraseQueue(directory.path("v3.sqlite"), "old", settings: .sqlcipher3)
        try v3.write { try $0.execute(sql: Self.richSchema) }
        let v4Path = directory.path("v4.sqlite")
        let v4 = try Self.passphraseQueue(v4Path, "new")
        try v4.write { try $0.execute(sql: "CREATE TABLE parent(id INTEGER PRIMARY KEY AUTOINCREMENT, x); INSERT INTO parent(x) VALUES (1), (2), (3), (4), (5)") }
        try v3.backup(to: v4)
        try Self.expectRichContent(v4)
        try v4.close()
        try Self.expectRichContent(try Self.passphraseQueue(v4Path, "new"))
    }

    @Test func aKeySetWithSQLIsNoticed() throws {
        // GRDB's documented way: PRAGMA key in prepareDatabase.
        let directory = try TemporaryDirectory()
        var config = Configuration()
        config.prepareDatabase { try $0.execute(sql: "PRAGMA key = 'k'; PRAGMA kdf_iter = 1000") }
        let encrypted = try DatabaseQueue(path: directory.path("e.sqlite"), configuration: config)
        #expect(try encrypted.read { try Int.fetchOne($0, sql: "PRAGMA temp_store") } == 2)
        let plain = try DatabaseQueue(path: directory.path("plain.sqlite"))
        try plain.write { try $0.execute(sql: Self.richSchema) }
        try plain.backup(to: encrypted)
        try Self.expectRichContent(encrypted)
    }

    @Test func aFailedCopyLeavesTheDestinationAsItWas() throws {
        let directory = try TemporaryDirectory()
        let plain = try DatabaseQueue(path: directory.path("plain.sqlite"))
        try plain.write { try $0.execute(sql: Self.richSchema) }
        let encrypted = try Self.passphraseQueue(directory.path("e.sqlite"), "k")
        try encrypted.write { try $0.execute(sql: "CREATE TABLE old(x); INSERT INTO old VALUES (1); PRAGMA user_version = 3") }
        // The destination's connection may not grow the file beyond a few pages: the copy fails
        // with SQLITE_FULL after dropping the destination's objects and creating some of the
        // source's.
        try plain.write { db in
            try db.execute(sql: "CREATE TABLE big(a)")
            let statement = try db.makeStatement(sql: "INSERT INTO big VALUES (randomblob(1000))")
            for _ in 0..<100 { try statement.execute() }
        }
        try encrypted.write { db in
            let pageCount = try Int.fetchOne(db, sql: "PRAGMA page_count")!
            try db.execute(sql: "PRAGMA max_page_count = \(pageCount + 4)")
        }
        // sqlcipher_export reports the failure of its inner statements as a function error
        // (SQLITE_ERROR); the library gives back the code of SQLite's message.
        let error = expectDatabaseError(.SQLITE_FULL) { try plain.backup(to: encrypted) }
        #expect(error?.message?.contains("database or disk is full") == true)
        try encrypted.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT x FROM old") == 1)
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 3)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") == 1)
            // The in-memory copy of the source is detached.
            #expect(try String.fetchAll(db, sql: "SELECT name FROM pragma_database_list ORDER BY seq") == ["main"])
        }
    }
}
