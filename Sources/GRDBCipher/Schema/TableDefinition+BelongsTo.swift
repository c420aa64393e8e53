// `belongsTo` foreign keys: the column returned by `TableDefinition.belongsTo(_:...)` is a
// placeholder until the SQL is generated, because its name, type and number of columns come
// from the primary key of the referenced table.

/// What `belongsTo` was asked for, and what it resolved to.
struct BelongsToRequest {
    var name: String
    var table: String?
    var onDelete: Database.ForeignKeyAction?
    var onUpdate: Database.ForeignKeyAction?
    var deferred: Bool
    var indexed: Bool
    /// Declared in `primaryKey { }`: the columns join the primary key, without an index.
    var inPrimaryKey: Bool
    /// The referenced table, as written in the SQL, once resolved.
    var resolvedTable: String?
    /// The referenced primary key columns, once resolved.
    var resolvedKey: [String]?

    var isResolved: Bool { resolvedTable != nil }
}

extension TableDefinition {
    /// Names and types the `belongsTo` columns after the referenced primary key: `team` →
    /// `"teamId" INTEGER REFERENCES "team"("id")`; a composite key gives one column per key
    /// column and a table constraint.
    func resolveBelongsTo(_ db: Database) throws {
        var selfReferences: [ColumnDefinition] = []
        // Other tables first: a self reference needs this table's primary key, which may be
        // made of foreign keys to other tables.
        for column in columns {
            guard let request = column.belongsTo, !request.isResolved else { continue }
            if let (table, key) = try referencedTable(request, db) {
                resolve(column, table: table, key: key)
            } else if selfReferenceName(request) != nil {
                selfReferences.append(column)
            } else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(request.table ?? request.name)")
            }
        }
        for column in selfReferences {
            guard let request = column.belongsTo, let table = selfReferenceName(request) else { continue }
            guard let key = declaredPrimaryKey else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "belongsTo(\"\(request.name)\"): the primary key of table \(name.quotedDatabaseIdentifier) is unknown")
            }
            resolve(column, table: table, key: key)
        }
    }

    /// An existing table the request refers to, with its primary key: the name as given
    /// (compared case-insensitively, written as given), or else its plural (written as the
    /// table is named). With `inTable`, only that table.
    private func referencedTable(_ request: BelongsToRequest, _ db: Database) throws -> (String, [(name: String, type: Database.ColumnType?)])? {
        var table: String?
        if let explicit = request.table {
            if try db.tableExists(explicit) { table = explicit }
        } else if try db.tableExists(request.name) {
            table = request.name
        } else {
            let plural = Inflections.default.pluralize(request.name)
            if plural != request.name, let existing = try db.existingTableName(plural) {
                table = existing
            }
        }
        guard let table else { return nil }
        let primaryKey = try db.primaryKey(table)
        guard let columnInfos = primaryKey.columnInfos else {
            return (table, [(Column.rowID.name, .integer)])
        }
        return (table, columnInfos.map { info in
            (info.name, info.type.isEmpty ? nil : Database.ColumnType(rawValue: info.type))
        })
    }

    /// The table name to write when the request refers to the table being defined (under its
    /// name or its plural), or nil.
    private func selfReferenceName(_ request: BelongsToRequest) -> String? {
        let target = request.table ?? request.name
        if target.lowercased() == name.lowercased() { return target }
        if request.table == nil, Inflections.default.pluralize(target).lowercased() == name.lowercased() { return name }
        return nil
    }

    private func resolve(_ column: ColumnDefinition, table: String, key: [(name: String, type: Database.ColumnType?)]) {
        guard var request = column.belongsTo else { return }
        request.resolvedTable = table
        request.resolvedKey = key.map(\.name)
        column.belongsTo = request
        func columnName(_ keyColumn: String) -> String {
            // As GRDB, a hidden rowid gives `<name>Id` (`shelfId`), not `shelfRowid` (DDL-1).
            if keyColumn.lowercased() == Column.rowID.name { return request.name + "Id" }
            return request.name + keyColumn.prefix(1).uppercased() + keyColumn.dropFirst()
        }
        if key.count == 1 {
            column.name = columnName(key[0].name)
            column.type = key[0].type
            column.references.insert(ColumnReference(
                table: table, column: key[0].name, onDelete: request.onDelete,
                onUpdate: request.onUpdate, deferred: request.deferred), at: 0)
        } else {
            column.expansion = key.map { keyColumn in
                let expanded = ColumnDefinition(name: columnName(keyColumn.name), type: keyColumn.type)
                expanded.notNullConflict = column.notNullConflict
                return expanded
            }
        }
    }

    /// The `FOREIGN KEY` constraints of composite `belongsTo` foreign keys, which come after
    /// the other table constraints.
    var belongsToTableConstraints: [String] {
        columns.compactMap { column in
            guard let expansion = column.expansion, let request = column.belongsTo,
                  let table = request.resolvedTable else { return nil }
            return "FOREIGN KEY (" + expansion.map(\.name.quotedDatabaseIdentifier).joined(separator: ", ") + ") "
                + foreignKeyClause(
                    table: table, columns: request.resolvedKey, onDelete: request.onDelete,
                    onUpdate: request.onUpdate, deferred: request.deferred)
        }
    }
}
