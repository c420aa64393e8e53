// Requests by key, and the request-building methods of record types.

enum KeyFilter {
    /// The database value of a key component: encoded with the record type's strategies
    /// (dates, data, UUIDs) when the request fetches an `EncodableRecord`, table record or
    /// not.
    static func databaseValue(_ value: (any DatabaseValueConvertible)?, column: String, recordType: Any.Type) -> DatabaseValue {
        guard let value else { return .null }
        if let encodable = recordType as? any EncodableRecord.Type {
            return encodable.strategyEncodedValue(value, column: column)
        }
        return value.databaseValue
    }

    /// The columns of a key dictionary in the order of the unique key they form (the primary
    /// key, or a unique index): GRDB's SQL follows the key, not the dictionary. Columns beyond
    /// the key follow, sorted. Nil when the columns contain no unique key.
    static func orderedUniqueKeyColumns(_ db: Database, tableName: String, columns: some Collection<String>) throws -> [String]? {
        guard !columns.isEmpty, try db.table(tableName, hasUniqueKey: columns) else { return nil }
        let byLowercasedName = Dictionary(columns.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var keys = [try db.primaryKey(tableName).columns]
        keys += try db.indexes(on: tableName).filter(\.isUnique).map(\.columns)
        for key in keys {
            let lowercasedKey = key.map { $0.lowercased() }
            guard lowercasedKey.allSatisfy({ byLowercasedName[$0] != nil }) else { continue }
            let ordered = lowercasedKey.compactMap { byLowercasedName[$0] }
            let rest = Set(byLowercasedName.keys).subtracting(lowercasedKey).compactMap { byLowercasedName[$0] }.sorted()
            return ordered + rest
        }
        return columns.sorted()
    }

    /// `"id" = ?`, `"id" IN (?, ?)`, or `0` when no key can match (NULL keys never match).
    static func primaryKeys(_ keys: [(any DatabaseValueConvertible)?], tableName: String, recordType: Any.Type) -> DatabasePromise<SQLExpression> {
        let box = UncheckedSendable((keys, recordType))
        return DatabasePromise { db in
            let (keys, recordType) = box.value
            let column = try db.singlePrimaryKeyColumn(tableName)
            let values = keys
                .map { databaseValue($0, column: column, recordType: recordType) }
                .filter { !$0.isNull }
            return SQLExpression.inList(SQLExpression(.column(column)), values.map { SQLExpression(.value($0)) })
        }
    }

    /// `("a" = ?) AND ("b" = ?)`, joined with `OR` for several keys; the columns must be a
    /// unique key of the table.
    static func uniqueKeys(_ keys: [[String: (any DatabaseValueConvertible)?]], tableName: String, recordType: Any.Type) -> DatabasePromise<SQLExpression> {
        let box = UncheckedSendable((keys, recordType))
        return DatabasePromise { db in
            let (keys, recordType) = box.value
            var ordered: [[String]: [String]] = [:]
            var terms: [SQLExpression] = []
            for key in keys {
                let sortedColumns = key.keys.sorted()
                let columns: [String]
                if let known = ordered[sortedColumns] {
                    columns = known
                } else {
                    guard let keyColumns = try orderedUniqueKeyColumns(db, tableName: tableName, columns: sortedColumns) else {
                        throw DatabaseError(
                            resultCode: .SQLITE_MISUSE,
                            message: "table \(tableName.quotedDatabaseIdentifier) has no unique key on column(s) \(sortedColumns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))")
                    }
                    ordered[sortedColumns] = keyColumns
                    columns = keyColumns
                }
                let values = columns.map { databaseValue(key[$0]!, column: $0, recordType: recordType) }
                if values.contains(where: \.isNull) { continue }
                terms.append(.associative(.and, zip(columns, values).map {
                    SQLExpression.compare(.equal, SQLExpression(.column($0)), SQLExpression(.value($1)))
                }))
            }
            return .associative(.or, terms)
        }
    }
}

// MARK: - Record types

extension TableRecord {
    /// The request of all rows of the table, with the record's selection.
    ///
    /// ```swift
    /// let players = try Player.all().fetchAll(db) // SELECT * FROM "player"
    /// ```
    public static func all() -> QueryInterfaceRequest<Self> {
        QueryInterfaceRequest(query: SQLQuery(tableName: databaseTableName, selection: databaseSelection.map(\.sqlSelection)))
    }

    /// The request of no row.
    public static func none() -> QueryInterfaceRequest<Self> { all().none() }

    /// The request with the given result columns.
    public static func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> { all().select(selection) }

    /// The request with the given result columns.
    public static func select(_ selection: [any SQLSelectable]) -> QueryInterfaceRequest<Self> { all().select(selection) }

    /// The request with the given result columns, fetching `type`.
    ///
    /// ```swift
    /// let maxScore = try Player.select(max(Column("score")), as: Int.self).fetchOne(db)
    /// ```
    public static func select<T>(_ selection: any SQLSelectable..., as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(selection, as: type)
    }

