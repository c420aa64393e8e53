import ArgumentParser
import Foundation
import GRDBCipher

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write an encrypted copy of a database with other settings or another key.",
        discussion: """
            Reads INPUT (plaintext or encrypted, with --passphrase-*) and writes OUTPUT encrypted \
            with the new key (--new-passphrase-*, or asked twice on the terminal) and the target \
            settings. OUTPUT is written beside, verified, then renamed; INPUT is never changed.

            Examples:
              grdbcipher export v3.db v4.db --passphrase-env KEY --new-passphrase-env KEY --format 4
              grdbcipher export app.db fast.db --passphrase-file key.txt --new-passphrase-file key.txt --kdf-iter 64000
            """)

    @Argument(help: "The database to read.") var input: String
    @Argument(help: "The encrypted file to write.") var output: String
    @OptionGroup var keyOptions: KeyOptions
    @OptionGroup var cipherOptions: InputCipherOptions
    @OptionGroup var newKeyOptions: NewKeyOptions
    @OptionGroup var target: TargetCipherOptions
    @Flag(help: "Replace OUTPUT if it exists.") var force = false
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        // Paths first, so that no key is asked for a command that cannot run.
        try Paths.requireInput(input)
        try Paths.requireOutput(output, besides: input, force: force, hint: "use rekey to change a file in place")
        Paths.removeStaleTemporaries(besides: output)
        if keyOptions.file == "-" && newKeyOptions.file == "-" {
            throw CLIFailure.usage("only one key can come from standard input")
        }
        let database = try InputDatabase.resolve(path: input, keyOptions: keyOptions, cipherOptions: cipherOptions)
        let newKey = try newKeyOptions.source.readKey(confirm: true, for: output)
        let settings = try target.settings(for: newKey)
        let source = try database.open(readonly: true)
        defer { try? source.close() }
        let report = try Export.run(source, to: output, key: newKey.key, settings: settings, force: force, quiet: quiet, label: "exporting")
        printResult("exported \(input) into \(output): \(counted(report.tableCount, "table")), \(counted(report.rowCount, "row")), SQLCipher \(target.format ?? 4)", quiet: quiet)
    }
}
