// Association definitions (`belongsTo`, `hasOne`, `hasMany`, through associations), the joining
// methods of record types and tables, and the request of a record's associated records.

/// The relation of a destination table, with its default selection.
private func destinationRelation(_ tableName: String, selection: [any SQLSelectable]) -> SQLQuery {
    SQLQuery(tableName: tableName, selection: selection.map(\.sqlSelection))
}

enum AssociationFactory {
    static func belongsTo(origin: String, destination: String, selection: [any SQLSelectable], key: String?, foreignKey: ForeignKey?) -> _SQLAssociation {
        _SQLAssociation(
            key: key.map { .fixedSingular($0) } ?? .inflected(destination),
            condition: SQLJoinCondition(kind: .foreignKey(
                SQLForeignKeyRequest(originTable: origin, destinationTable: destination, foreignKey: foreignKey),
                originIsLeft: true)),
            relation: destinationRelation(destination, selection: selection),
            isToMany: false)
    }

    static func hasOne(origin: String, destination: String, selection: [any SQLSelectable], key: String?, foreignKey: ForeignKey?) -> _SQLAssociation {
        _SQLAssociation(
            key: key.map { .fixedSingular($0) } ?? .inflected(destination),
            condition: SQLJoinCondition(kind: .foreignKey(
                SQLForeignKeyRequest(originTable: destination, destinationTable: origin, foreignKey: foreignKey),
                originIsLeft: false)),
            relation: destinationRelation(destination, selection: selection),
            isToMany: false)
    }

    static func hasMany(origin: String, destination: String, selection: [any SQLSelectable], key: String?, foreignKey: ForeignKey?) -> _SQLAssociation {
        _SQLAssociation(
            key: key.map { .fixedPlural($0) } ?? .inflected(destination),
            condition: SQLJoinCondition(kind: .foreignKey(
                SQLForeignKeyRequest(originTable: destination, destinationTable: origin, foreignKey: foreignKey),
                originIsLeft: false)),
            relation: destinationRelation(destination, selection: selection),
            isToMany: true)
    }
}

extension TableRecord {
    /// An association to the record that this record's foreign key refers to.
    ///
    /// ```swift
    /// struct Book: TableRecord {
    ///     static let author = belongsTo(Author.self)
    ///     static let translator = belongsTo(Person.self, key: "translator", using: ForeignKey(["translatorId"]))
    /// }
    /// ```
    ///
    /// The foreign key is inferred from the schema unless given; the key (the scope of the
    /// associated record in fetched rows) is the destination table name unless given.
    public static func belongsTo<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> BelongsToAssociation<Self, Destination>
    {
        BelongsToAssociation(_sqlAssociation: AssociationFactory.belongsTo(
            origin: databaseTableName, destination: Destination.databaseTableName,
            selection: Destination.databaseSelection, key: key, foreignKey: foreignKey))
    }

    /// An association to the record of a table that this record's foreign key refers to.
    public static func belongsTo<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> BelongsToAssociation<Self, Destination>
    {
        BelongsToAssociation(_sqlAssociation: AssociationFactory.belongsTo(
            origin: databaseTableName, destination: destination.tableName,
            selection: [AllColumns()], key: key, foreignKey: foreignKey))
    }

    /// An association to the one record whose foreign key refers to this record.
    ///
    /// ```swift
    /// struct Country: TableRecord {
    ///     static let demographics = hasOne(Demographics.self)
    /// }
    /// ```
    public static func hasOne<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> HasOneAssociation<Self, Destination>
    {
        HasOneAssociation(_sqlAssociation: AssociationFactory.hasOne(
            origin: databaseTableName, destination: Destination.databaseTableName,
            selection: Destination.databaseSelection, key: key, foreignKey: foreignKey))
    }

    /// An association to the one row of a table whose foreign key refers to this record.
    public static func hasOne<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> HasOneAssociation<Self, Destination>
    {
        HasOneAssociation(_sqlAssociation: AssociationFactory.hasOne(
            origin: databaseTableName, destination: destination.tableName,
            selection: [AllColumns()], key: key, foreignKey: foreignKey))
    }

    /// An association to the records whose foreign key refers to this record.
    ///
    /// ```swift
    /// struct Author: TableRecord {
    ///     static let books = hasMany(Book.self)
    /// }
    /// ```
    public static func hasMany<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> HasManyAssociation<Self, Destination>
    {
        HasManyAssociation(_sqlAssociation: AssociationFactory.hasMany(
            origin: databaseTableName, destination: Destination.databaseTableName,
            selection: Destination.databaseSelection, key: key, foreignKey: foreignKey))
    }

