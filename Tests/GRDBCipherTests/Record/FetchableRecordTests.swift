import Foundation
import Testing
@testable import GRDBCipher

@Suite("FetchableRecord")
struct FetchableRecordTests {
    @Test func fetchFromSQLAndStatements() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try makePlayers(db)
            let sql = "SELECT * FROM player WHERE score >= ? ORDER BY id"
            #expect(try Player.fetchAll(db, sql: sql, arguments: [200]).map(\.name) == ["Barbara", "Craig"])
            #expect(try ManualPlayer.fetchSet(db, sql: sql, arguments: [0]).count == 3)
            #expect(try Player.fetchOne(db, sql: sql, arguments: [300])?.name == "Craig")
            #expect(try Player.fetchOne(db, sql: sql, arguments: [1000]) == nil)
            let cursor = try Player.fetchCursor(db, sql: sql, arguments: [0])
            var names: [String] = []
            while let player = try cursor.next() { names.append(player.name) }
            #expect(names == ["Arthur", "Barbara", "Craig"])
            let statement = try db.makeStatement(sql: sql)
            #expect(try ManualPlayer.fetchAll(statement, arguments: [300]).map(\.id) == [3])
            #expect(try Player.fetchAll(db).count == 3)
            #expect(try Player.fetchSet(db).count == 3)
            // Columns in another order than the properties, and case differences.
            let reordered = try Player.fetchOne(db, sql: "SELECT SCORE, Name, email, id FROM player WHERE id = 2")
            #expect(reordered == Player(id: 2, name: "Barbara", email: "barbara@example.com", score: 200))
            // Wrong argument count: a thrown error, not a crash.
            expectDatabaseError(.SQLITE_MISUSE) { _ = try Player.fetchAll(db, sql: sql, arguments: []) }
        }
    }

    @Test func lookupOrderChangesBetweenRows() throws {
        // A record that reads different columns depending on the row.
        struct Shape: FetchableRecord {
            var value: Int
            init(row: Row) {
                if row["kind"] as String == "a" {
                    value = row["a"]
                } else {
                    value = (row["b"] as Int) + (row["a"] as Int)
                }
            }
        }
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let shapes = try Shape.fetchAll(db, sql: "SELECT 'a' AS kind, 1 AS a, 10 AS b UNION ALL SELECT 'b', 2, 20 UNION ALL SELECT 'a', 3, 30")
            #expect(shapes.map(\.value) == [1, 22, 3])
        }
    }

    @Test func decodingErrorsNameTheColumnAndTheRecord() throws {
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            do {
                _ = try Player.fetchOne(db, sql: "SELECT 1 AS id, 'Arthur' AS name")
                Issue.record("expected an error")
            } catch let error as RowDecodingError {
                #expect(error.description.contains("column not found: \"score\""))
                #expect(error.description.contains("Player"))
            }
            do {
                // (Text read as a number converts as SQLite converts it: a NULL fails.)
                _ = try Player.fetchOne(db, sql: "SELECT 1 AS id, 'secret text' AS name, NULL AS score")
                Issue.record("expected an error")
            } catch let error as RowDecodingError {
                #expect(error.description.contains("\"score\""))
                #expect(error.description.contains("Player"))
                #expect(!error.description.contains("secret"))
            }
            do {
                _ = try Player.fetchOne(db, sql: "SELECT 1 AS id, NULL AS name, 3 AS score")
                Issue.record("expected an error")
            } catch let error as RowDecodingError {
                #expect(error.description.contains("\"name\""))
            }
            // Optional properties accept missing columns and NULL.
            let player = try Player.fetchOne(db, sql: "SELECT NULL AS id, 'A' AS name, 1 AS score")
            #expect(player == Player(id: nil, name: "A", email: nil, score: 1))
        }
    }

    struct Achievement: Codable, Equatable {
        var name: String
        var color: Color
    }

    enum Color: String, Codable {
        case bronze, gold
    }

    struct Profile: Codable, FetchableRecord, PersistableRecord, Equatable {
        var id: Int64
        var color: Color
        var achievements: [Achievement]
        var tags: Set<String>?
        var createdAt: Date
        var avatar: Data
        var token: UUID
    }

    @Test func nestedValuesAreJSON() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE profile (id INTEGER PRIMARY KEY, color TEXT, achievements TEXT, tags TEXT, createdAt TEXT, avatar BLOB, token BLOB)")
            let profile = Profile(
                id: 1, color: .gold, achievements: [Achievement(name: "First", color: .bronze)], tags: nil,
                createdAt: Date(timeIntervalSince1970: 86400), avatar: Data([1, 2]), token: UUID())
            try profile.insert(db)
            let row = try Row.fetchOne(db, sql: "SELECT color, achievements, tags, createdAt, typeof(avatar) AS t, length(token) AS n FROM profile")!
            #expect(row["color"] as String == "gold")
            #expect(row["achievements"] as String == #"[{"color":"bronze","name":"First"}]"#)
            #expect(row["tags"] as String? == nil)
            #expect(row["createdAt"] as String == "1970-01-02 00:00:00.000")
            #expect(row["t"] as String == "blob")
            #expect(row["n"] as Int == 16)
            #expect(try Profile.fetchOne(db, key: 1) == profile)
            // Invalid JSON: an error naming the column, without the content.
            try db.execute(sql: "UPDATE profile SET achievements = '[{\"name\": \"private\"'")
            do {
                _ = try Profile.fetchOne(db, key: 1)
                Issue.record("expected an error")
            } catch let error as RowDecodingError {
                #expect(error.description.contains("\"achievements\""))
                #expect(!error.description.contains("private"))
            }
        }
    }

    struct SnakePlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
        static let databaseTableName = "snake"
        static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
        static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
        static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .millisecondsSince1970 }
        static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .millisecondsSince1970 }
        static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .uppercaseString }
        static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy { .text }
        var playerId: UUID
        var teamName: String
        var lastSeen: Date
        var note: Data
    }

    @Test func codingStrategies() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE snake (player_id TEXT PRIMARY KEY, team_name TEXT, last_seen INTEGER, note TEXT)")
            let uuid = UUID()
            let player = SnakePlayer(playerId: uuid, teamName: "Red", lastSeen: Date(timeIntervalSince1970: 1.5), note: Data("hi".utf8))
            try player.insert(db)
            let row = try Row.fetchOne(db, sql: "SELECT * FROM snake")!
            #expect(row["player_id"] as String == uuid.uuidString)
            #expect(row["last_seen"] as Int64 == 1500)
            #expect(row["note"] as String == "hi")
            #expect(try SnakePlayer.fetchAll(db) == [player])
            // Key lookups use the UUID strategy: the text form is found.
            #expect(try SnakePlayer.fetchOne(db, key: uuid) == player)
            #expect(try SnakePlayer.exists(db, key: ["player_id": uuid]))
        }
        #expect(snakeCased("playerID") == "player_id")
        #expect(snakeCased("httpRequest") == "http_request")
        #expect(camelCasedFromSnakeCase("player_id") == "playerId")
        #expect(camelCasedFromSnakeCase("_private_value_") == "_privateValue_")
    }

    /// A live row remembers the decoder of the last record type it decoded: other types, and
    /// other strategies, decoded from the same row get their own.
    @Test func severalRecordTypesFromOneLiveRow() throws {
        struct Named: Decodable, FetchableRecord, Equatable { var name: String }
        struct Scored: Decodable, FetchableRecord, Equatable { var score: Int; var name: String? }
        struct Snaked: Decodable, FetchableRecord, Equatable {
            static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
            var teamName: String
        }
        let test = try TestDatabase()
        try test.dbQueue.read { (db: Database) throws in
            let rows = try Row.fetchCursor(db, sql: "SELECT 'Arthur' AS name, 10 AS score, 'Red' AS team_name UNION ALL SELECT 'Barbara', 20, 'Blue'")
            var decoded: [String] = []
            while let row = try rows.next() {
                let named = try Named(row: row)
                let scored = try Scored(row: row)
                let snaked = try Snaked(row: row)
                let namedAgain = try Named(row: row)
                #expect(named == namedAgain)
                decoded.append("\(named.name) \(scored.score) \(scored.name ?? "-") \(snaked.teamName)")
            }
            #expect(decoded == ["Arthur 10 Arthur Red", "Barbara 20 Barbara Blue"])
            // A copied row decodes the same.
            let copy = try Row.fetchOne(db, sql: "SELECT 'Craig' AS name, 30 AS score")!
            #expect(try Scored(row: copy) == Scored(score: 30, name: "Craig"))
            #expect(try Scored(row: copy) == Scored(score: 30, name: "Craig"))
            // The live row's cached decoders refer to it: they must not keep it (and its
            // statement) alive once its cursor is gone.
            weak var weakRow: Row?
            do {
                let cursor = try Row.fetchCursor(db, sql: "SELECT 'Dan' AS name, 40 AS score")
                let row = try #require(try cursor.next())
                #expect(try Scored(row: row).score == 40)
                weakRow = row
            }
            #expect(weakRow == nil)
            weak var weakStatement: Statement?
            do {
                // An uncached statement: only the cursor and its row keep it.
                let statement = try db.makeStatement(sql: "SELECT 'Dan' AS name, 40 AS score")
                let cursor = try Scored.fetchCursor(statement)
                #expect(try cursor.next()?.score == 40)
                weakStatement = statement
            }
            #expect(weakStatement == nil)
        }
    }

    @Test func userInfoAndCustomJSONDecoder() throws {
        struct Item: Decodable, FetchableRecord {
            static let key = CodingUserInfoKey(rawValue: "source")!
            static var databaseDecodingUserInfo: [CodingUserInfoKey: Any] { [key: "database row"] }
            static func databaseJSONDecoder(for column: String) -> JSONDecoder {
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                return decoder
            }
            struct Payload: Decodable { var someValue: Int }
            var source: String
            var payload: Payload
            enum CodingKeys: String, CodingKey { case payload }
            init(from decoder: any Decoder) throws {
                source = decoder.userInfo[Self.key] as? String ?? "unknown"
                payload = try decoder.container(keyedBy: CodingKeys.self).decode(Payload.self, forKey: .payload)
            }
        }
        let test = try TestDatabase()
        try test.dbQueue.read { db in
            let item = try Item.fetchOne(db, sql: #"SELECT '{"some_value": 7}' AS payload"#)!
            #expect(item.source == "database row")
            #expect(item.payload.someValue == 7)
        }
    }
}
