import Foundation

/// A temporary file that a file operation writes beside its target, then renames into place.
///
/// Its name is `.<target name>.grdbcipher-<purpose>-<pid>-<random>`: unique per run, so two
/// runs writing the same target never share one. It is created with `O_EXCL` and mode 0600 (or
/// stricter), so that it never exists, even for an instant, with wider permissions; SQLite then
/// gives its journal files the same mode. The creating process holds an advisory lock (`flock`)
/// on it until it is done: a file of ours that nobody holds locked was left by a run that died,
/// and ``SQLCipherFile/removeStaleTemporaryFiles(besidePath:)`` removes it.
///
/// Not Sendable: one operation owns it.
final class TemporaryFile {
    /// The path of the temporary file.
    let path: String
    /// The descriptor that holds the lock; -1 once closed.
    private var descriptor: CInt

    /// The marker of our temporary files' names.
    static let marker = ".grdbcipher-"

    /// The files SQLite and SQLCipher write beside a database file.
    static let sidecarSuffixes = ["-journal", "-wal", "-shm", "-migrated", "-migrated-journal", "-migrated-wal", "-migrated-shm"]

    private init(path: String, descriptor: CInt) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Creates an empty temporary file beside `targetPath`, with mode 0600, locked for this
    /// process.
    static func create(besidePath targetPath: String, purpose: String) throws -> TemporaryFile {
        let url = URL(fileURLWithPath: targetPath).standardizedFileURL
        let directory = url.deletingLastPathComponent().path
        let prefix = directory + "/." + url.lastPathComponent + marker + purpose + "-\(getpid())-"
        for _ in 0..<8 {
            let path = prefix + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                if errno == EEXIST { continue }
                throw fileSystemError("cannot create a file in", directory)
            }
            // Whatever the umask: the owner reads and writes it, nobody else.
            fchmod(fd, 0o600)
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, sameFile(fd, path) else {
                // Another run took it for a stale file between the creation and the lock.
                close(fd)
                continue
            }
            return TemporaryFile(path: path, descriptor: fd)
        }
        throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "cannot create a temporary file beside \(url.path)")
    }

    /// Creates an empty file of ours at `path` (SQLCipher's `-migrated` file, say), with mode
    /// 0600, so that the program that fills it does not create it with wider permissions.
    func createSidecar(_ suffix: String) throws {
        let sidecar = path + suffix
        let fd = open(sidecar, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.fileSystemError("cannot create", sidecar) }
        fchmod(fd, 0o600)
        close(fd)
    }

    /// Takes the lock again after another program replaced the file at ``path`` (SQLCipher's
    /// `cipher_migrate` renames its `-migrated` file over the database).
    func relock() throws {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw Self.fileSystemError("cannot open", path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw DatabaseError(resultCode: .SQLITE_BUSY, message: "another process holds \(path)")
        }
        if descriptor >= 0 { close(descriptor) }
        descriptor = fd
    }

    /// Copies the bytes of the file at `source` into the temporary file, or into its sidecar
    /// with `suffix` (created with mode 0600).
    func copyContents(of source: String, suffix: String = "") throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Self.fileSystemError("cannot read", source) }
        defer { close(input) }
        if !suffix.isEmpty { try createSidecar(suffix) }
        let target = path + suffix
        let output = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard output >= 0 else { throw Self.fileSystemError("cannot write", target) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { break }
            guard count > 0 else { throw Self.fileSystemError("cannot read", source) }
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
                guard result > 0 else { throw Self.fileSystemError("cannot write", target) }
                written += result
            }
        }
    }

    /// Gives the temporary file the owner and group of the file at `original`, which it will
    /// replace. Called before the work, so that a file whose owner cannot be kept fails early,
    /// with the original untouched.
    func takeOwner(of original: String) throws {
        let info = try Self.attributes(original)
        let current = try Self.attributes(path)
        if current.st_uid != info.st_uid || current.st_gid != info.st_gid {
            guard chown(path, info.st_uid, info.st_gid) == 0 else {
                throw DatabaseError(
                    resultCode: .SQLITE_PERM,
                    message: "cannot keep the owner and group of \(original) (\(String(cString: strerror(errno)).lowercased())): run as its owner, or as root")
            }
        }
    }

    /// Gives the temporary file the permissions of the file at `original`, right before it
    /// replaces it.
    func takeMode(of original: String) throws {
        try setMode(Self.attributes(original).st_mode & 0o7777)
    }

    private static func attributes(_ path: String) throws -> stat {
        var info = stat()
        guard stat(path, &info) == 0 else { throw fileSystemError("cannot read the attributes of", path) }
        return info
    }

    /// Sets the mode of the temporary file (never wider than 0600 for a new file).
    func setMode(_ mode: mode_t) throws {
        guard chmod(path, mode) == 0 else { throw Self.fileSystemError("cannot set the mode of", path) }
    }

    /// Moves the temporary file to `target`. Without `replacing`, an existing target wins: the
    /// move fails with "the output file exists", and the temporary file stays for ``remove()``.
    func move(to target: String, replacing: Bool) throws {
        if replacing {
            guard rename(path, target) == 0 else { throw Self.fileSystemError("cannot rename the new file to", target) }
            return
        }
        // link(2) fails when the target exists, atomically: of two runs, the first one wins.
        if link(path, target) == 0 {
            unlink(path)
            return
        }
        let error = errno
        if error == EEXIST {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "the output file exists: \(target) (another run wrote it first)")
        }
        // A file system without hard links: check, then rename.
        guard [EPERM, ENOTSUP, EOPNOTSUPP, EXDEV].contains(error), access(target, F_OK) != 0 else {
            errno = error
            throw Self.fileSystemError("cannot rename the new file to", target)
        }
        guard rename(path, target) == 0 else { throw Self.fileSystemError("cannot rename the new file to", target) }
    }

    /// Removes the temporary file and its sidecars (if still there), and releases the lock.
    func remove() {
        removeFileAndSidecars(path)
        for suffix in Self.sidecarSuffixes { unlink(path + suffix) }
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    /// Whether the descriptor and the path name the same file.
    private static func sameFile(_ fd: CInt, _ path: String) -> Bool {
        var byDescriptor = stat(), byPath = stat()
        return fstat(fd, &byDescriptor) == 0 && stat(path, &byPath) == 0
            && byDescriptor.st_ino == byPath.st_ino && byDescriptor.st_dev == byPath.st_dev
    }

    /// One short line for a failed system call: "cannot write PATH: permission denied".
    static func fileSystemError(_ action: String, _ path: String) -> DatabaseError {
        let code = errno
        let reason = String(cString: strerror(code)).lowercased()
        let resultCode: ResultCode = (code == EACCES || code == EPERM) ? .SQLITE_PERM : (code == ENOSPC ? .SQLITE_FULL : .SQLITE_CANTOPEN)
        return DatabaseError(resultCode: resultCode, message: "\(action) \(path): \(reason)")
    }
}

