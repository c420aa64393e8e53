import CSQLCipher

// Schema introspection: tables, columns, primary keys and indexes, read with SQLite's pragmas
// and remembered per connection. The cache is emptied when this connection runs CREATE, DROP,
// ALTER or ROLLBACK, and checked against `PRAGMA schema_version` once per database access, so
// that changes made by other connections are noticed too.

/// Information about a column of a database table, from `PRAGMA table_xinfo`.
///
/// ```swift
/// let columns = try db.columns(in: "player")
/// print(columns.map(\.name)) // ["id", "name", "score"]
/// ```
public struct ColumnInfo: Sendable, Hashable {
    /// The column name.
    public let name: String
    /// The declared type, as written in the table definition (may be empty).
    public let type: String
    /// Whether the column has a NOT NULL constraint.
    public let isNotNull: Bool
    /// The SQL of the default value, if any.
    public let defaultValueSQL: String?
    /// The 1-based position of the column in the primary key, or 0 when it is not part of it.
    public let primaryKeyIndex: Int
    /// The column position in the table (0-based, counting generated columns).
    public let position: Int
    /// 0 for a normal column, 2 for a virtual generated column, 3 for a stored generated
    /// column (SQLite's `hidden` value).
    let hidden: Int

    /// Whether the column is a generated column.
    public var isGenerated: Bool { hidden == 2 || hidden == 3 }
}

/// Information about a primary key.
///
/// ```swift
/// let primaryKey = try db.primaryKey("player")
/// print(primaryKey.columns) // ["id"]
/// ```
public struct PrimaryKeyInfo: Sendable, Hashable {
    /// The columns of the primary key, in key order. `["rowid"]` for a table without an explicit
    /// primary key.
    public let columns: [String]
    /// The column that holds the rowid: an `INTEGER PRIMARY KEY` column, or `"rowid"` for the
    /// hidden rowid. Nil for other primary keys (and `WITHOUT ROWID` tables).
    public let rowIDColumn: String?
    /// Whether the primary key is the hidden rowid or an `INTEGER PRIMARY KEY` alias of it.
    public let isRowID: Bool
    /// Information about the primary key columns, or nil for the hidden rowid.
    public let columnInfos: [ColumnInfo]?

    static let hiddenRowID = PrimaryKeyInfo(columns: ["rowid"], rowIDColumn: "rowid", isRowID: true, columnInfos: nil)
}

/// Information about an index.
public struct IndexInfo: Sendable, Hashable {
    /// How an index was created (SQLite's `origin` value).
    public enum Origin: String, Sendable {
        /// `CREATE INDEX`.
        case createIndex = "c"
        /// A PRIMARY KEY constraint.
        case primaryKeyConstraint = "pk"
        /// A UNIQUE constraint.
        case uniqueConstraint = "u"
    }

    /// The index name.
    public let name: String
    /// The indexed columns, in index order (empty names for expressions are left out).
    public let columns: [String]
    /// Whether the index is unique.
    public let isUnique: Bool
    /// How the index was created.
    public let origin: Origin
    /// Whether the index has a WHERE clause.
    public let isPartial: Bool
}

/// What the connection remembers of the schema.
struct SchemaCache {
    struct Table {
        var type: String
        var withoutRowID: Bool
        var columns: [ColumnInfo]
        var primaryKey: PrimaryKeyInfo?
        var indexes: [IndexInfo]?
    }

    /// By lowercased table name.
    var tables: [String: Table] = [:]
    var schemaVersion: Int32?
    var needsVersionCheck = true

    mutating func clear() {
        tables.removeAll(keepingCapacity: true)
        schemaVersion = nil
    }
}

extension Database {
    /// The current schema version (`PRAGMA schema_version`).
    public func schemaVersion() throws -> Int32 {
        try Int32.fetchOne(cachedStatement(sql: "PRAGMA schema_version")) ?? 0
    }

    /// Empties the schema cache when the schema changed since it was filled (checked once per
    /// access).
    private func validateSchemaCache() throws {
        guard schemaCache.needsVersionCheck else { return }
        let version = try schemaVersion()
        if schemaCache.schemaVersion != version {
            clearSchemaCache()
            schemaCache.schemaVersion = version
        }
        schemaCache.needsVersionCheck = false
    }

