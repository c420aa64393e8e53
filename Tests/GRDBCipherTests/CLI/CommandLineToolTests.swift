import Foundation
import Testing
@testable import GRDBCipher

/// The result of one run of the `grdbcipher` executable (shared by the CLI suites).
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the built `grdbcipher` executable (beside the test bundle) in `directory`, with
/// standard input from `input` (a pipe: never a terminal), or the `wrapper` command line.
func grdbcipher(_ arguments: [String], in directory: TemporaryDirectory, environment: [String: String] = [:], input: Data = Data(), through wrapper: [String]? = nil) throws -> Run {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("grdbcipher")
    let process = Process()
    if let wrapper {
        // Another program runs the command (a pseudo-terminal).
        process.executableURL = URL(fileURLWithPath: wrapper[0])
        process.arguments = Array(wrapper.dropFirst())
    } else {
        process.executableURL = executable
        process.arguments = arguments
    }
    process.currentDirectoryURL = directory.url
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
}

private let passphrase = "correct horse battery staple"

extension FixtureManifest.Fixture {
    /// Writes the fixture's key to a file, in the form the command reads, and returns the key
    /// options.
    func keyArguments(in directory: TemporaryDirectory, name: String = "key") throws -> [String] {
        guard let key else { return [] }
        let path = directory.path(name + ".txt")
        if let passphrase = key.passphrase {
            try Data(passphrase.utf8).write(to: URL(fileURLWithPath: path))
            return ["--passphrase-file", path]
        }
        if let hex = key.passphrase_hex {
            try FixtureManifest.Key.data(hex).write(to: URL(fileURLWithPath: path))
            return ["--passphrase-file", path]
        }
        let hex = (key.raw_key_hex ?? "") + (key.salt_hex ?? "")
        try Data((hex + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return ["--passphrase-file", path, "--raw-key"]
    }

    /// The input cipher options for the fixture's non-default settings.
    var settingsArguments: [String] {
        var arguments: [String] = []
        if format == "custom" || settings.plaintext_header_size != nil {
            if let value = settings.compatibility { arguments += ["--in-format", "\(value)"] }
            if let value = settings.page_size { arguments += ["--in-page-size", "\(value)"] }
            if let value = settings.kdf_iter { arguments += ["--in-kdf-iter", "\(value)"] }
        }
        if settings.plaintext_header_size != nil { arguments.append("--in-plaintext-header") }
        if let salt = settings.salt_hex { arguments += ["--in-salt", salt] }
        return arguments
    }

    var isDamaged: Bool { expect.open == "error 11" || expect.read == "error 11" }
    var isReadable: Bool { expect.read == "yes" }
}

@Suite("grdbcipher command")
struct CommandLineToolTests {
    static let fixtures = FixtureManifest.shared.fixtures

    @Test(arguments: fixtures)
    func inspectVerifyAndQuery(_ fixture: FixtureManifest.Fixture) throws {
        let directory = try TemporaryDirectory()
        let file = try fixture.copy(into: directory)
        let key = try fixture.keyArguments(in: directory)
        let options = key + fixture.settingsArguments

        let inspect = try grdbcipher(["inspect", file] + options, in: directory)
        switch fixture.expect.inspect {
        case "not a database":
            #expect(inspect.status == 3)
            #expect(inspect.stdout.contains("not a database"))
        case "plaintext":
            #expect(inspect.status == 0)
            #expect(inspect.stdout.contains("plaintext SQLite database"))
            #expect(inspect.stdout.contains("item  3 rows") || inspect.stdout.contains("item             3 rows"))
        case let expected:
            #expect(inspect.status == (fixture.isDamaged ? 4 : 0), "\(inspect.stderr)")
            let formatLine = expected == "plaintext header" ? "format: custom settings" : "format: \(expected)"
            #expect(inspect.stdout.contains(formatLine), "\(inspect.stdout)")
            #expect(inspect.stdout.contains("user_version: 42") || fixture.isDamaged)
        }
        // Without a key, an encrypted file is recognized as such.
        let shape = try grdbcipher(["inspect", file, "--json"], in: directory)
        let json = try JSONSerialization.jsonObject(with: Data(shape.stdout.utf8)) as? [String: Any]
        let content = json?["content"] as? String
        #expect(content == (fixture.format == "plaintext" ? "plaintext" : fixture.format == "not a database" ? "notADatabase" : "encrypted"))

        let verify = try grdbcipher(["verify", file] + options, in: directory)
        if fixture.format == "not a database" {
            #expect(verify.status == 3)
        } else if fixture.isDamaged {
            #expect(verify.status == 4)
            #expect(verify.stdout.contains("problem"))
        } else {
            #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
            #expect(verify.stdout.contains("integrity_check: ok"))
            #expect(verify.stdout.contains("foreign_key_check: ok"))
        }

        // (The damage of altered-page.db is in another table than item.)
        let query = try grdbcipher(["query", file, "SELECT id, name FROM item ORDER BY id", "--format", "csv"] + options, in: directory)
        if fixture.expect.open == "yes" {
            #expect(query.status == 0, "\(query.stderr)")
            #expect(query.stdout == "id,name\r\n1,apple\r\n2,café ☕\r\n3,zeta\r\n")
        } else {
            #expect(query.status != 0)
            #expect(query.stderr.hasPrefix("grdbcipher: error: "))
            #expect(query.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test(arguments: fixtures.filter { $0.format != "plaintext" && $0.format != "not a database" })
    func decryptRekeyAndUpgrade(_ fixture: FixtureManifest.Fixture) throws {
        let directory = try TemporaryDirectory()
        let file = try fixture.copy(into: directory)
        let options = try fixture.keyArguments(in: directory) + fixture.settingsArguments
        let original = try Data(contentsOf: URL(fileURLWithPath: file))

        // Decrypt: a plaintext copy that opens without a key, or a refusal and no output.
        let decrypt = try grdbcipher(["decrypt", file, "plain.db"] + options, in: directory)
        if fixture.isReadable {
            #expect(decrypt.status == 0, "\(decrypt.stderr)")
            let count = try grdbcipher(["query", "plain.db", "SELECT COUNT(*) AS n FROM item", "--format", "csv"], in: directory)
            #expect(count.stdout == "n\r\n3\r\n")
        } else {
            #expect(decrypt.status == 4 || decrypt.status == 1)
            #expect(!FileManager.default.fileExists(atPath: directory.path("plain.db")))
        }

        // Export to SQLCipher 4 defaults with another key.
        let newKey = ["--new-passphrase-env", "GRDBCIPHER_TEST_NEW_KEY"]
        let environment = ["GRDBCIPHER_TEST_NEW_KEY": "a brand new passphrase"]
        let export = try grdbcipher(["export", file, "exported.db"] + options + newKey, in: directory, environment: environment)
        if fixture.isReadable {
            #expect(export.status == 0, "\(export.stderr)")
            let count = try grdbcipher(["query", "exported.db", "SELECT COUNT(*) AS n FROM filler", "--format", "csv", "--passphrase-env", "GRDBCIPHER_TEST_NEW_KEY"], in: directory, environment: environment)
            #expect(count.stdout == "n\r\n40\r\n", "\(count.stderr)")
        } else {
            #expect(export.status != 0)
            #expect(!FileManager.default.fileExists(atPath: directory.path("exported.db")))
        }

        // Rekey in place: the new key opens the file, the old one no longer does.
        let rekey = try grdbcipher(["rekey", file] + options + newKey, in: directory, environment: environment)
        if fixture.expect.rekey == "yes" {
            #expect(rekey.status == 0, "\(rekey.stderr)")
            let reopened = try grdbcipher(["query", file, "SELECT COUNT(*) AS n FROM item", "--format", "csv", "--passphrase-env", "GRDBCIPHER_TEST_NEW_KEY"] + fixture.settingsArguments.filter { !$0.hasPrefix("--in-salt") && !$0.hasPrefix("--in-plaintext") }, in: directory, environment: environment)
            if fixture.settings.plaintext_header_size == nil {
                #expect(reopened.stdout == "n\r\n3\r\n", "\(reopened.stderr)")
            }
            let old = try grdbcipher(["inspect", file] + options, in: directory)
            #expect(old.status == 3)
        } else {
            #expect(rekey.status != 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original, "a failed rekey changed the file")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("grdbcipher-") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }

    @Test(arguments: fixtures.filter { ["cipher_migrate", "export", "already current"].contains($0.expect.upgrade) && !$0.isDamaged })
    func upgrade(_ fixture: FixtureManifest.Fixture) throws {
        let directory = try TemporaryDirectory()
        let file = try fixture.copy(into: directory)
        let options = try fixture.keyArguments(in: directory) + fixture.settingsArguments

        // Beside: the original stays as it is.
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        let beside = try grdbcipher(["upgrade", file, "--output", "v4.db"] + options, in: directory)
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original)
        let key = try fixture.keyArguments(in: directory)
        let inspectBeside = try grdbcipher(["inspect", "v4.db"] + key, in: directory)
        #expect(inspectBeside.stdout.contains("format: SQLCipher 4"), "\(inspectBeside.stdout) \(inspectBeside.stderr)")

        // In place.
        let inPlace = try grdbcipher(["upgrade", file] + options, in: directory)
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        if fixture.expect.upgrade == "already current" {
            #expect(inPlace.stdout.contains("already in the SQLCipher 4 format"))
        } else if fixture.settings.plaintext_header_size == nil {
            let inspect = try grdbcipher(["inspect", file] + key, in: directory)
            #expect(inspect.stdout.contains("format: SQLCipher 4"), "\(inspect.stdout) \(inspect.stderr)")
        }
    }

    @Test func encryptInspectRekeyVerify() throws {
        let directory = try TemporaryDirectory()
        let plain = try FixtureManifest.shared.fixtures.first { $0.format == "plaintext" }!.copy(into: directory)
        let environment = ["DB_KEY": passphrase, "DB_NEW_KEY": "another one"]

        let encrypt = try grdbcipher(["encrypt", plain, "secret.db", "--passphrase-env", "DB_KEY"], in: directory, environment: environment)
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        #expect(encrypt.stdout.contains("encrypted"))
        #expect(encrypt.stderr.isEmpty) // no progress bar when stderr is not a terminal

        // Standard input as the key channel.
        let inspect = try grdbcipher(["inspect", "secret.db", "--passphrase-file", "-"], in: directory, input: Data((passphrase + "\n").utf8))
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("format: SQLCipher 4"))

        let rekey = try grdbcipher(["rekey", "secret.db", "--passphrase-env", "DB_KEY", "--new-passphrase-env", "DB_NEW_KEY", "--quiet"], in: directory, environment: environment)
        #expect(rekey.status == 0)
        #expect(rekey.stdout.isEmpty)
        let verify = try grdbcipher(["verify", "secret.db", "--passphrase-env", "DB_NEW_KEY"], in: directory, environment: environment)
        #expect(verify.status == 0)
        #expect(verify.stdout == "cipher_integrity_check: ok\nintegrity_check: ok\nforeign_key_check: ok\n")

        // Other formats and settings.
        let v3 = try grdbcipher(["export", "secret.db", "v3.db", "--passphrase-env", "DB_NEW_KEY", "--new-passphrase-env", "DB_KEY", "--format", "3"], in: directory, environment: environment)
        #expect(v3.status == 0, "\(v3.stderr)")
        let v3Inspect = try grdbcipher(["inspect", "v3.db", "--passphrase-env", "DB_KEY", "--json"], in: directory, environment: environment)
        let json = try JSONSerialization.jsonObject(with: Data(v3Inspect.stdout.utf8)) as? [String: Any]
        #expect(json?["format"] as? Int == 3)
        #expect((json?["tables"] as? [String: Int])?["item"] == 3)
        let custom = try grdbcipher(["encrypt", plain, "custom.db", "--passphrase-env", "DB_KEY", "--page-size", "8192", "--kdf-iter", "10000"], in: directory, environment: environment)
        #expect(custom.status == 0, "\(custom.stderr)")
        let customQuery = try grdbcipher(["query", "custom.db", "SELECT COUNT(*) FROM item", "--passphrase-env", "DB_KEY", "--in-page-size", "8192", "--in-kdf-iter", "10000", "--format", "json"], in: directory, environment: environment)
        #expect(customQuery.stdout.contains("\"COUNT(*)\" : 3"), "\(customQuery.stdout) \(customQuery.stderr)")

        // No command printed the keys.
        for run in [encrypt, inspect, rekey, verify, v3, v3Inspect, custom, customQuery] {
            #expect(!run.stdout.contains(passphrase) && !run.stderr.contains(passphrase))
            #expect(!run.stdout.contains("another one") && !run.stderr.contains("another one"))
        }
    }

    @Test func failures() throws {
        let directory = try TemporaryDirectory()
        let v4 = try FixtureManifest.shared.fixtures.first { $0.file == "v4-default.db" }!.copy(into: directory)
        let plain = try FixtureManifest.shared.fixtures.first { $0.format == "plaintext" }!.copy(into: directory)
        let original = try Data(contentsOf: URL(fileURLWithPath: v4))
        let environment = ["DB_KEY": passphrase, "WRONG_KEY": "not the passphrase"]

        // Wrong passphrase: status 3, one line, no key, file unchanged.
        for command in [["inspect", v4], ["verify", v4], ["query", v4, "SELECT 1"], ["decrypt", v4, "out.db"], ["rekey", v4, "--new-passphrase-env", "DB_KEY"], ["upgrade", v4]] {
            let run = try grdbcipher(command + ["--passphrase-env", "WRONG_KEY"], in: directory, environment: environment)
            #expect(run.status == 3, "\(command): \(run.stderr)")
            if command[0] != "inspect" {
                #expect(run.stderr.hasPrefix("grdbcipher: error: the key does not open"), "\(command): \(run.stderr)")
                #expect(run.stderr.split(separator: "\n").count == 1)
            }
            #expect(!run.stderr.contains("not the passphrase") && !run.stdout.contains("not the passphrase"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: v4)) == original)
        #expect(!FileManager.default.fileExists(atPath: directory.path("out.db")))

        // Missing file.
        let missing = try grdbcipher(["verify", "missing.db", "--passphrase-env", "DB_KEY"], in: directory, environment: environment)
        #expect(missing.status == 1)
        #expect(missing.stderr == "grdbcipher: error: no such file: missing.db\n")

        // An existing output is refused, then replaced with --force.
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: directory.path("exists.db")))
        let exists = try grdbcipher(["decrypt", v4, "exists.db", "--passphrase-env", "DB_KEY"], in: directory, environment: environment)
        #expect(exists.status == 1)
        #expect(exists.stderr.contains("the output file exists"))
        #expect(try String(contentsOfFile: directory.path("exists.db"), encoding: .utf8) == "keep me")
        let forced = try grdbcipher(["decrypt", v4, "exists.db", "--passphrase-env", "DB_KEY", "--force"], in: directory, environment: environment)
        #expect(forced.status == 0, "\(forced.stderr)")

        // Usage errors: status 2.
        let noKey = try grdbcipher(["decrypt", v4, "nokey.db"], in: directory)
        #expect(noKey.status == 2)
        #expect(noKey.stderr.contains("no passphrase for"))
        let unknownOption = try grdbcipher(["verify", v4, "--passphrase", "oops"], in: directory)
        #expect(unknownOption.status == 2)
        let sameFile = try grdbcipher(["decrypt", v4, "./" + URL(fileURLWithPath: v4).lastPathComponent, "--force"], in: directory)
        #expect(sameFile.status == 2)
        #expect(sameFile.stderr == "grdbcipher: error: the output is the input file\n")
        let twoStdin = try grdbcipher(["rekey", v4, "--passphrase-file", "-", "--new-passphrase-file", "-"], in: directory)
        #expect(twoStdin.status == 2)
        let unsetVariable = try grdbcipher(["verify", v4, "--passphrase-env", "GRDBCIPHER_UNSET_VARIABLE"], in: directory)
        #expect(unsetVariable.status == 2)
        let badFormat = try grdbcipher(["encrypt", plain, "x.db", "--passphrase-env", "DB_KEY", "--format", "2"], in: directory, environment: environment)
        #expect(badFormat.status == 2)
        let headerWithoutSalt = try grdbcipher(["encrypt", plain, "x.db", "--passphrase-env", "DB_KEY", "--plaintext-header"], in: directory, environment: environment)
        #expect(headerWithoutSalt.status == 2)
        let badRawKey = try grdbcipher(["verify", v4, "--passphrase-env", "DB_KEY", "--raw-key"], in: directory, environment: environment)
        #expect(badRawKey.status == 2)
        #expect(!badRawKey.stderr.contains(passphrase))

        // Plaintext / encrypted mix-ups.
        let encryptEncrypted = try grdbcipher(["encrypt", v4, "x.db", "--passphrase-env", "DB_KEY"], in: directory, environment: environment)
        #expect(encryptEncrypted.status == 1)
        #expect(encryptEncrypted.stderr.contains("already encrypted"))
        let decryptPlain = try grdbcipher(["decrypt", plain, "x.db"], in: directory)
        #expect(decryptPlain.status == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.path("x.db")))

        // query is read-only.
        let write = try grdbcipher(["query", v4, "DELETE FROM item", "--passphrase-env", "DB_KEY"], in: directory, environment: environment)
        #expect(write.status == 2)
        #expect(write.stderr.contains("read-only statements only"))
        let bad = try grdbcipher(["query", v4, "SELECT nope FROM item", "--passphrase-env", "DB_KEY"], in: directory, environment: environment)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("no such column: nope"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: v4)) == original)

        // Help on each subcommand, with an example.
        for command in ["inspect", "encrypt", "decrypt", "export", "rekey", "upgrade", "verify", "query", "dump"] {
            let help = try grdbcipher([command, "--help"], in: directory)
            #expect(help.status == 0)
            #expect(help.stdout.contains("grdbcipher \(command) "), "\(command) --help has no example")
        }
    }

    /// On a terminal (a pseudo-terminal from util-linux's `script`): the new passphrase is
    /// asked twice, and the progress bar is drawn.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func terminalPromptAndProgressBar() throws {
        let directory = try TemporaryDirectory()
        let plain = try FixtureManifest.shared.fixtures.first { $0.format == "plaintext" }!.copy(into: directory)
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("grdbcipher").path
        func onTerminal(_ command: String, typing: String) throws -> Run {
            try grdbcipher([], in: directory, input: Data(typing.utf8), through: ["/usr/bin/script", "-qec", command, "/dev/null"])
        }
        let typed = try onTerminal("\(executable) encrypt \(plain) typed.db; echo status=$?", typing: "typed secret\ntyped secret\n")
        #expect(typed.stdout.contains("Passphrase for typed.db:"))
        #expect(typed.stdout.contains("Repeat the passphrase:"))
        #expect(typed.stdout.contains("encrypting [##############################] 100%"))
        #expect(typed.stdout.contains("status=0"), "\(typed.stdout)")
        let check = try grdbcipher(["inspect", "typed.db", "--passphrase-env", "TYPED"], in: directory, environment: ["TYPED": "typed secret"])
        #expect(check.status == 0 && check.stdout.contains("format: SQLCipher 4"))

        let mismatch = try onTerminal("\(executable) encrypt \(plain) mismatch.db; echo status=$?", typing: "one\ntwo\n")
        #expect(mismatch.stdout.contains("the two passphrases differ"))
        #expect(mismatch.stdout.contains("status=2"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("mismatch.db")))
    }

