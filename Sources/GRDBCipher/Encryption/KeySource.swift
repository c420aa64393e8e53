import Foundation

/// Where the secret that unlocks a key slot of a ``DatabaseKeyring`` comes from.
///
/// ```swift
/// // systemd: LoadCredentialEncrypted=notes-db-key:/etc/credstore.encrypted/notes-db-key
/// let keyring = try DatabaseKeyring.unlock(databaseAt: path, with: .credential("notes-db-key"))
/// ```
///
/// From the strongest to the weakest:
/// - ``credential(_:)``: a systemd credential, a file in `$CREDENTIALS_DIRECTORY` that only the
///   service can read, never in the environment;
/// - ``keyFile(_:permitsGroupRead:)``: a file that only the process's user can read, checked as
///   ssh checks a private key;
/// - ``custom(_:_:)``: a closure of yours, where a KMS, Vault or a hardware token plugs in;
/// - ``environment(_:removingVariable:)``: an environment variable. Every child process
///   inherits the environment, `/proc/PID/environ` shows it to the process's user, and crash
///   reporters copy it: use it only where nothing else is available.
///
/// Key files and credentials are read as bytes; one trailing newline is ignored (`echo` adds
/// one). The bytes read are wiped once the slot is unlocked or written. A source's
/// description names where it reads (a credential name, a path), never what it reads.
public struct KeySource: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case credential(String)
        case keyFile(String, permitsGroupRead: Bool)
        case environment(String, removingVariable: Bool)
        case custom(String, @Sendable () throws -> Data)
    }

    let kind: Kind

    /// A systemd credential: the file `NAME` in the directory `$CREDENTIALS_DIRECTORY`, which
    /// systemd fills from `LoadCredential=`, `LoadCredentialEncrypted=` or `SetCredential=`.
    ///
    /// Reading fails with a ``KeyringError/Code/sourceUnavailable`` error when the process was
    /// not given credentials (`CREDENTIALS_DIRECTORY` unset) or has no credential of that name.
    public static func credential(_ name: String) -> KeySource {
        KeySource(kind: .credential(name))
    }

    /// A key file. As ssh does for a private key, the file is refused
    /// (``KeyringError/Code/insecureKeyFile``) when it is not a regular file, when a user other
    /// than the process's user owns it, or when its group or others may read or write it: the
    /// error says which, and how to fix it.
    ///
    /// With `permitsGroupRead`, the file's group may read it, and root may own it: the layout of
    /// a Kubernetes secret mounted with `defaultMode: 0440` and an `fsGroup`. Others still may
    /// not read it, and nobody but its owner may write it.
    public static func keyFile(_ path: String, permitsGroupRead: Bool = false) -> KeySource {
        KeySource(kind: .keyFile(path, permitsGroupRead: permitsGroupRead))
    }

    /// An environment variable: the weakest source. With `removingVariable` (the default), the
    /// value is overwritten in place and the variable removed once read, so that child
    /// processes started later, and `/proc/PID/environ`, no longer show it. Copies made before
    /// (by `ProcessInfo.processInfo.environment`, or by a child started earlier) stay.
    public static func environment(_ name: String, removingVariable: Bool = true) -> KeySource {
        KeySource(kind: .environment(name, removingVariable: removingVariable))
    }

    /// A closure that returns the secret: a key fetched from Vault, a KMS, a hardware token.
    /// `label` names the source in descriptions and errors.
    ///
    /// ```swift
    /// let source = KeySource.custom("vault secret/notes") { try vault.readKey("secret/notes") }
    /// ```
    ///
    /// The library wipes its copy of the bytes; reset your own (`resetBytes(in:)`).
    public static func custom(_ label: String, _ read: @escaping @Sendable () throws -> Data) -> KeySource {
        KeySource(kind: .custom(label, read))
    }

    /// A passphrase the program already holds (typed on a terminal, say). A convenience over
    /// ``custom(_:_:)``: the `Data` is captured, and stays in memory as long as the source.
    public static func passphrase(_ passphrase: Data) -> KeySource {
        KeySource(kind: .custom("passphrase", { passphrase }))
    }

    public var description: String {
        switch kind {
        case .credential(let name): return "credential \(name)"
        case .keyFile(let path, _): return "key file \(path)"
        case .environment(let name, _): return "environment variable \(name)"
        case .custom(let label, _): return label
        }
    }

    /// The kind of slot the source unlocks, as a keyring records it.
    var slotKind: KeySlotKind {
        switch kind {
        case .credential: return .credential
        case .keyFile: return .keyFile
        case .environment: return .environment
        case .custom: return .custom
        }
    }

    /// Reads the secret. The caller wipes it. An empty secret is refused.
    func read() throws -> [UInt8] {
        var bytes: [UInt8]
        switch kind {
        case .credential(let name):
            bytes = try Self.readCredential(name)
        case let .keyFile(path, permitsGroupRead):
            bytes = try Self.readKeyFile(path, permitsGroupRead: permitsGroupRead)
        case let .environment(name, removingVariable):
            bytes = try Self.readEnvironment(name, removing: removingVariable)
        case let .custom(label, read):
            var data: Data
            do {
                data = try read()
            } catch {
                throw KeyringError(.sourceUnavailable, "\(label): the key could not be read (\(type(of: error)))")
            }
            bytes = Array(data)
            data.resetBytes(in: 0..<data.count)
        }
        Self.dropTrailingNewline(&bytes, kind: kind)
        guard !bytes.isEmpty else {
            throw KeyringError(.sourceUnavailable, "\(description) is empty")
        }
        return bytes
    }

    /// One trailing newline of a file or credential is not part of the key.
    private static func dropTrailingNewline(_ bytes: inout [UInt8], kind: Kind) {
        switch kind {
        case .credential, .keyFile:
            if bytes.last == UInt8(ascii: "\n") { bytes[bytes.count - 1] = 0; bytes.removeLast() }
            if bytes.last == UInt8(ascii: "\r") { bytes[bytes.count - 1] = 0; bytes.removeLast() }
        case .environment, .custom:
            break
        }
    }

    private static func readCredential(_ name: String) throws -> [UInt8] {
        guard let directory = getenv("CREDENTIALS_DIRECTORY").map({ String(cString: $0) }), !directory.isEmpty else {
            throw KeyringError(.sourceUnavailable, "credential \(name): CREDENTIALS_DIRECTORY is not set; start the service with systemd's LoadCredential= or LoadCredentialEncrypted=")
        }
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw KeyringError(.sourceUnavailable, "credential \(name): not a credential name")
        }
        let path = directory + "/" + name
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno)).lowercased()
            throw KeyringError(.sourceUnavailable, "credential \(name): no credential of that name in \(directory) (\(reason))")
        }
        defer { close(fd) }
        return try readAll(fd, what: "credential \(name)")
    }

    private static func readKeyFile(_ path: String, permitsGroupRead: Bool) throws -> [UInt8] {
        // O_NONBLOCK: a FIFO must not block the open before fstat refuses it.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno)).lowercased()
            throw KeyringError(.sourceUnavailable, "key file \(path): cannot open it (\(reason))")
        }
        defer { close(fd) }
        // The checks look at the file that was opened, not at the path again.
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw KeyringError(.sourceUnavailable, "key file \(path): cannot read its attributes")
        }
        if let problem = keyFileProblem(info, permitsGroupRead: permitsGroupRead) {
            throw KeyringError(.insecureKeyFile, "key file \(path): \(problem(path))")
        }
        return try readAll(fd, what: "key file \(path)")
    }

    /// What makes a key file unsafe, as a sentence that takes the path, or nil.
    static func keyFileProblem(_ info: stat, permitsGroupRead: Bool) -> ((String) -> String)? {
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return { _ in "not a regular file" }
        }
        let user = geteuid()
        let ownerIsFine = info.st_uid == user || (permitsGroupRead && info.st_uid == 0)
        if !ownerIsFine {
            return { path in
                "owned by uid \(info.st_uid), not by this process's user (uid \(user)); run chown \(user) \(path)"
            }
        }
        let mode = info.st_mode & 0o777
        var exposures: [String] = []
        if mode & 0o004 != 0 { exposures.append("others can read it") }
        if mode & 0o002 != 0 { exposures.append("others can write it") }
        if mode & 0o040 != 0 && !permitsGroupRead { exposures.append("its group can read it") }
        if mode & 0o020 != 0 { exposures.append("its group can write it") }
        guard !exposures.isEmpty else { return nil }
        let octal = String(mode, radix: 8)
        let modeText = String(repeating: "0", count: max(0, 4 - octal.count)) + octal
        return { path in
            "mode \(modeText): \(exposures.joined(separator: ", ")); run chmod 600 \(path) (or 400)"
        }
    }

    private static func readAll(_ fd: CInt, what: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer { wipe(&buffer) }
        while true {
            let count = buffer.withUnsafeMutableBytes { readFile(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                wipe(&bytes)
                throw KeyringError(.sourceUnavailable, "\(what): cannot read it")
            }
            if count == 0 { break }
            // Grow by copying into a fresh array, wiping the old one: no copy of the key stays
            // behind in freed memory.
            if bytes.count + count > bytes.capacity {
                var grown: [UInt8] = []
                grown.reserveCapacity(max(64, 2 * (bytes.count + count)))
                grown.append(contentsOf: bytes)
                wipe(&bytes)
                bytes = grown
            }
            bytes.append(contentsOf: buffer[0..<count])
            if bytes.count > 1 << 20 {
                wipe(&bytes)
                throw KeyringError(.sourceUnavailable, "\(what): larger than 1 MiB, not a key")
            }
        }
        return bytes
    }

    private static func readEnvironment(_ name: String, removing: Bool) throws -> [UInt8] {
        guard let value = getenv(name) else {
            throw KeyringError(.sourceUnavailable, "environment variable \(name) is not set")
        }
        let count = strlen(value)
        // Unsafe: getenv's C string, read as bytes (CChar and UInt8 share one layout), is
        // copied at once, before the variable is wiped and unset.
        let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self), count: count))
        if removing {
            // Overwritten where it lies (for the initial environment, in the block that
            // /proc/PID/environ shows), then removed.
            memset(value, 0, count)
            unsetenv(name)
        }
        return bytes
    }
}

