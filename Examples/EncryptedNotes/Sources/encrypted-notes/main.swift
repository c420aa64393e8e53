import EncryptedNotesApp
import Foundation
import GRDBCipher
import GRDBCipherService
import Hummingbird
import Logging

// encrypted-notes: the notes service, and the commands that prepare and restore its database.
// The key never appears on the command line: only the path of a key file or the name of a
// systemd credential does.

let usage = """
    usage:
      encrypted-notes init    --database PATH (--key-file PATH | --credential NAME) [--recovery-key-file PATH]
      encrypted-notes serve   --database PATH (--key-file PATH | --credential NAME | --plaintext-for-benchmarks)
                              [--hostname 127.0.0.1] [--port 8080] [--port-file PATH] [--backups DIR] [--log-level info] [--readers N]
      encrypted-notes restore --database PATH --backup PATH (--key-file PATH | --credential NAME)

    With neither --key-file nor --credential, the systemd credential "notes-db-key" is used.
    """

struct UsageError: Error, CustomStringConvertible {
    var description: String
}

/// The options after the command: `--name value` pairs, and flags.
struct Options {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    static let flagNames: Set<String> = ["--plaintext-for-benchmarks"]

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let name = rest.popFirst() {
            guard name.hasPrefix("--") else { throw UsageError(description: "unexpected argument \(name)") }
            if Self.flagNames.contains(name) {
                flags.insert(name)
            } else if let value = rest.popFirst() {
                values[name] = value
            } else {
                throw UsageError(description: "\(name) needs a value")
            }
        }
    }

    subscript(_ name: String) -> String? { values[name] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func required(_ name: String) throws -> String {
        guard let value = values[name] else { throw UsageError(description: "\(name) is required") }
        return value
    }

    /// Where the secret that unlocks the keyring comes from.
    var keySource: KeySource {
        if let path = values["--key-file"] { return .keyFile(path) }
        return .credential(values["--credential"] ?? "notes-db-key")
    }
}

// snippet: keyring
func initialize(_ options: Options) throws {
    let path = try options.required("--database")
    var slots = [KeySlot.source("primary", options.keySource)]
    if let recovery = options["--recovery-key-file"] {
        slots.append(.source("recovery", .keyFile(recovery)))
    }
    try DatabaseKeyring.create(databaseAt: path, slots: slots)
    print("created the keyring of \(path) with the slots \(slots.map(\.name).joined(separator: ", "))")
}
// end snippet: keyring

func serve(_ options: Options) async throws {
    let path = try options.required("--database")
    let key: DatabaseServiceKey = options.has("--plaintext-for-benchmarks") ? .configuration : .keyring(options.keySource)
    let backups = options["--backups"] ?? URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("backups").path
    try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
    var settings = NotesSettings(databasePath: path, key: key, backupDirectory: backups)
    settings.hostname = options["--hostname"] ?? settings.hostname
    if let port = options["--port"] {
        guard let number = Int(port) else { throw UsageError(description: "--port takes a number") }
        settings.port = number
    }
    settings.portFile = options["--port-file"]
    if let readers = options["--readers"] {
        guard let number = Int(readers), number > 0 else { throw UsageError(description: "--readers takes a positive number") }
        settings.maximumReaderCount = number
    }
    if let level = options["--log-level"] {
        guard let parsed = Logger.Level(rawValue: level) else { throw UsageError(description: "unknown log level \(level)") }
        settings.logLevel = parsed
    }
    let app = try buildApplication(settings)
    try await app.runService()
}

// snippet: restore
func restore(_ options: Options) throws {
    let path = try options.required("--database")
    let backup = try options.required("--backup")
    let replaced = try DatabaseService.restore(backupAt: backup, to: path, key: .keyring(options.keySource))
    print("restored \(path) from \(backup)" + (replaced.map { "; the replaced files are at \($0)" } ?? ""))
}
// end snippet: restore

let arguments = CommandLine.arguments.dropFirst()
do {
    guard let command = arguments.first else { throw UsageError(description: "a command is required") }
    let options = try Options(arguments.dropFirst())
    switch command {
    case "init": try initialize(options)
    case "serve": try await serve(options)
    case "restore": try restore(options)
    default: throw UsageError(description: "unknown command \(command)")
    }
} catch let error as UsageError {
    FileHandle.standardError.write(Data("encrypted-notes: \(error)\n\(usage)\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("encrypted-notes: \(error)\n".utf8))
    exit(1)
}
