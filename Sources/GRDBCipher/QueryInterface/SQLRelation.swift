// The relation tree: a query (`SQLQuery`) has child relations, joined (`SQLJoin`) or prefetched
// by a second query (`SQLPrefetch`). One generator walks the tree: it names the aliases, writes
// the SELECT, and builds the row adapter that splits each joined row into scopes.
//
//   Book.including(required: Book.author.including(optional: Person.country))
//
//   book ─ JOIN person "author" ─ LEFT JOIN country "country"
//
//   SELECT "book".*, "person".*, "country".* FROM "book"
//   JOIN "person" ON "person"."id" = "book"."authorId"
//   LEFT JOIN "country" ON "country"."code" = "person"."countryCode"

/// How an association is joined to a request: the public joining methods.
public enum _SQLJoinMode: Sendable {
    case includingRequired, includingOptional, includingAll
    case joiningRequired, joiningOptional
    case annotatingRequired, annotatingOptional
    /// The LEFT JOIN of an association aggregate, grouped by the request's primary key.
    case aggregating

    var isRequired: Bool {
        switch self {
        case .includingRequired, .joiningRequired, .annotatingRequired: return true
        case .includingOptional, .joiningOptional, .annotatingOptional, .includingAll, .aggregating: return false
        }
    }
}

/// The condition that links a child relation (right) to its parent (left).
struct SQLJoinCondition: Sendable {
    enum Kind: Sendable {
        /// A foreign key. `originIsLeft`: the key's columns are in the left table (belongsTo);
        /// otherwise in the right table (hasMany, hasOne).
        case foreignKey(SQLForeignKeyRequest, originIsLeft: Bool)
        /// An expression of two placeholder aliases, which stand for the left and right tables
        /// when the SQL is written (associations of common table expressions).
        case expression(SQLExpression, left: TableAliasBase, right: TableAliasBase)
    }

    var kind: Kind

    /// The condition seen from the other side.
    var reversed: SQLJoinCondition {
        switch kind {
        case let .foreignKey(request, originIsLeft):
            return SQLJoinCondition(kind: .foreignKey(request, originIsLeft: !originIsLeft))
        case let .expression(expression, left, right):
            return SQLJoinCondition(kind: .expression(expression, left: right, right: left))
        }
    }

    /// Whether the condition is a foreign key (not an expression).
    var isForeignKey: Bool {
        if case .foreignKey = kind { return true }
        return false
    }

    /// Whether both conditions are the same foreign key, seen from the same side. Conditions on
    /// expressions are never the same: they cannot be compared.
    func isSameForeignKey(as other: SQLJoinCondition) -> Bool {
        guard case let .foreignKey(request, originIsLeft) = kind,
              case let .foreignKey(otherRequest, otherOriginIsLeft) = other.kind
        else { return false }
        return originIsLeft == otherOriginIsLeft
            && request.originTable.lowercased() == otherRequest.originTable.lowercased()
            && request.destinationTable.lowercased() == otherRequest.destinationTable.lowercased()
            && request.foreignKey == otherRequest.foreignKey
    }

    /// The pairs of columns that must be equal, (left column, right column), or nil for an
    /// expression condition.
    func columnMapping(_ db: Database) throws -> [(left: String, right: String)]? {
        guard case let .foreignKey(request, originIsLeft) = kind else { return nil }
        let mapping = try request.resolve(db)
        return originIsLeft
            ? mapping.map { (left: $0.origin, right: $0.destination) }
            : mapping.map { (left: $0.destination, right: $0.origin) }
    }

    /// `"right"."a" = "left"."b"`, one term per column, joined with AND.
    func expression(_ db: Database, left: TableAliasBase, right: TableAliasBase) throws -> SQLExpression {
        switch kind {
        case .foreignKey:
            let mapping = try columnMapping(db) ?? []
            return .associative(.and, mapping.map {
                SQLExpression(.binary(.equal, SQLExpression(.qualifiedColumn($0.right, right)), SQLExpression(.qualifiedColumn($0.left, left))))
            })
        case let .expression(expression, _, _):
            return expression
        }
    }
}

/// A child relation joined to its parent.
struct SQLJoin: Sendable {
    /// `JOIN` (required) or `LEFT JOIN`.
    var isRequired: Bool
    /// Whether the columns of the relation are fetched in a scope.
    var isIncluded: Bool
    /// Whether the relation is an intermediate table of a through association (an empty
    /// scope): merged into another join of the same key, it brings its filters and joins, not
    /// a selection or an ordering.
    var isThroughStep = false
    /// The name of the scope.
    var key: String
    var condition: SQLJoinCondition
    var relation: SQLQuery
}

