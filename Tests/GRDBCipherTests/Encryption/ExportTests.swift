import Foundation
import Testing
@testable import GRDBCipher

@Suite("Export: encrypt, decrypt, re-encrypt")
struct ExportTests {
    static let fastKDF = CipherSettings(kdfIterations: 1000)

    /// A database with every kind of schema object export must carry.
    static func fillRichContent(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE player(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, score REAL, avatar BLOB, note TEXT);
            CREATE INDEX player_score ON player(score) WHERE score > 10;
            CREATE UNIQUE INDEX player_name ON player(name);
            CREATE TABLE tag(code TEXT PRIMARY KEY, label TEXT) WITHOUT ROWID;
            CREATE VIEW top_player AS SELECT name FROM player WHERE score > 100;
            CREATE TABLE log(message TEXT);
            CREATE TRIGGER player_insert AFTER INSERT ON player BEGIN INSERT INTO log VALUES ('inserted ' || new.name); END;
            CREATE VIRTUAL TABLE doc USING fts5(body);
            INSERT INTO player (name, score, avatar, note) VALUES ('Arthur', 150.5, x'00ff10', NULL), ('Barbara', 5, NULL, 'hi');
            INSERT INTO player (name, score) VALUES ('Craig', 1000);
            DELETE FROM player WHERE name = 'Craig';
            INSERT INTO tag VALUES ('a', 'Alpha'), ('b', 'Beta');
            INSERT INTO doc(body) VALUES ('the quick brown fox'), ('encrypted at rest');
            PRAGMA user_version = 42;
            PRAGMA application_id = 1234;
            """)
    }

    /// Everything that must survive an export, as comparable text.
    static func snapshot(_ db: Database) throws -> [String] {
        var lines = try String.fetchAll(db, sql: "SELECT type || ' ' || name || ': ' || IFNULL(sql, '') FROM sqlite_master ORDER BY type, name")
        lines += try Row.fetchAll(db, sql: "SELECT * FROM player ORDER BY id").map(\.description)
        lines += try Row.fetchAll(db, sql: "SELECT * FROM tag").map(\.description)
        lines += try Row.fetchAll(db, sql: "SELECT * FROM log").map(\.description)
        lines += try Row.fetchAll(db, sql: "SELECT * FROM top_player").map(\.description)
        lines += try Row.fetchAll(db, sql: "SELECT body FROM doc WHERE doc MATCH 'rest'").map(\.description)
        lines += try Row.fetchAll(db, sql: "SELECT * FROM sqlite_sequence").map(\.description)
        lines.append("user_version \(try Int.fetchOne(db, sql: "PRAGMA user_version")!)")
        lines.append("application_id \(try Int.fetchOne(db, sql: "PRAGMA application_id")!)")
        return lines
    }

    private func keyed(_ key: CipherKey, _ settings: CipherSettings = fastKDF) -> Configuration {
        var config = Configuration()
        config.prepareDatabase { db in try db.use(key, settings: settings) }
        return config
    }

    private func fileHeader(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path)).prefix(16)
    }

    @Test func encryptAPlaintextDatabase() throws {
        let directory = try TemporaryDirectory()
        let source = try DatabaseQueue(path: directory.path("plain.sqlite"))
        try source.write(Self.fillRichContent)
        let expected = try source.read(Self.snapshot)
        let target = directory.path("encrypted.sqlite")
        let key = CipherKey.passphrase("secret")
        let report = try source.exportDatabase(to: target, options: .encrypted(with: key, settings: Self.fastKDF))
        #expect(report.path == target)
        #expect(report.tableCount >= 4)
        #expect(try fileHeader(target) != Data("SQLite format 3\0".utf8))
        let encrypted = try DatabaseQueue(path: target, configuration: keyed(key))
        #expect(try encrypted.read(Self.snapshot) == expected)
        #expect(try encrypted.read { try $0.pragmaInteger("PRAGMA page_size") } == 4096)
        // The source is untouched, and nothing is left beside the target.
        #expect(try fileHeader(directory.path("plain.sqlite")) == Data("SQLite format 3\0".utf8))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("grdbcipher-export") }
        #expect(leftovers.isEmpty)
    }

    @Test func decryptAnEncryptedDatabase() throws {
        let directory = try TemporaryDirectory()
        let key = CipherKey.passphrase("secret")
        let source = try DatabaseQueue(path: directory.path("encrypted.sqlite"), configuration: keyed(key))
        try source.write(Self.fillRichContent)
        let expected = try source.read(Self.snapshot)
        let target = directory.path("plain.sqlite")
        try source.exportDatabase(to: target, options: .plaintext)
        #expect(try fileHeader(target) == Data("SQLite format 3\0".utf8))
        #expect(try DatabaseQueue(path: target).read(Self.snapshot) == expected)
    }

    @Test func reEncryptWithANewKeyAndSQLCipher3Settings() throws {
        let directory = try TemporaryDirectory()
        let oldKey = CipherKey.passphrase("old")
        let source = try DatabaseQueue(path: directory.path("v4.sqlite"), configuration: keyed(oldKey))
        try source.write(Self.fillRichContent)
        let expected = try source.read(Self.snapshot)
        let target = directory.path("v3.sqlite")
        let newKey = try CipherKey.rawKey(Data(repeating: 7, count: 32))
        try source.exportDatabase(to: target, options: .encrypted(with: newKey, settings: .sqlcipher3))
        let info = try SQLCipherFile.inspect(atPath: target, key: newKey)
        #expect(info.sqlcipherFormat == 3)
        #expect(info.pageSize == 1024)
        #expect(try DatabaseQueue(path: target, configuration: keyed(newKey, .sqlcipher3)).read(Self.snapshot) == expected)
        expectDatabaseError(.SQLITE_NOTADB) { _ = try DatabaseQueue(path: target, configuration: keyed(oldKey, .sqlcipher3)) }
    }

    @Test func keepsPageSizeAndWALMode() throws {
        let directory = try TemporaryDirectory()
        let source = try DatabaseQueue(path: directory.path("plain.sqlite"))
        try source.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 8192; PRAGMA auto_vacuum = FULL; PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        }
        let key = CipherKey.passphrase("k")
        // By default an encrypted target gets SQLCipher's page size, so that it opens with its
        // key and settings alone.
        let standard = directory.path("standard.sqlite")
        try source.exportDatabase(to: standard, options: .encrypted(with: key, settings: Self.fastKDF))
        #expect(try SQLCipherFile.inspect(atPath: standard, key: key, settings: Self.fastKDF).pageSize == 4096)
        // A plaintext target keeps the source's page size.
        let plain = directory.path("plain-copy.sqlite")
        try source.exportDatabase(to: plain, options: .plaintext)
        #expect(try DatabaseQueue(path: plain).read { try Int.fetchOne($0, sql: "PRAGMA page_size") } == 8192)

        // Keeping the page size of an encrypted target is a cipher setting.
        let target = directory.path("encrypted.sqlite")
        let settings = CipherSettings(pageSize: 8192, kdfIterations: 1000)
        try source.exportDatabase(to: target, options: .encrypted(with: key, settings: settings))
        // The default settings do not open a file with 8192-byte pages...
        #expect(try SQLCipherFile.inspect(atPath: target, key: key, settings: Self.fastKDF).keyOpensFile == false)
        // ...its own settings do.
        let info = try SQLCipherFile.inspect(atPath: target, key: key, settings: settings)
        #expect(info.keyOpensFile == true)
        #expect(info.pageSize == 8192)
        #expect(info.journalMode == "wal")
        let encrypted = try DatabaseQueue(path: target, configuration: keyed(key, settings))
        #expect(try encrypted.read { try Int.fetchOne($0, sql: "PRAGMA auto_vacuum") } == 1)
    }

    @Test func existingTargetIsRefusedUnlessReplaced() throws {
        let directory = try TemporaryDirectory()
        let source = try DatabaseQueue(path: directory.path("plain.sqlite"))
        try source.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let target = directory.path("existing.sqlite")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        let error = expectDatabaseError(.SQLITE_MISUSE) {
            try source.exportDatabase(to: target, options: .encrypted(with: .passphrase("k"), settings: Self.fastKDF))
        }
        #expect(error?.message?.contains("the target file exists") == true)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
        var options = DatabaseExportOptions.encrypted(with: .passphrase("k"), settings: Self.fastKDF)
        options.replacesExistingFile = true
        try source.exportDatabase(to: target, options: options)
        #expect(try DatabaseQueue(path: target, configuration: keyed(.passphrase("k"))).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
    }

    @Test func badTargetsAreRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("plain.sqlite")
        let source = try DatabaseQueue(path: path)
        try source.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        expectDatabaseError(.SQLITE_CANTOPEN) {
            try source.exportDatabase(to: directory.path("missing/x.sqlite"), options: .plaintext)
        }
        var options = DatabaseExportOptions.plaintext
        options.replacesExistingFile = true
        let error = expectDatabaseError(.SQLITE_MISUSE) {
            try source.exportDatabase(to: path, options: options)
        }
        #expect(error?.message?.contains("the target is the source database itself") == true)
        expectDatabaseError(.SQLITE_MISUSE) {
            try source.exportDatabase(to: directory.path("x.sqlite"), options: .encrypted(with: .passphrase(""), settings: Self.fastKDF))
        }
        expectDatabaseError(.SQLITE_MISUSE) {
            try source.exportDatabase(to: directory.path("y.sqlite"), options: .encrypted(with: .passphrase("k"), settings: CipherSettings(pageSize: 1000)))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(files.sorted() == ["plain.sqlite"])
    }

    @Test func progressIsReported() throws {
        let directory = try TemporaryDirectory()
        let source = try DatabaseQueue(path: directory.path("plain.sqlite"))
        try source.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (randomblob(1000))")
            for _ in 0..<2000 { try statement.execute() }
        }
        final class Log: @unchecked Sendable { var events: [DatabaseExportProgress] = [] }
        let log = Log()
        var options = DatabaseExportOptions.encrypted(with: .passphrase("k"), settings: Self.fastKDF)
        options.progress = { log.events.append($0) }
        try source.exportDatabase(to: directory.path("e.sqlite"), options: options)
        let total = try source.read { try Int.fetchOne($0, sql: "PRAGMA page_count")! }
        #expect(log.events.first?.completedPageCount == 0)
        #expect(log.events.last == DatabaseExportProgress(completedPageCount: total, totalPageCount: total))
        #expect(log.events.count > 2)
        #expect(zip(log.events, log.events.dropFirst()).allSatisfy { $0.completedPageCount < $1.completedPageCount })
    }

    @Test func exportFromAReadOnlyQueue() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("plain.sqlite")
        try DatabaseQueue(path: path).write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (5)") }
        var config = Configuration()
        config.readonly = true
        let reader = try DatabaseQueue(path: path, configuration: config)
        try reader.exportDatabase(to: directory.path("e.sqlite"), options: .encrypted(with: .passphrase("k"), settings: Self.fastKDF))
        #expect(try DatabaseQueue(path: directory.path("e.sqlite"), configuration: keyed(.passphrase("k"))).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 5)
    }

    @Test func attachWithItsOwnKeyThroughArguments() throws {
        let directory = try TemporaryDirectory()
        let other = directory.path("other.sqlite")
        try DatabaseQueue(path: other, configuration: keyed(.passphrase("other key"), CipherSettings())).write {
            try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES ('attached')")
        }
        let main = try DatabaseQueue(path: directory.path("main.sqlite"), configuration: keyed(.passphrase("main key")))
        try main.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS other KEY ?", arguments: [other, "other key"])
            #expect(try String.fetchOne(db, sql: "SELECT a FROM other.t") == "attached")
            try db.execute(sql: "DETACH DATABASE other")
        }
    }

    @Test func killedExportLeavesNoTargetAndAnIntactSource() async throws {
        let directory = try TemporaryDirectory()
        let sourcePath = directory.path("source.sqlite")
        let targetPath = directory.path("target.sqlite")
        let source = try DatabaseQueue(path: sourcePath)
        try await source.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (randomblob(1000))")
            for _ in 0..<3000 { try statement.execute() }
        }
        try source.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: sourcePath))
        await #expect(processExitsWith: .exitCode(9)) { [sourcePath = sourcePath as String, targetPath = targetPath as String] in
            let source = try DatabaseQueue(path: sourcePath)
            var options = DatabaseExportOptions.encrypted(with: .passphrase("k"))
            options.progress = { progress in
                // Die abruptly half-way, as a killed process would.
                if progress.completedPageCount > progress.totalPageCount / 2 { _exit(9) }
            }
            try source.exportDatabase(to: targetPath, options: options)
        }
        #expect(!FileManager.default.fileExists(atPath: targetPath))
        // The killed process left its temporary file beside the target, under a name of its
        // own, readable by its owner only.
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix(".target.sqlite.grdbcipher-export-") && !$0.hasSuffix("-journal") }
        #expect(left.count == 1)
        for name in left {
            var info = stat()
            #expect(stat(directory.path(name), &info) == 0 && info.st_mode & 0o777 == 0o600)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: sourcePath)) == before)
        // The next export cleans up what the killed one left, and succeeds.
        let again = try DatabaseQueue(path: sourcePath)
        try again.exportDatabase(to: targetPath, options: .encrypted(with: .passphrase("k"), settings: Self.fastKDF))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(!files.contains { $0.contains("grdbcipher-export") })
        let count = try await DatabaseQueue(path: targetPath, configuration: keyed(.passphrase("k"))).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") }
        #expect(count == 3000)
    }
}

@Suite("Export and task cancellation")
struct ExportCancellationTests {
    @Test func cancelledTaskStillStopsAfterAnExportWithProgress() async throws {
        let directory = try TemporaryDirectory()
        let dbQueue = try DatabaseQueue(path: directory.path("source.sqlite"), configuration: TestDatabase.configure(Configuration()))
        try await dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            for _ in 0..<200 { try db.execute(sql: "INSERT INTO t VALUES (randomblob(500))") }
        }
        let exported = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        let target = directory.path("copy.sqlite")
        let reports = LockedValue(0)
        let task = Task {
            try await dbQueue.writeWithoutTransaction { db in
                var options = DatabaseExportOptions.encrypted(with: .passphrase("copy"), settings: ExportTests.fastKDF)
                options.progress = { _ in reports.update { $0 += 1 } }
                _ = try DatabaseExporter(source: db, targetPath: target, options: options).run()
                exported.signal()
                cancelled.wait()
                // Started after the cancellation: only the progress handler can stop it.
                return try Int.fetchOne(db, sql: """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100000000)
                    SELECT COUNT(*) FROM n
                    """)
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                exported.wait()
                continuation.resume()
            }
        }
        task.cancel()
        cancelled.signal()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(reports.read() > 0)
        #expect(FileManager.default.fileExists(atPath: target))
    }
}
