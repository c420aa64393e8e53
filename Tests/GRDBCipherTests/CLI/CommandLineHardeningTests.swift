import Foundation
import Testing
@testable import GRDBCipher

private let environment = ["HARD_KEY": "hardening passphrase", "HARD_NEW_KEY": "hardening new passphrase"]
private let key = ["--passphrase-env", "HARD_KEY"]
private let newKey = ["--new-passphrase-env", "HARD_NEW_KEY"]

/// The permission bits of a file.
private func mode(_ path: String) -> mode_t {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
}

/// Our temporary files (and their journals) in a directory.
private func leftovers(_ directory: TemporaryDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".grdbcipher-") }
}

/// An SQLCipher 4 file of about `megabytes` MB, keyed with HARD_KEY.
private func makeEncryptedDatabase(_ path: String, megabytes: Int) throws {
    let source = try DatabaseQueue()
    try source.write { db in
        try db.execute(sql: "CREATE TABLE chunk(id INTEGER PRIMARY KEY, data BLOB)")
        try db.execute(
            sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) INSERT INTO chunk(data) SELECT randomblob(1000) FROM c",
            arguments: [megabytes * 1000])
    }
    try source.exportDatabase(to: path, options: .encrypted(with: .passphrase(environment["HARD_KEY"]!)))
}

/// Starts the built `grdbcipher` without waiting for it; output goes to /dev/null.
private func startGRDBCipher(_ arguments: [String], in directory: TemporaryDirectory, stderr: Pipe? = nil) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("grdbcipher")
    process.arguments = arguments
    process.currentDirectoryURL = directory.url
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = stderr ?? FileHandle.nullDevice
    try process.run()
    return process
}

@Suite("grdbcipher command: files left behind, permissions, concurrent runs")
struct CommandLineHardeningTests {
    static func fixture(_ name: String, into directory: TemporaryDirectory) throws -> String {
        try FixtureManifest.shared.fixtures.first { $0.file == name }!.copy(into: directory)
    }

    static func keyFile(_ fixture: String, in directory: TemporaryDirectory) throws -> [String] {
        try FixtureManifest.shared.fixtures.first { $0.file == fixture }!.keyArguments(in: directory)
    }

    /// Every new file is readable by its owner only (whatever the umask), or as strict as the
    /// input when the input is stricter.
    @Test func newFilesAreReadableByTheirOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        let v4 = try Self.fixture("v4-default.db", into: directory)
        let plainFixture = try Self.fixture("plaintext.db", into: directory)
        let v4Key = try Self.keyFile("v4-default.db", in: directory)
        chmod(v4, 0o644)
        chmod(plainFixture, 0o644)
        let previousMask = umask(0o022)
        defer { umask(previousMask) }

        let decrypt = try grdbcipher(["decrypt", v4, "plain.db"] + v4Key, in: directory)
        #expect(decrypt.status == 0, "\(decrypt.stderr)")
        #expect(mode(directory.path("plain.db")) == 0o600)
        let encrypt = try grdbcipher(["encrypt", plainFixture, "encrypted.db"] + key, in: directory, environment: environment)
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        #expect(mode(directory.path("encrypted.db")) == 0o600)
        let export = try grdbcipher(["export", "encrypted.db", "exported.db"] + key + newKey, in: directory, environment: environment)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(mode(directory.path("exported.db")) == 0o600)

