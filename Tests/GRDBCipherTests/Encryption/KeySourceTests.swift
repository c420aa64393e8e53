import Foundation
import Testing
@testable import GRDBCipher

/// Writes a key file with a mode.
func writeKeyFile(_ path: String, _ contents: String, mode: mode_t = 0o600) throws {
    try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    #expect(chmod(path, mode) == 0)
}

// The sources read environment variables of the process: one test at a time.
@Suite("Key sources", .serialized)
struct KeySourceTests {
    private func error(_ body: () throws -> Any) -> KeyringError? {
        do {
            _ = try body()
            return nil
        } catch let error as KeyringError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func keyFilesAreCheckedAsSSHChecksPrivateKeys() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.key")
        for mode: mode_t in [0o600, 0o400] {
            try writeKeyFile(path, "file secret\n", mode: mode)
            #expect(try KeySource.keyFile(path).read() == Array("file secret".utf8))
        }
        let refusals: [(mode_t, Bool, String)] = [
            (0o644, false, "mode 0644: others can read it, its group can read it"),
            (0o640, false, "mode 0640: its group can read it"),
            (0o604, true, "mode 0604: others can read it"),
            (0o660, true, "mode 0660: its group can write it"),
            (0o602, false, "mode 0602: others can write it"),
        ]
        for (mode, permitsGroupRead, expected) in refusals {
            try writeKeyFile(path, "file secret", mode: mode)
            let refusal = error { try KeySource.keyFile(path, permitsGroupRead: permitsGroupRead).read() }
            #expect(refusal?.code == .insecureKeyFile)
            #expect(refusal?.message == "key file \(path): \(expected); run chmod 600 \(path) (or 400)")
        }
        // A Kubernetes secret with defaultMode 0440 and an fsGroup.
        try writeKeyFile(path, "file secret", mode: 0o440)
        #expect(try KeySource.keyFile(path, permitsGroupRead: true).read() == Array("file secret".utf8))

        // Not a file, no file.
        #expect(error { try KeySource.keyFile(directory.url.path).read() }?.message == "key file \(directory.url.path): not a regular file")
        let missing = error { try KeySource.keyFile(directory.path("missing.key")).read() }
        #expect(missing?.code == .sourceUnavailable)
        #expect(missing?.message.hasPrefix("key file \(directory.path("missing.key")): cannot open it") == true)
        // Empty.
        try writeKeyFile(path, "\n")
        #expect(error { try KeySource.keyFile(path).read() }?.message == "key file \(path) is empty")
    }

    // Only root can give a file to another user.
    @Test(.enabled(if: geteuid() == 0)) func keyFilesOfAnotherUserAreRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.key")
        try writeKeyFile(path, "file secret")
        #expect(chown(path, 1, 1) == 0)
        let refusal = error { try KeySource.keyFile(path).read() }
        #expect(refusal?.code == .insecureKeyFile)
        #expect(refusal?.message == "key file \(path): owned by uid 1, not by this process's user (uid 0); run chown 0 \(path)")
        // Root may own a group-readable secret: here the process is root.
        #expect(chown(path, 0, 1) == 0)
        #expect(chmod(path, 0o440) == 0)
        #expect(try KeySource.keyFile(path, permitsGroupRead: true).read() == Array("file secret".utf8))
    }

    @Test func systemdCredentials() throws {
        let directory = try TemporaryDirectory()
        let saved = getenv("CREDENTIALS_DIRECTORY").map { String(cString: $0) }
        defer {
            if let saved { setenv("CREDENTIALS_DIRECTORY", saved, 1) } else { unsetenv("CREDENTIALS_DIRECTORY") }
        }
        unsetenv("CREDENTIALS_DIRECTORY")
        let unset = error { try KeySource.credential("notes-db-key").read() }
        #expect(unset?.code == .sourceUnavailable)
        #expect(unset?.message == "credential notes-db-key: CREDENTIALS_DIRECTORY is not set; start the service with systemd's LoadCredential= or LoadCredentialEncrypted=")

        setenv("CREDENTIALS_DIRECTORY", directory.url.path, 1)
        try writeKeyFile(directory.path("notes-db-key"), "credential secret\n", mode: 0o400)
        #expect(try KeySource.credential("notes-db-key").read() == Array("credential secret".utf8))
        let missing = error { try KeySource.credential("other").read() }
        #expect(missing?.message == "credential other: no credential of that name in \(directory.url.path) (no such file or directory)")
        #expect(error { try KeySource.credential("../etc/passwd").read() }?.message == "credential ../etc/passwd: not a credential name")
        #expect(KeySource.credential("notes-db-key").description == "credential notes-db-key")
    }

    @Test func environmentVariablesAreRemovedOnceRead() throws {
        let name = "GRDBCIPHER_TEST_KEY_\(getpid())"
        setenv(name, "environment secret", 1)
        #expect(try KeySource.environment(name).read() == Array("environment secret".utf8))
        #expect(getenv(name) == nil)
        let unset = error { try KeySource.environment(name).read() }
        #expect(unset?.message == "environment variable \(name) is not set")

        setenv(name, "kept secret", 1)
        defer { unsetenv(name) }
        #expect(try KeySource.environment(name, removingVariable: false).read() == Array("kept secret".utf8))
        #expect(getenv(name).map { String(cString: $0) } == "kept secret")
    }

    @Test func customSources() throws {
        struct VaultError: Error { var detail = "token secret-token expired" }
        #expect(try KeySource.custom("vault") { Data("custom secret".utf8) }.read() == Array("custom secret".utf8))
        // The closure's error is named by its type only: its text may hold anything.
        let failure = error { try KeySource.custom("vault secret/notes") { throw VaultError() }.read() }
        #expect(failure?.message == "vault secret/notes: the key could not be read (VaultError)")
        #expect(error { try KeySource.custom("vault") { Data() }.read() }?.message == "vault is empty")
        // A trailing newline is part of a closure's key.
        #expect(try KeySource.passphrase(Data("typed\n".utf8)).read() == Array("typed\n".utf8))
        #expect(KeySource.passphrase(Data("typed".utf8)).description == "passphrase")
    }
}
