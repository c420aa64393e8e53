// Associations: the relation from a record type to another, used to join or prefetch the
// associated records (`Book.author`, `Author.books`).

/// The name of an association's scope in fetched rows: derived from the destination table
/// (singular for one record, plural for many), or given by the user.
enum SQLAssociationKey: Sendable {
    /// Derived from a table name (singular, as table names should be).
    case inflected(String)
    /// Given for one record (`belongsTo(_:key:)`, `hasOne(_:key:)`).
    case fixedSingular(String)
    /// Given for many records (`hasMany(_:key:)`).
    case fixedPlural(String)
    /// Given by `forKey(_:)`: used as is.
    case fixed(String)

    /// The key of one associated record (joined scopes). As GRDB, a key derived from a table
    /// name is singularized (`shelves` → `shelf`), and a key given to a to-many association
    /// too (ASC-1).
    var singularName: String {
        switch self {
        case .inflected(let name): return Inflections.default.singularize(name)
        case .fixedSingular(let name), .fixed(let name): return name
        case .fixedPlural(let name): return Inflections.default.singularize(name)
        }
    }

    /// The key of many associated records (prefetched rows).
    var pluralName: String {
        switch self {
        case .inflected(let name): return Inflections.default.pluralize(name)
        case .fixedPlural(let name), .fixed(let name): return name
        case .fixedSingular(let name): return Inflections.default.pluralize(name)
        }
    }
}

/// Implementation detail of ``Association``: the chain of relations from the origin table to
/// the destination one (one step, or more for through associations).
public struct _SQLAssociation: Sendable {
    struct Step: Sendable {
        var key: SQLAssociationKey
        var condition: SQLJoinCondition
        var relation: SQLQuery
        var isToMany: Bool
    }

    /// From the origin to the destination; never empty.
    var steps: [Step]

    init(key: SQLAssociationKey, condition: SQLJoinCondition, relation: SQLQuery, isToMany: Bool) {
        steps = [Step(key: key, condition: condition, relation: relation, isToMany: isToMany)]
    }

    /// An association through another: `pivot` then `target`.
    init(through pivot: _SQLAssociation, using target: _SQLAssociation, key: String?, isToMany: Bool) {
        steps = pivot.steps + target.steps
        if let key {
            steps[steps.count - 1].key = isToMany ? .fixedPlural(key) : .fixedSingular(key)
        }
    }

    var destination: Step {
        get { steps[steps.count - 1] }
        set { steps[steps.count - 1] = newValue }
    }

    /// Whether several destination rows may match one origin row.
    var isToMany: Bool { steps.contains { $0.isToMany } }

    func mapDestination(_ transform: (inout SQLQuery) -> Void) -> _SQLAssociation {
        var association = self
        transform(&association.destination.relation)
        return association
    }
}

extension SQLQuery {
    /// The query with an association joined (or prefetched) as `mode` asks.
    func joining(_ association: _SQLAssociation, _ mode: _SQLJoinMode) -> SQLQuery {
        var query = self
        if mode == .includingAll {
            query.appendPrefetch(SQLPrefetch(key: association.destination.key.pluralName, association: association))
            return query
        }
        let isIncluded: Bool
        switch mode {
        case .includingRequired, .includingOptional: isIncluded = true
        default: isIncluded = false
        }
        var join: SQLJoin?
        for (index, step) in association.steps.enumerated().reversed() {
            // The aliases the library made get new instances, so that an association joined
            // twice names two tables. Aggregates keep theirs: their expressions refer to them.
            var relation = mode == .aggregating ? step.relation : step.relation.withFreshImplicitAliases()
            let isDestination = index == association.steps.count - 1
            if !isDestination {
                // The intermediate tables of a through association: an empty scope.
                relation.selection = []
                relation.deferredSelection = nil
            } else if mode == .annotatingRequired || mode == .annotatingOptional {
                // An annotation joins the association, and selects its columns among the
                // request's own, qualified, in the order of the calls: a later `select`
                // replaces them, and an included join of the same key keeps its own columns
                // (as GRDB, ASC-4).
                query.appendSelection(of: relation, path: association.steps.map(\.key.singularName))
            }
            if let inner = join { relation.appendJoin(inner) }
            join = SQLJoin(
                isRequired: mode.isRequired,
                isIncluded: isIncluded,
                isThroughStep: !isDestination,
                key: step.key.singularName,
                condition: step.condition,
                relation: relation)
        }
        if mode == .aggregating {
            // The rows of an aggregate are grouped away: their ordering (`hasMany(…).order(…)`)
            // orders nothing.
            join!.relation.ordering = nil
            join!.relation.isReversed = false
            query.groupsForAggregates = true
        }
        query.appendJoin(join!)
        return query
    }

