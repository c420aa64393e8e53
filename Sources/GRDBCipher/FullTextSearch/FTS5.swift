import CSQLCipher

/// The FTS5 full-text engine, a ``VirtualTableModule``.
///
/// ```swift
/// // CREATE VIRTUAL TABLE "document" USING fts5(content)
/// try db.create(virtualTable: "document", using: FTS5()) { t in
///     t.column("content")
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html>
public struct FTS5: VirtualTableModule {
    /// How the `unicode61` tokenizer handles diacritics (its `remove_diacritics` option).
    public enum Diacritics: Sendable {
        /// Diacritics are kept: "jérôme" does not match "jerome" (`remove_diacritics 0`).
        case keep
        /// Diacritics of latin script characters are removed, as SQLite did before 3.27
        /// (`remove_diacritics 1`, the default).
        case removeLegacy
        /// Diacritics of latin script characters are removed, more completely than
        /// ``removeLegacy`` (`remove_diacritics 2`).
        case remove
    }

    /// Creates an FTS5 module.
    public init() { }

    public var moduleName: String { "fts5" }

    public func makeTableDefinition(configuration: VirtualTableConfiguration) -> FTS5TableDefinition {
        FTS5TableDefinition(configuration: configuration)
    }

    public func moduleArguments(for definition: FTS5TableDefinition, in db: Database) throws -> [String] {
        var arguments = definition.columns.map { column in
            column.name.fullTextColumnName + (column.isIndexed ? "" : " UNINDEXED")
        }
        if let tokenizer = definition.tokenizer {
            arguments.append("tokenize=\(tokenizer.tokenizeOption)")
        }
        switch definition.contentMode {
        case let .raw(content, contentRowID):
            if let content {
                arguments.append("content=\(content.sqlStringLiteral)")
            }
            if let contentRowID {
                arguments.append("content_rowid=\(contentRowID.sqlStringLiteral)")
            }
        case .synchronized(let contentTable):
            arguments.append("content=\(contentTable.sqlStringLiteral)")
            if let rowID = try db.primaryKey(contentTable).rowIDColumn, rowID.lowercased() != "rowid" {
                arguments.append("content_rowid=\(rowID.sqlStringLiteral)")
            }
        }
        if let prefixes = definition.prefixes {
            arguments.append("prefix=\(prefixes.sorted().map(String.init).joined(separator: " ").sqlStringLiteral)")
        }
        if let columnSize = definition.columnSize {
            arguments.append("columnSize=\(columnSize)")
        }
        if let detail = definition.detail {
            arguments.append("detail=\(detail)")
        }
        return arguments
    }

    /// Creates the synchronization triggers of a table defined with
    /// ``FTS5TableDefinition/synchronize(withTable:)``, and indexes the content table.
    public func database(_ db: Database, didCreate tableName: String, using definition: FTS5TableDefinition) throws {
        guard case .synchronized(let contentTable) = definition.contentMode else { return }
        let content = contentTable.quotedDatabaseIdentifier
        let ftsTable = tableName.quotedDatabaseIdentifier
        let rowID = try db.primaryKey(contentTable).rowIDColumn ?? "rowid"
        let columns = definition.columns.map(\.name)
        let ftsColumns = (["rowid"] + columns).map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let newValues = ([rowID] + columns).map { "new." + $0.quotedDatabaseIdentifier }.joined(separator: ", ")
        let oldValues = ([rowID] + columns).map { "old." + $0.quotedDatabaseIdentifier }.joined(separator: ", ")
        // As GRDB (FTS-1): `.ifNotExists` reaches the triggers, so the call can run again.
        let createTrigger = definition.configuration.ifNotExists ? "CREATE TRIGGER IF NOT EXISTS" : "CREATE TRIGGER"
        try db.execute(sql: """
            \(createTrigger) \("__\(tableName)_ai".quotedDatabaseIdentifier) AFTER INSERT ON \(content) BEGIN
                INSERT INTO \(ftsTable)(\(ftsColumns)) VALUES (\(newValues));
            END;
            \(createTrigger) \("__\(tableName)_ad".quotedDatabaseIdentifier) AFTER DELETE ON \(content) BEGIN
                INSERT INTO \(ftsTable)(\(ftsTable), \(ftsColumns)) VALUES('delete', \(oldValues));
            END;
            \(createTrigger) \("__\(tableName)_au".quotedDatabaseIdentifier) AFTER UPDATE ON \(content) BEGIN
                INSERT INTO \(ftsTable)(\(ftsTable), \(ftsColumns)) VALUES('delete', \(oldValues));
                INSERT INTO \(ftsTable)(\(ftsColumns)) VALUES (\(newValues));
            END;
            """)
        // Index the rows already in the content table.
        try db.execute(sql: "INSERT INTO \(ftsTable)(\(ftsTable)) VALUES('rebuild')")
    }

    /// The `fts5_api` of a connection, which registers tokenizers and auxiliary functions.
    ///
    /// ```swift
    /// let api = FTS5.api(db)
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/fts5.html#extending_fts5>
    public static func api(_ db: Database) -> UnsafePointer<fts5_api> {
        guard let api = try? db.fts5API() else {
            fatalError("FTS5 is not available")
        }
        return api
    }
}

