import ArgumentParser
import Foundation
import GRDBCipher

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Tell what a file is: plaintext SQLite, SQLCipher, or not a database.",
        discussion: """
            Without a key: whether the file is plaintext SQLite, SQLCipher-encrypted (and whether \
            it has a plaintext header), or not a database. With a key: its SQLCipher format (1 to \
            4, or custom settings), page size, KDF, journal mode, user_version, and its tables \
            with their row counts. The file is only read.

            Examples:
              grdbcipher inspect app.db
              APP_DB_KEY=... grdbcipher inspect app.db --passphrase-env APP_DB_KEY --json

            Exit status: 0 for a database (that the key opens, if one is given), 3 for a file \
            that is not a database or that the key does not open, 4 for a damaged file.
            """)

    @Argument(help: "The database file.")
    var file: String

    @Flag(help: "Print JSON (for scripts).")
    var json = false

    @Flag(help: "Ask for the passphrase on the terminal.")
    var ask = false

    @OptionGroup var keyOptions: KeyOptions
    @OptionGroup var cipherOptions: InputCipherOptions

    func run() throws {
        try Paths.requireInput(file)
        var key: CipherKey?
        if keyOptions.source.isGiven || ask {
            key = try keyOptions.source.readKey(confirm: false, for: file).key
        }
        let info = try SQLCipherFile.inspect(atPath: file, key: key, settings: try cipherOptions.settings())
        if json {
            print(try Self.json(info))
        } else {
            print(Self.text(info))
        }
        switch info.content {
        case .notADatabase, .empty:
            throw ExitCode(ExitStatus.keyOrNotADatabase.rawValue)
        case .plaintext, .encrypted:
            if info.keyOpensFile == false { throw ExitCode(ExitStatus.keyOrNotADatabase.rawValue) }
            if info.reason != nil { throw ExitCode(ExitStatus.integrityProblems.rawValue) }
        }
    }

    static func text(_ info: SQLCipherFileInfo) -> String {
        var lines: [String] = []
        switch info.content {
        case .plaintext: lines.append("\(info.path): plaintext SQLite database")
        case .encrypted: lines.append("\(info.path): SQLCipher-encrypted database" + (info.hasPlaintextHeader ? " (plaintext header)" : ""))
        case .empty: lines.append("\(info.path): empty file (not a database)")
        case .notADatabase: lines.append("\(info.path): not a database")
        }
        lines.append("size: \(info.fileSize) bytes")
        if let keyOpensFile = info.keyOpensFile {
            lines.append("key opens the file: \(keyOpensFile ? "yes" : "no")")
        } else if info.content == .encrypted {
            lines.append("key: not given (give one to see the format and the tables)")
        }
        if let format = info.sqlcipherFormat {
            lines.append("format: SQLCipher \(format)")
        } else if info.keyOpensFile == true {
            lines.append("format: custom settings")
        }
        if let settings = info.settings {
            if let pageSize = settings.pageSize { lines.append("cipher page size: \(pageSize)") }
            if let kdf = settings.kdfAlgorithm { lines.append("KDF: \(kdf.rawValue), \(settings.kdfIterations.map(String.init) ?? "?") iterations") }
            else if let iterations = settings.kdfIterations { lines.append("KDF iterations: \(iterations)") }
            if settings.usesHMAC == false { lines.append("HMAC: none") }
            else if let hmac = settings.hmacAlgorithm { lines.append("HMAC: \(hmac.rawValue)") }
        }
        if let pageSize = info.pageSize, info.settings?.pageSize == nil { lines.append("page size: \(pageSize)") }
        if let journalMode = info.journalMode { lines.append("journal mode: \(journalMode)") }
        if let userVersion = info.userVersion { lines.append("user_version: \(userVersion)") }
        if let tables = info.tableRowCounts {
            lines.append("tables: \(tables.count)")
            let width = tables.keys.map(\.count).max() ?? 0
            for (table, count) in tables.sorted(by: { $0.key < $1.key }) {
                lines.append("  " + table.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(count) row\(count == 1 ? "" : "s")")
            }
        }
        if let reason = info.reason { lines.append("note: \(reason)") }
        return lines.joined(separator: "\n")
    }

    static func json(_ info: SQLCipherFileInfo) throws -> String {
        var object: [String: Any] = [
            "path": info.path,
            "size": info.fileSize,
            "content": info.content.rawValue,
            "plaintextHeader": info.hasPlaintextHeader,
        ]
        if let keyOpensFile = info.keyOpensFile { object["keyOpensFile"] = keyOpensFile }
        if let format = info.sqlcipherFormat { object["format"] = format }
        else if info.keyOpensFile == true { object["format"] = "custom" }
        if let settings = info.settings {
            var cipher: [String: Any] = [:]
            if let value = settings.pageSize { cipher["pageSize"] = value }
            if let value = settings.kdfIterations { cipher["kdfIterations"] = value }
            if let value = settings.kdfAlgorithm { cipher["kdfAlgorithm"] = value.rawValue }
            if let value = settings.hmacAlgorithm { cipher["hmacAlgorithm"] = value.rawValue }
            if let value = settings.usesHMAC { cipher["hmac"] = value }
            if let value = settings.plaintextHeaderSize { cipher["plaintextHeaderSize"] = value }
            object["cipher"] = cipher
        }
        if let value = info.pageSize { object["pageSize"] = value }
        if let value = info.journalMode { object["journalMode"] = value }
        if let value = info.userVersion { object["userVersion"] = value }
        if let value = info.tableRowCounts { object["tables"] = value }
        if let value = info.reason { object["reason"] = value }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
