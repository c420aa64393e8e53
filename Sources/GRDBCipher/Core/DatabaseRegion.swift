/// A part of the database: tables, some of their columns, some of their rows.
///
/// A region tells which changes matter to a request: the region of
/// `SELECT name FROM player WHERE id = 1` is the `name` and `id` columns of the `player` table,
/// and a change of the `score` column does not touch it.
///
/// ```swift
/// let region = try Player.select(Column("name")).databaseRegion(db)
/// print(region) // player(id,name)
/// region.isModified(byEventsOfKind: .update(tableName: "player", columnNames: ["score"])) // false
/// ```
///
/// Table and column names compare without case: `Table("PLAYER")` and `Table("player")` have
/// equal regions. Regions are built from what SQLite reports when it compiles a statement (see
/// ``Statement/databaseRegion``), and narrowed to rows when a query interface request filters on
/// the primary key of a rowid table.
public struct DatabaseRegion: Sendable {
    /// The region of one table: all columns (nil) or some, all rows (nil) or some.
    struct TableRegion: Equatable, Sendable {
        /// The name as first given, for the description.
        var name: String
        /// Lowercased column names; nil means every column.
        var columns: Set<String>?
        /// Rowids; nil means every row.
        var rowIDs: Set<Int64>?
        /// The columns as first spelled (the table's declaration, as SQLite reports them), by
        /// lowercased name, for the description (PRG-7).
        var spellings: [String: String] = [:]

        static func == (lhs: TableRegion, rhs: TableRegion) -> Bool {
            lhs.columns == rhs.columns && lhs.rowIDs == rhs.rowIDs
        }

        mutating func formUnion(_ other: TableRegion) {
            spellings.merge(other.spellings) { first, _ in first }
            if let columns, let otherColumns = other.columns {
                self.columns = columns.union(otherColumns)
            } else {
                columns = nil
            }
            if let rowIDs, let otherRowIDs = other.rowIDs {
                self.rowIDs = rowIDs.union(otherRowIDs)
            } else {
                rowIDs = nil
            }
        }
    }

    /// Table regions by lowercased table name; nil is the full database.
    private(set) var tables: [String: TableRegion]? {
        didSet { hasRowIDs = Self.someTableHasRowIDs(tables) }
    }

    /// Whether some table of the region is restricted to some rows. Without, every event
    /// may modify the region (``isModified(by:)`` is true), and nothing needs a look-up.
    private var hasRowIDs = false

    private static func someTableHasRowIDs(_ tables: [String: TableRegion]?) -> Bool {
        tables?.values.contains { $0.rowIDs != nil } ?? false
    }

    /// The empty region.
    ///
    /// ```swift
    /// var region = DatabaseRegion()
    /// region.formUnion(Table("player").databaseRegion(db))
    /// ```
    public init() {
        tables = [:]
    }

    private init(tables: [String: TableRegion]?) {
        self.tables = tables
        hasRowIDs = Self.someTableHasRowIDs(tables)
    }

    /// The region that covers every table, column and row: any change modifies it.
    public static let fullDatabase = DatabaseRegion(tables: nil)

    /// Removes tables, by lowercased name.
    mutating func removeTables(named names: Set<String>) {
        guard !names.isEmpty, tables != nil else { return }
        for name in names {
            tables![name] = nil
        }
    }

    /// The region of a whole table.
    init(table: String) {
        tables = [table.asciiLowercased(): TableRegion(name: table, columns: nil, rowIDs: nil)]
    }

    /// The region of some columns of a table (every column if `columns` is nil).
    init(table: String, columns: Set<String>?, rowIDs: Set<Int64>? = nil) {
        var region = TableRegion(name: table, columns: columns.map { Set($0.map { $0.asciiLowercased() }) }, rowIDs: rowIDs)
        for column in columns ?? [] where region.spellings[column.asciiLowercased()] == nil {
            region.spellings[column.asciiLowercased()] = column
        }
        tables = [table.asciiLowercased(): region]
        hasRowIDs = rowIDs != nil
    }

    /// Whether the region is empty: no change ever modifies it.
    public var isEmpty: Bool {
        guard let tables else { return false }
        return tables.isEmpty
    }

    /// Whether the region covers the whole database.
    public var isFullDatabase: Bool {
        tables == nil
    }

    /// The union of two regions.
    ///
    /// ```swift
    /// let region = Table("player").databaseRegion(db).union(Table("team").databaseRegion(db))
    /// ```
    public func union(_ other: DatabaseRegion) -> DatabaseRegion {
        var region = self
        region.formUnion(other)
        return region
    }