/// A child relation fetched by a second query, keyed on the parents' rows.
struct SQLPrefetch: Sendable {
    var key: String
    var association: _SQLAssociation
}

// MARK: - Tree walk

extension SQLQuery {
    /// Whether the query joins other tables.
    var hasJoins: Bool { !joins.isEmpty }

    /// The query and its joined relations, depth-first, with the path of join indexes to each.
    func forEachRelation(_ body: (SQLQuery) throws -> Void) rethrows {
        try body(self)
        for join in joins {
            try join.relation.forEachRelation(body)
        }
    }

    /// The table of an alias of the relation tree, or of an alias merged into one, or nil.
    func tableName(ofAlias alias: TableAliasBase) -> String? {
        var table: String?
        var merged: [(merged: TableAliasBase, into: TableAliasBase)] = []
        forEachRelation { relation in
            if relation.alias === alias { table = relation.tableName }
            merged += relation.mergedAliases
        }
        if let table { return table }
        guard let into = merged.first(where: { $0.merged === alias })?.into, into !== alias else { return nil }
        return tableName(ofAlias: into)
    }

    /// Names the aliases of the joined tables before the SQL is written: a user's name stays;
    /// a table that appears once is named after itself; tables that appear several times are
    /// numbered (`"person1"`, `"person2"`), as GRDB does.
    func nameJoinedAliases(_ context: inout SQLGenerationContext) {
        guard hasJoins else { return }
        var relations: [(alias: TableAliasBase, tableName: String)] = []
        var merged: [(merged: TableAliasBase, into: TableAliasBase)] = []
        forEachRelation {
            relations.append(($0.alias, $0.tableName))
            merged += $0.mergedAliases
        }
        let mergedAliasIDs = Set(merged.map { ObjectIdentifier($0.merged) })
        var counts: [String: Int] = [:]
        var userNames = Set<String>()
        for relation in relations {
            if let name = relation.alias.userName {
                userNames.insert(name.lowercased())
            } else {
                counts[relation.tableName.lowercased(), default: 0] += 1
            }
        }
        for relation in relations {
            if let name = relation.alias.userName {
                context.assignName(name, to: relation.alias, tableName: relation.tableName)
                continue
            }
            if mergedAliasIDs.contains(ObjectIdentifier(relation.alias)) { continue }
            let table = relation.tableName
            if counts[table.lowercased()] == 1, !userNames.contains(table.lowercased()), !context.isNameTaken(table) {
                context.assignName(table, to: relation.alias, tableName: table)
            } else {
                var suffix = 1
                while context.isNameTaken("\(table)\(suffix)") || userNames.contains("\(table)\(suffix)".lowercased()) { suffix += 1 }
                context.assignName("\(table)\(suffix)", to: relation.alias, tableName: table)
            }
        }
        // Merged relations take the name of the relation they were merged into.
        for (mergedAlias, into) in merged {
            if let name = context.resolvedName(of: into), let table = context.tableName(of: into) {
                context.assignName(name, to: mergedAlias, tableName: table)
            }
        }
    }

