import CSQLCipher
import Foundation

/// An error thrown by SQLite, with the SQL that caused it.
///
/// The statement arguments are kept, but they appear in ``description`` only when
/// ``Configuration/publicStatementArguments`` is set: arguments often hold personal data or
/// secrets, which must not reach logs.
///
/// ```swift
/// do {
///     try db.execute(sql: "INSERT INTO player (id) VALUES (?)", arguments: [1])
/// } catch let error as DatabaseError {
///     error.resultCode         // .SQLITE_CONSTRAINT
///     error.extendedResultCode // .SQLITE_CONSTRAINT_PRIMARYKEY
///     error.message            // "UNIQUE constraint failed: player.id"
///     error.sql                // "INSERT INTO player (id) VALUES (?)"
/// }
/// ```
public struct DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The extended result code.
    public let extendedResultCode: ResultCode

    /// The primary result code.
    public var resultCode: ResultCode { extendedResultCode.primaryResultCode }

    /// The error message.
    public let message: String?

    /// The SQL that caused the error, if any.
    public let sql: String?

    /// The statement arguments, if any. They are not part of ``description`` unless
    /// ``Configuration/publicStatementArguments`` was set on the connection.
    public let arguments: StatementArguments?

    let publicStatementArguments: Bool

    /// Creates a database error. Without a message, the message is SQLite's standard text for
    /// the result code ("SQL logic error", "database is locked"…).
    public init(
        resultCode: ResultCode = .SQLITE_ERROR,
        message: String? = nil,
        sql: String? = nil,
        arguments: StatementArguments? = nil,
        publicStatementArguments: Bool = false)
    {
        self.extendedResultCode = resultCode
        self.message = message ?? String(cString: sqlite3_errstr(resultCode.rawValue))
        self.sql = sql
        self.arguments = arguments
        self.publicStatementArguments = publicStatementArguments
    }

    /// Whether the error comes from an interrupted statement (``DatabaseReader/interrupt()``).
    public var isInterruptionError: Bool {
        resultCode == .SQLITE_INTERRUPT
    }

    /// A description that hides statement arguments unless they were made public.
    public var description: String {
        describe(withArguments: publicStatementArguments)
    }

    /// A description that includes statement arguments. Never log it: arguments may hold
    /// secrets or personal data.
    public var expandedDescription: String {
        describe(withArguments: true)
    }

    private func describe(withArguments: Bool) -> String {
        var text = "SQLite error \(resultCode.rawValue)"
        if let message {
            text += ": \(message)"
        }
        // No SQL part for empty SQL, as GRDB (STM-2).
        if let sql, !sql.isEmpty {
            text += " - while executing `\(sql)`"
        }
        if withArguments, let arguments, !arguments.isEmpty {
            text += " with arguments \(arguments)"
        }
        return text
    }

    // Equality ignores the description flag.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.extendedResultCode == rhs.extendedResultCode
            && lhs.message == rhs.message
            && lhs.sql == rhs.sql
            && lhs.arguments == rhs.arguments
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(extendedResultCode)
        hasher.combine(message)
        hasher.combine(sql)
    }
}

// Bridging to NSError, for code that logs or displays errors through Foundation.
extension DatabaseError: CustomNSError {
    /// The NSError domain of database errors: "GRDB.DatabaseError".
    public static var errorDomain: String { "GRDB.DatabaseError" }

    /// The extended result code, as the NSError code.
    ///
    /// ```swift
    /// let nsError = error as NSError
    /// nsError.domain // "GRDB.DatabaseError"
    /// nsError.code   // 1555 (SQLITE_CONSTRAINT_PRIMARYKEY)
    /// ```
    public var errorCode: Int { Int(extendedResultCode.rawValue) }

    /// The user info of the bridged NSError: its `NSLocalizedDescriptionKey` is ``description``,
    /// which leaves statement arguments out unless ``Configuration/publicStatementArguments``
    /// was set.
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: description]
    }
}

