import ArgumentParser
import Foundation
import GRDBCipher

struct EncryptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Write an encrypted copy of a plaintext SQLite database.",
        discussion: """
            The new file is written beside OUTPUT, verified (integrity, same tables and row \
            counts, opens with the key), then renamed into place: on any failure there is no \
            partial OUTPUT, and the input is never changed. The key of the new file is asked \
            twice on the terminal, or read with --passphrase-env or --passphrase-file.

            Examples:
              grdbcipher encrypt plain.db encrypted.db
              grdbcipher encrypt plain.db encrypted.db --passphrase-file key.txt --format 3
            """)

    @Argument(help: "The plaintext database.") var input: String
    @Argument(help: "The encrypted file to write.") var output: String
    @OptionGroup var keyOptions: KeyOptions
    @OptionGroup var target: TargetCipherOptions
    @Flag(help: "Replace OUTPUT if it exists.") var force = false
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        try Paths.requireInput(input)
        try Paths.requireOutput(output, besides: input, force: force)
        Paths.removeStaleTemporaries(besides: output)
        let info = try SQLCipherFile.inspect(atPath: input)
        switch info.content {
        case .plaintext: break
        case .encrypted: throw CLIFailure(.failure, "\(input) is already encrypted: use rekey to change its key, or export to change its settings")
        case .empty, .notADatabase: throw CLIFailure(.keyOrNotADatabase, "not a database: \(input)")
        }
        let key = try keyOptions.source.readKey(confirm: true, for: output)
        let settings = try target.settings(for: key)
        let source = try InputDatabase(path: input, info: info, key: nil, settings: CipherSettings()).open(readonly: true)
        defer { try? source.close() }
        let report = try Export.run(source, to: output, key: key.key, settings: settings, force: force, quiet: quiet, label: "encrypting")
        printResult("encrypted \(input) into \(output): \(counted(report.tableCount, "table")), \(counted(report.rowCount, "row")), SQLCipher \(target.format ?? 4)", quiet: quiet)
    }
}

/// The export every writing command goes through: the library's write-beside, verify, rename.
enum Export {
    static func run(_ source: DatabaseQueue, to output: String, key: CipherKey?, settings: CipherSettings, force: Bool, quiet: Bool, label: String) throws -> DatabaseExportReport {
        var options = key.map { DatabaseExportOptions.encrypted(with: $0, settings: settings) } ?? .plaintext
        options.replacesExistingFile = force
        let bar = ProgressBar(label, quiet: quiet)
        options.progress = bar.callback
        defer { bar.finish() }
        do {
            return try source.exportDatabase(to: output, options: options)
        } catch is DatabaseError where !force && FileManager.default.fileExists(atPath: output) {
            // The output did not exist when the command checked it: another run wrote it
            // meanwhile (before or after this export began). One message for both cases.
            throw CLIFailure(.failure, "the output file exists: \(output) (another run wrote it first)")
        }
    }
}
