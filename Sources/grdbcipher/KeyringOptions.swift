import ArgumentParser
import Foundation
import GRDBCipher

/// Where the secret of a key slot comes from on the command line: a key file, an environment
/// variable, a systemd credential, or a passphrase typed on the terminal. Never argv.
struct SlotSecretSource {
    /// What the secret is for, in messages: "key", "new key", "recovery key".
    var role: String
    /// The option prefix: "--keyring-key", "--new-key", "--recovery-key".
    var optionPrefix: String
    var file: String?
    var environmentVariable: String?
    var credential: String?

    var isGiven: Bool { file != nil || environmentVariable != nil || credential != nil }

    /// The key source. With no option, on a terminal, asks for a passphrase without echo
    /// (twice when `confirm`). `required`: without any channel, a usage error; otherwise nil.
    func keySource(confirm: Bool, for path: String, required: Bool = true) throws -> KeySource? {
        let given = [file, environmentVariable, credential].compactMap { $0 }
        guard given.count <= 1 else {
            throw CLIFailure.usage("give the \(role) with one of \(optionPrefix)-file, \(optionPrefix)-env, \(optionPrefix)-credential")
        }
        if let file {
            if file == "-" {
                var data = try SecretSource.readSecretFile("-", option: "\(optionPrefix)-file")
                defer { data.resetBytes(in: 0..<data.count) }
                return .passphrase(data)
            }
            return .keyFile(file)
        }
        if let environmentVariable { return .environment(environmentVariable) }
        if let credential { return .credential(credential) }
        guard required else { return nil }
        guard isatty(STDIN_FILENO) == 1 else {
            throw CLIFailure.usage("no \(role) for \(path): give it with \(optionPrefix)-file PATH, \(optionPrefix)-env NAME or \(optionPrefix)-credential NAME, or run on a terminal")
        }
        let secret = try Terminal.readSecret(prompt: "\(role.prefix(1).uppercased() + role.dropFirst()) (passphrase) for \(path): ")
        if confirm {
            let again = try Terminal.readSecret(prompt: "Repeat the \(role): ")
            guard again == secret else { throw CLIFailure.usage("the two passphrases differ") }
        }
        guard !secret.isEmpty else { throw CLIFailure.usage("the \(role) is empty") }
        return .passphrase(secret)
    }
}

/// The keyring of a database, and the secret that unlocks one of its slots.
struct KeyringUnlockOptions: ParsableArguments {
    @Option(name: .customLong("keyring"), help: ArgumentHelp("The keyring file (default: the database path + .keyring).", valueName: "PATH"))
    var keyringPath: String?

    @Option(name: .customLong("keyring-key-file"), help: ArgumentHelp("Unlock the keyring with this key file (- for standard input).", valueName: "PATH"))
    var file: String?

    @Option(name: .customLong("keyring-key-env"), help: ArgumentHelp("Unlock the keyring with this environment variable.", valueName: "NAME"))
    var environmentVariable: String?

    @Option(name: .customLong("keyring-key-credential"), help: ArgumentHelp("Unlock the keyring with this systemd credential ($CREDENTIALS_DIRECTORY/NAME).", valueName: "NAME"))
    var credential: String?

    @Option(name: .customLong("keyring-slot"), help: ArgumentHelp("Try this slot only.", valueName: "NAME"))
    var slot: String?

    /// Whether an option names the keyring or its key: a command that also reads passphrases
    /// then uses the keyring.
    var isGiven: Bool { keyringPath != nil || file != nil || environmentVariable != nil || credential != nil }

    var secret: SlotSecretSource {
        SlotSecretSource(role: "keyring key", optionPrefix: "--keyring-key", file: file, environmentVariable: environmentVariable, credential: credential)
    }

    func keyringPath(for database: String) -> String {
        keyringPath ?? DatabaseKeyring.defaultKeyringPath(forDatabaseAt: database)
    }

    /// Unlocks the keyring of `database`.
    func unlock(_ database: String) throws -> DatabaseKeyring {
        let source = try secret.keySource(confirm: false, for: keyringPath(for: database))!
        return try DatabaseKeyring.unlock(databaseAt: database, keyringPath: keyringPath, with: source, slot: slot)
    }
}

/// The secret of a new slot.
struct NewSlotKeyOptions: ParsableArguments {
    @Option(name: .customLong("new-key-file"), help: ArgumentHelp("The new slot's key file (checked as ssh checks a private key; - for standard input).", valueName: "PATH"))
    var file: String?

    @Option(name: .customLong("new-key-env"), help: ArgumentHelp("The new slot's key, from this environment variable.", valueName: "NAME"))
    var environmentVariable: String?

    @Option(name: .customLong("new-key-credential"), help: ArgumentHelp("The new slot's key, from this systemd credential.", valueName: "NAME"))
    var credential: String?

    @Option(name: .customLong("kdf-iterations"), help: ArgumentHelp("PBKDF2-HMAC-SHA512 iterations of the new slots (default 256000).", valueName: "N"))
    var kdfIterations: Int = DatabaseKeyring.defaultKDFIterations

    var secret: SlotSecretSource {
        SlotSecretSource(role: "new key", optionPrefix: "--new-key", file: file, environmentVariable: environmentVariable, credential: credential)
    }
}

/// The secret of the recovery slot of a new keyring.
struct RecoveryKeyOptions: ParsableArguments {
    @Option(name: .customLong("recovery-key-file"), help: ArgumentHelp("The recovery slot's key file.", valueName: "PATH"))
    var file: String?

    @Option(name: .customLong("recovery-key-env"), help: ArgumentHelp("The recovery slot's key, from this environment variable.", valueName: "NAME"))
    var environmentVariable: String?

    @Option(name: .customLong("recovery-key-credential"), help: ArgumentHelp("The recovery slot's key, from this systemd credential.", valueName: "NAME"))
    var credential: String?

    var secret: SlotSecretSource {
        SlotSecretSource(role: "recovery key", optionPrefix: "--recovery-key", file: file, environmentVariable: environmentVariable, credential: credential)
    }
}

extension CLIFailure {
    /// A keyring error, with the status its code calls for.
    init(_ error: KeyringError) {
        switch error.code {
        case .wrongKey, .wrongDatabase, .destroyed:
            self.init(.keyOrNotADatabase, error.message)
        case .damagedKeyring:
            self.init(.integrityProblems, error.message)
        default:
            self.init(.failure, error.message)
        }
    }
}