    /// Adds another region to this one.
    public mutating func formUnion(_ other: DatabaseRegion) {
        guard var tables, let otherTables = other.tables else {
            tables = nil
            return
        }
        for (key, otherRegion) in otherTables {
            if var region = tables[key] {
                region.formUnion(otherRegion)
                tables[key] = region
            } else {
                tables[key] = otherRegion
            }
        }
        self.tables = tables
    }

    /// Adds a column (or the whole table when `column` is empty) to the region.
    mutating func insert(table: String, column: String) {
        guard tables != nil else { return }
        let key = table.asciiLowercased()
        if var region = tables![key] {
            if column.isEmpty {
                region.columns = nil
            } else {
                let lowercased = column.asciiLowercased()
                region.columns?.insert(lowercased)
                if region.spellings[lowercased] == nil { region.spellings[lowercased] = column }
            }
            tables![key] = region
        } else {
            var region = TableRegion(name: table, columns: column.isEmpty ? nil : [column.asciiLowercased()], rowIDs: nil)
            if !column.isEmpty { region.spellings[column.asciiLowercased()] = column }
            tables![key] = region
        }
    }

    /// The region restricted to some rows of a table; other tables are unchanged.
    func restricted(table: String, toRowIDs rowIDs: Set<Int64>) -> DatabaseRegion {
        guard var tables, var region = tables[table.asciiLowercased()] else { return self }
        region.rowIDs = region.rowIDs.map { $0.intersection(rowIDs) } ?? rowIDs
        tables[table.asciiLowercased()] = region
        return DatabaseRegion(tables: tables)
    }

    /// Whether changes of this kind may modify the region: the table is in the region, and for
    /// updates, one of the updated columns is.
    ///
    /// ```swift
    /// let region = try Player.select(Column("name")).databaseRegion(db)
    /// region.isModified(byEventsOfKind: .insert(tableName: "player"))                         // true
    /// region.isModified(byEventsOfKind: .update(tableName: "player", columnNames: ["score"])) // false
    /// ```
    public func isModified(byEventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if tables == nil { return true }
        guard let region = tableRegion(named: eventKind.tableName) else { return false }
        switch eventKind {
        case .insert, .delete:
            return true
        case let .update(tableName: _, columnNames: updated):
            // An update of no column modifies nothing, as GRDB (PRG-8).
            if updated.isEmpty { return false }
            guard let columns = region.columns else { return true }
            return updated.contains { columns.contains($0.asciiLowercased()) }
        }
    }

    /// The region of a table, by name (case-insensitive). Asked before each statement that
    /// writes, for each observation: a few tables are compared without hashing.
    private func tableRegion(named name: String) -> TableRegion? {
        guard let tables else { return nil }
        if tables.count <= 4 {
            for (key, region) in tables where key.equalsIgnoringASCIICase(name) {
                return region
            }
            return nil
        }
        return tables[name.asciiLowercased()]
    }

    /// Whether a change may modify the region, knowing that its kind may: false only when the
    /// region covers some rows of the event's table, and the changed row is not one of them.
    ///
    /// Use it after ``isModified(byEventsOfKind:)``: events on tables outside the region answer
    /// true.
    public func isModified(by event: DatabaseEvent) -> Bool {
        // Only rows restrict a region: without them, the answer needs no table name.
        guard hasRowIDs, let tables, let region = tables[event.tableName.asciiLowercased()], let rowIDs = region.rowIDs else {
            return true
        }
        return rowIDs.contains(event.rowID)
    }
}

extension DatabaseRegion: Equatable {
    public static func == (lhs: DatabaseRegion, rhs: DatabaseRegion) -> Bool {
        lhs.tables == rhs.tables
    }
}

extension DatabaseRegion: CustomStringConvertible {
    /// `full database`, `empty`, or the tables sorted by name, each with its columns as the
    /// table declares them (`*` for all) and rowids when the region has some:
    /// `player(id,name,teamId)[1,2],team(*)`.
    public var description: String {
        guard let tables else { return "full database" }
        if tables.isEmpty { return "empty" }
        return tables.sorted { $0.key < $1.key }.map { _, region in
            var text = region.name
            if let columns = region.columns {
                text += "(" + columns.sorted().map { region.spellings[$0] ?? $0 }.joined(separator: ",") + ")"
            } else {
                text += "(*)"
            }
            if let rowIDs = region.rowIDs {
                text += "[" + rowIDs.sorted().map(String.init).joined(separator: ",") + "]"
            }
            return text
        }.joined(separator: ",")
    }
}

// MARK: - DatabaseRegionConvertible

/// A type that tells the database region it depends on: requests, tables, regions.
///
/// ```swift
/// let observation = DatabaseRegionObservation(tracking: Player.all(), Table("team"))
/// ```
public protocol DatabaseRegionConvertible: Sendable {
    /// The region, computed with the database at hand.
    func databaseRegion(_ db: Database) throws -> DatabaseRegion
}

