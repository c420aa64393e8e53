import Foundation

// Schema definition: tables, columns, constraints, indexes, views. The SQL is GRDB's: quoted
// identifiers, values written as SQL literals (schema statements take no parameters).

/// Options of `create(table:options:body:)`.
public struct TableOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `CREATE TABLE IF NOT EXISTS`
    public static let ifNotExists = TableOptions(rawValue: 1 << 0)
    /// `CREATE TEMPORARY TABLE`
    public static let temporary = TableOptions(rawValue: 1 << 1)
    /// `WITHOUT ROWID`
    public static let withoutRowID = TableOptions(rawValue: 1 << 2)
    /// `STRICT`
    public static let strict = TableOptions(rawValue: 1 << 3)
}

/// Options of `create(index:on:columns:options:condition:)`.
public struct IndexOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `CREATE INDEX IF NOT EXISTS`
    public static let ifNotExists = IndexOptions(rawValue: 1 << 0)
    /// `CREATE UNIQUE INDEX`
    public static let unique = IndexOptions(rawValue: 1 << 1)
}

/// Options of `create(view:options:columns:as:)`.
public struct ViewOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `CREATE VIEW IF NOT EXISTS`
    public static let ifNotExists = ViewOptions(rawValue: 1 << 0)
    /// `CREATE TEMPORARY VIEW`
    public static let temporary = ViewOptions(rawValue: 1 << 1)
}

extension Database {
    /// A foreign key action: `ON DELETE CASCADE`…
    public enum ForeignKeyAction: String, Sendable {
        /// Deletes or updates the referencing rows too.
        case cascade = "CASCADE"
        /// Refuses the change while rows refer to the key.
        case restrict = "RESTRICT"
        /// Sets the referencing columns to NULL.
        case setNull = "SET NULL"
        /// Sets the referencing columns to their default values.
        case setDefault = "SET DEFAULT"
    }

}

// MARK: - SQL literals

