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
            let plural = Inflection.plural(request.name)
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
        if request.table == nil, Inflection.plural(target).lowercased() == name.lowercased() { return name }
        return nil
    }

    private func resolve(_ column: ColumnDefinition, table: String, key: [(name: String, type: Database.ColumnType?)]) {
        guard var request = column.belongsTo else { return }
        request.resolvedTable = table
        request.resolvedKey = key.map(\.name)
        column.belongsTo = request
        func columnName(_ keyColumn: String) -> String {
            request.name + keyColumn.prefix(1).uppercased() + keyColumn.dropFirst()
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

/// English plurals of table names, for `belongsTo("team")` to find the table `teams`.
enum Inflection {
    /// Words that are their own plural.
    private static let uncountable: Set<String> = [
        "equipment", "information", "rice", "money", "species", "series", "fish", "sheep",
        "deer", "jeans", "police", "news", "metadata",
    ]

    private static let irregular: [String: String] = [
        "person": "people", "man": "men", "woman": "women", "child": "children",
        "mouse": "mice", "goose": "geese", "tooth": "teeth", "foot": "feet", "ox": "oxen",
    ]

    /// Suffix rules, first match wins: (suffix, letters to drop, replacement).
    private static let suffixRules: [(suffix: String, drop: Int, add: String)] = [
        ("quiz", 0, "zes"),
        ("matrix", 2, "ices"), ("vertex", 2, "ices"), ("index", 2, "ices"),
        ("octopus", 2, "i"), ("virus", 2, "i"),
        ("alias", 0, "es"), ("status", 0, "es"), ("bus", 0, "es"),
        ("buffalo", 0, "es"), ("tomato", 0, "es"), ("potato", 0, "es"), ("hero", 0, "es"),
        ("sis", 2, "es"), ("axis", 2, "es"),
        ("x", 0, "es"), ("ch", 0, "es"), ("sh", 0, "es"), ("ss", 0, "es"), ("zz", 0, "es"),
        ("lf", 1, "ves"), ("rf", 1, "ves"),
        ("tum", 2, "a"), ("ium", 2, "a"),
    ]

    /// The plural of a word, keeping the case of its beginning: `team` → `teams`,
    /// `category` → `categories`, `box` → `boxes`, `person` → `people`. A word that already ends
    /// in `s` is returned as is.
    static func plural(_ word: String) -> String {
        let lowercased = word.lowercased()
        if word.isEmpty || uncountable.contains(lowercased) { return word }
        if let plural = irregular[lowercased] {
            return String(word.prefix(1)) + plural.dropFirst()
        }
        for rule in suffixRules where lowercased.hasSuffix(rule.suffix) {
            return word.dropLast(rule.drop) + rule.add
        }
        // knife → knives, but not giraffe
        if lowercased.hasSuffix("fe"), !lowercased.hasSuffix("ffe") {
            return word.dropLast(2) + "ves"
        }
        // category → categories, soliloquy → soliloquies; day → days
        if lowercased.hasSuffix("y") {
            let beforeY = lowercased.dropLast().last
            if lowercased.hasSuffix("quy") || (beforeY.map { !"aeiou".contains($0) } ?? false) {
                return word.dropLast() + "ies"
            }
        }
        if lowercased.hasSuffix("s") { return word }
        return word + "s"
    }
}
