import Foundation
import Testing
@testable import GRDBCipher

@Suite("PersistableRecord", .serialized)
struct PersistableRecordTests {
    @Test func insertGeneratesSQLAndLearnsID() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try db.execute(sql: playerSchema)
            recorder.record(db)
            var player = Player(id: nil, name: "Arthur", email: nil, score: 10)
            try player.insert(db)
            #expect(player.id == 1)
            let inserted = try Player(id: nil, name: "Barbara", email: "b@example.com", score: 20).inserted(db)
            #expect(inserted.id == 2)
            try ManualPlayer(id: 10, name: "Craig", score: 30).insert(db)
            #expect(try Player.fetchAll(db, sql: "SELECT * FROM player ORDER BY id").map(\.name) == ["Arthur", "Barbara", "Craig"])
        }
        #expect(recorder.dataSQL.prefix(3) == [
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?)",
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?)",
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?)",
        ])
    }

    /// A record whose columns vary from one record to the next, in order, number and case:
    /// containers learn each type's columns from the previous record, and must not trust them
    /// blindly.
    struct ShapeShifter: PersistableRecord {
        static let databaseTableName = "shape"
        var shape: Int
        func encode(to container: inout PersistenceContainer) {
            switch shape {
            case 0:
                container["a"] = 1; container["b"] = 2
            case 1:
                container["b"] = 20; container["a"] = 10
            case 2:
                container["a"] = 100; container["A"] = 101; container["b"] = 102
            default:
                container["A"] = 1000
            }
        }
    }

    /// Records what `didInsert` receives.
    final class InsertionLog: @unchecked Sendable {
        var entries: [(rowID: Int64, rowIDColumn: String?, columns: [String], id: Int64?)] = []
    }

    struct LoggedItem: MutablePersistableRecord {
        static let databaseTableName = "item"
        let log: InsertionLog
        var name: String
        func encode(to container: inout PersistenceContainer) {
            container["name"] = name
        }
        mutating func didInsert(_ inserted: InsertionSuccess) {
            let container = inserted.persistenceContainer
            log.entries.append((inserted.rowID, inserted.rowIDColumn, container.columnNames, container["ID"] as? Int64))
        }
    }

    @Test func insertionSuccessCarriesTheRowIDColumn() throws {
        let test = try TestDatabase()
        let log = InsertionLog()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT)")
            // The first insertion prepares the statement, the next ones reuse it and the
            // container's learned columns.
            for name in ["a", "b", "c"] {
                var item = LoggedItem(log: log, name: name)
                try item.insert(db)
            }
        }
        #expect(log.entries.map(\.rowID) == [1, 2, 3])
        #expect(log.entries.map(\.rowIDColumn) == ["id", "id", "id"])
        #expect(log.entries.map(\.columns) == [["name", "id"], ["name", "id"], ["name", "id"]])
        #expect(log.entries.map(\.id) == [1, 2, 3])
    }

    @Test func containersFollowChangingColumns() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE shape(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER)")
            recorder.record(db)
            for shape in [0, 0, 1, 2, 3, 0] {
                try ShapeShifter(shape: shape).insert(db)
            }
            let rows = try Row.fetchAll(db, sql: "SELECT a, b FROM shape ORDER BY id").map { [$0[0] as Int?, $0[1] as Int?] }
            #expect(rows == [[1, 2], [1, 2], [10, 20], [101, 102], [1000, nil], [1, 2]])
            var container = try PersistenceContainer(ShapeShifter(shape: 2), db)
            #expect(container.columnNames == ["a", "b"])
            #expect(container["A"] as? Int64 == 101)
            container["B"] = nil
            #expect(container.columnNames == ["a", "b"])
            #expect(container["b"] == nil)
        }
        #expect(recorder.dataSQL == [
            "INSERT INTO \"shape\" (\"a\", \"b\") VALUES (?,?)",
            "INSERT INTO \"shape\" (\"a\", \"b\") VALUES (?,?)",
            "INSERT INTO \"shape\" (\"b\", \"a\") VALUES (?,?)",
            "INSERT INTO \"shape\" (\"a\", \"b\") VALUES (?,?)",
            "INSERT INTO \"shape\" (\"A\") VALUES (?)",
            "INSERT INTO \"shape\" (\"a\", \"b\") VALUES (?,?)",
            "SELECT a, b FROM shape ORDER BY id",
        ])
    }

    @Test func conflictsThrowAndLeaveTheTableUnchanged() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try makePlayers(db)
            try db.execute(sql: citizenshipSchema)
            let before = try playerRows(db)
            // UNIQUE violation.
            var duplicate = Player(id: nil, name: "Other", email: "arthur@example.com", score: 1)
            expectDatabaseError(.SQLITE_CONSTRAINT_UNIQUE) { try duplicate.insert(db) }
            #expect(duplicate.id == nil)
            // Primary key violation.
            expectDatabaseError(.SQLITE_CONSTRAINT_PRIMARYKEY) { try ManualPlayer(id: 1, name: "X", score: 1).insert(db) }
            // CHECK violation on update.
            expectDatabaseError(.SQLITE_CONSTRAINT_CHECK) { try ManualPlayer(id: 1, name: "Arthur", score: -1).update(db) }
            #expect(try playerRows(db) == before)
            // Foreign key violation.
            expectDatabaseError(.SQLITE_CONSTRAINT_FOREIGNKEY) { try Citizenship(citizenId: 1, countryCode: "XX").insert(db) }
            #expect(try Citizenship.fetchCount(db) == 0)
        }
    }

    @Test func conflictPolicies() throws {
        struct ReplacingPlayer: Codable, PersistableRecord {
            static let databaseTableName = "player"
            static let persistenceConflictPolicy = PersistenceConflictPolicy(insert: .replace, update: .replace)
            var id: Int64
            var name: String
            var email: String?
            var score: Int
        }
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            try ReplacingPlayer(id: 1, name: "Arthur 2", email: nil, score: 5).insert(db)
            try ReplacingPlayer(id: 1, name: "Arthur 3", email: nil, score: 5).update(db)
            try ManualPlayer(id: 2, name: "Ignored", score: 0).insert(db, onConflict: .ignore)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id") == ["Arthur 3", "Barbara", "Craig"])
        }
        #expect(recorder.dataSQL.prefix(3) == [
            "INSERT OR REPLACE INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?)",
            "UPDATE OR REPLACE \"player\" SET \"name\"=?, \"email\"=?, \"score\"=? WHERE \"id\"=?",
            "INSERT OR IGNORE INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?)",
        ])
    }

    @Test func updateVariants() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            var player = try Player.find(db, key: 1)
            player.score = 150
            player.email = nil
            try player.update(db)
            player.name = "Not saved"
            player.score = 160
            try player.update(db, columns: ["score"])
            try player.update(db, columns: [Player.Columns.score])
            let row = try Row.fetchOne(db, sql: "SELECT name, email, score FROM player WHERE id = 1")!
            #expect(row["name"] as String == "Arthur")
            #expect(row["email"] as String? == nil) // a nil optional is written as NULL
            #expect(row["score"] as Int == 160)
        }
        #expect(recorder.dataSQL == [
            "SELECT * FROM \"player\" WHERE \"id\" = ?",
            "UPDATE \"player\" SET \"name\"=?, \"email\"=?, \"score\"=? WHERE \"id\"=?",
            "UPDATE \"player\" SET \"score\"=? WHERE \"id\"=?",
            "UPDATE \"player\" SET \"score\"=? WHERE \"id\"=?",
            "SELECT name, email, score FROM player WHERE id = 1",
        ])
    }

    @Test func updatingAMissingRowThrowsRecordNotFound() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try makePlayers(db)
            let before = try playerRows(db)
            for player in [Player(id: 42, name: "X", score: 1), Player(id: nil, name: "X", score: 1)] {
                do {
                    try player.update(db)
                    Issue.record("expected RecordError")
                } catch let RecordError.recordNotFound(databaseTableName: table, key: key) {
                    #expect(table == "player")
                    #expect(key == ["id": player.id?.databaseValue ?? .null])
                }
            }
            #expect(try playerRows(db) == before)
        }
    }

    @Test func updateChanges() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            var player = try Player.find(db, key: 2)
            recorder.record(db)
            #expect(try !player.updateChanges(db) { $0.score = 200 })
            #expect(try player.updateChanges(db) { $0.score = 250 })
            #expect(player.score == 250)
            let old = player
            player.name = "Babs"
            #expect(try player.databaseChanges(from: old) == ["name": "Barbara".databaseValue])
            #expect(try player.updateChanges(db, from: old))
            #expect(try !player.updateChanges(db, from: player))
            #expect(player.databaseEquals(player))
            #expect(!player.databaseEquals(old))
            #expect(try player.databaseDictionary == ["id": 2.databaseValue, "name": "Babs".databaseValue, "email": "barbara@example.com".databaseValue, "score": 250.databaseValue])
        }
        #expect(recorder.dataSQL == [
            "UPDATE \"player\" SET \"score\"=? WHERE \"id\"=?",
            "UPDATE \"player\" SET \"name\"=? WHERE \"id\"=?",
        ])
    }

    /// A plain class adopting PersistableRecord: a copy of the record is the same object.
    final class PlayerObject: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "player"
        var id: Int64?
        var name: String
        var email: String?
        var score: Int
    }

    @Test func updateChangesSeesTheChangesOfClasses() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            var object = try #require(try PlayerObject.fetchOne(db, key: 2))
            let record = try #require(try RecordPlayer.fetchOne(db, key: 3))
            var recordVariable = record
            recorder.record(db)
            #expect(try object.updateChanges(db) { $0.name = "Bea" })
            #expect(try !object.updateChanges(db) { $0.name = "Bea" })
            #expect(try recordVariable.updateChanges(db) { $0.score = 333 })
            #expect(try object.databaseChanges { $0.score = 7 } == ["score": 200.databaseValue])
            #expect(try object.databaseChanges { _ in } == [:])
            #expect(try Row.fetchAll(db, sql: "SELECT name, score FROM player WHERE id IN (2, 3) ORDER BY id")
                == [["name": "Bea", "score": 200], ["name": "Craig", "score": 333]])
            // A failing modify changes nothing in the database.
            #expect(throws: ValidationError.self) {
                try object.updateChanges(db) { $0.name = "Lost"; throw ValidationError() }
            }
        }
        #expect(recorder.dataSQL == [
            "UPDATE \"player\" SET \"name\"=? WHERE \"id\"=?",
            "UPDATE \"player\" SET \"score\"=? WHERE \"id\"=?",
            "SELECT name, score FROM player WHERE id IN (2, 3) ORDER BY id",
        ])
    }

    @Test func saveInsertsOrUpdates() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try db.execute(sql: playerSchema)
            recorder.record(db)
            var player = Player(id: nil, name: "Arthur", score: 1)
            try player.save(db) // no id: insert
            #expect(player.id == 1)
            player.score = 2
            try player.save(db) // id and row: update
            var ghost = Player(id: 7, name: "Ghost", score: 3)
            try ghost.save(db) // id without row: update, then insert
            let saved = try Player(id: nil, name: "Craig", score: 4).saved(db)
            #expect(saved.id == 8)
            #expect(try Int.fetchAll(db, sql: "SELECT score FROM player ORDER BY id") == [2, 3, 4])
        }
        #expect(recorder.dataSQL == [
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?)",
            "UPDATE \"player\" SET \"name\"=?, \"email\"=?, \"score\"=? WHERE \"id\"=?",
            "UPDATE \"player\" SET \"name\"=?, \"email\"=?, \"score\"=? WHERE \"id\"=?",
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?)",
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?)",
            "SELECT score FROM player ORDER BY id",
        ])
    }

    @Test func saveAndUpsertRunNoQueryAfterTheirStatement() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try db.execute(sql: citizenshipSchema)
            try Country(code: "FR", name: "France").insert(db)
            recorder.record(db)
            // A text primary key: the update does not look for the rowid of the row.
            try Country(code: "FR", name: "République française").save(db)
            try Country(code: "DE", name: "Germany").save(db)
            try Country(code: "DE", name: "Deutschland").upsert(db)
            try Citizenship(citizenId: 1, countryCode: "FR", since: 1990).save(db)
            #expect(try Country.fetchAll(db, sql: "SELECT * FROM country ORDER BY code").map(\.name) == ["Deutschland", "République française"])
        }
        #expect(recorder.dataSQL == [
            "UPDATE \"country\" SET \"name\"=? WHERE \"code\"=?",
            "UPDATE \"country\" SET \"name\"=? WHERE \"code\"=?",
            "INSERT INTO \"country\" (\"code\", \"name\") VALUES (?,?)",
            "INSERT INTO \"country\" (\"code\", \"name\") VALUES (?,?) ON CONFLICT DO UPDATE SET \"name\" = \"excluded\".\"name\" RETURNING \"rowid\"",
            "UPDATE \"citizenship\" SET \"since\"=? WHERE \"citizenId\"=? AND \"countryCode\"=?",
            "INSERT INTO \"citizenship\" (\"citizenId\", \"countryCode\", \"since\") VALUES (?,?,?)",
            "SELECT * FROM country ORDER BY code",
        ])
    }

    /// Coding keys that differ from the table's columns by case.
    struct ShoutingPlayer: Encodable, PersistableRecord {
        static let databaseTableName = "player"
        var id: Int64
        var NAME: String
        var Score: Int
    }

    @Test func updateUsesTheTableSpellingOfColumns() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            try ShoutingPlayer(id: 1, NAME: "Zed", Score: 5).update(db)
            try ShoutingPlayer(id: 2, NAME: "Yan", Score: 6).update(db, columns: ["SCORE"])
            #expect(try Row.fetchAll(db, sql: "SELECT name, score FROM player WHERE id IN (1, 2) ORDER BY id")
                == [["name": "Zed", "score": 5], ["name": "Barbara", "score": 6]])
            // An unknown column is SQLite's error.
            struct Ghost: Encodable, PersistableRecord {
                static let databaseTableName = "player"
                var id: Int64
                var nickname: String
            }
            expectDatabaseError(.SQLITE_ERROR) { try Ghost(id: 1, nickname: "Z").update(db) }
        }
        #expect(recorder.dataSQL.prefix(2) == [
            "UPDATE \"player\" SET \"name\"=?, \"score\"=? WHERE \"id\"=?",
            "UPDATE \"player\" SET \"score\"=? WHERE \"id\"=?",
        ])
    }

    @Test func deleteAndExists() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            let player = try Player.find(db, key: 3)
            recorder.record(db)
            #expect(try player.exists(db))
            #expect(try player.delete(db))
            #expect(try !player.delete(db))
            #expect(try !player.exists(db))
            #expect(try !Player(id: nil, name: "X", score: 0).delete(db))
        }
        #expect(recorder.dataSQL == [
            "SELECT EXISTS (SELECT 1 FROM \"player\" WHERE \"id\"=?)",
            "DELETE FROM \"player\" WHERE \"id\"=?",
            "DELETE FROM \"player\" WHERE \"id\"=?",
            "SELECT EXISTS (SELECT 1 FROM \"player\" WHERE \"id\"=?)",
        ])
    }

    @Test func upsertWithConflictTargetAndAssignments() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            // A conflict on the unique email: keep the stored name, add the scores.
            var player = Player(id: nil, name: "Someone else", email: "arthur@example.com", score: 5)
            let upserted = try player.upsertAndFetch(db, onConflict: ["email"]) { excluded in
                [Column("name").noOverwrite, Column("score") += excluded[Column("score")]]
            }
            #expect(upserted.id == 1)
            #expect(upserted.name == "Arthur")
            #expect(upserted.score == 105)
            // No conflict: a plain insert.
            var newcomer = Player(id: nil, name: "Dan", email: "dan@example.com", score: 7)
            let inserted = try newcomer.upsertAndFetch(db, onConflict: ["email"]) { _ in [Column("score").set(to: 0)] }
            #expect(inserted.id != nil && inserted.id != 1, "\(inserted)")
            #expect(inserted.score == 7)
            #expect(try Player.fetchCount(db) == 4)
            // A conflict target that is not a unique key is SQLite's error; nothing changes.
            var wrong = Player(id: nil, name: "X", email: nil, score: 1)
            _ = expectDatabaseError(.SQLITE_ERROR) { _ = try wrong.upsertAndFetch(db, onConflict: ["name"]) }
            #expect(try Player.fetchCount(db) == 4)
        }
        // As GRDB (REC-7): the closure's assignments first, then the defaults; a noOverwrite
        // column is left out.
        #expect(recorder.dataSQL.prefix(2) == [
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?) ON CONFLICT(\"email\") DO UPDATE SET \"score\" = \"score\" + \"excluded\".\"score\" RETURNING *, \"rowid\"",
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?) ON CONFLICT(\"email\") DO UPDATE SET \"score\" = ?, \"name\" = \"excluded\".\"name\" RETURNING *, \"rowid\"",
        ])
    }

    @Test func upsert() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            var player = Player(id: 1, name: "Arthur 2", email: "arthur@example.com", score: 110)
            try player.upsert(db)
            #expect(player.id == 1)
            var newcomer = Player(id: nil, name: "Dan", email: "dan@example.com", score: 5)
            try newcomer.upsert(db)
            #expect(newcomer.id == 4)
            // A conflict on the unique email updates the existing row.
            var sameEmail = Player(id: nil, name: "Barbara 2", email: "barbara@example.com", score: 220)
            let upserted = try sameEmail.upsertAndFetch(db)
            #expect(upserted.id == 2)
            // The record is told the rowid of the updated row, not the last inserted one.
            #expect(sameEmail.id == 2)
            #expect(upserted.name == "Barbara 2")
            #expect(try Player.fetchCount(db) == 4)
        }
        #expect(recorder.dataSQL.prefix(2) == [
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?) ON CONFLICT DO UPDATE SET \"name\" = \"excluded\".\"name\", \"email\" = \"excluded\".\"email\", \"score\" = \"excluded\".\"score\" RETURNING \"rowid\"",
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?) ON CONFLICT DO UPDATE SET \"name\" = \"excluded\".\"name\", \"email\" = \"excluded\".\"email\", \"score\" = \"excluded\".\"score\" RETURNING \"rowid\"",
        ])
        // upsertAndFetch returns the row and its rowid, as GRDB.
        #expect(recorder.dataSQL[2].hasSuffix("RETURNING *, \"rowid\""))
    }

    @Test func returningVariants() throws {
        struct PartialPlayer: Encodable, MutablePersistableRecord {
            static let databaseTableName = "player"
            var name: String
        }
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            var partial = PartialPlayer(name: "Dan")
            let full = try partial.insertAndFetch(db, as: Player.self)
            #expect(full.id == 4)
            #expect(full.score == 1000) // the default value
            var eve = PartialPlayer(name: "Eve")
            let score = try eve.insertAndFetch(db, selection: [Column("score")]) { try Int.fetchOne($0) }
            #expect(score == 1000)
            var player = full
            player.score = 1
            let updated = try player.updateAndFetch(db)
            #expect(updated.score == 1)
            let ghost = Player(id: 9, name: "Ghost", score: 9)
            let saved = try ghost.saveAndFetch(db)
            #expect(saved.id == 9)
            // An ignored conflict inserts nothing: recordNotFound.
            let duplicate = Player(id: 1, name: "Dup", score: 0)
            #expect(throws: RecordError.self) { _ = try duplicate.insertAndFetch(db, onConflict: .ignore) }
            #expect(throws: RecordError.self) { _ = try Player(id: 42, name: "X", score: 0).updateAndFetch(db) }
        }
        #expect(recorder.dataSQL.prefix(3) == [
            "INSERT INTO \"player\" (\"name\") VALUES (?) RETURNING *",
            "INSERT INTO \"player\" (\"name\") VALUES (?) RETURNING \"score\"",
            "UPDATE \"player\" SET \"name\"=?, \"email\"=?, \"score\"=? WHERE \"id\"=? RETURNING *",
        ])
    }

    @Test func andFetchMethodsHaveGRDBMutability() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            // Non-mutating in GRDB: callable on constants; the constant keeps its nil id.
            let newcomer = Player(id: nil, name: "Dan", score: 40)
            let inserted = try newcomer.insertAndFetch(db)
            #expect(inserted.id == 4)
            #expect(newcomer.id == nil)
            let changed = Player(id: 4, name: "Daniel", score: 41)
            let saved = try changed.saveAndFetch(db)
            #expect(saved.name == "Daniel")
            // Ignored conflict: nothing inserted, recordNotFound.
            let duplicate = Player(id: 1, name: "Dup", score: 0)
            #expect(throws: RecordError.self) { _ = try duplicate.insertAndFetch(db, onConflict: .ignore) }

            var player = try Player.find(db, key: 2)
            let score = try player.updateAndFetch(db, columns: ["score"], selection: [Column("score")]) { try Int.fetchOne($0) }
            #expect(score == 200)
            let name = try player.updateAndFetch(db, columns: [Player.Columns.name], selection: [Column("name")]) { try String.fetchOne($0) }
            #expect(name == "Barbara")
            #expect(try player.updateChangesAndFetch(db) { $0.score = 200 } == nil)
            let updated = try player.updateChangesAndFetch(db) { $0.score = 210 }
            #expect(updated?.score == 210)
            let asRow = try player.updateChangesAndFetch(db, as: Player.self) { $0.name = "Bee" }
            #expect(asRow?.name == "Bee")
            let fetchedName = try player.updateChangesAndFetch(db, selection: [Column("name")], fetch: { try String.fetchOne($0) }) { $0.name = "Bea" }
            #expect(fetchedName == "Bea")
            var fresh = Player(id: nil, name: "Eve", score: 9)
            let freshScore = try fresh.saveAndFetch(db, selection: [Column("score")]) { try Int.fetchOne($0) }
            #expect(freshScore == 9)
            // An update of a missing row, with a custom fetch: recordNotFound.
            let ghost = Player(id: 99, name: "Ghost", score: 1)
            #expect(throws: RecordError.self) {
                _ = try ghost.updateAndFetch(db, columns: ["score"], selection: [Column("score")]) { try Int.fetchOne($0) }
            }
        }
        #expect(recorder.dataSQL.prefix(9) == [
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?) RETURNING *",
            "UPDATE \"player\" SET \"name\"=?, \"email\"=?, \"score\"=? WHERE \"id\"=? RETURNING *",
            "INSERT OR IGNORE INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?) RETURNING *",
            "SELECT * FROM \"player\" WHERE \"id\" = ?",
            "UPDATE \"player\" SET \"score\"=? WHERE \"id\"=? RETURNING \"score\"",
            "UPDATE \"player\" SET \"name\"=? WHERE \"id\"=? RETURNING \"name\"",
            "UPDATE \"player\" SET \"score\"=? WHERE \"id\"=? RETURNING *",
            "UPDATE \"player\" SET \"name\"=? WHERE \"id\"=? RETURNING *",
            "UPDATE \"player\" SET \"name\"=? WHERE \"id\"=? RETURNING \"name\"",
        ])
    }

    @Test func upsertStrategies() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            var player = Player(id: 1, name: "Not Arthur", email: "x@example.com", score: 1)
            let upserted = try player.upsertAndFetch(db, updating: .noColumnUnlessSpecified) { _ in [Column("score") += 1] }
            #expect(upserted.name == "Arthur")
            #expect(upserted.email == "arthur@example.com")
            #expect(upserted.score == 101)
            let untouched = try player.upsertAndFetch(db, updating: .noColumnUnlessSpecified)
            #expect(untouched.name == "Arthur")
            #expect(UpsertUpdateStrategy(rawValue: 1) == .noColumnUnlessSpecified)
        }
        #expect(recorder.dataSQL.prefix(2) == [
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?) ON CONFLICT DO UPDATE SET \"score\" = \"score\" + ? RETURNING *, \"rowid\"",
            "INSERT INTO \"player\" (\"id\", \"name\", \"email\", \"score\") VALUES (?,?,?,?) ON CONFLICT DO UPDATE SET \"id\" = \"id\" RETURNING *, \"rowid\"",
        ])
    }

    struct Logged: Codable, MutablePersistableRecord {
        static let databaseTableName = "player"
        static let log = LockedValue<[String]>([])
        var id: Int64?
        var name: String
        var score: Int
        var email: String?

        static func record(_ event: String) { log.update { $0.append(event) } }

        mutating func willInsert(_ db: Database) throws { Self.record("willInsert") }
        func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
            Self.record("aroundInsert >")
            let inserted = try insert()
            Self.record("aroundInsert < \(inserted.rowID) \(inserted.rowIDColumn ?? "-")")
        }
        mutating func didInsert(_ inserted: InsertionSuccess) {
            id = inserted.rowID
            Self.record("didInsert")
        }
        func willUpdate(_ db: Database, columns: Set<String>) throws { Self.record("willUpdate \(columns.sorted())") }
        func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
            Self.record("aroundUpdate >")
            _ = try update()
            Self.record("aroundUpdate <")
        }
        func didUpdate(_ updated: PersistenceSuccess) { Self.record("didUpdate") }
        func willSave(_ db: Database) throws {
            Self.record("willSave")
            if name.isEmpty { throw ValidationError() }
        }
        func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
            Self.record("aroundSave >")
            _ = try save()
            Self.record("aroundSave <")
        }
        func didSave(_ saved: PersistenceSuccess) { Self.record("didSave") }
        func willDelete(_ db: Database) throws { Self.record("willDelete") }
        func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
            Self.record("aroundDelete >")
            _ = try delete()
            Self.record("aroundDelete <")
        }
        func didDelete(deleted: Bool) { Self.record("didDelete \(deleted)") }
    }

    struct ValidationError: Error {}

    /// A `PersistableRecord` (callbacks that cannot change it) runs its insertion callbacks in
    /// the order of `MutablePersistableRecord`, with the results of the insertion, and an
    /// `around…` callback that swallows its action's error throws SQLITE_MISUSE.
    struct LoggedCountry: PersistableRecord {
        static let databaseTableName = "country"
        static let log = LockedValue<[String]>([])
        var code: String
        var swallowsInsert = false

        static func record(_ event: String) { log.update { $0.append(event) } }

        func encode(to container: inout PersistenceContainer) {
            container["code"] = code
        }
        func willInsert(_ db: Database) throws { Self.record("willInsert") }
        func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
            Self.record("aroundInsert >")
            if swallowsInsert {
                _ = try? insert()
                return
            }
            let inserted = try insert()
            Self.record("aroundInsert < \(inserted.rowID)")
        }
        func didInsert(_ inserted: InsertionSuccess) {
            Self.record("didInsert \(inserted.rowID) \(inserted.persistenceContainer["code"]?.databaseValue.description ?? "-")")
        }
        func willSave(_ db: Database) throws { Self.record("willSave") }
        func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
            Self.record("aroundSave >")
            let saved = try save()
            Self.record("aroundSave < \(saved.persistenceContainer.count)")
        }
        func didSave(_ saved: PersistenceSuccess) { Self.record("didSave") }
    }

    @Test func persistableRecordCallbacksRunInOrder() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE country (code TEXT PRIMARY KEY)")
            LoggedCountry.log.write([])
            try LoggedCountry(code: "FR").insert(db)
            #expect(LoggedCountry.log.read() == [
                "willSave", "aroundSave >", "willInsert", "aroundInsert >", "aroundInsert < 1",
                "didInsert 1 \"FR\"", "aroundSave < 1", "didSave",
            ])
            LoggedCountry.log.write([])
            try LoggedCountry(code: "FR").upsert(db)
            #expect(LoggedCountry.log.read() == [
                "willSave", "aroundSave >", "willInsert", "aroundInsert >", "aroundInsert < 1",
                "didInsert 1 \"FR\"", "aroundSave < 1", "didSave",
            ])
            // The action's error swallowed: misuse, and no insertion callback after it.
            LoggedCountry.log.write([])
            let error = expectDatabaseError(.SQLITE_MISUSE) {
                try LoggedCountry(code: "FR", swallowsInsert: true).insert(db)
            }
            #expect(error?.message?.contains("LoggedCountry.aroundInsert") == true)
            #expect(LoggedCountry.log.read() == ["willSave", "aroundSave >", "willInsert", "aroundInsert >"])
            #expect(try String.fetchAll(db, sql: "SELECT code FROM country") == ["FR"])
        }
    }

    /// Records whose `aroundSave` and `aroundInsert` are the defaults insert without them after
    /// their first insert on the connection; every other record keeps going through its own,
    /// at every insert: one custom around is enough, a first insert that fails teaches
    /// nothing, and an insert made by another record's callbacks is told apart.
    @Test func defaultAroundsAreSkippedOnlyForTypesThatHaveThem() throws {
        let log = LockedValue<[String]>([])
        struct Plain: ItemLoggingCallbacks, PersistableRecord {
            let log: LockedValue<[String]>
            var name: String
            func willSave(_ db: Database) throws { note("willSave \(name)") }
            func willInsert(_ db: Database) throws { note("willInsert \(name)") }
            func didInsert(_ inserted: InsertionSuccess) { note("didInsert \(name) \(inserted.rowID)") }
            func didSave(_ saved: PersistenceSuccess) { note("didSave \(name)") }
        }
        struct AroundSave: ItemLoggingCallbacks, PersistableRecord {
            let log: LockedValue<[String]>
            var name: String
            func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
                note("aroundSave \(name)")
                _ = try save()
            }
        }
        struct AroundInsert: ItemLoggingCallbacks, PersistableRecord {
            let log: LockedValue<[String]>
            var name: String
            func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
                note("aroundInsert \(name)")
                _ = try insert()
            }
        }
        /// Inserts a `Plain` from its `willInsert`, inside its own `aroundSave`: the first
        /// time, while its own insert is watched.
        struct Nesting: ItemLoggingCallbacks, PersistableRecord {
            let log: LockedValue<[String]>
            var name: String
            func willInsert(_ db: Database) throws {
                try Plain(log: log, name: "inner " + name).insert(db)
            }
            func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
                note("aroundSave \(name)")
                _ = try save()
            }
        }
        /// A record that learns its id (mutating insert), with the default arounds.
        struct Learning: ItemLoggingCallbacks {
            let log: LockedValue<[String]>
            var id: Int64?
            var name: String
            mutating func willInsert(_ db: Database) throws { name += "!" }
            mutating func didInsert(_ inserted: InsertionSuccess) {
                id = inserted.rowID
                note("didInsert \(name) \(inserted.rowID)")
            }
        }
        /// A mutating insert through an `aroundInsert` of its own.
        struct LearningAround: ItemLoggingCallbacks {
            let log: LockedValue<[String]>
            var id: Int64?
            var name: String
            func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
                note("aroundInsert \(name)")
                _ = try insert()
            }
            mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
        }
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
            // Mutating inserts: the record learns its id at each insert, a failed one leaves
            // it as it was.
            var ids: [Int64?] = []
            for name in ["la", "lb", "lc"] {
                var learning = Learning(log: log, name: name)
                try learning.insert(db)
                ids.append(learning.id)
                #expect(learning.name == name + "!")
                var around = LearningAround(log: log, name: "r" + name)
                try around.insert(db)
                ids.append(around.id)
            }
            var duplicate = Learning(log: log, name: "la")
            #expect(throws: DatabaseError.self) { try duplicate.insert(db) }
            #expect(duplicate.id == nil && duplicate.name == "la")
            #expect(ids == [1, 2, 3, 4, 5, 6])
            #expect(log.read() == [
                "didInsert la! 1", "aroundInsert rla", "didInsert lb! 3", "aroundInsert rlb",
                "didInsert lc! 5", "aroundInsert rlc",
            ])
            try db.execute(sql: "DELETE FROM item")
            log.write([])
            try db.execute(sql: "INSERT INTO item (name) VALUES ('taken')")
            // First inserts that fail teach nothing.
            #expect(throws: DatabaseError.self) { try Plain(log: log, name: "taken").insert(db) }
            #expect(throws: DatabaseError.self) { try AroundSave(log: log, name: "taken").insert(db) }
            log.write([])
            for name in ["a", "b", "c"] {
                try Nesting(log: log, name: "n" + name).insert(db)
                try Plain(log: log, name: "p" + name).insert(db)
                try AroundSave(log: log, name: "s" + name).insert(db)
                try AroundInsert(log: log, name: "i" + name).insert(db)
            }
            var expected: [String] = []
            var rowID = 1
            for name in ["a", "b", "c"] {
                expected += [
                    "aroundSave n\(name)",
                    "willSave inner n\(name)", "willInsert inner n\(name)", "didInsert inner n\(name) \(rowID + 1)", "didSave inner n\(name)",
                    "willSave p\(name)", "willInsert p\(name)", "didInsert p\(name) \(rowID + 3)", "didSave p\(name)",
                    "aroundSave s\(name)", "aroundInsert i\(name)",
                ]
                rowID += 5
            }
            #expect(log.read() == expected)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM item") == 16)
        }
    }

    @Test func callbacksRunInOrder() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: playerSchema)
            Logged.log.write([])
            var record = Logged(id: nil, name: "Arthur", score: 1)
            try record.insert(db)
            #expect(Logged.log.read() == [
                "willSave", "aroundSave >", "willInsert", "aroundInsert >", "aroundInsert < 1 id",
                "didInsert", "aroundSave <", "didSave"])
            #expect(record.id == 1)
            Logged.log.write([])
            try record.update(db, columns: ["score"])
            #expect(Logged.log.read() == [
                "willSave", "aroundSave >", "willUpdate [\"score\"]", "aroundUpdate >", "aroundUpdate <",
                "didUpdate", "aroundSave <", "didSave"])
            Logged.log.write([])
            try record.delete(db)
            #expect(Logged.log.read() == ["willDelete", "aroundDelete >", "aroundDelete <", "didDelete true"])
            // A throwing callback stops the operation: nothing is written.
            Logged.log.write([])
            var invalid = Logged(id: nil, name: "", score: 1)
            #expect(throws: ValidationError.self) { try invalid.insert(db) }
            #expect(Logged.log.read() == ["willSave"])
            #expect(try Logged.fetchCount(db) == 0)
        }
    }

    @Test func saveAndFetchThatInsertsRunsTheSaveCallbacksOnce() throws {
        // REC-2: as GRDB, one willSave/aroundSave/didSave around the update that finds no row
        // and the insert that follows.
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: playerSchema)
            Logged.log.write([])
            var record = Logged(id: 42, name: "Arthur", score: 7)
            let score = try record.saveAndFetch(db, selection: [Column("score")]) { try Int.fetchOne($0) }
            #expect(score == 7)
            #expect(record.id == 42)
            let columns = #"["email", "id", "name", "score"]"#
            #expect(Logged.log.read() == [
                "willSave", "aroundSave >", "willUpdate \(columns)", "aroundUpdate >",
                "willInsert", "aroundInsert >", "aroundInsert < 42 id", "didInsert",
                "aroundSave <", "didSave"])
            // The row exists now: an update, still inside one save.
            Logged.log.write([])
            record.score = 8
            #expect(try record.saveAndFetch(db, selection: [Column("score")]) { try Int.fetchOne($0) } == 8)
            #expect(Logged.log.read() == [
                "willSave", "aroundSave >", "willUpdate \(columns)", "aroundUpdate >", "aroundUpdate <",
                "didUpdate", "aroundSave <", "didSave"])
        }
    }

    @Test func failedInsertRunsNoDidCallbacks() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try makePlayers(db)
            Logged.log.write([])
            var record = Logged(id: 1, name: "Dup", score: 1)
            expectDatabaseError(.SQLITE_CONSTRAINT_PRIMARYKEY) { try record.insert(db) }
            #expect(Logged.log.read() == ["willSave", "aroundSave >", "willInsert", "aroundInsert >"])
        }
    }

    @Test func persistenceStatementsFollowSchemaChanges() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, score INTEGER NOT NULL)")
            var player = Player(id: nil, name: "A", score: 1)
            try player.insert(db)
            #expect(player.id == 1)
            // The table is replaced with one keyed by name: the cached insert learns it.
            try db.execute(sql: "DROP TABLE player; CREATE TABLE player (id INTEGER, name TEXT PRIMARY KEY, email TEXT, score INTEGER) WITHOUT ROWID")
            var other = Player(id: 5, name: "B", score: 2)
            try other.insert(db)
            #expect(try db.primaryKey("player").rowIDColumn == nil)
            other.score = 3
            try other.update(db)
            #expect(try Int.fetchOne(db, sql: "SELECT score FROM player WHERE name = 'B'") == 3)
        }
    }
}

