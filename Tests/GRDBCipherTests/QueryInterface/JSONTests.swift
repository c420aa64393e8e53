import Foundation
import Testing
@testable import GRDBCipher

@Suite("JSON")
struct JSONTests {
    /// A `doc` table whose row 1 holds a JSON object.
    private func withDatabase(_ body: (Database) throws -> Void) throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.create(table: "doc") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("info", .jsonText)
                t.column("label", .text)
            }
            try db.execute(sql: """
                INSERT INTO doc (info, label) VALUES
                  ('{"name":"Ada","tags":["math","code"],"address":{"city":"London","country":"GB"},"level":3}', 'first'),
                  ('{"name":"Grace","tags":[],"address":{"city":"New York","country":"US"},"level":5}', 'second');
                """)
            try body(db)
        }
    }

    /// The SQL of an expression, with its arguments.
    private func render(_ db: Database, _ expression: some SQLExpressible) throws -> (sql: String, arguments: StatementArguments) {
        var context = SQLGenerationContext(db)
        let sql = try expression.sqlExpression.sql(&context)
        return (sql, context.arguments)
    }

    private func expectSQL(_ db: Database, _ expression: some SQLExpressible, _ sql: String, _ arguments: StatementArguments = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let rendered = try render(db, expression)
        #expect(rendered.sql == sql, sourceLocation: sourceLocation)
        #expect(rendered.arguments == arguments, sourceLocation: sourceLocation)
    }

    /// The value of an expression on the first row of `doc`.
    private func value<T: DatabaseValueConvertible>(_ db: Database, _ expression: some SQLSpecificExpressible, as type: T.Type = T.self, id: Int = 1) throws -> T? {
        try Table("doc").filter(Column("id") == id).select(expression, as: T.self).fetchOne(db)
    }

    @Test func jsonColumnExpressionIsTheColumn() throws {
        try withDatabase { db in
            let info = JSONColumn("info")
            // The JSON column's own `sqlExpression` is the plain column, qualified in joins.
            try expectSQL(db, info.sqlExpression, "\"info\"")
            let alias = TableAlias(name: "d")
            let request = Table("doc").aliased(alias).select(alias[info.sqlExpression]).order(Column("id"))
            #expect(try request.fetchAll(db).map { $0[0] as String? }.count == 2)
            #expect(try String.fetchOne(db, request) == #"{"name":"Ada","tags":["math","code"],"address":{"city":"London","country":"GB"},"level":3}"#)
            let statement = try request.makePreparedRequest(db).statement
            #expect(statement.sql == #"SELECT "d"."info" FROM "doc" "d" ORDER BY "d"."id""#)
        }
    }

    @Test func buildingJSON() throws {
        let info = JSONColumn("info"), label = Column("label")
        try withDatabase { db in
            try expectSQL(db, Database.json(" [1, 2] "), "JSON(?)", [" [1, 2] "])
            #expect(try value(db, Database.json(" [1, 2] "), as: String.self) == "[1,2]")

            // Homogeneous and heterogeneous arrays; a JSON column is embedded as JSON.
            try expectSQL(db, Database.jsonArray([1, 2, 3]), "JSON_ARRAY(?, ?, ?)", [1, 2, 3])
            let mixed: [any SQLExpressible] = [1, "two", label, info, Column("info")]
            try expectSQL(db, Database.jsonArray(mixed), "JSON_ARRAY(?, ?, \"label\", JSONB(\"info\"), \"info\")", [1, "two"])
            let array = try #require(try value(db, Database.jsonArray([label.sqlExpression, info["level"], info.jsonRepresentation(atPath: "tags")]), as: String.self))
            #expect(array == #"["first",3,["math","code"]]"#)

            let object = Database.jsonObject(["name": info["name"], "label": label, "address": info.jsonRepresentation(atPath: "address")] as KeyValuePairs<String, any SQLExpressible>)
            try expectSQL(db, object, "JSON_OBJECT(?, \"info\" ->> ?, ?, \"label\", ?, \"info\" -> ?)", ["name", "name", "label", "address", "address"])
            #expect(try value(db, object, as: String.self) == #"{"name":"Ada","label":"first","address":{"city":"London","country":"GB"}}"#)

            try expectSQL(db, Database.jsonQuote("O\"Brien"), "JSON_QUOTE(?)", ["O\"Brien"])
            #expect(try value(db, Database.jsonQuote("O\"Brien"), as: String.self) == #""O\"Brien""#)
            #expect(try value(db, Database.jsonQuote(info.jsonExtract(atPath: "$.level")), as: String.self) == "3")
        }
    }

    @Test func aggregates() throws {
        let info = JSONColumn("info"), label = Column("label")
        try withDatabase { db in
            let names = Database.jsonGroupArray(info["name"], orderBy: Column("id").desc)
            try expectSQL(db, names, "JSON_GROUP_ARRAY(\"info\" ->> ? ORDER BY \"id\" DESC)", ["name"])
            #expect(try Table("doc").select(names, as: String.self).fetchOne(db) == #"["Grace","Ada"]"#)

            let filtered = Database.jsonGroupArray(label, filter: info["level"] > 4)
            try expectSQL(db, filtered, "JSON_GROUP_ARRAY(\"label\") FILTER (WHERE (\"info\" ->> ?) > ?)", ["level", 4])
            #expect(try Table("doc").select(filtered, as: String.self).fetchOne(db) == #"["second"]"#)

            let addresses = Database.jsonGroupArray(info.jsonRepresentation(atPath: "address"))
            #expect(try Table("doc").select(addresses, as: String.self).order(Column("id")).fetchOne(db)?.hasPrefix(#"[{"city":"London""#) == true)
            try expectSQL(db, Database.jsonGroupArray(info), "JSON_GROUP_ARRAY(JSONB(\"info\"))")
            // As GRDB (JSON-1): JSON already, or NULL, is not wrapped.
            try expectSQL(db, Database.jsonArray([Database.jsonArray([1]).asJSON, info.jsonRepresentation(atPath: "$.a")] as [any SQLExpressible]), "JSON_ARRAY(JSON_ARRAY(?), \"info\" -> ?)", [1, "$.a"])

            let byLabel = Database.jsonGroupObject(key: label, value: info["level"])
            try expectSQL(db, byLabel, "JSON_GROUP_OBJECT(\"label\", \"info\" ->> ?)", ["level"])
            #expect(try Table("doc").select(byLabel, as: String.self).fetchOne(db) == #"{"first":3,"second":5}"#)
            let some = Database.jsonGroupObject(key: label, value: info["level"], filter: label == "first")
            #expect(try Table("doc").select(some, as: String.self).fetchOne(db) == #"{"first":3}"#)
        }
    }

    @Test func readingJSON() throws {
        let info = JSONColumn("info")
        try withDatabase { db in
            try expectSQL(db, Database.jsonArrayLength("[1, 2, 3]"), "JSON_ARRAY_LENGTH(?)", ["[1, 2, 3]"])
            #expect(try value(db, Database.jsonArrayLength("[1, 2, 3]"), as: Int.self) == 3)
            try expectSQL(db, Database.jsonArrayLength(info, atPath: "$.tags"), "JSON_ARRAY_LENGTH(\"info\", ?)", ["$.tags"])
            #expect(try value(db, Database.jsonArrayLength(info, atPath: "$.tags"), as: Int.self) == 2)
            #expect(try value(db, Database.jsonArrayLength(info, atPath: "$.tags"), as: Int.self, id: 2) == 0)

            #expect(try value(db, Database.jsonErrorPosition(#"{"a": 1}"#), as: Int.self) == 0)
            #expect(try value(db, Database.jsonErrorPosition(#"{"a" 1}"#), as: Int.self) == 6)

            try expectSQL(db, Database.jsonExtract(info, atPath: "$.address.city"), "JSON_EXTRACT(\"info\", ?)", ["$.address.city"])
            #expect(try value(db, Database.jsonExtract(info, atPath: "$.address.city"), as: String.self) == "London")
            try expectSQL(db, Database.jsonExtract(info, atPaths: ["$.name", "$.level"]), "JSON_EXTRACT(\"info\", ?, ?)", ["$.name", "$.level"])
            #expect(try value(db, Database.jsonExtract(info, atPaths: ["$.name", "$.level"]), as: String.self) == #"["Ada",3]"#)

            #expect(try value(db, Database.jsonType(info), as: String.self) == "object")
            try expectSQL(db, Database.jsonType(info, atPath: "$.tags"), "JSON_TYPE(\"info\", ?)", ["$.tags"])
            #expect(try value(db, Database.jsonType(info, atPath: "$.tags"), as: String.self) == "array")
            #expect(try value(db, Database.jsonType(info, atPath: "$.missing"), as: String.self) == nil)

            try expectSQL(db, Database.jsonIsValid(info), "JSON_VALID(\"info\")")
            try expectSQL(db, Database.jsonIsValid(info, options: [.json5, .probablyJSONB]), "JSON_VALID(\"info\", 6)")
            #expect(try value(db, Database.jsonIsValid("{a: 1}"), as: Bool.self) == false)
            #expect(try value(db, Database.jsonIsValid("{a: 1}", options: .json5), as: Bool.self) == true)
            #expect(try value(db, Database.jsonIsValid(Database.jsonb("[1]"), options: .jsonb), as: Bool.self) == true)
            #expect(try value(db, Database.jsonIsValid("[1]", options: .jsonb), as: Bool.self) == false)
            #expect(Database.JSONValidationOptions.json.rawValue == 1)
            #expect(Database.JSONValidationOptions.jsonb.rawValue == 8)
        }
    }

    @Test func modifyingJSON() throws {
        let info = JSONColumn("info")
        try withDatabase { db in
            let inserted = Database.jsonInsert("[1, 2]", ["$[#]": 3] as KeyValuePairs)
            try expectSQL(db, inserted, "JSON_INSERT(?, ?, ?)", ["[1, 2]", "$[#]", 3])
            #expect(try value(db, inserted, as: String.self) == "[1,2,3]")
            // Insert does not replace; replace does not create; set does both.
            #expect(try value(db, Database.jsonInsert(#"{"a":1}"#, ["$.a": 9, "$.b": 2] as KeyValuePairs), as: String.self) == #"{"a":1,"b":2}"#)
            #expect(try value(db, Database.jsonReplace(#"{"a":1}"#, ["$.a": 9, "$.b": 2] as KeyValuePairs), as: String.self) == #"{"a":9}"#)
            #expect(try value(db, Database.jsonSet(#"{"a":1}"#, ["$.a": 9, "$.b": 2] as KeyValuePairs), as: String.self) == #"{"a":9,"b":2}"#)
            // A JSON value is set as JSON, not as a string.
            let nested = Database.jsonSet(#"{}"#, ["$.where": info.jsonRepresentation(atPath: "address"), "$.raw": JSONColumn("label")] as KeyValuePairs<String, any SQLExpressible>)
            try expectSQL(db, nested, "JSON_SET(?, ?, \"info\" -> ?, ?, JSONB(\"label\"))", ["{}", "$.where", "address", "$.raw"])

            try expectSQL(db, Database.jsonPatch(#"{"a":1,"b":2}"#, with: #"{"b":null,"c":3}"#), "JSON_PATCH(?, ?)", [#"{"a":1,"b":2}"#, #"{"b":null,"c":3}"#])
            #expect(try value(db, Database.jsonPatch(#"{"a":1,"b":2}"#, with: #"{"b":null,"c":3}"#), as: String.self) == #"{"a":1,"c":3}"#)

            try expectSQL(db, Database.jsonRemove("[1, 2, 3]", atPath: "$[0]"), "JSON_REMOVE(?, ?)", ["[1, 2, 3]", "$[0]"])
            #expect(try value(db, Database.jsonRemove("[1, 2, 3]", atPath: "$[0]"), as: String.self) == "[2,3]")
            #expect(try value(db, Database.jsonRemove(info, atPaths: ["$.tags", "$.address", "$.level"]), as: String.self) == #"{"name":"Ada"}"#)

            // In an update.
            try Table("doc").filter(Column("id") == 2).updateAll(db, Column("info").set(to: Database.jsonSet(info, ["$.level": 6] as KeyValuePairs)))
            #expect(try value(db, info["level"], as: Int.self, id: 2) == 6)
        }
    }

    @Test func jsonbFunctions() throws {
        let info = JSONColumn("info")
        try withDatabase { db in
            // JSONB values are blobs; JSON() turns them back into text.
            try expectSQL(db, Database.jsonb("[1]"), "JSONB(?)", ["[1]"])
            #expect(try value(db, Database.jsonb("[1]"), as: Data.self)?.isEmpty == false)
            let cases: [(SQLExpression, String, String)] = [
                (Database.jsonbArray([1, 2]), "JSONB_ARRAY(?, ?)", "[1,2]"),
                (Database.jsonbArray([1, info] as [any SQLExpressible]), "JSONB_ARRAY(?, JSONB(\"info\"))", "[1,"),
                (Database.jsonbObject(["k": 1] as KeyValuePairs), "JSONB_OBJECT(?, ?)", #"{"k":1}"#),
                (Database.jsonbExtract(info, atPath: "$.address"), "JSONB_EXTRACT(\"info\", ?)", #"{"city":"London","country":"GB"}"#),
                (Database.jsonbExtract(info, atPaths: ["$.name", "$.level"]), "JSONB_EXTRACT(\"info\", ?, ?)", #"["Ada",3]"#),
                (Database.jsonbInsert("[1]", ["$[#]": 2] as KeyValuePairs), "JSONB_INSERT(?, ?, ?)", "[1,2]"),
                (Database.jsonbReplace("[1]", ["$[0]": 2] as KeyValuePairs), "JSONB_REPLACE(?, ?, ?)", "[2]"),
                (Database.jsonbSet("{}", ["$.a": 2] as KeyValuePairs), "JSONB_SET(?, ?, ?)", #"{"a":2}"#),
                (Database.jsonbPatch(#"{"a":1}"#, with: #"{"a":null}"#), "JSONB_PATCH(?, ?)", "{}"),
                (Database.jsonbRemove("[1,2]", atPath: "$[1]"), "JSONB_REMOVE(?, ?)", "[1]"),
                (Database.jsonbRemove("[1,2,3]", atPaths: ["$[2]", "$[0]"]), "JSONB_REMOVE(?, ?, ?)", "[2]"),
            ]
            for (expression, sql, text) in cases {
                #expect(try render(db, expression).sql == sql)
                let json = try #require(try value(db, Database.json(expression), as: String.self))
                #expect(json.hasPrefix(text), "\(sql): \(json)")
            }
            let grouped = Database.jsonbGroupArray(Column("label"), orderBy: Column("label").desc)
            try expectSQL(db, grouped, "JSONB_GROUP_ARRAY(\"label\" ORDER BY \"label\" DESC)")
            #expect(try Table("doc").select(Database.json(grouped), as: String.self).fetchOne(db) == #"["second","first"]"#)
            let object = Database.jsonbGroupObject(key: Column("label"), value: Column("id"), filter: Column("id") > 1)
            try expectSQL(db, object, "JSONB_GROUP_OBJECT(\"label\", \"id\") FILTER (WHERE \"id\" > ?)", [1])
            #expect(try Table("doc").select(Database.json(object), as: String.self).fetchOne(db) == #"{"second":2}"#)
            // A JSONB column reads through the JSON operators.
            try db.execute(sql: "CREATE TABLE bin (id INTEGER PRIMARY KEY, data BLOB)")
            try db.execute(literal: "INSERT INTO bin VALUES (1, \(Database.jsonb(#"{"x":[10,20]}"#)))")
            #expect(try Table("bin").select(JSONColumn("data")["$.x[1]"], as: Int.self).fetchOne(db) == 20)
        }
    }

    @Test func accessors() throws {
        let info = JSONColumn("info")
        try withDatabase { db in
            try expectSQL(db, info["name"], "\"info\" ->> ?", ["name"])
            try expectSQL(db, info[0], "\"info\" ->> ?", [0])
            try expectSQL(db, info.jsonRepresentation(atPath: "tags"), "\"info\" -> ?", ["tags"])
            try expectSQL(db, info["name"] == "Ada", "(\"info\" ->> ?) = ?", ["name", "Ada"])
            try expectSQL(db, info.jsonExtract(atPath: "$.name"), "JSON_EXTRACT(\"info\", ?)", ["$.name"])
            try expectSQL(db, info.jsonExtract(atPaths: ["$.name", "$.level"]), "JSON_EXTRACT(\"info\", ?, ?)", ["$.name", "$.level"])
            // `->` keeps JSON (strings quoted), `->>` gives SQL values.
            #expect(try value(db, info.jsonRepresentation(atPath: "name"), as: String.self) == #""Ada""#)
            #expect(try value(db, info["name"], as: String.self) == "Ada")
            #expect(try value(db, info["$.tags[1]"], as: String.self) == "code")
            #expect(try value(db, info.jsonRepresentation(atPath: "address").asJSON["country"], as: String.self) == "GB")
            #expect(try value(db, Column("info").asJSON["level"], as: Int.self) == 3)
            try expectSQL(db, (Column("a") + Column("b")).asJSON["x"], "(\"a\" + \"b\") ->> ?", ["x"])
            #expect(try value(db, AnySQLJSONExpressible(info)["level"], as: Int.self) == 3)
            #expect(JSONColumn("info").name == "info")
            enum CodingKeys: String, CodingKey { case info }
            #expect(JSONColumn(CodingKeys.info).name == "info")

            // Filtering and ordering on JSON values.
            let labels = try Table("doc").filter(info["level"] > 4).select(Column("label"), as: String.self).fetchAll(db)
            #expect(labels == ["second"])
            let ordered = try Table("doc").order(info["$.address.city"].desc).select(info["name"], as: String.self).fetchAll(db)
            #expect(ordered == ["Grace", "Ada"])

            // Table aliases.
            let alias = TableAlias(name: "d")
            let request = Table("doc").aliased(alias).select(alias[info]["name"], as: String.self).filter(alias[info]["level"] == 5)
            #expect(try request.makePreparedRequest(db).statement.sql == #"SELECT "d"."info" ->> ? FROM "doc" "d" WHERE ("d"."info" ->> ?) = ?"#)
            #expect(try request.fetchAll(db) == ["Grace"])

            // Malformed JSON is an SQL error.
            try db.execute(sql: "INSERT INTO doc (info) VALUES ('not json')")
            expectDatabaseError(.SQLITE_ERROR) {
                _ = try Table("doc").select(info["name"], as: String.self).fetchAll(db)
            }
            expectDatabaseError(.SQLITE_ERROR) {
                _ = try value(db, Database.json("{oops"), as: String.self)
            }
        }
    }

    @Test func recordsWithJSONColumns() throws {
        struct Address: Codable, Equatable, DatabaseValueConvertible {
            var city: String
            var country: String
        }
        struct Player: Codable, FetchableRecord, PersistableRecord, Equatable {
            var id: String
            var name: String
            var address: Address
            enum Columns {
                static let name = Column("name")
                static let address = JSONColumn("address")
            }
        }
        struct Team: Codable, FetchableRecord, PersistableRecord {
            var id: String
            var info: Data
            static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy { .text }
        }
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.create(table: "player") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("address", .jsonText).notNull()
            }
            let recorder = SQLRecorder()
            recorder.record(db)
            try db.create(index: "player_on_country", on: "player", expressions: [JSONColumn("address")["country"]])
            #expect(recorder.sql.last == #"CREATE INDEX "player_on_country" ON "player"("address" ->> 'country')"#)

            let ada = Player(id: "ada", name: "Ada", address: Address(city: "London", country: "GB"))
            let kurt = Player(id: "kurt", name: "Kurt", address: Address(city: "Berlin", country: "DE"))
            try ada.insert(db)
            try kurt.insert(db)
            #expect(try String.fetchOne(db, sql: "SELECT address FROM player WHERE id = 'kurt'") == #"{"city":"Berlin","country":"DE"}"#)

            let germans = try Player.filter { $0.address["country"] == "DE" }.fetchAll(db)
            #expect(germans == [kurt])
            // The index serves the query.
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT * FROM player WHERE address ->> 'country' = 'DE'").map { $0["detail"] as String }
            #expect(plan.joined().contains("player_on_country"), "\(plan)")
            // Through a table alias of the record.
            let alias = TableAlias<Player>(name: "p")
            let aliased = Player.aliased(alias).filter(alias.address["country"] == "GB")
            #expect(try aliased.makePreparedRequest(db).statement.sql == #"SELECT "p".* FROM "player" "p" WHERE ("p"."address" ->> ?) = ?"#)
            #expect(try aliased.fetchAll(db) == [ada])
            // A Codable value compares with its JSON text.
            #expect(try Player.filter { $0.address == Address(city: "London", country: "GB") }.fetchAll(db) == [ada])
            #expect(try Player.select { $0.address["city"] }.order(\.name).asRequest(of: String.self).fetchAll(db) == ["London", "Berlin"])

            try db.create(table: "team") { t in
                t.primaryKey("id", .text)
                t.column("info", .jsonText)
            }
            try Team(id: "red", info: Data(#"{"color":"red","size":3}"#.utf8)).insert(db)
            #expect(try String.fetchOne(db, sql: "SELECT typeof(info) FROM team") == "text")
            #expect(try Team.select(JSONColumn("info")["size"], as: Int.self).fetchOne(db) == 3)
        }
    }
}
