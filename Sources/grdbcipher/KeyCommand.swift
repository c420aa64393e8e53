import ArgumentParser
import Foundation
import GRDBCipher

struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Manage the keyring of a database: its data key, wrapped once per key slot.",
        discussion: """
            A keyring keeps a random 256-bit data key beside its database (DB.keyring), wrapped \
            once per slot. A slot opens with a key file, an environment variable, a systemd \
            credential, or a passphrase typed on the terminal. Adding, removing or rewrapping a \
            slot never touches the database; rotate re-encrypts it with a new data key; destroy \
            makes it, and every copy of it, unreadable. See docs/KeyManagement.md.

            Examples:
              grdbcipher key init notes.sqlite --new-key-credential notes-db-key --recovery-key-file /root/notes-recovery.key
              grdbcipher key status notes.sqlite
              grdbcipher key rewrap notes.sqlite primary --keyring-key-file /root/notes-recovery.key --new-key-file /etc/notes/new.key
              grdbcipher key rotate notes.sqlite --keyring-key-file /root/notes-recovery.key
              grdbcipher verify notes.sqlite --keyring-key-file /root/notes-recovery.key

            The commands that read a database (query, dump, verify) unlock its keyring with \
            --keyring-key-file, --keyring-key-env or --keyring-key-credential.
            """,
        subcommands: [
            KeyInitCommand.self, KeyStatusCommand.self, KeyAddSlotCommand.self, KeyRemoveSlotCommand.self,
            KeyRewrapCommand.self, KeyRotateCommand.self, KeyDestroyCommand.self,
        ])
}

/// Unlocks the keyring of `file`, runs `body` with it, and forgets its keys; keyring errors
/// are reported with their exit status.
private func withUnlockedKeyring(_ options: KeyringUnlockOptions, _ file: String, _ body: (DatabaseKeyring) throws -> Void) throws {
    try withKeyringErrors {
        let keyring = try options.unlock(file)
        defer { keyring.forget() }
        try body(keyring)
    }
}

/// Runs `body`, reporting keyring errors with their exit status.
private func withKeyringErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as KeyringError {
        throw CLIFailure(error)
    }
}

struct KeyInitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the keyring of a new or existing database.",
        discussion: """
            The keyring gets a fresh random data key and two slots: primary (--new-key-…, or a \
            passphrase typed twice) and recovery (--recovery-key-…, if given). An existing \
            database is re-encrypted to the data key through the verified export (a plaintext \
            one, or one encrypted with --passphrase-env/--passphrase-file, in the SQLCipher 4 \
            format): written beside, checked, renamed over the file. Stop the programs that use \
            it first.
            """)

    @Argument(help: "The database (it need not exist yet).") var file: String
    @Option(name: .customLong("keyring"), help: ArgumentHelp("The keyring file (default: the database path + .keyring).", valueName: "PATH"))
    var keyringPath: String?
    @OptionGroup var newKeyOptions: NewSlotKeyOptions
    @OptionGroup var recoveryOptions: RecoveryKeyOptions
    @OptionGroup var keyOptions: KeyOptions
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        try withKeyringErrors {
            let keyringPath = keyringPath ?? DatabaseKeyring.defaultKeyringPath(forDatabaseAt: file)
            if FileManager.default.fileExists(atPath: keyringPath) {
                throw CLIFailure(.failure, "a keyring exists at \(keyringPath): nothing was changed")
            }
            var currentKey: CipherKey?
            if FileManager.default.fileExists(atPath: file) {
                Paths.removeStaleTemporaries(besides: file)
                let shape = try SQLCipherFile.inspect(atPath: file)
                switch shape.content {
                case .notADatabase:
                    throw CLIFailure(.keyOrNotADatabase, "not a database: \(file)")
                case .encrypted:
                    currentKey = try keyOptions.source.readKey(confirm: false, for: file).key
                case .plaintext, .empty:
                    break
                }
            }
            let primary = try newKeyOptions.secret.keySource(confirm: true, for: file)!
            var slots: [KeySlot] = [.source("primary", primary)]
            if let recovery = try recoveryOptions.secret.keySource(confirm: true, for: file, required: false) {
                slots.append(.source("recovery", recovery))
            }
            try DatabaseKeyring.create(
                databaseAt: file, keyringPath: keyringPath, currentKey: currentKey,
                slots: slots, kdfIterations: newKeyOptions.kdfIterations)
            printResult("created \(keyringPath) for \(file): slots \(slots.map(\.name).joined(separator: ", "))", quiet: quiet)
            if slots.count == 1 {
                printNote("no recovery slot: add one with grdbcipher key add-slot \(file) recovery")
            }
        }
    }
}