extension DatabaseRegionConvertible where Self == DatabaseRegion {
    /// The full database.
    public static var fullDatabase: Self { DatabaseRegion.fullDatabase }
}

extension DatabaseRegion: DatabaseRegionConvertible {
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion { self }
}

/// A type-erased ``DatabaseRegionConvertible``.
///
/// ```swift
/// let region = AnyDatabaseRegionConvertible { db in
///     try Player.all().databaseRegion(db).union(Table("team").databaseRegion(db))
/// }
/// ```
public struct AnyDatabaseRegionConvertible: DatabaseRegionConvertible {
    private let region: @Sendable (Database) throws -> DatabaseRegion

    /// Wraps a closure that computes a region.
    public init(_ region: @escaping @Sendable (Database) throws -> DatabaseRegion) {
        self.region = region
    }

    /// Wraps a region convertible value.
    public init(_ region: some DatabaseRegionConvertible) {
        self.region = { try region.databaseRegion($0) }
    }

    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        try region(db)
    }
}

extension Table: DatabaseRegionConvertible {
    /// The region of the whole table.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        DatabaseRegion(table: tableName)
    }
}

// MARK: - Requests

extension FetchRequest {
    /// The region the request reads: the tables and columns of its statement, as SQLite
    /// reports them when it compiles it.
    ///
    /// ```swift
    /// let region = try SQLRequest<Row>(sql: "SELECT name FROM player").databaseRegion(db)
    /// print(region) // player(name)
    /// ```
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        try makePreparedRequest(db, forSingleResult: false).statement.databaseRegion
    }
}

extension QueryInterfaceRequest {
    /// The region the request reads: the tables and columns of its statement, narrowed to
    /// rows when the request filters on the rowid primary key (`filter(id:)`, `filter(key:)`,
    /// `Column("id") == 1`...), and empty for a request that matches nothing (`none()`); with
    /// `including(all:)`, the tables and columns of the prefetch queries too.
    ///
    /// ```swift
    /// let region = try Player.filter(id: 1).databaseRegion(db)
    /// print(region) // player(id,name,score)[1]
    /// ```
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        // The statement's region is narrowed to rows (see RegionNarrowing).
        var region = try makePreparedRequest(db, forSingleResult: false).statement.databaseRegion
        // `including(all:)`: the tables of the prefetch queries too (none when the request
        // matches nothing).
        if query.prefetchesInTree && !region.isEmpty { region.formUnion(try query.prefetchRegion(db)) }
        return region
    }
}

/// What narrows the region of a query interface request's statement to rows: its filter on
/// the rowid primary key of its table (`filter(id:)`, `filter(key:)`, `Column("id") == 1`,
/// `=== 1`, `IN`, conditions joined with AND or OR), or a filter no row can match (`none()`,
/// `id == nil`, an empty `contains`, contradictory keys), which gives the empty region.
///
/// The region is narrowed only when the statement reads the table in its FROM clause alone:
/// not when the table is joined again (a self join), or read by a subquery, an SQL literal or
/// a common table expression, whose rows the filter does not restrict. Computed when the
/// region is asked for (by an observation), not at each fetch.
struct RegionNarrowing {
    /// The request's query, with its promises resolved.
    let query: SQLQuery

    func narrow(_ region: DatabaseRegion, _ db: Database) throws -> DatabaseRegion {
        guard let filter = try query.filterExpression(db) else { return region }
        if filter.isAlwaysFalse { return DatabaseRegion() }
        let tableName = query.tableName
        guard try db.tableExists(tableName),
              let rowIDColumn = try db.primaryKey(tableName).rowIDColumn,
              let rowIDs = filter.rowIDs(rowIDColumn: rowIDColumn, alias: query.alias)
        else {
            return region
        }
        if rowIDs.isEmpty { return DatabaseRegion() }
        guard try !query.mayReadRowsOutsideOfItsFilter(db) else { return region }
        return region.restricted(table: tableName, toRowIDs: rowIDs)
    }
}

