import CSQLCipher
import Foundation

/// A slot to create in a keyring: a named key source, or an external slot whose master key a
/// closure of yours wraps (a KMS, Vault transit).
///
/// ```swift
/// let slots: [KeySlot] = [
///     .source("primary", .credential("notes-db-key")),
///     .source("recovery", .keyFile("/root/notes-recovery.key")),
/// ]
/// ```
public struct KeySlot: Sendable {
    enum Kind: Sendable {
        case source(KeySource)
        case external(@Sendable (Data, KeySlotContext) throws -> Data)
    }

    /// The name of the slot.
    public let name: String
    let kind: Kind

    /// A slot unlocked by the secret of a key source.
    public static func source(_ name: String, _ source: KeySource) -> KeySlot {
        KeySlot(name: name, kind: .source(source))
    }

    /// An external slot: `wrap` receives the keyring's 32-byte master key and returns an
    /// opaque blob (the ciphertext of a KMS `Encrypt`, of Vault transit's `encrypt`), stored
    /// in the keyring. ``DatabaseKeyring/unlock(databaseAt:keyringPath:externalSlot:unwrap:)``
    /// gives the blob back to a closure that returns the master key.
    ///
    /// The context names the keyring and the slot: give it to the KMS as the encryption
    /// context (AWS KMS `EncryptionContext`, Vault transit `context`), so that a blob opens for
    /// its own keyring and slot only.
    public static func external(_ name: String, wrap: @escaping @Sendable (Data, KeySlotContext) throws -> Data) -> KeySlot {
        KeySlot(name: name, kind: .external(wrap))
    }
}

/// What an external slot's blob belongs to, for a KMS encryption context.
public struct KeySlotContext: Sendable, Hashable {
    /// The identifier of the keyring (a UUID, in its file).
    public var keyringID: String
    /// The name of the slot.
    public var slotName: String

    /// The context as key-value pairs, the shape KMS APIs take.
    public var dictionary: [String: String] {
        ["grdbcipher-keyring": keyringID, "grdbcipher-slot": slotName]
    }
}

/// What a keyring holds, without key material: ``DatabaseKeyring/status(keyringAt:)``.
public struct KeyringStatus: Sendable {
    /// A slot of the keyring.
    public struct Slot: Sendable {
        /// The name of the slot.
        public var name: String
        /// What unlocks the slot.
        public var kind: KeySlotKind
        /// Where its secret comes from: a credential name, a key file path, a label.
        public var source: String
        /// When the slot was added.
        public var createdAt: Date
    }

    /// A data key of the keyring.
    public struct DataKey: Sendable {
        /// What the key is to the database.
        public enum State: String, Sendable {
            /// The key of the database.
            case active
            /// The database is being re-encrypted to it: after an interrupted rotation, the
            /// next unlock keeps the key that opens the database.
            case pending
            /// The key before the last rotation, kept until the next one when the
            /// re-encryption could not be made durable (or after an interrupted rotation).
            case retired
        }
        /// The number of the data key in the keyring.
        public var id: Int
        /// What the key is to the database now.
        public var state: State
        /// When the data key was made.
        public var createdAt: Date
    }

    /// The identifier of the keyring.
    public var keyringID: String
    /// When the keyring was created.
    public var createdAt: Date
    /// The file name of its database.
    public var databaseName: String
    /// The SQLCipher salt of its database, in hexadecimal (not a secret: the first 16 bytes of
    /// the database file).
    public var databaseSalt: String
    /// The key slots of the keyring.
    public var slots: [Slot]
    /// The data keys of the keyring.
    public var dataKeys: [DataKey]
    /// When the keyring was destroyed, if it was.
    public var destroyedAt: Date?
}

/// The key of a database, kept in a keyring beside it: a random 256-bit SQLCipher raw key (no
/// key derivation when a connection opens), wrapped once per key slot, as LUKS does.
///
/// Create a keyring with the database, unlock it once per process, and key every connection
/// from it:
///
/// ```swift
/// // Once: a new database, a keyring with two slots.
/// try DatabaseKeyring.create(databaseAt: path, slots: [
///     .source("primary", .credential("notes-db-key")),
///     .source("recovery", .keyFile("/root/notes-recovery.key")),
/// ])
///
/// // At each start of the service.
/// let keyring = try DatabaseKeyring.unlock(databaseAt: path, with: .credential("notes-db-key"))
/// var config = Configuration()
/// config.prepareDatabase { db in try db.useKeyring(keyring) }
/// let dbPool = try DatabasePool(path: path, configuration: config)
/// ```
///
/// Adding, removing or rewrapping a slot rewrites the keyring only, never the database:
/// ``addSlot(_:kdfIterations:)``, ``removeSlot(named:)``, ``rewrapSlot(named:with:kdfIterations:)``.
/// ``rotateDataKey(in:)`` re-encrypts the database with a new data key.
/// ``destroy(keyringAt:)`` makes the database, and every copy of it, unreadable.
///
/// The slots wrap the keyring's master key, which wraps the data key: rotating the data key
/// needs no slot's secret, and a slot's secret opens every data key the keyring will hold. See
/// docs/KeyManagement.md for the file format and the threat model.
///
/// The keys live in this object's memory, wiped by ``forget()`` or when it is released.
public final class DatabaseKeyring: @unchecked Sendable, CustomStringConvertible {
    /// The PBKDF2-HMAC-SHA512 iterations that turn a slot's secret into its key-encryption key,
    /// as SQLCipher 4 derives a passphrase: paid once, when the keyring is unlocked.
    public static let defaultKDFIterations = 256_000

