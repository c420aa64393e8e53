import CSQLCipher

/// A cursor that iterates the rows of a prepared statement.
///
/// While it iterates, the statement is busy: a cached statement with the same SQL is not
/// reused by another fetch until the cursor is done or released.
public protocol DatabaseCursor<Element>: Cursor {
    /// The statement that feeds the cursor.
    var statement: Statement { get }

    /// Steps the statement and returns the next element, or nil when the statement is done.
    ///
    /// Throws the ``DatabaseError`` of a failed step, and the same error again if called
    /// after it: a failed iteration never looks complete.
    func next() throws -> Element?

    /// Calls `body` on each remaining element, stepping the statement.
    ///
    /// ```swift
    /// let rows = try Row.fetchCursor(db, sql: "SELECT * FROM player")
    /// try rows.forEach { row in print(row) }
    /// ```
    func forEach(_ body: (Element) throws -> Void) throws
}

extension DatabaseCursor {
    /// The SQL of the statement that feeds the cursor.
    ///
    /// ```swift
    /// let names = try String.fetchCursor(db, sql: "SELECT name FROM player")
    /// print(names.sql) // SELECT name FROM player
    /// ```
    public var sql: String { statement.sql }

    /// The arguments of the statement that feeds the cursor.
    ///
    /// ```swift
    /// let names = try String.fetchCursor(db, sql: "SELECT name FROM player WHERE score > ?", arguments: [100])
    /// print(names.arguments) // [100]
    /// ```
    public var arguments: StatementArguments { statement.arguments }

    /// The names of the columns of the statement that feeds the cursor, as SQLite names them.
    ///
    /// ```swift
    /// let rows = try Row.fetchCursor(db, sql: "SELECT id, name FROM player")
    /// print(rows.columnNames) // ["id", "name"]
    /// ```
    public var columnNames: [String] { statement.columnNames }

    /// The number of columns of the statement that feeds the cursor.
    ///
    /// ```swift
    /// let rows = try Row.fetchCursor(db, sql: "SELECT id, name FROM player")
    /// print(rows.columnCount) // 2
    /// ```
    public var columnCount: Int { statement.columnCount }
}

/// The stepping shared by every statement cursor: it owns the iteration state and the live row
/// that reads the statement, and releases the statement when done.
@usableFromInline
final class StatementStepper {
    let statement: Statement
    let sqliteStatement: SQLiteStatement
    /// The row that reads the statement's current row, through the adapter if there is one.
    @usableFromInline let row: Row
    private var done = false
    /// The error of the step that failed, if one did.
    private var failure: (any Error)?
    /// What the connection's hooks remember of the statement, while it runs.
    private var execution: ConnectionHooks.Execution?

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        statement.database.preconditionValidAccess()
        let layout = try adapter?._layout(from: _RowLayout(columnNames: statement.columnNames))
        try statement.prepareIteration(arguments: arguments)
        // Before the handle is read: the hooks may prepare the statement again.
        do {
            execution = try statement.database.statementWillRun(statement)
        } catch {
            statement.finishRun()
            throw error
        }
        self.statement = statement
        self.sqliteStatement = statement.sqliteStatement
        statement.isAfterRun = true
        let liveRow = Row(statement: statement)
        row = layout.map { Row(base: liveRow, layout: $0) } ?? liveRow
        statement.iterationOwner = ObjectIdentifier(self)
    }

    deinit {
        // The row's cached decoders refer to the row: forgetting them lets it go.
        row.forgetDecoders()
        finish()
    }

    private func finish() {
        if statement.isIterating {
            // A cursor released after another one started on the same statement does not
            // reset it under that one.
            if statement.iterationOwner == ObjectIdentifier(self) {
                statement.iterationOwner = nil
                statement.finishRun()
            }
            if let execution {
                self.execution = nil
                failure = statement.database.hooks.didExecute(statement, execution, error: failure)
            }
            if !statement.effects.isEmpty { statement.database.noticeEffects(of: statement) }
        }
    }

    /// Steps; returns true when a row is available. Once a step failed, every later call
    /// throws the same error: a failed iteration never looks like a complete one.
    @usableFromInline @inline(__always)
    func step() throws -> Bool {
        if done {
            if let failure { throw failure }
            return false
        }
        let code = sqlite3_step(sqliteStatement)
        if code == SQLITE_ROW {
            statement.columnLookup.rowDidChange()
            return true
        }
        done = true
        if code != SQLITE_DONE {
            failure = statement.stepError(code)
        }
        finish()
        if let failure { throw failure }
        return false
    }
}