extension SQLQuery {
    /// Whether the statement may read rows of its table that its filter does not restrict:
    /// the table joined again, common table expressions, subqueries and SQL literals anywhere.
    func mayReadRowsOutsideOfItsFilter(_ db: Database) throws -> Bool {
        if !statementCTEs.isEmpty { return true }
        var tableCount = 0
        var readsElsewhere = false
        try forEachRelation { relation in
            if relation.tableName.lowercased() == tableName.lowercased() { tableCount += 1 }
            if readsElsewhere { return }
            let expressions = try relation.filters.map { try $0.resolve(db) }
                + (relation.havings.map { try $0.resolve(db) })
                + (relation.grouping?.resolve(db) ?? [])
            if expressions.contains(where: \.mayReadTables) {
                readsElsewhere = true
                return
            }
            for selection in try relation.resolvedSelection(db) {
                switch selection.kind {
                case .literal: readsElsewhere = true
                case .expression(let expression), .aliased(let expression, _): readsElsewhere = readsElsewhere || expression.mayReadTables
                case .allColumns, .qualifiedAllColumns, .allColumnsExcluding, .joined: break
                }
            }
            for ordering in try relation.ordering?.resolve(db) ?? [] {
                switch ordering.kind {
                case .literal: readsElsewhere = true
                case .expression(let expression), .asc(let expression), .desc(let expression),
                     .ascNullsLast(let expression), .descNullsFirst(let expression):
                    readsElsewhere = readsElsewhere || expression.mayReadTables
                }
            }
        }
        return readsElsewhere || tableCount > 1
    }
}

extension SQLExpression {
    /// Whether the expression may read a table: a subquery, or SQL text.
    var mayReadTables: Bool {
        switch kind {
        case .literal, .inSubquery, .inTable, .exists, .subquery:
            return true
        case .value, .column, .qualifiedColumn, .detachedColumn, .constant, .table, .aliasExists:
            return false
        case .unary(_, let expression), .cast(let expression, _), .collated(let expression, _):
            return expression.mayReadTables
        case let .binary(_, lhs, rhs):
            return lhs.mayReadTables || rhs.mayReadTables
        case .associative(_, let expressions):
            return expressions.contains { $0.mayReadTables }
        case let .pattern(_, lhs, rhs, escape, _):
            return lhs.mayReadTables || rhs.mayReadTables || (escape?.mayReadTables ?? false)
        case let .between(expression, lower, upper, _):
            return expression.mayReadTables || lower.mayReadTables || upper.mayReadTables
        case let .inList(expression, list, _):
            return expression.mayReadTables || list.contains { $0.mayReadTables }
        case let .function(_, arguments, _, _, filter):
            return arguments.contains { $0.mayReadTables } || (filter?.mayReadTables ?? false)
        case let .orderedAggregate(_, argument, _, filter):
            return argument.mayReadTables || (filter?.mayReadTables ?? false)
        case .countAll(let filter):
            return filter?.mayReadTables ?? false
        }
    }

    /// Whether the expression is a constant false, as `none()` filters.
    var isAlwaysFalse: Bool {
        switch kind {
        case let .value(value):
            return Int64.fromDatabaseValue(value) == 0
        case let .associative(op, terms) where op == .and:
            return terms.contains { $0.isAlwaysFalse }
        default:
            return false
        }
    }

    /// The rowids the expression is limited to, when a condition on the rowid makes it
    /// precise; nil when any row may match.
    func rowIDs(rowIDColumn: String, alias: TableAliasBase) -> Set<Int64>? {
        func isRowID(_ expression: SQLExpression) -> Bool {
            let name: String
            switch expression.kind {
            case let .column(column): name = column
            case let .qualifiedColumn(column, columnAlias) where columnAlias === alias: name = column
            default: return false
            }
            let lowercased = name.asciiLowercased()
            return lowercased == rowIDColumn.asciiLowercased() || ["rowid", "oid", "_rowid_"].contains(lowercased)
        }
        // The rowids a value matches: none for NULL (a rowid is never NULL), one for an
        // integer, nil (any) for other values.
        func rowIDs(matching expression: SQLExpression) -> Set<Int64>? {
            guard case let .value(value) = expression.kind else { return nil }
            if value.isNull { return [] }
            return Int64.fromDatabaseValue(value).map { [$0] }
        }
        switch kind {
        case let .binary(op, lhs, rhs) where op == .equal || op == .is:
            if isRowID(lhs) { return rowIDs(matching: rhs) }
            if isRowID(rhs) { return rowIDs(matching: lhs) }
            return nil
        case let .inList(expression, list, negated: false):
            guard isRowID(expression) else { return nil }
            var values: Set<Int64> = []
            for item in list {
                guard let matching = rowIDs(matching: item) else { return nil }
                values.formUnion(matching)
            }
            return values
        case let .associative(op, terms) where op == .and:
            var result: Set<Int64>?
            for term in terms {
                guard let values = term.rowIDs(rowIDColumn: rowIDColumn, alias: alias) else { continue }
                result = result.map { $0.intersection(values) } ?? values
            }
            return result
        case let .associative(op, terms) where op == .or:
            var result: Set<Int64> = []
            for term in terms {
                guard let values = term.rowIDs(rowIDColumn: rowIDColumn, alias: alias) else { return nil }
                result.formUnion(values)
            }
            return result
        default:
            return nil
        }
    }
}

extension DatabaseCursor {
    /// The region the cursor reads.
    public var databaseRegion: DatabaseRegion { statement.databaseRegion }
}
