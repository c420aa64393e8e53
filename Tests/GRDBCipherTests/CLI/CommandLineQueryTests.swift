import Foundation
import Testing
@testable import GRDBCipher

private let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("grdbcipher").path

@Suite("grdbcipher query: read-only and streaming")
struct CommandLineQueryTests {
    /// Statements that could write anywhere are refused before they run (status 2), whatever
    /// their first word: the authorizer and sqlite3_stmt_readonly judge them.
    @Test(arguments: ["v4-default.db", "plaintext.db"])
    func queryRefusesEveryWritingStatement(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let fixture = FixtureManifest.shared.fixtures.first { $0.file == name }!
        let file = try fixture.copy(into: directory)
        let key = try fixture.keyArguments(in: directory)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        let copy = directory.path("copy.db")
        let writers = [
            "VACUUM INTO '\(copy)'",
            "PRAGMA rekey = 'another key'",
            "PRAGMA key = 'another key'",
            "PRAGMA cipher_migrate",
            "ATTACH DATABASE '\(copy)' AS other",
            "PRAGMA user_version = 7",
            "DELETE FROM item",
            "  select 1; DELETE FROM item",
            "WITH x AS (SELECT 1) INSERT INTO item(name) SELECT 'new' FROM x",
            "CREATE TEMP TABLE scratch(a)",
            "BEGIN IMMEDIATE",
            "SELECT sqlcipher_export('main')",
        ]
        for sql in writers {
            let run = try grdbcipher(["query", file, sql] + key, in: directory)
            #expect(run.status == 2, "\(sql): \(run.stdout) \(run.stderr)")
            #expect(run.stderr.hasPrefix("grdbcipher: error: query runs read-only statements only"), "\(sql): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
            #expect(run.stdout.isEmpty, "\(sql): \(run.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: copy), "VACUUM INTO or ATTACH wrote a file")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original)

        // Reading is allowed, pragmas that read included; the key still opens the file.
        for sql in ["PRAGMA table_info(item)", "PRAGMA user_version", "SELECT name FROM pragma_table_info('item')", "SELECT COUNT(*) FROM item"] {
            let run = try grdbcipher(["query", file, sql, "--format", "csv"] + key, in: directory)
            #expect(run.status == 0, "\(sql): \(run.stderr)")
            #expect(!run.stdout.isEmpty)
        }
    }

    /// Rows stream to standard output in every format: a result of millions of rows runs
    /// under a 300 MB address-space limit.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash")))
    func queryStreamsWithFlatMemory() throws {
        let directory = try TemporaryDirectory()
        let file = try FixtureManifest.shared.fixtures.first { $0.file == "plaintext.db" }!.copy(into: directory)
        func rows(_ count: Int) -> String {
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(count)) SELECT x, 'row ' || x AS name, x * 0.5 AS half FROM c"
        }
        // Five million rows in CSV; one million in the other formats (a debug build prints
        // slowly): the three run side by side, each with its own limit.
        let runs: [(format: String, count: Int, last: String)] = [
            ("csv", 5_000_000, "5000000,row 5000000,2500000.0\r\n"),
            ("table", 1_000_000, "(1000000 rows)\n"),
            ("json", 1_000_000, "    \"x\" : 1000000\n  }\n]\n"),
        ]
        let processes = try runs.map { run -> (Process, Pipe) in
            let process = Process()
            let output = Pipe()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "ulimit -v 300000; \"$0\" query \"$1\" \"$2\" --format \"$3\" | tail -c 200; exit ${PIPESTATUS[0]}", executable, file, rows(run.count), run.format]
            process.standardOutput = output
            process.standardError = output
            try process.run()
            return (process, output)
        }
        for (run, (process, output)) in zip(runs, processes) {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(run.format): \(text)")
            #expect(text.hasSuffix(run.last), "\(run.format): \(text)")
        }
    }
}
