// A GRDB 7 program, as a GRDB user writes it, with only `import GRDB` changed to
// `import GRDBCipher` (and no @testable import): it must compile and behave the same.
import Foundation
import GRDBCipher
import Testing

private enum Mood: String, DatabaseValueConvertible {
    case happy, grumpy
}

private struct Equipment: Codable, Equatable, DatabaseValueConvertible {
    var racket: String
    var strings: [Int]
}

private enum Level: Int, Codable, DatabaseValueConvertible {
    case rookie = 1, pro = 2
}

extension SQLInterpolation {
    /// A custom interpolation, as GRDB programs write them.
    fileprivate mutating func appendInterpolation(lowercased column: String) {
        appendLiteral("lower(")
        appendInterpolation(identifier: column)
        appendLiteral(")")
    }
}

private func openAppDatabase(at path: String) throws -> DatabaseQueue {
    var config = Configuration()
    config.label = "AppDatabase"
    config.foreignKeysEnabled = true
    config.busyMode = .timeout(5)
    config.prepareDatabase { db in
        try db.usePassphrase("secret")
        db.add(function: DatabaseFunction("shout", argumentCount: 1, pure: true) { values in
            String.fromDatabaseValue(values[0])?.uppercased()
        })
    }
    return try DatabaseQueue(path: path, configuration: config)
}

private func playerNames(_ reader: some DatabaseReader) throws -> [String] {
    try reader.read { db in
        try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY name")
    }
}

