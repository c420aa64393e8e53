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
    public static let SQLITE_OK = ResultCode(rawValue: 0)
    public static let SQLITE_ERROR = ResultCode(rawValue: 1)
    public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
    public static let SQLITE_PERM = ResultCode(rawValue: 3)
    public static let SQLITE_ABORT = ResultCode(rawValue: 4)
    public static let SQLITE_BUSY = ResultCode(rawValue: 5)
    public static let SQLITE_LOCKED = ResultCode(rawValue: 6)
    public static let SQLITE_NOMEM = ResultCode(rawValue: 7)
    public static let SQLITE_READONLY = ResultCode(rawValue: 8)
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: 9)
    public static let SQLITE_IOERR = ResultCode(rawValue: 10)
    public static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
    public static let SQLITE_NOTFOUND = ResultCode(rawValue: 12)
    public static let SQLITE_FULL = ResultCode(rawValue: 13)
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
    public static let SQLITE_PROTOCOL = ResultCode(rawValue: 15)
    public static let SQLITE_EMPTY = ResultCode(rawValue: 16)
    public static let SQLITE_SCHEMA = ResultCode(rawValue: 17)
    public static let SQLITE_TOOBIG = ResultCode(rawValue: 18)
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
    public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
    public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
    public static let SQLITE_NOLFS = ResultCode(rawValue: 22)
    public static let SQLITE_AUTH = ResultCode(rawValue: 23)
    public static let SQLITE_FORMAT = ResultCode(rawValue: 24)
    public static let SQLITE_RANGE = ResultCode(rawValue: 25)
    public static let SQLITE_NOTADB = ResultCode(rawValue: 26)
    public static let SQLITE_NOTICE = ResultCode(rawValue: 27)
    public static let SQLITE_WARNING = ResultCode(rawValue: 28)
    public static let SQLITE_ROW = ResultCode(rawValue: 100)
    public static let SQLITE_DONE = ResultCode(rawValue: 101)

    // Extended result codes (https://www.sqlite.org/rescode.html#extrc)
    public static let SQLITE_ERROR_MISSING_COLLSEQ = ResultCode(rawValue: SQLITE_ERROR.rawValue | (1 << 8))
    public static let SQLITE_ERROR_RETRY = ResultCode(rawValue: SQLITE_ERROR.rawValue | (2 << 8))
    public static let SQLITE_ERROR_SNAPSHOT = ResultCode(rawValue: SQLITE_ERROR.rawValue | (3 << 8))
    public static let SQLITE_IOERR_READ = ResultCode(rawValue: SQLITE_IOERR.rawValue | (1 << 8))
    public static let SQLITE_IOERR_SHORT_READ = ResultCode(rawValue: SQLITE_IOERR.rawValue | (2 << 8))
    public static let SQLITE_IOERR_WRITE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (3 << 8))
    public static let SQLITE_IOERR_FSYNC = ResultCode(rawValue: SQLITE_IOERR.rawValue | (4 << 8))
    public static let SQLITE_IOERR_DIR_FSYNC = ResultCode(rawValue: SQLITE_IOERR.rawValue | (5 << 8))
    public static let SQLITE_IOERR_TRUNCATE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (6 << 8))
    public static let SQLITE_IOERR_FSTAT = ResultCode(rawValue: SQLITE_IOERR.rawValue | (7 << 8))
    public static let SQLITE_IOERR_UNLOCK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (8 << 8))
    public static let SQLITE_IOERR_RDLOCK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (9 << 8))
    public static let SQLITE_IOERR_DELETE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (10 << 8))
    public static let SQLITE_IOERR_BLOCKED = ResultCode(rawValue: SQLITE_IOERR.rawValue | (11 << 8))
    public static let SQLITE_IOERR_NOMEM = ResultCode(rawValue: SQLITE_IOERR.rawValue | (12 << 8))
    public static let SQLITE_IOERR_ACCESS = ResultCode(rawValue: SQLITE_IOERR.rawValue | (13 << 8))
    public static let SQLITE_IOERR_CHECKRESERVEDLOCK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (14 << 8))
    public static let SQLITE_IOERR_LOCK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (15 << 8))
    public static let SQLITE_IOERR_CLOSE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (16 << 8))
    public static let SQLITE_IOERR_DIR_CLOSE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (17 << 8))
    public static let SQLITE_IOERR_SHMOPEN = ResultCode(rawValue: SQLITE_IOERR.rawValue | (18 << 8))
    public static let SQLITE_IOERR_SHMSIZE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (19 << 8))
    public static let SQLITE_IOERR_SHMLOCK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (20 << 8))
    public static let SQLITE_IOERR_SHMMAP = ResultCode(rawValue: SQLITE_IOERR.rawValue | (21 << 8))
    public static let SQLITE_IOERR_SEEK = ResultCode(rawValue: SQLITE_IOERR.rawValue | (22 << 8))
    public static let SQLITE_IOERR_DELETE_NOENT = ResultCode(rawValue: SQLITE_IOERR.rawValue | (23 << 8))
    public static let SQLITE_IOERR_MMAP = ResultCode(rawValue: SQLITE_IOERR.rawValue | (24 << 8))
    public static let SQLITE_IOERR_GETTEMPPATH = ResultCode(rawValue: SQLITE_IOERR.rawValue | (25 << 8))
    public static let SQLITE_IOERR_CONVPATH = ResultCode(rawValue: SQLITE_IOERR.rawValue | (26 << 8))
    public static let SQLITE_IOERR_VNODE = ResultCode(rawValue: SQLITE_IOERR.rawValue | (27 << 8))
    public static let SQLITE_IOERR_AUTH = ResultCode(rawValue: SQLITE_IOERR.rawValue | (28 << 8))
    public static let SQLITE_IOERR_BEGIN_ATOMIC = ResultCode(rawValue: SQLITE_IOERR.rawValue | (29 << 8))
    public static let SQLITE_IOERR_COMMIT_ATOMIC = ResultCode(rawValue: SQLITE_IOERR.rawValue | (30 << 8))
    public static let SQLITE_IOERR_ROLLBACK_ATOMIC = ResultCode(rawValue: SQLITE_IOERR.rawValue | (31 << 8))
    public static let SQLITE_IOERR_DATA = ResultCode(rawValue: SQLITE_IOERR.rawValue | (32 << 8))
    public static let SQLITE_IOERR_CORRUPTFS = ResultCode(rawValue: SQLITE_IOERR.rawValue | (33 << 8))
    public static let SQLITE_LOCKED_SHAREDCACHE = ResultCode(rawValue: SQLITE_LOCKED.rawValue | (1 << 8))
    public static let SQLITE_LOCKED_VTAB = ResultCode(rawValue: SQLITE_LOCKED.rawValue | (2 << 8))
    public static let SQLITE_BUSY_RECOVERY = ResultCode(rawValue: SQLITE_BUSY.rawValue | (1 << 8))
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode(rawValue: SQLITE_BUSY.rawValue | (2 << 8))
    public static let SQLITE_BUSY_TIMEOUT = ResultCode(rawValue: SQLITE_BUSY.rawValue | (3 << 8))
    public static let SQLITE_CANTOPEN_NOTEMPDIR = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (1 << 8))
    public static let SQLITE_CANTOPEN_ISDIR = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (2 << 8))
    public static let SQLITE_CANTOPEN_FULLPATH = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (3 << 8))
    public static let SQLITE_CANTOPEN_CONVPATH = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (4 << 8))
    public static let SQLITE_CANTOPEN_DIRTYWAL = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (5 << 8))
    public static let SQLITE_CANTOPEN_SYMLINK = ResultCode(rawValue: SQLITE_CANTOPEN.rawValue | (6 << 8))
    public static let SQLITE_CORRUPT_VTAB = ResultCode(rawValue: SQLITE_CORRUPT.rawValue | (1 << 8))
    public static let SQLITE_CORRUPT_SEQUENCE = ResultCode(rawValue: SQLITE_CORRUPT.rawValue | (2 << 8))
    public static let SQLITE_CORRUPT_INDEX = ResultCode(rawValue: SQLITE_CORRUPT.rawValue | (3 << 8))
    public static let SQLITE_READONLY_RECOVERY = ResultCode(rawValue: SQLITE_READONLY.rawValue | (1 << 8))
    public static let SQLITE_READONLY_CANTLOCK = ResultCode(rawValue: SQLITE_READONLY.rawValue | (2 << 8))
    public static let SQLITE_READONLY_ROLLBACK = ResultCode(rawValue: SQLITE_READONLY.rawValue | (3 << 8))
    public static let SQLITE_READONLY_DBMOVED = ResultCode(rawValue: SQLITE_READONLY.rawValue | (4 << 8))
    public static let SQLITE_READONLY_CANTINIT = ResultCode(rawValue: SQLITE_READONLY.rawValue | (5 << 8))
    public static let SQLITE_READONLY_DIRECTORY = ResultCode(rawValue: SQLITE_READONLY.rawValue | (6 << 8))
    public static let SQLITE_ABORT_ROLLBACK = ResultCode(rawValue: SQLITE_ABORT.rawValue | (2 << 8))
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (1 << 8))
    public static let SQLITE_CONSTRAINT_COMMITHOOK = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (2 << 8))
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (3 << 8))
    public static let SQLITE_CONSTRAINT_FUNCTION = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (4 << 8))
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (5 << 8))
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (6 << 8))
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (7 << 8))
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (8 << 8))
    public static let SQLITE_CONSTRAINT_VTAB = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (9 << 8))
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (10 << 8))
    public static let SQLITE_CONSTRAINT_PINNED = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (11 << 8))
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode(rawValue: SQLITE_CONSTRAINT.rawValue | (12 << 8))
    public static let SQLITE_NOTICE_RECOVER_WAL = ResultCode(rawValue: SQLITE_NOTICE.rawValue | (1 << 8))
    public static let SQLITE_NOTICE_RECOVER_ROLLBACK = ResultCode(rawValue: SQLITE_NOTICE.rawValue | (2 << 8))
    public static let SQLITE_WARNING_AUTOINDEX = ResultCode(rawValue: SQLITE_WARNING.rawValue | (1 << 8))
    public static let SQLITE_AUTH_USER = ResultCode(rawValue: SQLITE_AUTH.rawValue | (1 << 8))
    public static let SQLITE_OK_LOAD_PERMANENTLY = ResultCode(rawValue: SQLITE_OK.rawValue | (1 << 8))
    public static let SQLITE_OK_SYMLINK = ResultCode(rawValue: SQLITE_OK.rawValue | (2 << 8))
}
