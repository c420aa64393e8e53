/// A cursor over the prepared statements of an SQL string that holds several statements,
/// separated by semicolons. ``Database/allStatements(sql:arguments:)`` and
/// ``Database/allStatements(literal:)`` return it.
///
/// ```swift
/// let statements = try db.allStatements(sql: """
///     INSERT INTO player (name, score) VALUES (?, ?);
///     INSERT INTO player (name, score) VALUES (?, ?);
///     """, arguments: ["Arthur", 100, "O'Brien", 1000])
/// while let statement = try statements.next() {
///     try statement.execute()
/// }
/// ```
///
/// Each statement is prepared when the cursor reaches it, so that a statement can use a table
/// that an earlier one created, once that earlier one has run.
///
/// When the cursor has arguments, each statement takes the ones it needs, in order (named
/// arguments are shared by all statements). A statement that lacks arguments throws when the
/// cursor reaches it; arguments left over when the last statement is reached make the end of
/// the cursor throw. Both are the errors of ``Database/execute(sql:arguments:)``.
///
/// Thread-safety: not thread-safe; use it only in the access closure of its connection.
public final class SQLStatementCursor: Cursor {
    private let database: Database
    private let compiler: StatementCompiler
    /// Byte offset, in the UTF-8 SQL, of the next statement; nil once the SQL is done.
    private var offset: Int? = 0
    /// Nil when the statements are returned without arguments.
    private var consumer: ArgumentConsumer?
    private var isDone = false

    init(database: Database, sql: String, arguments: StatementArguments?) {
        self.database = database
        self.compiler = StatementCompiler(database: database, sql: sql)
        self.consumer = arguments.map(ArgumentConsumer.init)
    }

    /// Prepares the next statement, with its arguments bound when the cursor has arguments,
    /// and returns it; nil when there is none left.
    public func next() throws -> Statement? {
        if isDone { return nil }
        while let start = offset {
            let (statement, next) = try compiler.prepareOne(at: start)
            offset = next
            guard let statement else { continue }
            if var consumer {
                let values = try consumer.values(for: statement)
                self.consumer = consumer
                try statement.bind(values, arguments: StatementArguments(positionalValues: values))
            }
            return statement
        }
        isDone = true
        try consumer?.checkFullyConsumed(
            sql: compiler.sql, publicStatementArguments: database.configuration.publicStatementArguments)
        return nil
    }
}

extension Database {
    /// Returns a cursor over the prepared statements of an SQL string that holds several
    /// statements, separated by semicolons.
    ///
    /// ```swift
    /// let statements = try db.allStatements(sql: """
    ///     INSERT INTO player (name, score) VALUES (?, ?);
    ///     INSERT INTO player (name, score) VALUES (?, ?);
    ///     """, arguments: ["Arthur", 100, "O'Brien", 1000])
    /// while let statement = try statements.next() {
    ///     try statement.execute()
    /// }
    /// ```
    ///
    /// Statements are prepared one after the other, as the cursor reaches them: an `INSERT`
    /// into a table that a `CREATE TABLE` before it creates can be prepared once the
    /// `CREATE TABLE` has run. Collect them in an array only when each one can be prepared
    /// before the others run.
    ///
    /// - parameter sql: One or more SQL statements.
    /// - parameter arguments: When not nil, each statement takes the arguments it needs, in
    ///   order; missing or extra arguments throw as ``execute(sql:arguments:)`` does. When nil,
    ///   the statements have no arguments: set them with ``Statement/setArguments(_:)``.
    public func allStatements(sql: String, arguments: StatementArguments? = nil) throws -> SQLStatementCursor {
        preconditionValidAccess()
        return SQLStatementCursor(database: self, sql: sql, arguments: arguments)
    }

    /// Returns a cursor over the prepared statements of an SQL literal that holds several
    /// statements; its interpolated values are the arguments of the statements.
    ///
    /// ```swift
    /// let statements = try db.allStatements(literal: """
    ///     INSERT INTO player (name, score) VALUES (\("Arthur"), \(100));
    ///     INSERT INTO player (name, score) VALUES (\("O'Brien"), \(1000));
    ///     """)
    /// try statements.forEach { statement in
    ///     try statement.execute()
    /// }
    /// ```
    public func allStatements(literal sqlLiteral: SQL) throws -> SQLStatementCursor {
        let (sql, arguments) = try sqlLiteral.build(self)
        return try allStatements(sql: sql, arguments: arguments.isEmpty ? nil : arguments)
    }
}
