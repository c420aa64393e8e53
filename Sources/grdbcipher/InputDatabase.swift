import Foundation
import GRDBCipher

/// A database file a command reads: what it is, and how to open it.
struct InputDatabase {
    let path: String
    let info: SQLCipherFileInfo
    /// The key, for an encrypted file.
    let key: CipherKey?
    /// The settings that open an encrypted file with its key.
    let settings: CipherSettings
    /// The unlocked keyring that keys the file, instead of `key`.
    var keyring: DatabaseKeyring?

    var isEncrypted: Bool { info.content == .encrypted }

    /// Inspects the file and, when it is encrypted, reads its key (from the options, or on the
    /// terminal) and checks that it opens it.
    ///
    /// A file with an interrupted transaction (a hot journal) is rolled back first when
    /// `rollsBackInterruptedTransaction` (commands that rewrite the file), and refused
    /// otherwise: a read-only command cannot read it.
    ///
    /// - Throws: status 3 when the file is not a database or the key does not open it.
    static func resolve(path: String, keyOptions: KeyOptions, cipherOptions: InputCipherOptions, keyringOptions: KeyringUnlockOptions? = nil, rollsBackInterruptedTransaction: Bool = false) throws -> InputDatabase {
        try Paths.requireInput(path)
        if let keyringOptions, keyringOptions.isGiven {
            if keyOptions.source.isGiven {
                throw CLIFailure.usage("give the passphrase options or the keyring options, not both")
            }
            // The keyring checks that it belongs to the file, and its key opens it.
            let shape = try SQLCipherFile.inspect(atPath: path)
            do {
                let keyring = try keyringOptions.unlock(path)
                return InputDatabase(path: path, info: shape, key: nil, settings: CipherSettings(), keyring: keyring)
            } catch let error as KeyringError {
                throw CLIFailure(error)
            }
        }
        let inputSettings = try cipherOptions.settings()
        var shape = try SQLCipherFile.inspect(atPath: path)
        if let journal = shape.hotJournal {
            guard rollsBackInterruptedTransaction else {
                throw CLIFailure(.failure, "\(path) has an interrupted transaction in \(journal) (a hot journal): "
                    + "it is rolled back when a program opens the file read-write (your application, grdbcipher rekey "
                    + "or upgrade); this command only reads, and cannot read the file until then")
            }
            try SQLCipherFile.rollBackInterruptedTransaction(atPath: path)
            printNote("rolled back the interrupted transaction in \(journal)")
            shape = try SQLCipherFile.inspect(atPath: path)
        }
        switch shape.content {
        case .notADatabase:
            throw CLIFailure(.keyOrNotADatabase, "not a database: \(path)" + (shape.reason.map { " (\($0))" } ?? ""))
        case .empty:
            throw CLIFailure(.keyOrNotADatabase, "empty file, not a database: \(path)")
        case .plaintext:
            if keyOptions.source.isGiven {
                printNote("\(path) is a plaintext SQLite database: the key is not used")
            }
            return InputDatabase(path: path, info: shape, key: nil, settings: CipherSettings())
        case .encrypted:
            break
        }
        let key = try keyOptions.source.readKey(confirm: false, for: path).key
        let info = try SQLCipherFile.inspect(atPath: path, key: key, settings: inputSettings)
        guard info.keyOpensFile == true else {
            throw CLIFailure(.keyOrNotADatabase, "the key does not open \(path): wrong key, or cipher settings other than SQLCipher 1 to 4 defaults (see --in-page-size, --in-kdf-iter, --in-plaintext-header)")
        }
        let settings = inputSettings ?? info.sqlcipherFormat.map { CipherSettings(compatibility: $0) } ?? info.settings ?? CipherSettings()
        return InputDatabase(path: path, info: info, key: key, settings: settings)
    }

    /// Opens the file. `readonly` connections cannot change it.
    func open(readonly: Bool) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = readonly
        if let keyring {
            configuration.prepareDatabase { db in try db.useKeyring(keyring) }
        } else if let key {
            let settings = self.settings
            configuration.prepareDatabase { db in try db.use(key, settings: settings) }
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
