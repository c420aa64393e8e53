import Foundation
import Testing
@testable import GRDBCipher

private let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("grdbcipher").path
private let environment = ["DIAG_KEY": "diagnosis passphrase", "DIAG_NEW_KEY": "diagnosis new passphrase"]
private let key = ["--passphrase-env", "DIAG_KEY"]

/// Writes at `path` the state a program killed in the middle of a transaction leaves: the
/// database with some pages of the transaction written, and its hot rollback journal. The
/// committed content is 2000 rows of a table `t` whose `data` is `zeroblob(500)`.
func makeDatabaseWithHotJournal(_ path: String, passphrase: String?) throws {
    let live = path + ".live"
    var configuration = Configuration()
    if let passphrase {
        configuration.prepareDatabase { db in try db.usePassphrase(passphrase) }
    }
    let dbQueue = try DatabaseQueue(path: live, configuration: configuration)
    try dbQueue.write { db in
        try db.execute(sql: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, data BLOB);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
            INSERT INTO t(data) SELECT zeroblob(500) FROM c;
            """)
    }
    try dbQueue.writeWithoutTransaction { db in
        // A small cache spills the changed pages into the file before the commit.
        try db.execute(sql: "PRAGMA cache_size = 5")
        try db.execute(sql: "BEGIN")
        try db.execute(sql: "UPDATE t SET data = randomblob(500)")
        try FileManager.default.copyItem(atPath: live, toPath: path)
        try FileManager.default.copyItem(atPath: live + "-journal", toPath: path + "-journal")
        try db.execute(sql: "ROLLBACK")
    }
    try dbQueue.close()
}

/// Runs the command as the user `nobody`.
private func asNobody(_ arguments: [String], in directory: TemporaryDirectory) throws -> Run {
    try grdbcipher([], in: directory, environment: environment, through: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", executable] + arguments)
}

@Suite("grdbcipher command: telling the truth about a file")
struct CommandLineDiagnosisTests {
    /// A hot journal is reported as such by the commands that only read, never as a wrong
    /// key; the commands that rewrite the file roll it back first.
    @Test(arguments: [true, false])
    func hotJournalIsReportedThenRolledBack(encrypted: Bool) throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("crashed.db")
        try makeDatabaseWithHotJournal(file, passphrase: encrypted ? environment["DIAG_KEY"]! : nil)
        #expect(SQLCipherFile.hotJournalPath(ofDatabaseAt: file) == file + "-journal")
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let keyOptions = encrypted ? key : []

        for command in [["query", file, "SELECT COUNT(*) FROM t"], ["verify", file], ["decrypt", file, "plain.db"], ["dump", file]] {
            let run = try grdbcipher(command + keyOptions, in: directory, environment: environment)
            #expect(run.status == 1, "\(command[0]): \(run.stderr)")
            #expect(run.stderr.hasPrefix("grdbcipher: error: \(file) has an interrupted transaction in \(file)-journal (a hot journal)"), "\(command[0]): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
        let inspect = try grdbcipher(["inspect", file] + keyOptions, in: directory, environment: environment)
        #expect(inspect.status == 1)
        #expect(inspect.stdout.contains("note: an interrupted transaction is in \(file)-journal (a hot journal)"), "\(inspect.stdout)")
        #expect(!inspect.stdout.contains("key opens the file: no"))
        // Reading changed nothing.
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        #expect(SQLCipherFile.hotJournalPath(ofDatabaseAt: file) != nil)

        if encrypted {
            let rekey = try grdbcipher(["rekey", file] + key + ["--new-passphrase-env", "DIAG_NEW_KEY"], in: directory, environment: environment)
            #expect(rekey.status == 0, "\(rekey.stderr)")
            #expect(rekey.stderr.contains("grdbcipher: rolled back the interrupted transaction in \(file)-journal"))
        } else {
            #expect(try SQLCipherFile.rollBackInterruptedTransaction(atPath: file))
        }
        #expect(SQLCipherFile.hotJournalPath(ofDatabaseAt: file) == nil)
        let newKey = encrypted ? ["--passphrase-env", "DIAG_NEW_KEY"] : []
        let committed = try grdbcipher(["query", file, "SELECT COUNT(*) AS n FROM t WHERE data = zeroblob(500)", "--format", "csv"] + newKey, in: directory, environment: environment)
        #expect(committed.stdout == "n\r\n2000\r\n", "\(committed.stderr)")
    }

    /// Files the user cannot read or write: "permission denied", in one short line.
    @Test(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "runs the command as nobody"))
    func permissionErrorsAreOneShortLine() throws {
        let directory = try TemporaryDirectory()
        chmod(directory.url.path, 0o755)
        let v4 = try FixtureManifest.shared.fixtures.first { $0.file == "v4-default.db" }!.copy(into: directory)
        let v3 = try FixtureManifest.shared.fixtures.first { $0.file == "v3-default.db" }!.copy(into: directory)
        let v4Key = try FixtureManifest.shared.fixtures.first { $0.file == "v4-default.db" }!.keyArguments(in: directory)
        chmod(v4, 0o600)
        for command in [["inspect", v4], ["verify", v4] + v4Key, ["query", v4, "SELECT 1"] + v4Key, ["dump", v4] + v4Key] {
            let run = try asNobody(command, in: directory)
            #expect(run.status == 1, "\(command[0]): \(run.stdout) \(run.stderr)")
            #expect(run.stderr == "grdbcipher: error: cannot read \(v4): permission denied\n", "\(command[0])")
        }

        // Readable input, a directory nobody cannot write to.
        chmod(v4, 0o644)
        chmod(v3, 0o644)
        let decrypt = try asNobody(["decrypt", v4, directory.path("plain.db")] + v4Key, in: directory)
        #expect(decrypt.status == 1)
        #expect(decrypt.stderr == "grdbcipher: error: cannot create a file in \(directory.url.standardizedFileURL.path): permission denied\n", "\(decrypt.stderr)")
        let upgrade = try asNobody(["upgrade", v3] + v4Key, in: directory)
        #expect(upgrade.status == 1)
        #expect(upgrade.stderr == "grdbcipher: error: cannot create a file in \(directory.url.standardizedFileURL.path): permission denied\n", "\(upgrade.stderr)")
        for run in [decrypt, upgrade] {
            #expect(!run.stderr.contains("NSCocoaErrorDomain") && !run.stderr.contains("UserInfo"))
        }
    }

    /// Ctrl-C at a passphrase prompt ends the command with status 130, and the terminal
    /// echoes again.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script") && FileManager.default.isExecutableFile(atPath: "/bin/bash")))
    func controlCAtThePromptRestoresEcho() throws {
        let directory = try TemporaryDirectory()
        let v4 = try FixtureManifest.shared.fixtures.first { $0.file == "v4-default.db" }!.copy(into: directory)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "stty echo; \(executable) decrypt \(v4) out.db; echo status=$?; stty -a", "/dev/null"]
        process.currentDirectoryURL = directory.url
        process.environment = ProcessInfo.processInfo.environment.merging(["SHELL": "/bin/bash"]) { $1 }
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let transcript = Transcript()
        output.fileHandleForReading.readabilityHandler = { handle in transcript.append(handle.availableData) }
        // The test runner's threads block SIGINT, and children inherit the mask: a terminal
        // user's program does not start so.
        var interrupt = sigset_t(), previousMask = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &interrupt, &previousMask)
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
        try process.run()
        // Ctrl-C once the prompt is on the terminal, echo off.
        let deadline = Date().addingTimeInterval(20)
        while !transcript.text.contains("Passphrase for"), Date() < deadline { usleep(20_000) }
        #expect(transcript.text.contains("Passphrase for"))
        usleep(100_000)
        input.fileHandleForWriting.write(Data([0x03]))
        while !transcript.text.contains(" echo") && !transcript.text.contains("-echo"), Date() < deadline { usleep(20_000) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        let text = transcript.text
        #expect(text.contains("status=130"), "\(text)")
        #expect(text.contains(" echo "), "\(text)")
        #expect(!text.contains("-echo "), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("out.db")))
    }
}

/// What a process wrote, collected from another thread.
private final class Transcript: @unchecked Sendable {
    // Guarded by `lock`.
    private var data = Data()
    private let lock = NSLock()

    func append(_ chunk: Data) {
        lock.lock()
        data.append(chunk)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}
