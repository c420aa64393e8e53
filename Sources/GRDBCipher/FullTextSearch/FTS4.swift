/// The FTS4 full-text engine, a ``VirtualTableModule``.
///
/// ```swift
/// // CREATE VIRTUAL TABLE "book" USING fts4(author, title, body, tokenize=porter)
/// try db.create(virtualTable: "book", using: FTS4()) { t in
///     t.tokenizer = .porter
///     t.column("author")
///     t.column("title")
///     t.column("body")
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts3.html>
public struct FTS4: VirtualTableModule {
    /// Creates an FTS4 module.
    public init() { }

    public var moduleName: String { "fts4" }

    public func makeTableDefinition(configuration: VirtualTableConfiguration) -> FTS4TableDefinition {
        FTS4TableDefinition(configuration: configuration)
    }

    public func moduleArguments(for definition: FTS4TableDefinition, in db: Database) -> [String] {
        // As GRDB (PRG-9, SQL-7): each column followed by its `notindexed=` option, then
        // languageid, tokenize, content, compress, uncompress, matchinfo, prefix. The language
        // id column is a hidden column of its own, not a column of the list.
        var arguments: [String] = []
        for column in definition.columns where !column.isLanguageId {
            arguments.append(column.name.fullTextColumnName)
            if column.isNotIndexed {
                arguments.append("notindexed=\(column.name.fullTextColumnName)")
            }
        }
        if let column = definition.columns.last(where: \.isLanguageId) {
            arguments.append("languageid=\(column.name.doubleQuotedFTSOption)")
        }
        if let tokenizer = definition.tokenizer {
            arguments.append("tokenize=\(tokenizer.moduleArgument)")
        }
        if let content = definition.content {
            arguments.append("content=\(content.doubleQuotedFTSOption)")
        }
        if let compress = definition.compress {
            arguments.append("compress=\(compress.doubleQuotedFTSOption)")
        }
        if let uncompress = definition.uncompress {
            arguments.append("uncompress=\(uncompress.doubleQuotedFTSOption)")
        }
        if let matchinfo = definition.matchinfo {
            arguments.append("matchinfo=\(matchinfo.doubleQuotedFTSOption)")
        }
        if let prefixes = definition.prefixes {
            arguments.append("prefix=\(prefixes.sorted().map(String.init).joined(separator: ",").doubleQuotedFTSOption)")
        }
        return arguments
    }

    /// Creates the synchronization triggers of a table defined with
    /// ``FTS4TableDefinition/synchronize(withTable:)``, and indexes the content table.
    public func database(_ db: Database, didCreate tableName: String, using definition: FTS4TableDefinition) throws {
        guard case .synchronized(let contentTable) = definition.contentMode else { return }
        let content = contentTable.quotedDatabaseIdentifier
        let ftsTable = tableName.quotedDatabaseIdentifier
        let rowID = try db.primaryKey(contentTable).rowIDColumn ?? "rowid"
        let columns = definition.columns.map(\.name)
        let ftsColumns = (["docid"] + columns).map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let newValues = ([rowID] + columns).map { "new." + $0.quotedDatabaseIdentifier }.joined(separator: ", ")
        let oldRowID = "old." + rowID.quotedDatabaseIdentifier
        // As GRDB (FTS-1): `.ifNotExists` reaches the triggers, so the call can run again.
        let createTrigger = definition.configuration.ifNotExists ? "CREATE TRIGGER IF NOT EXISTS" : "CREATE TRIGGER"
        try db.execute(sql: """
            \(createTrigger) \("__\(tableName)_bu".quotedDatabaseIdentifier) BEFORE UPDATE ON \(content) BEGIN
                DELETE FROM \(ftsTable) WHERE docid=\(oldRowID);
            END;
            \(createTrigger) \("__\(tableName)_bd".quotedDatabaseIdentifier) BEFORE DELETE ON \(content) BEGIN
                DELETE FROM \(ftsTable) WHERE docid=\(oldRowID);
            END;
            \(createTrigger) \("__\(tableName)_au".quotedDatabaseIdentifier) AFTER UPDATE ON \(content) BEGIN
                INSERT INTO \(ftsTable)(\(ftsColumns)) VALUES(\(newValues));
            END;
            \(createTrigger) \("__\(tableName)_ai".quotedDatabaseIdentifier) AFTER INSERT ON \(content) BEGIN
                INSERT INTO \(ftsTable)(\(ftsColumns)) VALUES(\(newValues));
            END;
            """)
        // Index the rows already in the content table.
        try db.execute(sql: "INSERT INTO \(ftsTable)(\(ftsTable)) VALUES('rebuild')")
    }
}