@Suite("PersistenceContainer and Record: GRDB parity")
struct PersistenceContainerCollectionTests {
    @Test func containerIsACollectionOfColumnsAndValues() throws {
        let player = RecordPlayer(id: 3, name: "Eve", score: 12)
        let container = try PersistenceContainer(player)
        #expect(container.startIndex == 0)
        #expect(container.endIndex == 3)
        let index: PersistenceContainer.Index = 1
        #expect(container[index].0 == "name")
        #expect(container[index].1 == "Eve".databaseValue)
        #expect(container.map(\.0) == ["id", "name", "score"])
        #expect(container.map(\.1) == [3.databaseValue, "Eve".databaseValue, 12.databaseValue])
        #expect(PersistenceContainer().isEmpty)
        #expect(Array(PersistenceContainer()).isEmpty)
    }

    /// A container keeps its columns and values in one storage, copied on write.
    @Test func containerCopiesAreIndependentAndGrow() throws {
        var original = PersistenceContainer()
        original["a"] = 1
        original["b"] = "two"
        var copy = original
        copy["A"] = 10          // replaces "a", ignoring case
        copy["c"] = Data([3])
        #expect(original.map(\.0) == ["a", "b"])
        #expect(original["a"]?.databaseValue == 1.databaseValue)
        #expect(copy.map(\.0) == ["a", "b", "c"])
        #expect(copy["a"]?.databaseValue == 10.databaseValue)

        // Past the first allocation (8 values), in order, each value kept.
        var wide = PersistenceContainer()
        for index in 0..<30 {
            wide["c\(index)"] = index
        }
        #expect(wide.count == 30)
        #expect(wide[29].0 == "c29")
        #expect(wide[29].1 == 29.databaseValue)
        #expect(wide["C7"]?.databaseValue == 7.databaseValue)
        wide["c7"] = nil
        #expect(wide.count == 30)
        #expect(wide[7].1 == .null)
    }

