import CSQLCipher
import Foundation

/// The primitives of the keyring, all OpenSSL's (the `libcrypto` SQLCipher itself uses): random
/// bytes, AES-256-GCM to wrap keys, PBKDF2-HMAC-SHA512 to turn a secret into a key-encryption
/// key, HMAC-SHA256 to authenticate the keyring file. Nothing here is cryptography of our own.
enum KeyringCrypto {
    /// The size of every key: data keys, the keyring's master key, key-encryption keys.
    static let keySize = 32
    static let nonceSize = 12
    static let tagSize = 16
    static let saltSize = 16

    /// A key wrapped with AES-256-GCM.
    struct Sealed: Codable, Equatable {
        var nonce: Data
        var ciphertext: Data
        var tag: Data
    }

    static func randomBytes(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard grdbcipher_random_bytes(&bytes, CInt(count)) == 1 else {
            throw KeyringError(.cryptography, "OpenSSL could not generate random bytes")
        }
        return bytes
    }

    /// Wraps `plaintext` with `key`, bound to `associatedData` (which must be given again to
    /// unwrap it).
    static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8]) throws -> Sealed {
        precondition(key.count == keySize)
        let nonce = try randomBytes(nonceSize)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagSize)
        let ok = grdbcipher_aes256gcm_seal(
            key, nonce, associatedData, CInt(associatedData.count),
            plaintext, CInt(plaintext.count), &ciphertext, &tag)
        guard ok == 1 else {
            throw KeyringError(.cryptography, "OpenSSL could not wrap a key (AES-256-GCM)")
        }
        return Sealed(nonce: Data(nonce), ciphertext: Data(ciphertext), tag: Data(tag))
    }

    /// Unwraps what ``seal(_:key:associatedData:)`` wrapped, or nil when the key is not the
    /// one, or the sealed bytes or the associated data were altered. The caller wipes the
    /// result.
    static func open(_ sealed: Sealed, key: [UInt8], associatedData: [UInt8]) -> [UInt8]? {
        guard key.count == keySize, sealed.nonce.count == nonceSize, sealed.tag.count == tagSize else { return nil }
        let nonce = Array(sealed.nonce)
        let ciphertext = Array(sealed.ciphertext)
        let tag = Array(sealed.tag)
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let ok = grdbcipher_aes256gcm_open(
            key, nonce, associatedData, CInt(associatedData.count),
            ciphertext, CInt(ciphertext.count), tag, &plaintext)
        guard ok == 1 else {
            wipe(&plaintext)
            return nil
        }
        return plaintext
    }

    /// The key-encryption key of a secret: PBKDF2-HMAC-SHA512, as SQLCipher 4 derives its keys.
    static func keyEncryptionKey(secret: [UInt8], salt: [UInt8], iterations: Int) throws -> [UInt8] {
        var key = [UInt8](repeating: 0, count: keySize)
        let ok = secret.withUnsafeBytes { secretBytes in
            grdbcipher_pbkdf2(
                secretBytes.baseAddress, CInt(secretBytes.count),
                salt, CInt(salt.count),
                CInt(iterations), 512,
                &key, CInt(key.count))
        }
        guard ok == 1 else {
            wipe(&key)
            throw KeyringError(.cryptography, "OpenSSL could not derive a key (PBKDF2)")
        }
        return key
    }

    static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        _ = grdbcipher_hmac_sha256(key, CInt(key.count), data, data.count, &out)
        return out
    }

    /// Compares without an early exit.
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
