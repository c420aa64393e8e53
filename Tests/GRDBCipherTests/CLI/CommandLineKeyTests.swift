import Foundation
import Testing
@testable import GRDBCipher

@Suite("grdbcipher key")
struct CommandLineKeyTests {
    private let secrets = ["primary cli secret", "recovery cli secret", "next cli secret", "old cli passphrase"]

    private func expectNoSecret(_ run: Run, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret), sourceLocation: sourceLocation)
        }
    }

    /// A directory with three key files, and a plaintext database with a row.
    private func makeDirectory() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try writeKeyFile(directory.path("primary.key"), "primary cli secret")
        try writeKeyFile(directory.path("recovery.key"), "recovery cli secret")
        try writeKeyFile(directory.path("next.key"), "next cli secret")
        try DatabaseQueue(path: directory.path("notes.db")).write { db in
            try db.execute(sql: "CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('hello')")
        }
        return directory
    }

    private func key(_ arguments: [String], in directory: TemporaryDirectory, environment: [String: String] = [:]) throws -> Run {
        let run = try grdbcipher(["key"] + arguments, in: directory, environment: environment)
        expectNoSecret(run)
        return run
    }

    @Test func initStatusRewrapRotateRemoveDestroy() throws {
        let directory = try makeDirectory()
        let fast = ["--kdf-iterations", "1000"]
        let created = try key(["init", "notes.db", "--new-key-file", "primary.key", "--recovery-key-file", "recovery.key"] + fast, in: directory)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "created notes.db.keyring for notes.db: slots primary, recovery\n")
        // The plaintext database was re-encrypted to the keyring's key.
        let header = try #require(FileManager.default.contents(atPath: directory.path("notes.db"))).prefix(15)
        #expect(header != Data("SQLite format 3".utf8))

        let query = ["query", "notes.db", "SELECT body FROM note", "--format", "csv"]
        let read = try grdbcipher(query + ["--keyring-key-file", "recovery.key"], in: directory)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == "body\r\nhello\r\n")

        let status = try key(["status", "notes.db"], in: directory)
        #expect(status.status == 0)
        #expect(status.stdout.contains("  primary   key file primary.key, created "))
        #expect(status.stdout.contains("  recovery  key file recovery.key, created "))
        #expect(status.stdout.contains("data keys\n  1  active, created "))

        // Rewrap the primary slot; the old key file no longer opens it.
        let rewrapped = try key(["rewrap", "notes.db", "primary", "--keyring-key-file", "recovery.key", "--new-key-file", "next.key"] + fast, in: directory)
        #expect(rewrapped.stdout == "rewrapped slot primary of notes.db.keyring\n")
        let old = try grdbcipher(query + ["--keyring-key-file", "primary.key"], in: directory)
        #expect(old.status == 3)
        #expect(old.stderr == "grdbcipher: error: no slot of the keyring notes.db.keyring opens with the key of key file primary.key\n")

        // Rotate the data key, then verify with the new primary key.
        let rotated = try key(["rotate", "notes.db", "--keyring-key-file", "next.key"], in: directory)
        #expect(rotated.stdout == "rotated the data key of notes.db: data key 2\n")
        let verified = try grdbcipher(["verify", "notes.db", "--keyring-key-file", "next.key"], in: directory)
        #expect(verified.status == 0)
        #expect(verified.stdout == "cipher_integrity_check: ok\nintegrity_check: ok\nforeign_key_check: ok\n")

        // Slots come and go; the last one stays.
        #expect(try key(["add-slot", "notes.db", "ops", "--keyring-key-file", "next.key", "--new-key-env", "OPS_KEY"] + fast, in: directory, environment: ["OPS_KEY": "ops cli secret"]).status == 0)
        #expect(try key(["remove-slot", "notes.db", "recovery", "--keyring-key-file", "next.key"], in: directory).status == 0)
        #expect(try key(["remove-slot", "notes.db", "ops", "--keyring-key-file", "next.key"], in: directory).status == 0)
        let last = try key(["remove-slot", "notes.db", "primary", "--keyring-key-file", "next.key"], in: directory)
        #expect(last.status == 1)
        #expect(last.stderr == "grdbcipher: error: the slot primary is the last one of notes.db.keyring: removing it would leave nothing to open the database\n")

        // Destroy: asks for confirmation, which a pipe cannot give.
        let unconfirmed = try key(["destroy", "notes.db"], in: directory)
        #expect(unconfirmed.status == 2)
        #expect(unconfirmed.stderr == "grdbcipher: error: destroy asks for confirmation on a terminal: give --yes to destroy notes.db.keyring without it\n")
        #expect(try key(["destroy", "notes.db", "--yes"], in: directory).stdout == "destroyed notes.db.keyring: notes.db can no longer be opened\n")
        let gone = try grdbcipher(query + ["--keyring-key-file", "next.key"], in: directory)
        #expect(gone.status == 3)
        #expect(gone.stderr == "grdbcipher: error: the keyring notes.db.keyring was destroyed: nothing can open its database\n")
        #expect(try key(["status", "notes.db"], in: directory).stdout.contains("  destroyed "))
    }

    @Test func refusals() throws {
        let directory = try makeDirectory()
        // A key file others can read.
        #expect(chmod(directory.path("primary.key"), 0o644) == 0)
        let insecure = try key(["init", "notes.db", "--new-key-file", "primary.key", "--kdf-iterations", "1000"], in: directory)
        #expect(insecure.status == 1)
        #expect(insecure.stderr == "grdbcipher: error: key file primary.key: mode 0644: others can read it, its group can read it; run chmod 600 primary.key (or 400)\n")
        #expect(!FileManager.default.fileExists(atPath: directory.path("notes.db.keyring")))
        #expect(chmod(directory.path("primary.key"), 0o600) == 0)

        // Without a terminal, a key must come from an option.
        let noKey = try key(["init", "notes.db"], in: directory)
        #expect(noKey.status == 2)
        #expect(noKey.stderr == "grdbcipher: error: no new key for notes.db: give it with --new-key-file PATH, --new-key-env NAME or --new-key-credential NAME, or run on a terminal\n")
        let twoKeys = try key(["init", "notes.db", "--new-key-file", "primary.key", "--new-key-env", "X"], in: directory)
        #expect(twoKeys.status == 2)

        // A systemd credential that is not there.
        let credential = try key(["init", "notes.db", "--new-key-credential", "notes-db-key"], in: directory, environment: ["CREDENTIALS_DIRECTORY": directory.url.path])
        #expect(credential.status == 1)
        #expect(credential.stderr.hasPrefix("grdbcipher: error: credential notes-db-key: no credential of that name in \(directory.url.path)"))

        // A passphrase database needs its passphrase.
        let encrypted = try TemporaryDirectory()
        try writeKeyFile(encrypted.path("primary.key"), "primary cli secret")
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.usePassphrase("old cli passphrase") }
        try DatabaseQueue(path: encrypted.path("app.db"), configuration: configuration).write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let wrongPassphrase = try key(["init", "app.db", "--new-key-file", "primary.key", "--kdf-iterations", "1000", "--passphrase-env", "OLD"], in: encrypted, environment: ["OLD": "wrong"])
        #expect(wrongPassphrase.status != 0)
        #expect(!FileManager.default.fileExists(atPath: encrypted.path("app.db.keyring")))
        let adopted = try key(["init", "app.db", "--new-key-file", "primary.key", "--kdf-iterations", "1000", "--passphrase-env", "OLD"], in: encrypted, environment: ["OLD": "old cli passphrase"])
        #expect(adopted.status == 0, "\(adopted.stderr)")
        #expect(adopted.stderr == "grdbcipher: no recovery slot: add one with grdbcipher key add-slot app.db recovery\n")
        let again = try key(["init", "app.db", "--new-key-file", "primary.key"], in: encrypted)
        #expect(again.status == 1)
        #expect(again.stderr == "grdbcipher: error: a keyring exists at app.db.keyring: nothing was changed\n")
    }
}
