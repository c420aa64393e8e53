// Schema sources: what the application tells the library about its schema that SQLite can not
// say, such as the primary key of a view. A connection asks its schema source when it reads
// the schema (see `Database.primaryKey(_:in:)`), and remembers the answers in its schema cache.

/// A type that provides information about the database schema that SQLite can not introspect,
/// such as the primary key of a database view.
///
/// SQLite views have no primary key. Give one to the views your records target, and the record
/// methods that need a primary key (`find(_:id:)`, `filter(id:)`, `update(_:)`, `deleteOne(_:id:)`…)
/// work with them:
///
/// ```swift
/// struct AppSchemaSource: DatabaseSchemaSource {
///     func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
///         switch view.name {
///         case "captain": ["id"]
///         default: nil
///         }
///     }
/// }
///
/// var config = Configuration()
/// config.schemaSource = AppSchemaSource()
/// let dbQueue = try DatabaseQueue(path: path, configuration: config)
/// let alice = try dbQueue.read { db in try Captain.find(db, id: "alice") }
/// ```
///
/// Several sources combine with ``then(_:)``.
///
/// Answers are remembered in the connection's schema cache, which is emptied when the schema
/// changes, and by ``Database/clearSchemaCache()``.
public protocol DatabaseSchemaSource: Sendable {
    /// Returns the names of the columns of the primary key of a view, in key order, or nil if
    /// this source does not know it.
    ///
    /// The default implementation returns nil.
    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]?
}

extension DatabaseSchemaSource {
    /// Returns nil: the source does not know the primary key of any view.
    public func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
        nil
    }

    /// Returns a schema source that asks this source first, then `other` for the questions this
    /// source does not answer (when it returns nil).
    ///
    /// ```swift
    /// config.schemaSource = TeamSchemaSource().then(PlayerSchemaSource())
    /// ```
    public func then(_ other: some DatabaseSchemaSource) -> some DatabaseSchemaSource {
        ChainedSchemaSource(first: self, second: other)
    }
}

/// Two schema sources asked in order.
private struct ChainedSchemaSource<First: DatabaseSchemaSource, Second: DatabaseSchemaSource>: DatabaseSchemaSource {
    let first: First
    let second: Second

    func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
        if let columns = try first.columnsForPrimaryKey(db, inView: view) {
            return columns
        }
        return try second.columnsForPrimaryKey(db, inView: view)
    }
}

/// The identifier of a database schema: `main`, `temp`, or an attached database.
///
/// ```swift
/// DatabaseSchemaID.main.name                   // "main"
/// DatabaseSchemaID.temp.schemaTableName        // "sqlite_temp_master"
/// DatabaseSchemaID.attached("archive").name    // "archive"
/// ```
public struct DatabaseSchemaID: Sendable, Hashable {
    private enum Kind: Hashable {
        case main
        case temp
        case attached(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The main database.
    public static let main = DatabaseSchemaID(.main)

    /// The database of temporary tables and views.
    public static let temp = DatabaseSchemaID(.temp)

    /// An attached database, by the name it was attached with (`ATTACH DATABASE … AS name`).
    public static func attached(_ name: String) -> DatabaseSchemaID {
        DatabaseSchemaID(.attached(name))
    }

    /// The schema from the name SQLite gives it (`PRAGMA database_list`).
    init(schemaName: String) {
        switch schemaName.lowercased() {
        case "main": self = .main
        case "temp": self = .temp
        default: self = .attached(schemaName)
        }
    }

    /// The name of the schema: `"main"`, `"temp"`, or the name of the attached database.
    public var name: String {
        switch kind {
        case .main: "main"
        case .temp: "temp"
        case .attached(let name): name
        }
    }

    /// The name of the table that describes the schema, ready for SQL: `sqlite_master`,
    /// `sqlite_temp_master`, or `"name".sqlite_master` for an attached database.
    ///
    /// ```swift
    /// let sql = "SELECT name FROM \(schemaID.schemaTableName) WHERE type = 'view'"
    /// ```
    public var schemaTableName: String {
        switch kind {
        case .main: "sqlite_master"
        case .temp: "sqlite_temp_master"
        case .attached(let name): "\(name.quotedDatabaseIdentifier).sqlite_master"
        }
    }
}

/// The identifier of a database object (table, view…): its name and its schema.
///
/// ```swift
/// let id = DatabaseObjectID(name: "captain", schemaID: .main)
/// ```
public struct DatabaseObjectID: Sendable, Hashable {
    /// The name of the object.
    public var name: String
    /// The schema of the object.
    public var schemaID: DatabaseSchemaID

    /// Creates the identifier of an object.
    public init(name: String, schemaID: DatabaseSchemaID) {
        self.name = name
        self.schemaID = schemaID
    }
}

extension Database {
    /// Runs `block` with another schema source, then restores the previous one. A nil source
    /// means no schema source at all while `block` runs.
    ///
    /// The schema cache is emptied before and after, so that answers of one source are not
    /// used with the other.
    ///
    /// ```swift
    /// let captain = try db.withSchemaSource(CaptainSchemaSource()) {
    ///     try Captain.find(db, id: "alice")
    /// }
    /// ```
    public func withSchemaSource<T>(_ schemaSource: (any DatabaseSchemaSource)?, execute block: () throws -> T) rethrows -> T {
        let previous = self.schemaSource
        self.schemaSource = schemaSource
        clearSchemaCache()
        defer {
            self.schemaSource = previous
            clearSchemaCache()
        }
        return try block()
    }

    /// The primary key a schema source gives to a view, checked against its columns; nil when
    /// there is no source or it does not know the view.
    func primaryKeyFromSchemaSource(view: String, schema: String, columns: [ColumnInfo]) throws -> PrimaryKeyInfo? {
        guard let schemaSource else { return nil }
        let viewID = DatabaseObjectID(name: view, schemaID: DatabaseSchemaID(schemaName: schema))
        guard let names = try schemaSource.columnsForPrimaryKey(self, inView: viewID) else { return nil }
        if names.isEmpty {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "database view \(view) has no primary key")
        }
        let keyColumns = try names.map { name in
            let lowercased = name.lowercased()
            guard let column = columns.first(where: { $0.name.lowercased() == lowercased }) else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such column: \(name) in view \(view)")
            }
            return column
        }
        return PrimaryKeyInfo(columns: keyColumns.map(\.name), rowIDColumn: nil, isRowID: false, columnInfos: keyColumns)
    }
}

extension Database {
    /// Runs `body`, an UPDATE or DELETE of `table`, and returns the number of changed rows.
    ///
    /// For a view, SQLite does not count the changes that its INSTEAD OF triggers make
    /// (`sqlite3_changes` is 0): the changes the triggers made are counted instead, so that a
    /// record whose table is a view knows whether its row was found.
    func changedRowCount(in table: String, _ body: () throws -> Void) throws -> Int {
        guard try viewExists(table) else {
            try body()
            return changesCount
        }
        let before = totalChangesCount
        try body()
        return totalChangesCount - before
    }
}
