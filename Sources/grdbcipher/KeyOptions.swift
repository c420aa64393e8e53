import ArgumentParser
import Foundation
import GRDBCipher

/// Where a key comes from: an environment variable, a file (or standard input), or a prompt on
/// the terminal. Never the command line, where `ps` and the shell history would show it.
struct SecretSource {
    /// The name of the option family, for messages: "passphrase" or "new passphrase".
    var role: String
    /// The options that set it, for messages.
    var envOption: String
    var fileOption: String
    var environmentVariable: String?
    var file: String?
    /// Whether the secret is a raw key in hexadecimal.
    var isRawKey: Bool

    /// Whether an option gives the secret (no prompt needed).
    var isGiven: Bool { environmentVariable != nil || file != nil }

    /// Reads the key. On a terminal with no option, asks for it without echo (twice when
    /// `confirm`, for a new key). Fails with a usage error when no channel gives it.
    func readKey(confirm: Bool, for path: String) throws -> CLIKey {
        if environmentVariable != nil && file != nil {
            throw CLIFailure.usage("give the \(role) with \(envOption) or \(fileOption), not both")
        }
        var secret: Data
        if let name = environmentVariable {
            guard let value = ProcessInfo.processInfo.environment[name] else {
                throw CLIFailure.usage("the environment variable \(name) (\(envOption)) is not set")
            }
            secret = Data(value.utf8)
        } else if let file {
            secret = try Self.readSecretFile(file, option: fileOption)
        } else if isatty(STDIN_FILENO) == 1 {
            let what = isRawKey ? "raw key (hex)" : role
            secret = try Terminal.readSecret(prompt: "\(what.prefix(1).uppercased() + what.dropFirst()) for \(path): ")
            if confirm {
                let again = try Terminal.readSecret(prompt: "Repeat the \(what): ")
                guard again == secret else {
                    throw CLIFailure.usage("the two \(role)s differ")
                }
            }
        } else {
            throw CLIFailure.usage("no \(role) for \(path): give it with \(envOption) NAME or \(fileOption) PATH (- for standard input), or run on a terminal")
        }
        defer { secret.resetBytes(in: 0..<secret.count) }
        guard !secret.isEmpty else {
            throw CLIFailure.usage("the \(role) is empty")
        }
        if isRawKey {
            let hex = String(decoding: secret, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            do {
                return CLIKey(key: try CipherKey.rawKey(hex: hex), hasSalt: hex.count == 96)
            } catch let error as DatabaseError {
                throw CLIFailure.usage(error.message ?? "invalid raw key")
            }
        }
        return CLIKey(key: CipherKey.passphrase(secret), hasSalt: false)
    }

    /// The bytes of a key file (or standard input for "-"), without one trailing newline.
    static func readSecretFile(_ path: String, option: String) throws -> Data {
        var data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CLIFailure.usage("cannot read the key file \(path) (\(option))")
            }
            data = contents
        }
        if data.last == UInt8(ascii: "\n") { data.removeLast() }
        if data.last == UInt8(ascii: "\r") { data.removeLast() }
        return data
    }
}

/// A key read from a ``SecretSource``.
struct CLIKey {
    var key: CipherKey
    /// Whether it is a raw key with its salt.
    var hasSalt: Bool
}

/// The key of the file a command reads.
struct KeyOptions: ParsableArguments {
    @Option(name: .customLong("passphrase-env"), help: ArgumentHelp("Read the passphrase from this environment variable.", valueName: "NAME"))
    var environmentVariable: String?

    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp("Read the passphrase from this file (- for standard input); one trailing newline is ignored.", valueName: "PATH"))
    var file: String?

    @Flag(name: .customLong("raw-key"), help: "The secret is a raw key in hexadecimal: 64 digits, or 96 with the salt.")
    var isRawKey = false

    var source: SecretSource {
        SecretSource(
            role: "passphrase", envOption: "--passphrase-env", fileOption: "--passphrase-file",
            environmentVariable: environmentVariable, file: file, isRawKey: isRawKey)
    }
}

/// The key of the file a command writes, when it also reads an encrypted one.
struct NewKeyOptions: ParsableArguments {
    @Option(name: .customLong("new-passphrase-env"), help: ArgumentHelp("Read the new passphrase from this environment variable.", valueName: "NAME"))
    var environmentVariable: String?

    @Option(name: .customLong("new-passphrase-file"), help: ArgumentHelp("Read the new passphrase from this file (- for standard input).", valueName: "PATH"))
    var file: String?

    @Flag(name: .customLong("new-raw-key"), help: "The new secret is a raw key in hexadecimal: 64 digits, or 96 with the salt.")
    var isRawKey = false

    var source: SecretSource {
        SecretSource(
            role: "new passphrase", envOption: "--new-passphrase-env", fileOption: "--new-passphrase-file",
            environmentVariable: environmentVariable, file: file, isRawKey: isRawKey)
    }
}

/// The terminal settings to restore if a signal ends the program during a prompt. Written
/// before the handler is installed and read only by it.
nonisolated(unsafe) private var promptTerminal: (fd: CInt, settings: termios)?

/// Restores the terminal's echo and exits with 128 + the signal number (130 for Ctrl-C), as
/// a shell reports a program killed by it. Only async-signal-safe calls.
private func restoreTerminalAndExit(_ signal: CInt) {
    if var terminal = promptTerminal {
        tcsetattr(terminal.fd, TCSANOW, &terminal.settings)
        _ = write(terminal.fd, "\n", 1)
    }
    _exit(128 + signal)
}

/// Reads a line from the terminal without echo.
enum Terminal {
    static func readSecret(prompt: String) throws -> Data {
        let fd = open("/dev/tty", O_RDWR)
        guard fd >= 0 else {
            throw CLIFailure.usage("cannot open the terminal to ask for the key")
        }
        defer { close(fd) }
        // TCSANOW, not TCSAFLUSH: a passphrase typed (or pasted) before the prompt appears is
        // kept, not discarded.
        var original = termios()
        let canHideEcho = tcgetattr(fd, &original) == 0
        if canHideEcho {
            // Ctrl-C (or a kill) while echo is off must not leave the terminal silent.
            promptTerminal = (fd, original)
            for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
                signal(signalNumber) { restoreTerminalAndExit($0) }
            }
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(fd, TCSANOW, &silent)
        }
        defer {
            if canHideEcho {
                tcsetattr(fd, TCSANOW, &original)
                for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { signal(signalNumber, SIG_DFL) }
                promptTerminal = nil
            }
            _ = write(fd, "\n", 1)
        }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        let data = Data(bytes)
        for index in bytes.indices { bytes[index] = 0 }
        return data
    }
}