    /// The keyring of the database at `path` when none is given: `path` + `.keyring`.
    public static func defaultKeyringPath(forDatabaseAt path: String) -> String {
        path + ".keyring"
    }

    /// The database the keyring keys.
    public let databasePath: String
    /// The keyring file.
    public let keyringPath: String

    // `lock` guards the keys and the document.
    private let lock = NSLock()
    private var masterKey: [UInt8]
    /// The data key of the database, and its id.
    private var dataKey: [UInt8]
    private var dataKeyID: Int
    private var document: KeyringDocument
    private var isForgotten = false
    /// The keyring file as last read or written here: a change by another process (a
    /// rotation) is noticed before a connection is keyed.
    private var lastSeenFile: FileIdentity?

    private init(databasePath: String, keyringPath: String, masterKey: [UInt8], dataKey: [UInt8], dataKeyID: Int, document: KeyringDocument) {
        self.databasePath = databasePath
        self.keyringPath = keyringPath
        self.masterKey = masterKey
        self.dataKey = dataKey
        self.dataKeyID = dataKeyID
        self.document = document
        self.lastSeenFile = FileIdentity(path: keyringPath)
    }

    deinit {
        wipe(&masterKey)
        wipe(&dataKey)
    }

    public var description: String {
        "DatabaseKeyring(\(keyringPath))"
    }

    /// Wipes the keys from memory. Connections opened before keep working; opening another
    /// one, or changing the keyring, throws ``KeyringError/Code/destroyed``.
    public func forget() {
        lock.withLock {
            wipe(&masterKey)
            wipe(&dataKey)
            isForgotten = true
        }
    }

    // MARK: - Creating

    /// Creates the keyring of a database, with a fresh random data key, and returns it
    /// unlocked.
    ///
    /// - When there is no database at `path` yet, the first connection keyed from the keyring
    ///   creates it.
    /// - A plaintext database (`currentKey` nil), or a database encrypted with `currentKey` (in
    ///   the SQLCipher 4 format), is re-encrypted to the new data key, through the verified
    ///   export: written beside, checked, renamed over the file. The keyring records the new
    ///   key as pending until the database is re-encrypted: a crash in between leaves the
    ///   database as it was, with its old key, and the keyring is made again by the next call.
    ///
    /// Throws ``KeyringError/Code/keyringExists`` when a file is at `keyringPath`: a keyring is
    /// never overwritten (an interrupted creation is finished by ``unlock(databaseAt:keyringPath:with:slot:)``). `slots` must not be empty; give two (a primary and a
    /// recovery slot) so that losing one secret loses nothing.
    @discardableResult
    public static func create(
        databaseAt path: String,
        keyringPath: String? = nil,
        currentKey: CipherKey? = nil,
        slots: [KeySlot],
        kdfIterations: Int = defaultKDFIterations) throws -> DatabaseKeyring
    {
        let keyringPath = keyringPath ?? defaultKeyringPath(forDatabaseAt: path)
        guard !slots.isEmpty else {
            throw KeyringError(.lastSlot, "a keyring needs at least one slot")
        }
        guard slots.count <= KeyringFile.maximumSlots else {
            throw KeyringError(.slotExists, "a keyring has at most \(KeyringFile.maximumSlots) slots")
        }
        guard Set(slots.map(\.name)).count == slots.count else {
            throw KeyringError(.slotExists, "two slots have one name")
        }
        return try KeyringFile.withLock(keyringPath) {
            if access(keyringPath, F_OK) == 0 {
                // Never overwritten: it may hold the only key of the database. An interrupted
                // creation is finished by unlocking it.
                throw KeyringError(.keyringExists, "a keyring exists at \(keyringPath); to finish an interrupted creation, unlock it")
            }
            let databaseExists = fileSize(path).map { $0 > 0 } ?? false
            var masterKey = try KeyringCrypto.randomBytes(KeyringCrypto.keySize)
            defer { wipe(&masterKey) }
            var dataKey = try KeyringCrypto.randomBytes(KeyringCrypto.keySize)
            defer { wipe(&dataKey) }
            let salt = try KeyringCrypto.randomBytes(KeyringCrypto.saltSize)
            let now = Date()
            var document = KeyringDocument(
                format: KeyringDocument.formatName, version: KeyringDocument.currentVersion,
                keyringID: UUID().uuidString.lowercased(), createdAt: now,
                databaseName: URL(fileURLWithPath: path).lastPathComponent,
                databaseSalt: Data(salt), dataKeys: [], slots: [])
            document.dataKeys = [KeyringDocument.DataKey(
                id: 1, state: databaseExists ? .pending : .active, createdAt: now,
                wrapped: try KeyringCrypto.seal(dataKey, key: masterKey, associatedData: document.dataKeyAssociatedData(id: 1)))]
            for slot in slots {
                document.slots.append(try makeSlot(slot, document: document, masterKey: masterKey, iterations: kdfIterations, date: now))
            }
            if databaseExists {
                // Checked before the keyring exists: the database opens as the caller says.
                let info = try SQLCipherFile.inspect(atPath: path, key: currentKey)
                if currentKey != nil {
                    guard info.content == .encrypted, info.keyOpensFile == true else {
                        throw KeyringError(.wrongKey, "the current key does not open the database \(path): nothing was changed")
                    }
                    if let format = info.sqlcipherFormat, format != 4 {
                        throw KeyringError(.wrongDatabase, "the database \(path) is in the SQLCipher \(format) format: upgrade it first (grdbcipher upgrade)")
                    }
                } else if info.content != .plaintext {
                    throw KeyringError(.wrongKey, "the database \(path) is not a plaintext database: give its current key; nothing was changed")
                }
            }
            try KeyringFile.write(document, masterKey: masterKey, to: keyringPath, replacing: false)
            if databaseExists {
                // Re-encrypted with the data key and the keyring's salt.
                var keyText = sqlcipherRawKeyText(key: dataKey, salt: salt)
                defer { wipe(&keyText) }
                do {
                    try KeyringTestHooks.creation?(keyringPath)
                    let newKey = try CipherKey.rawKey(Data(dataKey), salt: Data(salt))
                    if let currentKey {
                        try SQLCipherFile.rekey(atPath: path, key: currentKey, newKey: newKey)
                    } else {
                        try SQLCipherFile.encryptInPlace(atPath: path, key: newKey)
                    }
                    guard probe(keyText, path: path) == .opens else {
                        throw KeyringError(.wrongDatabase, "the database \(path) does not open with the keyring's key after its re-encryption")
                    }
                } catch let crash as KeyringTestHooks.SimulatedCrash {
                    throw crash
                } catch {
                    // The new keyring goes only when the database provably kept its old key.
                    if databaseKeptItsOldKey(path, currentKey: currentKey) {
                        unlink(keyringPath)
                    }
                    throw error
                }
                document.dataKeys[0].state = .active
                try KeyringFile.write(document, masterKey: masterKey, to: keyringPath, replacing: true)
            }
            return DatabaseKeyring(
                databasePath: path, keyringPath: keyringPath,
                masterKey: masterKey, dataKey: dataKey, dataKeyID: 1, document: document)
        }
    }