    /// An association to the rows of a table whose foreign key refers to this record.
    public static func hasMany<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> HasManyAssociation<Self, Destination>
    {
        HasManyAssociation(_sqlAssociation: AssociationFactory.hasMany(
            origin: databaseTableName, destination: destination.tableName,
            selection: [AllColumns()], key: key, foreignKey: foreignKey))
    }

    /// An association to many records, through another association.
    ///
    /// ```swift
    /// struct Country: TableRecord {
    ///     static let passports = hasMany(Passport.self)
    ///     static let citizens = hasMany(Citizen.self, through: passports, using: Passport.citizen)
    /// }
    /// ```
    public static func hasMany<Pivot: Association, Target: Association>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil)
        -> HasManyThroughAssociation<Self, Target.RowDecoder>
        where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder
    {
        HasManyThroughAssociation(_sqlAssociation: _SQLAssociation(
            through: pivot._sqlAssociation, using: target._sqlAssociation, key: key, isToMany: true))
    }

    /// An association to one record, through another association to one.
    ///
    /// ```swift
    /// struct Book: TableRecord {
    ///     static let library = belongsTo(Library.self)
    ///     static let returnAddress = hasOne(Address.self, through: library, using: Library.address)
    /// }
    /// ```
    public static func hasOne<Pivot: AssociationToOne, Target: AssociationToOne>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil)
        -> HasOneThroughAssociation<Self, Target.RowDecoder>
        where Pivot.OriginRowDecoder == Self, Pivot.RowDecoder == Target.OriginRowDecoder
    {
        HasOneThroughAssociation(_sqlAssociation: _SQLAssociation(
            through: pivot._sqlAssociation, using: target._sqlAssociation, key: key, isToMany: false))
    }

    // MARK: Joining methods

    /// All records, with the associated record of each; records without one are left out.
    ///
    /// ```swift
    /// // SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId"
    /// let request = Book.including(required: Book.author)
    /// ```
    public static func including<A: Association>(required association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().including(required: association)
    }

    /// All records, with the associated record of each, if any.
    public static func including<A: Association>(optional association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().including(optional: association)
    }

    /// All records, with all the associated records of each.
    public static func including<A: AssociationToMany>(all association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().including(all: association)
    }

    /// The records that have an associated record, without fetching it.
    public static func joining<A: Association>(required association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().joining(required: association)
    }

    /// All records, joined to their associated record, if any, without fetching it.
    public static func joining<A: Association>(optional association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().joining(optional: association)
    }

    /// All records that have an associated record, with its selected columns appended.
    public static func annotated<A: Association>(withRequired association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().annotated(withRequired: association)
    }

    /// All records, with the selected columns of their associated record, if any, appended.
    public static func annotated<A: Association>(withOptional association: A) -> QueryInterfaceRequest<Self> where A.OriginRowDecoder == Self {
        all().annotated(withOptional: association)
    }
}

extension TableRecord where Self: EncodableRecord {
    /// The request of the records associated with this record.
    ///
    /// ```swift
    /// extension Author {
    ///     var books: QueryInterfaceRequest<Book> { request(for: Author.books) }
    /// }
    /// // SELECT * FROM "book" WHERE "authorId" = 1
    /// let books = try author.books.fetchAll(db)
    /// ```
    ///
    /// When the record's key is NULL, the request fetches nothing.
    public func request<A: Association>(for association: A) -> QueryInterfaceRequest<A.RowDecoder> where A.OriginRowDecoder == Self {
        let container: PersistenceContainer
        do {
            container = try PersistenceContainer(self)
        } catch {
            let failure = UncheckedSendable(error)
            return QueryInterfaceRequest(query: association._sqlAssociation.destination.relation)
                .filterWhenConnected { _ in throw failure.value }
        }
        let box = UncheckedSendable(container)
        return QueryInterfaceRequest(query: association._sqlAssociation.requestQuery { db, mapping in
            // Values of the record's columns, for the columns of the first step's destination.
            var terms: [SQLExpression] = []
            for (left, right) in mapping {
                let value = box.value[left]?.databaseValue ?? .null
                if value.isNull { return SQLExpression(.value(false.databaseValue)) }
                terms.append(SQLExpression(.binary(.equal, SQLExpression(.column(right)), SQLExpression(.value(value)))))
            }
            return .associative(.and, terms)
        })
    }
}