    @Test func queryFormats() throws {
        let directory = try TemporaryDirectory()
        let plain = try FixtureManifest.shared.fixtures.first { $0.format == "plaintext" }!.copy(into: directory)
        let sql = "SELECT id, name, price, data, note FROM item ORDER BY id"
        let table = try grdbcipher(["query", plain, sql], in: directory)
        #expect(table.stdout == """
            id  name    price  data       note
            --  ------  -----  ---------  -----
             1  apple     1.5  X'00FF10'  NULL
             2  café ☕  -2.25  X''        naïve
             3  zeta    NULL   NULL
            (3 rows)

            """)
        let csv = try grdbcipher(["query", plain, "SELECT 'a,b' AS x, 'say \"hi\"' AS y, NULL AS z", "--format", "csv"], in: directory)
        #expect(csv.stdout == "x,y,z\r\n\"a,b\",\"say \"\"hi\"\"\",\r\n")
        let json = try grdbcipher(["query", plain, "SELECT 1 AS i, 1.5 AS r, 'x' AS t, NULL AS n, x'0A' AS b", "--format", "json"], in: directory)
        let rows = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(rows?.count == 1)
        #expect(rows?[0]["i"] as? Int == 1 && rows?[0]["r"] as? Double == 1.5 && rows?[0]["t"] as? String == "x")
        #expect(rows?[0]["n"] is NSNull && rows?[0]["b"] as? String == "0A")
    }
}
