import Foundation

/// Says why SQLite answered "file is not a database" (26), which covers several cases.
enum FileDiagnosis {
    static let sqliteHeader: [UInt8] = Array("SQLite format 3\0".utf8)

    static func notADatabaseMessage(path: String, keyed: Bool) -> String {
        let prefix = "file is not a database"
        guard let header = readHeader(path: path) else {
            return keyed
                ? "\(prefix): wrong passphrase or cipher settings, or the file is not an SQLCipher database"
                : "\(prefix): the file is encrypted, or is not an SQLite database"
        }
        if header.bytes.starts(with: sqliteHeader) {
            return keyed
                ? "\(prefix): it is a plaintext SQLite database, and a passphrase was given "
                    + "(a passphrase does not encrypt an existing file: export it to a new encrypted file)"
                : "\(prefix): the SQLite header is present, but the file is damaged"
        }
        if header.size < 512 || header.size % 512 != 0 {
            return "\(prefix): the file is neither SQLite nor SQLCipher (its size, \(header.size) bytes, is not a whole number of pages)"
        }
        if header.bytes.allSatisfy({ $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20..<0x7F).contains($0) }) {
            return "\(prefix): the file starts with plain text; it is neither SQLite nor SQLCipher"
        }
        return keyed
            ? "\(prefix): wrong passphrase or cipher settings (the file looks encrypted; files written by SQLCipher 3 or older need cipher_compatibility), or the file is not an SQLCipher database"
            : "\(prefix): the file looks encrypted (SQLCipher) and no passphrase was given"
    }

    private static func readHeader(path: String) -> (bytes: [UInt8], size: Int)? {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:"),
              let handle = FileHandle(forReadingAtPath: path)
        else { return nil }
        defer { try? handle.close() }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let data: Data? = (try? handle.read(upToCount: 16)) ?? nil
        return (Array(data ?? Data()), size)
    }
}
