import Foundation
import Testing
@testable import GRDBCipher

/// The `sqlcipher` shell that loads dumps in the round-trip test (`make deps` installs it).
private let sqlcipherShell = ["/usr/bin/sqlcipher", "/usr/local/bin/sqlcipher", "/opt/homebrew/bin/sqlcipher"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

@Suite("grdbcipher dump")
struct CommandLineDumpTests {
    static let readableFixtures = FixtureManifest.shared.fixtures.filter(\.isReadable)

    private static func fixture(_ name: String) -> FixtureManifest.Fixture {
        FixtureManifest.shared.fixtures.first { $0.file == name }!
    }

    /// The SQL text of every readable fixture, loaded by the sqlcipher shell into a new
    /// plaintext database, gives the fixture's content back (rows, sequence, views, schema,
    /// user_version).
    @Test(.enabled(if: sqlcipherShell != nil), arguments: readableFixtures)
    func roundTripThroughTheShell(_ fixture: FixtureManifest.Fixture) throws {
        let directory = try TemporaryDirectory()
        let file = try fixture.copy(into: directory)
        let run = try grdbcipher(["dump", file] + fixture.keyArguments(in: directory) + fixture.settingsArguments, in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty || fixture.key == nil, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\nPRAGMA user_version=42;\n"))
        #expect(run.stdout.hasSuffix("CREATE INDEX item_name ON item(name);\nCOMMIT;\n"))

        let copy = directory.path("loaded.db")
        let load = Process()
        load.executableURL = URL(fileURLWithPath: sqlcipherShell!)
        load.arguments = ["-bail", copy]
        let input = Pipe(), errors = Pipe()
        load.standardInput = input
        load.standardError = errors
        load.standardOutput = FileHandle.nullDevice
        try load.run()
        input.fileHandleForWriting.write(Data(run.stdout.utf8))
        try input.fileHandleForWriting.close()
        let loadErrors = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        load.waitUntilExit()
        #expect(load.terminationStatus == 0, "\(loadErrors)")

        let loaded = try DatabaseQueue(path: copy)
        #expect(CompatibilityTests.readOutcome(loaded) == "yes")
        // The trigger came back after the rows: it fires on new rows only.
        try loaded.write { db in
            try db.execute(sql: "INSERT INTO item (name) VALUES ('new')")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event") == 3)
            #expect(try Int.fetchOne(db, sql: "SELECT MAX(id) FROM event") == 4)
        }
    }

    /// Unusual schemas and values survive the round trip: quoted names, generated columns,
    /// WITHOUT ROWID, an FTS5 table (declared through writable_schema, as sqlite3 does),
    /// sqlite_stat1, text that is not UTF-8, extreme reals and integers.
    @Test(.enabled(if: sqlcipherShell != nil))
    func roundTripOfUnusualContent() throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("source.db")
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase("dump round trip") }
        let dbQueue = try DatabaseQueue(path: source, configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: #"""
                CREATE VIRTUAL TABLE note USING fts5(title, body);
                INSERT INTO note VALUES ('groceries', 'apples and pears'), ('todo', 'call the plumber');
                CREATE TABLE "odd 'name' ""t""" ("a b" TEXT, size AS (length("a b")) STORED, raw BLOB);
                INSERT INTO "odd 'name' ""t""" ("a b", raw) VALUES ('two
                lines', X'FFFE00'), (CAST(X'C328' AS TEXT), NULL);
                CREATE TABLE pair (k TEXT PRIMARY KEY, v ANY) STRICT, WITHOUT ROWID;
                INSERT INTO pair VALUES ('sum', 0.1 + 0.2), ('inf', 9e999), ('-inf', -9e999), ('max', 9223372036854775807),
                  ('min', -9223372036854775808), ('empty', ''), ('null', NULL), ('select', 'keyword');
                CREATE INDEX pair_on_v ON pair(v);
                ANALYZE;
                PRAGMA user_version = 7;
                """#)
        }
        // The text as the command wrote it, bytes that are not UTF-8 included.
        let dumpFile = directory.path("dump.sql")
        let run = try grdbcipher(["dump", source, "--output", dumpFile, "--passphrase-env", "DUMP_KEY"], in: directory, environment: ["DUMP_KEY": "dump round trip"])
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dumpFile))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("PRAGMA writable_schema=ON;\n"))
        #expect(text.contains("ANALYZE sqlite_schema;\n"))
        #expect(text.contains("INSERT INTO pair VALUES('sum',3.00000000000000044e-01);\n"))
        #expect(bytes.range(of: Data([0x27, 0xC3, 0x28, 0x27])) != nil) // 'Ã(' as it is stored

        let copy = directory.path("loaded.db")
        let load = Process()
        load.executableURL = URL(fileURLWithPath: sqlcipherShell!)
        load.arguments = ["-bail", copy]
        let input = Pipe()
        load.standardInput = input
        load.standardOutput = FileHandle.nullDevice
        try load.run()
        input.fileHandleForWriting.write(bytes)
        try input.fileHandleForWriting.close()
        load.waitUntilExit()
        #expect(load.terminationStatus == 0)

        let loaded = try DatabaseQueue(path: copy)
        func content(_ reader: some DatabaseReader) throws -> String {
            let output = DumpOutput()
            try reader.dumpContent(format: .quote(), to: output)
            try reader.dumpSQL(#"""
                SELECT hex("a b"), size FROM "odd 'name' ""t""" ORDER BY rowid;
                SELECT rowid, * FROM note WHERE note MATCH 'plumber';
                SELECT * FROM sqlite_stat1 ORDER BY tbl, idx;
                PRAGMA user_version;
                """#, to: output)
            return output.text
        }
        let expected = try content(dbQueue)
        #expect(try content(loaded) == expected)
        #expect(expected.contains("2|todo|call the plumber"))
        #expect(expected.contains("C328|2"))
    }

    /// Content formats print GRDB's dump formats; TABLE arguments choose the tables.
    @Test func formats() throws {
        let directory = try TemporaryDirectory()
        let fixture = Self.fixture("v4-default.db")
        let file = try fixture.copy(into: directory)
        let key = try fixture.keyArguments(in: directory)
        let expected: [(format: String, text: String)] = [
            ("json", """
                [{"id":1,"name":"apple","price":1.5,"data":"AP8Q","note":null},
                {"id":2,"name":"café ☕","price":-2.25,"data":"","note":"naïve"},
                {"id":3,"name":"zeta","price":null,"data":null,"note":""}]

                """),
            ("quote", "1,'apple',1.5,X'00FF10',NULL\n2,'café ☕',-2.25,X'','naïve'\n3,'zeta',NULL,NULL,''\n"),
            ("list", "1|apple|1.5|\u{0}\u{FFFD}\u{10}|\n2|café ☕|-2.25||naïve\n3|zeta|||\n"),
            ("debug", "1|apple|1.5|X'00FF10'|\n2|café ☕|-2.25||naïve\n3|zeta|||\n"),
        ]
        for (format, text) in expected {
            let run = try grdbcipher(["dump", file, "item", "--format", format] + key, in: directory)
            #expect(run.status == 0, "\(format): \(run.stderr)")
            #expect(run.stdout == text, "\(format)")
        }

        let line = try grdbcipher(["dump", file, "event", "--format", "line"] + key, in: directory)
        #expect(line.stdout == "    id = 1\nitemId = 1\n  kind = insert\n\n    id = 2\nitemId = 2\n  kind = insert\n")

        // Several tables: each under its name; a view too.
        let several = try grdbcipher(["dump", file, "event", "pricedItem", "--format", "quote"] + key, in: directory)
        #expect(several.stdout == "event\n1,1,'insert'\n2,2,'insert'\n\npricedItem\n'apple',1.5\n'café ☕',-2.25\n")

        // The whole database: the schema, then every table.
        let content = try grdbcipher(["dump", file, "--format", "list"] + key, in: directory)
        #expect(content.stdout.hasPrefix("sqlite_master\nCREATE TABLE event(id INTEGER PRIMARY KEY AUTOINCREMENT"))
        #expect(content.stdout.contains("\n\nitem\n1|apple|1.5|"))

        // SQL of chosen tables: their indexes and triggers, not the others'.
        let sql = try grdbcipher(["dump", file, "ITEM"] + key, in: directory)
        #expect(sql.status == 0)
        #expect(sql.stdout.contains("CREATE TABLE item("))
        #expect(sql.stdout.contains("CREATE TRIGGER item_insert"))
        #expect(!sql.stdout.contains("event VALUES"))
        #expect(!sql.stdout.contains("user_version"))

        let missing = try grdbcipher(["dump", file, "nothing"] + key, in: directory)
        #expect(missing.status == 1)
        #expect(missing.stderr == "grdbcipher: error: no such table: nothing\n")
        #expect(missing.stdout.isEmpty)

        let badFormat = try grdbcipher(["dump", file, "--format", "csv"] + key, in: directory)
        #expect(badFormat.status == 2)
    }

    @Test func wrongKeyAndNotADatabase() throws {
        let directory = try TemporaryDirectory()
        let file = try Self.fixture("v4-default.db").copy(into: directory)
        let wrong = try grdbcipher(["dump", file, "--passphrase-env", "DUMP_KEY"], in: directory, environment: ["DUMP_KEY": "not the passphrase"])
        #expect(wrong.status == 3)
        #expect(wrong.stdout.isEmpty)
        #expect(!wrong.stderr.contains("not the passphrase"))

        let noKey = try grdbcipher(["dump", file], in: directory)
        #expect(noKey.status == 2)
        #expect(noKey.stdout.isEmpty)

        let other = try Self.fixture("not-a-database.db").copy(into: directory)
        let notADatabase = try grdbcipher(["dump", other], in: directory)
        #expect(notADatabase.status == 3)
        #expect(notADatabase.stdout.isEmpty)
    }

    /// A damaged page is reported with status 4, and nothing is printed.
    @Test(arguments: ["altered-page.db", "truncated.db"])
    func damagedFile(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let fixture = Self.fixture(name)
        let file = try fixture.copy(into: directory)
        let key = try fixture.keyArguments(in: directory)
        for format in ["sql", "json"] {
            let run = try grdbcipher(["dump", file, "--format", format] + key, in: directory)
            #expect(run.status == 4, "\(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.hasPrefix("grdbcipher: error: "))
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
    }

    /// A damaged plaintext page: the dump refuses it too.
    @Test func damagedPlaintextFile() throws {
        let directory = try TemporaryDirectory()
        let file = try Self.fixture("plaintext.db").copy(into: directory)
        // Scribble over the second page (a b-tree page).
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
        try handle.seek(toOffset: 4096)
        handle.write(Data(repeating: 0x5A, count: 64))
        try handle.close()
        let run = try grdbcipher(["dump", file], in: directory)
        #expect(run.status == 4, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// Standard output by default; --output writes a 0600 file, refused if it exists unless
    /// --force (before any key is read).
    @Test func outputFile() throws {
        let directory = try TemporaryDirectory()
        let fixture = Self.fixture("v4-default.db")
        let file = try fixture.copy(into: directory)
        let key = try fixture.keyArguments(in: directory)
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        let toStdout = try grdbcipher(["dump", file] + key, in: directory)
        #expect(toStdout.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == before)

        let output = directory.path("dump.sql")
        let written = try grdbcipher(["dump", file, "--output", output] + key, in: directory)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.isEmpty)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == toStdout.stdout)
        let mode = try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // Exists: refused before the key is read (no key channel given here).
        let refused = try grdbcipher(["dump", file, "--output", output], in: directory)
        #expect(refused.status == 1)
        #expect(refused.stderr == "grdbcipher: error: the output file exists: \(output) (use --force to replace it)\n")

        try Data("old".utf8).write(to: URL(fileURLWithPath: output))
        let forced = try grdbcipher(["dump", file, "item", "--format", "quote", "--output", output, "--force"] + key, in: directory)
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8).hasPrefix("1,'apple',1.5,X'00FF10',NULL\n"))

        // The input is never an output.
        let same = try grdbcipher(["dump", file, "--output", file, "--force"] + key, in: directory)
        #expect(same.status == 2)

        // A failed dump leaves no file, and the file it replaces stays as it was.
        let failed = directory.path("failed.sql")
        let missing = try grdbcipher(["dump", file, "nothing", "--output", failed] + key, in: directory)
        #expect(missing.status == 1)
        #expect(!FileManager.default.fileExists(atPath: failed))
        let kept = try grdbcipher(["dump", file, "nothing", "--output", output, "--force"] + key, in: directory)
        #expect(kept.status == 1)
        #expect(try String(contentsOfFile: output, encoding: .utf8).hasPrefix("1,'apple',1.5,X'00FF10',NULL\n"))
        let temporaries = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".grdbcipher-") }
        #expect(temporaries.isEmpty, "\(temporaries)")

        // The temporary file of a killed run is removed by the next run.
        let stale = directory.path(".dump.sql.grdbcipher-dump-99999-stale")
        try Data("partial".utf8).write(to: URL(fileURLWithPath: stale))
        let again = try grdbcipher(["dump", file, "--output", output, "--force"] + key, in: directory)
        #expect(again.status == 0)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(again.stderr.contains("removed \(stale), a temporary file left by an interrupted run"))
    }
}