    // MARK: - Unlocking

    /// Unlocks the keyring of the database at `path` with the secret of a key source: the
    /// slots that the source may open are tried (only `slot`, if given), and the first one
    /// whose key-encryption key unwraps the master key unlocks the keyring.
    ///
    /// Throws ``KeyringError`` with ``KeyringError/Code/wrongKey`` when no slot opens,
    /// ``KeyringError/Code/wrongDatabase`` when the keyring belongs to another database file,
    /// ``KeyringError/Code/damagedKeyring`` when the keyring file is truncated or altered.
    /// After an interrupted data-key rotation, the key that opens the database is kept, and
    /// the keyring updated.
    public static func unlock(
        databaseAt path: String,
        keyringPath: String? = nil,
        with source: KeySource,
        slot slotName: String? = nil) throws -> DatabaseKeyring
    {
        let keyringPath = keyringPath ?? defaultKeyringPath(forDatabaseAt: path)
        let contents = try readForUnlocking(keyringPath, databasePath: path)
        let document = contents.document
        var candidates = document.slots.filter { $0.kind != .external && (slotName == nil || $0.name == slotName) }
        if let slotName, candidates.isEmpty {
            throw KeyringError(.noSuchSlot, "the keyring \(keyringPath) has no slot \(slotName) that a key source opens")
        }
        // The slots of the source's kind first: each try costs a key derivation.
        candidates.sort { ($0.kind == source.slotKind ? 0 : 1) < ($1.kind == source.slotKind ? 0 : 1) }
        var secret = try source.read()
        defer { wipe(&secret) }
        for slot in candidates {
            if var masterKey = try openSlot(slot, document: document, secret: secret) {
                defer { wipe(&masterKey) }
                return try finishUnlocking(contents, masterKey: masterKey, databasePath: path, keyringPath: keyringPath)
            }
        }
        throw KeyringError(.wrongKey, "no slot of the keyring \(keyringPath) opens with the key of \(source)")
    }

