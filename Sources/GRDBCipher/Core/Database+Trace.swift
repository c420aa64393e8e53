import CSQLCipher
import Foundation

extension Database {
    /// What ``trace(options:_:)`` reports.
    public struct TracingOptions: OptionSet, Sendable {
        public let rawValue: CInt
        public init(rawValue: CInt) { self.rawValue = rawValue }

        /// Statements as they start.
        public static let statement = TracingOptions(rawValue: SQLITE_TRACE_STMT)
        /// Statements as they end, with their duration.
        public static let profile = TracingOptions(rawValue: SQLITE_TRACE_PROFILE)
    }

    /// A trace event.
    public enum TraceEvent: CustomStringConvertible {
        /// A statement starts.
        case statement(Statement)
        /// A statement ended, after `duration` seconds.
        case profile(statement: Statement, duration: TimeInterval)

        /// A traced statement. Valid only during the trace callback.
        public struct Statement: CustomStringConvertible {
            let sqliteStatement: SQLiteStatement
            let publicStatementArguments: Bool

            /// The SQL text, with parameters left as written.
            public let sql: String

            /// The SQL text with arguments in place of parameters. It may hold secrets: do not
            /// log it.
            public var expandedSQL: String {
                // (A statement of a trigger is described by its comment.)
                if sql.hasPrefix("--") { return sql }
                guard let text = sqlite3_expanded_sql(sqliteStatement) else { return sql }
                defer { sqlite3_free(text) }
                return String(sqlText: text)
            }

            /// The SQL, with arguments only if ``Configuration/publicStatementArguments`` is set.
            public var description: String {
                publicStatementArguments ? expandedSQL : sql
            }
        }

        public var description: String {
            describe(\.description)
        }

        /// The description of the event, with arguments in place of parameters. It may hold
        /// secrets: do not log it.
        ///
        /// ```swift
        /// db.trace { event in debugPrint(event.expandedDescription) }
        /// // INSERT INTO player (name) VALUES ('Arthur')
        /// ```
        public var expandedDescription: String {
            describe(\.expandedSQL)
        }

        private func describe(_ text: KeyPath<Statement, String>) -> String {
            switch self {
            case .statement(let statement):
                return statement[keyPath: text]
            case let .profile(statement, duration):
                return String(format: "%.3fs %@", duration, statement[keyPath: text])
            }
        }

        /// The SQL text, with parameters left as written.
        public var sql: String {
            switch self {
            case .statement(let statement), .profile(let statement, _): return statement.sql
            }
        }
    }

    /// Reports the statements the connection runs, or stops reporting when `trace` is nil.
    ///
    /// ```swift
    /// db.trace { print("SQL: \($0)") }
    /// db.trace(options: .profile) { event in
    ///     if case let .profile(statement, duration) = event, duration > 0.5 {
    ///         print("Slow query: \(statement.sql)")
    ///     }
    /// }
    /// ```
    public func trace(options: TracingOptions = .statement, _ trace: ((TraceEvent) -> Void)? = nil) {
        preconditionValidAccess()
        guard let trace, !options.isEmpty else {
            traceBox = nil
            sqlite3_trace_v2(handle, 0, nil, nil)
            return
        }
        // Unsafe: the box is passed unretained: `traceBox` keeps it until the trace is replaced
        // or removed here, or the connection removes it before its handle may outlive it.
        let box = TraceBox(trace: trace, publicStatementArguments: configuration.publicStatementArguments)
        traceBox = box
        sqlite3_trace_v2(handle, UInt32(bitPattern: options.rawValue), { mask, context, p, x in
            // Unsafe: SQLite calls back only while this box is the installed one, kept alive.
            let box = Unmanaged<TraceBox>.fromOpaque(context!).takeUnretainedValue()
            guard let p, !box.isPaused else { return 0 }
            let sqliteStatement = OpaquePointer(p)
            // As written, without the whitespace and semicolons that separate statements; a
            // statement run by a trigger or a virtual table is SQLite's "-- comment" of it,
            // as in GRDB.
            var sql = String(sqlText: sqlite3_sql(sqliteStatement))
            if CInt(mask) == SQLITE_TRACE_STMT, let x {
                // Unsafe: for SQLITE_TRACE_STMT, SQLite's X is the statement's C string, valid
                // during the callback (and copied here).
                let text = String(cString: x.assumingMemoryBound(to: CChar.self))
                if text.hasPrefix("--") { sql = text }
            }
            // The savepoint of multi-statement `execute` is ours, not the user's SQL.
            if ExecutionSavepoint.statements.contains(sql) { return 0 }
            let statement = TraceEvent.Statement(
                sqliteStatement: sqliteStatement,
                publicStatementArguments: box.publicStatementArguments,
                sql: sql)
            switch CInt(mask) {
            case SQLITE_TRACE_STMT:
                box.trace(.statement(statement))
            case SQLITE_TRACE_PROFILE:
                // Unsafe: for SQLITE_TRACE_PROFILE, SQLite's X points to an Int64 of nanoseconds.
                let nanoseconds = x!.assumingMemoryBound(to: Int64.self).pointee
                box.trace(.profile(statement: statement, duration: TimeInterval(nanoseconds) / 1e9))
            default:
                break
            }
            return 0
        }, Unmanaged.passUnretained(box).toOpaque()) // Unsafe: unretained, `traceBox` keeps it
    }
}

extension Database {
    /// Runs `body` with the connection's trace paused: statements the library runs that a
    /// trace must not show.
    func withTracePaused<T>(_ body: () throws -> T) rethrows -> T {
        let box = traceBox
        let wasPaused = box?.isPaused ?? false
        box?.isPaused = true
        defer { box?.isPaused = wasPaused }
        return try body()
    }
}

final class TraceBox {
    let trace: (Database.TraceEvent) -> Void
    let publicStatementArguments: Bool
    /// Set while the connection runs a statement whose SQL text holds a secret.
    var isPaused = false

    init(trace: @escaping (Database.TraceEvent) -> Void, publicStatementArguments: Bool) {
        self.trace = trace
        self.publicStatementArguments = publicStatementArguments
    }
}