    /// A finished save gives its container's storage back to the connection, for the next
    /// record; a container a callback kept is never reused, nor are its values changed.
    @Test func containerStorageIsRecycledOnlyWhenNobodyKeepsIt() throws {
        struct Item: PersistableRecord {
            static let databaseTableName = "item"
            var name: String
            var kept: LockedValue<[PersistenceContainer]>?
            func encode(to container: inout PersistenceContainer) {
                container["name"] = name
            }
            func didInsert(_ inserted: InsertionSuccess) {
                kept?.update { $0.append(inserted.persistenceContainer) }
            }
        }
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
            try Item(name: "a").insert(db)
            // Weak: a strong reference here would make the storage shared, and not reused.
            weak let spare = db.spareContainerStorage
            #expect(spare != nil)
            // Kept without the saved values: no copy of them waits for the next save.
            #expect(spare?.count == 0)
            try Item(name: "b").insert(db)
            // The same storage, used and given back again.
            #expect(spare != nil && db.spareContainerStorage === spare)

            // A callback keeps the container: the storage is not given back.
            let kept = LockedValue<[PersistenceContainer]>([])
            try Item(name: "c", kept: kept).insert(db)
            #expect(db.spareContainerStorage == nil)
            try Item(name: "d", kept: kept).insert(db)
            try Item(name: "e").insert(db)
            let containers = kept.read()
            #expect(containers.map { $0["name"]?.databaseValue } == ["c".databaseValue, "d".databaseValue])
            #expect(containers.map { $0["id"]?.databaseValue } == [3.databaseValue, 4.databaseValue])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM item ORDER BY id") == ["a", "b", "c", "d", "e"])
            #expect(db.spareContainerStorage != nil)
            db.releaseMemory()
            #expect(db.spareContainerStorage == nil)
        }
    }

    @Test func recordUpdateChangesIsDiscardable() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER)")
            let player = RecordPlayer(name: "Flo", score: 1)
            try player.insert(db)
            recorder.record(db)
            player.score = 2
            try player.updateChanges(db) // result discarded without warning
            try player.updateChanges(db) // no change: nothing runs
            #expect(recorder.dataSQL == ["UPDATE \"player\" SET \"score\"=? WHERE \"id\"=?"])
            #expect(try Int.fetchOne(db, sql: "SELECT score FROM player") == 2)
        }
    }
}

/// The records of `defaultAroundsAreSkippedOnlyForTypesThatHaveThem`: a name (and an id) in
/// the `item` table, and the log of the callbacks they run.
private protocol ItemLoggingCallbacks: MutablePersistableRecord {
    var log: LockedValue<[String]> { get }
    var id: Int64? { get }
    var name: String { get }
}

extension ItemLoggingCallbacks {
    static var databaseTableName: String { "item" }
    var id: Int64? { nil }
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
    }
    func note(_ event: String) { log.update { $0.append(event) } }
}
