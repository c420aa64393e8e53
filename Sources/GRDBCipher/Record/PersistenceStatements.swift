import CSQLCipher

/// The statements records run to insert, update, delete and upsert, remembered by shape (kind,
/// table, columns) so that saving many records of one type generates and prepares SQL once.
///
/// A handful of shapes are kept, most recent first; a lookup compares strings that are
/// usually identical (column names from the same coding keys), which is cheaper than hashing
/// them. Emptied with the schema cache (the rowid column of a table may change).
struct PersistenceStatementCache {
    enum Kind: Equatable {
        case insert(Database.ConflictResolution)
        case update(Database.ConflictResolution)
        case upsert
    }

    /// A class: an insertion reads several of its fields, which a struct would copy (and
    /// retain, field by field) out of the cache.
    final class Entry {
        let kind: Kind
        let table: String
        let columns: [String]
        let statement: Statement
        /// The column that holds the rowid, for insertion results.
        let rowIDColumn: String?
        /// The position of `rowIDColumn` among `columns`, if there.
        let rowIDIndex: Int?
        /// `columns` followed by `rowIDColumn`, when an insertion adds the rowid column to
        /// its container.
        let columnsWithRowID: [String]?
        /// Whether the statement ends with `RETURNING …, "rowid"` (the rowid is the last column).
        let returnsRowID: Bool

        init(
            kind: Kind, table: String, columns: [String], statement: Statement, rowIDColumn: String?,
            rowIDIndex: Int?, columnsWithRowID: [String]?, returnsRowID: Bool)
        {
            self.kind = kind
            self.table = table
            self.columns = columns
            self.statement = statement
            self.rowIDColumn = rowIDColumn
            self.rowIDIndex = rowIDIndex
            self.columnsWithRowID = columnsWithRowID
            self.returnsRowID = returnsRowID
        }

        /// Binds the container's values to the insertion statement, runs it, and returns the
        /// insertion result. (A method of the entry: its fields are read without retaining
        /// them, which a caller holding the entry would do field by field.)
        func runInsertion(_ container: inout PersistenceContainer, _ db: Database) throws -> InsertionSuccess {
            try container.withValues { try statement.bindPersistenceValues($0) }
            _ = try statement.executePersistence(returnsRowID: false, in: db)
            return makeInsertionSuccess(
                rowID: db.lastInsertedRowID, rowIDColumn: rowIDColumn,
                rowIDIndex: rowIDIndex, columnsWithRowID: columnsWithRowID, container: &container)
        }
    }

    private var entries: [Entry] = []
    private static let capacity = 16

    /// The entry of a shape whose columns are the container's.
    @inline(__always)
    func find(_ kind: Kind, table: String, container: borrowing PersistenceContainer) -> Entry? {
        for index in entries.indices {
            let entry = entries[index]
            if entry.kind == kind && entry.table == table && container.hasColumns(entry.columns) {
                return entry
            }
        }
        return nil
    }

    func find(_ kind: Kind, table: String, columns: [String]) -> Entry? {
        for entry in entries where entry.kind == kind && entry.table == table && entry.columns == columns {
            return entry
        }
        return nil
    }

    mutating func insert(_ entry: Entry) {
        if entries.count >= Self.capacity { entries.removeLast() }
        entries.insert(entry, at: 0)
    }

    mutating func removeAll() {
        entries.removeAll()
    }
}

extension Database {
    /// The cached statement of a persistence shape whose columns are the container's, or nil
    /// when there is none yet, or the cache must first be checked against the schema (then
    /// call ``persistenceStatement(_:table:columns:make:)``). The insertions' fast path: no
    /// closure captures the connection, the table and the columns (each was retained).
    @inline(__always)
    func cachedPersistenceStatement(
        _ kind: PersistenceStatementCache.Kind,
        table: String,
        container: borrowing PersistenceContainer) -> PersistenceStatementCache.Entry?
    {
        guard !schemaNeedsVersionCheck, !persistenceStatementsAreStale else { return nil }
        guard let entry = persistenceStatements.find(kind, table: table, container: container) else { return nil }
        preconditionValidAccess()
        return entry
    }

    /// Returns the statement for a persistence shape, generating it the first time.
    func persistenceStatement(
        _ kind: PersistenceStatementCache.Kind,
        table: String,
        columns: [String],
        make: () throws -> (sql: String, rowIDColumn: String?, returnsRowID: Bool)) throws -> PersistenceStatementCache.Entry
    {
        if schemaNeedsVersionCheck {
            // Another connection may have changed the table since the last access.
            _ = try tableExists(table)
        }
        if persistenceStatementsAreStale {
            persistenceStatementsAreStale = false
            persistenceStatements.removeAll()
        }
        if let entry = persistenceStatements.find(kind, table: table, columns: columns) {
            preconditionValidAccess()
            return entry
        }
        let (sql, rowIDColumn, returnsRowID) = try make()
        let rowIDIndex = rowIDColumn.flatMap { rowIDColumn in columns.firstIndex { $0.equalsIgnoringASCIICase(rowIDColumn) } }
        var columnsWithRowID: [String]?
        if let rowIDColumn, rowIDIndex == nil, rowIDColumn != "rowid" {
            columnsWithRowID = columns + [rowIDColumn]
        }
        let entry = try PersistenceStatementCache.Entry(
            kind: kind, table: table, columns: columns, statement: makeStatement(sql: sql),
            rowIDColumn: rowIDColumn, rowIDIndex: rowIDIndex, columnsWithRowID: columnsWithRowID,
            returnsRowID: returnsRowID)
        persistenceStatements.insert(entry)
        return entry
    }
}

extension Statement {
    /// Binds values straight from a persistence container, without building statement
    /// arguments (they are recorded for error messages only when arguments are public).
    func bindPersistenceValues(_ values: UnsafeBufferPointer<DatabaseValue>) throws {
        markBound()
        let code = resetAndBind(values)
        if code != SQLITE_OK {
            throw makeDatabaseError(
                code, database.sqliteConnection, sql: sql, arguments: StatementArguments(),
                publicStatementArguments: false)
        }
        recordPersistenceArguments(values)
    }

    /// Runs a persistence statement bound with ``bindPersistenceValues(_:)``; returns the
    /// rowid of the first returned row when it ends with a `RETURNING …, "rowid"` clause.
    ///
    /// `db` is the statement's connection, passed in: reading the statement's `unowned`
    /// reference to it costs a strong retain and a release at each run.
    func executePersistence(returnsRowID: Bool, in db: Database) throws -> Int64? {
        assert(db === database)
        var rowID: Int64?
        try db.executeSteps(of: self) { sqliteStatement in
            while true {
                let code = sqlite3_step(sqliteStatement)
                guard code == SQLITE_ROW else { return code }
                if returnsRowID, rowID == nil {
                    rowID = sqlite3_column_int64(sqliteStatement, sqlite3_column_count(sqliteStatement) - 1)
                }
            }
        }
        return rowID
    }
}
