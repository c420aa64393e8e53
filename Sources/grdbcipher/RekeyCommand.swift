import ArgumentParser
import Foundation
import GRDBCipher

struct RekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Change the key of an encrypted database, in place.",
        discussion: """
            The file is re-encrypted beside itself with the new key and the same settings, \
            verified, then renamed over the original: on any failure (wrong key, damaged file, \
            disk full, interruption) the original is left as it was. Stop the programs that use \
            the file first.

            Examples:
              grdbcipher rekey app.db
              grdbcipher rekey app.db --passphrase-env OLD_KEY --new-passphrase-env NEW_KEY
            """)

    @Argument(help: "The encrypted database.") var file: String
    @OptionGroup var keyOptions: KeyOptions
    @OptionGroup var cipherOptions: InputCipherOptions
    @OptionGroup var newKeyOptions: NewKeyOptions
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        if keyOptions.file == "-" && newKeyOptions.file == "-" {
            throw CLIFailure.usage("only one key can come from standard input")
        }
        try Paths.requireInput(file)
        Paths.removeStaleTemporaries(besides: file)
        let database = try InputDatabase.resolve(path: file, keyOptions: keyOptions, cipherOptions: cipherOptions, rollsBackInterruptedTransaction: true)
        guard let key = database.key else {
            throw CLIFailure(.failure, "\(file) is a plaintext database: use encrypt")
        }
        let newKey = try newKeyOptions.source.readKey(confirm: true, for: file)
        let bar = ProgressBar("re-keying", quiet: quiet)
        defer { bar.finish() }
        try SQLCipherFile.rekey(atPath: file, key: key, newKey: newKey.key, settings: try cipherOptions.settings(), progress: bar.callback)
        printResult("re-keyed \(file)", quiet: quiet)
    }
}
