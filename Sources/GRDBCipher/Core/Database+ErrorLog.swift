import CSQLCipher
import Foundation

extension Database {
    /// A function that receives SQLite's error log.
    public typealias LogErrorFunction = @Sendable (_ resultCode: ResultCode, _ message: String) -> Void

    /// The function that receives SQLite's error and warning log, and the statements still
    /// alive when a connection fails to close ("unfinalized statement: <sql>").
    ///
    /// Set it before any connection opens in the process: SQLite accepts its log function only
    /// before it initializes, and ignores it afterwards.
    ///
    /// ```swift
    /// Database.logError = { resultCode, message in
    ///     logger.warning("SQLite error \(resultCode): \(message)")
    /// }
    /// ```
    ///
    /// Messages hold SQL text, never statement arguments; a message that quotes a keying
    /// statement (`PRAGMA key = '…'`, `ATTACH … KEY '…'`) is withheld.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/errlog.html>
    public static var logError: LogErrorFunction? {
        get { errorLogFunction.read() }
        set {
            errorLogFunction.write(newValue)
            if newValue != nil { _ = errorLogInstallation }
        }
    }

    private static let errorLogFunction = LockedValue<LogErrorFunction?>(nil)

    /// Routes SQLite's log to ``logError``, once per process, when the application asks for it.
    private static let errorLogInstallation: Void = {
        _ = grdbcipher_config_log({ _, code, message in
            guard let message else { return }
            Database.log(ResultCode(rawValue: code), String(cString: message))
        }, nil)
    }()

    /// Sends a message to ``logError``, if set. While the current thread runs a statement
    /// whose SQL text holds a secret, SQLite's message (which may quote the SQL) is withheld; so
    /// is a message that quotes a keying statement (`PRAGMA key`, `ATTACH … KEY`), whoever ran it.
    static func log(_ resultCode: ResultCode, _ message: String) {
        guard let function = errorLogFunction.read() else { return }
        if Thread.current.threadDictionary[secretStatementKey] != nil || quotesKeyingStatement(message) {
            function(resultCode, "(message withheld: the statement holds a secret)")
        } else {
            function(resultCode, message)
        }
    }

    /// Whether SQLite's message quotes a statement that may hold a key or a license as a literal
    /// (SQLite quotes the SQL of a statement that fails to prepare), whoever ran it.
    static func quotesKeyingStatement(_ message: String) -> Bool {
        let folded = message.asciiLowercased()
        let keying = ["pragma key", "pragma rekey", "pragma hexkey", "pragma hexrekey", "pragma textkey", "cipher_license"]
        return keying.contains(where: folded.contains) || (folded.contains("attach") && folded.contains("key"))
    }

    private static let secretStatementKey = "GRDBCipher.runsSecretStatement"

    /// Runs `body`, which runs a statement whose SQL text holds a secret, with this thread's
    /// SQLite log messages withheld and the connection's trace paused.
    func withSecretStatement<T>(_ body: () throws -> T) rethrows -> T {
        let dictionary = Thread.current.threadDictionary
        let wasSecret = dictionary[Self.secretStatementKey] != nil
        dictionary[Self.secretStatementKey] = true
        defer {
            if !wasSecret { dictionary.removeObject(forKey: Self.secretStatementKey) }
        }
        return try withTracePaused(body)
    }

    /// The SQL of a statement as it may appear in a log: withheld when it may hold a key or a
    /// license as a literal (`PRAGMA key = '…'`, `ATTACH … KEY '…'`, `PRAGMA cipher_license`).
    static func loggableSQL(_ sql: String) -> String {
        let folded = sql.asciiLowercased()
        if folded.contains("key") || folded.contains("license") {
            return "(SQL withheld: it may hold a key)"
        }
        return sql
    }

    /// Tells ``logError`` about the statements that keep a connection from closing.
    static func logUnfinalizedStatements(_ connection: OpaquePointer) {
        guard errorLogFunction.read() != nil else { return }
        var statement = sqlite3_next_stmt(connection, nil)
        while let current = statement {
            let sql = sqlite3_sql(current).map { String(cString: $0) } ?? ""
            log(.SQLITE_MISUSE, "unfinalized statement: \(Self.loggableSQL(sql))")
            statement = sqlite3_next_stmt(connection, current)
        }
    }
}
