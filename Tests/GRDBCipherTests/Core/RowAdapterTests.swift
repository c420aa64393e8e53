import Foundation
import Testing
@testable import GRDBCipher

private struct RAPlayer: Codable, FetchableRecord, TableRecord, Equatable {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
    var teamId: Int64?
}

private struct RATeam: Codable, FetchableRecord, TableRecord, Equatable {
    static let databaseTableName = "team"
    var id: Int64
    var name: String
}

/// A Decodable record of a player and its team, decoded from scopes.
private struct RAPlayerInfo: Decodable, FetchableRecord, Equatable {
    var player: RAPlayer // not a column, not a scope: the row's own columns
    var team: RATeam?    // the "team" scope
}

/// The same, with `init(row:)` and record subscripts.
private struct RAPlayerInfoByRow: FetchableRecord, Equatable {
    var player: RAPlayer
    var team: RATeam?

    init(row: Row) throws {
        player = try RAPlayer(row: row)
        team = row["team"]
    }
}

private let schema = """
    CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, teamId INTEGER REFERENCES team(id));
    INSERT INTO team VALUES (1, 'red'), (2, 'blue');
    INSERT INTO player VALUES (1, 'Arthur', 1), (2, 'Barbara', 2), (3, 'Craig', NULL);
    """

/// Players and their teams, left-joined: 3 player columns, then 2 team columns.
private let joinSQL = "SELECT player.*, team.* FROM player LEFT JOIN team ON team.id = player.teamId ORDER BY player.id"