// Shortcuts for `catch DatabaseError.SQLITE_CONSTRAINT_FOREIGNKEY { ... }`.
extension DatabaseError {
    /// ``ResultCode/SQLITE_ABORT``: an operation was aborted before it completed.
    public static let SQLITE_ABORT = ResultCode.SQLITE_ABORT
    /// ``ResultCode/SQLITE_ABORT_ROLLBACK``: a statement was aborted because its transaction was rolled back.
    public static let SQLITE_ABORT_ROLLBACK = ResultCode.SQLITE_ABORT_ROLLBACK
    /// ``ResultCode/SQLITE_AUTH``: an authorizer callback denied the statement.
    public static let SQLITE_AUTH = ResultCode.SQLITE_AUTH
    /// ``ResultCode/SQLITE_AUTH_USER``: not used by this library (user authentication extension).
    public static let SQLITE_AUTH_USER = ResultCode.SQLITE_AUTH_USER
    /// ``ResultCode/SQLITE_BUSY``: the database file is locked by another connection.
    public static let SQLITE_BUSY = ResultCode.SQLITE_BUSY
    /// ``ResultCode/SQLITE_BUSY_RECOVERY``: another process is recovering a WAL file.
    public static let SQLITE_BUSY_RECOVERY = ResultCode.SQLITE_BUSY_RECOVERY
    /// ``ResultCode/SQLITE_BUSY_SNAPSHOT``: a read transaction cannot become a write transaction: its snapshot is stale.
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode.SQLITE_BUSY_SNAPSHOT
    /// ``ResultCode/SQLITE_BUSY_TIMEOUT``: a blocking lock timed out.
    public static let SQLITE_BUSY_TIMEOUT = ResultCode.SQLITE_BUSY_TIMEOUT
    /// ``ResultCode/SQLITE_CANTOPEN``: a file could not be opened.
    public static let SQLITE_CANTOPEN = ResultCode.SQLITE_CANTOPEN
    /// ``ResultCode/SQLITE_CANTOPEN_CONVPATH``: a path conversion failed while opening (Cygwin only).
    public static let SQLITE_CANTOPEN_CONVPATH = ResultCode.SQLITE_CANTOPEN_CONVPATH
    /// ``ResultCode/SQLITE_CANTOPEN_DIRTYWAL``: not used by SQLite.
    public static let SQLITE_CANTOPEN_DIRTYWAL = ResultCode.SQLITE_CANTOPEN_DIRTYWAL
    /// ``ResultCode/SQLITE_CANTOPEN_FULLPATH``: the full path of the file could not be found.
    public static let SQLITE_CANTOPEN_FULLPATH = ResultCode.SQLITE_CANTOPEN_FULLPATH
    /// ``ResultCode/SQLITE_CANTOPEN_ISDIR``: the path to open is a directory.
    public static let SQLITE_CANTOPEN_ISDIR = ResultCode.SQLITE_CANTOPEN_ISDIR
    /// ``ResultCode/SQLITE_CANTOPEN_NOTEMPDIR``: no longer used by SQLite.
    public static let SQLITE_CANTOPEN_NOTEMPDIR = ResultCode.SQLITE_CANTOPEN_NOTEMPDIR
    /// ``ResultCode/SQLITE_CANTOPEN_SYMLINK``: the path is a symbolic link, and symbolic links are refused.
    public static let SQLITE_CANTOPEN_SYMLINK = ResultCode.SQLITE_CANTOPEN_SYMLINK
    /// ``ResultCode/SQLITE_CONSTRAINT``: a constraint (unique, not null, foreign key, check…) was violated.
    public static let SQLITE_CONSTRAINT = ResultCode.SQLITE_CONSTRAINT
    /// ``ResultCode/SQLITE_CONSTRAINT_CHECK``: a CHECK constraint failed.
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode.SQLITE_CONSTRAINT_CHECK
    /// ``ResultCode/SQLITE_CONSTRAINT_COMMITHOOK``: a commit hook turned a commit into a rollback.
    public static let SQLITE_CONSTRAINT_COMMITHOOK = ResultCode.SQLITE_CONSTRAINT_COMMITHOOK
    /// ``ResultCode/SQLITE_CONSTRAINT_DATATYPE``: a value does not match the declared type of a STRICT table column.
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode.SQLITE_CONSTRAINT_DATATYPE
    /// ``ResultCode/SQLITE_CONSTRAINT_FOREIGNKEY``: a foreign key constraint failed.
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode.SQLITE_CONSTRAINT_FOREIGNKEY
    /// ``ResultCode/SQLITE_CONSTRAINT_FUNCTION``: an extension function reported a constraint failure.
    public static let SQLITE_CONSTRAINT_FUNCTION = ResultCode.SQLITE_CONSTRAINT_FUNCTION
    /// ``ResultCode/SQLITE_CONSTRAINT_NOTNULL``: a NOT NULL constraint failed.
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode.SQLITE_CONSTRAINT_NOTNULL
    /// ``ResultCode/SQLITE_CONSTRAINT_PINNED``: a row could not be updated because a trigger pinned it.
    public static let SQLITE_CONSTRAINT_PINNED = ResultCode.SQLITE_CONSTRAINT_PINNED
    /// ``ResultCode/SQLITE_CONSTRAINT_PRIMARYKEY``: a PRIMARY KEY constraint failed.
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode.SQLITE_CONSTRAINT_PRIMARYKEY
    /// ``ResultCode/SQLITE_CONSTRAINT_ROWID``: a rowid is not unique.
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode.SQLITE_CONSTRAINT_ROWID
    /// ``ResultCode/SQLITE_CONSTRAINT_TRIGGER``: a trigger raised an error with RAISE(ABORT/FAIL/ROLLBACK).
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode.SQLITE_CONSTRAINT_TRIGGER
    /// ``ResultCode/SQLITE_CONSTRAINT_UNIQUE``: a UNIQUE constraint failed.
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode.SQLITE_CONSTRAINT_UNIQUE
    /// ``ResultCode/SQLITE_CONSTRAINT_VTAB``: a virtual table reported a constraint failure.
    public static let SQLITE_CONSTRAINT_VTAB = ResultCode.SQLITE_CONSTRAINT_VTAB
    /// ``ResultCode/SQLITE_CORRUPT``: the database file is malformed.
    public static let SQLITE_CORRUPT = ResultCode.SQLITE_CORRUPT
    /// ``ResultCode/SQLITE_CORRUPT_INDEX``: an index is inconsistent with its table.
    public static let SQLITE_CORRUPT_INDEX = ResultCode.SQLITE_CORRUPT_INDEX
    /// ``ResultCode/SQLITE_CORRUPT_SEQUENCE``: the sqlite_sequence table is malformed.
    public static let SQLITE_CORRUPT_SEQUENCE = ResultCode.SQLITE_CORRUPT_SEQUENCE
    /// ``ResultCode/SQLITE_CORRUPT_VTAB``: a virtual table found its content malformed.
    public static let SQLITE_CORRUPT_VTAB = ResultCode.SQLITE_CORRUPT_VTAB
    /// ``ResultCode/SQLITE_DONE``: a statement finished running.
    public static let SQLITE_DONE = ResultCode.SQLITE_DONE
    /// ``ResultCode/SQLITE_EMPTY``: not used by SQLite.
    public static let SQLITE_EMPTY = ResultCode.SQLITE_EMPTY
    /// ``ResultCode/SQLITE_ERROR``: a generic error, such as an SQL syntax error or a missing table.
    public static let SQLITE_ERROR = ResultCode.SQLITE_ERROR
    /// ``ResultCode/SQLITE_ERROR_MISSING_COLLSEQ``: a collation the statement needs is not defined.
    public static let SQLITE_ERROR_MISSING_COLLSEQ = ResultCode.SQLITE_ERROR_MISSING_COLLSEQ
    /// ``ResultCode/SQLITE_ERROR_RETRY``: preparing a statement failed and may succeed on a retry.
    public static let SQLITE_ERROR_RETRY = ResultCode.SQLITE_ERROR_RETRY
    /// ``ResultCode/SQLITE_ERROR_SNAPSHOT``: a historical snapshot is no longer available.
    public static let SQLITE_ERROR_SNAPSHOT = ResultCode.SQLITE_ERROR_SNAPSHOT
    /// ``ResultCode/SQLITE_FORMAT``: not used by SQLite.
    public static let SQLITE_FORMAT = ResultCode.SQLITE_FORMAT
    /// ``ResultCode/SQLITE_FULL``: the disk is full, or the database reached its maximum size.
    public static let SQLITE_FULL = ResultCode.SQLITE_FULL
    /// ``ResultCode/SQLITE_INTERNAL``: an internal malfunction of SQLite.
    public static let SQLITE_INTERNAL = ResultCode.SQLITE_INTERNAL
    /// ``ResultCode/SQLITE_INTERRUPT``: the operation was interrupted, by `interrupt()` or a cancelled task.
    public static let SQLITE_INTERRUPT = ResultCode.SQLITE_INTERRUPT
    /// ``ResultCode/SQLITE_IOERR``: the operating system reported an I/O error.
    public static let SQLITE_IOERR = ResultCode.SQLITE_IOERR
    /// ``ResultCode/SQLITE_IOERR_ACCESS``: an I/O error while checking that a file exists or can be accessed.
    public static let SQLITE_IOERR_ACCESS = ResultCode.SQLITE_IOERR_ACCESS
    /// ``ResultCode/SQLITE_IOERR_AUTH``: a VFS refused access for lack of authorization.
    public static let SQLITE_IOERR_AUTH = ResultCode.SQLITE_IOERR_AUTH
    /// ``ResultCode/SQLITE_IOERR_BEGIN_ATOMIC``: an atomic write batch could not begin.
    public static let SQLITE_IOERR_BEGIN_ATOMIC = ResultCode.SQLITE_IOERR_BEGIN_ATOMIC
    /// ``ResultCode/SQLITE_IOERR_BLOCKED``: no longer used by SQLite.
    public static let SQLITE_IOERR_BLOCKED = ResultCode.SQLITE_IOERR_BLOCKED
    /// ``ResultCode/SQLITE_IOERR_CHECKRESERVEDLOCK``: an I/O error while checking for a reserved lock.
    public static let SQLITE_IOERR_CHECKRESERVEDLOCK = ResultCode.SQLITE_IOERR_CHECKRESERVEDLOCK
    /// ``ResultCode/SQLITE_IOERR_CLOSE``: an I/O error while closing a file.
    public static let SQLITE_IOERR_CLOSE = ResultCode.SQLITE_IOERR_CLOSE
    /// ``ResultCode/SQLITE_IOERR_COMMIT_ATOMIC``: an atomic write batch could not commit.
    public static let SQLITE_IOERR_COMMIT_ATOMIC = ResultCode.SQLITE_IOERR_COMMIT_ATOMIC
    /// ``ResultCode/SQLITE_IOERR_CONVPATH``: a path conversion failed (Cygwin only).
    public static let SQLITE_IOERR_CONVPATH = ResultCode.SQLITE_IOERR_CONVPATH
    /// ``ResultCode/SQLITE_IOERR_CORRUPTFS``: the file system reported corruption.
    public static let SQLITE_IOERR_CORRUPTFS = ResultCode.SQLITE_IOERR_CORRUPTFS
    /// ``ResultCode/SQLITE_IOERR_DATA``: a checksum VFS found a damaged page.
    public static let SQLITE_IOERR_DATA = ResultCode.SQLITE_IOERR_DATA
    /// ``ResultCode/SQLITE_IOERR_DELETE``: an I/O error while deleting a file.
    public static let SQLITE_IOERR_DELETE = ResultCode.SQLITE_IOERR_DELETE
    /// ``ResultCode/SQLITE_IOERR_DELETE_NOENT``: a file to delete did not exist.
    public static let SQLITE_IOERR_DELETE_NOENT = ResultCode.SQLITE_IOERR_DELETE_NOENT
    /// ``ResultCode/SQLITE_IOERR_DIR_CLOSE``: no longer used by SQLite.
    public static let SQLITE_IOERR_DIR_CLOSE = ResultCode.SQLITE_IOERR_DIR_CLOSE
    /// ``ResultCode/SQLITE_IOERR_DIR_FSYNC``: an I/O error while syncing a directory.
    public static let SQLITE_IOERR_DIR_FSYNC = ResultCode.SQLITE_IOERR_DIR_FSYNC
    /// ``ResultCode/SQLITE_IOERR_FSTAT``: an I/O error while reading file metadata.
    public static let SQLITE_IOERR_FSTAT = ResultCode.SQLITE_IOERR_FSTAT
    /// ``ResultCode/SQLITE_IOERR_FSYNC``: an I/O error while syncing a file to disk.
    public static let SQLITE_IOERR_FSYNC = ResultCode.SQLITE_IOERR_FSYNC
    /// ``ResultCode/SQLITE_IOERR_GETTEMPPATH``: no directory for temporary files could be found.
    public static let SQLITE_IOERR_GETTEMPPATH = ResultCode.SQLITE_IOERR_GETTEMPPATH
    /// ``ResultCode/SQLITE_IOERR_LOCK``: an I/O error in the file locking logic.
    public static let SQLITE_IOERR_LOCK = ResultCode.SQLITE_IOERR_LOCK
    /// ``ResultCode/SQLITE_IOERR_MMAP``: an I/O error while memory-mapping a file.
    public static let SQLITE_IOERR_MMAP = ResultCode.SQLITE_IOERR_MMAP
    /// ``ResultCode/SQLITE_IOERR_NOMEM``: a VFS could not allocate memory.
    public static let SQLITE_IOERR_NOMEM = ResultCode.SQLITE_IOERR_NOMEM
    /// ``ResultCode/SQLITE_IOERR_RDLOCK``: an I/O error while taking a read lock.
    public static let SQLITE_IOERR_RDLOCK = ResultCode.SQLITE_IOERR_RDLOCK
    /// ``ResultCode/SQLITE_IOERR_READ``: an I/O error while reading from disk.
    public static let SQLITE_IOERR_READ = ResultCode.SQLITE_IOERR_READ
    /// ``ResultCode/SQLITE_IOERR_ROLLBACK_ATOMIC``: an atomic write batch could not roll back.
    public static let SQLITE_IOERR_ROLLBACK_ATOMIC = ResultCode.SQLITE_IOERR_ROLLBACK_ATOMIC
    /// ``ResultCode/SQLITE_IOERR_SEEK``: an I/O error while seeking in a file.
    public static let SQLITE_IOERR_SEEK = ResultCode.SQLITE_IOERR_SEEK
    /// ``ResultCode/SQLITE_IOERR_SHMLOCK``: no longer used by SQLite.
    public static let SQLITE_IOERR_SHMLOCK = ResultCode.SQLITE_IOERR_SHMLOCK
    /// ``ResultCode/SQLITE_IOERR_SHMMAP``: an I/O error while mapping WAL shared memory.
    public static let SQLITE_IOERR_SHMMAP = ResultCode.SQLITE_IOERR_SHMMAP
    /// ``ResultCode/SQLITE_IOERR_SHMOPEN``: an I/O error while opening WAL shared memory.
    public static let SQLITE_IOERR_SHMOPEN = ResultCode.SQLITE_IOERR_SHMOPEN
    /// ``ResultCode/SQLITE_IOERR_SHMSIZE``: an I/O error while resizing WAL shared memory.
    public static let SQLITE_IOERR_SHMSIZE = ResultCode.SQLITE_IOERR_SHMSIZE
    /// ``ResultCode/SQLITE_IOERR_SHORT_READ``: a read returned fewer bytes than requested.
    public static let SQLITE_IOERR_SHORT_READ = ResultCode.SQLITE_IOERR_SHORT_READ
    /// ``ResultCode/SQLITE_IOERR_TRUNCATE``: an I/O error while truncating a file.
    public static let SQLITE_IOERR_TRUNCATE = ResultCode.SQLITE_IOERR_TRUNCATE
    /// ``ResultCode/SQLITE_IOERR_UNLOCK``: an I/O error while releasing a file lock.
    public static let SQLITE_IOERR_UNLOCK = ResultCode.SQLITE_IOERR_UNLOCK
    /// ``ResultCode/SQLITE_IOERR_VNODE``: a file changed underneath SQLite (a VFS-specific error).
    public static let SQLITE_IOERR_VNODE = ResultCode.SQLITE_IOERR_VNODE
    /// ``ResultCode/SQLITE_IOERR_WRITE``: an I/O error while writing to disk.
    public static let SQLITE_IOERR_WRITE = ResultCode.SQLITE_IOERR_WRITE
    /// ``ResultCode/SQLITE_LOCKED``: a table is locked by the same connection or a connection of the same shared cache.
    public static let SQLITE_LOCKED = ResultCode.SQLITE_LOCKED
    /// ``ResultCode/SQLITE_LOCKED_SHAREDCACHE``: a lock held by another connection of the same shared cache blocked the operation.
    public static let SQLITE_LOCKED_SHAREDCACHE = ResultCode.SQLITE_LOCKED_SHAREDCACHE
    /// ``ResultCode/SQLITE_LOCKED_VTAB``: a virtual table could not take a lock it needs.
    public static let SQLITE_LOCKED_VTAB = ResultCode.SQLITE_LOCKED_VTAB
    /// ``ResultCode/SQLITE_MISMATCH``: a value has the wrong type, such as a non-integer rowid.
    public static let SQLITE_MISMATCH = ResultCode.SQLITE_MISMATCH
    /// ``ResultCode/SQLITE_MISUSE``: the SQLite library was used incorrectly.
    public static let SQLITE_MISUSE = ResultCode.SQLITE_MISUSE
    /// ``ResultCode/SQLITE_NOLFS``: large files are not supported by the host.
    public static let SQLITE_NOLFS = ResultCode.SQLITE_NOLFS
    /// ``ResultCode/SQLITE_NOMEM``: sQLite could not allocate memory.
    public static let SQLITE_NOMEM = ResultCode.SQLITE_NOMEM
    /// ``ResultCode/SQLITE_NOTADB``: the file is not a database: not SQLite, or encrypted with another key or settings.
    public static let SQLITE_NOTADB = ResultCode.SQLITE_NOTADB
    /// ``ResultCode/SQLITE_NOTFOUND``: an unknown file control opcode, or a missing system call for a VFS.
    public static let SQLITE_NOTFOUND = ResultCode.SQLITE_NOTFOUND
    /// ``ResultCode/SQLITE_NOTICE``: an unusual event was logged (not an error).
    public static let SQLITE_NOTICE = ResultCode.SQLITE_NOTICE
    /// ``ResultCode/SQLITE_NOTICE_RECOVER_ROLLBACK``: a hot journal was rolled back (logged, not an error).
    public static let SQLITE_NOTICE_RECOVER_ROLLBACK = ResultCode.SQLITE_NOTICE_RECOVER_ROLLBACK
    /// ``ResultCode/SQLITE_NOTICE_RECOVER_WAL``: a WAL file was recovered (logged, not an error).
    public static let SQLITE_NOTICE_RECOVER_WAL = ResultCode.SQLITE_NOTICE_RECOVER_WAL
    /// ``ResultCode/SQLITE_OK``: success.
    public static let SQLITE_OK = ResultCode.SQLITE_OK
    /// ``ResultCode/SQLITE_OK_LOAD_PERMANENTLY``: an extension asked to stay loaded (extension loading only).
    public static let SQLITE_OK_LOAD_PERMANENTLY = ResultCode.SQLITE_OK_LOAD_PERMANENTLY
    /// ``ResultCode/SQLITE_OK_SYMLINK``: a path was resolved through a symbolic link (VFS use only).
    public static let SQLITE_OK_SYMLINK = ResultCode.SQLITE_OK_SYMLINK
    /// ``ResultCode/SQLITE_PERM``: the access mode asked for a file cannot be granted.
    public static let SQLITE_PERM = ResultCode.SQLITE_PERM
    /// ``ResultCode/SQLITE_PROTOCOL``: a locking protocol problem between connections (WAL mode).
    public static let SQLITE_PROTOCOL = ResultCode.SQLITE_PROTOCOL
    /// ``ResultCode/SQLITE_RANGE``: a statement argument index is out of range.
    public static let SQLITE_RANGE = ResultCode.SQLITE_RANGE
    /// ``ResultCode/SQLITE_READONLY``: a write was attempted on a read-only database.
    public static let SQLITE_READONLY = ResultCode.SQLITE_READONLY
    /// ``ResultCode/SQLITE_READONLY_CANTINIT``: a read-only connection could not initialize WAL shared memory.
    public static let SQLITE_READONLY_CANTINIT = ResultCode.SQLITE_READONLY_CANTINIT
    /// ``ResultCode/SQLITE_READONLY_CANTLOCK``: a read-only WAL connection could not lock the shared memory.
    public static let SQLITE_READONLY_CANTLOCK = ResultCode.SQLITE_READONLY_CANTLOCK
    /// ``ResultCode/SQLITE_READONLY_DBMOVED``: the database file was moved or deleted since it was opened.
    public static let SQLITE_READONLY_DBMOVED = ResultCode.SQLITE_READONLY_DBMOVED
    /// ``ResultCode/SQLITE_READONLY_DIRECTORY``: the directory of the database is read-only, so a journal cannot be created.
    public static let SQLITE_READONLY_DIRECTORY = ResultCode.SQLITE_READONLY_DIRECTORY
    /// ``ResultCode/SQLITE_READONLY_RECOVERY``: a WAL database needs recovery, which a read-only connection cannot run.
    public static let SQLITE_READONLY_RECOVERY = ResultCode.SQLITE_READONLY_RECOVERY
    /// ``ResultCode/SQLITE_READONLY_ROLLBACK``: a hot journal needs rolling back, which a read-only connection cannot do.
    public static let SQLITE_READONLY_ROLLBACK = ResultCode.SQLITE_READONLY_ROLLBACK
    /// ``ResultCode/SQLITE_ROW``: a step produced a row.
    public static let SQLITE_ROW = ResultCode.SQLITE_ROW
    /// ``ResultCode/SQLITE_SCHEMA``: the schema changed while a statement was being prepared.
    public static let SQLITE_SCHEMA = ResultCode.SQLITE_SCHEMA
    /// ``ResultCode/SQLITE_TOOBIG``: a string or blob exceeds the size limit.
    public static let SQLITE_TOOBIG = ResultCode.SQLITE_TOOBIG
    /// ``ResultCode/SQLITE_WARNING``: a warning was logged.
    public static let SQLITE_WARNING = ResultCode.SQLITE_WARNING
    /// ``ResultCode/SQLITE_WARNING_AUTOINDEX``: sQLite built a temporary index that an index of yours could replace.
    public static let SQLITE_WARNING_AUTOINDEX = ResultCode.SQLITE_WARNING_AUTOINDEX
}