    /// Unlocks the keyring with an external slot: `unwrap` receives the slot's blob (what the
    /// slot's `wrap` closure returned) and returns the 32-byte master key.
    ///
    /// ```swift
    /// let keyring = try DatabaseKeyring.unlock(databaseAt: path, externalSlot: "kms") { blob, context in
    ///     try kms.decrypt(blob, encryptionContext: context.dictionary)
    /// }
    /// ```
    public static func unlock(
        databaseAt path: String,
        keyringPath: String? = nil,
        externalSlot slotName: String,
        unwrap: (Data, KeySlotContext) throws -> Data) throws -> DatabaseKeyring
    {
        let keyringPath = keyringPath ?? defaultKeyringPath(forDatabaseAt: path)
        let contents = try readForUnlocking(keyringPath, databasePath: path)
        guard let slot = contents.document.slots.first(where: { $0.name == slotName && $0.kind == .external }),
              let blob = slot.externalBlob
        else {
            throw KeyringError(.noSuchSlot, "the keyring \(keyringPath) has no external slot \(slotName)")
        }
        var unwrapped: Data
        do {
            unwrapped = try unwrap(blob, KeySlotContext(keyringID: contents.document.keyringID, slotName: slotName))
        } catch {
            throw KeyringError(.wrongKey, "the external slot \(slotName) of \(keyringPath) could not be unwrapped (\(type(of: error)))")
        }
        var masterKey = Array(unwrapped)
        unwrapped.resetBytes(in: 0..<unwrapped.count)
        defer { wipe(&masterKey) }
        guard masterKey.count == KeyringCrypto.keySize else {
            throw KeyringError(.wrongKey, "the external slot \(slotName) of \(keyringPath) gave \(masterKey.count) bytes, not the 32-byte master key")
        }
        return try finishUnlocking(contents, masterKey: masterKey, databasePath: path, keyringPath: keyringPath, externalSlot: slotName)
    }

    /// Reads the keyring, and checks it may key the database.
    private static func readForUnlocking(_ keyringPath: String, databasePath: String) throws -> KeyringFile.Contents {
        let contents = try KeyringFile.read(keyringPath)
        let document = contents.document
        if document.destroyedAt != nil || document.slots.isEmpty {
            throw KeyringError(.destroyed, "the keyring \(keyringPath) was destroyed: nothing can open its database")
        }
        if document.activeDataKey != nil {
            // (During a creation, the database still has its old salt, or none.)
            try checkDatabaseBinding(document, databasePath: databasePath, keyringPath: keyringPath)
        }
        return contents
    }

    /// Throws ``KeyringError/Code/wrongDatabase`` when the database file does not start with
    /// the keyring's salt.
    private static func checkDatabaseBinding(_ document: KeyringDocument, databasePath: String, keyringPath: String) throws {
        guard let header = fileHeader(databasePath, count: KeyringCrypto.saltSize) else { return }
        if header == FileDiagnosis.sqliteHeader {
            throw KeyringError(.wrongDatabase, "the database \(databasePath) is a plaintext database, not the one the keyring \(keyringPath) keys")
        }
        guard header == Array(document.databaseSalt) else {
            throw KeyringError(.wrongDatabase, "the keyring \(keyringPath) belongs to another database (\(document.databaseName), salt \(document.databaseSalt.hexadecimal.prefix(8))…), not to \(databasePath)")
        }
    }

    /// Checks the keyring's authentication code, unwraps its data keys, and settles an
    /// interrupted rotation or creation.
    ///
    /// `slotName`: the external slot that gave the master key, which nothing authenticated yet.
    private static func finishUnlocking(_ contents: KeyringFile.Contents, masterKey: [UInt8], databasePath: String, keyringPath: String, externalSlot slotName: String? = nil) throws -> DatabaseKeyring {
        guard KeyringFile.isAuthentic(contents, masterKey: masterKey) else {
            // A slot of a key source gave the master key (its wrapping authenticates it): the
            // file was altered. An external slot's closure may have given a wrong key: then no
            // data key unwraps with it either.
            if let slotName, !contents.document.dataKeys.contains(where: {
                var key = KeyringCrypto.open($0.wrapped, key: masterKey, associatedData: contents.document.dataKeyAssociatedData(id: $0.id))
                defer { if key != nil { wipe(&key!) } }
                return key != nil
            }) {
                throw KeyringError(.wrongKey, "the external slot \(slotName) of \(keyringPath) gave a key that does not open the keyring")
            }
            throw KeyringError(.damagedKeyring, "the keyring \(keyringPath) was altered: its authentication code does not match")
        }
        // Under the keyring's lock, which a rotation holds until it is done: the file then
        // tells how it ended, and the database which key it has. (A keyring in a read-only
        // directory is read without the lock.)
        return try KeyringFile.withLock(keyringPath, required: false) {
            let current = try KeyringFile.read(keyringPath)
            guard KeyringFile.isAuthentic(current, masterKey: masterKey) else {
                throw KeyringError(.damagedKeyring, "the keyring \(keyringPath) was altered: its authentication code does not match")
            }
            let document = try settle(current.document, masterKey: masterKey, databasePath: databasePath, keyringPath: keyringPath)
            return try makeUnlocked(document, masterKey: masterKey, databasePath: databasePath, keyringPath: keyringPath)
        }
    }

