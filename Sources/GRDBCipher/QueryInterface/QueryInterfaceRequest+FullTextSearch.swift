// Full-text search in the query interface: `matching(_:)` filters a request on its table,
// `match(_:)` on a column. Both are filters, added to the request as any other.

extension TableRequest where Self: FilteredRequest {
    /// Filters rows that match an FTS3 or FTS4 full-text pattern, in any column of the
    /// request's table (a request, or an association). A nil pattern matches no row.
    ///
    /// ```swift
    /// // SELECT * FROM "document" WHERE "document" MATCH 'sqlite database'
    /// let pattern = FTS3Pattern(matchingAllTokensIn: "SQLite database")
    /// let documents = try Document.all().matching(pattern).fetchAll(db)
    /// ```
    public func matching(_ pattern: FTS3Pattern?) -> Self {
        guard let pattern else { return none() }
        return filter(SQLExpression.fullTextMatch(pattern.databaseValue))
    }

    /// Filters rows that match an FTS5 full-text pattern, in any column of the request's
    /// table. A nil pattern matches no row.
    ///
    /// ```swift
    /// // SELECT * FROM "document" WHERE "document" MATCH 'sqlite database' ORDER BY "rank"
    /// let pattern = FTS5Pattern(matchingAllTokensIn: "SQLite database")
    /// let documents = try Document.all().matching(pattern).order(Column.rank).fetchAll(db)
    /// ```
    public func matching(_ pattern: FTS5Pattern?) -> Self {
        guard let pattern else { return none() }
        return filter(SQLExpression.fullTextMatch(pattern.databaseValue))
    }
}

extension TableRecord {
    /// All records that match an FTS3 or FTS4 full-text pattern. A nil pattern matches no
    /// record.
    ///
    /// ```swift
    /// // SELECT * FROM "document" WHERE "document" MATCH 'sqlite database'
    /// let pattern = FTS3Pattern(matchingAllTokensIn: "SQLite database")
    /// let documents = try Document.matching(pattern).fetchAll(db)
    /// ```
    public static func matching(_ pattern: FTS3Pattern?) -> QueryInterfaceRequest<Self> {
        all().matching(pattern)
    }

    /// All records that match an FTS5 full-text pattern. A nil pattern matches no record.
    ///
    /// ```swift
    /// // SELECT * FROM "document" WHERE "document" MATCH 'sqlite database'
    /// let pattern = FTS5Pattern(matchingAllTokensIn: "SQLite database")
    /// let documents = try Document.matching(pattern).fetchAll(db)
    /// ```
    public static func matching(_ pattern: FTS5Pattern?) -> QueryInterfaceRequest<Self> {
        all().matching(pattern)
    }
}

extension ColumnExpression {
    /// An expression that matches an FTS3 or FTS4 full-text pattern in this column
    /// (`"content" MATCH ?`; `MATCH NULL`, which matches nothing, for a nil pattern).
    ///
    /// ```swift
    /// let documents = try Document.filter(Column("content").match(pattern)).fetchAll(db)
    /// ```
    public func match(_ pattern: FTS3Pattern?) -> SQLExpression {
        SQLExpression(.pattern(.match, sqlExpression, pattern.sqlExpression, escape: nil, negated: false))
    }

    /// An expression that matches an FTS5 full-text pattern in this column
    /// (`"content" MATCH ?`).
    ///
    /// ```swift
    /// let documents = try Document.filter { $0.content.match(pattern) }.fetchAll(db)
    /// ```
    public func match(_ pattern: FTS5Pattern) -> SQLExpression {
        SQLExpression(.pattern(.match, sqlExpression, pattern.sqlExpression, escape: nil, negated: false))
    }
}

extension Column {
    /// The hidden `rank` column of FTS5 tables, to sort matches by relevance:
    ///
    /// ```swift
    /// // SELECT * FROM "document" WHERE "document" MATCH ? ORDER BY "rank"
    /// let documents = try Document.matching(pattern).order(Column.rank).fetchAll(db)
    /// ```
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/fts5.html#sorting_by_auxiliary_function_results>
    public static let rank = Column("rank")
}

extension SQLExpression {
    /// `"table" MATCH ?`, on the table of the request the expression filters.
    static func fullTextMatch(_ pattern: DatabaseValue) -> SQLExpression {
        SQLExpression(.pattern(.match, SQLExpression(.table(nil)), SQLExpression(.value(pattern)), escape: nil, negated: false))
    }
}