extension _SQLAssociation {
    /// The query of the destination records of one origin row: the destination table, joined
    /// back to the intermediate tables of a through association, with the first intermediate
    /// table (or the destination) filtered by `originFilter`, given the column mapping of the
    /// first step.
    func requestQuery(
        _ originFilter: @escaping @Sendable (Database, [(left: String, right: String)]) throws -> SQLExpression) -> SQLQuery
    {
        let first = steps[0]
        let filter = DatabasePromise<SQLExpression> { db in
            guard let mapping = try first.condition.columnMapping(db) else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "request(for:) needs an association defined by a foreign key")
            }
            return try originFilter(db, mapping)
        }
        // (The origin filter comes after the association's own filters, as in GRDB:
        // `WHERE ("year" > ?) AND ("authorId" IN (?, ?))`.)
        if steps.count == 1 {
            var query = first.relation
            query.filters.append(filter)
            return query
        }
        // Destination first, then the pivots back to the first step, joined without scopes.
        // The steps of an association through the same association share their aliases
        // (`hasMany(Person.self, through: children, using: Person.children)`): the tables
        // after the first pivot (whose alias the caller uses) get aliases of their own.
        var usedAliases: Set<ObjectIdentifier> = [ObjectIdentifier(first.relation.alias)]
        func distinct(_ relation: SQLQuery) -> SQLQuery {
            var relation = relation
            if relation.alias.isImplicit, !usedAliases.insert(ObjectIdentifier(relation.alias)).inserted {
                relation = relation.withFreshImplicitAliases()
                usedAliases.insert(ObjectIdentifier(relation.alias))
            }
            return relation
        }
        var pivots = [first.relation]
        for index in 1..<(steps.count - 1) {
            pivots.append(distinct(steps[index].relation))
        }
        var query = distinct(destination.relation)
        var join: SQLJoin?
        for index in (0..<(steps.count - 1)) {
            // (The pivots keep their ordering, as in GRDB: `ORDER BY "author"."name"` for
            // books through authors ordered by name.)
            var relation = pivots[index].withoutSelectedJoins()
            relation.selection = []
            relation.deferredSelection = nil
            if index == 0 { relation.filters.append(filter) }
            if let inner = join { relation.joins.append(inner) }
            join = SQLJoin(isRequired: true, isIncluded: false, key: steps[index].key.singularName,
                           condition: steps[index + 1].condition.reversed, relation: relation)
        }
        query.joins.append(join!)
        return query
    }
}

extension Table {
    /// An association to the row that this table's foreign key refers to.
    public func belongsTo<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> BelongsToAssociation<RowDecoder, Destination>
    {
        BelongsToAssociation(_sqlAssociation: AssociationFactory.belongsTo(
            origin: tableName, destination: Destination.databaseTableName,
            selection: Destination.databaseSelection, key: key, foreignKey: foreignKey))
    }

    /// An association to the row of a table that this table's foreign key refers to.
    ///
    /// ```swift
    /// let book = Table("book")
    /// let author = book.belongsTo(Table("author"))
    /// let rows = try book.including(required: author).fetchAll(db)
    /// ```
    public func belongsTo<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> BelongsToAssociation<RowDecoder, Destination>
    {
        BelongsToAssociation(_sqlAssociation: AssociationFactory.belongsTo(
            origin: tableName, destination: destination.tableName,
            selection: [AllColumns()], key: key, foreignKey: foreignKey))
    }

    /// An association to the one record whose foreign key refers to this table.
    public func hasOne<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> HasOneAssociation<RowDecoder, Destination>
    {
        HasOneAssociation(_sqlAssociation: AssociationFactory.hasOne(
            origin: tableName, destination: Destination.databaseTableName,
            selection: Destination.databaseSelection, key: key, foreignKey: foreignKey))
    }

    /// An association to the one row of a table whose foreign key refers to this table.
    public func hasOne<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> HasOneAssociation<RowDecoder, Destination>
    {
        HasOneAssociation(_sqlAssociation: AssociationFactory.hasOne(
            origin: tableName, destination: destination.tableName,
            selection: [AllColumns()], key: key, foreignKey: foreignKey))
    }