/// The kind of a key slot: what unlocks it.
public enum KeySlotKind: String, Sendable, Codable {
    /// A systemd credential (``KeySource/credential(_:)``).
    case credential
    /// A key file (``KeySource/keyFile(_:permitsGroupRead:)``).
    case keyFile
    /// An environment variable (``KeySource/environment(_:removingVariable:)``).
    case environment
    /// A closure's secret, or a passphrase (``KeySource/custom(_:_:)``).
    case custom
    /// An opaque blob that a closure of the user unwraps: a KMS or Vault transit key
    /// (``DatabaseKeyring/addExternalSlot(named:wrap:)``).
    case external
}

/// An error of a keyring or of a key source. Its message never contains key material.
///
/// ```swift
/// do {
///     let keyring = try DatabaseKeyring.unlock(databaseAt: path, with: .keyFile("/etc/notes/db.key"))
/// } catch let error as KeyringError where error.code == .insecureKeyFile {
///     print(error) // key file /etc/notes/db.key: mode 0644: others can read it; run chmod 600 …
/// }
/// ```
public struct KeyringError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public enum Code: Sendable, Equatable {
        /// A key source cannot give its key: no credential, no file, unset variable, a closure
        /// that threw, an empty secret.
        case sourceUnavailable
        /// A key file others may read or write, or that another user owns.
        case insecureKeyFile
        /// No slot of the keyring opens with the key (or the slot named has another key).
        case wrongKey
        /// The keyring belongs to another database file.
        case wrongDatabase
        /// The keyring file is truncated, altered, or not a keyring.
        case damagedKeyring
        /// The keyring file is missing.
        case noKeyring
        /// A keyring exists already where one would be created.
        case keyringExists
        /// No slot has that name.
        case noSuchSlot
        /// A slot has that name already.
        case slotExists
        /// The last slot cannot be removed: nothing could unlock the keyring.
        case lastSlot
        /// The keyring was destroyed, or this unlocked keyring was forgotten.
        case destroyed
        /// A cryptographic primitive of OpenSSL failed.
        case cryptography
        /// The database could not be probed (busy, or no file descriptor left), and which key
        /// opens it could not be told: nothing was changed.
        case databaseUnavailable
    }

    /// What went wrong, for a `switch`.
    public let code: Code
    /// A message for people; it names key sources, never secrets.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// read(2), out of reach of the `read` methods above.
private func readFile(_ fd: CInt, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