    /// The unlocked keyring of a document with an active data key.
    private static func makeUnlocked(_ document: KeyringDocument, masterKey: [UInt8], databasePath: String, keyringPath: String) throws -> DatabaseKeyring {
        guard let active = document.activeDataKey else {
            throw KeyringError(.damagedKeyring, "the keyring \(keyringPath) has no data key")
        }
        let dataKey = try unwrapDataKey(active, document: document, masterKey: masterKey, keyringPath: keyringPath)
        return DatabaseKeyring(
            databasePath: databasePath, keyringPath: keyringPath,
            masterKey: masterKey, dataKey: dataKey, dataKeyID: active.id, document: document)
    }

    /// A data key, unwrapped by the master key. The caller wipes it.
    static func unwrapDataKey(_ entry: KeyringDocument.DataKey, document: KeyringDocument, masterKey: [UInt8], keyringPath: String) throws -> [UInt8] {
        guard let key = KeyringCrypto.open(entry.wrapped, key: masterKey, associatedData: document.dataKeyAssociatedData(id: entry.id)) else {
            throw KeyringError(.damagedKeyring, "the keyring \(keyringPath) was altered: data key \(entry.id) does not unwrap")
        }
        return key
    }

    // MARK: - Keying connections

    /// The text `sqlite3_key` takes for the data key, with the salt. The caller wipes it.
    func keyText() throws -> [UInt8] {
        try lock.withLock {
            guard !isForgotten else {
                throw KeyringError(.destroyed, "the keyring \(keyringPath) was forgotten: unlock it again")
            }
            adoptRotationByAnotherProcess()
            return sqlcipherRawKeyText(key: dataKey, salt: Array(document.databaseSalt))
        }
    }

    /// When another process rotated the data key since this keyring was unlocked, takes the
    /// new active key from the file (authenticated with the master key). Called under `lock`.
    /// Anything unexpected keeps the current key: the connection then tells.
    private func adoptRotationByAnotherProcess() {
        let identity = FileIdentity(path: keyringPath)
        guard identity != lastSeenFile else { return }
        lastSeenFile = identity
        guard let contents = try? KeyringFile.read(keyringPath),
              contents.document.keyringID == document.keyringID,
              contents.document.pendingDataKey == nil,
              KeyringFile.isAuthentic(contents, masterKey: masterKey),
              let active = contents.document.activeDataKey, active.id != dataKeyID,
              let key = try? Self.unwrapDataKey(active, document: contents.document, masterKey: masterKey, keyringPath: keyringPath)
        else { return }
        wipe(&dataKey)
        dataKey = key
        dataKeyID = active.id
        document = contents.document
    }

    // MARK: - Slots

    /// Adds a slot. The database is not touched.
    public func addSlot(_ slot: KeySlot, kdfIterations: Int = defaultKDFIterations) throws {
        try modify { document, masterKey in
            guard !document.slots.contains(where: { $0.name == slot.name }) else {
                throw KeyringError(.slotExists, "the keyring \(keyringPath) has a slot \(slot.name) already")
            }
            guard document.slots.count < KeyringFile.maximumSlots else {
                throw KeyringError(.slotExists, "the keyring \(keyringPath) has \(KeyringFile.maximumSlots) slots, the most it may have")
            }
            document.slots.append(try Self.makeSlot(slot, document: document, masterKey: masterKey, iterations: kdfIterations, date: Date()))
        }
    }

    /// Adds an external slot: `wrap` receives the 32-byte master key and returns the blob to
    /// store (see ``KeySlot/external(_:wrap:)``).
    public func addExternalSlot(named name: String, wrap: @escaping @Sendable (Data, KeySlotContext) throws -> Data) throws {
        try addSlot(.external(name, wrap: wrap))
    }

    /// Removes a slot: its secret no longer opens the keyring. The last slot cannot be removed
    /// (``KeyringError/Code/lastSlot``): use ``destroy(keyringAt:)`` to make the database
    /// unreadable on purpose.
    public func removeSlot(named name: String) throws {
        try modify { document, _ in
            guard let index = document.slots.firstIndex(where: { $0.name == name }) else {
                throw KeyringError(.noSuchSlot, "the keyring \(keyringPath) has no slot \(name)")
            }
            guard document.slots.count > 1 else {
                throw KeyringError(.lastSlot, "the slot \(name) is the last one of \(keyringPath): removing it would leave nothing to open the database")
            }
            document.slots.remove(at: index)
        }
    }

    /// Gives a slot a new secret (a new key file, a new credential, a new passphrase): the
    /// master key is wrapped again, under the same slot name. The database is not touched, and
    /// the connections of a running service are not disturbed.
    public func rewrapSlot(named name: String, with source: KeySource, kdfIterations: Int = defaultKDFIterations) throws {
        try modify { document, masterKey in
            guard let index = document.slots.firstIndex(where: { $0.name == name }) else {
                throw KeyringError(.noSuchSlot, "the keyring \(keyringPath) has no slot \(name)")
            }
            document.slots[index] = try Self.makeSlot(.source(name, source), document: document, masterKey: masterKey, iterations: kdfIterations, date: Date())
        }
    }

    /// The current content of the keyring file, without key material.
    public func status() throws -> KeyringStatus {
        try Self.status(keyringAt: keyringPath)
    }