    /// An association to the records whose foreign key refers to this table.
    public func hasMany<Destination: TableRecord>(
        _ destination: Destination.Type, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> HasManyAssociation<RowDecoder, Destination>
    {
        HasManyAssociation(_sqlAssociation: AssociationFactory.hasMany(
            origin: tableName, destination: Destination.databaseTableName,
            selection: Destination.databaseSelection, key: key, foreignKey: foreignKey))
    }

    /// An association to the rows of a table whose foreign key refers to this table.
    public func hasMany<Destination>(
        _ destination: Table<Destination>, key: String? = nil, using foreignKey: ForeignKey? = nil)
        -> HasManyAssociation<RowDecoder, Destination>
    {
        HasManyAssociation(_sqlAssociation: AssociationFactory.hasMany(
            origin: tableName, destination: destination.tableName,
            selection: [AllColumns()], key: key, foreignKey: foreignKey))
    }

    /// An association to many rows, through another association.
    public func hasMany<Pivot: Association, Target: Association>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil)
        -> HasManyThroughAssociation<RowDecoder, Target.RowDecoder>
        where Pivot.OriginRowDecoder == RowDecoder, Pivot.RowDecoder == Target.OriginRowDecoder
    {
        HasManyThroughAssociation(_sqlAssociation: _SQLAssociation(
            through: pivot._sqlAssociation, using: target._sqlAssociation, key: key, isToMany: true))
    }

    /// An association to one row, through another association to one.
    public func hasOne<Pivot: AssociationToOne, Target: AssociationToOne>(
        _ destination: Target.RowDecoder.Type, through pivot: Pivot, using target: Target, key: String? = nil)
        -> HasOneThroughAssociation<RowDecoder, Target.RowDecoder>
        where Pivot.OriginRowDecoder == RowDecoder, Pivot.RowDecoder == Target.OriginRowDecoder
    {
        HasOneThroughAssociation(_sqlAssociation: _SQLAssociation(
            through: pivot._sqlAssociation, using: target._sqlAssociation, key: key, isToMany: false))
    }

    // MARK: Joining methods

    /// All rows, with the associated row of each; rows without one are left out.
    public func including<A: Association>(required association: A) -> QueryInterfaceRequest<RowDecoder> where A.OriginRowDecoder == RowDecoder {
        all().including(required: association)
    }

    /// All rows, with the associated row of each, if any.
    public func including<A: Association>(optional association: A) -> QueryInterfaceRequest<RowDecoder> where A.OriginRowDecoder == RowDecoder {
        all().including(optional: association)
    }

    /// All rows, with all the associated rows of each.
    public func including<A: AssociationToMany>(all association: A) -> QueryInterfaceRequest<RowDecoder> where A.OriginRowDecoder == RowDecoder {
        all().including(all: association)
    }

    /// The rows that have an associated row, without fetching it.
    public func joining<A: Association>(required association: A) -> QueryInterfaceRequest<RowDecoder> where A.OriginRowDecoder == RowDecoder {
        all().joining(required: association)
    }

    /// All rows, joined to their associated row, if any, without fetching it.
    public func joining<A: Association>(optional association: A) -> QueryInterfaceRequest<RowDecoder> where A.OriginRowDecoder == RowDecoder {
        all().joining(optional: association)
    }

    /// All rows that have an associated row, with its selected columns appended.
    public func annotated<A: Association>(withRequired association: A) -> QueryInterfaceRequest<RowDecoder> where A.OriginRowDecoder == RowDecoder {
        all().annotated(withRequired: association)
    }

    /// All rows, with the selected columns of their associated row, if any, appended.
    public func annotated<A: Association>(withOptional association: A) -> QueryInterfaceRequest<RowDecoder> where A.OriginRowDecoder == RowDecoder {
        all().annotated(withOptional: association)
    }
}

// MARK: - Associations of common table expressions

extension AssociationFactory {
    /// A `JoinAssociation` to `destination`, on the condition the closure builds from the two
    /// sides: placeholders that take the names of the joined tables when the SQL is written.
    static func join<Origin, Destination>(
        to destination: SQLQuery,
        on condition: (TableAlias<Origin>, TableAlias<Destination>) -> any SQLExpressible)
        -> JoinAssociation<Origin, Destination>
    {
        let left = TableAlias<Origin>()
        let right = TableAlias<Destination>()
        let expression = condition(left, right).sqlExpression
        return JoinAssociation(_sqlAssociation: _SQLAssociation(
            key: .inflected(destination.tableName),
            condition: SQLJoinCondition(kind: .expression(expression, left: left, right: right)),
            relation: destination,
            isToMany: false))
    }

    static func relation(_ cte: CommonTableExpression<some Any>) -> SQLQuery {
        SQLQuery(tableName: cte.tableName, selection: [.allColumns])
    }
}