    /// Throws unless every required join is chained to a required one, or to the query
    /// itself: `joining(optional: Book.author.including(required: Person.country))` is a
    /// fatal error ("Not implemented") in GRDB, a thrown error here. So is a joined
    /// association refined with aggregates, a grouping, `having`, a limit or `distinct`
    /// (GRDB: "can only be used with `including(all:)`").
    func checkRequiredJoins(behindOptional: Bool = false) throws {
        for join in joins {
            if behindOptional && join.isRequired {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "Not implemented: chaining a required association behind an optional association"
                        + " (\(join.key.quotedDatabaseIdentifier) on \(tableName.quotedDatabaseIdentifier))")
            }
            let relation = join.relation
            if relation.groupsForAggregates || relation.grouping != nil || !relation.havings.isEmpty
                || relation.limit != nil || relation.isDistinct
            {
                // GRDB stops the program: such associations need a query of their own.
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "association aggregates, limit, distinct, group and having are only supported in associations fetched with including(all:)"
                        + " (association \(join.key.quotedDatabaseIdentifier) of \(tableName.quotedDatabaseIdentifier))")
            }
            try relation.checkRequiredJoins(behindOptional: behindOptional || !join.isRequired)
        }
    }

    /// The result columns of the joined relations whose columns are fetched, depth-first.
    func joinedSelectionSQL(_ context: inout SQLGenerationContext) throws -> [String] {
        var parts: [String] = []
        for join in joins {
            if join.isIncluded {
                let selection = try join.relation.resolvedSelection(context.db)
                if !selection.isEmpty {
                    let sql = try context.withCurrentAlias(join.relation.alias) { context in
                        try selection.selectionSQL(&context)
                    }
                    parts.append(sql)
                }
            }
            parts += try join.relation.joinedSelectionSQL(&context)
        }
        return parts
    }

    /// ` JOIN "table" ON ...` for each joined relation, depth-first.
    func joinsSQL(_ context: inout SQLGenerationContext) throws -> String {
        var sql = ""
        for join in joins {
            let relation = join.relation
            let aliasName = context.name(of: relation.alias, tableName: relation.tableName)
            sql += join.isRequired ? " JOIN " : " LEFT JOIN "
            sql += relation.fromSQL(aliasName)
            if case let .expression(_, leftPlaceholder, rightPlaceholder) = join.condition.kind {
                // The placeholders of the condition take the names of the two tables.
                if let name = context.resolvedName(of: alias) {
                    context.assignName(name, to: leftPlaceholder, tableName: tableName)
                }
                context.assignName(aliasName, to: rightPlaceholder, tableName: relation.tableName)
            }
            var terms: [SQLExpression] = []
            let joinCondition = try join.condition.expression(context.db, left: alias, right: relation.alias)
            // A join without condition (`association(to: cte)`) has no ON, or the filters
            // alone, as GRDB (CTE-2).
            if !joinCondition.isTrueConstant { terms.append(joinCondition) }
            terms += try relation.filters.map { try $0.resolve(context.db) }
            if !terms.isEmpty {
                let condition = SQLExpression.associative(.and, terms)
                sql += try context.withCurrentAlias(relation.alias) { context in
                    try " ON " + condition.sql(&context)
                }
            }
            sql += try relation.joinsSQL(&context)
        }
        return sql
    }

    /// The ordering terms of the joined relations, depth-first.
    func joinedOrderingTerms(_ context: inout SQLGenerationContext, reversed: Bool) throws -> [String] {
        var parts: [String] = []
        for join in joins {
            let relation = join.relation
            if let ordering = relation.ordering {
                var terms = try ordering.resolve(context.db)
                if relation.isReversed != reversed {
                    terms = try terms.map { try $0.reversed }
                }
                parts += try context.withCurrentAlias(relation.alias) { context in
                    try terms.map { try $0.sql(&context) }
                }
            }
            // A reversed association reverses the associations it includes too (ASC-5).
            parts += try relation.joinedOrderingTerms(&context, reversed: relation.isReversed != reversed)
        }
        return parts
    }

    /// The selection, with the deferred one resolved, and the columns of annotations
    /// qualified with the alias of their joined table.
    func resolvedSelection(_ db: Database) throws -> [SQLSelection] {
        let selection = try deferredSelection?.resolve(db) ?? self.selection
        guard selection.contains(where: { if case .joined = $0.kind { true } else { false } }) else { return selection }
        return try resolveJoinedSelections(db, selection, path: [])
    }

    /// `selection` belongs to the relation joined through `path`: its annotations are
    /// further down that path.
    private func resolveJoinedSelections(_ db: Database, _ selection: [SQLSelection], path: [String]) throws -> [SQLSelection] {
        var resolved: [SQLSelection] = []
        for item in selection {
            guard case let .joined(subpath, promise) = item.kind else {
                resolved.append(item)
                continue
            }
            let fullPath = path + subpath
            guard let relation = joinedRelation(at: fullPath[...]) else { continue }
            resolved += try resolveJoinedSelections(db, promise.resolve(db), path: fullPath).map { $0.qualified(with: relation.alias) }
        }
        return resolved
    }

    /// The relation joined through a path of join keys.
    private func joinedRelation(at path: ArraySlice<String>) -> SQLQuery? {
        guard let key = path.first else { return self }
        return joins.first { $0.key == key }?.relation.joinedRelation(at: path.dropFirst())
    }

    // MARK: Row adapter

    /// The adapter that gives each included relation its scope, or nil when no relation is
    /// included.
    func rowAdapter(_ db: Database) throws -> (any RowAdapter)? {
        guard containsIncludedJoin else { return nil }
        var index = 0
        return try scopedAdapter(db, index: &index, ctes: statementCTEs)
    }

    /// (Annotations alone need no adapter: their columns are among the relation's own, and
    /// rows are not adapted, as in GRDB.)
    var containsIncludedJoin: Bool {
        joins.contains { $0.isIncluded || $0.relation.containsIncludedJoin }
    }

    /// The adapter of this relation's columns, from `index`, with the scopes of its included
    /// relations. Columns are counted in the order of the SQL selection.
    private func scopedAdapter(_ db: Database, index: inout Int, ctes: [SQLCTE]) throws -> any RowAdapter {
        let ownColumns = index..<(index + (try columnCount(db, ctes: ctes)))
        index = ownColumns.upperBound
        var scopes: [String: any RowAdapter] = [:]
        try collectScopes(db, index: &index, scopes: &scopes, ctes: ctes)
        let base = RangeRowAdapter(ownColumns)
        return scopes.isEmpty ? base : ScopeAdapter(base: base, scopes: scopes)
    }

    /// Walks the joins in SQL order, assigning column ranges to scopes.
    private func collectScopes(_ db: Database, index: inout Int, scopes: inout [String: any RowAdapter], ctes: [SQLCTE]) throws {
        for join in joins {
            if join.isIncluded {
                let adapter = try join.relation.scopedAdapter(db, index: &index, ctes: ctes)
                if scopes[join.key] == nil { scopes[join.key] = adapter }
                continue
            }
            // A relation joined without its columns gets a scope without columns of its own,
            // whose scopes are its included relations: the tree of scopes follows the tree of
            // associations, as GRDB (ASC-2).
            var innerScopes: [String: any RowAdapter] = [:]
            try join.relation.collectScopes(db, index: &index, scopes: &innerScopes, ctes: ctes)
            if !innerScopes.isEmpty, scopes[join.key] == nil {
                scopes[join.key] = ScopeAdapter(base: EmptyRowAdapter(), scopes: innerScopes)
            }
        }
    }

    /// The number of columns the relation's own selection gives. `ctes`: the common table
    /// expressions of the request, whose columns are not in the schema.
    func columnCount(_ db: Database, ctes: [SQLCTE] = []) throws -> Int {
        func tableColumnCount(_ table: String) throws -> Int {
            if let cte = ctes.first(where: { $0.tableName.lowercased() == table.lowercased() }) {
                return try cte.columnCount(db)
            }
            return try db.columns(in: table).count
        }
        // The columns of annotations are qualified with the alias of their table.
        func table(of alias: TableAliasBase?) -> String {
            guard let alias, alias !== self.alias else { return tableName }
            return tableName(ofAlias: alias) ?? tableName
        }
        return try resolvedSelection(db).reduce(0) { count, selection in
            switch selection.kind {
            case .allColumns:
                return try count + tableColumnCount(tableName)
            case .qualifiedAllColumns(let alias):
                return try count + tableColumnCount(table(of: alias))
            case let .allColumnsExcluding(excluded, alias):
                return try count + SQLSelection.columns(db, table: table(of: alias), excluding: excluded).count
            case .expression, .aliased, .literal:
                return count + 1
            case .joined:
                // Resolved by resolvedSelection.
                return count
            }
        }
    }
}

