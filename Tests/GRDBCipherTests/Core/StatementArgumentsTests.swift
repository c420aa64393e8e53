import Foundation
import Testing
@testable import GRDBCipher

@Suite("StatementArguments and SQL literals")
struct StatementArgumentsTests {
    @Test func literalsAndInitializers() {
        let positional: StatementArguments = [1, "two", nil, 3.5]
        #expect(positional[0] == 1.databaseValue)
        #expect(positional[2] == .null)
        #expect(positional.description == "[1, \"two\", NULL, 3.5]")
        let named: StatementArguments = ["b": 2, "a": "x"]
        #expect(named["a"] == "x".databaseValue)
        #expect(named.description == "[\"a\": \"x\", \"b\": 2]")
        #expect(StatementArguments().isEmpty)
        #expect(StatementArguments([1, 2, 3]) == [1, 2, 3])
        #expect(StatementArguments([1, "a"] as [Any]) == [1, "a"])
        #expect(StatementArguments([1, NSObject()] as [Any]) == nil)
        #expect(StatementArguments(["a": 1] as [AnyHashable: Any]) == ["a": 1])
    }

    @Test func concatenation() {
        var arguments: StatementArguments = [1]
        arguments += [2]
        #expect(arguments == [1, 2])
        // As GRDB (ARG-1): `&+` lets the right side override, `+` concatenates distinct names.
        let merged: StatementArguments = ["a": 1] &+ ["a": 2, "b": 3]
        #expect(merged == ["a": 2, "b": 3])
        let defaults: StatementArguments = ["limit": 10, "offset": 0]
        #expect(defaults &+ ["limit": 50] == ["limit": 50, "offset": 0])
        #expect((StatementArguments(["a": 1]) + ["b": 2]) == ["a": 1, "b": 2])
        #expect(([1] as StatementArguments) + [2] == [1, 2])
    }

    /// Positional values live in storage of their own (`ArgumentValues`), copied on write.
    @Test func copiesAreIndependent() {
        let original: StatementArguments = [1, "text", Data([1, 2]), nil]
        var copy = original
        copy += [2.5]
        #expect(original == [1, "text", Data([1, 2]), nil])
        #expect(copy == [1, "text", Data([1, 2]), nil, 2.5])
        #expect(original != copy)
        #expect(original.hashValue == StatementArguments([1, "text", Data([1, 2]), nil] as [(any DatabaseValueConvertible)?]).hashValue)

        // Growth past the first allocation keeps every value, in order.
        var grown = StatementArguments()
        for index in 0..<100 {
            grown += [index, "v\(index)"]
        }
        #expect(grown[0] == 0.databaseValue)
        #expect(grown[199] == "v99".databaseValue)
        #expect(grown[200] == nil)
        #expect(grown.description.hasPrefix("[0, \"v0\", 1, \"v1\""))

        // A set of arguments dedupes equal ones.
        #expect(Set<StatementArguments>([[1, "a"], [1, "a"], [1, "b"], []]).count == 3)
    }