    /// The request with the given result columns, fetching `type`.
    public static func select<T>(_ selection: [any SQLSelectable], as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(selection, as: type)
    }

    /// The request with result columns from raw SQL.
    public static func select(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<Self> {
        all().select(sql: sql, arguments: arguments)
    }

    /// The request with result columns from an SQL literal.
    public static func select(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> {
        all().select(literal: sqlLiteral)
    }

    /// The request with result columns from raw SQL, fetching `type`.
    public static func select<T>(sql: String, arguments: StatementArguments = StatementArguments(), as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(sql: sql, arguments: arguments, as: type)
    }

    /// The request with result columns from an SQL literal, fetching `type`.
    public static func select<T>(literal sqlLiteral: SQL, as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().select(literal: sqlLiteral, as: type)
    }

    /// The request of the primary key columns.
    public static func selectPrimaryKey<T>(as type: T.Type = T.self) -> QueryInterfaceRequest<T> {
        all().selectPrimaryKey(as: type)
    }

    /// The request with result columns appended to the record's selection.
    public static func annotated(with selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> { all().annotated(with: selection) }

    /// The request with result columns appended to the record's selection.
    public static func annotated(with selection: [any SQLSelectable]) -> QueryInterfaceRequest<Self> { all().annotated(with: selection) }

    /// The request filtered by a condition.
    ///
    /// ```swift
    /// let players = try Player.filter(Column("score") > 1000).fetchAll(db)
    /// ```
    public static func filter(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<Self> { all().filter(predicate) }

    /// The request filtered by raw SQL.
    public static func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<Self> {
        all().filter(sql: sql, arguments: arguments)
    }

    /// The request filtered by an SQL literal.
    public static func filter(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> { all().filter(literal: sqlLiteral) }

    /// The request filtered by primary key.
    public static func filter(key: (some DatabaseValueConvertible)?) -> QueryInterfaceRequest<Self> { all().filter(key: key) }

    /// The request filtered by primary keys.
    public static func filter(keys: some Collection<some DatabaseValueConvertible>) -> QueryInterfaceRequest<Self> { all().filter(keys: keys) }

    /// The request filtered by a primary or unique key.
    public static func filter(key: [String: (any DatabaseValueConvertible)?]?) -> QueryInterfaceRequest<Self> { all().filter(key: key) }

    /// The request filtered by primary or unique keys.
    public static func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> QueryInterfaceRequest<Self> { all().filter(keys: keys) }

    /// The request sorted by the given terms.
    public static func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<Self> { all().order(orderings) }

    /// The request sorted by the given terms.
    public static func order(_ orderings: [any SQLOrderingTerm]) -> QueryInterfaceRequest<Self> { all().order(orderings) }

    /// The request sorted by raw SQL.
    public static func order(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryInterfaceRequest<Self> {
        all().order(sql: sql, arguments: arguments)
    }

    /// The request sorted by an SQL literal.
    public static func order(literal sqlLiteral: SQL) -> QueryInterfaceRequest<Self> { all().order(literal: sqlLiteral) }

    /// The request sorted by primary key.
    public static func orderByPrimaryKey() -> QueryInterfaceRequest<Self> { all().orderByPrimaryKey() }

    /// The request limited to `limit` rows, after `offset` rows.
    public static func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<Self> { all().limit(limit, offset: offset) }

    /// The request with its table named by an alias.
    public static func aliased(_ alias: TableAlias<Self>) -> QueryInterfaceRequest<Self> { all().aliased(alias) }
    /// A request whose table is referred to by `alias`.
    public static func aliased(_ alias: TableAlias<Void>) -> QueryInterfaceRequest<Self> { all().aliased(alias) }

    /// The request with a common table expression.
    public static func with<T>(_ cte: CommonTableExpression<T>) -> QueryInterfaceRequest<Self> { all().with(cte) }

    /// Updates all rows, and returns how many were changed.
    ///
    /// ```swift
    /// try Player.updateAll(db, Column("score").set(to: 0)) // UPDATE "player" SET "score" = ?
    /// ```
    @discardableResult
    public static func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: [ColumnAssignment]) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }

    /// Updates all rows, and returns how many were changed.
    @discardableResult
    public static func updateAll(_ db: Database, onConflict conflictResolution: Database.ConflictResolution? = nil, _ assignments: ColumnAssignment...) throws -> Int {
        try all().updateAll(db, onConflict: conflictResolution, assignments)
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// The request filtered by id.
    public static func filter(id: ID) -> QueryInterfaceRequest<Self> { all().filter(id: id) }

    /// The request filtered by ids.
    public static func filter(ids: some Collection<ID>) -> QueryInterfaceRequest<Self> { all().filter(ids: ids) }
}
