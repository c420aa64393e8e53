// The JSON functions of SQLite (https://www.sqlite.org/json1.html), JSONB ones included
// (SQLite 3.45+).
//
// ```swift
// // SELECT JSON_OBJECT('name', "name", 'score', "score") FROM "player"
// Player.select(Database.jsonObject(["name": Column("name"), "score": Column("score")] as KeyValuePairs))
// ```

import CSQLCipher

/// A function call whose arguments are SQL expressions.
private func jsonFunction(_ name: String, _ arguments: [SQLExpression], aggregate: Bool = false, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
    SQLExpression(.function(name, arguments, aggregate: aggregate, distinct: false, filter: filter?.sqlExpression))
}

/// The expression of an argument that becomes part of a JSON value: a JSON value
/// (``SQLJSONExpressible``) is wrapped in `JSONB(…)` (`JSON(…)` before SQLite 3.45), so that
/// SQLite embeds it as JSON rather than as a string, as GRDB (JSON-1). An expression that is
/// JSON already (`->`, a JSON function) and NULL are not wrapped.
private func jsonBuilderArgument(_ value: any SQLExpressible) -> SQLExpression {
    let expression = value.sqlExpression
    guard value is any SQLJSONExpressible, !expression.isNullValue, !expression.isJSON else {
        return expression
    }
    return jsonFunction(SQLExpression.jsonEmbeddingFunction, [expression])
}

extension SQLExpression {
    /// `JSONB` when SQLite has it (3.45 and later: SQLCipher 4.6), `JSON` otherwise.
    static let jsonEmbeddingFunction = sqlite3_libversion_number() >= 3_045_000 ? "JSONB" : "JSON"

    /// The JSON functions whose result is JSON.
    private static let jsonValuedFunctions: Set<String> = [
        "JSON", "JSONB", "JSON_ARRAY", "JSONB_ARRAY", "JSON_OBJECT", "JSONB_OBJECT",
        "JSON_INSERT", "JSONB_INSERT", "JSON_REPLACE", "JSONB_REPLACE", "JSON_SET", "JSONB_SET",
        "JSON_REMOVE", "JSONB_REMOVE", "JSON_PATCH", "JSONB_PATCH", "JSON_QUOTE",
        "JSON_GROUP_ARRAY", "JSONB_GROUP_ARRAY", "JSON_GROUP_OBJECT", "JSONB_GROUP_OBJECT",
    ]

    /// Whether the expression is JSON already: `->`, or a JSON function that returns JSON.
    var isJSON: Bool {
        switch kind {
        case .binary(.jsonRepresentation, _, _):
            return true
        case let .function(name, _, _, _, _), let .orderedAggregate(name, _, _, _):
            return Self.jsonValuedFunctions.contains(name.uppercased())
        default:
            return false
        }
    }
}