    /// What the keyring at `path` holds, without unlocking it: no key material is read.
    public static func status(keyringAt path: String) throws -> KeyringStatus {
        let document = try KeyringFile.read(path).document
        return KeyringStatus(
            keyringID: document.keyringID, createdAt: document.createdAt,
            databaseName: document.databaseName, databaseSalt: document.databaseSalt.hexadecimal,
            slots: document.slots.map { .init(name: $0.name, kind: $0.kind, source: $0.source, createdAt: $0.createdAt) },
            dataKeys: document.dataKeys.map { .init(id: $0.id, state: KeyringStatus.DataKey.State(rawValue: $0.state.rawValue) ?? .pending, createdAt: $0.createdAt) },
            destroyedAt: document.destroyedAt)
    }

    // MARK: - Destroying

    /// Destroys every slot and every wrapped key of the keyring at `path`: the database, and
    /// every copy or backup of it, can no longer be opened (crypto-shredding). The file is
    /// overwritten in place, then replaced by a record of the destruction.
    ///
    /// Copies of the keyring file itself (in a backup) still open the database: keep keyrings
    /// out of the backups of their databases, or destroy those copies too. Connections open in
    /// a running process, and unlocked keyrings in its memory, keep the key until they close.
    public static func destroy(keyringAt path: String) throws {
        try KeyringFile.withLock(path) {
            let document = try KeyringFile.read(path).document
            if let size = fileSize(path), size > 0 {
                // Overwrite the old content where it lies before the rename frees its blocks.
                let fd = open(path, O_WRONLY | O_CLOEXEC)
                if fd >= 0 {
                    let zeros = [UInt8](repeating: 0, count: Int(size))
                    _ = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
                    fsync(fd)
                    close(fd)
                }
            }
            var destroyed = document
            destroyed.slots = []
            destroyed.dataKeys = []
            destroyed.destroyedAt = Date()
            try KeyringFile.write(destroyed, masterKey: nil, to: path, replacing: true)
        }
    }

    // MARK: - Rotating the data key

    /// Re-encrypts the database with a new random data key, through `writer` (the queue or
    /// pool that uses this keyring), and records the new key in the keyring.
    ///
    /// The keyring first records the new key as pending; the database is re-keyed (with the
    /// checks and the verification of ``Database/changeKey(_:)``) while writes and, on a pool,
    /// new reads wait; then the new key becomes the active one. A crash at any point leaves a
    /// keyring and a database that open together: the next unlock keeps the key that opens
    /// the database. Connections opened afterwards are keyed with the new key.
    public func rotateDataKey(in writer: some DatabaseWriter) throws {
        try rotateDataKey { newKeyText, activate in
            try writer.withRekeyBarrier { db in
                // When `changeKey` throws after SQLite committed the re-key (its verification
                // could not run, say), the key that opens the database decides.
                do {
                    try db.changeKey(keyText: newKeyText)
                } catch {
                    guard Self.probe(newKeyText, path: db.path) == .opens else { throw error }
                }
                activate()
                return Self.makeDurable(db)
            }
        }
    }