extension SQLCipherFile {
    /// Removes the temporary files that a run of a file operation (export, rekey, upgrade, or
    /// the `grdbcipher` command) left beside `path` when it was killed, with their journal
    /// files; returns their paths. Files of a run still in progress are kept: their process
    /// holds a lock on them.
    ///
    /// A killed `decrypt` can leave a complete plaintext copy of the database this way: every
    /// file operation calls it before working, and `grdbcipher` says what it removed.
    ///
    /// ```swift
    /// for path in SQLCipherFile.removeStaleTemporaryFiles(besidePath: outputPath) {
    ///     print("removed \(path)")
    /// }
    /// ```
    @discardableResult
    public static func removeStaleTemporaryFiles(besidePath path: String) -> [String] {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let directory = url.deletingLastPathComponent().path
        let prefix = "." + url.lastPathComponent + TemporaryFile.marker
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let ours = names.filter { $0.hasPrefix(prefix) }
        func isSidecar(_ name: String) -> Bool {
            TemporaryFile.sidecarSuffixes.contains { name.hasSuffix($0) }
        }
        var removed: [String] = []
        var kept: [String] = []
        for name in ours.filter({ !isSidecar($0) }).sorted() {
            let file = directory + "/" + name
            let fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else {
                // A symbolic link, or a file we cannot open, is not ours to judge.
                kept.append(name)
                continue
            }
            defer { close(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                kept.append(name)
                continue
            }
            unlink(file)
            removed.append(file)
        }
        // Journal files of removed temporaries, or of temporaries already gone.
        for name in ours.filter(isSidecar) {
            let owner = TemporaryFile.sidecarSuffixes
                .filter { name.hasSuffix($0) }
                .map { String(name.dropLast($0.count)) }
            if owner.contains(where: { kept.contains($0) }) { continue }
            if unlink(directory + "/" + name) == 0 {
                removed.append(directory + "/" + name)
            }
        }
        return removed
    }
}
