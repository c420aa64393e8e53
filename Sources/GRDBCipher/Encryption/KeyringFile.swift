import Foundation

// The keyring file (docs/KeyManagement.md, "The keyring file"): two lines of text.
//
//   {"createdAt":"…","dataKeys":[…],"databaseName":"notes.sqlite","databaseSalt":"…",…}
//   mac 5f0c…
//
// The first line is the document, JSON with sorted keys. The second line authenticates the
// exact bytes of the first: HMAC-SHA256 keyed by a key derived from the keyring's master key,
// so it is checked once a slot has given the master key. Keys are never in the file in the
// clear: each slot holds the master key wrapped (AES-256-GCM) with the key-encryption key of
// its source, and the master key wraps the data keys.

/// The document of a keyring file.
struct KeyringDocument: Codable, Equatable {
    static let formatName = "grdbcipher-keyring"
    static let currentVersion = 1

    /// A data key: the raw SQLCipher key of the database, wrapped by the master key.
    struct DataKey: Codable, Equatable {
        enum State: String, Codable {
            /// The key of the database.
            case active
            /// A key the database is being re-encrypted to (see ``DatabaseKeyring/rotateDataKey(in:)``):
            /// after a crash, the one that opens the database wins.
            case pending
            /// The key before a rotation whose re-encryption could not be made durable (the
            /// WAL could not be checkpointed): kept until the next rotation, so that a power
            /// loss that undoes the re-encryption loses no key.
            case retired
        }
        var id: Int
        var state: State
        var createdAt: Date
        var wrapped: KeyringCrypto.Sealed
    }

    /// A key slot: the master key, wrapped by a key-encryption key, or by a closure of the user.
    struct Slot: Codable, Equatable {
        var name: String
        var kind: KeySlotKind
        /// Where the secret comes from (a credential name, a path): never the secret.
        var source: String
        var createdAt: Date
        /// PBKDF2-HMAC-SHA512 of the source's secret, for the slots of a key source.
        var kdfIterations: Int?
        var kdfSalt: Data?
        var wrappedMasterKey: KeyringCrypto.Sealed?
        /// What the user's closure made of the master key, for external slots.
        var externalBlob: Data?
    }

    var format: String
    var version: Int
    var keyringID: String
    var createdAt: Date
    /// The file name of the database, for people; the salt is what identifies it.
    var databaseName: String
    /// The SQLCipher salt of the database: the first 16 bytes of its file.
    var databaseSalt: Data
    var dataKeys: [DataKey]
    var slots: [Slot]
    /// When ``DatabaseKeyring/destroy(keyringAt:)`` destroyed every slot.
    var destroyedAt: Date?

    var activeDataKey: DataKey? { dataKeys.first { $0.state == .active } }
    var pendingDataKey: DataKey? { dataKeys.first { $0.state == .pending } }
    var retiredDataKey: DataKey? { dataKeys.first { $0.state == .retired } }

    /// What the wrapping of a slot's master key is bound to.
    func slotAssociatedData(_ slot: Slot) -> [UInt8] {
        let salt = slot.kdfSalt?.base64EncodedString() ?? ""
        return Array("grdbcipher-keyring-v1|slot|\(keyringID)|\(slot.name)|\(slot.kind.rawValue)|\(slot.kdfIterations ?? 0)|\(salt)".utf8)
    }

    /// What the wrapping of a data key is bound to.
    func dataKeyAssociatedData(id: Int) -> [UInt8] {
        Array("grdbcipher-keyring-v1|data-key|\(keyringID)|\(id)|\(databaseSalt.hexadecimal)".utf8)
    }
}

/// Reading and writing keyring files.
enum KeyringFile {
    /// The largest iteration count a keyring may ask for: a bound on the work an altered file
    /// can cause.
    static let maximumIterations = 20_000_000

    /// The most slots a keyring may have: a bound on the work of an unlock.
    static let maximumSlots = 32

    /// The document of the file at `path`, and the bytes of its first line and its MAC, to be
    /// checked once the master key is known.
    struct Contents {
        var document: KeyringDocument
        var documentBytes: [UInt8]
        var mac: [UInt8]
    }

    static func read(_ path: String) throws -> Contents {
        guard let data = FileManager.default.contents(atPath: path) else {
            if access(path, F_OK) != 0 {
                throw KeyringError(.noKeyring, "no keyring at \(path)")
            }
            throw KeyringError(.noKeyring, "cannot read the keyring \(path)")
        }
        let bytes = Array(data)
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.count == 3, lines[2].isEmpty,
              lines[1].starts(with: Array("mac ".utf8)),
              let mac = Data(hexadecimal: String(decoding: lines[1].dropFirst(4), as: UTF8.self)), mac.count == 32
        else {
            throw KeyringError(.damagedKeyring, "the keyring \(path) is truncated or altered: it does not end with its authentication code")
        }
        let document: KeyringDocument
        do {
            document = try decoder.decode(KeyringDocument.self, from: Data(lines[0]))
        } catch {
            throw KeyringError(.damagedKeyring, "the keyring \(path) is not a valid keyring document")
        }
        guard document.format == KeyringDocument.formatName else {
            throw KeyringError(.damagedKeyring, "\(path) is not a GRDBCipher keyring")
        }
        guard document.version == KeyringDocument.currentVersion else {
            throw KeyringError(.damagedKeyring, "the keyring \(path) has format version \(document.version); this GRDBCipher reads version \(KeyringDocument.currentVersion)")
        }
        try validate(document, path: path)
        return Contents(document: document, documentBytes: Array(lines[0]), mac: Array(mac))
    }

