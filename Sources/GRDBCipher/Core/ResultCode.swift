import CSQLCipher

/// An SQLite result code, primary or extended.
///
/// A primary code pattern-matches the extended codes it covers, so a `catch` can be as
/// broad or as precise as needed:
///
/// ```swift
/// do {
///     try player.insert(db)
/// } catch DatabaseError.SQLITE_CONSTRAINT_FOREIGNKEY {
///     // a foreign key failed
/// } catch DatabaseError.SQLITE_CONSTRAINT {
///     // any other constraint failed
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/rescode.html>
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: CInt

    public init(rawValue: CInt) {
        self.rawValue = rawValue
    }

    /// The primary result code: the low 8 bits of the extended code.
    public var primaryResultCode: ResultCode {
        ResultCode(rawValue: rawValue & 0xFF)
    }

    var isPrimary: Bool { self == primaryResultCode }

    /// The English explanation of the code, as given by `sqlite3_errstr`.
    public var description: String {
        "\(rawValue) (\(String(cString: sqlite3_errstr(rawValue))))"
    }

    /// Returns whether `code` is `pattern`, or an extended code of the primary `pattern`.
    public static func ~= (pattern: Self, code: Self) -> Bool {
        if pattern.isPrimary {
            return pattern == code.primaryResultCode
        }
        return pattern == code
    }

    /// Returns whether `error` is a `DatabaseError` whose code matches `pattern`.
    public static func ~= (pattern: Self, error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return pattern ~= error.extendedResultCode
    }

    // Primary result codes
    /// Success.
    public static let SQLITE_OK = ResultCode(rawValue: 0)
    /// A generic error, such as an SQL syntax error or a missing table.
    public static let SQLITE_ERROR = ResultCode(rawValue: 1)
    /// An internal malfunction of SQLite.
    public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
    /// The access mode asked for a file cannot be granted.
    public static let SQLITE_PERM = ResultCode(rawValue: 3)
    /// An operation was aborted before it completed.
    public static let SQLITE_ABORT = ResultCode(rawValue: 4)
    /// The database file is locked by another connection.
    public static let SQLITE_BUSY = ResultCode(rawValue: 5)
    /// A table is locked by the same connection or a connection of the same shared cache.
    public static let SQLITE_LOCKED = ResultCode(rawValue: 6)
    /// SQLite could not allocate memory.
    public static let SQLITE_NOMEM = ResultCode(rawValue: 7)
    /// A write was attempted on a read-only database.
    public static let SQLITE_READONLY = ResultCode(rawValue: 8)
    /// The operation was interrupted, by `interrupt()` or a cancelled task.
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: 9)
    /// The operating system reported an I/O error.
    public static let SQLITE_IOERR = ResultCode(rawValue: 10)
    /// The database file is malformed.
    public static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
    /// An unknown file control opcode, or a missing system call for a VFS.
    public static let SQLITE_NOTFOUND = ResultCode(rawValue: 12)
    /// The disk is full, or the database reached its maximum size.
    public static let SQLITE_FULL = ResultCode(rawValue: 13)
    /// A file could not be opened.
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
    /// A locking protocol problem between connections (WAL mode).
    public static let SQLITE_PROTOCOL = ResultCode(rawValue: 15)
    /// Not used by SQLite.
    public static let SQLITE_EMPTY = ResultCode(rawValue: 16)
    /// The schema changed while a statement was being prepared.
    public static let SQLITE_SCHEMA = ResultCode(rawValue: 17)
    /// A string or blob exceeds the size limit.
    public static let SQLITE_TOOBIG = ResultCode(rawValue: 18)
    /// A constraint (unique, not null, foreign key, check…) was violated.
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
    /// A value has the wrong type, such as a non-integer rowid.
    public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
    /// The SQLite library was used incorrectly.
    public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
    /// Large files are not supported by the host.
    public static let SQLITE_NOLFS = ResultCode(rawValue: 22)
    /// An authorizer callback denied the statement.
    public static let SQLITE_AUTH = ResultCode(rawValue: 23)
    /// Not used by SQLite.
    public static let SQLITE_FORMAT = ResultCode(rawValue: 24)
    /// A statement argument index is out of range.
    public static let SQLITE_RANGE = ResultCode(rawValue: 25)
    /// The file is not a database: not SQLite, or encrypted with another key or settings.
    public static let SQLITE_NOTADB = ResultCode(rawValue: 26)
    /// An unusual event was logged (not an error).
    public static let SQLITE_NOTICE = ResultCode(rawValue: 27)
    /// A warning was logged.
    public static let SQLITE_WARNING = ResultCode(rawValue: 28)
    /// A step produced a row.
    public static let SQLITE_ROW = ResultCode(rawValue: 100)
    /// A statement finished running.
    public static let SQLITE_DONE = ResultCode(rawValue: 101)

    // Extended result codes (https://www.sqlite.org/rescode.html#extrc)
    /// A collation the statement needs is not defined.
    public static let SQLITE_ERROR_MISSING_COLLSEQ = ResultCode(rawValue: SQLITE_ERROR.rawValue | (1 << 8))
    /// Preparing a statement failed and may succeed on a retry.
    public static let SQLITE_ERROR_RETRY = ResultCode(rawValue: SQLITE_ERROR.rawValue | (2 << 8))
    /// A historical snapshot is no longer available.
    public static let SQLITE_ERROR_SNAPSHOT = ResultCode(rawValue: SQLITE_ERROR.rawValue | (3 << 8))
    /// An I/O error while reading from disk.
    public static let SQLITE_IOERR_READ = ResultCode(rawValue: SQLITE_IOERR.rawValue | (1 << 8))
    /// A read returned fewer bytes than requested.
    public static let SQLITE_IOERR_SHORT_READ = ResultCode(rawValue: SQLITE_IOERR.rawValue | (2 << 8))
    /// An I/O error while writing to disk.
    public static let SQLITE_IOERR_WRITE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (3 << 8))
    /// An I/O error while syncing a file to disk.
    public static let SQLITE_IOERR_FSYNC = ResultCode(rawValue: SQLITE_IOERR.rawValue | (4 << 8))
    /// An I/O error while syncing a directory.
    public static let SQLITE_IOERR_DIR_FSYNC = ResultCode(rawValue: SQLITE_IOERR.rawValue | (5 << 8))
    /// An I/O error while truncating a file.
    public static let SQLITE_IOERR_TRUNCATE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (6 << 8))
    /// An I/O error while reading file metadata.
    public static let SQLITE_IOERR_FSTAT = ResultCode(rawValue: SQLITE_IOERR.rawValue | (7 << 8))
    /// An I/O error while releasing a file lock.
    public static let SQLITE_IOERR_UNLOCK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (8 << 8))
    /// An I/O error while taking a read lock.
    public static let SQLITE_IOERR_RDLOCK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (9 << 8))
    /// An I/O error while deleting a file.
    public static let SQLITE_IOERR_DELETE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (10 << 8))
    /// No longer used by SQLite.
    public static let SQLITE_IOERR_BLOCKED = ResultCode(rawValue: SQLITE_IOERR.rawValue | (11 << 8))
    /// A VFS could not allocate memory.
    public static let SQLITE_IOERR_NOMEM = ResultCode(rawValue: SQLITE_IOERR.rawValue | (12 << 8))
    /// An I/O error while checking that a file exists or can be accessed.
    public static let SQLITE_IOERR_ACCESS = ResultCode(rawValue: SQLITE_IOERR.rawValue | (13 << 8))
    /// An I/O error while checking for a reserved lock.
    public static let SQLITE_IOERR_CHECKRESERVEDLOCK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (14 << 8))
    /// An I/O error in the file locking logic.
    public static let SQLITE_IOERR_LOCK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (15 << 8))
    /// An I/O error while closing a file.
    public static let SQLITE_IOERR_CLOSE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (16 << 8))
    /// No longer used by SQLite.
    public static let SQLITE_IOERR_DIR_CLOSE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (17 << 8))
    /// An I/O error while opening WAL shared memory.
    public static let SQLITE_IOERR_SHMOPEN = ResultCode(rawValue: SQLITE_IOERR.rawValue | (18 << 8))
    /// An I/O error while resizing WAL shared memory.
    public static let SQLITE_IOERR_SHMSIZE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (19 << 8))
    /// No longer used by SQLite.
    public static let SQLITE_IOERR_SHMLOCK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (20 << 8))
    /// An I/O error while mapping WAL shared memory.
    public static let SQLITE_IOERR_SHMMAP = ResultCode(rawValue: SQLITE_IOERR.rawValue | (21 << 8))
    /// An I/O error while seeking in a file.
    public static let SQLITE_IOERR_SEEK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (22 << 8))
    /// A file to delete did not exist.
    public static let SQLITE_IOERR_DELETE_NOENT = ResultCode(rawValue: SQLITE_IOERR.rawValue | (23 << 8))
    /// An I/O error while memory-mapping a file.
    public static let SQLITE_IOERR_MMAP = ResultCode(rawValue: SQLITE_IOERR.rawValue | (24 << 8))
    /// No directory for temporary files could be found.
    public static let SQLITE_IOERR_GETTEMPPATH = ResultCode(rawValue: SQLITE_IOERR.rawValue | (25 << 8))
    /// A path conversion failed (Cygwin only).
    public static let SQLITE_IOERR_CONVPATH = ResultCode(rawValue: SQLITE_IOERR.rawValue | (26 << 8))
    /// A file changed underneath SQLite (a VFS-specific error).
    public static let SQLITE_IOERR_VNODE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (27 << 8))
    /// A VFS refused access for lack of authorization.
    public static let SQLITE_IOERR_AUTH = ResultCode(rawValue: SQLITE_IOERR.rawValue | (28 << 8))
    /// An atomic write batch could not begin.
    public static let SQLITE_IOERR_BEGIN_ATOMIC = ResultCode(rawValue: SQLITE_IOERR.rawValue | (29 << 8))
    /// An atomic write batch could not commit.
    public static let SQLITE_IOERR_COMMIT_ATOMIC = ResultCode(rawValue: SQLITE_IOERR.rawValue | (30 << 8))
    /// An atomic write batch could not roll back.
    public static let SQLITE_IOERR_ROLLBACK_ATOMIC = ResultCode(rawValue: SQLITE_IOERR.rawValue | (31 << 8))
    /// A checksum VFS found a damaged page.
    public static let SQLITE_IOERR_DATA = ResultCode(rawValue: SQLITE_IOERR.rawValue | (32 << 8))
    /// The file system reported corruption.
    public static let SQLITE_IOERR_CORRUPTFS = ResultCode(rawValue: SQLITE_IOERR.rawValue | (33 << 8))
    /// A lock held by another connection of the same shared cache blocked the operation.
    public static let SQLITE_LOCKED_SHAREDCACHE = ResultCode(rawValue: SQLITE_LOCKED.rawValue | (1 << 8))
    /// A virtual table could not take a lock it needs.
    public static let SQLITE_LOCKED_VTAB = ResultCode(rawValue: SQLITE_LOCKED.rawValue | (2 << 8))
    /// Another process is recovering a WAL file.
    public static let SQLITE_BUSY_RECOVERY = ResultCode(rawValue: SQLITE_BUSY.rawValue | (1 << 8))
    /// A read transaction cannot become a write transaction: its snapshot is stale.
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode(rawValue: SQLITE_BUSY.rawValue | (2 << 8))
    /// A blocking lock timed out.
    public static let SQLITE_BUSY_TIMEOUT = ResultCode(rawValue: SQLITE_BUSY.rawValue | (3 << 8))
    /// No longer used by SQLite.
    public static let SQLITE_CANTOPEN_NOTEMPDIR = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (1 << 8))
    /// The path to open is a directory.
    public static let SQLITE_CANTOPEN_ISDIR = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (2 << 8))
    /// The full path of the file could not be found.
    public static let SQLITE_CANTOPEN_FULLPATH = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (3 << 8))
    /// A path conversion failed while opening (Cygwin only).
    public static let SQLITE_CANTOPEN_CONVPATH = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (4 << 8))
    /// Not used by SQLite.
    public static let SQLITE_CANTOPEN_DIRTYWAL = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (5 << 8))
    /// The path is a symbolic link, and symbolic links are refused.
    public static let SQLITE_CANTOPEN_SYMLINK = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (6 << 8))
    /// A virtual table found its content malformed.
    public static let SQLITE_CORRUPT_VTAB = ResultCode(rawValue: SQLITE_CORRUPT.rawValue | (1 << 8))
    /// The sqlite_sequence table is malformed.
    public static let SQLITE_CORRUPT_SEQUENCE = ResultCode(rawValue: SQLITE_CORRUPT.rawValue | (2 << 8))
    /// An index is inconsistent with its table.
    public static let SQLITE_CORRUPT_INDEX = ResultCode(rawValue: SQLITE_CORRUPT.rawValue | (3 << 8))
    /// A WAL database needs recovery, which a read-only connection cannot run.
    public static let SQLITE_READONLY_RECOVERY = ResultCode(rawValue: SQLITE_READONLY.rawValue | (1 << 8))
    /// A read-only WAL connection could not lock the shared memory.
    public static let SQLITE_READONLY_CANTLOCK = ResultCode(rawValue: SQLITE_READONLY.rawValue | (2 << 8))
    /// A hot journal needs rolling back, which a read-only connection cannot do.
    public static let SQLITE_READONLY_ROLLBACK = ResultCode(rawValue: SQLITE_READONLY.rawValue | (3 << 8))
    /// The database file was moved or deleted since it was opened.
    public static let SQLITE_READONLY_DBMOVED = ResultCode(rawValue: SQLITE_READONLY.rawValue | (4 << 8))
    /// A read-only connection could not initialize WAL shared memory.
    public static let SQLITE_READONLY_CANTINIT = ResultCode(rawValue: SQLITE_READONLY.rawValue | (5 << 8))
    /// The directory of the database is read-only, so a journal cannot be created.
    public static let SQLITE_READONLY_DIRECTORY = ResultCode(rawValue: SQLITE_READONLY.rawValue | (6 << 8))
    /// A statement was aborted because its transaction was rolled back.
    public static let SQLITE_ABORT_ROLLBACK = ResultCode(rawValue: SQLITE_ABORT.rawValue | (2 << 8))
    /// A CHECK constraint failed.
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (1 << 8))
    /// A commit hook turned a commit into a rollback.
    public static let SQLITE_CONSTRAINT_COMMITHOOK = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (2 << 8))
    /// A foreign key constraint failed.
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (3 << 8))
    /// An extension function reported a constraint failure.
    public static let SQLITE_CONSTRAINT_FUNCTION = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (4 << 8))
    /// A NOT NULL constraint failed.
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (5 << 8))
    /// A PRIMARY KEY constraint failed.
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (6 << 8))
    /// A trigger raised an error with RAISE(ABORT/FAIL/ROLLBACK).
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (7 << 8))
    /// A UNIQUE constraint failed.
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (8 << 8))
    /// A virtual table reported a constraint failure.
    public static let SQLITE_CONSTRAINT_VTAB = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (9 << 8))
    /// A rowid is not unique.
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (10 << 8))
    /// A row could not be updated because a trigger pinned it.
    public static let SQLITE_CONSTRAINT_PINNED = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (11 << 8))
    /// A value does not match the declared type of a STRICT table column.
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (12 << 8))
    /// A WAL file was recovered (logged, not an error).
    public static let SQLITE_NOTICE_RECOVER_WAL = ResultCode(rawValue: SQLITE_NOTICE.rawValue | (1 << 8))
    /// A hot journal was rolled back (logged, not an error).
    public static let SQLITE_NOTICE_RECOVER_ROLLBACK = ResultCode(rawValue: SQLITE_NOTICE.rawValue | (2 << 8))
    /// SQLite built a temporary index that an index of yours could replace.
    public static let SQLITE_WARNING_AUTOINDEX = ResultCode(rawValue: SQLITE_WARNING.rawValue | (1 << 8))
    /// Not used by this library (user authentication extension).
    public static let SQLITE_AUTH_USER = ResultCode(rawValue: SQLITE_AUTH.rawValue | (1 << 8))
    /// An extension asked to stay loaded (extension loading only).
    public static let SQLITE_OK_LOAD_PERMANENTLY = ResultCode(rawValue: SQLITE_OK.rawValue | (1 << 8))
    /// A path was resolved through a symbolic link (VFS use only).
    public static let SQLITE_OK_SYMLINK = ResultCode(rawValue: SQLITE_OK.rawValue | (2 << 8))
}