/// The definition of an FTS4 table, given to the closure of
/// ``Database/create(virtualTable:options:using:_:)``.
///
/// ```swift
/// try db.create(virtualTable: "document", using: FTS4()) { t in
///     t.content = ""
///     t.prefixes = [2, 4]
///     t.column("content")
///     t.column("uuid").notIndexed()
///     t.column("lid").asLanguageId()
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/fts3.html#fts4_options>
public final class FTS4TableDefinition {
    enum ContentMode {
        case raw(String?)
        case synchronized(String)
    }

    let configuration: VirtualTableConfiguration
    var columns: [FTS4ColumnDefinition] = []
    var contentMode = ContentMode.raw(nil)

    /// The tokenizer (nil: SQLite's default, `simple`).
    public var tokenizer: FTS3TokenizerDescriptor?

    /// The `content` option: `""` for a contentless table, or the name of the table that
    /// holds the indexed content. See also ``synchronize(withTable:)``.
    public var content: String? {
        get {
            switch contentMode {
            case .raw(let content): return content
            case .synchronized(let table): return table
            }
        }
        set { contentMode = .raw(newValue) }
    }

    /// The `compress` option: the name of an SQL function that compresses content.
    public var compress: String?

    /// The `uncompress` option: the name of an SQL function that uncompresses content.
    public var uncompress: String?

    /// The `matchinfo` option (`"fts3"` for FTS3's format).
    public var matchinfo: String?

    /// The `prefix` option: the lengths of the prefixes that have their own index.
    public var prefixes: Set<Int>?

    init(configuration: VirtualTableConfiguration) {
        self.configuration = configuration
    }

    /// Appends a column.
    @discardableResult
    public func column(_ name: String) -> FTS4ColumnDefinition {
        let column = FTS4ColumnDefinition(name: name)
        columns.append(column)
        return column
    }

    /// Makes the table an external content table that indexes `tableName`, kept in sync by
    /// triggers. The rows already in `tableName` are indexed when the full-text table is
    /// created.
    ///
    /// ```swift
    /// try db.create(virtualTable: "book_ft", using: FTS4()) { t in
    ///     t.synchronize(withTable: "book")
    ///     t.column("title")
    /// }
    /// ```
    ///
    /// Drop the triggers with ``Database/dropFTS4SynchronizationTriggers(forTable:)`` after
    /// the full-text table is dropped.
    public func synchronize(withTable tableName: String) {
        contentMode = .synchronized(tableName)
    }
}

/// A column of an FTS4 table.
public final class FTS4ColumnDefinition {
    let name: String
    var isNotIndexed = false
    var isLanguageId = false

    init(name: String) {
        self.name = name
    }

    /// Excludes the column from the full-text index: the `notindexed` option.
    @discardableResult
    public func notIndexed() -> Self {
        isNotIndexed = true
        return self
    }

    /// Makes the column the language id of the rows: the `languageid` option.
    @discardableResult
    public func asLanguageId() -> Self {
        isLanguageId = true
        return self
    }
}

extension Database {
    /// Drops the triggers that ``FTS4TableDefinition/synchronize(withTable:)`` created, once
    /// the full-text table is dropped.
    ///
    /// ```swift
    /// try db.drop(table: "book_ft")
    /// try db.dropFTS4SynchronizationTriggers(forTable: "book_ft")
    /// ```
    public func dropFTS4SynchronizationTriggers(forTable tableName: String) throws {
        for suffix in ["bu", "bd", "au", "ai"] {
            try execute(sql: "DROP TRIGGER IF EXISTS \("__\(tableName)_\(suffix)".quotedDatabaseIdentifier)")
        }
    }
}

extension String {
    /// The string as an SQL string literal: `'it''s'`.
    var sqlStringLiteral: String {
        "'" + replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The string as a double-quoted option value of FTS3/FTS4: `"zip"`.
    var doubleQuotedFTSOption: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A column name as full-text modules list it: as is, as GRDB writes it, unless it is not
    /// a plain identifier (then double-quoted, so that the statement stays valid).
    var fullTextColumnName: String {
        let isPlain = !isEmpty && unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
            && !(first!.isNumber)
        return isPlain ? self : quotedDatabaseIdentifier
    }
}