extension DatabaseValue {
    /// The value as an SQL literal: `NULL`, `1`, `1.5`, `'O''Brien'`, `X'00FF'`.
    var sqlLiteral: String {
        switch storage {
        case .null: return "NULL"
        case .int64(let value): return String(value)
        case .double(let value):
            if value.isNaN { return "NULL" }
            if value.isInfinite { return value > 0 ? "1e999" : "-1e999" }
            return "\(value)"
        case .string(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}

extension SQLGenerationContext {
    /// A context for schema statements: values are written as SQL literals.
    static func schema(_ db: Database) -> SQLGenerationContext {
        var context = SQLGenerationContext(db)
        context.inlinesValues = true
        return context
    }
}

// MARK: - Column definition

/// A column of a table definition, configured with chained methods.
///
/// ```swift
/// t.column("name", .text).notNull().unique().defaults(to: "Anonymous")
/// t.column("score", .integer).notNull().check { $0 >= 0 }.indexed()
/// t.column("teamId", .integer).references("team", onDelete: .cascade)
/// ```
public final class ColumnDefinition {
    /// Set when the definition is made, except for `belongsTo` columns, named and typed after
    /// the referenced primary key when the SQL is generated.
    var name: String
    var type: Database.ColumnType?
    var primaryKey: (conflict: Database.ConflictResolution?, autoincrement: Bool)?
    var notNullConflict: Database.ConflictResolution??
    var uniqueConflict: Database.ConflictResolution??
    var checks: [SQLExpression] = []
    var defaultSQL: SQL?
    var collation: String?
    /// One REFERENCES clause per call to `references(...)`.
    var references: [ColumnReference] = []
    var generated: (expression: SQLExpression, qualification: GeneratedColumnQualification)?
    var isIndexed = false
    /// Set for the column returned by `belongsTo`, a placeholder until the referenced primary
    /// key is known (see `TableDefinition+BelongsTo.swift`).
    var belongsTo: BelongsToRequest?
    /// The columns a `belongsTo` placeholder stands for, when the referenced primary key has
    /// several columns.
    var expansion: [ColumnDefinition]?

    init(name: String, type: Database.ColumnType?) {
        self.name = name
        self.type = type
    }

    /// `PRIMARY KEY`
    @discardableResult
    public func primaryKey(onConflict conflictResolution: Database.ConflictResolution? = nil, autoincrement: Bool = false) -> Self {
        primaryKey = (conflictResolution, autoincrement)
        return self
    }

    /// `NOT NULL`
    @discardableResult
    public func notNull(onConflict conflictResolution: Database.ConflictResolution? = nil) -> Self {
        notNullConflict = .some(conflictResolution)
        return self
    }

    /// `UNIQUE`
    @discardableResult
    public func unique(onConflict conflictResolution: Database.ConflictResolution? = nil) -> Self {
        uniqueConflict = .some(conflictResolution)
        return self
    }

    /// `CHECK (condition)`, the condition built from the column: `.check { $0 > 0 }`.
    @discardableResult
    public func check(_ condition: (Column) -> any SQLExpressible) -> Self {
        checks.append(condition(Column(name)).sqlExpression)
        return self
    }

    /// `CHECK (sql)`
    @discardableResult
    public func check(sql: String) -> Self {
        checks.append(SQLExpression(sql: sql))
        return self
    }

    /// `DEFAULT value`
    @discardableResult
    public func defaults(to value: some DatabaseValueConvertible) -> Self {
        defaultSQL = SQL(sql: value.databaseValue.sqlLiteral)
        return self
    }

    /// `DEFAULT sql`: `.defaults(sql: "CURRENT_TIMESTAMP")`.
    @discardableResult
    public func defaults(sql: String) -> Self {
        defaultSQL = SQL(sql: sql)
        return self
    }

    /// `COLLATE name`
    @discardableResult
    public func collate(_ collation: Database.CollationName) -> Self {
        self.collation = collation.rawValue
        return self
    }

    /// `COLLATE name`, for a custom collation.
    @discardableResult
    public func collate(_ collation: DatabaseCollation) -> Self {
        self.collation = collation.name
        return self
    }

    /// Whether a generated column is computed when it is read, or stored when its row is
    /// written.
    ///
    /// ```swift
    /// // "total" INTEGER GENERATED ALWAYS AS ("score" + "bonus") STORED
    /// t.column("total", .integer).generatedAs(Column("score") + Column("bonus"), .stored)
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/gencol.html>
    public enum GeneratedColumnQualification: Sendable {
        /// `VIRTUAL` (SQLite's default): computed when the column is read.
        case virtual
        /// `STORED`: computed when the row is written, and stored in the file.
        case stored
    }

    /// `GENERATED ALWAYS AS (sql)`
    @discardableResult
    public func generatedAs(sql: String, _ qualification: GeneratedColumnQualification = .virtual) -> Self {
        generated = (SQLExpression(sql: sql), qualification)
        return self
    }

    /// `GENERATED ALWAYS AS (expression)`
    @discardableResult
    public func generatedAs(_ expression: some SQLExpressible, _ qualification: GeneratedColumnQualification = .virtual) -> Self {
        generated = (expression.sqlExpression, qualification)
        return self
    }

    /// `REFERENCES table(column)`; without a column, the primary key of the table (`"rowid"`
    /// for a table without an explicit primary key). Each call adds a clause.
    @discardableResult
    public func references(
        _ table: String,
        column: String? = nil,
        onDelete deleteAction: Database.ForeignKeyAction? = nil,
        onUpdate updateAction: Database.ForeignKeyAction? = nil,
        deferred: Bool = false) -> Self
    {
        references.append(ColumnReference(table: table, column: column, onDelete: deleteAction, onUpdate: updateAction, deferred: deferred))
        return self
    }

    /// Creates an index on the column, named `<table>_on_<column>`.
    @discardableResult
    public func indexed() -> Self {
        isIndexed = true
        return self
    }

    func sql(_ context: inout SQLGenerationContext, table: TableDefinition?) throws -> String {
        var sql = name.quotedDatabaseIdentifier
        if let type { sql += " \(type.rawValue)" }
        if let primaryKey {
            sql += " PRIMARY KEY" + conflictClause(primaryKey.conflict)
            if primaryKey.autoincrement { sql += " AUTOINCREMENT" }
        }
        if let notNullConflict {
            sql += " NOT NULL" + conflictClause(notNullConflict)
        }
        if let uniqueConflict {
            sql += " UNIQUE" + conflictClause(uniqueConflict)
        }
        for check in checks {
            sql += try " CHECK (\(check.sql(&context)))"
        }
        if let defaultSQL {
            sql += try " DEFAULT \(defaultSQL.sql(&context))"
        }
        if let collation {
            sql += " COLLATE \(collation)"
        }
        for reference in references {
            let columns = try reference.column.map { [$0] } ?? referencedColumns(reference.table, context.db, table)
            sql += " " + foreignKeyClause(
                table: reference.table, columns: columns, onDelete: reference.onDelete,
                onUpdate: reference.onUpdate, deferred: reference.deferred)
        }
        if let generated {
            sql += try " GENERATED ALWAYS AS (\(generated.expression.sql(&context)))"
            // As GRDB, the storage is written out (DDL-3).
            sql += generated.qualification == .stored ? " STORED" : " VIRTUAL"
        }
        return sql
    }
}

/// A REFERENCES clause of a column.
struct ColumnReference {
    var table: String
    var column: String?
    var onDelete: Database.ForeignKeyAction?
    var onUpdate: Database.ForeignKeyAction?
    var deferred: Bool
}

/// ` ON CONFLICT <resolution>`, or nothing for ABORT, SQLite's default.
func conflictClause(_ resolution: Database.ConflictResolution?) -> String {
    guard let resolution, resolution != .abort else { return "" }
    return " ON CONFLICT \(resolution.rawValue)"
}

/// `REFERENCES "table"("a", "b") ON DELETE … ON UPDATE … DEFERRABLE INITIALLY DEFERRED`.
func foreignKeyClause(table: String, columns: [String]?, onDelete: Database.ForeignKeyAction?, onUpdate: Database.ForeignKeyAction?, deferred: Bool) -> String {
    var sql = "REFERENCES \(table.quotedDatabaseIdentifier)"
    if let columns {
        sql += "(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
    }
    if let onDelete { sql += " ON DELETE \(onDelete.rawValue)" }
    if let onUpdate { sql += " ON UPDATE \(onUpdate.rawValue)" }
    if deferred { sql += " DEFERRABLE INITIALLY DEFERRED" }
    return sql
}

/// The columns a foreign key refers to when none are given: the primary key of the referenced
/// table (the table being defined, for a self reference), `["rowid"]` when that table has no
/// explicit primary key. Nil, which leaves SQLite to use the primary key, when the table is
/// unknown: it does not exist yet, or its key is in raw SQL.
private func referencedColumns(_ table: String, _ db: Database, _ definition: TableDefinition?) throws -> [String]? {
    if let definition, definition.name.lowercased() == table.lowercased() {
        return definition.declaredPrimaryKey?.map(\.name)
    }
    guard try db.tableExists(table) else { return nil }
    return try db.primaryKey(table).columns
}

// MARK: - Table definition

/// The definition of a table, given to the closure of `create(table:options:body:)`.
///
/// ```swift
/// try db.create(table: "player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("name", .text).notNull()
///     t.belongsTo("team", onDelete: .cascade)
///     t.uniqueKey(["name", "teamId"])
/// }
/// ```
public final class TableDefinition {
    let name: String
    let options: TableOptions
    var columns: [ColumnDefinition] = []
    var rawColumns: [SQL] = []
    var compositePrimaryKey: (members: [PrimaryKeyMember], conflict: Database.ConflictResolution?)?
    var uniqueKeys: [(columns: [String], conflict: Database.ConflictResolution?)] = []
    var foreignKeys: [(columns: [String], table: String, destinationColumns: [String]?, onDelete: Database.ForeignKeyAction?, onUpdate: Database.ForeignKeyAction?, deferred: Bool)] = []
    var checks: [SQLExpression] = []
    var constraints: [SQL] = []
    /// Columns added by `primaryKey { ... }`.
    private var definingPrimaryKey: [ColumnDefinition]?

    /// A column of a composite primary key: named by `primaryKey(_:onConflict:)`, or defined in
    /// `primaryKey { ... }` (a `belongsTo` there may stand for several columns).
    enum PrimaryKeyMember {
        case name(String)
        case column(ColumnDefinition)
    }

    init(name: String, options: TableOptions) {
        self.name = name
        self.options = options
    }

    /// A column, with an optional type.
    @discardableResult
    public func column(_ name: String, _ type: Database.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        if definingPrimaryKey != nil {
            column.notNull()
            definingPrimaryKey?.append(column)
        }
        columns.append(column)
        return column
    }

    /// A column from raw SQL: `t.column(sql: "name TEXT")`.
    public func column(sql: String) {
        rawColumns.append(SQL(sql: sql))
    }

    /// A column from an SQL literal: `t.column(literal: "name TEXT DEFAULT \(defaultName)")`.
    public func column(literal: SQL) {
        rawColumns.append(literal)
    }

    /// `"id" INTEGER PRIMARY KEY AUTOINCREMENT`
    @discardableResult
    public func autoIncrementedPrimaryKey(_ name: String, onConflict conflictResolution: Database.ConflictResolution? = nil) -> ColumnDefinition {
        column(name, .integer).primaryKey(onConflict: conflictResolution, autoincrement: true)
    }

    /// A single-column primary key: `"uuid" TEXT PRIMARY KEY NOT NULL`.
    ///
    /// An `INTEGER` primary key is the rowid, which is never NULL: `primaryKey("id", .integer)`
    /// writes `"id" INTEGER PRIMARY KEY`.
    @discardableResult
    public func primaryKey(_ name: String, _ type: Database.ColumnType, onConflict conflictResolution: Database.ConflictResolution? = nil) -> ColumnDefinition {
        let column = column(name, type).primaryKey(onConflict: conflictResolution)
        if type.rawValue.uppercased() != Database.ColumnType.integer.rawValue {
            column.notNull()
        }
        return column
    }

    /// A primary key on several columns: `PRIMARY KEY ("a", "b")`.
    public func primaryKey(_ columns: [String], onConflict conflictResolution: Database.ConflictResolution? = nil) {
        compositePrimaryKey = (columns.map { .name($0) }, conflictResolution)
    }

    /// A primary key made of the columns the closure defines (NOT NULL), foreign keys of
    /// `belongsTo` included.
    ///
    /// ```swift
    /// t.primaryKey {
    ///     t.column("teamName", .text)
    ///     t.column("position", .integer)
    /// }
    /// t.primaryKey {
    ///     t.belongsTo("player")
    ///     t.belongsTo("team")
    /// }
    /// ```
    public func primaryKey(onConflict conflictResolution: Database.ConflictResolution? = nil, body: () throws -> Void) rethrows {
        definingPrimaryKey = []
        defer { definingPrimaryKey = nil }
        try body()
        compositePrimaryKey = ((definingPrimaryKey ?? []).map { .column($0) }, conflictResolution)
    }

    /// `UNIQUE ("a", "b")`
    public func uniqueKey(_ columns: [String], onConflict conflictResolution: Database.ConflictResolution? = nil) {
        uniqueKeys.append((columns, conflictResolution))
    }

    /// `FOREIGN KEY ("a", "b") REFERENCES "table"("c", "d")`; without destination columns, the
    /// primary key of the table (`"rowid"` for a table without an explicit primary key).
    public func foreignKey(
        _ columns: [String],
        references table: String,
        columns destinationColumns: [String]? = nil,
        onDelete deleteAction: Database.ForeignKeyAction? = nil,
        onUpdate updateAction: Database.ForeignKeyAction? = nil,
        deferred: Bool = false)
    {
        foreignKeys.append((columns, table, destinationColumns, deleteAction, updateAction, deferred))
    }

    /// Foreign key columns to the primary key of another table, indexed.
    ///
    /// The referenced table is `name` (compared case-insensitively), or else its plural
    /// (`team` finds `teams`), or else the table being defined (a self reference, under its
    /// name or its plural); `inTable` names it explicitly. There is one column per primary key
    /// column, named after it and typed like it:
    ///
    /// ```swift
    /// // "teamId" INTEGER REFERENCES "teams"("id") ON DELETE CASCADE,
    /// // CREATE INDEX "player_on_teamId" ON "player"("teamId")
    /// t.belongsTo("team", onDelete: .cascade)
    ///
    /// // "countryCode" TEXT NOT NULL REFERENCES "country"("code")
    /// t.belongsTo("country").notNull()
    /// ```
    ///
    /// A composite primary key gives several columns (`parentA`, `parentB`), a table constraint
    /// `FOREIGN KEY ("parentA", "parentB") REFERENCES "parent"("a", "b")`, and the index
    /// `index_<table>_on_parentA_parentB` (unique after `.unique()`). In `primaryKey { }`, the
    /// columns join the primary key and get no index of their own.
    @discardableResult
    public func belongsTo(
        _ name: String,
        inTable table: String? = nil,
        onDelete deleteAction: Database.ForeignKeyAction? = nil,
        onUpdate updateAction: Database.ForeignKeyAction? = nil,
        deferred: Bool = false,
        indexed: Bool = true) -> ForeignKeyDefinition
    {
        let column = ColumnDefinition(name: name, type: nil)
        column.belongsTo = BelongsToRequest(
            name: name, table: table, onDelete: deleteAction, onUpdate: updateAction,
            deferred: deferred, indexed: indexed, inPrimaryKey: definingPrimaryKey != nil)
        if definingPrimaryKey != nil {
            column.notNull()
            definingPrimaryKey?.append(column)
        }
        columns.append(column)
        return ForeignKeyDefinition(column: column)
    }

    /// Adds a table constraint `CHECK (condition)`.
    ///
    /// ```swift
    /// // CHECK ("minScore" <= "maxScore")
    /// t.check(Column("minScore") <= Column("maxScore"))
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_createtable.html#ckconst>
    public func check(_ condition: some SQLExpressible) {
        checks.append(condition.sqlExpression)
    }

    /// Adds a table constraint `CHECK (condition)`, for a condition built with the query
    /// interface (a comparison, a function call…).
    ///
    /// ```swift
    /// // CHECK (length("name") > 0)
    /// t.check(length(Column("name")) > 0)
    /// ```
    public func check(_ condition: some SQLSpecificExpressible) {
        checks.append(condition.sqlExpression)
    }

    /// `CHECK (sql)`
    public func check(sql: String) {
        checks.append(SQLExpression(sql: sql))
    }

    /// A raw table constraint: `t.constraint(sql: "CHECK (a + b < 10)")`.
    public func constraint(sql: String) {
        constraints.append(SQL(sql: sql))
    }

    /// A table constraint from an SQL literal.
    public func constraint(literal: SQL) {
        constraints.append(literal)
    }

    /// The columns of the table, composite `belongsTo` placeholders replaced with their columns.
    var definedColumns: [ColumnDefinition] {
        columns.flatMap { $0.expansion ?? [$0] }
    }

    /// The names of the composite primary key columns, once `belongsTo` columns are resolved.
    private var compositePrimaryKeyNames: [String]? {
        compositePrimaryKey?.members.flatMap { member -> [String] in
            switch member {
            case .name(let name): return [name]
            case .column(let column): return (column.expansion ?? [column]).map(\.name)
            }
        }
    }

    /// The primary key as defined, for self references: names and types. `rowid` when the
    /// table has no explicit primary key; nil when it is unknown (raw SQL columns or
    /// constraints, or a `belongsTo` that is not resolved yet).
    var declaredPrimaryKey: [(name: String, type: Database.ColumnType?)]? {
        let columns = definedColumns
        if let compositePrimaryKey {
            for case .column(let column) in compositePrimaryKey.members where column.belongsTo?.isResolved == false {
                return nil
            }
            return compositePrimaryKeyNames?.map { name in
                (name, columns.first { $0.name.lowercased() == name.lowercased() }?.type)
            }
        }
        if let column = columns.first(where: { $0.primaryKey != nil }) {
            return [(column.name, column.type)]
        }
        if rawColumns.isEmpty && constraints.isEmpty {
            return [(Column.rowID.name, .integer)]
        }
        return nil
    }

    /// The CREATE TABLE statement and the CREATE INDEX statements of indexed columns and
    /// foreign keys.
    func sql(_ db: Database) throws -> [String] {
        var context = SQLGenerationContext.schema(db)
        try resolveBelongsTo(db)
        var parts = try definedColumns.map { try $0.sql(&context, table: self) }
        parts += try rawColumns.map { try $0.sql(&context) }
        if let compositePrimaryKey, let names = compositePrimaryKeyNames {
            parts.append("PRIMARY KEY (" + names.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
                + conflictClause(compositePrimaryKey.conflict))
        }
        for key in uniqueKeys {
            parts.append("UNIQUE (" + key.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
                + conflictClause(key.conflict))
        }
        for key in foreignKeys {
            let destination = try key.destinationColumns ?? referencedColumns(key.table, db, self)
            parts.append("FOREIGN KEY (" + key.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ") "
                + foreignKeyClause(table: key.table, columns: destination, onDelete: key.onDelete, onUpdate: key.onUpdate, deferred: key.deferred))
        }
        for check in checks {
            parts.append(try "CHECK (\(check.sql(&context)))")
        }
        parts += try constraints.map { try $0.sql(&context) }
        parts += belongsToTableConstraints

        var create = "CREATE "
        if options.contains(.temporary) { create += "TEMPORARY " }
        create += "TABLE "
        if options.contains(.ifNotExists) { create += "IF NOT EXISTS " }
        create += "\(name.quotedDatabaseIdentifier) (\(parts.joined(separator: ", ")))"
        var tableOptions: [String] = []
        // (GRDB's order: `STRICT, WITHOUT ROWID`.)
        if options.contains(.strict) { tableOptions.append("STRICT") }
        if options.contains(.withoutRowID) { tableOptions.append("WITHOUT ROWID") }
        if !tableOptions.isEmpty { create += " " + tableOptions.joined(separator: ", ") }

        var statements = [create]
        for index in indexes {
            var sql = "CREATE "
            if index.unique { sql += "UNIQUE " }
            sql += "INDEX "
            if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
            sql += "\(index.name.quotedDatabaseIdentifier) ON \(name.quotedDatabaseIdentifier)("
                + index.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
            statements.append(sql)
        }
        return statements
    }

    /// The indexes of indexed columns and `belongsTo` foreign keys, in column order.
    private var indexes: [(name: String, columns: [String], unique: Bool)] {
        columns.compactMap { column in
            if let request = column.belongsTo {
                guard request.indexed || column.isIndexed, !request.inPrimaryKey else { return nil }
                if let expansion = column.expansion {
                    let names = expansion.map(\.name)
                    return (Database.defaultIndexName(name, names), names, column.uniqueConflict != nil)
                }
                // A UNIQUE column is indexed already.
                if column.uniqueConflict != nil { return nil }
                return ("\(name)_on_\(column.name)", [column.name], false)
            }
            guard column.isIndexed else { return nil }
            return ("\(name)_on_\(column.name)", [column.name], false)
        }
    }
}

// MARK: - Table alteration

/// The changes of `alter(table:body:)`.
///
/// ```swift
/// try db.alter(table: "player") { t in
///     t.add(column: "hasBonus", .boolean).notNull().defaults(to: false)
///     t.rename(column: "url", to: "homeURL")
///     t.drop(column: "score")
/// }
/// ```
public final class TableAlteration {
    let name: String
    enum Change {
        case add(ColumnDefinition)
        case addSQL(SQL)
        case rename(String, String)
        case drop(String)
    }
    var changes: [Change] = []

    init(name: String) {
        self.name = name
    }

    /// `ADD COLUMN`
    @discardableResult
    public func add(column name: String, _ type: Database.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        changes.append(.add(column))
        return column
    }

    /// `ADD COLUMN` from raw SQL.
    public func addColumn(sql: String) {
        changes.append(.addSQL(SQL(sql: sql)))
    }

    /// `ADD COLUMN` from an SQL literal.
    public func addColumn(literal: SQL) {
        changes.append(.addSQL(literal))
    }

    /// `RENAME COLUMN`
    public func rename(column name: String, to newName: String) {
        changes.append(.rename(name, newName))
    }

    /// `DROP COLUMN`
    public func drop(column name: String) {
        changes.append(.drop(name))
    }

    func sql(_ db: Database) throws -> [String] {
        var context = SQLGenerationContext.schema(db)
        var statements: [String] = []
        let table = name.quotedDatabaseIdentifier
        for change in changes {
            switch change {
            case .add(let column):
                statements.append(try "ALTER TABLE \(table) ADD COLUMN \(column.sql(&context, table: nil))")
                if column.isIndexed {
                    let index = "\(name)_on_\(column.name)"
                    statements.append("CREATE INDEX \(index.quotedDatabaseIdentifier) ON \(table)(\(column.name.quotedDatabaseIdentifier))")
                }
            case .addSQL(let literal):
                statements.append(try "ALTER TABLE \(table) ADD COLUMN \(literal.sql(&context))")
            case let .rename(old, new):
                statements.append("ALTER TABLE \(table) RENAME COLUMN \(old.quotedDatabaseIdentifier) TO \(new.quotedDatabaseIdentifier)")
            case .drop(let column):
                statements.append("ALTER TABLE \(table) DROP COLUMN \(column.quotedDatabaseIdentifier)")
            }
        }
        return statements
    }
}

// MARK: - Database methods

extension Database {
    /// Runs schema statements one after the other, as GRDB does: no savepoint of its own, so
    /// a failure leaves the statements that ran before it in place (a migration or a `write`
    /// rolls them all back).
    private func executeSchemaStatements(_ statements: [String]) throws {
        for statement in statements {
            try execute(sql: statement)
        }
    }

    /// Creates a table.
    ///
    /// ```swift
    /// // CREATE TABLE "place" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "title" TEXT,
    /// //   "favorite" BOOLEAN NOT NULL DEFAULT 0, "latitude" DOUBLE NOT NULL, "longitude" DOUBLE NOT NULL)
    /// try db.create(table: "place") { t in
    ///     t.autoIncrementedPrimaryKey("id")
    ///     t.column("title", .text)
    ///     t.column("favorite", .boolean).notNull().defaults(to: false)
    ///     t.column("latitude", .double).notNull()
    ///     t.column("longitude", .double).notNull()
    /// }
    /// ```
    public func create(table name: String, options: TableOptions = [], body: (TableDefinition) throws -> Void) throws {
        let definition = TableDefinition(name: name, options: options)
        try body(definition)
        try executeSchemaStatements(definition.sql(self))
    }

    /// Creates a table: the form of GRDB 5, with booleans instead of ``TableOptions``. It
    /// generates the same SQL as ``create(table:options:body:)``.
    ///
    /// ```swift
    /// // CREATE TEMPORARY TABLE IF NOT EXISTS "draft" ("id" INTEGER PRIMARY KEY, "text" TEXT)
    /// try db.create(table: "draft", temporary: true, ifNotExists: true) { t in
    ///     t.primaryKey("id", .integer)
    ///     t.column("text", .text)
    /// }
    /// ```
    @available(*, deprecated, message: "Use create(table:options:body:) instead")
    public func create(
        table name: String,
        temporary: Bool = false,
        ifNotExists: Bool = false,
        withoutRowID: Bool = false,
        body: (TableDefinition) throws -> Void) throws
    {
        var options: TableOptions = []
        if temporary { options.insert(.temporary) }
        if ifNotExists { options.insert(.ifNotExists) }
        if withoutRowID { options.insert(.withoutRowID) }
        try create(table: name, options: options, body: body)
    }

    /// Modifies a table: adds, renames or drops columns, one statement after the other.
    public func alter(table name: String, body: (TableAlteration) throws -> Void) throws {
        let alteration = TableAlteration(name: name)
        try body(alteration)
        let statements = try alteration.sql(self)
        if statements.isEmpty { return }
        try executeSchemaStatements(statements)
    }

    /// Renames a table: `ALTER TABLE "old" RENAME TO "new"`.
    public func rename(table name: String, to newName: String) throws {
        try execute(sql: "ALTER TABLE \(name.quotedDatabaseIdentifier) RENAME TO \(newName.quotedDatabaseIdentifier)")
    }

    /// Deletes a table: `DROP TABLE "name"`.
    public func drop(table name: String) throws {
        try execute(sql: "DROP TABLE \(name.quotedDatabaseIdentifier)")
    }

    /// Creates an index named `index_<table>_on_<columns>`.
    ///
    /// ```swift
    /// try db.create(indexOn: "player", columns: ["email"], options: .unique)
    /// // CREATE UNIQUE INDEX "index_player_on_email" ON "player"("email")
    /// ```
    public func create(indexOn table: String, columns: [String], options: IndexOptions = [], condition: (any SQLExpressible)? = nil) throws {
        try create(index: Self.defaultIndexName(table, columns), on: table, columns: columns, options: options, condition: condition)
    }

    /// Creates an index on columns, with an optional condition (a partial index).
    public func create(index name: String, on table: String, columns: [String], options: IndexOptions = [], condition: (any SQLExpressible)? = nil) throws {
        try create(index: name, on: table, expressions: columns.map { Column($0) }, options: options, condition: condition)
    }

    /// Creates an index on columns: the form of GRDB 5, with booleans instead of
    /// ``IndexOptions``. It generates the same SQL as
    /// ``create(index:on:columns:options:condition:)``.
    ///
    /// ```swift
    /// // CREATE UNIQUE INDEX IF NOT EXISTS "byEmail" ON "player"("email")
    /// try db.create(index: "byEmail", on: "player", columns: ["email"], unique: true, ifNotExists: true)
    /// ```
    @available(*, deprecated, message: "Use create(index:on:columns:options:condition:) instead")
    public func create(
        index name: String,
        on table: String,
        columns: [String],
        unique: Bool = false,
        ifNotExists: Bool = false,
        condition: (any SQLExpressible)? = nil) throws
    {
        var options: IndexOptions = []
        if unique { options.insert(.unique) }
        if ifNotExists { options.insert(.ifNotExists) }
        try create(index: name, on: table, columns: columns, options: options, condition: condition)
    }

    /// Creates an index on expressions: `[Column("email").collating(.nocase)]`,
    /// `[Column("score") + Column("bonus")]`.
    public func create(index name: String, on table: String, expressions: [any SQLExpressible], options: IndexOptions = [], condition: (any SQLExpressible)? = nil) throws {
        var context = SQLGenerationContext.schema(self)
        var sql = "CREATE "
        if options.contains(.unique) { sql += "UNIQUE " }
        sql += "INDEX "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        let terms = try expressions.map { try $0.sqlExpression.sql(&context) }.joined(separator: ", ")
        sql += "\(name.quotedDatabaseIdentifier) ON \(table.quotedDatabaseIdentifier)(\(terms))"
        if let condition {
            sql += try " WHERE \(condition.sqlExpression.sql(&context))"
        }
        try execute(sql: sql)
    }

    /// Deletes an index: `DROP INDEX "name"`.
    public func drop(index name: String) throws {
        try execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
    }

    /// Deletes the index on exactly these columns, if there is one.
    public func drop(indexOn table: String, columns: [String]) throws {
        let wanted = columns.map { $0.lowercased() }
        let matches = try indexes(on: table).filter { $0.origin == .createIndex && $0.columns.map { $0.lowercased() } == wanted }
        if matches.count == 1 {
            try drop(index: matches[0].name)
        }
    }

    static func defaultIndexName(_ table: String, _ columns: [String]) -> String {
        "index_\(table)_on_\(columns.joined(separator: "_"))"
    }

    /// Creates a view from a request.
    ///
    /// ```swift
    /// // CREATE VIEW "redPlayer" AS SELECT * FROM "player" WHERE "team" = 'red'
    /// try db.create(view: "redPlayer", as: Player.filter(Column("team") == "red"))
    /// ```
    public func create(view name: String, options: ViewOptions = [], columns: [String]? = nil, as request: some SQLSubqueryable) throws {
        var context = SQLGenerationContext.schema(self)
        let select = try request.sqlSubquery.sql(&context)
        try execute(sql: Self.createViewPrefix(name, options, columns) + select)
    }

    /// Creates a view from an SQL literal.
    public func create(view name: String, options: ViewOptions = [], columns: [String]? = nil, asLiteral sqlLiteral: SQL) throws {
        var context = SQLGenerationContext.schema(self)
        let select = try sqlLiteral.sql(&context)
        try execute(sql: Self.createViewPrefix(name, options, columns) + select)
    }

    private static func createViewPrefix(_ name: String, _ options: ViewOptions, _ columns: [String]?) -> String {
        var sql = "CREATE "
        if options.contains(.temporary) { sql += "TEMPORARY " }
        sql += "VIEW "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        sql += name.quotedDatabaseIdentifier
        if let columns, !columns.isEmpty {
            sql += " (" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
        }
        return sql + " AS "
    }

    /// Deletes a view: `DROP VIEW "name"`.
    public func drop(view name: String) throws {
        try execute(sql: "DROP VIEW \(name.quotedDatabaseIdentifier)")
    }
}

/// The foreign key that ``TableDefinition/belongsTo(_:inTable:onDelete:onUpdate:deferred:indexed:)``
/// adds: its columns can be made `NOT NULL`, and the key unique.
///
/// ```swift
/// try db.create(table: "player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.belongsTo("team").notNull()
/// }
/// ```
public final class ForeignKeyDefinition {
    private let column: ColumnDefinition

    init(column: ColumnDefinition) {
        self.column = column
    }

    /// The foreign key columns are `NOT NULL`.
    @discardableResult
    public func notNull(onConflict conflictResolution: Database.ConflictResolution? = nil) -> Self {
        column.notNull(onConflict: conflictResolution)
        return self
    }

    /// The foreign key is unique (its index is a unique index).
    @discardableResult
    public func unique() -> Self {
        column.unique()
        return self
    }
}
