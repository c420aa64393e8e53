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
    public static let SQLITE_ABORT = ResultCode.SQLITE_ABORT
    public static let SQLITE_ABORT_ROLLBACK = ResultCode.SQLITE_ABORT_ROLLBACK
    public static let SQLITE_AUTH = ResultCode.SQLITE_AUTH
    public static let SQLITE_AUTH_USER = ResultCode.SQLITE_AUTH_USER
    public static let SQLITE_BUSY = ResultCode.SQLITE_BUSY
    public static let SQLITE_BUSY_RECOVERY = ResultCode.SQLITE_BUSY_RECOVERY
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode.SQLITE_BUSY_SNAPSHOT
    public static let SQLITE_BUSY_TIMEOUT = ResultCode.SQLITE_BUSY_TIMEOUT
    public static let SQLITE_CANTOPEN = ResultCode.SQLITE_CANTOPEN
    public static let SQLITE_CANTOPEN_CONVPATH = ResultCode.SQLITE_CANTOPEN_CONVPATH
    public static let SQLITE_CANTOPEN_DIRTYWAL = ResultCode.SQLITE_CANTOPEN_DIRTYWAL
    public static let SQLITE_CANTOPEN_FULLPATH = ResultCode.SQLITE_CANTOPEN_FULLPATH
    public static let SQLITE_CANTOPEN_ISDIR = ResultCode.SQLITE_CANTOPEN_ISDIR
    public static let SQLITE_CANTOPEN_NOTEMPDIR = ResultCode.SQLITE_CANTOPEN_NOTEMPDIR
    public static let SQLITE_CANTOPEN_SYMLINK = ResultCode.SQLITE_CANTOPEN_SYMLINK
    public static let SQLITE_CONSTRAINT = ResultCode.SQLITE_CONSTRAINT
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode.SQLITE_CONSTRAINT_CHECK
    public static let SQLITE_CONSTRAINT_COMMITHOOK = ResultCode.SQLITE_CONSTRAINT_COMMITHOOK
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode.SQLITE_CONSTRAINT_DATATYPE
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode.SQLITE_CONSTRAINT_FOREIGNKEY
    public static let SQLITE_CONSTRAINT_FUNCTION = ResultCode.SQLITE_CONSTRAINT_FUNCTION
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode.SQLITE_CONSTRAINT_NOTNULL
    public static let SQLITE_CONSTRAINT_PINNED = ResultCode.SQLITE_CONSTRAINT_PINNED
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode.SQLITE_CONSTRAINT_PRIMARYKEY
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode.SQLITE_CONSTRAINT_ROWID
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode.SQLITE_CONSTRAINT_TRIGGER
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode.SQLITE_CONSTRAINT_UNIQUE
    public static let SQLITE_CONSTRAINT_VTAB = ResultCode.SQLITE_CONSTRAINT_VTAB
    public static let SQLITE_CORRUPT = ResultCode.SQLITE_CORRUPT
    public static let SQLITE_CORRUPT_INDEX = ResultCode.SQLITE_CORRUPT_INDEX
    public static let SQLITE_CORRUPT_SEQUENCE = ResultCode.SQLITE_CORRUPT_SEQUENCE
    public static let SQLITE_CORRUPT_VTAB = ResultCode.SQLITE_CORRUPT_VTAB
    public static let SQLITE_DONE = ResultCode.SQLITE_DONE
    public static let SQLITE_EMPTY = ResultCode.SQLITE_EMPTY
    public static let SQLITE_ERROR = ResultCode.SQLITE_ERROR
    public static let SQLITE_ERROR_MISSING_COLLSEQ = ResultCode.SQLITE_ERROR_MISSING_COLLSEQ
    public static let SQLITE_ERROR_RETRY = ResultCode.SQLITE_ERROR_RETRY
    public static let SQLITE_ERROR_SNAPSHOT = ResultCode.SQLITE_ERROR_SNAPSHOT
    public static let SQLITE_FORMAT = ResultCode.SQLITE_FORMAT
    public static let SQLITE_FULL = ResultCode.SQLITE_FULL
    public static let SQLITE_INTERNAL = ResultCode.SQLITE_INTERNAL
    public static let SQLITE_INTERRUPT = ResultCode.SQLITE_INTERRUPT
    public static let SQLITE_IOERR = ResultCode.SQLITE_IOERR
    public static let SQLITE_IOERR_ACCESS = ResultCode.SQLITE_IOERR_ACCESS
    public static let SQLITE_IOERR_AUTH = ResultCode.SQLITE_IOERR_AUTH
    public static let SQLITE_IOERR_BEGIN_ATOMIC = ResultCode.SQLITE_IOERR_BEGIN_ATOMIC
    public static let SQLITE_IOERR_BLOCKED = ResultCode.SQLITE_IOERR_BLOCKED
    public static let SQLITE_IOERR_CHECKRESERVEDLOCK = ResultCode.SQLITE_IOERR_CHECKRESERVEDLOCK
    public static let SQLITE_IOERR_CLOSE = ResultCode.SQLITE_IOERR_CLOSE
    public static let SQLITE_IOERR_COMMIT_ATOMIC = ResultCode.SQLITE_IOERR_COMMIT_ATOMIC
    public static let SQLITE_IOERR_CONVPATH = ResultCode.SQLITE_IOERR_CONVPATH
    public static let SQLITE_IOERR_CORRUPTFS = ResultCode.SQLITE_IOERR_CORRUPTFS
    public static let SQLITE_IOERR_DATA = ResultCode.SQLITE_IOERR_DATA
    public static let SQLITE_IOERR_DELETE = ResultCode.SQLITE_IOERR_DELETE
    public static let SQLITE_IOERR_DELETE_NOENT = ResultCode.SQLITE_IOERR_DELETE_NOENT
    public static let SQLITE_IOERR_DIR_CLOSE = ResultCode.SQLITE_IOERR_DIR_CLOSE
    public static let SQLITE_IOERR_DIR_FSYNC = ResultCode.SQLITE_IOERR_DIR_FSYNC
    public static let SQLITE_IOERR_FSTAT = ResultCode.SQLITE_IOERR_FSTAT
    public static let SQLITE_IOERR_FSYNC = ResultCode.SQLITE_IOERR_FSYNC
    public static let SQLITE_IOERR_GETTEMPPATH = ResultCode.SQLITE_IOERR_GETTEMPPATH
    public static let SQLITE_IOERR_LOCK = ResultCode.SQLITE_IOERR_LOCK
    public static let SQLITE_IOERR_MMAP = ResultCode.SQLITE_IOERR_MMAP
    public static let SQLITE_IOERR_NOMEM = ResultCode.SQLITE_IOERR_NOMEM
    public static let SQLITE_IOERR_RDLOCK = ResultCode.SQLITE_IOERR_RDLOCK
    public static let SQLITE_IOERR_READ = ResultCode.SQLITE_IOERR_READ
    public static let SQLITE_IOERR_ROLLBACK_ATOMIC = ResultCode.SQLITE_IOERR_ROLLBACK_ATOMIC
    public static let SQLITE_IOERR_SEEK = ResultCode.SQLITE_IOERR_SEEK
    public static let SQLITE_IOERR_SHMLOCK = ResultCode.SQLITE_IOERR_SHMLOCK
    public static let SQLITE_IOERR_SHMMAP = ResultCode.SQLITE_IOERR_SHMMAP
    public static let SQLITE_IOERR_SHMOPEN = ResultCode.SQLITE_IOERR_SHMOPEN
    public static let SQLITE_IOERR_SHMSIZE = ResultCode.SQLITE_IOERR_SHMSIZE
    public static let SQLITE_IOERR_SHORT_READ = ResultCode.SQLITE_IOERR_SHORT_READ
    public static let SQLITE_IOERR_TRUNCATE = ResultCode.SQLITE_IOERR_TRUNCATE
    public static let SQLITE_IOERR_UNLOCK = ResultCode.SQLITE_IOERR_UNLOCK
    public static let SQLITE_IOERR_VNODE = ResultCode.SQLITE_IOERR_VNODE
    public static let SQLITE_IOERR_WRITE = ResultCode.SQLITE_IOERR_WRITE
    public static let SQLITE_LOCKED = ResultCode.SQLITE_LOCKED
    public static let SQLITE_LOCKED_SHAREDCACHE = ResultCode.SQLITE_LOCKED_SHAREDCACHE
    public static let SQLITE_LOCKED_VTAB = ResultCode.SQLITE_LOCKED_VTAB
    public static let SQLITE_MISMATCH = ResultCode.SQLITE_MISMATCH
    public static let SQLITE_MISUSE = ResultCode.SQLITE_MISUSE
    public static let SQLITE_NOLFS = ResultCode.SQLITE_NOLFS
    public static let SQLITE_NOMEM = ResultCode.SQLITE_NOMEM
    public static let SQLITE_NOTADB = ResultCode.SQLITE_NOTADB
    public static let SQLITE_NOTFOUND = ResultCode.SQLITE_NOTFOUND
    public static let SQLITE_NOTICE = ResultCode.SQLITE_NOTICE
    public static let SQLITE_NOTICE_RECOVER_ROLLBACK = ResultCode.SQLITE_NOTICE_RECOVER_ROLLBACK
    public static let SQLITE_NOTICE_RECOVER_WAL = ResultCode.SQLITE_NOTICE_RECOVER_WAL
    public static let SQLITE_OK = ResultCode.SQLITE_OK
    public static let SQLITE_OK_LOAD_PERMANENTLY = ResultCode.SQLITE_OK_LOAD_PERMANENTLY
    public static let SQLITE_OK_SYMLINK = ResultCode.SQLITE_OK_SYMLINK
    public static let SQLITE_PERM = ResultCode.SQLITE_PERM
    public static let SQLITE_PROTOCOL = ResultCode.SQLITE_PROTOCOL
    public static let SQLITE_RANGE = ResultCode.SQLITE_RANGE
    public static let SQLITE_READONLY = ResultCode.SQLITE_READONLY
    public static let SQLITE_READONLY_CANTINIT = ResultCode.SQLITE_READONLY_CANTINIT
    public static let SQLITE_READONLY_CANTLOCK = ResultCode.SQLITE_READONLY_CANTLOCK
    public static let SQLITE_READONLY_DBMOVED = ResultCode.SQLITE_READONLY_DBMOVED
    public static let SQLITE_READONLY_DIRECTORY = ResultCode.SQLITE_READONLY_DIRECTORY
    public static let SQLITE_READONLY_RECOVERY = ResultCode.SQLITE_READONLY_RECOVERY
    public static let SQLITE_READONLY_ROLLBACK = ResultCode.SQLITE_READONLY_ROLLBACK
    public static let SQLITE_ROW = ResultCode.SQLITE_ROW
    public static let SQLITE_SCHEMA = ResultCode.SQLITE_SCHEMA
    public static let SQLITE_TOOBIG = ResultCode.SQLITE_TOOBIG
    public static let SQLITE_WARNING = ResultCode.SQLITE_WARNING
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