/// The arguments `path1, value1, path2, value2…` of `JSON_INSERT`, `JSON_SET`…
private func jsonAssignments(_ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> [SQLExpression] {
    assignments.flatMap { [$0.key.sqlExpression, jsonBuilderArgument($0.value)] }
}

extension Database {
    /// Options for ``Database/jsonIsValid(_:options:)``: the second argument of SQLite's
    /// `JSON_VALID`.
    public struct JSONValidationOptions: OptionSet, Sendable {
        public let rawValue: Int

        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Canonical RFC-8259 JSON text.
        public static let json = JSONValidationOptions(rawValue: 0x01)
        /// JSON5 text.
        public static let json5 = JSONValidationOptions(rawValue: 0x02)
        /// A blob that superficially looks like JSONB.
        public static let probablyJSONB = JSONValidationOptions(rawValue: 0x04)
        /// A blob that strictly conforms to JSONB.
        public static let jsonb = JSONValidationOptions(rawValue: 0x08)
    }

    // MARK: Building JSON

    /// `JSON(value)`: minified JSON text; fails on invalid JSON.
    ///
    /// ```swift
    /// // JSON(' [1, 2] ')
    /// Database.json(" [1, 2] ")
    /// ```
    public static func json(_ value: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSON", [value.sqlExpression])
    }

    /// `JSONB(value)`: the binary JSON of a value.
    public static func jsonb(_ value: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSONB", [value.sqlExpression])
    }

    /// `JSON_ARRAY(value1, value2, ...)`: a JSON array. JSON values are embedded as JSON.
    ///
    /// ```swift
    /// // JSON_ARRAY(1, 'two', "score")
    /// Database.jsonArray([1, "two", Column("score")] as [any SQLExpressible])
    /// ```
    public static func jsonArray(_ values: some Collection<any SQLExpressible>) -> SQLExpression {
        jsonFunction("JSON_ARRAY", values.map(jsonBuilderArgument))
    }

    /// `JSON_ARRAY(value1, value2, ...)`: a JSON array. JSON values are embedded as JSON.
    ///
    /// ```swift
    /// // JSON_ARRAY(1, 2, 3)
    /// Database.jsonArray([1, 2, 3])
    /// ```
    public static func jsonArray(_ values: some Collection<some SQLExpressible>) -> SQLExpression {
        jsonFunction("JSON_ARRAY", values.map { jsonBuilderArgument($0) })
    }

    /// `JSONB_ARRAY(value1, value2, ...)`: a JSONB array.
    public static func jsonbArray(_ values: some Collection<any SQLExpressible>) -> SQLExpression {
        jsonFunction("JSONB_ARRAY", values.map(jsonBuilderArgument))
    }

    /// `JSONB_ARRAY(value1, value2, ...)`: a JSONB array.
    public static func jsonbArray(_ values: some Collection<some SQLExpressible>) -> SQLExpression {
        jsonFunction("JSONB_ARRAY", values.map { jsonBuilderArgument($0) })
    }

    /// `JSON_OBJECT(key1, value1, key2, value2, ...)`: a JSON object. Use `KeyValuePairs` to
    /// keep the order of keys.
    ///
    /// ```swift
    /// // JSON_OBJECT('name', "name", 'score', "score")
    /// Database.jsonObject(["name": Column("name"), "score": Column("score")] as KeyValuePairs)
    /// ```
    public static func jsonObject(_ elements: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        jsonFunction("JSON_OBJECT", jsonAssignments(elements))
    }

    /// `JSONB_OBJECT(key1, value1, ...)`: a JSONB object.
    public static func jsonbObject(_ elements: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        jsonFunction("JSONB_OBJECT", jsonAssignments(elements))
    }

    /// `JSON_QUOTE(value)`: the JSON representation of an SQL value.
    ///
    /// ```swift
    /// // JSON_QUOTE('O"Brien')
    /// Database.jsonQuote("O\"Brien")
    /// ```
    public static func jsonQuote(_ value: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSON_QUOTE", [jsonBuilderArgument(value)])
    }

    /// `JSON_GROUP_ARRAY(value [ORDER BY ...]) [FILTER (WHERE ...)]`: the JSON array of the
    /// values of an aggregate.
    ///
    /// ```swift
    /// // SELECT JSON_GROUP_ARRAY("name" ORDER BY "score" DESC) FROM "player"
    /// Player.select(Database.jsonGroupArray(Column("name"), orderBy: Column("score").desc))
    /// ```
    public static func jsonGroupArray(_ value: some SQLExpressible, orderBy ordering: (any SQLOrderingTerm)? = nil, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
        groupArray("JSON_GROUP_ARRAY", value, orderBy: ordering, filter: filter)
    }

    /// `JSONB_GROUP_ARRAY(value [ORDER BY ...]) [FILTER (WHERE ...)]`.
    public static func jsonbGroupArray(_ value: some SQLExpressible, orderBy ordering: (any SQLOrderingTerm)? = nil, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
        groupArray("JSONB_GROUP_ARRAY", value, orderBy: ordering, filter: filter)
    }

    private static func groupArray(_ name: String, _ value: some SQLExpressible, orderBy ordering: (any SQLOrderingTerm)?, filter: (any SQLSpecificExpressible)?) -> SQLExpression {
        let argument = jsonBuilderArgument(value)
        if let ordering {
            return SQLExpression(.orderedAggregate(name, argument, ordering.sqlOrdering, filter: filter?.sqlExpression))
        }
        return jsonFunction(name, [argument], aggregate: true, filter: filter)
    }

    /// `JSON_GROUP_OBJECT(key, value) [FILTER (WHERE ...)]`: the JSON object of the keys and
    /// values of an aggregate.
    ///
    /// ```swift
    /// // SELECT JSON_GROUP_OBJECT("name", "score") FROM "player"
    /// Player.select(Database.jsonGroupObject(key: Column("name"), value: Column("score")))
    /// ```
    public static func jsonGroupObject(key: some SQLExpressible, value: some SQLExpressible, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
        jsonFunction("JSON_GROUP_OBJECT", [key.sqlExpression, jsonBuilderArgument(value)], aggregate: true, filter: filter)
    }

    /// `JSONB_GROUP_OBJECT(key, value) [FILTER (WHERE ...)]`.
    public static func jsonbGroupObject(key: some SQLExpressible, value: some SQLExpressible, filter: (any SQLSpecificExpressible)? = nil) -> SQLExpression {
        jsonFunction("JSONB_GROUP_OBJECT", [key.sqlExpression, jsonBuilderArgument(value)], aggregate: true, filter: filter)
    }

    // MARK: Reading JSON

    /// `JSON_ARRAY_LENGTH(value)`: the number of elements of a JSON array (0 for other values).
    ///
    /// ```swift
    /// // JSON_ARRAY_LENGTH('[1, 2, 3]')
    /// Database.jsonArrayLength("[1, 2, 3]")
    /// ```
    public static func jsonArrayLength(_ value: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSON_ARRAY_LENGTH", [value.sqlExpression])
    }

    /// `JSON_ARRAY_LENGTH(value, path)`: the number of elements of the array at a full path.
    ///
    /// ```swift
    /// // JSON_ARRAY_LENGTH("info", '$.tags')
    /// Database.jsonArrayLength(Column("info"), atPath: "$.tags")
    /// ```
    public static func jsonArrayLength(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSON_ARRAY_LENGTH", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_ERROR_POSITION(value)`: 0 for well-formed JSON, or the 1-based position of the
    /// first syntax error.
    public static func jsonErrorPosition(_ value: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSON_ERROR_POSITION", [value.sqlExpression])
    }

    /// `JSON_EXTRACT(value, path)`: the SQL value at a full path (JSON text for arrays and
    /// objects).
    ///
    /// ```swift
    /// // JSON_EXTRACT('{"a": [1, 2]}', '$.a[1]')
    /// Database.jsonExtract(#"{"a": [1, 2]}"#, atPath: "$.a[1]")
    /// ```
    public static func jsonExtract(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSON_EXTRACT", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_EXTRACT(value, path1, path2, ...)`: the JSON array of the values at several paths.
    public static func jsonExtract(_ value: some SQLExpressible, atPaths paths: some Collection<some SQLExpressible>) -> SQLExpression {
        jsonFunction("JSON_EXTRACT", [value.sqlExpression] + paths.map(\.sqlExpression))
    }

    /// `JSONB_EXTRACT(value, path)`: the value at a full path, as JSONB for arrays and objects.
    public static func jsonbExtract(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSONB_EXTRACT", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSONB_EXTRACT(value, path1, path2, ...)`.
    public static func jsonbExtract(_ value: some SQLExpressible, atPaths paths: some Collection<some SQLExpressible>) -> SQLExpression {
        jsonFunction("JSONB_EXTRACT", [value.sqlExpression] + paths.map(\.sqlExpression))
    }

    /// `JSON_TYPE(value)`: `'null'`, `'true'`, `'false'`, `'integer'`, `'real'`, `'text'`,
    /// `'array'` or `'object'`.
    public static func jsonType(_ value: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSON_TYPE", [value.sqlExpression])
    }

    /// `JSON_TYPE(value, path)`: the type of the element at a full path, or NULL when there is
    /// none.
    ///
    /// ```swift
    /// // JSON_TYPE("info", '$.tags')
    /// Database.jsonType(Column("info"), atPath: "$.tags")
    /// ```
    public static func jsonType(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSON_TYPE", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_VALID(value [, options])`: 1 when the value is well-formed JSON (of the kinds the
    /// options accept), 0 otherwise.
    ///
    /// ```swift
    /// // JSON_VALID("info")
    /// Database.jsonIsValid(Column("info"))
    /// // JSON_VALID("info", 6)
    /// Database.jsonIsValid(Column("info"), options: [.json5, .probablyJSONB])
    /// ```
    public static func jsonIsValid(_ value: some SQLExpressible, options: JSONValidationOptions? = nil) -> SQLExpression {
        var arguments = [value.sqlExpression]
        if let options {
            arguments.append(SQLExpression(.constant(String(options.rawValue))))
        }
        return jsonFunction("JSON_VALID", arguments)
    }

    // MARK: Modifying JSON

    /// `JSON_INSERT(value, path1, value1, ...)`: inserts values at paths that do not exist yet.
    ///
    /// ```swift
    /// // JSON_INSERT('[1, 2]', '$[#]', 3)
    /// Database.jsonInsert("[1, 2]", ["$[#]": 3] as KeyValuePairs)
    /// ```
    public static func jsonInsert(_ value: some SQLExpressible, _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        jsonFunction("JSON_INSERT", [value.sqlExpression] + jsonAssignments(assignments))
    }

    /// `JSONB_INSERT(value, path1, value1, ...)`.
    public static func jsonbInsert(_ value: some SQLExpressible, _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        jsonFunction("JSONB_INSERT", [value.sqlExpression] + jsonAssignments(assignments))
    }

    /// `JSON_REPLACE(value, path1, value1, ...)`: replaces the values at paths that exist.
    public static func jsonReplace(_ value: some SQLExpressible, _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        jsonFunction("JSON_REPLACE", [value.sqlExpression] + jsonAssignments(assignments))
    }

    /// `JSONB_REPLACE(value, path1, value1, ...)`.
    public static func jsonbReplace(_ value: some SQLExpressible, _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        jsonFunction("JSONB_REPLACE", [value.sqlExpression] + jsonAssignments(assignments))
    }

    /// `JSON_SET(value, path1, value1, ...)`: sets values, creating or replacing them.
    ///
    /// ```swift
    /// // UPDATE "player" SET "info" = JSON_SET("info", '$.level', 3)
    /// try Player.updateAll(db, Column("info").set(to: Database.jsonSet(Column("info"), ["$.level": 3] as KeyValuePairs)))
    /// ```
    public static func jsonSet(_ value: some SQLExpressible, _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        jsonFunction("JSON_SET", [value.sqlExpression] + jsonAssignments(assignments))
    }

    /// `JSONB_SET(value, path1, value1, ...)`.
    public static func jsonbSet(_ value: some SQLExpressible, _ assignments: some Collection<(key: String, value: any SQLExpressible)>) -> SQLExpression {
        jsonFunction("JSONB_SET", [value.sqlExpression] + jsonAssignments(assignments))
    }

    /// `JSON_PATCH(value, patch)`: applies an RFC-7396 MergePatch.
    ///
    /// ```swift
    /// // JSON_PATCH('{"a": 1, "b": 2}', '{"b": null, "c": 3}')
    /// Database.jsonPatch(#"{"a": 1, "b": 2}"#, with: #"{"b": null, "c": 3}"#)
    /// ```
    public static func jsonPatch(_ value: some SQLExpressible, with patch: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSON_PATCH", [value.sqlExpression, patch.sqlExpression])
    }

    /// `JSONB_PATCH(value, patch)`.
    public static func jsonbPatch(_ value: some SQLExpressible, with patch: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSONB_PATCH", [value.sqlExpression, patch.sqlExpression])
    }

    /// `JSON_REMOVE(value, path)`: removes the element at a full path.
    ///
    /// ```swift
    /// // JSON_REMOVE('[1, 2, 3]', '$[0]')
    /// Database.jsonRemove("[1, 2, 3]", atPath: "$[0]")
    /// ```
    public static func jsonRemove(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSON_REMOVE", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSON_REMOVE(value, path1, path2, ...)`: removes the elements at several full paths.
    public static func jsonRemove(_ value: some SQLExpressible, atPaths paths: some Collection<some SQLExpressible>) -> SQLExpression {
        jsonFunction("JSON_REMOVE", [value.sqlExpression] + paths.map(\.sqlExpression))
    }

    /// `JSONB_REMOVE(value, path)`.
    public static func jsonbRemove(_ value: some SQLExpressible, atPath path: some SQLExpressible) -> SQLExpression {
        jsonFunction("JSONB_REMOVE", [value.sqlExpression, path.sqlExpression])
    }

    /// `JSONB_REMOVE(value, path1, path2, ...)`.
    public static func jsonbRemove(_ value: some SQLExpressible, atPaths paths: some Collection<some SQLExpressible>) -> SQLExpression {
        jsonFunction("JSONB_REMOVE", [value.sqlExpression] + paths.map(\.sqlExpression))
    }
}