extension SQLQuery {
    /// Whether the number of columns of the query needs its SQL: raw SQL in its selection, or
    /// the columns of included associations.
    func needsSQLToCountColumns(_ db: Database) throws -> Bool {
        if containsIncludedJoin { return true }
        return try resolvedSelection(db).contains {
            if case .literal = $0.kind { return true }
            return false
        }
    }
}

extension SQLCTE {
    /// The number of columns of the common table expression: its explicit columns, or those
    /// its request selects (from the selection, without SQL, as GRDB: the request may read
    /// another common table expression of the statement), or those its SQL gives (CTE-3).
    func columnCount(_ db: Database) throws -> Int {
        if let columns, !columns.isEmpty { return columns.count }
        do {
            if case .query(let query) = subquery.kind, try !query.needsSQLToCountColumns(db) {
                return try query.columnCount(db, ctes: query.statementCTEs)
            }
            var context = SQLGenerationContext(db)
            let sql = try subquery.sql(&context)
            return try db.makeStatement(sql: sql).columnCount
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            throw DatabaseError(
                resultCode: error.extendedResultCode,
                message: "Can't compute the number of columns in the \(tableName.quotedDatabaseIdentifier) common table expression: "
                    + (error.message ?? "unknown error")
                    + ". Check the syntax of the SQL definition, or provide the explicit list of selected columns"
                    + " with the `columns` parameter in the CommonTableExpression initializer.",
                sql: error.sql,
                arguments: error.arguments,
                publicStatementArguments: error.publicStatementArguments)
        }
    }
}