    /// Appends the selection of the relation joined through `path`, to be qualified with its
    /// alias (``resolvedSelection(_:)``): the join may still merge into another one.
    private mutating func appendSelection(of relation: SQLQuery, path: [String]) {
        let joined = SQLSelection(kind: .joined(path: path, relation.deferredSelection ?? DatabasePromise(value: relation.selection)))
        if let deferred = deferredSelection {
            deferredSelection = DatabasePromise { db in try deferred.resolve(db) + [joined] }
        } else {
            selection.append(joined)
        }
    }

    /// Appends a join, merged into an existing join of the same key and table, with the rules
    /// of GRDB's associations guide ("Refining Association Requests"): the merged relation is
    /// fetched if either is, required if either is, gets the filters and the joins of both,
    /// the ordering of the last one that has one, and the selection of the last one fetched.
    mutating func appendJoin(_ join: SQLJoin) {
        guard let index = joins.firstIndex(where: {
            $0.key == join.key && $0.relation.tableName.lowercased() == join.relation.tableName.lowercased()
        }) else {
            joins.append(join)
            return
        }
        var existing = joins[index]
        existing.isRequired = existing.isRequired || join.isRequired
        existing.isIncluded = existing.isIncluded || join.isIncluded
        existing.isThroughStep = existing.isThroughStep && join.isThroughStep
        if !join.condition.isForeignKey {
            // A join on an expression (a common table expression) keeps the condition given
            // last, as GRDB (CTE-2).
            existing.condition = join.condition
        }
        existing.relation.absorb(join.relation, selects: join.isIncluded && !join.isThroughStep, orders: !join.isThroughStep, aliasMerges: &mergedAliases)
        joins[index] = existing
    }

    /// Appends a prefetched association, merged into an existing one of the same key and
    /// tables as joins merge (as GRDB, ASC-8): one query with the filters of both, the
    /// ordering and the selection of the last one, the prefetches and joins of both.
    mutating func appendPrefetch(_ prefetch: SQLPrefetch) {
        let steps = prefetch.association.steps
        // The same key, tables and foreign keys at each step: the same rows, filtered by both.
        // Otherwise both run (the rows keep the last one's).
        guard let index = prefetches.firstIndex(where: { existing in
            existing.key == prefetch.key
                && existing.association.steps.count == steps.count
                && zip(existing.association.steps, steps).allSatisfy {
                    $0.relation.tableName.lowercased() == $1.relation.tableName.lowercased() && $0.condition.isSameForeignKey(as: $1.condition)
                }
        }) else {
            prefetches.append(prefetch)
            return
        }
        var merged = prefetches[index].association
        for (position, step) in steps.enumerated() {
            let isDestination = position == steps.count - 1
            var aliasMerges: [(merged: TableAliasBase, into: TableAliasBase)] = []
            merged.steps[position].relation.absorb(step.relation, selects: isDestination, orders: isDestination, aliasMerges: &aliasMerges)
            merged.steps[position].relation.mergedAliases += aliasMerges
        }
        prefetches[index].association = merged
    }

    /// Merges another relation of the same table into this one: its filters, prefetches and
    /// joins, and its ordering and selection when `orders` and `selects` say so. The aliases
    /// merged go to `aliasMerges`.
    private mutating func absorb(_ other: SQLQuery, selects: Bool, orders: Bool, aliasMerges: inout [(merged: TableAliasBase, into: TableAliasBase)]) {
        filters += other.filters
        // What only the relation of a prefetch carries (a joined relation has none of it):
        // aggregates and their grouping, DISTINCT, a limit, common table expressions.
        groupsForAggregates = groupsForAggregates || other.groupsForAggregates
        if let grouping = other.grouping { self.grouping = grouping }
        havings += other.havings
        isDistinct = isDistinct || other.isDistinct
        if let limit = other.limit { self.limit = limit }
        for cte in other.ctes where !ctes.contains(where: { $0.tableName.lowercased() == cte.tableName.lowercased() }) {
            ctes.append(cte)
        }
        for prefetch in other.prefetches {
            appendPrefetch(prefetch)
        }
        if orders, other.ordering != nil {
            ordering = other.ordering
            isReversed = other.isReversed
        }
        if selects {
            selection = other.selection
            deferredSelection = other.deferredSelection
        }
        if alias !== other.alias {
            if other.alias.userName != nil && alias.userName == nil {
                // A name the user gave (`TableAlias(name: "b")`) names the merged relation,
                // whichever relation carries it, as GRDB (ASC-6): SQL snippets use it.
                let previous = alias
                // Aliases merged before into the previous one follow it.
                aliasMerges = aliasMerges.map { ($0.merged, $0.into === previous ? other.alias : $0.into) }
                aliasMerges.append((previous, other.alias))
                alias = other.alias
            } else {
                aliasMerges.append((other.alias, alias))
            }
        }
        mergedAliases += other.mergedAliases
        for child in other.joins {
            appendJoin(child)
        }
    }