struct KeyStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a keyring: its database, slots and data keys (never key material).")

    @Argument(help: "The database.") var file: String
    @Option(name: .customLong("keyring"), help: ArgumentHelp("The keyring file (default: the database path + .keyring).", valueName: "PATH"))
    var keyringPath: String?

    func run() throws {
        try withKeyringErrors {
            let path = keyringPath ?? DatabaseKeyring.defaultKeyringPath(forDatabaseAt: file)
            let status = try DatabaseKeyring.status(keyringAt: path)
            let dates = ISO8601DateFormatter()
            print("keyring \(path)")
            print("  id        \(status.keyringID)")
            print("  database  \(status.databaseName) (salt \(status.databaseSalt))")
            print("  created   \(dates.string(from: status.createdAt))")
            if let destroyed = status.destroyedAt {
                print("  destroyed \(dates.string(from: destroyed)): nothing can open its database")
                return
            }
            print("slots")
            let width = status.slots.map(\.name.count).max() ?? 0
            for slot in status.slots {
                print("  \(slot.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(slot.source), created \(dates.string(from: slot.createdAt))")
            }
            print("data keys")
            for key in status.dataKeys {
                let state = switch key.state {
                case .active: "active"
                case .pending: "pending (a rotation in progress, or interrupted: the next unlock settles it)"
                case .retired: "retired (the key before the last rotation, dropped by the next one)"
                }
                print("  \(key.id)  \(state), created \(dates.string(from: key.createdAt))")
            }
        }
    }
}

struct KeyAddSlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-slot",
        abstract: "Add a slot to a keyring (the database is not touched).")

    @Argument(help: "The database.") var file: String
    @Argument(help: "The name of the new slot.") var name: String
    @OptionGroup var unlockOptions: KeyringUnlockOptions
    @OptionGroup var newKeyOptions: NewSlotKeyOptions
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        try withUnlockedKeyring(unlockOptions, file) { keyring in
            let source = try newKeyOptions.secret.keySource(confirm: true, for: file)!
            try keyring.addSlot(.source(name, source), kdfIterations: newKeyOptions.kdfIterations)
            printResult("added slot \(name) to \(keyring.keyringPath)", quiet: quiet)
        }
    }
}

struct KeyRemoveSlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-slot",
        abstract: "Remove a slot from a keyring (never the last one; the database is not touched).")

    @Argument(help: "The database.") var file: String
    @Argument(help: "The name of the slot to remove.") var name: String
    @OptionGroup var unlockOptions: KeyringUnlockOptions
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        try withUnlockedKeyring(unlockOptions, file) { keyring in
            try keyring.removeSlot(named: name)
            printResult("removed slot \(name) from \(keyring.keyringPath)", quiet: quiet)
        }
    }
}

struct KeyRewrapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewrap",
        abstract: "Give a slot a new key (the database is not touched; running services keep working).")

    @Argument(help: "The database.") var file: String
    @Argument(help: "The slot to rewrap.") var name: String
    @OptionGroup var unlockOptions: KeyringUnlockOptions
    @OptionGroup var newKeyOptions: NewSlotKeyOptions
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        try withUnlockedKeyring(unlockOptions, file) { keyring in
            let source = try newKeyOptions.secret.keySource(confirm: true, for: file)!
            try keyring.rewrapSlot(named: name, with: source, kdfIterations: newKeyOptions.kdfIterations)
            printResult("rewrapped slot \(name) of \(keyring.keyringPath)", quiet: quiet)
        }
    }
}

struct KeyRotateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Re-encrypt the database with a new random data key.",
        discussion: """
            The keyring records the new key as pending, the database is re-keyed and verified, \
            then the new key becomes the active one: after an interruption at any point, the \
            next unlock keeps the key that opens the database. Stop the programs that use the \
            database first: a service rotates online with DatabaseKeyring.rotateDataKey(in:).
            """)

    @Argument(help: "The database.") var file: String
    @OptionGroup var unlockOptions: KeyringUnlockOptions
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        try Paths.requireInput(file)
        try withUnlockedKeyring(unlockOptions, file) { keyring in
            try keyring.rotateDataKey()
            let active = try keyring.status().dataKeys.first { $0.state == .active }
            printResult("rotated the data key of \(file)" + (active.map { ": data key \($0.id)" } ?? ""), quiet: quiet)
        }
    }
}

struct KeyDestroyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "destroy",
        abstract: "Destroy every slot of a keyring: the database and all its copies become unreadable.",
        discussion: """
            Crypto-shredding: the keyring is overwritten and replaced by a record of its \
            destruction; no key of it remains. Copies of the keyring file (in a backup) still \
            open the database: destroy them too. Asks for confirmation on the terminal (type the \
            database's file name); --yes skips it.
            """)

    @Argument(help: "The database.") var file: String
    @Option(name: .customLong("keyring"), help: ArgumentHelp("The keyring file (default: the database path + .keyring).", valueName: "PATH"))
    var keyringPath: String?
    @Flag(help: "Do not ask for confirmation.") var yes = false
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        try withKeyringErrors {
            let path = keyringPath ?? DatabaseKeyring.defaultKeyringPath(forDatabaseAt: file)
            let status = try DatabaseKeyring.status(keyringAt: path)
            if status.destroyedAt != nil {
                printResult("\(path) was destroyed already", quiet: quiet)
                return
            }
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw CLIFailure.usage("destroy asks for confirmation on a terminal: give --yes to destroy \(path) without it")
                }
                FileHandle.standardError.write(Data("This destroys every key of \(path): \(status.databaseName) and all its copies become unreadable, for ever.\nType the database name (\(status.databaseName)) to confirm: ".utf8))
                let answer = readLine(strippingNewline: true) ?? ""
                guard answer == status.databaseName else {
                    throw CLIFailure(.failure, "not confirmed: \(path) was left as it was")
                }
            }
            try DatabaseKeyring.destroy(keyringAt: path)
            printResult("destroyed \(path): \(status.databaseName) can no longer be opened", quiet: quiet)
        }
    }
}
