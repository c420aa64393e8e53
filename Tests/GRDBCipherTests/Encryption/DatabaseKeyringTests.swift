import Foundation
import Testing
@testable import GRDBCipher

/// A database path and its key files, in a temporary directory. Keyrings in tests use few
/// key-derivation iterations: the tests are about the keyring, not PBKDF2's cost.
private final class KeyringFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let databasePath: String
    let primaryKeyPath: String
    let recoveryKeyPath: String
    static let iterations = 1_000

    init() throws {
        directory = try TemporaryDirectory()
        databasePath = directory.path("notes.sqlite")
        primaryKeyPath = directory.path("primary.key")
        recoveryKeyPath = directory.path("recovery.key")
        try writeKeyFile(primaryKeyPath, "primary secret 1")
        try writeKeyFile(recoveryKeyPath, "recovery secret 2")
    }

    var keyringPath: String { DatabaseKeyring.defaultKeyringPath(forDatabaseAt: databasePath) }
    var primary: KeySource { .keyFile(primaryKeyPath) }
    var recovery: KeySource { .keyFile(recoveryKeyPath) }

    @discardableResult
    func create(currentKey: CipherKey? = nil) throws -> DatabaseKeyring {
        try DatabaseKeyring.create(
            databaseAt: databasePath, currentKey: currentKey,
            slots: [.source("primary", primary), .source("recovery", recovery)],
            kdfIterations: Self.iterations)
    }

    func unlock(_ source: KeySource? = nil, slot: String? = nil) throws -> DatabaseKeyring {
        try DatabaseKeyring.unlock(databaseAt: databasePath, with: source ?? primary, slot: slot)
    }

    func queue(_ keyring: DatabaseKeyring) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.useKeyring(keyring) }
        return try DatabaseQueue(path: databasePath, configuration: configuration)
    }

    func pool(_ keyring: DatabaseKeyring) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.useKeyring(keyring) }
        return try DatabasePool(path: databasePath, configuration: configuration)
    }

    func keyringBytes() -> Data? {
        FileManager.default.contents(atPath: keyringPath)
    }
}

/// Every secret the keyring tests use: no message, description or status may show one.
private let knownSecrets = ["primary secret 1", "recovery secret 2", "environment secret 3", "secret-token-123", "secret note", "old passphrase"]

private func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    for secret in knownSecrets {
        #expect(!text.contains(secret), "\(text)", sourceLocation: sourceLocation)
    }
}