    /// Refuses documents whose fields are out of range.
    private static func validate(_ document: KeyringDocument, path: String) throws {
        func damaged(_ reason: String) -> KeyringError {
            KeyringError(.damagedKeyring, "the keyring \(path) is altered: \(reason)")
        }
        guard document.databaseSalt.count == KeyringCrypto.saltSize else { throw damaged("its database salt has \(document.databaseSalt.count) bytes") }
        guard document.dataKeys.filter({ $0.state == .active }).count <= 1,
              document.dataKeys.filter({ $0.state == .pending }).count <= 1,
              document.dataKeys.filter({ $0.state == .retired }).count <= 1,
              Set(document.dataKeys.map(\.id)).count == document.dataKeys.count
        else { throw damaged("its data keys are inconsistent") }
        guard Set(document.slots.map(\.name)).count == document.slots.count else { throw damaged("two slots have one name") }
        guard document.slots.count <= maximumSlots else { throw damaged("it has \(document.slots.count) slots") }
        for slot in document.slots {
            if slot.kind == .external {
                guard slot.externalBlob != nil else { throw damaged("the external slot \(slot.name) has no blob") }
            } else {
                guard let iterations = slot.kdfIterations, (1...maximumIterations).contains(iterations),
                      slot.kdfSalt?.count == KeyringCrypto.saltSize, slot.wrappedMasterKey != nil
                else { throw damaged("the slot \(slot.name) is incomplete") }
            }
        }
    }

    /// Whether the MAC authenticates the document for the master key.
    static func isAuthentic(_ contents: Contents, masterKey: [UInt8]) -> Bool {
        var macKey = macKey(masterKey: masterKey)
        defer { wipe(&macKey) }
        return KeyringCrypto.constantTimeEquals(KeyringCrypto.hmacSHA256(key: macKey, data: contents.documentBytes), contents.mac)
    }

    /// Writes the document beside `path`, syncs it, and renames it over `path`: a crash at any
    /// point leaves the old file or the new one, never neither, never a mix.
    static func write(_ document: KeyringDocument, masterKey: [UInt8]?, to path: String, replacing: Bool) throws {
        var bytes = Array(try encoder.encode(document))
        var mac = [UInt8](repeating: 0, count: 32)
        if let masterKey {
            var macKey = macKey(masterKey: masterKey)
            defer { wipe(&macKey) }
            mac = KeyringCrypto.hmacSHA256(key: macKey, data: bytes)
        }
        bytes.append(UInt8(ascii: "\n"))
        bytes += Array("mac \(Data(mac).hexadecimal)\n".utf8)
        let url = URL(fileURLWithPath: path).standardizedFileURL
        // A write killed before its rename left its file: it goes now.
        SQLCipherFile.removeStaleTemporaryFiles(besidePath: url.path)
        let temporary = try TemporaryFile.create(besidePath: url.path, purpose: "keyring")
        defer { temporary.remove() }
        if replacing, access(url.path, F_OK) == 0 {
            // A keyring changed by root (sudo grdbcipher key …) stays the service's.
            try temporary.takeOwner(of: url.path)
            try temporary.takeMode(of: url.path)
        }
        let fd = open(temporary.path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TemporaryFile.fileSystemError("cannot write", temporary.path) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { writeFile(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                let error = TemporaryFile.fileSystemError("cannot write", temporary.path)
                close(fd)
                throw error
            }
            written += count
        }
        guard fsync(fd) == 0 else {
            let error = TemporaryFile.fileSystemError("cannot sync", temporary.path)
            close(fd)
            throw error
        }
        close(fd)
        try temporary.move(to: url.path, replacing: replacing)
        try? fsyncPath(url.deletingLastPathComponent().path)
    }

    /// Runs `body` with the keyring's lock file locked: changes of one keyring by several
    /// processes run one after the other, each on the file the previous one wrote.
    static func withLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        try withLock(path, required: true, body)
    }

    /// `required` false: when the lock file cannot be made (a read-only directory), `body`
    /// runs without the lock. For unlocks, which write only to settle an interrupted rotation.
    static func withLock<T>(_ path: String, required: Bool, _ body: () throws -> T) throws -> T {
        // Named after the keyring's real path: the same lock whatever path names it. Empty, and
        // readable by all (a lock taken through a read-only descriptor), so that a lock file
        // that root created does not lock the service out.
        let resolved = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        let lockPath = resolved + ".lock"
        let fd = open(lockPath, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            if !required && [EROFS, EACCES, EPERM].contains(errno) { return try body() }
            throw TemporaryFile.fileSystemError("cannot open the lock file", lockPath)
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw TemporaryFile.fileSystemError("cannot lock", lockPath) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    private static func macKey(masterKey: [UInt8]) -> [UInt8] {
        KeyringCrypto.hmacSHA256(key: masterKey, data: Array("grdbcipher-keyring-v1|mac".utf8))
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// write(2), out of reach of the `write` methods above.
private func writeFile(_ fd: CInt, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
