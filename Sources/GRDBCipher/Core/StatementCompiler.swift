import CSQLCipher
import Foundation

/// Turns SQL text into prepared statements, and runs SQL strings that hold several statements
/// so that bad input never half-applies.
///
/// For `execute(sql:arguments:)`:
/// 1. Every statement that can be prepared before anything runs is prepared. When all of them
///    are, arguments are checked against all of them before the first one runs.
/// 2. When there are several statements, they run inside a savepoint, rolled back on error,
///    unless one of them manages transactions or cannot run in one (BEGIN, COMMIT, VACUUM,
///    ATTACH, PRAGMA...): such SQL runs as written, like in GRDB.
/// 3. A statement that cannot be prepared before earlier ones run (it uses a table they create)
///    is prepared when its turn comes; a failure then rolls back the savepoint.
struct StatementCompiler {
    let database: Database
    let sql: String

    /// Statements prepared ahead, and what stopped preparation early, if anything.
    private struct Plan {
        var statements: [Statement] = []
        /// Byte offset, in the UTF-8 SQL, of the first statement not prepared yet.
        var remainderOffset: Int?
        /// The error that stopped preparation at `remainderOffset`.
        var error: DatabaseError?
    }

    /// Prepares exactly one statement; trailing whitespace, semicolons and comments are allowed.
    func compileSingle() throws -> Statement {
        let plan = prepareAhead(stopAfter: 2)
        if plan.statements.isEmpty, let error = plan.error { throw error }
        guard let statement = plan.statements.first else {
            // As GRDB (PRG-1): SQLITE_ERROR.
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "empty statement", sql: sql)
        }
        if plan.statements.count > 1 || plan.remainderOffset != nil {
            // GRDB's message, with the SQL without its final semicolon (STM-3).
            var trimmed = Substring(sql)
            while let last = trimmed.last, last.isWhitespace || last == ";" { trimmed = trimmed.dropLast() }
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "Multiple statements found. To execute multiple statements, use Database.execute(sql:) or Database.allStatements(sql:) instead.",
                sql: String(trimmed))
        }
        return statement
    }

    func execute(arguments: StatementArguments) throws {
        let plan = prepareAhead(stopAfter: nil)
        if plan.statements.isEmpty {
            if let error = plan.error { throw error }
            // Only whitespace and comments: nothing to run, but arguments must be empty.
            try ArgumentConsumer(arguments).checkFullyConsumed(
                sql: sql, publicStatementArguments: database.configuration.publicStatementArguments)
            return
        }
        let publicArguments = database.configuration.publicStatementArguments

        // All statements known: check every argument before running anything.
        if plan.remainderOffset == nil {
            var checker = ArgumentConsumer(arguments)
            for statement in plan.statements {
                _ = try checker.values(for: statement)
            }
            try checker.checkFullyConsumed(sql: sql, publicStatementArguments: publicArguments)
        }

        let single = plan.statements.count == 1 && plan.remainderOffset == nil
        let protected = !single && plan.statements.allSatisfy(\.canRunInSavepoint)
        var consumer = ArgumentConsumer(arguments)

        func run(_ statement: Statement) throws {
            let values = try consumer.values(for: statement)
            try statement.bind(values, arguments: arguments)
            try database.executeSteps(of: statement)
        }

        if !protected {
            for statement in plan.statements { try run(statement) }
            if let offset = plan.remainderOffset {
                try runRemainder(from: offset, firstError: plan.error, run: run, savepoint: nil)
            }
            try consumer.checkFullyConsumed(sql: sql, publicStatementArguments: publicArguments)
            return
        }

        let savepoint = ExecutionSavepoint(database: database)
        try savepoint.begin()
        do {
            for statement in plan.statements { try run(statement) }
            if let offset = plan.remainderOffset {
                try runRemainder(from: offset, firstError: plan.error, run: run, savepoint: savepoint)
            }
            try consumer.checkFullyConsumed(sql: sql, publicStatementArguments: publicArguments)
            try savepoint.release()
        } catch {
            savepoint.rollbackAndRelease()
            throw error
        }
    }

    /// Prepares and runs the statements that could not be prepared ahead.
    private func runRemainder(
        from offset: Int,
        firstError: DatabaseError?,
        run: (Statement) throws -> Void,
        savepoint: ExecutionSavepoint?) throws
    {
        var offset: Int? = offset
        while let start = offset {
            var (statement, next) = try prepareOne(at: start)
            offset = next
            guard let prepared = statement else { continue }
            if let savepoint, savepoint.active, !prepared.canRunInSavepoint {
                // The SQL manages transactions itself from here on.
                try savepoint.release()
                // Compiled again outside the savepoint: SQLite applies some pragmas when it
                // compiles them, and ignores `foreign_keys` inside a transaction (STM-5).
                (statement, _) = try prepareOne(at: start)
            }
            if let statement { try run(statement) }
        }
    }

    /// Prepares statements until one fails, the SQL ends, or `stopAfter` statements are ready.
    private func prepareAhead(stopAfter: Int?) -> Plan {
        var plan = Plan()
        var offset: Int? = 0
        while let start = offset {
            if let stopAfter, plan.statements.count >= stopAfter {
                plan.remainderOffset = start
                break
            }
            do {
                let (statement, next) = try prepareOne(at: start)
                offset = next
                if let statement {
                    plan.statements.append(statement)
                    if statement.effects.contains(.schemaChange), let next {
                        // Statements after a schema change are prepared when their turn comes:
                        // prepared now, they would keep reading a table the change shadows (a
                        // new table of main over one of an attached database).
                        plan.remainderOffset = next
                        break
                    }
                }
            } catch {
                plan.remainderOffset = start
                plan.error = error as? DatabaseError
                break
            }
        }
        return plan
    }

    /// Prepares the statement that starts at byte `offset`. Returns nil for a statement when
    /// only whitespace or comments remain, and the offset of the next statement, if any.
    func prepareOne(at offset: Int) throws -> (Statement?, Int?) {
        guard let handle = database.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed")
        }
        return try sql.utf8CString.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            let start = base + offset
            var sqliteStatement: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let (code, analysis) = database.authorizer.analyze(preventsTruncation: database.hooks.hasObservers) {
                sqlite3_prepare_v3(handle, start, -1, 0, &sqliteStatement, &tail)
            }
            guard code == SQLITE_OK else {
                throw makeDatabaseError(code, handle, sql: sql)
            }
            let tailOffset = tail.map { base.distance(to: $0) } ?? (buffer.count - 1)
            let next = Self.hasMoreSQL(buffer, from: tailOffset) ? tailOffset : nil
            guard let sqliteStatement else {
                return (nil, next)
            }
            let statementSQL = String(sqlText: sqlite3_sql(sqliteStatement))
            return (Statement(database: database, sqliteStatement: sqliteStatement, sql: statementSQL, analysis: analysis), next)
        }
    }

    /// Whether something other than whitespace and semicolons follows `offset`.
    private static func hasMoreSQL(_ buffer: UnsafeBufferPointer<CChar>, from offset: Int) -> Bool {
        var index = offset
        while index < buffer.count {
            switch UInt8(bitPattern: buffer[index]) {
            case 0: return false
            case 0x20, 0x09, 0x0A, 0x0D, 0x3B: index += 1
            default: return true
            }
        }
        return false
    }
}

