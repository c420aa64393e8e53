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
            that is not a database or that the key does not open, 4 for a damaged file, 1 for a \
            file with an interrupted transaction (a hot journal), which cannot be read until a \
            read-write open rolls it back.
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
            print(info.description)
            if info.content == .encrypted && info.keyOpensFile == nil {
                print("key: not given (give one to see the format and the tables)")
            }
        }
        if info.hotJournal != nil {
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        switch info.content {
        case .notADatabase, .empty:
            throw ExitCode(ExitStatus.keyOrNotADatabase.rawValue)
        case .plaintext, .encrypted:
            if info.keyOpensFile == false { throw ExitCode(ExitStatus.keyOrNotADatabase.rawValue) }
            if info.reason != nil { throw ExitCode(ExitStatus.integrityProblems.rawValue) }
        }
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
        if let value = info.hotJournal { object["hotJournal"] = value }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
