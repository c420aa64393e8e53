import CSQLCipher

/// A kind of change a statement may make, as a ``TransactionObserver`` is asked about it
/// before the statement runs (see ``TransactionObserver/observes(eventsOfKind:)``).
///
/// ```swift
/// func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
///     switch eventKind {
///     case .insert(let tableName), .delete(let tableName):
///         return tableName == "player"
///     case .update(let tableName, let columnNames):
///         return tableName == "player" && columnNames.contains("score")
///     }
/// }
/// ```
@frozen
public enum DatabaseEventKind: Sendable {
    /// Rows are inserted into the table.
    case insert(tableName: String)
    /// Rows of the table are deleted.
    case delete(tableName: String)
    /// Columns of rows of the table are updated.
    case update(tableName: String, columnNames: Set<String>)

    /// The table of the change.
    public var tableName: String {
        switch self {
        case let .insert(tableName: tableName): tableName
        case let .delete(tableName: tableName): tableName
        case let .update(tableName: tableName, columnNames: _): tableName
        }
    }

    /// The kind of the row events this kind of change produces.
    var eventKind: DatabaseEvent.Kind {
        switch self {
        case .insert: .insert
        case .delete: .delete
        case .update: .update
        }
    }
}

extension DatabaseEventKind: Equatable {}

/// A change of one row, given to ``TransactionObserver/databaseDidChange(with:)``.
///
/// The event is valid during the call only: keep a ``copy()`` to use it later.
///
/// ```swift
/// func databaseDidChange(with event: DatabaseEvent) {
///     if event.kind == .delete && event.tableName == "player" {
///         deletedPlayerIDs.insert(event.rowID)
///     }
/// }
/// ```
public struct DatabaseEvent {
    /// The kind of a row change.
    public enum Kind: CInt, Sendable {
        /// A row was inserted (`SQLITE_INSERT`).
        case insert = 18
        /// A row was deleted (`SQLITE_DELETE`).
        case delete = 9
        /// A row was updated (`SQLITE_UPDATE`).
        case update = 23
    }

    /// The kind of change.
    public let kind: Kind

    /// The rowid of the changed row.
    public let rowID: Int64

    /// The names, as SQLite gives them to the update hook (valid during the hook), or copied.
    private enum Names {
        case borrowed(database: UnsafePointer<CChar>, table: UnsafePointer<CChar>)
        case copied(database: String, table: String)
    }

    private let names: Names

    init(kind: Kind, rowID: Int64, databaseNameCString: UnsafePointer<CChar>, tableNameCString: UnsafePointer<CChar>) {
        self.kind = kind
        self.rowID = rowID
        names = .borrowed(database: databaseNameCString, table: tableNameCString)
    }

    private init(kind: Kind, rowID: Int64, databaseName: String, tableName: String) {
        self.kind = kind
        self.rowID = rowID
        names = .copied(database: databaseName, table: tableName)
    }

    /// The name of the database of the changed table: "main", "temp", or an attached database.
    public var databaseName: String {
        switch names {
        case let .borrowed(database: database, table: _): String(cString: database)
        case let .copied(database: database, table: _): database
        }
    }

    /// The name of the changed table.
    public var tableName: String {
        switch names {
        case let .borrowed(database: _, table: table): String(cString: table)
        case let .copied(database: _, table: table): table
        }
    }

    /// Whether the event is on this table (compared without case, as SQLite does).
    func isOnTable(lowercasedName: String) -> Bool {
        switch names {
        case let .borrowed(database: _, table: table):
            return lowercasedName.withCString { sqlite3_stricmp($0, table) == 0 }
        case let .copied(database: _, table: table):
            return table.asciiLowercased() == lowercasedName
        }
    }

    /// A copy of the event that stays valid after the observer's callback returns.
    public func copy() -> DatabaseEvent {
        switch names {
        case .copied: self
        case let .borrowed(database: database, table: table):
            DatabaseEvent(kind: kind, rowID: rowID, databaseName: String(cString: database), tableName: String(cString: table))
        }
    }
}

extension DatabaseEvent: CustomStringConvertible {
    public var description: String {
        "\(kind) \(tableName)(\(rowID))"
    }
}
