import CSQLCipher

extension Database {
    /// SQLCipher's log levels.
    public enum CipherLogLevel: String, Sendable {
        case none = "NONE"
        case error = "ERROR"
        case warn = "WARN"
        case info = "INFO"
        case debug = "DEBUG"
        case trace = "TRACE"
    }

    /// Turns SQLCipher's own logging on, to `target`: "stderr", "stdout", or a file path.
    ///
    /// SQLCipher logging is process-wide. GRDBCipher turns it off on every new connection,
    /// because SQLCipher 4.6 logs each failed decryption to stderr by default and those lines
    /// end up in service logs; once this method or ``disableCipherLogging()`` was called, the
    /// application is in charge and new connections leave the setting alone.
    ///
    /// ```swift
    /// try dbQueue.inDatabase { db in
    ///     try db.enableCipherLogging(level: .debug, target: "/tmp/sqlcipher.log")
    /// }
    /// ```
    ///
    /// Related SQLCipher documentation: <https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_log>
    public func enableCipherLogging(level: CipherLogLevel = .warn, target: String = "stderr") throws {
        SQLCipherLibrary.applicationControlsLogging.write(true)
        try cachedStatement(sql: "PRAGMA cipher_log = \(target.quotedSQLLiteral)").execute()
        try cachedStatement(sql: "PRAGMA cipher_log_level = \(level.rawValue)").execute()
    }

    /// Turns SQLCipher's own logging off, for the whole process.
    public func disableCipherLogging() throws {
        SQLCipherLibrary.applicationControlsLogging.write(true)
        try cachedStatement(sql: "PRAGMA cipher_log_level = NONE").execute()
    }

    /// Silences SQLCipher's logging on a new connection, unless the application took control.
    /// It must run on every connection: SQLCipher resets its log level when the last
    /// connection of the process closes.
    func silenceCipherLoggingIfNeeded() {
        guard !SQLCipherLibrary.applicationControlsLogging.read() else { return }
        try? cachedStatement(sql: "PRAGMA cipher_log_level = NONE").execute()
    }
}

extension String {
    /// The string as an SQL string literal: `'it''s'`.
    var quotedSQLLiteral: String {
        "'" + replacingOccurrences(of: "'", with: "''") + "'"
    }
}