extension Database {
    /// The `fts5_api` of the connection, as SQLite gives it through `SELECT fts5(?1)`, asked
    /// for once. The statement is compiled and run directly on the handle, out of the
    /// library's statement machinery. Custom tokenizers reach the API while another statement
    /// runs (a `CREATE VIRTUAL TABLE`), where compiling a statement would make SQLite run the
    /// outer one again: ``add(tokenizer:)`` asks for it first.
    func fts5API() throws -> UnsafePointer<fts5_api> {
        if let fts5APIPointer {
            // Unsafe: the `fts5_api` SQLite gave below, typed again, valid until the connection
            // closes, when close() clears it.
            return UnsafePointer(fts5APIPointer.assumingMemoryBound(to: fts5_api.self))
        }
        guard let handle = sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "connection is closed")
        }
        var statement: OpaquePointer?
        var code = sqlite3_prepare_v2(handle, "SELECT fts5(?)", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard code == SQLITE_OK, let statement else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "FTS5 is not available")
        }
        var api: UnsafeMutablePointer<fts5_api>?
        code = withUnsafeMutablePointer(to: &api) { pointer in
            let bindCode = sqlite3_bind_pointer(statement, 1, pointer, grdbcipher_fts5_api_pointer_type(), nil)
            return bindCode == SQLITE_OK ? sqlite3_step(statement) : bindCode
        }
        guard code == SQLITE_ROW || code == SQLITE_DONE, let api else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "FTS5 is not available")
        }
        fts5APIPointer = UnsafeMutableRawPointer(api)
        return UnsafePointer(api)
    }
}

/// The definition of an FTS5 table, given to the closure of
/// ``Database/create(virtualTable:options:using:_:)``.
///
/// ```swift
/// try db.create(virtualTable: "document", using: FTS5()) { t in
///     t.tokenizer = .porter()
///     t.column("content")
///     t.column("uuid").notIndexed()
///     t.prefixes = [2, 4]
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#fts5_table_creation_and_initialization>
public final class FTS5TableDefinition {
    enum ContentMode {
        case raw(content: String?, contentRowID: String?)
        case synchronized(String)
    }

    let configuration: VirtualTableConfiguration
    var columns: [FTS5ColumnDefinition] = []
    var contentMode = ContentMode.raw(content: nil, contentRowID: nil)

    /// The tokenizer (nil: SQLite's default, `unicode61`).
    public var tokenizer: FTS5TokenizerDescriptor?

    /// The `content` option: `""` for a contentless table, or the name of the table that
    /// holds the indexed content. See also ``synchronize(withTable:)``.
    public var content: String? {
        get {
            switch contentMode {
            case .raw(let content, _): return content
            case .synchronized(let table): return table
            }
        }
        set {
            switch contentMode {
            case .raw(_, let contentRowID): contentMode = .raw(content: newValue, contentRowID: contentRowID)
            case .synchronized: contentMode = .raw(content: newValue, contentRowID: nil)
            }
        }
    }

    /// The `content_rowid` option: the integer primary key column of the content table.
    public var contentRowID: String? {
        get {
            switch contentMode {
            case .raw(_, let contentRowID): return contentRowID
            case .synchronized: return nil
            }
        }
        set {
            switch contentMode {
            case .raw(let content, _): contentMode = .raw(content: content, contentRowID: newValue)
            case .synchronized: contentMode = .raw(content: nil, contentRowID: newValue)
            }
        }
    }

    /// The `prefix` option: the lengths of the prefixes that have their own index.
    public var prefixes: Set<Int>?

    /// The `columnsize` option (`0` stores no column sizes).
    public var columnSize: Int?

    /// The `detail` option: `"full"`, `"column"` or `"none"`.
    public var detail: String?

    init(configuration: VirtualTableConfiguration) {
        self.configuration = configuration
    }

    /// Appends a column.
    @discardableResult
    public func column(_ name: String) -> FTS5ColumnDefinition {
        let column = FTS5ColumnDefinition(name: name)
        columns.append(column)
        return column
    }

    /// Makes the table an external content table that indexes `tableName`, kept in sync by
    /// triggers. The rows already in `tableName` are indexed when the full-text table is
    /// created.
    ///
    /// ```swift
    /// try db.create(virtualTable: "book_ft", using: FTS5()) { t in
    ///     t.synchronize(withTable: "book")
    ///     t.column("title")
    /// }
    /// ```
    ///
    /// Drop the triggers with ``Database/dropFTS5SynchronizationTriggers(forTable:)`` after
    /// the full-text table is dropped.
    public func synchronize(withTable tableName: String) {
        contentMode = .synchronized(tableName)
    }
}

/// A column of an FTS5 table.
public final class FTS5ColumnDefinition {
    let name: String
    var isIndexed = true

    init(name: String) {
        self.name = name
    }

    /// Excludes the column from the full-text index: `UNINDEXED`.
    @discardableResult
    public func notIndexed() -> Self {
        isIndexed = false
        return self
    }
}

extension Database {
    /// Drops the triggers that ``FTS5TableDefinition/synchronize(withTable:)`` created, once
    /// the full-text table is dropped.
    ///
    /// ```swift
    /// try db.drop(table: "book_ft")
    /// try db.dropFTS5SynchronizationTriggers(forTable: "book_ft")
    /// ```
    public func dropFTS5SynchronizationTriggers(forTable tableName: String) throws {
        for suffix in ["ai", "ad", "au"] {
            try execute(sql: "DROP TRIGGER IF EXISTS \("__\(tableName)_\(suffix)".quotedDatabaseIdentifier)")
        }
    }
}