/// The single path from an SQLite result code to a thrown error. Every call into SQLite that
/// returns a code goes through here (compare NIO's `syscall` wrapper around errno).
@usableFromInline
func sqliteCheck(
    _ code: CInt,
    _ connection: OpaquePointer?,
    sql: String? = nil,
    arguments: StatementArguments? = nil,
    publicStatementArguments: Bool = false) throws
{
    if code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE { return }
    throw makeDatabaseError(
        code, connection, sql: sql, arguments: arguments,
        publicStatementArguments: publicStatementArguments)
}

/// Builds the `DatabaseError` for a failed result code, reading the connection's message when
/// the connection reports the same code.
func makeDatabaseError(
    _ code: CInt,
    _ connection: OpaquePointer?,
    sql: String? = nil,
    arguments: StatementArguments? = nil,
    publicStatementArguments: Bool = false) -> DatabaseError
{
    var extended = code
    var message: String
    if let connection {
        let connectionCode = sqlite3_extended_errcode(connection)
        if connectionCode & 0xFF == code & 0xFF {
            extended = connectionCode
            message = String(cString: sqlite3_errmsg(connection))
        } else {
            message = String(cString: sqlite3_errstr(code))
        }
    } else {
        message = String(cString: sqlite3_errstr(code))
    }
    if message.isEmpty { message = String(cString: sqlite3_errstr(code)) }
    return DatabaseError(
        resultCode: ResultCode(rawValue: extended),
        message: message,
        sql: sql,
        arguments: arguments,
        publicStatementArguments: publicStatementArguments)
}
