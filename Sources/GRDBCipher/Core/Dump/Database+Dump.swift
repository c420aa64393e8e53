/// Dumps print database content as text, for debugging and tests. They never write a file by
/// themselves: their output goes to the given stream, or to standard output.
///
/// The stream is taken by value: output goes to a class-based `TextOutputStream` (or to
/// standard output, without a stream). A `String` variable passed as the stream receives a
/// copy of the output, and stays empty itself.
extension Database {
    /// Prints the contents of the database: its schema, then the rows of each table.
    ///
    /// ```swift
    /// try db.dumpContent()
    /// ```
    ///
    /// prints, for example:
    ///
    /// ```
    /// sqlite_master
    /// CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
    ///
    /// player
    /// 1|Arthur|500
    /// 2|Barbara|1000
    /// ```
    ///
    /// Tables are sorted by name, and rows by primary key. Internal SQLite and GRDB objects
    /// (whose name starts with `sqlite_` or `grdb_`) and the shadow tables of virtual tables
    /// are not printed.
    ///
    /// - parameters:
    ///   - format: The format of rows.
    ///   - stream: A stream for the output; standard output if nil.
    public func dumpContent(format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        var dumpStream = DumpStream(stream)
        var format = format
        try _dumpSchema(to: &dumpStream)
        dumpStream.margin()
        try _dumpTables(
            dumpedTableNames(), format: &format, tableHeader: .always,
            stableOrder: true, to: &dumpStream)
    }

    /// Prints the results of a request.
    ///
    /// ```swift
    /// // 1|Arthur|500
    /// // 2|Barbara|1000
    /// try db.dumpRequest(Player.orderByPrimaryKey())
    /// ```
    ///
    /// - parameters:
    ///   - request: The request.
    ///   - format: The format of rows.
    ///   - stream: A stream for the output; standard output if nil.
    public func dumpRequest(_ request: some FetchRequest, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        var dumpStream = DumpStream(stream)
        var format = format
        let prepared = try request.makePreparedRequest(self, forSingleResult: false)
        try _dump(prepared.statement, format: &format, to: &dumpStream)
        guard prepared.supplementaryFetch != nil else { return }
        // The rows of `including(all:)`: each prefetch query the request runs, after an empty
        // line and the keys that lead to it, without the key columns that link its rows to
        // their parents (as GRDB, DMP-3).
        let recorder = PrefetchDumpRecorder()
        prefetchDumpRecorder = recorder
        do {
            defer { prefetchDumpRecorder = nil }
            _ = try prepared.supplementedRows(self)
        }
        for query in recorder.queries {
            dumpStream.margin()
            dumpStream.write(query.path + "\n")
            let statement = try query.request.makePreparedRequest(self, forSingleResult: false).statement
            let relation = query.request.query
            let keysEnd = try relation.columnCount(self, ctes: relation.statementCTEs)
            statement.dumpHiddenColumns = (keysEnd - query.keyColumnCount)..<keysEnd
            defer { statement.dumpHiddenColumns = nil }
            try _dump(statement, format: &format, to: &dumpStream)
        }
    }

    /// Prints the schema of the database: the SQL of its tables, indexes, views and triggers.
    ///
    /// ```swift
    /// try db.dumpSchema()
    /// ```
    ///
    /// prints, for example:
    ///
    /// ```
    /// sqlite_master
    /// CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
    /// CREATE INDEX player_on_score ON player(score);
    /// ```
    ///
    /// Internal SQLite and GRDB objects (whose name starts with `sqlite_` or `grdb_`) and the
    /// shadow tables of virtual tables are not printed.
    ///
    /// - parameter stream: A stream for the output; standard output if nil.
    public func dumpSchema(to stream: (any TextOutputStream)? = nil) throws {
        var dumpStream = DumpStream(stream)
        try _dumpSchema(to: &dumpStream)
    }

    /// Prints the results of all statements in the provided SQL. Statements that return no
    /// column (`UPDATE`…) run and print nothing; results are separated by an empty line.
    ///
    /// ```swift
    /// // 1|Arthur|500
    /// // 2|Barbara|1000
    /// try db.dumpSQL("SELECT * FROM player ORDER BY id")
    /// ```
    ///
    /// - parameters:
    ///   - sql: The SQL, which may hold several statements.
    ///   - format: The format of rows.
    ///   - stream: A stream for the output; standard output if nil.
    public func dumpSQL(_ sql: SQL, format: some DumpFormat = .debug(), to stream: (any TextOutputStream)? = nil) throws {
        var dumpStream = DumpStream(stream)
        var format = format
        let statements = try allStatements(literal: sql)
        while let statement = try statements.next() {
            if statement.columnCount == 0 {
                try statement.execute()
            } else {
                // As GRDB and the sqlite3 shell (DMP-1): results follow one another.
                try _dump(statement, format: &format, to: &dumpStream)
            }
        }
    }

