import ArgumentParser
import Foundation
import GRDBCipher

struct UpgradeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upgrade",
        abstract: "Bring an SQLCipher 1, 2 or 3 database to the SQLCipher 4 format.",
        discussion: """
            In place (the default), the file is migrated on a copy beside it, verified, then \
            renamed over the original; with --output, the original is left alone and the \
            SQLCipher 4 file is written at OUTPUT. The key stays the same.

            Examples:
              grdbcipher upgrade legacy.db --passphrase-env KEY
              grdbcipher upgrade legacy.db --output modern.db
            """)

    @Argument(help: "The SQLCipher database.") var file: String
    @Option(help: ArgumentHelp("Write the upgraded database there instead of in place.", valueName: "OUTPUT")) var output: String?
    @OptionGroup var keyOptions: KeyOptions
    @OptionGroup var cipherOptions: InputCipherOptions
    @Flag(help: "Replace OUTPUT if it exists.") var force = false
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() throws {
        try Paths.requireInput(file)
        if let output {
            try Paths.requireOutput(output, besides: file, force: force, hint: "leave --output out to upgrade in place")
        }
        Paths.removeStaleTemporaries(besides: output ?? file)
        let database = try InputDatabase.resolve(path: file, keyOptions: keyOptions, cipherOptions: cipherOptions, rollsBackInterruptedTransaction: output == nil)
        guard let key = database.key else {
            throw CLIFailure(.failure, "\(file) is a plaintext database: use encrypt")
        }
        let previous = database.info.sqlcipherFormat.map { "SQLCipher \($0)" } ?? "custom settings"
        if let output {
            let source = try database.open(readonly: true)
            defer { try? source.close() }
            let report = try Export.run(source, to: output, key: key, settings: .sqlcipher4, force: force, quiet: quiet, label: "upgrading")
            printResult("upgraded \(file) (\(previous)) into \(output) (SQLCipher 4): \(counted(report.tableCount, "table")), \(counted(report.rowCount, "row"))", quiet: quiet)
            return
        }
        let inputSettings = try cipherOptions.settings()
        var prepare: (@Sendable (Database) throws -> Void)?
        if let inputSettings {
            prepare = { db in try db.applyCipherSettings(inputSettings) }
        }
        let report = try SQLCipherFile.upgrade(atPath: file, key: key, prepareLegacyConnection: prepare)
        switch report.method {
        case .alreadyCurrent:
            printResult("\(file) is already in the SQLCipher 4 format: nothing to do", quiet: quiet)
        case .cipherMigrate, .export:
            printResult("upgraded \(file) from \(previous) to SQLCipher 4", quiet: quiet)
        }
    }
}
