/// Options for ``Database/create(virtualTable:options:using:)`` and
/// ``Database/create(virtualTable:options:using:_:)``.
///
/// ```swift
/// // CREATE VIRTUAL TABLE IF NOT EXISTS temp."document" USING fts5(content)
/// try db.create(virtualTable: "document", options: [.temporary, .ifNotExists], using: FTS5()) { t in
///     t.column("content")
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/lang_createvtab.html>
public struct VirtualTableOptions: OptionSet, Sendable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Only creates the virtual table if it does not already exist: `IF NOT EXISTS`.
    public static let ifNotExists = VirtualTableOptions(rawValue: 1 << 0)

    /// Creates the virtual table in the temporary schema: `temp."name"`.
    public static let temporary = VirtualTableOptions(rawValue: 1 << 1)
}

/// What a ``VirtualTableModule`` is told when it makes a table definition.
public struct VirtualTableConfiguration: Sendable {
    /// Whether the table is created with `IF NOT EXISTS`.
    var ifNotExists: Bool

    /// Whether the table is created in the temporary schema.
    var temporary: Bool
}

/// A type that describes an SQLite virtual table module, so that
/// ``Database/create(virtualTable:options:using:_:)`` can create tables of this module.
///
/// ``FTS3``, ``FTS4`` and ``FTS5`` are virtual table modules. You can declare your own, for
/// a module registered with SQLite (R*Tree, for example):
///
/// ```swift
/// struct RTree: VirtualTableModule {
///     final class TableDefinition {
///         var columns: [String] = []
///         func column(_ name: String) { columns.append(name) }
///     }
///     var moduleName: String { "rtree" }
///     func makeTableDefinition(configuration: VirtualTableConfiguration) -> TableDefinition {
///         TableDefinition()
///     }
///     func moduleArguments(for definition: TableDefinition, in db: Database) throws -> [String] {
///         definition.columns
///     }
///     func database(_ db: Database, didCreate tableName: String, using definition: TableDefinition) throws { }
/// }
///
/// // CREATE VIRTUAL TABLE "boundary" USING rtree(id, minX, maxX)
/// try db.create(virtualTable: "boundary", using: RTree()) { t in
///     t.column("id")
///     t.column("minX")
///     t.column("maxX")
/// }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/vtab.html>
public protocol VirtualTableModule {
    /// The type of the object given to the closure of
    /// ``Database/create(virtualTable:options:using:_:)``, where the table is defined.
    associatedtype TableDefinition

    /// The name of the module, as in `CREATE VIRTUAL TABLE … USING <moduleName>(…)`.
    var moduleName: String { get }

    /// Returns a new table definition.
    func makeTableDefinition(configuration: VirtualTableConfiguration) -> TableDefinition

    /// The module arguments of the `CREATE VIRTUAL TABLE` statement, written as they appear
    /// in the SQL, without their separating commas.
    func moduleArguments(for definition: TableDefinition, in db: Database) throws -> [String]

    /// Called after the table was created, in the same savepoint: a module can create extra
    /// objects (triggers, for example).
    func database(_ db: Database, didCreate tableName: String, using definition: TableDefinition) throws
}

extension Database {
    /// Creates a virtual table with a module and its SQL arguments:
    ///
    /// ```swift
    /// // CREATE VIRTUAL TABLE "vocabulary" USING spellfix1
    /// try db.create(virtualTable: "vocabulary", using: "spellfix1")
    ///
    /// // CREATE VIRTUAL TABLE "point" USING rtree(id, minX, maxX)
    /// try db.create(virtualTable: "point", using: "rtree(id, minX, maxX)")
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_createvtab.html>
    public func create(virtualTable name: String, options: VirtualTableOptions = [], using module: String) throws {
        let sql = Self.createVirtualTableSQL(name, options: options) + module
        try execute(sql: sql)
    }

    /// Creates a virtual table with a ``VirtualTableModule``, such as ``FTS4`` or ``FTS5``.
    ///
    /// The statement runs in a savepoint, with what the module does after the table is
    /// created (the synchronization triggers of full-text tables, for example): all of it
    /// is created, or nothing.
    ///
    /// ```swift
    /// // CREATE VIRTUAL TABLE "document" USING fts5(content)
    /// try db.create(virtualTable: "document", using: FTS5()) { t in
    ///     t.column("content")
    /// }
    /// ```
    public func create<Module: VirtualTableModule>(
        virtualTable tableName: String,
        options: VirtualTableOptions = [],
        using module: Module,
        _ body: ((Module.TableDefinition) throws -> Void)? = nil) throws
    {
        let configuration = VirtualTableConfiguration(
            ifNotExists: options.contains(.ifNotExists),
            temporary: options.contains(.temporary))
        let definition = module.makeTableDefinition(configuration: configuration)
        try body?(definition)
        try inSavepoint {
            var sql = Self.createVirtualTableSQL(tableName, options: options) + module.moduleName
            let arguments = try module.moduleArguments(for: definition, in: self)
            if !arguments.isEmpty {
                sql += "(" + arguments.joined(separator: ", ") + ")"
            }
            try execute(sql: sql)
            try module.database(self, didCreate: tableName, using: definition)
            return .commit
        }
    }

    /// Creates a virtual table with a ``VirtualTableModule``: the form with a boolean instead
    /// of ``VirtualTableOptions``.
    ///
    /// ```swift
    /// try db.create(virtualTable: "document", ifNotExists: true, using: FTS5()) { t in
    ///     t.column("content")
    /// }
    /// ```
    @_disfavoredOverload
    public func create<Module: VirtualTableModule>(
        virtualTable tableName: String,
        ifNotExists: Bool = false,
        using module: Module,
        _ body: ((Module.TableDefinition) throws -> Void)? = nil) throws
    {
        try create(virtualTable: tableName, options: ifNotExists ? .ifNotExists : [], using: module, body)
    }

    /// Creates a virtual table with a module and its SQL arguments: the form with a boolean
    /// instead of ``VirtualTableOptions``.
    ///
    /// ```swift
    /// // CREATE VIRTUAL TABLE IF NOT EXISTS "vocabulary" USING spellfix1
    /// try db.create(virtualTable: "vocabulary", ifNotExists: true, using: "spellfix1")
    /// ```
    @_disfavoredOverload
    public func create(virtualTable name: String, ifNotExists: Bool = false, using module: String) throws {
        try create(virtualTable: name, options: ifNotExists ? .ifNotExists : [], using: module)
    }

    private static func createVirtualTableSQL(_ name: String, options: VirtualTableOptions) -> String {
        var sql = "CREATE VIRTUAL TABLE "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        if options.contains(.temporary) { sql += "temp." }
        return sql + name.quotedDatabaseIdentifier + " USING "
    }
}