    @Test func addingADuplicateNameIsAFatalError() async {
        // GRDB's fatal error: `+` and `+=` refuse to override a name (`&+` does).
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var arguments: StatementArguments = ["limit": 10]
            arguments += ["limit": 50]
        }
        #expect(result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }?.contains("already defined statement argument: limit") == true)
    }

    @Test func sqlInterpolation() throws {
        let ids = [1, 2, 3]
        let table = "player"
        let name: String? = nil
        let test = try TestDatabase()
        func build(_ literal: SQL) throws -> (sql: String, arguments: StatementArguments) {
            try test.dbQueue.read { try literal.build($0) }
        }
        let literal: SQL = "SELECT * FROM \(sql: table) WHERE id IN \(ids) AND name IS \(name)"
        let (sql, arguments) = try build(literal)
        // A nil value is the NULL keyword, not a parameter.
        #expect(sql == "SELECT * FROM player WHERE id IN (?,?,?) AND name IS NULL")
        #expect(arguments == [1, 2, 3])
        var composed: SQL = "SELECT \(1)"
        composed.append(literal: " + \(2)")
        composed += SQL(sql: " + ?", arguments: [3])
        let parts: [SQL] = ["a = \(1)", "b = \(2)"]
        #expect(try build(composed).sql == "SELECT ? + ? + ?")
        #expect(try build(composed).arguments == [1, 2, 3])
        #expect(try build(parts.joined(separator: " AND ")).sql == "a = ? AND b = ?")
        #expect(databaseQuestionMarks(count: 3) == "?,?,?")
        #expect(try test.dbQueue.read { try Int.fetchOne($0.makeStatement(literal: composed)) } == 6)
    }

    @Test func dataIsOneParameter() throws {
        let test = try TestDatabase()
        let digest = Data("SQLite".utf8)
        let literal: SQL = "SELECT \(digest) = \(digest)"
        let (sql, arguments) = try test.dbQueue.read { try literal.build($0) }
        #expect(sql == "SELECT ? = ?")
        #expect(arguments == [digest, digest])
        #expect(try test.dbQueue.read { try Data.fetchOne($0, SQLRequest(literal: "SELECT \(digest)")) } == digest)
    }

    @Test func literalStatementsWithoutArgumentsTakeThemLater() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE player(name TEXT, score INTEGER)")
            let insert = try db.makeStatement(literal: "INSERT INTO player (name, score) VALUES (?, ?)")
            try insert.execute(arguments: ["Arthur", 1000])
            let select = try db.cachedStatement(literal: "SELECT score FROM player WHERE name = :name")
            #expect(try Int.fetchOne(select, arguments: ["name": "Arthur"]) == 1000)
            // A forgotten argument is still an error.
            expectDatabaseError(.SQLITE_MISUSE) {
                try db.makeStatement(literal: "INSERT INTO player (name, score) VALUES (?, ?)").execute()
            }
            // A literal with values binds them at once.
            let bound = try db.makeStatement(literal: "SELECT score FROM player WHERE name = \("Arthur")")
            #expect(try Int.fetchOne(bound) == 1000)
        }
    }

    @Test func columnsOfAreQualified() throws {
        struct Player: TableRecord {}
        struct Team: TableRecord {
            static let databaseSelection: [any SQLSelectable] = [Column("id"), Column("name")]
        }
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: """
                CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT, color TEXT);
                CREATE TABLE player(id INTEGER PRIMARY KEY, teamId INTEGER, name TEXT);
                INSERT INTO team VALUES (1, 'Reds', 'red');
                INSERT INTO player VALUES (7, 1, 'Arthur');
                """)
            let literal: SQL = """
                SELECT \(columnsOf: Player.self), \(columnsOf: Team.self)
                FROM player JOIN team ON team.id = player.teamId
                """
            #expect(try literal.build(db).sql == """
                SELECT "player".*, "team"."id", "team"."name"
                FROM player JOIN team ON team.id = player.teamId
                """)
            // Both tables have id and name: the qualified columns keep them apart.
            let row = try #require(try Row.fetchOne(db, SQLRequest(literal: literal)))
            #expect(row.count == 5)
            #expect(row[0] as Int == 7)
            #expect(row[3] as Int == 1)
            #expect(row[4] as String == "Reds")
            let aliased: SQL = "SELECT \(columnsOf: Player.self, tableAlias: "p") FROM player p"
            #expect(try aliased.build(db).sql == "SELECT \"p\".* FROM player p")
        }
    }

    @Test func tablesKeysAndCollationsInterpolate() throws {
        struct Tree: TableRecord, Codable {
            var species: String
            enum CodingKeys: String, CodingKey { case species }
        }
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE tree(species TEXT); INSERT INTO tree VALUES ('oak'), ('Ash'), ('elm')")
            let recordType: any TableRecord.Type = Tree.self
            let someKey: any CodingKey = Tree.CodingKeys.species
            let literal: SQL = """
                SELECT \(Tree.CodingKeys.species), \(someKey) FROM \(Table<Row>("tree")) \
                WHERE \(Tree.CodingKeys.species) IN (SELECT species FROM \(recordType)) \
                AND \(tableOf: Tree(species: "x")).species IS NOT NULL \
                ORDER BY \(Tree.CodingKeys.species) COLLATE \(DatabaseCollation.caseInsensitiveCompare), 1 COLLATE \(Database.CollationName.nocase)
                """
            let (sql, arguments) = try literal.build(db)
            #expect(sql == """
                SELECT "species", "species" FROM "tree" WHERE "species" IN (SELECT species FROM "tree") \
                AND "tree".species IS NOT NULL ORDER BY "species" COLLATE swiftCaseInsensitiveCompare, 1 COLLATE NOCASE
                """)
            #expect(arguments.isEmpty)
            #expect(try String.fetchAll(db, SQLRequest(literal: literal)) == ["Ash", "elm", "oak"])
            // A coding key that is also a column.
            enum Keys: String, CodingKey, ColumnExpression { case species }
            #expect(try SQL("SELECT \(Keys.species) FROM tree").build(db).sql == "SELECT \"species\" FROM tree")
        }
    }

    /// A reused statement bound from array literals (the W4 benchmark's path): every kind of
    /// value, NULLs, named parameters given positional values, and wrong counts refused without
    /// touching what the statement had bound.
    @Test func literalArgumentsBindInPlace() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a, b, c, d, e)")
            let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)")
            let blob = Data([0, 1, 2])
            let optionalText: String? = "opt"
            let none: Int? = nil
            try insert.execute(arguments: [Int64.max, "text", 2.5, blob, nil])
            try insert.execute(arguments: [1, optionalText, none, Data(), ""])
            #expect(insert.arguments == [1, "opt", nil, Data(), ""])
            let rows = try Row.fetchAll(db, sql: "SELECT a, b, c, d, e, typeof(d), typeof(e) FROM t ORDER BY rowid")
            #expect(rows[0] == ["a": Int64.max, "b": "text", "c": 2.5, "d": blob, "e": nil, "typeof(d)": "blob", "typeof(e)": "null"])
            #expect(rows[1] == ["a": 1, "b": "opt", "c": nil, "d": Data(), "e": "", "typeof(d)": "blob", "typeof(e)": "text"])
            // Each kind of value is stored with its own type (integers, doubles and NULL are
            // bound by the statement's loop, strings and blobs by the general bind).
            let types = try String.fetchAll(db, sql: "SELECT typeof(a) || ' ' || typeof(b) || ' ' || typeof(c) || ' ' || typeof(d) || ' ' || typeof(e) FROM t ORDER BY rowid")
            #expect(types == ["integer text real blob null", "integer text null blob text"])

            // Named parameters take positional values in order.
            let named = try db.makeStatement(sql: "SELECT :x || :y")
            #expect(try String.fetchOne(named, arguments: ["a", "b"]) == "ab")
            #expect(try String.fetchOne(named, arguments: ["y": "2", "x": "1"]) == "12")

            // Too few or too many values: an error, and the previous arguments stay bound.
            for arguments: StatementArguments in [[1, 2, 3, 4], [1, 2, 3, 4, 5, 6], []] {
                let error = try #require(throws: DatabaseError.self) { try insert.execute(arguments: arguments) }
                #expect(error.resultCode == .SQLITE_MISUSE)
                #expect(error.message?.hasPrefix("wrong number of statement arguments") == true)
            }
            #expect(insert.arguments == [1, "opt", nil, Data(), ""])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 2)
        }
    }
}