extension TableRecord {
    /// An association to a common table expression, joined on a condition. Embed the
    /// expression in the request with `with(_:)`.
    ///
    /// ```swift
    /// // WITH "latestMessage" AS (...) SELECT "chat".*, "latestMessage".* FROM "chat"
    /// // LEFT JOIN "latestMessage" ON "chat"."id" = "latestMessage"."chatId"
    /// let latestMessage = Chat.association(to: cte) { chat, message in chat["id"] == message["chatId"] }
    /// let request = Chat.with(cte).including(optional: latestMessage)
    /// ```
    public static func association<Destination>(
        to cte: CommonTableExpression<Destination>,
        on condition: @escaping @Sendable (_ left: TableAlias<Self>, _ right: TableAlias<Destination>) -> any SQLExpressible)
        -> JoinAssociation<Self, Destination>
    {
        AssociationFactory.join(to: AssociationFactory.relation(cte), on: condition)
    }

    /// An association to a common table expression, joined to every row (`ON 1`).
    public static func association<Destination>(to cte: CommonTableExpression<Destination>) -> JoinAssociation<Self, Destination> {
        AssociationFactory.join(to: AssociationFactory.relation(cte)) { (_: TableAlias<Self>, _: TableAlias<Destination>) in true }
    }
}

extension Table {
    /// An association to a common table expression, joined on a condition.
    public func association<Destination>(
        to cte: CommonTableExpression<Destination>,
        on condition: @escaping @Sendable (_ left: TableAlias<RowDecoder>, _ right: TableAlias<Destination>) -> any SQLExpressible)
        -> JoinAssociation<RowDecoder, Destination>
    {
        AssociationFactory.join(to: AssociationFactory.relation(cte), on: condition)
    }

    /// An association to a common table expression, joined to every row.
    public func association<Destination>(to cte: CommonTableExpression<Destination>) -> JoinAssociation<RowDecoder, Destination> {
        AssociationFactory.join(to: AssociationFactory.relation(cte)) { (_: TableAlias<RowDecoder>, _: TableAlias<Destination>) in true }
    }
}

extension CommonTableExpression {
    /// An association from the common table expression to another, joined on a condition.
    public func association<Destination>(
        to cte: CommonTableExpression<Destination>,
        on condition: @escaping @Sendable (_ left: TableAlias<RowDecoder>, _ right: TableAlias<Destination>) -> any SQLExpressible)
        -> JoinAssociation<RowDecoder, Destination>
    {
        AssociationFactory.join(to: AssociationFactory.relation(cte), on: condition)
    }

    /// An association from the common table expression to another, joined to every row.
    public func association<Destination>(to cte: CommonTableExpression<Destination>) -> JoinAssociation<RowDecoder, Destination> {
        AssociationFactory.join(to: AssociationFactory.relation(cte)) { (_: TableAlias<RowDecoder>, _: TableAlias<Destination>) in true }
    }

    /// An association from the common table expression to a record's table.
    public func association<Destination: TableRecord>(
        to destination: Destination.Type,
        on condition: @escaping @Sendable (_ left: TableAlias<RowDecoder>, _ right: TableAlias<Destination>) -> any SQLExpressible)
        -> JoinAssociation<RowDecoder, Destination>
    {
        AssociationFactory.join(
            to: SQLQuery(tableName: Destination.databaseTableName, selection: Destination.databaseSelection.map(\.sqlSelection)),
            on: condition)
    }

    /// An association from the common table expression to a record's table, joined to every
    /// row.
    public func association<Destination: TableRecord>(to destination: Destination.Type) -> JoinAssociation<RowDecoder, Destination> {
        AssociationFactory.join(
            to: SQLQuery(tableName: Destination.databaseTableName, selection: Destination.databaseSelection.map(\.sqlSelection))
        ) { (_: TableAlias<RowDecoder>, _: TableAlias<Destination>) in true }
    }

    /// An association from the common table expression to a table.
    public func association<Destination>(
        to destination: Table<Destination>,
        on condition: @escaping @Sendable (_ left: TableAlias<RowDecoder>, _ right: TableAlias<Destination>) -> any SQLExpressible)
        -> JoinAssociation<RowDecoder, Destination>
    {
        AssociationFactory.join(to: SQLQuery(tableName: destination.tableName, selection: [.allColumns]), on: condition)
    }

    /// An association from the common table expression to a table, joined to every row.
    public func association<Destination>(to destination: Table<Destination>) -> JoinAssociation<RowDecoder, Destination> {
        AssociationFactory.join(to: SQLQuery(tableName: destination.tableName, selection: [.allColumns])) { (_: TableAlias<RowDecoder>, _: TableAlias<Destination>) in true }
    }
}