/// A cursor of rows. The row it returns reads the statement directly and changes as the cursor
/// moves: copy it to keep it.
public final class RowCursor: DatabaseCursor {
    public typealias Element = Row

    /// Nil for a cursor over rows fetched beforehand.
    let stepper: StatementStepper?

    /// The statement that feeds the cursor.
    public let statement: Statement

    /// Rows fetched beforehand (requests that prefetch associated rows), or nil.
    private var preloaded: IndexingIterator<[Row]>?

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        stepper = try StatementStepper(statement: statement, arguments: arguments, adapter: adapter)
        self.statement = statement
    }

    /// A cursor over rows fetched already.
    init(statement: Statement, preloaded rows: [Row]) {
        stepper = nil
        self.statement = statement
        preloaded = rows.makeIterator()
    }

    public func next() throws -> Row? {
        guard let stepper else { return preloaded?.next() }
        return try stepper.step() ? stepper.row : nil
    }
}

/// What every single-value cursor holds: the stepping, a live row for decoding errors, and the
/// statement handle and column for the fast path.
struct ValueCursorCore {
    let stepper: StatementStepper
    var row: Row { stepper.row }
    let sqliteStatement: SQLiteStatement
    /// The statement column of the value: 0, or the one an adapter put first.
    let column: CInt

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)?) throws {
        stepper = try StatementStepper(statement: statement, arguments: arguments, adapter: adapter)
        // A statement without result columns (an INSERT, a CREATE TABLE) runs and gives no
        // value, as in GRDB (STM-1); an adapter that leaves no column is an error.
        guard stepper.row.count > 0 || (adapter == nil && statement.columnCount == 0) else {
            throw DatabaseError.noValueColumn(statement)
        }
        sqliteStatement = statement.sqliteStatement
        column = CInt(stepper.row.adaptedLayout?.layout.baseIndexes.first ?? 0)
    }
}

/// A cursor of values decoded through ``DatabaseValueConvertible``.
public final class DatabaseValueCursor<Value: DatabaseValueConvertible>: DatabaseCursor {
    public typealias Element = Value

    private let core: ValueCursorCore

    /// The statement that feeds the cursor.
    public var statement: Statement { core.stepper.statement }

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        core = try ValueCursorCore(statement: statement, arguments: arguments, adapter: adapter)
    }

    public func next() throws -> Value? {
        guard try core.stepper.step() else { return nil }
        return try core.row.decode(Value.self, at: 0).get()
    }
}

/// A cursor of values read straight from SQLite through ``StatementColumnConvertible``.
public final class FastDatabaseValueCursor<Value: DatabaseValueConvertible & StatementColumnConvertible>: DatabaseCursor {
    public typealias Element = Value

    private let core: ValueCursorCore

    /// The statement that feeds the cursor.
    public var statement: Statement { core.stepper.statement }

    init(statement: Statement, arguments: StatementArguments?, adapter: (any RowAdapter)? = nil) throws {
        core = try ValueCursorCore(statement: statement, arguments: arguments, adapter: adapter)
    }

    public func next() throws -> Value? {
        guard try core.stepper.step() else { return nil }
        if let value = Row.liveValue(Value.self, core.sqliteStatement, core.column) {
            return value
        }
        return try core.row.decode(Value.self, at: 0).get()
    }
}

extension DatabaseError {
    /// A value fetch from a statement (or adapted row) without columns.
    static func noValueColumn(_ statement: Statement) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message: "the statement returns no column, and no value can be fetched",
            sql: statement.sql)
    }
}