    /// Prints the contents of the provided tables and views.
    ///
    /// ```swift
    /// // player
    /// // 1|Arthur|500
    /// // 2|Barbara|1000
    /// //
    /// // team
    /// // 1|Red
    /// // 2|Blue
    /// try db.dumpTables(["player", "team"])
    /// ```
    ///
    /// - parameters:
    ///   - tables: The names of the tables and views, printed in this order.
    ///   - format: The format of rows.
    ///   - tableHeader: Whether table names are printed: with `.automatic`, only when there
    ///     are several tables.
    ///   - stableOrder: Whether rows are sorted (by primary key for tables, by all columns for
    ///     views), rather than printed in the order SQLite returns them.
    ///   - stream: A stream for the output; standard output if nil.
    public func dumpTables(
        _ tables: [String],
        format: some DumpFormat = .debug(),
        tableHeader: DumpTableHeaderOptions = .automatic,
        stableOrder: Bool = false,
        to stream: (any TextOutputStream)? = nil) throws
    {
        var dumpStream = DumpStream(stream)
        var format = format
        try _dumpTables(tables, format: &format, tableHeader: tableHeader, stableOrder: stableOrder, to: &dumpStream)
    }
}

// MARK: - Implementation

extension Database {
    /// Prints the rows of a statement, then finalizes the format.
    func _dump(_ statement: Statement, format: inout some DumpFormat, to stream: inout DumpStream) throws {
        let rows = try Row.fetchCursor(statement)
        while try rows.next() != nil {
            try format.writeRow(self, statement: statement, to: &stream)
        }
        format.finalize(self, statement: statement, to: &stream)
    }

    func _dumpTables(
        _ tables: [String],
        format: inout some DumpFormat,
        tableHeader: DumpTableHeaderOptions,
        stableOrder: Bool,
        to stream: inout DumpStream) throws
    {
        let printsHeader = tableHeader == .always || tables.count > 1
        for table in tables {
            stream.margin()
            if printsHeader {
                stream.write(table + "\n")
            }
            var sql = "SELECT * FROM \(table.quotedDatabaseIdentifier)"
            if stableOrder {
                sql += try dumpOrdering(table)
            }
            let statement = try makeStatement(sql: sql)
            try _dump(statement, format: &format, to: &stream)
        }
    }

    /// ` ORDER BY …`: by primary key for a table, by every column for a view or a table
    /// without a known primary key.
    private func dumpOrdering(_ table: String) throws -> String {
        if try !viewExists(table), let primaryKey = try? primaryKey(table) {
            return " ORDER BY " + primaryKey.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        }
        let columnCount = try makeStatement(sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)").columnCount
        guard columnCount > 0 else { return "" }
        return " ORDER BY " + (1...columnCount).map(String.init).joined(separator: ", ")
    }

    func _dumpSchema(to stream: inout DumpStream) throws {
        stream.write("sqlite_master\n")
        let sqls = try String.fetchAll(self, sql: """
            SELECT sql || ';' FROM sqlite_master
            WHERE sql IS NOT NULL
              AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
              AND name NOT LIKE 'grdb\\_%' ESCAPE '\\'
              AND tbl_name NOT LIKE 'grdb\\_%' ESCAPE '\\'
              AND name NOT IN (SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow')
            ORDER BY tbl_name COLLATE NOCASE, type <> 'table', name COLLATE NOCASE
            """)
        for sql in sqls {
            stream.write(sql + "\n")
        }
    }

    /// The tables `dumpContent` prints: every table (virtual ones included) of the main
    /// schema, but internal and shadow tables.
    func dumpedTableNames() throws -> [String] {
        try String.fetchAll(self, sql: """
            SELECT name FROM pragma_table_list
            WHERE schema = 'main' AND type IN ('table', 'virtual')
              AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
              AND name NOT LIKE 'grdb\\_%' ESCAPE '\\'
            ORDER BY name COLLATE NOCASE
            """)
    }
}