    /// The relation with its joined relations joined only (no columns, no scopes), and
    /// without prefetches: the intermediate tables of a through association.
    func withoutSelectedJoins() -> SQLQuery {
        var query = self
        query.prefetches = []
        query.joins = joins.map { join in
            var join = join
            join.isIncluded = false
            join.relation = join.relation.withoutSelectedJoins()
            return join
        }
        return query
    }

    /// The relation and its joined relations, with new instances of the aliases the library
    /// made.
    func withFreshImplicitAliases() -> SQLQuery {
        var query = self
        if alias.isImplicit { query.alias = TableAlias<Void>(implicit: ()) }
        query.joins = joins.map { join in
            var join = join
            join.relation = join.relation.withFreshImplicitAliases()
            return join
        }
        return query
    }
}

// MARK: - Association protocols

/// The relation from a record type to another, defined from their database tables.
///
/// ```swift
/// struct Book: TableRecord {
///     static let author = belongsTo(Author.self)
/// }
/// struct Author: TableRecord {
///     static let books = hasMany(Book.self)
/// }
/// let books = try Book.including(required: Book.author).fetchAll(db)
/// ```
///
/// An association can be refined as a request: `filter`, `order`, `select`, `aliased`,
/// `forKey`, and nested `including` / `joining`.
public protocol Association: DerivableRequest, Sendable {
    /// The record type at the origin of the association.
    associatedtype OriginRowDecoder

    /// Implementation detail: the relation chain of the association.
    var _sqlAssociation: _SQLAssociation { get set }
}

/// An association to one record: `belongsTo`, `hasOne`, `hasOne(_:through:using:)`.
public protocol AssociationToOne: Association {}

/// An association to many records: `hasMany`, `hasMany(_:through:using:)`.
public protocol AssociationToMany: Association {}

extension Association {
    private func mapDestination(_ transform: (inout SQLQuery) -> Void) -> Self {
        var association = self
        association._sqlAssociation = _sqlAssociation.mapDestination(transform)
        return association
    }

    /// The name of the destination table.
    public var databaseTableName: String { _sqlAssociation.destination.relation.tableName }

    /// The association with another key: the name of its scope in fetched rows, and the
    /// coding key of the property that decodes it.
    ///
    /// ```swift
    /// // BookInfo(book: Book, writer: Author)
    /// let request = Book.including(required: Book.author.forKey("writer"))
    /// ```
    public func forKey(_ key: String) -> Self {
        var association = self
        // As GRDB: used as is where the association's own cardinality is meant, inflected for
        // the other one.
        association._sqlAssociation.destination.key = association._sqlAssociation.isToMany ? .fixedPlural(key) : .fixedSingular(key)
        return association
    }

    /// The association with another key, from a coding key.
    public func forKey(_ codingKey: some CodingKey) -> Self {
        forKey(codingKey.stringValue)
    }

    public func select(_ selection: [any SQLSelectable]) -> Self {
        let selection = selection.map(\.sqlSelection)
        return mapDestination {
            $0.selection = selection
            $0.deferredSelection = nil
        }
    }

    public func selectWhenConnected(_ selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        mapDestination {
            $0.selection = []
            $0.deferredSelection = DatabasePromise { db in try selection(db).map(\.sqlSelection) }
        }
    }

    public func annotated(with selection: [any SQLSelectable]) -> Self {
        let selection = selection.map(\.sqlSelection)
        return annotatedWhenConnected { _ in selection }
    }

    public func annotatedWhenConnected(with selection: @escaping @Sendable (Database) throws -> [any SQLSelectable]) -> Self {
        mapDestination { relation in
            let base = relation.deferredSelection ?? DatabasePromise(value: relation.selection)
            relation.deferredSelection = DatabasePromise { db in try base.resolve(db) + selection(db).map(\.sqlSelection) }
        }
    }