extension String {
    /// The SQL text of a C string (`sqlite3_sql`), without the whitespace and semicolons
    /// around it.
    init(sqlText cString: UnsafePointer<CChar>) {
        let length = strlen(cString)
        self = cString.withMemoryRebound(to: UInt8.self, capacity: length) {
            String.trimmingSQLSeparators(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// Trims ASCII whitespace and semicolons byte by byte (Foundation's `trimmingCharacters`
    /// cost about 27,000 instructions a statement); the rare text that starts or ends with
    /// other bytes (Unicode whitespace) goes through Foundation.
    private static func trimmingSQLSeparators(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        func isSeparator(_ byte: UInt8) -> Bool {
            switch byte {
            case 0x09...0x0D, 0x20, 0x3B: true
            default: false
            }
        }
        var start = 0
        var end = bytes.count
        while start < end && isSeparator(bytes[start]) { start += 1 }
        while end > start && isSeparator(bytes[end - 1]) { end -= 1 }
        let trimmed = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        if start < end && (bytes[start] >= 0x80 || bytes[end - 1] >= 0x80) {
            return trimmed.trimmingCharacters(in: .whitespacesAndNewlinesAndSemicolons)
        }
        return trimmed
    }
}

private extension CharacterSet {
    static let whitespacesAndNewlinesAndSemicolons = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: ";"))
}

/// The savepoint that protects a multi-statement `execute`.
final class ExecutionSavepoint {
    private let database: Database
    private(set) var active = false
    private static let name = "grdbcipher_execute"

    /// The statements of the savepoint, left out of user traces.
    static let statements: Set<String> = [
        "SAVEPOINT \(name)", "RELEASE SAVEPOINT \(name)", "ROLLBACK TO SAVEPOINT \(name)",
    ]

    init(database: Database) {
        self.database = database
    }

    func begin() throws {
        try database.executeInternal("SAVEPOINT \(Self.name)")
        active = true
    }

    func release() throws {
        guard active else { return }
        do {
            try database.executeInternal("RELEASE SAVEPOINT \(Self.name)")
            active = false
        } catch {
            // Refused (the task of the access was cancelled) or failed: nothing of the SQL
            // stays, and no savepoint is left open.
            rollbackAndRelease()
            throw error
        }
    }

    func rollbackAndRelease() {
        guard active else { return }
        active = false
        database.exemptFromCancellation {
            try? database.executeInternal("ROLLBACK TO SAVEPOINT \(Self.name)")
            try? database.executeInternal("RELEASE SAVEPOINT \(Self.name)")
        }
    }
}

extension Database {
    /// Runs a fixed internal statement through the cache.
    func executeInternal(_ sql: String) throws {
        try fetchStatement(sql: sql).execute()
    }
}
