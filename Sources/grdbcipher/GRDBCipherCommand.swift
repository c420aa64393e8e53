import ArgumentParser
import Foundation
import GRDBCipher

/// `grdbcipher`: inspect, encrypt, decrypt, export, re-key, upgrade, verify, query and dump
/// SQLCipher database files.
@main
struct GRDBCipherCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grdbcipher",
        abstract: "Encrypt, decrypt, re-key, upgrade, inspect, verify, query and dump SQLCipher databases, and manage their keyrings.",
        discussion: """
            Keys are never given on the command line: they are asked on the terminal, or read \
            from an environment variable (--passphrase-env NAME) or a file (--passphrase-file \
            PATH, - for standard input).

            Exit status: 0 ok, 1 failure, 2 usage error, 3 wrong key or not a database, \
            4 integrity problems.
            """,
        subcommands: [
            InspectCommand.self, EncryptCommand.self, DecryptCommand.self, ExportCommand.self,
            RekeyCommand.self, UpgradeCommand.self, VerifyCommand.self, QueryCommand.self, DumpCommand.self,
            KeyCommand.self,
        ])

    /// Runs the command with our exit statuses: usage errors exit with 2 (ArgumentParser's
    /// default is 64), and failures print one line, never a stack trace or a key.
    static func main() {
        let status: ExitStatus
        do {
            var command = try parseAsRoot()
            try command.run()
            status = .ok
        } catch let code as ExitCode {
            // A command that printed its result and ends with a documented status.
            Foundation.exit(code.rawValue)
        } catch let failure as CLIFailure {
            printError(failure.message)
            status = failure.status
        } catch let error as DatabaseError {
            let failure = CLIFailure(error)
            printError(failure.message)
            status = failure.status
        } catch let error as CocoaError {
            // One line, never NSCocoaErrorDomain's description with its user info.
            printError(fileSystemMessage(error))
            status = .failure
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                // --help, --version
                print(fullMessage(for: error))
                status = .ok
            } else if code == .validationFailure {
                printError(fullMessage(for: error).trimmingCharacters(in: .whitespacesAndNewlines), prefix: false)
                status = .usage
            } else {
                printError(fullMessage(for: error))
                status = .failure
            }
        }
        Foundation.exit(status.rawValue)
    }

    /// "cannot write PATH: permission denied", from a Foundation file error.
    static func fileSystemMessage(_ error: CocoaError) -> String {
        let path = (error.userInfo[NSFilePathErrorKey] as? String) ?? error.filePath ?? error.url?.path
        let reason: String
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            reason = String(cString: strerror(Int32(underlying.code))).lowercased()
        } else {
            switch error.code {
            case .fileWriteNoPermission, .fileReadNoPermission: reason = "permission denied"
            case .fileNoSuchFile, .fileReadNoSuchFile: reason = "no such file"
            case .fileWriteOutOfSpace: reason = "no space left on device"
            case .fileWriteFileExists: reason = "file exists"
            default: reason = "file system error \(error.code.rawValue)"
            }
        }
        // Foundation numbers write errors 512 to 767 (NSFileWriteErrorMinimum…Maximum).
        let action = (512...767).contains(error.code.rawValue) ? "cannot write" : "cannot read"
        return path.map { "\(action) \($0): \(reason)" } ?? "\(action): \(reason)"
    }
}
