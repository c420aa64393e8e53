import CSQLCipher

// Schema introspection: tables, columns, primary keys and indexes, read with SQLite's pragmas
// and remembered per connection and per schema. Unqualified names are resolved as SQLite
// resolves them: temp, main, then attached databases. The cache is emptied when this connection
// runs CREATE, DROP, ALTER, ATTACH, DETACH or ROLLBACK, and checked against
// `PRAGMA schema_version` once per database access, so that changes made by other connections
// to the main database are noticed too.

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

    init(name: String, type: String, isNotNull: Bool, defaultValueSQL: String?, primaryKeyIndex: Int, position: Int, hidden: Int) {
        self.name = name
        self.type = type
        self.isNotNull = isNotNull
        self.defaultValueSQL = defaultValueSQL
        self.primaryKeyIndex = primaryKeyIndex
        self.position = position
        self.hidden = hidden
    }

    /// Creates the information about a column from a row of `PRAGMA table_info` or
    /// `PRAGMA table_xinfo` (columns `cid`, `name`, `type`, `notnull`, `dflt_value`, `pk`, and
    /// `hidden` for `table_xinfo`).
    ///
    /// ```swift
    /// let columns = try Row
    ///     .fetchAll(db, sql: "PRAGMA table_info(player)")
    ///     .map(ColumnInfo.init(row:))
    /// ```
    public init(row: Row) {
        self.init(
            name: row["name"],
            type: row["type"],
            isNotNull: row["notnull"],
            defaultValueSQL: row["dflt_value"],
            primaryKeyIndex: row["pk"],
            position: row["cid"],
            hidden: (row["hidden"] as Int?) ?? 0)
    }
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
    /// How an index was created: the `origin` column of `PRAGMA index_list`.
    ///
    /// ```swift
    /// let createdIndexes = try db.indexes(on: "player").filter { $0.origin == .createIndex }
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_index_list>
    public struct Origin: RawRepresentable, Sendable, Hashable {
        /// SQLite's value: `"c"`, `"u"`, `"pk"`.
        public var rawValue: String

        /// The origin with SQLite's value.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// `CREATE INDEX` (`"c"`).
        public static let createIndex = Origin(rawValue: "c")
        /// A UNIQUE constraint (`"u"`).
        public static let uniqueConstraint = Origin(rawValue: "u")
        /// A PRIMARY KEY constraint (`"pk"`).
        public static let primaryKeyConstraint = Origin(rawValue: "pk")
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

/// What the connection remembers of the schema, per schema (`main`, `temp`, attached
/// databases).
struct SchemaCache {
    /// A table or view as `PRAGMA table_list` lists it.
    struct ListedObject {
        var schema: String
        var name: String
        var type: String
        var withoutRowID: Bool
        /// The key of the table in `tables`.
        var tableKey: String
    }

    struct Table {
        /// The key of the table in `tables`.
        var key: String
        var schema: String
        var name: String
        var type: String
        var withoutRowID: Bool
        var columns: [ColumnInfo]
        var primaryKey: PrimaryKeyInfo?
        var indexes: [IndexInfo]?
    }

    /// The tables and views of every schema with a given name, by lowercased name (an empty
    /// array remembers that there is none).
    var objects: [String: [ListedObject]] = [:]
    /// By `Table.key(schema:name:)`.
    var tables: [String: Table] = [:]
    /// The schema names in the order SQLite resolves unqualified names: temp, main, then the
    /// attached databases in order of attachment.
    var schemaNames: [String]?
    var schemaVersion: Int32?

    mutating func clear() {
        objects.removeAll(keepingCapacity: true)
        tables.removeAll(keepingCapacity: true)
        schemaNames = nil
        schemaVersion = nil
    }
}

extension SchemaCache.Table {
    static func key(schema: String, name: String) -> String {
        schema.lowercased() + "\u{0}" + name.lowercased()
    }
}

extension Database {
    /// The current schema version (`PRAGMA schema_version`).
    public func schemaVersion() throws -> Int32 {
        try Int32.fetchOne(fetchStatement(sql: "PRAGMA schema_version")) ?? 0
    }

    /// Empties the schema cache when the schema changed since it was filled (checked once per
    /// access).
    private func validateSchemaCache() throws {
        guard schemaNeedsVersionCheck else { return }
        let version = try schemaVersion()
        if schemaCache.schemaVersion != version {
            clearSchemaCache()
            schemaCache.schemaVersion = version
        }
        schemaNeedsVersionCheck = false
    }

    /// The schema names in the order SQLite resolves an unqualified table name: `temp`, `main`,
    /// then the attached databases in order of attachment.
    func schemaResolutionOrder() throws -> [String] {
        try validateSchemaCache()
        if let names = schemaCache.schemaNames { return names }
        var attached: [(seq: Int, name: String)] = []
        for row in try Row.fetchAll(self, sql: "PRAGMA database_list") {
            let seq: Int = row["seq"]
            if seq >= 2 { attached.append((seq, row["name"])) }
        }
        let names = ["temp", "main"] + attached.sorted { $0.seq < $1.seq }.map(\.name)
        schemaCache.schemaNames = names
        return names
    }

    /// The name of a schema as SQLite knows it; throws `SQLITE_ERROR` "no such schema: name"
    /// for an unknown schema.
    func canonicalSchemaName(_ schemaName: String) throws -> String {
        let lowercased = schemaName.lowercased()
        guard let name = try schemaResolutionOrder().first(where: { $0.lowercased() == lowercased }) else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such schema: \(schemaName)")
        }
        return name
    }

    /// The table or view SQLite finds for a name: in the given schema, or else the first one in
    /// resolution order. Nil if there is none.
    private func resolveObject(_ name: String, in schemaName: String?) throws -> SchemaCache.ListedObject? {
        try validateSchemaCache()
        let key = name.lowercased()
        let objects: [SchemaCache.ListedObject]
        if let cached = schemaCache.objects[key] {
            objects = cached
        } else {
            // Without a schema, `table_list` lists the objects of that name in every schema,
            // and resolves aliases such as `sqlite_master`. To count their columns, SQLite
            // connects every virtual table of the schema, whatever the name: FTS5 then reads
            // its configuration, statements that a trace does not show, as GRDB (PRG-10).
            objects = try withTracePaused {
                try Row.fetchAll(self, sql: "PRAGMA table_list(\(name.quotedDatabaseIdentifier))")
            }.map { row in
                let schema: String = row["schema"]
                let name: String = row["name"]
                return SchemaCache.ListedObject(
                    schema: schema, name: name, type: row["type"], withoutRowID: row["wr"],
                    tableKey: SchemaCache.Table.key(schema: schema, name: name))
            }
            schemaCache.objects[key] = objects
        }
        if let schemaName {
            let schema = try canonicalSchemaName(schemaName).lowercased()
            return objects.first { $0.schema.lowercased() == schema }
        }
        if objects.count <= 1 { return objects.first }
        // Several schemas have the name: the first one in resolution order wins.
        for candidate in try schemaResolutionOrder() {
            let lowercased = candidate.lowercased()
            if let object = objects.first(where: { $0.schema.lowercased() == lowercased }) {
                return object
            }
        }
        return nil
    }

    /// The cached information about a table or view, or nil if it does not exist.
    private func tableInfo(_ tableName: String, in schemaName: String? = nil) throws -> SchemaCache.Table? {
        guard let object = try resolveObject(tableName, in: schemaName) else { return nil }
        let key = object.tableKey
        if let table = schemaCache.tables[key] { return table }
        var columns: [ColumnInfo] = []
        let rows = try Row.fetchCursor(self, sql: "PRAGMA \(object.schema.quotedDatabaseIdentifier).table_xinfo(\(object.name.quotedDatabaseIdentifier))")
        while let row = try rows.next() {
            let hidden: Int = row["hidden"]
            if hidden == 1 { continue } // hidden columns of virtual tables
            columns.append(ColumnInfo(row: row))
        }
        let table = SchemaCache.Table(
            key: key, schema: object.schema, name: object.name, type: object.type,
            withoutRowID: object.withoutRowID, columns: columns)
        schemaCache.tables[key] = table
        return table
    }

    private func existingTable(_ tableName: String, in schemaName: String? = nil) throws -> SchemaCache.Table {
        guard let table = try tableInfo(tableName, in: schemaName) else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(tableName)")
        }
        return table
    }

    /// The schema that holds a table or view (the first one in resolution order without a
    /// schema name); throws if there is none.
    func schemaOfTable(_ tableName: String, in schemaName: String? = nil) throws -> String {
        try existingTable(tableName, in: schemaName).schema
    }

    /// The name of an existing table as the schema spells it (`belongsTo("team")` finds the
    /// table `Teams` under its plural), or nil.
    func existingTableName(_ name: String) throws -> String? {
        guard let object = try resolveObject(name, in: nil), object.type == "table" || object.type == "virtual" else {
            return nil
        }
        return object.name
    }

    /// Whether a table has a rowid (a table, not `WITHOUT ROWID`); throws if it does not exist.
    func tableHasRowID(_ tableName: String) throws -> Bool {
        let table = try existingTable(tableName)
        return table.type == "table" && !table.withoutRowID
    }

    /// Returns whether a table exists.
    ///
    /// Without a schema name, the table is looked up as SQLite resolves an unqualified name:
    /// in `temp`, then `main`, then the attached databases in order of attachment. An unknown
    /// schema name throws `SQLITE_ERROR`.
    ///
    /// ```swift
    /// if try db.tableExists("player") { ... }
    /// if try db.tableExists("player", in: "archive") { ... }
    /// ```
    public func tableExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try resolveObject(name, in: schemaName).map { $0.type == "table" || $0.type == "virtual" } ?? false
    }

    /// Returns whether a view exists, looked up as ``tableExists(_:in:)`` looks up tables.
    ///
    /// ```swift
    /// if try db.viewExists("bestPlayer") { ... }
    /// ```
    public func viewExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        try resolveObject(name, in: schemaName)?.type == "view"
    }

    /// Returns whether a trigger exists: in the given schema, or in any schema without a schema
    /// name. An unknown schema name throws `SQLITE_ERROR`.
    ///
    /// ```swift
    /// if try db.triggerExists("player_insert") { ... }
    /// ```
    public func triggerExists(_ name: String, in schemaName: String? = nil) throws -> Bool {
        let schemas = try schemaName.map { [try canonicalSchemaName($0)] } ?? schemaResolutionOrder()
        for schema in schemas {
            let sql = "SELECT EXISTS (SELECT 1 FROM \(schema.quotedDatabaseIdentifier).sqlite_master WHERE type = 'trigger' AND name = ? COLLATE NOCASE)"
            if try Bool.fetchOne(self, sql: sql, arguments: [name]) == true { return true }
        }
        return false
    }

    /// Returns the columns of a table or a view; throws if it does not exist.
    ///
    /// Without a schema name, the table is looked up as SQLite resolves an unqualified name
    /// (see ``tableExists(_:in:)``).
    ///
    /// ```swift
    /// let columns = try db.columns(in: "player")
    /// let archived = try db.columns(in: "player", in: "archive")
    /// ```
    public func columns(in tableName: String, in schemaName: String? = nil) throws -> [ColumnInfo] {
        try existingTable(tableName, in: schemaName).columns
    }

    /// Returns the primary key of a table or a view; throws if it does not exist.
    ///
    /// SQLite knows no primary key for a view: the connection's ``Database/schemaSource`` is
    /// asked for it, and without an answer the method throws `SQLITE_ERROR` ("database view
    /// name has no primary key").
    ///
    /// A table without an explicit primary key has the hidden rowid as primary key. Without a
    /// schema name, the table is looked up as SQLite resolves an unqualified name (see
    /// ``tableExists(_:in:)``).
    ///
    /// ```swift
    /// let primaryKey = try db.primaryKey("player")
    /// print(primaryKey.columns) // ["id"]
    /// ```
    public func primaryKey(_ tableName: String, in schemaName: String? = nil) throws -> PrimaryKeyInfo {
        let table = try existingTable(tableName, in: schemaName)
        if let primaryKey = table.primaryKey { return primaryKey }
        let pkColumns = table.columns.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        let primaryKey: PrimaryKeyInfo
        if pkColumns.isEmpty {
            if table.type == "view" {
                // SQLite knows no primary key for a view: the schema source may.
                guard let viewKey = try primaryKeyFromSchemaSource(view: table.name, schema: table.schema, columns: table.columns) else {
                    throw DatabaseError(resultCode: .SQLITE_ERROR, message: "database view \(tableName) has no primary key")
                }
                schemaCache.tables[table.key]?.primaryKey = viewKey
                return viewKey
            }
            if table.withoutRowID {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "table \(tableName) has no primary key")
            }
            primaryKey = .hiddenRowID
        } else if pkColumns.count == 1, !table.withoutRowID, pkColumns[0].type.uppercased() == "INTEGER" {
            primaryKey = PrimaryKeyInfo(columns: [pkColumns[0].name], rowIDColumn: pkColumns[0].name, isRowID: true, columnInfos: pkColumns)
        } else {
            primaryKey = PrimaryKeyInfo(columns: pkColumns.map(\.name), rowIDColumn: nil, isRowID: false, columnInfos: pkColumns)
        }
        schemaCache.tables[table.key]?.primaryKey = primaryKey
        return primaryKey
    }

    /// Returns the indexes of a table; throws if it does not exist.
    ///
    /// Indexes on expressions are left out. Without a schema name, the table is looked up as
    /// SQLite resolves an unqualified name (see ``tableExists(_:in:)``).
    ///
    /// ```swift
    /// for index in try db.indexes(on: "player") {
    ///     print(index.name, index.columns, index.isUnique)
    /// }
    /// ```
    public func indexes(on tableName: String, in schemaName: String? = nil) throws -> [IndexInfo] {
        let table = try existingTable(tableName, in: schemaName)
        if let indexes = table.indexes { return indexes }
        let schema = table.schema.quotedDatabaseIdentifier
        var indexes: [IndexInfo] = []
        for row in try Row.fetchAll(self, sql: "PRAGMA \(schema).index_list(\(table.name.quotedDatabaseIdentifier))") {
            let name: String = row["name"]
            // Key columns only (`key` = 1); an expression has cid -2 and no name.
            var columns: [String] = []
            var hasExpression = false
            for column in try Row.fetchAll(self, sql: "PRAGMA \(schema).index_xinfo(\(name.quotedDatabaseIdentifier))") {
                let isKey: Bool = column["key"]
                guard isKey else { continue }
                let columnName: String? = column["name"]
                if let columnName {
                    columns.append(columnName)
                } else {
                    hasExpression = true
                }
            }
            if hasExpression { continue }
            indexes.append(IndexInfo(
                name: name, columns: columns, isUnique: row["unique"],
                origin: IndexInfo.Origin(rawValue: row["origin"]), isPartial: row["partial"]))
        }
        schemaCache.tables[table.key]?.indexes = indexes
        return indexes
    }

    /// Returns whether the columns uniquely identify a row: they contain the primary key, the
    /// rowid of a rowid table, or the columns of a unique index without a WHERE clause (names
    /// compare case-insensitively). A view has no unique key, except the primary key its
    /// ``DatabaseSchemaSource`` gives it.
    ///
    /// ```swift
    /// try db.table("player", hasUniqueKey: ["email"]) // true with a unique index on email
    /// ```
    public func table(_ tableName: String, hasUniqueKey columns: some Collection<String>) throws -> Bool {
        let table = try existingTable(tableName)
        let wanted = Set(columns.map { $0.lowercased() })
        if table.type == "view" {
            guard let viewKey = try table.primaryKey
                ?? primaryKeyFromSchemaSource(view: table.name, schema: table.schema, columns: table.columns)
            else { return false }
            return Set(viewKey.columns.map { $0.lowercased() }).isSubset(of: wanted)
        }
        let primaryKey = try primaryKey(tableName)
        if Set(primaryKey.columns.map { $0.lowercased() }).isSubset(of: wanted) { return true }
        if table.type == "table", !table.withoutRowID {
            // The rowid, under any of its names that no column takes.
            let columnNames = Set(table.columns.map { $0.name.lowercased() })
            let rowIDNames = Set(["rowid", "oid", "_rowid_"]).subtracting(columnNames)
            if !wanted.isDisjoint(with: rowIDNames) { return true }
        }
        return try indexes(on: tableName).contains { index in
            index.isUnique && !index.isPartial && !index.columns.isEmpty
                && Set(index.columns.map { $0.lowercased() }).isSubset(of: wanted)
        }
    }
}