/// The keyring error `body` throws, after its message was scanned for secrets.
private func keyringError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Any) -> KeyringError? {
    do {
        _ = try body()
        return nil
    } catch let error as KeyringError {
        expectNoSecret(error.message, sourceLocation: sourceLocation)
        return error
    } catch {
        expectNoSecret("\(error)", sourceLocation: sourceLocation)
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

// The rotation tests install a test hook: one test at a time.
@Suite("Database keyrings", .serialized)
struct DatabaseKeyringTests {
    @Test func createUnlockAndOpen() throws {
        let fixture = try KeyringFixture()
        let keyring = try fixture.create()
        let dbQueue = try fixture.queue(keyring)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note(body) VALUES ('secret note')")
        }
        try dbQueue.close()

        // The database starts with the keyring's salt, and opens with either slot.
        let status = try DatabaseKeyring.status(keyringAt: fixture.keyringPath)
        let header = try #require(FileManager.default.contents(atPath: fixture.databasePath)).prefix(16)
        #expect(header.hexadecimal == status.databaseSalt)
        #expect(status.databaseName == "notes.sqlite")
        #expect(status.slots.map(\.name) == ["primary", "recovery"])
        #expect(status.slots.map(\.kind) == [.keyFile, .keyFile])
        #expect(status.slots.map(\.source) == ["key file \(fixture.primaryKeyPath)", "key file \(fixture.recoveryKeyPath)"])
        #expect(status.dataKeys.map(\.id) == [1])
        #expect(status.dataKeys.map(\.state) == [.active])
        for source in [fixture.primary, fixture.recovery] {
            let unlocked = try fixture.unlock(source)
            let reader = try fixture.queue(unlocked)
            #expect(try reader.read { try String.fetchOne($0, sql: "SELECT body FROM note") } == "secret note")
            try reader.close()
        }
        // Neither the database nor the keyring holds a secret in the clear.
        let keyringText = String(decoding: try #require(fixture.keyringBytes()), as: UTF8.self)
        for secret in ["primary secret 1", "recovery secret 2", "secret note"] {
            #expect(!keyringText.contains(secret))
        }
        let databaseBytes = try #require(FileManager.default.contents(atPath: fixture.databasePath))
        #expect(databaseBytes.range(of: Data("secret note".utf8)) == nil)
        // The keyring file is for its owner alone.
        var info = stat()
        #expect(stat(fixture.keyringPath, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func wrongKeysAndWrongDatabases() throws {
        let fixture = try KeyringFixture()
        try fixture.create()
        try fixture.queue(try fixture.unlock()).write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let before = fixture.keyringBytes()

        let otherKey = fixture.directory.path("other.key")
        try writeKeyFile(otherKey, "another secret")
        let wrong = keyringError { try fixture.unlock(.keyFile(otherKey)) }
        #expect(wrong?.code == .wrongKey)
        #expect(wrong?.message == "no slot of the keyring \(fixture.keyringPath) opens with the key of key file \(otherKey)")
        // A slot named: only that slot is tried.
        #expect(keyringError { try fixture.unlock(fixture.recovery, slot: "primary") }?.code == .wrongKey)
        #expect(try fixture.unlock(fixture.recovery, slot: "recovery").databasePath == fixture.databasePath)
        #expect(keyringError { try fixture.unlock(fixture.recovery, slot: "nope") }?.code == .noSuchSlot)

        // The keyring of another database.
        let other = try KeyringFixture()
        try other.create()
        try other.queue(try other.unlock()).write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let swapped = keyringError {
            try DatabaseKeyring.unlock(databaseAt: fixture.databasePath, keyringPath: other.keyringPath, with: other.primary)
        }
        #expect(swapped?.code == .wrongDatabase)
        #expect(swapped?.message.hasPrefix("the keyring \(other.keyringPath) belongs to another database (notes.sqlite, salt ") == true)
        // A plaintext database where the encrypted one should be.
        let plaintextPath = fixture.directory.path("plain.sqlite")
        try DatabaseQueue(path: plaintextPath).write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let plaintext = keyringError {
            try DatabaseKeyring.unlock(databaseAt: plaintextPath, keyringPath: fixture.keyringPath, with: fixture.primary)
        }
        #expect(plaintext?.message == "the database \(plaintextPath) is a plaintext database, not the one the keyring \(fixture.keyringPath) keys")
        // No keyring.
        #expect(keyringError { try DatabaseKeyring.unlock(databaseAt: plaintextPath, with: fixture.primary) }?.code == .noKeyring)
        // A keyring is never overwritten.
        let exists = keyringError { try fixture.create() }
        #expect(exists?.code == .keyringExists)
        #expect(fixture.keyringBytes() == before)
    }

    @Test func damagedKeyrings() throws {
        let fixture = try KeyringFixture()
        try fixture.create()
        let original = try #require(fixture.keyringBytes())
        var text = String(decoding: original, as: UTF8.self)
        let cases: [(String, Data, String)] = [
            ("truncated", original.prefix(original.count / 2), "is truncated or altered: it does not end with its authentication code"),
            ("empty", Data(), "is truncated or altered: it does not end with its authentication code"),
            ("renamed slot", Data(text.replacingOccurrences(of: "\"recovery\"", with: "\"recoverx\"").utf8), "was altered: its authentication code does not match"),
            ("short code", Data("garbage\nmac 00\n".utf8), "is truncated or altered: it does not end with its authentication code"),
            ("not JSON", Data(("garbage\nmac " + String(repeating: "0", count: 64) + "\n").utf8), "is not a valid keyring document"),
        ]
        for (name, bytes, expected) in cases {
            try bytes.write(to: URL(fileURLWithPath: fixture.keyringPath))
            let failure = keyringError { try fixture.unlock() }
            #expect(failure?.code == .damagedKeyring, "\(name)")
            #expect(failure?.message == "the keyring \(fixture.keyringPath) \(expected)", "\(name)")
            // Nothing was written over the damaged file.
            #expect(fixture.keyringBytes() == bytes, "\(name)")
        }
        // A flipped byte of a wrapped key: the slot does not open, the other one tells the
        // file was altered.
        text = String(decoding: original, as: UTF8.self)
        let firstLine = try #require(text.split(separator: "\n").first)
        let document = try JSONSerialization.jsonObject(with: Data(firstLine.utf8)) as! [String: Any]
        let slots = document["slots"] as! [[String: Any]]
        let wrapped = (slots[0]["wrappedMasterKey"] as! [String: Any])["ciphertext"] as! String
        var altered = Array(wrapped)
        altered[2] = altered[2] == "A" ? "B" : "A"
        try Data(text.replacingOccurrences(of: wrapped, with: String(altered)).utf8).write(to: URL(fileURLWithPath: fixture.keyringPath))
        #expect(keyringError { try fixture.unlock(fixture.primary, slot: "primary") }?.code == .wrongKey)
        #expect(keyringError { try fixture.unlock(fixture.recovery) }?.code == .damagedKeyring)
    }

    @Test func slotsChangeWithoutTouchingTheDatabase() throws {
        let fixture = try KeyringFixture()
        let keyring = try fixture.create()
        let dbPool = try fixture.pool(keyring)
        try dbPool.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        try dbPool.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        let databaseBefore = FileManager.default.contents(atPath: fixture.databasePath)

        // A third slot, from the environment.
        let variable = "GRDBCIPHER_TEST_KEYRING_\(getpid())"
        setenv(variable, "environment secret 3", 1)
        try keyring.addSlot(.source("ops", .environment(variable)), kdfIterations: KeyringFixture.iterations)
        #expect(getenv(variable) == nil)
        setenv(variable, "environment secret 3", 1)
        #expect(try fixture.unlock(.environment(variable)).databasePath == fixture.databasePath)
        #expect(keyringError { try keyring.addSlot(.source("ops", fixture.primary), kdfIterations: KeyringFixture.iterations) }?.code == .slotExists)

        // Rewrap the primary slot with a new key file: the old one no longer opens it.
        let newPrimary = fixture.directory.path("primary-2.key")
        try writeKeyFile(newPrimary, "primary secret 2")
        try keyring.rewrapSlot(named: "primary", with: .keyFile(newPrimary), kdfIterations: KeyringFixture.iterations)
        #expect(keyringError { try fixture.unlock(fixture.primary) }?.code == .wrongKey)
        #expect(try fixture.unlock(.keyFile(newPrimary)).keyringPath == fixture.keyringPath)

        // Remove slots, not the last one.
        try keyring.removeSlot(named: "ops")
        try keyring.removeSlot(named: "recovery")
        #expect(keyringError { try fixture.unlock(fixture.recovery) }?.code == .wrongKey)
        let last = keyringError { try keyring.removeSlot(named: "primary") }
        #expect(last?.code == .lastSlot)
        #expect(keyringError { try keyring.removeSlot(named: "nope") }?.code == .noSuchSlot)
        #expect(try keyring.status().slots.map(\.name) == ["primary"])

        // The pool served all along, and the database file is as it was.
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
        #expect(FileManager.default.contents(atPath: fixture.databasePath) == databaseBefore)
        try dbPool.close()
    }

    @Test func slotCountIsBounded() throws {
        let fixture = try KeyringFixture()
        let many = (0...32).map { index in KeySlot.source("slot \(index)", .custom("slot \(index)") { Data("secret \(index)".utf8) }) }
        let tooMany = keyringError { try DatabaseKeyring.create(databaseAt: fixture.databasePath, slots: many, kdfIterations: 1) }
        #expect(tooMany?.message == "a keyring has at most 32 slots")
        #expect(fixture.keyringBytes() == nil)
        let keyring = try DatabaseKeyring.create(databaseAt: fixture.databasePath, slots: Array(many.prefix(32)), kdfIterations: 1)
        let full = keyringError { try keyring.addSlot(many[32], kdfIterations: 1) }
        #expect(full?.message == "the keyring \(fixture.keyringPath) has 32 slots, the most it may have")
        #expect(try keyring.status().slots.count == 32)
        #expect(try DatabaseKeyring.unlock(databaseAt: fixture.databasePath, with: .custom("slot 31") { Data("secret 31".utf8) }).keyringPath == fixture.keyringPath)
    }

    @Test func externalSlots() throws {
        let fixture = try KeyringFixture()
        // A stand-in for a KMS: the blob is the encryption context, then the key reversed; a
        // blob opens for its own context only.
        @Sendable func marker(_ context: KeySlotContext) -> Data { Data("\(context.dictionary.sorted { $0.key < $1.key }):".utf8) }
        let keyring = try DatabaseKeyring.create(
            databaseAt: fixture.databasePath,
            slots: [.external("kms") { key, context in marker(context) + Data(key.reversed()) }, .source("recovery", fixture.recovery)],
            kdfIterations: KeyringFixture.iterations)
        try fixture.queue(keyring).write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let keyringID = try keyring.status().keyringID
        let unlocked = try DatabaseKeyring.unlock(databaseAt: fixture.databasePath, externalSlot: "kms") { blob, context in
            #expect(context == KeySlotContext(keyringID: keyringID, slotName: "kms"))
            let prefix = marker(context)
            guard blob.starts(with: prefix) else { throw CocoaError(.coderInvalidValue) }
            return Data(blob.dropFirst(prefix.count).reversed())
        }
        #expect(try fixture.queue(unlocked).read { try $0.tableExists("t") })
        #expect(try keyring.status().slots.map(\.kind) == [.external, .keyFile])

        // A KMS that answers with another key, or fails.
        let wrongKey = keyringError {
            try DatabaseKeyring.unlock(databaseAt: fixture.databasePath, externalSlot: "kms") { _, _ in Data(repeating: 7, count: 32) }
        }
        #expect(wrongKey?.code == .wrongKey)
        #expect(wrongKey?.message == "the external slot kms of \(fixture.keyringPath) gave a key that does not open the keyring")
        struct KMSError: Error { var detail = "secret-token-123 denied" }
        let failure = keyringError {
            try DatabaseKeyring.unlock(databaseAt: fixture.databasePath, externalSlot: "kms") { _, _ in throw KMSError() }
        }
        #expect(failure?.message == "the external slot kms of \(fixture.keyringPath) could not be unwrapped (KMSError)")
        #expect(keyringError {
            try DatabaseKeyring.unlock(databaseAt: fixture.databasePath, externalSlot: "recovery") { blob, _ in blob }
        }?.code == .noSuchSlot)
    }

    @Test func existingDatabasesAreReencrypted() throws {
        // A plaintext database, then a passphrase one.
        for currentKey in [nil, CipherKey.passphrase("old passphrase")] {
            let fixture = try KeyringFixture()
            var configuration = Configuration()
            if currentKey != nil {
                configuration.prepareDatabase { db in try db.usePassphrase("old passphrase") }
            }
            let original = try DatabaseQueue(path: fixture.databasePath, configuration: configuration)
            try original.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES ('kept')") }
            try original.close()

            let keyring = try fixture.create(currentKey: currentKey)
            #expect(try fixture.queue(keyring).read { try String.fetchOne($0, sql: "SELECT a FROM t") } == "kept")
            let status = try keyring.status()
            #expect(status.dataKeys.map(\.state) == [.active])
            // The old key no longer opens the file.
            #expect(throws: DatabaseError.self) {
                try DatabaseQueue(path: fixture.databasePath, configuration: configuration).read { try $0.tableExists("t") }
            }
        }

        // A wrong current key: the database and the directory are left as they were.
        let fixture = try KeyringFixture()
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.usePassphrase("right") }
        try DatabaseQueue(path: fixture.databasePath, configuration: configuration).write { try $0.execute(sql: "CREATE TABLE t(a)") }
        let before = FileManager.default.contents(atPath: fixture.databasePath)
        #expect(throws: (any Error).self) { try fixture.create(currentKey: .passphrase("wrong")) }
        #expect(FileManager.default.contents(atPath: fixture.databasePath) == before)
        #expect(fixture.keyringBytes() == nil)
    }

    @Test func rotationOnAPoolThatServes() throws {
        let fixture = try KeyringFixture()
        let keyring = try fixture.create()
        let dbPool = try fixture.pool(keyring)
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            for value in 0..<500 { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) }
        }
        // Readers read while the data key rotates.
        let stop = LockedValue(false)
        let failures = LockedValue<[String]>([])
        let reads = LockedValue(0)
        let group = DispatchGroup()
        // Both readers have read once before the rotations begin (on a loaded machine, the
        // rotations could otherwise end before a reader thread starts).
        let readersStarted = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                var first = true
                while !stop.read() {
                    do {
                        let count = try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") }
                        if count != 500 { failures.update { $0.append("count \(String(describing: count))") } }
                        reads.update { $0 += 1 }
                    } catch {
                        failures.update { $0.append("\(error)") }
                    }
                    if first { first = false; readersStarted.signal() }
                }
            }
        }
        readersStarted.wait()
        readersStarted.wait()
        for _ in 0..<3 {
            try keyring.rotateDataKey(in: dbPool)
        }
        stop.update { $0 = true }
        group.wait()
        #expect(failures.read().isEmpty, "\(failures.read())")
        #expect(reads.read() > 0)
        let status = try keyring.status()
        #expect(status.dataKeys.map(\.id) == [4])
        #expect(status.dataKeys.map(\.state) == [.active])
        // New connections, and a new unlock, open the re-encrypted database.
        #expect(try dbPool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 500)
        try dbPool.close()
        #expect(try fixture.queue(try fixture.unlock(fixture.recovery)).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") } == 500)
    }

    @Test func interruptedRotations() throws {
        struct Crash: Error {}
        defer { KeyringTestHooks.rotation = nil }
        for step in [KeyringTestHooks.RotationStep.newKeyPending, .databaseRekeyed] {
            let fixture = try KeyringFixture()
            let keyring = try fixture.create()
            let dbQueue = try fixture.queue(keyring)
            try dbQueue.write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
            try dbQueue.close()
            let keyringPath = fixture.keyringPath
            KeyringTestHooks.rotation = { current, path in
                if current == step && path == keyringPath { throw Crash() }
            }
            #expect(throws: Crash.self) { try keyring.rotateDataKey() }
            KeyringTestHooks.rotation = nil
            // The keyring holds the old key and the pending new one.
            #expect(try DatabaseKeyring.status(keyringAt: keyringPath).dataKeys.map(\.state) == [.active, .pending])

            // The next unlock keeps the key that opens the database, and settles the keyring
            // (a key the database left stays retired until the next rotation).
            let unlocked = try fixture.unlock(fixture.recovery)
            #expect(try fixture.queue(unlocked).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
            let settled = try DatabaseKeyring.status(keyringAt: keyringPath).dataKeys
            if step == .newKeyPending {
                #expect(settled.map(\.id) == [1])
                #expect(settled.map(\.state) == [.active])
            } else {
                #expect(settled.map(\.id) == [2, 1])
                #expect(settled.map(\.state) == [.active, .retired])
            }
            // The next rotation drops the retired key, and starts from the database's key.
            try unlocked.rotateDataKey()
            #expect(try DatabaseKeyring.status(keyringAt: keyringPath).dataKeys.map(\.state) == [.active])
            #expect(try fixture.queue(try fixture.unlock()).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
        }
    }

    @Test func interruptedCreation() throws {
        defer { KeyringTestHooks.creation = nil }
        let fixture = try KeyringFixture()
        try DatabaseQueue(path: fixture.databasePath).write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let keyringPath = fixture.keyringPath
        KeyringTestHooks.creation = { path in if path == keyringPath { throw KeyringTestHooks.SimulatedCrash() } }
        #expect(throws: KeyringTestHooks.SimulatedCrash.self) { try fixture.create() }
        KeyringTestHooks.creation = nil
        // The keyring stayed, the database kept its plaintext: the unlock says what to do.
        #expect(try DatabaseKeyring.status(keyringAt: keyringPath).dataKeys.map(\.state) == [.pending])
        let failure = keyringError { try fixture.unlock() }
        #expect(failure?.code == .wrongDatabase)
        #expect(failure?.message == "the database \(fixture.databasePath) was not re-encrypted to the keyring's key (an interrupted creation): remove \(keyringPath) and create the keyring again")
        #expect(try DatabaseQueue(path: fixture.databasePath).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
        #expect(keyringError { try fixture.create() }?.code == .keyringExists)
        try FileManager.default.removeItem(atPath: keyringPath)
        try fixture.create()
        #expect(try fixture.queue(try fixture.unlock()).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
    }

    @Test func rotationAfterAnUnsettledOne() throws {
        // The same keyring object rotates again after a rotation that died after its re-key:
        // the pending key, which is the database's, must not be lost.
        struct Crash: Error {}
        defer { KeyringTestHooks.rotation = nil }
        let fixture = try KeyringFixture()
        let keyring = try fixture.create()
        try fixture.queue(keyring).write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let keyringPath = fixture.keyringPath
        KeyringTestHooks.rotation = { step, path in if step == .databaseRekeyed && path == keyringPath { throw Crash() } }
        #expect(throws: Crash.self) { try keyring.rotateDataKey() }
        KeyringTestHooks.rotation = nil
        try keyring.rotateDataKey()
        #expect(try DatabaseKeyring.status(keyringAt: keyringPath).dataKeys.map(\.id) == [3])
        #expect(try fixture.queue(try fixture.unlock()).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
    }

    @Test func rotationsByAnotherHolderAndOldKeyrings() throws {
        let fixture = try KeyringFixture()
        let first = try fixture.create()
        try fixture.queue(first).write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let second = try fixture.unlock(fixture.recovery)
        let backup = try #require(fixture.keyringBytes())
        try first.rotateDataKey()
        // A holder unlocked before the rotation keys its new connections with the new key.
        #expect(try fixture.queue(second).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
        // A keyring restored from before the rotation: a clear error.
        let current = try #require(fixture.keyringBytes())
        try backup.write(to: URL(fileURLWithPath: fixture.keyringPath))
        let old = keyringError { try fixture.unlock() }
        #expect(old?.code == .wrongDatabase)
        #expect(old?.message == "the data key of the keyring \(fixture.keyringPath) does not open the database \(fixture.databasePath): the keyring is older than the database (restored from a backup?), or the database was replaced")
        try current.write(to: URL(fileURLWithPath: fixture.keyringPath))

        // After a leak: every slot and the master key replaced. The old primary secret no
        // longer opens the keyring, the new one does, and the data key is the same.
        let newPrimary = fixture.directory.path("primary-2.key")
        try writeKeyFile(newPrimary, "primary secret 2")
        try first.replaceAllSlots(with: [.source("primary", .keyFile(newPrimary))], kdfIterations: KeyringFixture.iterations)
        #expect(keyringError { try fixture.unlock(fixture.primary) }?.code == .wrongKey)
        #expect(keyringError { try fixture.unlock(fixture.recovery) }?.code == .wrongKey)
        #expect(try fixture.queue(try fixture.unlock(.keyFile(newPrimary))).read { try Int.fetchOne($0, sql: "SELECT a FROM t") } == 1)
        // The keyring object goes on with its new master key.
        try first.addSlot(.source("recovery", fixture.recovery), kdfIterations: KeyringFixture.iterations)
        #expect(try fixture.unlock(fixture.recovery).keyringPath == fixture.keyringPath)
    }

    @Test(.enabled(if: geteuid() == 0)) func rewritesKeepTheKeyringsOwner() throws {
        let fixture = try KeyringFixture()
        let keyring = try fixture.create()
        #expect(chown(fixture.keyringPath, 1, 1) == 0)
        #expect(chmod(fixture.keyringPath, 0o640) == 0)
        try keyring.removeSlot(named: "recovery")
        var info = stat()
        #expect(stat(fixture.keyringPath, &info) == 0)
        #expect(info.st_uid == 1 && info.st_gid == 1)
        #expect(info.st_mode & 0o777 == 0o640)
    }

    @Test func destroyingTheKeyringShredsTheDatabase() throws {
        let fixture = try KeyringFixture()
        let keyring = try fixture.create()
        try fixture.queue(keyring).write { try $0.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES ('gone')") }
        let copy = fixture.directory.path("backup.sqlite")
        try FileManager.default.copyItem(atPath: fixture.databasePath, toPath: copy)

        try DatabaseKeyring.destroy(keyringAt: fixture.keyringPath)
        let status = try DatabaseKeyring.status(keyringAt: fixture.keyringPath)
        #expect(status.destroyedAt != nil)
        #expect(status.slots.isEmpty && status.dataKeys.isEmpty)
        let text = String(decoding: try #require(fixture.keyringBytes()), as: UTF8.self)
        #expect(!text.contains("wrappedMasterKey") && !text.contains("wrapped\""))
        let destroyed = keyringError { try fixture.unlock() }
        #expect(destroyed?.code == .destroyed)
        #expect(destroyed?.message == "the keyring \(fixture.keyringPath) was destroyed: nothing can open its database")
        // The keyring object in memory is refused changes too, and forgets its keys.
        #expect(keyringError { try keyring.addSlot(.source("late", fixture.primary), kdfIterations: KeyringFixture.iterations) }?.code == .destroyed)
        keyring.forget()
        #expect(keyringError { try fixture.queue(keyring) }?.code == .destroyed)
    }

    @Test func descriptionsAndStatusShowNoSecret() throws {
        let fixture = try KeyringFixture()
        let keyring = try fixture.create()
        for text in [keyring.description, "\(fixture.primary)", "\(KeySource.passphrase(Data("old passphrase".utf8)))", "\(try keyring.status())"] {
            expectNoSecret(text)
        }
    }
}

@Suite("Keyring key material in logs")
struct KeyringLogTests {
    /// In a new process (the log function must be set before SQLite initializes): SQLite's
    /// log, statement traces, dumps and keyring errors of a keyring's life never show its keys
    /// or its slots' secrets.
    @Test func keysNeverReachLogsTracesOrDumps() async {
        await #expect(processExitsWith: .success) {
            final class Texts: @unchecked Sendable {
                let lock = NSLock()
                var list: [String] = []
                func add(_ text: String) { lock.withLock { list.append(text) } }
            }
            let texts = Texts()
            Database.logError = { _, message in texts.add(message) }
            let directory = try TemporaryDirectory()
            let path = directory.path("notes.sqlite")
            try writeKeyFile(directory.path("primary.key"), "primary log secret")
            try writeKeyFile(directory.path("wrong.key"), "wrong log secret")
            let keyring = try DatabaseKeyring.create(
                databaseAt: path, slots: [.source("primary", .keyFile(directory.path("primary.key")))], kdfIterations: 1_000)
            var keyTexts: [String] = []
            func recordKey() throws {
                var text = try keyring.keyText()
                keyTexts.append(String(decoding: text.dropFirst(2).dropLast(1), as: UTF8.self))
                for index in text.indices { text[index] = 0 }
            }
            try recordKey()
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                db.trace(options: [.statement, .profile]) { texts.add("\($0)") }
                try db.useKeyring(keyring)
            }
            let dbQueue = try DatabaseQueue(path: path, configuration: configuration)
            try dbQueue.write { db in
                try db.execute(sql: "CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('hello')")
                _ = try? db.execute(sql: "SELEKT 1")
            }
            try keyring.rotateDataKey(in: dbQueue)
            try recordKey()
            let dump = DumpOutput()
            try dbQueue.dumpContent(to: dump)
            texts.add(dump.text)
            try dbQueue.close()
            for attempt in [
                { _ = try DatabaseKeyring.unlock(databaseAt: path, with: .keyFile(directory.path("wrong.key"))) },
                { _ = try DatabaseKeyring.unlock(databaseAt: directory.path("other.sqlite"), keyringPath: keyring.keyringPath, with: .keyFile(directory.path("primary.key"))) },
            ] as [() throws -> Void] {
                do { try attempt() } catch { texts.add("\(error)") }
            }
            texts.add(String(decoding: FileManager.default.contents(atPath: keyring.keyringPath) ?? Data(), as: UTF8.self))
            let secrets = keyTexts.flatMap { [$0, $0.lowercased()] } + ["primary log secret", "wrong log secret"]
            let all = texts.lock.withLock { texts.list }
            let leaked = all.contains { text in secrets.contains { text.contains($0) } }
            exit(!all.isEmpty && keyTexts.count == 2 && keyTexts[0] != keyTexts[1] && !leaked ? 0 : 1)
        }
    }
}
