import ArgumentParser
import Foundation
import GRDBCipher

/// Cipher settings of the file a command reads, when they are not a standard SQLCipher
/// format (the standard ones, 1 to 4, are found without help).
struct InputCipherOptions: ParsableArguments {
    @Option(name: .customLong("in-format"), help: ArgumentHelp("The input's SQLCipher format (1 to 4), when its other settings differ from that format's defaults.", valueName: "N"))
    var format: Int?

    @Option(name: .customLong("in-page-size"), help: ArgumentHelp("The input's cipher page size.", valueName: "BYTES"))
    var pageSize: Int?

    @Option(name: .customLong("in-kdf-iter"), help: ArgumentHelp("The input's key derivation iterations.", valueName: "N"))
    var kdfIterations: Int?

    @Flag(name: .customLong("in-plaintext-header"), help: "The input starts with a 32-byte plaintext header.")
    var plaintextHeader = false

    @Option(name: .customLong("in-salt"), help: ArgumentHelp("The input's salt in hexadecimal (32 digits), for files with a plaintext header.", valueName: "HEX"))
    var salt: String?

    /// The settings, or nil when none was given.
    func settings() throws -> CipherSettings? {
        var settings = CipherSettings(
            compatibility: format, pageSize: pageSize, kdfIterations: kdfIterations,
            plaintextHeaderSize: plaintextHeader ? 32 : nil)
        if let salt {
            guard let bytes = Data(hex: salt), bytes.count == 16 else {
                throw CLIFailure.usage("--in-salt takes 32 hexadecimal digits")
            }
            settings.salt = bytes
        }
        return settings.isEmpty ? nil : settings
    }
}

/// Cipher settings of a new encrypted file.
struct TargetCipherOptions: ParsableArguments {
    @Option(help: ArgumentHelp("SQLCipher format of the new file: 3 or 4 (default 4).", valueName: "N"))
    var format: Int?

    @Option(name: .customLong("page-size"), help: ArgumentHelp("Page size of the new file (default 4096).", valueName: "BYTES"))
    var pageSize: Int?

    @Option(name: .customLong("kdf-iter"), help: ArgumentHelp("Key derivation iterations of the new file (default: the format's).", valueName: "N"))
    var kdfIterations: Int?

    @Flag(name: .customLong("plaintext-header"), help: "Keep the first 32 bytes of the new file in plaintext (for systems that need to recognize a SQLite file). Needs a raw key with its salt.")
    var plaintextHeader = false

    func settings(for key: CLIKey) throws -> CipherSettings {
        if let format, format != 3 && format != 4 {
            throw CLIFailure.usage("--format takes 3 or 4")
        }
        if plaintextHeader && !key.hasSalt {
            throw CLIFailure.usage("--plaintext-header needs a raw key with its salt (96 hexadecimal digits): the salt is not stored in such a file")
        }
        let settings = CipherSettings(
            compatibility: format, pageSize: pageSize, kdfIterations: kdfIterations,
            plaintextHeaderSize: plaintextHeader ? 32 : nil)
        do {
            try settings.validate()
        } catch let error as DatabaseError {
            throw CLIFailure.usage(error.message ?? "invalid cipher settings")
        }
        return settings
    }
}

extension Data {
    /// Bytes from hexadecimal digits, or nil.
    init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