@Suite("RowAdapter")
struct RowAdapterTests {
    private func withDatabase(_ body: (Database) throws -> Void) throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: schema)
            try body(db)
        }
    }

    @Test func columnAdapters() throws {
        try withDatabase { (db: Database) throws in
            let sql = "SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d"
            let suffix = try Row.fetchOne(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 2))!
            #expect(suffix == ["c": 3, "d": 4])
            #expect(suffix.unadapted == ["a": 1, "b": 2, "c": 3, "d": 4])
            #expect(suffix["a"] == nil && suffix.hasColumn("a") == false)
            #expect(suffix[0] as Int == 3 && suffix["D"] as Int == 4)

            #expect(try Row.fetchOne(db, sql: sql, adapter: RangeRowAdapter(1..<3)) == ["b": 2, "c": 3])
            #expect(try Row.fetchOne(db, sql: sql, adapter: RangeRowAdapter(0...0)) == ["a": 1])
            #expect(try Row.fetchOne(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 4)) == Row())
            #expect(try Row.fetchOne(db, sql: sql, adapter: EmptyRowAdapter())?.isEmpty == true)

            // Mapped columns keep the order of the columns they read; names are case-insensitive.
            let mapped = try Row.fetchOne(db, sql: sql, adapter: ColumnMapping(["z": "C", "y": "a"]))!
            #expect(mapped.columnNames == ["y", "z"])
            #expect(mapped == ["y": 1, "z": 3])

            let renamed = try Row.fetchOne(db, sql: sql, adapter: RenameColumnAdapter { "x_" + $0 })!
            #expect(renamed.columnNames == ["x_a", "x_b", "x_c", "x_d"])

            // Adapters compose: a mapping over a suffix reads the suffix's columns.
            let request = SQLRequest<Row>(sql: sql, adapter: SuffixRowAdapter(fromIndex: 2)).adapted { _ in ColumnMapping(["first": "c"]) }
            #expect(try request.fetchOne(db) == ["first": 3])
            #expect(try request.fetchCount(db) == 1)

            // Copies keep the adaptation; fetchAll copies.
            let rows = try Row.fetchAll(db, sql: "SELECT id, name FROM player ORDER BY id", adapter: SuffixRowAdapter(fromIndex: 1))
            #expect(rows.map { $0["name"] as String } == ["Arthur", "Barbara", "Craig"])
            #expect(rows[0].unadapted == ["id": 1, "name": "Arthur"])
        }
    }

    @Test func valuesAndRecordsThroughAdapters() throws {
        try withDatabase { (db: Database) throws in
            let names = try String.fetchAll(db, sql: "SELECT id, name FROM player ORDER BY id", adapter: SuffixRowAdapter(fromIndex: 1))
            #expect(names == ["Arthur", "Barbara", "Craig"])
            let teamIds = try Int64?.fetchAll(db, sql: "SELECT name, teamId FROM player ORDER BY id", adapter: SuffixRowAdapter(fromIndex: 1))
            #expect(teamIds == [1, 2, nil])
            let firstName = try String.fetchOne(db, sql: "SELECT id, name FROM player ORDER BY id", adapter: SuffixRowAdapter(fromIndex: 1))
            #expect(firstName == "Arthur")
            let dates = try DatabaseValue.fetchAll(db, sql: "SELECT id, name FROM player ORDER BY id", adapter: RangeRowAdapter(1..<2))
            #expect(dates == ["Arthur".databaseValue, "Barbara".databaseValue, "Craig".databaseValue])

            // Records read the mapped columns; a cursor and fetchAll agree.
            let mapping = ColumnMapping(["id": "playerId", "name": "playerName", "teamId": "tid"])
            let sql = "SELECT 9 AS tid, id AS playerId, name AS playerName FROM player ORDER BY id"
            let players = try RAPlayer.fetchAll(db, sql: sql, adapter: mapping)
            #expect(players.map(\.name) == ["Arthur", "Barbara", "Craig"])
            #expect(players.allSatisfy { $0.teamId == 9 })
            let cursor = try RAPlayer.fetchCursor(db, sql: sql, adapter: mapping)
            #expect(try cursor.next()?.name == "Arthur")

            // Requests: SQLRequest's adapter and adapted(_:) on a query interface request.
            let request = RAPlayer.select(Column("name"), Column("id")).asRequest(of: Row.self).adapted { _ in SuffixRowAdapter(fromIndex: 1) }
            #expect(try request.fetchAll(db).map { $0["id"] as Int64 } == [1, 2, 3])
            let adaptedPlayers = try SQLRequest<RAPlayer>(sql: sql, adapter: mapping).fetchAll(db)
            #expect(adaptedPlayers == players)
            #expect(try SQLRequest<String>(sql: "SELECT id, name FROM player WHERE id = 2", adapter: SuffixRowAdapter(fromIndex: 1)).fetchOne(db) == "Barbara")
        }
    }

    @Test func scopes() throws {
        try withDatabase { (db: Database) throws in
            let adapters = try splittingRowAdapters(columnCounts: [RAPlayer.numberOfSelectedColumns(db)])
            #expect(adapters.count == 2)
            let adapter = ScopeAdapter(base: adapters[0], scopes: ["team": adapters[1]])
            let rows = try Row.fetchAll(db, sql: joinSQL, adapter: adapter)
            #expect(rows[0].columnNames == ["id", "name", "teamId"])
            #expect(rows[0].scopes.names == ["team"])
            #expect(rows[0].scopes["team"] == ["id": 1, "name": "red"])
            #expect(rows[0].scopes["nope"] == nil)
            #expect(rows[0].unscoped.scopes.isEmpty)
            #expect(rows[0].unscoped.columnNames == ["id", "name", "teamId"])
            #expect(rows[2].scopes["team"]?.containsNonNullValue == false)

            // Record subscripts: non-optional and optional; a scope of NULLs is nil.
            let red: RATeam = rows[0]["team"]
            #expect(red == RATeam(id: 1, name: "red"))
            #expect(rows[1]["team"] as RATeam? == RATeam(id: 2, name: "blue"))
            #expect(rows[2]["team"] as RATeam? == nil)
            #expect(rows[0]["missing"] as RATeam? == nil)

            // Records decoded from scopes, with init(row:) and with Decodable.
            let expected = [
                RAPlayerInfo(player: RAPlayer(id: 1, name: "Arthur", teamId: 1), team: RATeam(id: 1, name: "red")),
                RAPlayerInfo(player: RAPlayer(id: 2, name: "Barbara", teamId: 2), team: RATeam(id: 2, name: "blue")),
                RAPlayerInfo(player: RAPlayer(id: 3, name: "Craig", teamId: nil), team: nil),
            ]
            #expect(try RAPlayerInfo.fetchAll(db, sql: joinSQL, adapter: adapter) == expected)
            let byRow = try RAPlayerInfoByRow.fetchAll(db, sql: joinSQL, adapter: adapter)
            #expect(byRow.map(\.player) == expected.map(\.player) && byRow.map(\.team) == expected.map(\.team))

            // The same through a request adapted per database (column counts read from the schema).
            let request = SQLRequest<RAPlayerInfo>(sql: joinSQL).adapted { db in
                let adapters = try splittingRowAdapters(columnCounts: [RAPlayer.numberOfSelectedColumns(db)])
                return ScopeAdapter(base: adapters[0], scopes: ["team": adapters[1]])
            }
            #expect(try request.fetchAll(db) == expected)
            #expect(try request.fetchOne(db) == expected[0])
        }
    }

    /// The live rows of a cursor, read through an adapter by name: lookups in a different
    /// order on each row, in another case, of a name that two columns share (the leftmost
    /// wins, ignoring case), and two scopes asked in turn, keep their answers row after row.
    @Test func liveJoinedRowsReadByName() throws {
        try withDatabase { (db: Database) throws in
            let sql = """
                SELECT player.id, player.name, player.teamId, player.name AS NAME, \
                       team.id, team.name, team.id AS tid \
                FROM player LEFT JOIN team ON team.id = player.teamId ORDER BY player.id
                """
            let adapter = ScopeAdapter(base: RangeRowAdapter(0..<4), scopes: [
                "team": RangeRowAdapter(4..<6),
                "key": RangeRowAdapter(6..<7),
            ])
            let cursor = try Row.fetchCursor(db, sql: sql, adapter: adapter)
            var seen: [String] = []
            var rowIndex = 0
            while let row = try cursor.next() {
                let id: Int64 = row["id"]
                let name: String
                let upper: String
                if rowIndex.isMultiple(of: 2) {
                    name = row["name"]
                    upper = row["NAME"]
                } else {
                    upper = row["NAME"]
                    name = row["Name"]
                }
                // "NAME" is the fourth column, but "name" (the second) is its leftmost match.
                #expect(upper == name)
                #expect(row.columnNames == ["id", "name", "teamId", "NAME"])
                let teamId: Int64? = row["teamId"]
                let team: RATeam? = row["team"]
                let key: Row? = row.scopes["key"]
                let teamAgain: RATeam? = rowIndex == 1 ? row["team"] : team
                #expect(team == teamAgain)
                seen.append("\(id) \(name) \(teamId.map(String.init) ?? "-") \(team?.name ?? "-") \(key?["tid"] as Int64? ?? 0)")
                rowIndex += 1
            }
            #expect(seen == ["1 Arthur 1 red 1", "2 Barbara 2 blue 2", "3 Craig - - 0"])
        }
    }

    @Test func nestedScopes() throws {
        try withDatabase { (db: Database) throws in
            // Each scope adapter reads the same columns as its base: the whole row here.
            let inner = ScopeAdapter(base: RangeRowAdapter(0..<2), scopes: ["c": RangeRowAdapter(2..<3)])
            let adapter = ScopeAdapter(["ab": inner]).addingScopes(["d": SuffixRowAdapter(fromIndex: 3)])
            let row = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d", adapter: adapter)!
            #expect(row.columnNames == ["a", "b", "c", "d"])
            #expect(row.scopes.names == ["ab", "d"])
            #expect(row.scopes["ab"]?.unscoped == ["a": 1, "b": 2])
            #expect(row.scopes["ab"]?.scopes["c"] == ["c": 3])
            #expect(row.scopes["c"] == nil) // not a direct scope
            #expect(row.scopesTree["c"] == ["c": 3])
            #expect(row.scopesTree.names == ["ab", "c", "d"])
            #expect(row.scopes.map(\.name) == ["ab", "d"])
            #expect(row.debugDescription.contains("- ab: [a:1 b:2]"))

            // Rows with different scopes are different.
            let plain = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d")!
            #expect(row != plain)
            #expect(row.unscoped == plain)
        }
    }

    /// `scopesTree` finds the nearest scope of a name: the row's own scopes, then level by
    /// level, parents taken in order of their names. The paths are found once per layout: a
    /// copied row and a live row find the same scopes.
    @Test func scopesTreeFindsTheNearestScopeBreadthFirst() throws {
        try withDatabase { (db: Database) throws in
            let adapter = ScopeAdapter([
                "b": ScopeAdapter(["k": RangeRowAdapter(0..<1), "n": RangeRowAdapter(1..<2)]),
                "a": ScopeAdapter([
                    "n": RangeRowAdapter(2..<3),
                    "m": ScopeAdapter(["k": RangeRowAdapter(3..<4), "deep": RangeRowAdapter(4..<5)]),
                ]),
                "k": EmptyRowAdapter(),
            ])
            let sql = "SELECT 1 AS c0, 2 AS c1, 3 AS c2, 4 AS c3, 5 AS c4"
            func check(_ row: Row) -> [String] {
                [
                    "\(row.scopesTree["k"].map(\.description) ?? "nil")",     // the row's own, though empty
                    "\(row.scopesTree["n"].map(\.description) ?? "nil")",     // depth 2: under a before b
                    "\(row.scopesTree["deep"].map(\.description) ?? "nil")",  // depth 3
                    "\(row.scopesTree["m"]?.scopes["k"].map(\.description) ?? "nil")",
                    "\(row.scopes["b"]?.scopesTree["k"].map(\.description) ?? "nil")",
                    "\(row.scopesTree["missing"].map(\.description) ?? "nil")",
                ]
            }
            let expected = ["[]", "[c2:3]", "[c4:5]", "[c3:4]", "[c0:1]", "nil"]
            let copied = try #require(try Row.fetchOne(db, sql: sql, adapter: adapter))
            #expect(check(copied) == expected)
            let cursor = try Row.fetchCursor(db, sql: sql, adapter: adapter)
            let live = try #require(try cursor.next())
            #expect(check(live) == expected)
            #expect(copied.scopesTree.names == ["a", "b", "deep", "k", "m", "n"])

            // Without the row's own "k", the nearest is under "b" (depth 2), not under a.m.
            let withoutOwnK = ScopeAdapter([
                "b": ScopeAdapter(["k": RangeRowAdapter(0..<1)]),
                "a": ScopeAdapter(["m": ScopeAdapter(["k": RangeRowAdapter(3..<4)])]),
            ])
            let row = try #require(try Row.fetchOne(db, sql: sql, adapter: withoutOwnK))
            #expect(row.scopesTree["k"] == ["c0": 1])
        }
    }

    @Test func debugDescriptionsShowTheUnadaptedRowAndTheScopes() throws {
        try withDatabase { (db: Database) throws in
            // As GRDB writes them: a plain row is its description; an adapted row is marked,
            // then comes the unadapted row, then the scopes by name, nested ones indented.
            let plain = try Row.fetchOne(db, sql: "SELECT 1 AS a, 'x' AS b")!
            #expect(plain.debugDescription == #"[a:1 b:"x"]"#)
            #expect(Row().debugDescription == "[]")

            let mapped = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c", adapter: ColumnMapping(["x": "a"]))!
            #expect(mapped.debugDescription == "▿ [x:1]\n  unadapted: [a:1 b:2 c:3]")

            let adapter = ScopeAdapter(base: RangeRowAdapter(0..<1), scopes: [
                "t": ScopeAdapter(["u": SuffixRowAdapter(fromIndex: 2)]),
                "s": SuffixRowAdapter(fromIndex: 1),
            ])
            let scoped = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c", adapter: adapter)!
            #expect(scoped.debugDescription == """
                ▿ [a:1]
                  unadapted: [a:1 b:2 c:3]
                  - s: [b:2 c:3]
                  - t: [a:1 b:2 c:3]
                    - u: [c:3]
                """)
        }
    }

    @Test func badInput() throws {
        try withDatabase { (db: Database) throws in
            let sql = "SELECT 1 AS a, 2 AS b"
            let error = expectDatabaseError(.SQLITE_MISUSE) {
                _ = try Row.fetchAll(db, sql: sql, adapter: ColumnMapping(["x": "missing"]))
            }
            #expect(error?.message == "ColumnMapping: column \"missing\" (mapped to \"x\") not found; the row's columns are [\"a\", \"b\"]")
            let range = expectDatabaseError(.SQLITE_MISUSE) {
                _ = try Row.fetchAll(db, sql: sql, adapter: RangeRowAdapter(1..<3))
            }
            #expect(range?.message == "RangeRowAdapter: columns 1..<3 are out of the row's 2 columns")
            expectDatabaseError(.SQLITE_MISUSE) {
                _ = try Row.fetchAll(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 3))
            }
            // A value fetch through an adapter that keeps no column.
            expectDatabaseError(.SQLITE_MISUSE) {
                _ = try Int.fetchAll(db, sql: sql, adapter: EmptyRowAdapter())
            }
            expectDatabaseError(.SQLITE_MISUSE) {
                _ = try Int.fetchOne(db, sql: sql, adapter: EmptyRowAdapter())
            }
            // The statement is usable again after a failed adaptation.
            #expect(try Int.fetchOne(db, sql: sql) == 1)

            // A Decodable record whose nested record is neither a scope nor decodable from the row.
            struct Broken: Decodable, FetchableRecord { var team: RATeam }
            #expect(throws: RowDecodingError.self) {
                _ = try Broken.fetchAll(db, sql: "SELECT 1 AS x")
            }
            do {
                _ = try Broken.fetchAll(db, sql: "SELECT 1 AS x")
            } catch let error as RowDecodingError {
                #expect(error.description.contains("column not found: \"team\""))
                #expect(error.description.contains("column not found: \"id\""))
            }
        }
    }
}
