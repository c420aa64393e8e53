import CSQLCipher
import Foundation

/// Key material for an SQLCipher database: a passphrase, run through SQLCipher's key derivation,
/// or a raw 256-bit key that skips it.
///
/// ```swift
/// let key = CipherKey.passphrase(passphrase)            // from a key file or the environment
/// let raw = try CipherKey.rawKey(keyData)               // 32 bytes
/// let salted = try CipherKey.rawKey(keyData, salt: salt) // 32 + 16 bytes
/// ```
///
/// A raw key skips the key derivation that a SQLCipher 4 passphrase costs on every connection
/// open (256,000 PBKDF2-HMAC-SHA512 rounds). Its description never shows the key.
public struct CipherKey: Sendable, CustomStringConvertible {
    enum Material: Sendable {
        case passphrase(Data)
        case raw(key: Data, salt: Data?)
    }

    let material: Material

    /// A passphrase given as bytes. An empty passphrase is refused when the key is used.
    public static func passphrase(_ passphrase: Data) -> CipherKey {
        CipherKey(material: .passphrase(passphrase))
    }

    /// A passphrase, as its UTF-8 bytes.
    public static func passphrase(_ passphrase: String) -> CipherKey {
        CipherKey(material: .passphrase(Data(passphrase.utf8)))
    }

    /// A raw 32-byte key, with an optional 16-byte salt (needed to open a database whose salt is
    /// not stored in the file, as with a plaintext header).
    public static func rawKey(_ key: Data, salt: Data? = nil) throws -> CipherKey {
        guard key.count == 32 else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a raw SQLCipher key has 32 bytes, not \(key.count)")
        }
        if let salt, salt.count != 16 {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "an SQLCipher salt has 16 bytes, not \(salt.count)")
        }
        return CipherKey(material: .raw(key: key, salt: salt))
    }

    /// A raw key from hexadecimal: 64 digits, or 96 with the salt.
    public static func rawKey(hex: String) throws -> CipherKey {
        guard let bytes = Data(hexadecimal: hex), bytes.count == 32 || bytes.count == 48 else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a raw SQLCipher key is 64 hexadecimal digits, or 96 with its salt")
        }
        return try rawKey(bytes.prefix(32), salt: bytes.count == 48 ? bytes.suffix(16) : nil)
    }

    public var description: String {
        switch material {
        case .passphrase: return "CipherKey(passphrase)"
        case .raw(_, let salt): return salt == nil ? "CipherKey(raw)" : "CipherKey(raw, with salt)"
        }
    }

    /// Calls `body` with the bytes `sqlite3_key` takes: the passphrase, or `x'…'` for a raw key.
    /// Copies are wiped before this returns.
    func withKeyBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        switch material {
        case .passphrase(let data):
            guard !data.isEmpty else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "empty passphrase: an SQLCipher database needs a non-empty key")
            }
            return try data.withUnsafeBytes(body)
        case let .raw(key, salt):
            var bytes = Array("x'".utf8)
            appendHex(key, to: &bytes)
            if let salt { appendHex(salt, to: &bytes) }
            bytes.append(UInt8(ascii: "'"))
            defer { wipe(&bytes) }
            return try bytes.withUnsafeBytes(body)
        }
    }
}

/// The text `sqlite3_key` takes for a raw key: `x'…'` with the key and the salt (if any) in
/// hexadecimal, built byte by byte, so that no String copy of the key is left behind. The
/// caller wipes it.
func sqlcipherRawKeyText(key: [UInt8], salt: [UInt8]) -> [UInt8] {
    let digits = Array("0123456789ABCDEF".utf8)
    var text: [UInt8] = [UInt8(ascii: "x"), UInt8(ascii: "'")]
    text.reserveCapacity(3 + 2 * (key.count + salt.count))
    for bytes in [key, salt] {
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
    }
    text.append(UInt8(ascii: "'"))
    return text
}

private func appendHex(_ data: Data, to bytes: inout [UInt8]) {
    let digits = Array("0123456789ABCDEF".utf8)
    for byte in data {
        bytes.append(digits[Int(byte >> 4)])
        bytes.append(digits[Int(byte & 0x0F)])
    }
}

extension Data {
    /// Bytes from hexadecimal digits, or nil.
    init?(hexadecimal text: String) {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 65...70: return c - 55
            case 97...102: return c - 87
            default: return nil
            }
        }
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }

    var hexadecimal: String {
        map { String(format: "%02x", $0) }.joined()
    }
}