    /// Re-encrypts the database, not opened elsewhere, with a new random data key.
    public func rotateDataKey() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { [self] db in try db.useKeyring(self) }
        let dbQueue = try DatabaseQueue(path: databasePath, configuration: configuration)
        defer { try? dbQueue.close() }
        try rotateDataKey(in: dbQueue)
    }

    /// The steps of a rotation; `rekey` re-keys the database with the text it is given, calls
    /// `activate` once it did (before any other connection may open), and tells whether the
    /// re-encryption is durable.
    private func rotateDataKey(rekey: (_ newKeyText: [UInt8], _ activate: () -> Void) throws -> Bool) throws {
        try KeyringFile.withLock(keyringPath) {
            var (document, masterKey) = try currentDocumentAndMasterKey()
            defer { wipe(&masterKey) }
            // An earlier rotation that did not finish is settled first: its pending key may be
            // the one of the database.
            document = try Self.settle(document, masterKey: masterKey, databasePath: databasePath, keyringPath: keyringPath)
            guard let active = document.activeDataKey else {
                throw KeyringError(.damagedKeyring, "the keyring \(keyringPath) has no data key")
            }
            var activeKey = try Self.unwrapDataKey(active, document: document, masterKey: masterKey, keyringPath: keyringPath)
            lock.withLock {
                // The key of the database now, if another process rotated it.
                wipe(&dataKey)
                dataKey = activeKey
                dataKeyID = active.id
            }
            wipe(&activeKey)
            var newKey = try KeyringCrypto.randomBytes(KeyringCrypto.keySize)
            defer { wipe(&newKey) }
            let newID = (document.dataKeys.map(\.id).max() ?? 0) + 1
            // The key retired by the previous rotation goes: that rotation is durable by now.
            document.dataKeys = [active]
            document.dataKeys.append(KeyringDocument.DataKey(
                id: newID, state: .pending, createdAt: Date(),
                wrapped: try KeyringCrypto.seal(newKey, key: masterKey, associatedData: document.dataKeyAssociatedData(id: newID))))
            try KeyringFile.write(document, masterKey: masterKey, to: keyringPath, replacing: true)
            lock.withLock {
                self.document = document
                lastSeenFile = FileIdentity(path: keyringPath)
            }
            try KeyringTestHooks.rotation?(.newKeyPending, keyringPath)

            // `sqlite3_rekey` with the key alone: the file keeps its salt.
            var newKeyText = sqlcipherRawKeyText(key: newKey, salt: [])
            defer { wipe(&newKeyText) }
            let isDurable = try rekey(newKeyText) {
                lock.withLock {
                    wipe(&dataKey)
                    dataKey = newKey
                    dataKeyID = newID
                }
            }
            try KeyringTestHooks.rotation?(.databaseRekeyed, keyringPath)

            // The old key goes once the re-encryption is on disk; otherwise it stays retired.
            var old = active
            old.state = .retired
            document.dataKeys = [document.dataKeys[1]] + (isDurable ? [] : [old])
            document.dataKeys[0].state = .active
            try KeyringFile.write(document, masterKey: masterKey, to: keyringPath, replacing: true)
            lock.withLock {
                self.document = document
                lastSeenFile = FileIdentity(path: keyringPath)
            }
        }
    }

    /// Replaces every slot, and the master key they wrap: after a slot's secret leaked, old
    /// copies of the keyring file no longer open the keys of this one. Needs every slot's new
    /// secret (the slots not given are removed). Rotate the data key too: the old copies still
    /// hold the data key they had.
    public func replaceAllSlots(with slots: [KeySlot], kdfIterations: Int = defaultKDFIterations) throws {
        guard !slots.isEmpty else {
            throw KeyringError(.lastSlot, "a keyring needs at least one slot")
        }
        guard slots.count <= KeyringFile.maximumSlots else {
            throw KeyringError(.slotExists, "a keyring has at most \(KeyringFile.maximumSlots) slots")
        }
        guard Set(slots.map(\.name)).count == slots.count else {
            throw KeyringError(.slotExists, "two slots have one name")
        }
        try KeyringFile.withLock(keyringPath) {
            var (document, masterKey) = try currentDocumentAndMasterKey()
            defer { wipe(&masterKey) }
            document = try Self.settle(document, masterKey: masterKey, databasePath: databasePath, keyringPath: keyringPath)
            var newMasterKey = try KeyringCrypto.randomBytes(KeyringCrypto.keySize)
            defer { wipe(&newMasterKey) }
            for index in document.dataKeys.indices {
                var key = try Self.unwrapDataKey(document.dataKeys[index], document: document, masterKey: masterKey, keyringPath: keyringPath)
                defer { wipe(&key) }
                document.dataKeys[index].wrapped = try KeyringCrypto.seal(key, key: newMasterKey, associatedData: document.dataKeyAssociatedData(id: document.dataKeys[index].id))
            }
            let now = Date()
            var newSlots: [KeyringDocument.Slot] = []
            for slot in slots {
                newSlots.append(try Self.makeSlot(slot, document: document, masterKey: newMasterKey, iterations: kdfIterations, date: now))
            }
            document.slots = newSlots
            try KeyringFile.write(document, masterKey: newMasterKey, to: keyringPath, replacing: true)
            lock.withLock {
                wipe(&self.masterKey)
                self.masterKey = newMasterKey
                self.document = document
                lastSeenFile = FileIdentity(path: keyringPath)
            }
        }
    }

    // MARK: - Implementation

    /// Changes the keyring file under its lock: `change` edits the current document (read
    /// again from the file, which another process may have changed) with the master key.
    private func modify(_ change: (inout KeyringDocument, [UInt8]) throws -> Void) throws {
        try KeyringFile.withLock(keyringPath) {
            var (document, masterKey) = try currentDocumentAndMasterKey()
            defer { wipe(&masterKey) }
            try change(&document, masterKey)
            try KeyringFile.write(document, masterKey: masterKey, to: keyringPath, replacing: true)
            lock.withLock {
                self.document = document
                lastSeenFile = FileIdentity(path: keyringPath)
            }
        }
    }

    /// The document of the keyring file now, authenticated with this keyring's master key, and
    /// a copy of the master key (the caller wipes it).
    private func currentDocumentAndMasterKey() throws -> (KeyringDocument, [UInt8]) {
        var masterKey = try lock.withLock { () throws -> [UInt8] in
            guard !isForgotten else {
                throw KeyringError(.destroyed, "the keyring \(keyringPath) was forgotten: unlock it again")
            }
            return self.masterKey
        }
        let contents = try KeyringFile.read(keyringPath)
        if contents.document.destroyedAt != nil {
            wipe(&masterKey)
            throw KeyringError(.destroyed, "the keyring \(keyringPath) was destroyed")
        }
        guard contents.document.keyringID == document.keyringID, KeyringFile.isAuthentic(contents, masterKey: masterKey) else {
            wipe(&masterKey)
            throw KeyringError(.damagedKeyring, "the keyring \(keyringPath) was altered or replaced since it was unlocked")
        }
        return (contents.document, masterKey)
    }

    /// A slot of the document, holding the master key.
    private static func makeSlot(_ slot: KeySlot, document: KeyringDocument, masterKey: [UInt8], iterations: Int, date: Date) throws -> KeyringDocument.Slot {
        guard !slot.name.isEmpty, slot.name.utf8.count <= 128, !slot.name.contains(where: \.isNewline) else {
            throw KeyringError(.noSuchSlot, "a slot name is 1 to 128 characters on one line")
        }
        switch slot.kind {
        case .source(let source):
            guard (1...KeyringFile.maximumIterations).contains(iterations) else {
                throw KeyringError(.cryptography, "kdfIterations must be between 1 and \(KeyringFile.maximumIterations)")
            }
            var entry = KeyringDocument.Slot(
                name: slot.name, kind: source.slotKind, source: source.description, createdAt: date,
                kdfIterations: iterations, kdfSalt: Data(try KeyringCrypto.randomBytes(KeyringCrypto.saltSize)))
            var secret = try source.read()
            defer { wipe(&secret) }
            var kek = try KeyringCrypto.keyEncryptionKey(secret: secret, salt: Array(entry.kdfSalt!), iterations: iterations)
            defer { wipe(&kek) }
            entry.wrappedMasterKey = try KeyringCrypto.seal(masterKey, key: kek, associatedData: document.slotAssociatedData(entry))
            return entry
        case .external(let wrap):
            var keyData = Data(masterKey)
            defer { keyData.resetBytes(in: 0..<keyData.count) }
            let blob: Data
            do {
                blob = try wrap(keyData, KeySlotContext(keyringID: document.keyringID, slotName: slot.name))
            } catch {
                throw KeyringError(.sourceUnavailable, "the external slot \(slot.name) could not wrap the key (\(type(of: error)))")
            }
            guard !blob.isEmpty else {
                throw KeyringError(.sourceUnavailable, "the external slot \(slot.name) returned an empty blob")
            }
            return KeyringDocument.Slot(name: slot.name, kind: .external, source: "external", createdAt: date, externalBlob: blob)
        }
    }

    /// The master key, if the secret opens the slot.
    private static func openSlot(_ slot: KeyringDocument.Slot, document: KeyringDocument, secret: [UInt8]) throws -> [UInt8]? {
        guard let iterations = slot.kdfIterations, let salt = slot.kdfSalt, let wrapped = slot.wrappedMasterKey else { return nil }
        var kek = try KeyringCrypto.keyEncryptionKey(secret: secret, salt: Array(salt), iterations: iterations)
        defer { wipe(&kek) }
        return KeyringCrypto.open(wrapped, key: kek, associatedData: document.slotAssociatedData(slot))
    }

    /// Whether the database still opens as it did before a creation: plaintext, or with
    /// `currentKey`.
    private static func databaseKeptItsOldKey(_ path: String, currentKey: CipherKey?) -> Bool {
        guard let currentKey else {
            return fileHeader(path, count: 16) == FileDiagnosis.sqliteHeader
        }
        guard var keyBytes = try? currentKey.keyBytes() else { return false }
        defer { wipe(&keyBytes) }
        return probe(keyBytes, path: path) == .opens
    }

    private static func fileHeader(_ path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, 0) }
        return read == count ? bytes : nil
    }
}

