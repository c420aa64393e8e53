/// A type of SQL expression that is interpreted as a JSON value.
///
/// JSON values give access to the subcomponents of JSON text with the `->` and `->>` SQL
/// operators, and to `JSON_EXTRACT`:
///
/// ```swift
/// let address = JSONColumn("address")
///
/// // SELECT * FROM player WHERE "address" ->> 'country' = 'DE'
/// Player.filter(address["country"] == "DE")
///
/// // SELECT "address" -> 'city' FROM player
/// Player.select(address.jsonRepresentation(atPath: "city"))
///
/// // SELECT JSON_EXTRACT("address", '$.country') FROM player
/// Player.select(address.jsonExtract(atPath: "$.country"))
/// ```
///
/// When a JSON value is an argument of a function that builds JSON (`Database.jsonArray(_:)`,
/// ``Database/jsonObject(_:)``, ``Database/jsonSet(_:_:)``…), it is embedded as JSON, not
/// as a string: a JSON column is wrapped in `JSONB(…)` (`JSON(…)` before SQLite 3.45):
///
/// ```swift
/// // JSON_ARRAY(JSONB("address"), "name")
/// Database.jsonArray([address, Column("name")])
/// ```
///
/// ``JSONColumn`` and ``AnySQLJSONExpressible`` (``SQLSpecificExpressible/asJSON``) are JSON
/// values. See <https://www.sqlite.org/json1.html>.
public protocol SQLJSONExpressible: SQLSpecificExpressible { }

extension SQLJSONExpressible {
    /// The SQL value of a subcomponent: `json ->> path`.
    ///
    /// The path is a key, an array index, or a full path:
    ///
    /// ```swift
    /// let info = JSONColumn("info")
    /// info["name"]      // "info" ->> 'name'
    /// info[0]           // "info" ->> 0
    /// info["$.tags[0]"] // "info" ->> '$.tags[0]'
    /// ```
    public subscript(_ path: some SQLExpressible) -> SQLExpression {
        SQLExpression(.binary(.jsonValue, sqlExpression, path.sqlExpression))
    }

    /// The JSON representation of a subcomponent: `json -> path`.
    ///
    /// ```swift
    /// // "info" -> 'address'
    /// JSONColumn("info").jsonRepresentation(atPath: "address")
    /// ```
    public func jsonRepresentation(atPath path: some SQLExpressible) -> SQLExpression {
        SQLExpression(.binary(.jsonRepresentation, sqlExpression, path.sqlExpression))
    }

    /// `JSON_EXTRACT(json, path)`: the value at a full path (`$.key`, `$[0]`).
    ///
    /// ```swift
    /// // JSON_EXTRACT("info", '$.address.city')
    /// JSONColumn("info").jsonExtract(atPath: "$.address.city")
    /// ```
    public func jsonExtract(atPath path: some SQLExpressible) -> SQLExpression {
        Database.jsonExtract(self, atPath: path)
    }

    /// `JSON_EXTRACT(json, path1, path2, ...)`: a JSON array of the values at several full
    /// paths.
    ///
    /// ```swift
    /// // JSON_EXTRACT("info", '$.name', '$.score')
    /// JSONColumn("info").jsonExtract(atPaths: ["$.name", "$.score"])
    /// ```
    public func jsonExtract(atPaths paths: some Collection<some SQLExpressible>) -> SQLExpression {
        Database.jsonExtract(self, atPaths: paths)
    }
}

/// A type-erased ``SQLJSONExpressible``: an expression interpreted as a JSON value.
///
/// ```swift
/// // "info" ->> 'name'
/// Column("info").asJSON["name"]
/// ```
public struct AnySQLJSONExpressible: SQLJSONExpressible, Sendable {
    /// The expression.
    public let sqlExpression: SQLExpression

    /// Wraps a JSON value.
    public init(_ base: some SQLJSONExpressible) {
        self.sqlExpression = base.sqlExpression
    }

    init(sqlExpression: SQLExpression) {
        self.sqlExpression = sqlExpression
    }
}

extension SQLSpecificExpressible {
    /// The expression, interpreted as a JSON value: it gets the JSON accessors of
    /// ``SQLJSONExpressible``, and is embedded as JSON in the functions that build JSON.
    ///
    /// ```swift
    /// let info = Column("info").asJSON
    /// info["name"]              // "info" ->> 'name'
    /// Database.jsonArray([info]) // JSON_ARRAY(JSONB("info"))
    /// ```
    public var asJSON: AnySQLJSONExpressible {
        AnySQLJSONExpressible(sqlExpression: sqlExpression)
    }
}

/// A column that holds JSON text.
///
/// ```swift
/// struct Player: FetchableRecord, TableRecord {
///     enum Columns {
///         static let address = JSONColumn("address")
///     }
/// }
///
/// // SELECT * FROM player WHERE "address" ->> 'country' = 'DE'
/// let germanPlayers = try Player
///     .filter { $0.address["country"] == "DE" }
///     .fetchAll(db)
/// ```
public struct JSONColumn: ColumnExpression, SQLJSONExpressible, Sendable {
    /// The name of the column.
    public var name: String

    /// Creates a JSON column.
    public init(_ name: String) {
        self.name = name
    }

    /// Creates a JSON column from a coding key, for Codable records.
    public init(_ codingKey: some CodingKey) {
        self.name = codingKey.stringValue
    }
}

extension ColumnExpression where Self: SQLJSONExpressible {
    /// The column, as an expression. A JSON column keeps its JSON accessors through its type,
    /// and is embedded as JSON in the functions that build JSON:
    ///
    /// ```swift
    /// let address = JSONColumn("address")
    /// Database.jsonArray([address]) // JSON_ARRAY(JSONB("address"))
    /// ```
    public var sqlExpression: SQLExpression { SQLExpression(.column(name)) }
}

extension TableAliasBase {
    /// A JSON value whose columns refer to the aliased table.
    ///
    /// ```swift
    /// let player = TableAlias()
    /// player[JSONColumn("info")]["name"] // "player"."info" ->> 'name'
    /// ```
    public subscript(expression: some SQLJSONExpressible & SQLSpecificExpressible & SQLSelectable & SQLOrderingTerm) -> AnySQLJSONExpressible {
        AnySQLJSONExpressible(sqlExpression: expression.sqlExpression.qualified(with: self))
    }
}

extension TableAlias where RowDecoder: TableRecord {
    /// A JSON column of the record, qualified with the alias: `alias.address["country"]`.
    public subscript<T: SQLJSONExpressible>(dynamicMember keyPath: KeyPath<DatabaseComponents, T>) -> AnySQLJSONExpressible {
        AnySQLJSONExpressible(sqlExpression: RowDecoder.databaseComponents[keyPath: keyPath].sqlExpression.qualified(with: self))
    }
}
