import ArgumentParser
import Foundation
import GRDBCipher

struct DecryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Write a plaintext copy of an encrypted database.",
        discussion: """
            The plaintext file is written beside OUTPUT, verified, then renamed into place; the \
            input is never changed. Anyone who can read OUTPUT can read the data.

            Examples:
              grdbcipher decrypt encrypted.db plain.db
              grdbcipher decrypt old.db plain.db --passphrase-env OLD_KEY --in-page-size 8192
            """)

    @Argument(help: "The encrypted database.") var input: String
    @Argument(help: "The plaintext file to write.") var output: String
    @OptionGroup var keyOptions: KeyOptions
    @OptionGroup var cipherOptions: InputCipherOptions
    @Flag(help: "Replace OUTPUT if it exists.") var force = false
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        // Paths first, so that no key is asked for a command that cannot run.
        try Paths.requireInput(input)
        try Paths.requireOutput(output, besides: input, force: force)
        Paths.removeStaleTemporaries(besides: output)
        let database = try InputDatabase.resolve(path: input, keyOptions: keyOptions, cipherOptions: cipherOptions)
        guard database.isEncrypted else {
            throw CLIFailure(.failure, "\(input) is not encrypted: there is nothing to decrypt")
        }
        let source = try database.open(readonly: true)
        defer { try? source.close() }
        let report = try Export.run(source, to: output, key: nil, settings: CipherSettings(), force: force, quiet: quiet, label: "decrypting")
        printResult("decrypted \(input) into \(output): \(counted(report.tableCount, "table")), \(counted(report.rowCount, "row"))", quiet: quiet)
    }
}