    /// The cached information about a table or view of the main schema, or nil if it does not
    /// exist.
    private func tableInfo(_ tableName: String) throws -> SchemaCache.Table? {
        try validateSchemaCache()
        let key = tableName.lowercased()
        if let table = schemaCache.tables[key] { return table }
        guard let listRow = try Row.fetchOne(self, sql: "PRAGMA main.table_list(\(tableName.quotedDatabaseIdentifier))") else {
            return nil
        }
        let type: String = listRow["type"]
        let withoutRowID: Bool = listRow["wr"]
        var columns: [ColumnInfo] = []
        let rows = try Row.fetchCursor(self, sql: "PRAGMA main.table_xinfo(\(tableName.quotedDatabaseIdentifier))")
        while let row = try rows.next() {
            let hidden: Int = row["hidden"]
            if hidden == 1 { continue } // hidden columns of virtual tables
            columns.append(ColumnInfo(
                name: row["name"], type: row["type"], isNotNull: row["notnull"],
                defaultValueSQL: row["dflt_value"], primaryKeyIndex: row["pk"],
                position: row["cid"], hidden: hidden))
        }
        let table = SchemaCache.Table(type: type, withoutRowID: withoutRowID, columns: columns)
        schemaCache.tables[key] = table
        return table
    }

    private func existingTable(_ tableName: String) throws -> SchemaCache.Table {
        guard let table = try tableInfo(tableName) else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(tableName)")
        }
        return table
    }

    /// Whether a table has a rowid (a table, not `WITHOUT ROWID`); throws if it does not exist.
    func tableHasRowID(_ tableName: String) throws -> Bool {
        let table = try existingTable(tableName)
        return table.type == "table" && !table.withoutRowID
    }

    /// Returns whether a table exists in the main schema.
    ///
    /// ```swift
    /// if try db.tableExists("player") { ... }
    /// ```
    public func tableExists(_ tableName: String) throws -> Bool {
        try tableInfo(tableName).map { $0.type == "table" || $0.type == "virtual" } ?? false
    }

    /// Returns the columns of a table or a view; throws if it does not exist.
    public func columns(in tableName: String) throws -> [ColumnInfo] {
        try existingTable(tableName).columns
    }

    /// Returns the primary key of a table; throws if it does not exist.
    ///
    /// A table without an explicit primary key has the hidden rowid as primary key.
    public func primaryKey(_ tableName: String) throws -> PrimaryKeyInfo {
        let key = tableName.lowercased()
        if let primaryKey = try tableInfo(tableName)?.primaryKey { return primaryKey }
        let table = try existingTable(tableName)
        let pkColumns = table.columns.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        let primaryKey: PrimaryKeyInfo
        if pkColumns.isEmpty {
            if table.withoutRowID || table.type == "view" {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "\(tableName.quotedDatabaseIdentifier) has no primary key")
            }
            primaryKey = .hiddenRowID
        } else if pkColumns.count == 1, !table.withoutRowID, pkColumns[0].type.uppercased() == "INTEGER" {
            primaryKey = PrimaryKeyInfo(columns: [pkColumns[0].name], rowIDColumn: pkColumns[0].name, isRowID: true, columnInfos: pkColumns)
        } else {
            primaryKey = PrimaryKeyInfo(columns: pkColumns.map(\.name), rowIDColumn: nil, isRowID: false, columnInfos: pkColumns)
        }
        schemaCache.tables[key]?.primaryKey = primaryKey
        return primaryKey
    }

    /// Returns the indexes of a table; throws if it does not exist.
    public func indexes(on tableName: String) throws -> [IndexInfo] {
        let key = tableName.lowercased()
        if let indexes = try existingTable(tableName).indexes { return indexes }
        var indexes: [IndexInfo] = []
        for row in try Row.fetchAll(self, sql: "PRAGMA main.index_list(\(tableName.quotedDatabaseIdentifier))") {
            let name: String = row["name"]
            let columns = try String?.fetchAll(self, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [name])
            indexes.append(IndexInfo(
                name: name, columns: columns.compactMap { $0 }, isUnique: row["unique"],
                origin: IndexInfo.Origin(rawValue: row["origin"]) ?? .createIndex, isPartial: row["partial"]))
        }
        schemaCache.tables[key]?.indexes = indexes
        return indexes
    }

    /// Returns whether the columns uniquely identify a row: they contain the primary key, or the
    /// columns of a unique index without a WHERE clause (names compare case-insensitively).
    ///
    /// ```swift
    /// try db.table("player", hasUniqueKey: ["email"]) // true with a unique index on email
    /// ```
    public func table(_ tableName: String, hasUniqueKey columns: some Collection<String>) throws -> Bool {
        let wanted = Set(columns.map { $0.lowercased() })
        let primaryKey = try primaryKey(tableName)
        if Set(primaryKey.columns.map { $0.lowercased() }).isSubset(of: wanted) { return true }
        if primaryKey.isRowID, !wanted.isDisjoint(with: ["rowid", "oid", "_rowid_"]) { return true }
        return try indexes(on: tableName).contains { index in
            index.isUnique && !index.isPartial && !index.columns.isEmpty
                && Set(index.columns.map { $0.lowercased() }).isSubset(of: wanted)
        }
    }
}
