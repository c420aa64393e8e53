import CSQLCipher

extension Database {
    /// A log level of SQLCipher's own logging.
    public struct SQLCipherLogLevel: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No logging (the default of GRDBCipher).
        public static let none = SQLCipherLogLevel(rawValue: "NONE")
        /// Errors only.
        public static let error = SQLCipherLogLevel(rawValue: "ERROR")
        /// Errors and warnings.
        public static let warn = SQLCipherLogLevel(rawValue: "WARN")
        /// Errors, warnings and information.
        public static let info = SQLCipherLogLevel(rawValue: "INFO")
        /// Everything up to debug messages.
        public static let debug = SQLCipherLogLevel(rawValue: "DEBUG")
        /// Everything, including traces.
        public static let trace = SQLCipherLogLevel(rawValue: "TRACE")
    }

    /// Where SQLCipher writes its own log.
    public struct SQLCipherLogTarget: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The system log of the device, where SQLCipher supports one.
        public static let device = SQLCipherLogTarget(rawValue: "device")
        /// The standard error.
        public static let stderr = SQLCipherLogTarget(rawValue: "stderr")
        /// The standard output.
        public static let stdout = SQLCipherLogTarget(rawValue: "stdout")
        /// A file.
        public static func file(_ path: String) -> SQLCipherLogTarget { SQLCipherLogTarget(rawValue: path) }
    }

    /// Turns SQLCipher's own logging on.
    ///
    /// SQLCipher logging is process-wide. GRDBCipher turns it off on every new connection,
    /// because SQLCipher 4.6 logs each failed decryption to stderr by default and those lines
    /// end up in service logs; once this method or ``disableCipherLogging()`` was called, the
    /// application is in charge and new connections leave the setting alone.
    ///
    /// ```swift
    /// try dbQueue.inDatabase { db in
    ///     try db.enableCipherLogging(logLevel: .warn, target: .file("/tmp/sqlcipher.log"))
    /// }
    /// ```
    ///
    /// Related SQLCipher documentation: <https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_log>
    public func enableCipherLogging(logLevel: SQLCipherLogLevel = .debug, target: SQLCipherLogTarget = .device) throws {
        SQLCipherLibrary.applicationControlsLogging.write(true)
        try fetchStatement(sql: "PRAGMA cipher_log = \(target.rawValue.quotedSQLLiteral)").execute()
        try fetchStatement(sql: "PRAGMA cipher_log_level = \(logLevel.rawValue.quotedSQLLiteral)").execute()
    }

    /// Turns SQLCipher's own logging off, for the whole process.
    public func disableCipherLogging() throws {
        SQLCipherLibrary.applicationControlsLogging.write(true)
        try fetchStatement(sql: "PRAGMA cipher_log_level = NONE").execute()
    }

    /// Silences SQLCipher's logging on a new connection, unless the application took control.
    /// It must run on every connection: SQLCipher resets its log level when the last
    /// connection of the process closes.
    func silenceCipherLoggingIfNeeded() {
        guard !SQLCipherLibrary.applicationControlsLogging.read() else { return }
        try? fetchStatement(sql: "PRAGMA cipher_log_level = NONE").execute()
    }
}

extension String {
    /// The string as an SQL string literal: `'it''s'`.
    var quotedSQLLiteral: String {
        "'" + replacingOccurrences(of: "'", with: "''") + "'"
    }
}