        // A stricter input gives a copy as strict.
        chmod(v4, 0o400)
        let strict = try grdbcipher(["decrypt", v4, "strict.db"] + v4Key, in: directory)
        #expect(strict.status == 0, "\(strict.stderr)")
        #expect(mode(directory.path("strict.db")) == 0o400)
        #expect(try leftovers(directory).isEmpty)
    }

    /// A temporary file a killed run left (a complete plaintext copy, for `decrypt`) is removed
    /// by the next command that writes beside it, which says so; one that a live run holds is
    /// left alone.
    @Test func staleTemporaryFilesAreRemovedWithANote() throws {
        let directory = try TemporaryDirectory()
        let v4 = try Self.fixture("v4-default.db", into: directory)
        let v4Key = try Self.keyFile("v4-default.db", in: directory)
        let stale = [
            ".plain.db.grdbcipher-export",                  // the name older versions used
            ".plain.db.grdbcipher-export-4242-stale",
            ".plain.db.grdbcipher-export-4242-stale-journal",
        ]
        for name in stale {
            try Data("plaintext rows".utf8).write(to: directory.url.appendingPathComponent(name))
        }
        // A run in progress (this process holds its lock): not stale.
        let live = directory.path(".plain.db.grdbcipher-export-\(getpid())-live")
        let liveDescriptor = open(live, O_RDWR | O_CREAT | O_EXCL, 0o600)
        #expect(liveDescriptor >= 0)
        defer { close(liveDescriptor) }
        #expect(flock(liveDescriptor, LOCK_EX | LOCK_NB) == 0)

        let decrypt = try grdbcipher(["decrypt", v4, "plain.db"] + v4Key, in: directory)
        #expect(decrypt.status == 0, "\(decrypt.stderr)")
        for name in stale {
            #expect(!FileManager.default.fileExists(atPath: directory.path(name)), "\(name) is still there")
            #expect(decrypt.stderr.contains("grdbcipher: removed \(directory.path(name)), a temporary file left by an interrupted run"), "\(decrypt.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: live))
        #expect(try leftovers(directory) == [URL(fileURLWithPath: live).lastPathComponent])
    }

    /// Kills `decrypt` at random points: what it leaves is readable by its owner only, the
    /// input is intact, and the next run cleans up and succeeds.
    @Test func killedDecryptLeavesNothingReadableByOthers() throws {
        let directory = try TemporaryDirectory()
        let input = directory.path("big.db")
        try makeEncryptedDatabase(input, megabytes: 24)
        let original = try Data(contentsOf: URL(fileURLWithPath: input))
        let previousMask = umask(0o022)
        defer { umask(previousMask) }
        var killedMidWay = 0
        for delay in [0, 50_000, 150_000, 300_000] as [useconds_t] {
            let process = try startGRDBCipher(["decrypt", input, "plain.db", "--force"] + key, in: directory)
            // Kill it once its temporary file exists (plus a delay), whatever the machine's load:
            // a fixed delay from the start may land before the export begins.
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning, try leftovers(directory).isEmpty, Date() < deadline {
                usleep(2_000)
            }
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let left = try leftovers(directory)
            if !left.isEmpty { killedMidWay += 1 }
            for name in left {
                #expect(mode(directory.path(name)) & 0o077 == 0, "\(name) is readable by others: \(String(mode(directory.path(name)), radix: 8))")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == original)
            let again = try grdbcipher(["decrypt", input, "plain.db", "--force"] + key, in: directory, environment: environment)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(left.isEmpty || again.stderr.contains("a temporary file left by an interrupted run"))
            #expect(try leftovers(directory).isEmpty)
            #expect(mode(directory.path("plain.db")) == 0o600)
        }
        // The trials are meant to kill the export: at least one should have.
        #expect(killedMidWay > 0)
    }

    /// In-place rewrites keep the file's mode, owner and group.
    @Test(.enabled(if: geteuid() == 0, "changing a file's owner needs root"))
    func inPlaceRewritesKeepModeOwnerAndGroup() throws {
        let directory = try TemporaryDirectory()
        for (name, command) in [("v4-default.db", ["rekey"] + newKey), ("v3-default.db", ["upgrade"])] {
            let file = try Self.fixture(name, into: directory)
            #expect(chown(file, 65534, 65534) == 0)
            #expect(chmod(file, 0o640) == 0)
            let run = try grdbcipher([command[0], file] + Self.keyFile(name, in: directory) + command.dropFirst(), in: directory, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            var info = stat()
            #expect(stat(file, &info) == 0)
            #expect(info.st_uid == 65534 && info.st_gid == 65534, "\(name): owner \(info.st_uid):\(info.st_gid)")
            #expect(info.st_mode & 0o7777 == 0o640, "\(name): mode \(String(info.st_mode & 0o7777, radix: 8))")
        }
        #expect(try leftovers(directory).isEmpty)
    }

    /// Runs that write the same output do not share a temporary file: one wins, the others say
    /// that the output exists.
    @Test func concurrentRunsLetTheFirstRenameWin() throws {
        let directory = try TemporaryDirectory()
        let input = directory.path("big.db")
        try makeEncryptedDatabase(input, megabytes: 16)
        let pipes = (0..<4).map { _ in Pipe() }
        let processes = try pipes.map { try startGRDBCipher(["decrypt", input, "plain.db"] + key, in: directory, stderr: $0) }
        let errors = pipes.map { String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        for process in processes { process.waitUntilExit() }
        let statuses = processes.map(\.terminationStatus)
        #expect(statuses.filter { $0 == 0 }.count == 1, "\(statuses) \(errors)")
        for (status, error) in zip(statuses, errors) where status != 0 {
            #expect(status == 1)
            #expect(error.hasPrefix("grdbcipher: error: the output file exists"), "\(error)")
            #expect(error.split(separator: "\n").count == 1)
        }
        let count = try grdbcipher(["query", "plain.db", "SELECT COUNT(*) AS n FROM chunk", "--format", "csv"], in: directory)
        #expect(count.stdout == "n\r\n16000\r\n", "\(count.stderr)")
        #expect(try leftovers(directory).isEmpty)
    }

    /// A killed upgrade left its copy and SQLCipher's -migrated file: the next upgrade
    /// succeeds at the first attempt, and cleans them.
    @Test func upgradeCleansWhatAKilledRunLeft() throws {
        let directory = try TemporaryDirectory()
        let v3 = try Self.fixture("v3-default.db", into: directory)
        let v3Key = try Self.keyFile("v3-default.db", in: directory)
        try Data(repeating: 0x42, count: 8192).write(to: directory.url.appendingPathComponent(".v3-default.db.grdbcipher-upgrade-migrated"))
        try FileManager.default.copyItem(atPath: v3, toPath: directory.path(".v3-default.db.grdbcipher-upgrade"))

        let upgrade = try grdbcipher(["upgrade", v3] + v3Key, in: directory)
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(upgrade.stdout.contains("upgraded"))
        #expect(upgrade.stderr.contains("-migrated, a temporary file left by an interrupted run"), "\(upgrade.stderr)")
        #expect(try leftovers(directory).isEmpty)
        let inspect = try grdbcipher(["inspect", v3] + v3Key, in: directory)
        #expect(inspect.stdout.contains("format: SQLCipher 4"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("item  3 rows") || inspect.stdout.contains("item    3 rows") || inspect.stdout.contains(" 3 rows"))
    }

    /// A damaged SQLCipher 4 file is not "already in the SQLCipher 4 format: nothing to do".
    @Test(arguments: ["truncated.db", "altered-page.db"])
    func upgradeReportsADamagedSQLCipher4File(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let file = try Self.fixture(name, into: directory)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        let upgrade = try grdbcipher(["upgrade", file] + Self.keyFile(name, in: directory), in: directory)
        #expect(upgrade.status == 4, "\(upgrade.stdout) \(upgrade.stderr)")
        #expect(!upgrade.stdout.contains("nothing to do"))
        #expect(upgrade.stderr.hasPrefix("grdbcipher: error: upgrade: the file is in the SQLCipher 4 format, but"), "\(upgrade.stderr)")
        #expect(upgrade.stderr.contains("damaged"))
        #expect(upgrade.stderr.split(separator: "\n").count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original)
    }
}