    public func filterWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        mapDestination { $0.filters.append(DatabasePromise { db in try predicate(db).sqlExpression }) }
    }

    public func orderWhenConnected(_ orderings: @escaping @Sendable (Database) throws -> [any SQLOrderingTerm]) -> Self {
        mapDestination {
            $0.ordering = DatabasePromise { db in try orderings(db).map(\.sqlOrdering) }
            $0.isReversed = false
        }
    }

    public func reversed() -> Self {
        mapDestination { $0.isReversed.toggle() }
    }

    public func unordered() -> Self {
        mapDestination {
            $0.ordering = nil
            $0.isReversed = false
        }
    }

    public func withStableOrder() -> Self {
        mapDestination { $0 = $0.withStableOrder() }
    }

    public func groupWhenConnected(_ expressions: @escaping @Sendable (Database) throws -> [any SQLExpressible]) -> Self {
        mapDestination { $0.grouping = DatabasePromise { db in try expressions(db).map(\.sqlExpression) } }
    }

    public func havingWhenConnected(_ predicate: @escaping @Sendable (Database) throws -> any SQLExpressible) -> Self {
        mapDestination { $0.havings.append(DatabasePromise { db in try predicate(db).sqlExpression }) }
    }

    public func aliased(_ alias: TableAlias<RowDecoder>) -> Self {
        mapDestination { $0.alias = alias }
    }

    public func aliased(_ alias: TableAlias<Void>) -> Self {
        mapDestination { $0.alias = alias }
    }

    public func distinct() -> Self {
        mapDestination { $0.isDistinct = true }
    }

    public func with<T>(_ cte: CommonTableExpression<T>) -> Self {
        mapDestination { relation in
            relation.ctes.removeAll { $0.tableName.lowercased() == cte.cte.tableName.lowercased() }
            relation.ctes.append(cte.cte)
        }
    }

    public func _joining(_ association: _SQLAssociation, _ mode: _SQLJoinMode) -> Self {
        mapDestination { $0 = $0.joining(association, mode) }
    }
}

extension AssociationToOne {
    /// The association with another key: the name of its scope in fetched rows (pluralized
    /// for `including(all:)`).
    public func forKey(_ key: String) -> Self {
        var association = self
        association._sqlAssociation.destination.key = .fixedSingular(key)
        return association
    }
}

extension AssociationToMany {
    /// The association with another key: the name of its prefetched rows, of its scope when
    /// joined, and the base of the default names of its aggregates.
    public func forKey(_ key: String) -> Self {
        var association = self
        // Used as is for many records, singularized for a joined scope
        // (`hasMany(Book.self).forKey("novels")` included with `including(required:)` has the
        // scope `novel`), as GRDB.
        association._sqlAssociation.destination.key = .fixedPlural(key)
        return association
    }
}

// MARK: - Concrete associations

/// An association from a record to the record its foreign key refers to.
///
/// ```swift
/// struct Book: TableRecord {
///     static let author = belongsTo(Author.self)
/// }
/// // SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId"
/// let request = Book.including(required: Book.author)
/// ```
public struct BelongsToAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public var _sqlAssociation: _SQLAssociation

    init(_sqlAssociation: _SQLAssociation) {
        self._sqlAssociation = _sqlAssociation
    }
}

/// An association from a record to the one record whose foreign key refers to it.
///
/// ```swift
/// struct Country: TableRecord {
///     static let demographics = hasOne(Demographics.self)
/// }
/// ```
public struct HasOneAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public var _sqlAssociation: _SQLAssociation

    init(_sqlAssociation: _SQLAssociation) {
        self._sqlAssociation = _sqlAssociation
    }
}

/// An association from a record to the records whose foreign key refers to it.
///
/// ```swift
/// struct Author: TableRecord {
///     static let books = hasMany(Book.self)
/// }
/// let request = Author.including(all: Author.books)
/// ```
public struct HasManyAssociation<Origin, Destination>: AssociationToMany {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public var _sqlAssociation: _SQLAssociation

    init(_sqlAssociation: _SQLAssociation) {
        self._sqlAssociation = _sqlAssociation
    }
}

/// An association to many records through another association.
///
/// ```swift
/// struct Country: TableRecord {
///     static let passports = hasMany(Passport.self)
///     static let citizens = hasMany(Citizen.self, through: passports, using: Passport.citizen)
/// }
/// ```
public struct HasManyThroughAssociation<Origin, Destination>: AssociationToMany {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public var _sqlAssociation: _SQLAssociation

    init(_sqlAssociation: _SQLAssociation) {
        self._sqlAssociation = _sqlAssociation
    }
}

/// An association to one record through another association to one.
///
/// ```swift
/// struct Book: TableRecord {
///     static let library = belongsTo(Library.self)
///     static let returnAddress = hasOne(Address.self, through: library, using: Library.address)
/// }
/// ```
public struct HasOneThroughAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public var _sqlAssociation: _SQLAssociation

    init(_sqlAssociation: _SQLAssociation) {
        self._sqlAssociation = _sqlAssociation
    }
}

/// An association of a common table expression, joined on a condition (see
/// `association(to:on:)`).
///
/// ```swift
/// let cte = CommonTableExpression(named: "bestScore", request: Player.select(max(Column("score")).forKey("score")))
/// let association = Player.association(to: cte) { player, best in player["score"] == best["score"] }
/// let bestPlayers = try Player.with(cte).joining(required: association).fetchAll(db)
/// ```
public struct JoinAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public var _sqlAssociation: _SQLAssociation

    init(_sqlAssociation: _SQLAssociation) {
        self._sqlAssociation = _sqlAssociation
    }
}
