import CSQLCipher

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
        if let sql {
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

// Shortcuts for `catch DatabaseError.SQLITE_CONSTRAINT_FOREIGNKEY { ... }`.
extension DatabaseError {
    public static let SQLITE_OK = ResultCode.SQLITE_OK
    public static let SQLITE_ERROR = ResultCode.SQLITE_ERROR
    public static let SQLITE_INTERNAL = ResultCode.SQLITE_INTERNAL
    public static let SQLITE_PERM = ResultCode.SQLITE_PERM
    public static let SQLITE_ABORT = ResultCode.SQLITE_ABORT
    public static let SQLITE_BUSY = ResultCode.SQLITE_BUSY
    public static let SQLITE_LOCKED = ResultCode.SQLITE_LOCKED
    public static let SQLITE_NOMEM = ResultCode.SQLITE_NOMEM
    public static let SQLITE_READONLY = ResultCode.SQLITE_READONLY
    public static let SQLITE_INTERRUPT = ResultCode.SQLITE_INTERRUPT
    public static let SQLITE_IOERR = ResultCode.SQLITE_IOERR
    public static let SQLITE_CORRUPT = ResultCode.SQLITE_CORRUPT
    public static let SQLITE_NOTFOUND = ResultCode.SQLITE_NOTFOUND
    public static let SQLITE_FULL = ResultCode.SQLITE_FULL
    public static let SQLITE_CANTOPEN = ResultCode.SQLITE_CANTOPEN
    public static let SQLITE_PROTOCOL = ResultCode.SQLITE_PROTOCOL
    public static let SQLITE_EMPTY = ResultCode.SQLITE_EMPTY
    public static let SQLITE_SCHEMA = ResultCode.SQLITE_SCHEMA
    public static let SQLITE_TOOBIG = ResultCode.SQLITE_TOOBIG
    public static let SQLITE_CONSTRAINT = ResultCode.SQLITE_CONSTRAINT
    public static let SQLITE_MISMATCH = ResultCode.SQLITE_MISMATCH
    public static let SQLITE_MISUSE = ResultCode.SQLITE_MISUSE
    public static let SQLITE_NOLFS = ResultCode.SQLITE_NOLFS
    public static let SQLITE_AUTH = ResultCode.SQLITE_AUTH
    public static let SQLITE_FORMAT = ResultCode.SQLITE_FORMAT
    public static let SQLITE_RANGE = ResultCode.SQLITE_RANGE
    public static let SQLITE_NOTADB = ResultCode.SQLITE_NOTADB
    public static let SQLITE_NOTICE = ResultCode.SQLITE_NOTICE
    public static let SQLITE_WARNING = ResultCode.SQLITE_WARNING
    public static let SQLITE_ROW = ResultCode.SQLITE_ROW
    public static let SQLITE_DONE = ResultCode.SQLITE_DONE
    public static let SQLITE_BUSY_SNAPSHOT = ResultCode.SQLITE_BUSY_SNAPSHOT
    public static let SQLITE_BUSY_TIMEOUT = ResultCode.SQLITE_BUSY_TIMEOUT
    public static let SQLITE_CONSTRAINT_CHECK = ResultCode.SQLITE_CONSTRAINT_CHECK
    public static let SQLITE_CONSTRAINT_COMMITHOOK = ResultCode.SQLITE_CONSTRAINT_COMMITHOOK
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = ResultCode.SQLITE_CONSTRAINT_FOREIGNKEY
    public static let SQLITE_CONSTRAINT_FUNCTION = ResultCode.SQLITE_CONSTRAINT_FUNCTION
    public static let SQLITE_CONSTRAINT_NOTNULL = ResultCode.SQLITE_CONSTRAINT_NOTNULL
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = ResultCode.SQLITE_CONSTRAINT_PRIMARYKEY
    public static let SQLITE_CONSTRAINT_TRIGGER = ResultCode.SQLITE_CONSTRAINT_TRIGGER
    public static let SQLITE_CONSTRAINT_UNIQUE = ResultCode.SQLITE_CONSTRAINT_UNIQUE
    public static let SQLITE_CONSTRAINT_VTAB = ResultCode.SQLITE_CONSTRAINT_VTAB
    public static let SQLITE_CONSTRAINT_ROWID = ResultCode.SQLITE_CONSTRAINT_ROWID
    public static let SQLITE_CONSTRAINT_DATATYPE = ResultCode.SQLITE_CONSTRAINT_DATATYPE
    public static let SQLITE_READONLY_DBMOVED = ResultCode.SQLITE_READONLY_DBMOVED
    public static let SQLITE_ABORT_ROLLBACK = ResultCode.SQLITE_ABORT_ROLLBACK
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