@Suite("GRDB 7 source compatibility")
struct GRDBCompatibilityTests {
    @Test func aGRDBProgramRunsUnchanged() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dbQueue = try openAppDatabase(at: directory.appendingPathComponent("db.sqlite").path)

        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE player (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  name TEXT NOT NULL,
                  score INT,
                  mood TEXT,
                  createdAt DATETIME)
                """)
            try db.execute(
                sql: "INSERT INTO player (name, score, mood, createdAt) VALUES (?, ?, ?, ?)",
                arguments: ["Arthur", 750, Mood.happy, Date()])
            let arthurID = db.lastInsertedRowID
            try db.execute(
                sql: "INSERT INTO player (name, score) VALUES (:name, :score)",
                arguments: ["name": "Barbara", "score": 1000])
            let name = "Craig"
            try db.execute(literal: "INSERT INTO player (name, score) VALUES (\(name), \(nil as Int?))")
            #expect(arthurID == 1)
            #expect(db.changesCount == 1)
        }

        try dbQueue.write { db in
            try db.execute(sql: "UPDATE player SET score = score + 1 WHERE name = ?", arguments: ["Arthur"])
        }

        let rows = try dbQueue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM player ORDER BY id")
        }
        let first = rows[0]
        let id: Int64 = first["id"]
        let score: Int? = first["score"]
        let mood: Mood? = first["mood"]
        let createdAt: Date? = first["createdAt"]
        #expect(id == 1)
        #expect(score == 751)
        #expect(mood == .happy)
        #expect(createdAt != nil)

        let best = try dbQueue.read { db in
            try Row.fetchOne(db, sql: "SELECT name, MAX(score) AS score FROM player")
        }
        #expect(best?["name"] as String? == "Barbara")

        try dbQueue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT shout(name) FROM player WHERE score > ?")
            #expect(try String.fetchAll(statement, arguments: [800]) == ["BARBARA"])
            let names = try String.fetchCursor(db, sql: "SELECT name FROM player")
            var count = 0
            while let _ = try names.next() { count += 1 }
            #expect(count == 3)
            let scores = try Int?.fetchAll(db, sql: "SELECT score FROM player ORDER BY id")
            #expect(scores == [751, 1000, nil])
        }

        do {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO player (name) VALUES (NULL)")
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL)
        }

        try dbQueue.inDatabase { db in
            try db.inTransaction {
                try db.execute(sql: "DELETE FROM player WHERE name = ?", arguments: ["Craig"])
                return .commit
            }
        }
        #expect(try playerNames(dbQueue) == ["Arthur", "Barbara"])
    }

    @Test func queryInterfaceProgram() throws {
        struct Team: Codable, FetchableRecord, PersistableRecord, Equatable {
            var id: Int64
            var name: String
        }
        struct Player: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
            var id: Int64?
            var name: String
            var score: Int
            var teamId: Int64?
            enum Columns {
                static let name = Column(CodingKeys.name)
                static let score = Column(CodingKeys.score)
            }
            mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
        }
        struct PlayerInfo: Decodable, FetchableRecord {
            var player: Player
            var team: Team?
        }
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "team") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull().unique()
            }
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("score", .integer).notNull().defaults(to: 0)
                t.belongsTo("team")
            }
            try Team(id: 1, name: "Red").insert(db)
            var arthur = Player(id: nil, name: "Arthur", score: 100, teamId: 1)
            try arthur.insert(db)
            var barbara = Player(id: nil, name: "Barbara", score: 300, teamId: nil)
            try barbara.insert(db)
            #expect(arthur.id == 1 && barbara.id == 2)

            let best = try Player.order(Player.Columns.score.desc).fetchOne(db)
            #expect(best?.name == "Barbara")
            #expect(try Player.filter(Player.Columns.score > 150).fetchCount(db) == 1)
            #expect(try Player.select(Player.Columns.name, as: String.self).order(Player.Columns.name).fetchAll(db) == ["Arthur", "Barbara"])
            try Player.filter(Player.Columns.name == "Arthur").updateAll(db, Player.Columns.score += 10)
            #expect(try Player.fetchOne(db, key: 1)?.score == 110)

            let request = SQLRequest<PlayerInfo>(sql: "SELECT player.*, team.* FROM player LEFT JOIN team ON team.id = player.teamId ORDER BY player.id")
                .adapted { db in
                    let adapters = try splittingRowAdapters(columnCounts: [Player.numberOfSelectedColumns(db)])
                    return ScopeAdapter(base: adapters[0], scopes: ["team": adapters[1]])
                }
            let infos = try request.fetchAll(db)
            #expect(infos.map(\.player.name) == ["Arthur", "Barbara"])
            #expect(infos.map(\.team) == [Team(id: 1, name: "Red"), nil])

            #expect(try Player.filter(Player.Columns.score < 200).deleteAll(db) == 1)
            #expect(try Player.fetchCount(db) == 1)
        }
    }

    @Test func asyncGRDBProgram() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dbQueue = try openAppDatabase(at: directory.appendingPathComponent("db.sqlite").path)
        try await dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT)")
            try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 750])
        }
        let count = try await dbQueue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")
        }
        #expect(count == 1)
        let names = try await dbQueue.read { db in try String.fetchAll(db, sql: "SELECT name FROM player") }
        #expect(names == ["Arthur"])
    }

    @Test func migrationsProgram() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dbQueue = try openAppDatabase(at: directory.appendingPathComponent("app.sqlite").path)

        var migrator = DatabaseMigrator()
        #if DEBUG
        migrator.eraseDatabaseOnSchemaChange = true
        #endif
        migrator.registerMigration("Create authors") { db in
            try db.create(table: "author") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("creationDate", .datetime)
                t.column("name", .text)
            }
        }
        migrator.registerMigration("Add books and author.birthYear") { db in
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("author").notNull()
                t.column("title", .text).notNull()
            }
            try db.alter(table: "author") { t in
                t.add(column: "birthYear", .integer)
            }
        }
        migrator.registerMigration("Fast migration", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "CREATE INDEX book_title ON book(title)")
        }
        try migrator.migrate(dbQueue, upTo: "Create authors")
        try migrator.migrate(dbQueue)
        try dbQueue.read { (db: Database) throws in
            #expect(try migrator.hasCompletedMigrations(db))
            #expect(try migrator.hasBeenSuperseded(db) == false)
            #expect(try migrator.appliedMigrations(db) == migrator.migrations)
            #expect(try migrator.completedMigrations(db).count == 3)
            #expect(try migrator.appliedIdentifiers(db).contains("Fast migration"))
        }
        migrator = migrator.disablingDeferredForeignKeyChecks()
        migrator.registerMigration("Partially checked") { db in
            try db.checkForeignKeys(in: "book")
        }
        try migrator.migrate(dbQueue)
    }

    @Test func rowsCursorsAndMaintenanceProgram() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        var config = Configuration()
        config.prepareDatabase { db in try db.usePassphrase("secret") }
        let dbPool = try DatabasePool(path: path, configuration: config)
        let writer: AnyDatabaseWriter = AnyDatabaseWriter(dbPool)

        #expect(Database.sqliteLibVersionNumber >= 3_035_000)
        try dbPool.writeInTransaction { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT, team TEXT)")
            try db.execute(sql: "INSERT INTO player (name, score, team) VALUES ('Arthur', 10, 'red'), ('Barbara', 30, 'blue'), ('Craig', 20, 'red')")
            #expect(db.maximumStatementArgumentCount > 100)
            return .commit
        }
        try writer.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT name, score FROM player WHERE id = 1")!
            let name = try row.decode(String.self, atIndex: 0)
            let score: Int = try row.decode(forColumn: "score")
            let missing = try row.decode(Int?.self, forColumn: Column("missing"))
            #expect(name == "Arthur" && score == 10 && missing == nil)
            do {
                _ = try row.decode(Date.self, forColumn: "name")
                Issue.record("expected a decoding error")
            } catch is RowDecodingError { }

            let scores = try Int.fetchCursor(db, sql: "SELECT score FROM player ORDER BY score")
            #expect(scores.sql == "SELECT score FROM player ORDER BY score")
            #expect(scores.columnNames == ["score"] && scores.columnCount == 1)
            #expect(scores.arguments.isEmpty)
            #expect(try scores.suffix(2) == [20, 30])
            #expect(try Int.fetchCursor(db, sql: "SELECT score FROM player ORDER BY score").dropLast() == [10, 20])
            var names: [String] = ["Zoe"]
            try names.append(contentsOf: String.fetchCursor(db, sql: "SELECT name FROM player ORDER BY name"))
            #expect(names == ["Zoe", "Arthur", "Barbara", "Craig"])
            let teams: Set<String> = try Set<String>().union(String.fetchCursor(db, sql: "SELECT team FROM player"))
            #expect(teams == ["red", "blue"])
            let byLength = try Dictionary(minimumCapacity: 2, grouping: String.fetchCursor(db, sql: "SELECT name FROM player ORDER BY name"), by: { $0.count })
            #expect(byLength[5] == ["Craig"])
            let teamNames = ["red", "blue"].flatMap { team in
                try String.fetchCursor(db, sql: "SELECT name FROM player WHERE team = ? ORDER BY name", arguments: [team])
            }
            #expect(try Array(teamNames) == ["Arthur", "Craig", "Barbara"])
        }
        let snapshot = try dbPool.makeSnapshot()
        let count = snapshot.read { db in (try? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player")) ?? 0 }
        #expect(count == 3)

        let copyPath = directory.appendingPathComponent("copy.sqlite").path
        try writer.vacuum(into: copyPath)
        try writer.vacuum()
        let copy = try DatabaseQueue.temporaryCopy(fromPath: copyPath, configuration: config)
        #expect(try copy.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM player") } == 3)
        let memoryCopy = try DatabaseQueue.inMemoryCopy(fromPath: copyPath, configuration: config)
        try memoryCopy.erase()
        #expect(try memoryCopy.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master") } == 0)
        try copy.write { db in
            try db.execute(sql: "CREATE TABLE gear (equipment TEXT, level INTEGER)")
            try db.execute(sql: "INSERT INTO gear VALUES (?, ?)", arguments: [Equipment(racket: "Pro", strings: [24, 25]), Level.pro])
            let equipment = try Equipment.fetchOne(db, sql: "SELECT equipment FROM gear")
            #expect(equipment == Equipment(racket: "Pro", strings: [24, 25]))
            #expect(try String.fetchOne(db, sql: "SELECT equipment FROM gear") == #"{"racket":"Pro","strings":[24,25]}"#)
            #expect(try Level.fetchOne(db, sql: "SELECT level FROM gear") == .pro)
            let query: SQL = "SELECT \(lowercased: "name") FROM player WHERE score > \(15) ORDER BY name"
            #expect(try SQLRequest<String>(literal: query).fetchAll(db) == ["barbara", "craig"])
            let request: SQLRequest<String> = "SELECT \(lowercased: "name") FROM player WHERE name = \("Arthur")"
            #expect(try request.fetchOne(db) == "arthur")
        }
        let reader = AnyDatabaseReader(copy)
        #expect(try reader.read { try String.fetchAll($0, sql: "SELECT name FROM player WHERE score > 15 ORDER BY name") } == ["Barbara", "Craig"])
    }
}