/// Test hooks: a throwing hook stops a rotation at a step, as a crash would.
enum KeyringTestHooks {
    /// Thrown by a hook to stop as a crash would: nothing is cleaned up.
    struct SimulatedCrash: Error {}
    /// Called by a creation with the keyring path, before the database is re-encrypted.
    nonisolated(unsafe) static var creation: ((String) throws -> Void)?
    enum RotationStep { case newKeyPending, databaseRekeyed }
    /// Called with the step and the keyring path.
    nonisolated(unsafe) static var rotation: ((RotationStep, String) throws -> Void)?
}

extension Database {
    /// Keys the connection with the data key of an unlocked keyring: a raw key, with no key
    /// derivation. Call it from ``Configuration/prepareDatabase(_:)``, before anything reads
    /// the database:
    ///
    /// ```swift
    /// let keyring = try DatabaseKeyring.unlock(databaseAt: path, with: .credential("notes-db-key"))
    /// var config = Configuration()
    /// config.prepareDatabase { db in try db.useKeyring(keyring) }
    /// let dbPool = try DatabasePool(path: path, configuration: config)
    /// ```
    public func useKeyring(_ keyring: DatabaseKeyring) throws {
        var text = try keyring.keyText()
        defer { wipe(&text) }
        try text.withUnsafeBytes { try useKeyBytes($0) }
    }
}

/// A file's identity and last change, to notice that another process replaced it.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modification: Int
    var modificationNanoseconds: Int

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modification = Int(info.st_mtimespec.tv_sec)
        modificationNanoseconds = Int(info.st_mtimespec.tv_nsec)
        #else
        modification = Int(info.st_mtim.tv_sec)
        modificationNanoseconds = Int(info.st_mtim.tv_nsec)
        #endif
    }
}
