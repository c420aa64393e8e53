import Foundation
import Testing
@testable import GRDBCipher

@Suite("TableRecord")
struct TableRecordTests {
    struct HTTPRequest: TableRecord {}
    struct URL: TableRecord {}
    struct Box<T>: TableRecord {}
    struct CustomName: TableRecord { static let databaseTableName = "custom" }
    struct iPhone: TableRecord {}
    struct PostalAddress: TableRecord {}
    struct TOEFL: TableRecord {}

    @Test func defaultTableNames() {
        #expect(Player.databaseTableName == "player")
        #expect(HTTPRequest.databaseTableName == "httpRequest")
        #expect(URL.databaseTableName == "url")
        #expect(Box<Int>.databaseTableName == "box")
        #expect(CustomName.databaseTableName == "custom")
        #expect(defaultDatabaseTableName("ABTest") == "abTest")
        #expect(defaultDatabaseTableName("player") == "player")
        // GRDB's rule: the first word is lowercased, also after leading lowercase letters.
        #expect(iPhone.databaseTableName == "iphone")
        #expect(PostalAddress.databaseTableName == "postalAddress")
        #expect(TOEFL.databaseTableName == "toefl")
        #expect(defaultDatabaseTableName("Place") == "place")
        #expect(defaultDatabaseTableName("iOSDevice") == "iosDevice")
        #expect(defaultDatabaseTableName("") == "")
    }

    /// A unique index whose columns are not in alphabetical order.
    struct Seat: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
        var zone: String
        var area: Int
    }

    @Test func keyDictionariesFilterInTheOrderOfTheUniqueKey() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE seat (id INTEGER PRIMARY KEY, zone TEXT NOT NULL, area INTEGER NOT NULL);
                CREATE UNIQUE INDEX seat_place ON seat(zone, area);
                INSERT INTO seat VALUES (1, 'north', 2), (2, 'south', 2);
                """)
            recorder.record(db)
            #expect(try Seat.fetchOne(db, key: ["area": 2, "zone": "south"])?.id == 2)
            #expect(try Seat.fetchAll(db, keys: [["AREA": 2, "zone": "north"], ["area": 9, "zone": "east"]]).map(\.id) == [1])
            #expect(try Seat.exists(db, key: ["zone": "north", "area": 2]))
            // Not a unique key: still an error.
            expectDatabaseError(.SQLITE_MISUSE) { _ = try Seat.fetchOne(db, key: ["area": 2]) }
        }
        #expect(recorder.dataSQL.prefix(3) == [
            "SELECT * FROM \"seat\" WHERE (\"zone\" = ?) AND (\"area\" = ?)",
            "SELECT * FROM \"seat\" WHERE ((\"zone\" = ?) AND (\"AREA\" = ?)) OR ((\"zone\" = ?) AND (\"area\" = ?))",
            "SELECT EXISTS (SELECT * FROM \"seat\" WHERE (\"zone\" = ?) AND (\"area\" = ?))",
        ])
    }

    /// An encodable record that is not a TableRecord, with a UUID strategy.
    struct Token: Codable, FetchableRecord, EncodableRecord, Identifiable {
        var id: UUID
        var label: String
        static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .uppercaseString }
    }

    @Test func keyFiltersOfTablesUseTheEncodingStrategiesOfTheirRecords() throws {
        let test = try TestDatabase()
        let first = UUID(), second = UUID()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE token (id TEXT PRIMARY KEY, label TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO token VALUES (?, 'a'), (?, 'b')", arguments: [first.uuidString, second.uuidString])
            let tokens = Table<Token>("token")
            #expect(try tokens.filter(key: first).fetchOne(db)?.label == "a")
            #expect(try tokens.filter(keys: [first, second]).fetchAll(db).map(\.label).sorted() == ["a", "b"])
            #expect(try tokens.filter(key: ["id": second]).fetchOne(db)?.label == "b")
            #expect(try tokens.all().filter(key: second).fetchCount(db) == 1)
            // Rows are not records: no strategy, the UUID is a blob and matches nothing.
            #expect(try Table("token").filter(key: first).fetchCount(db) == 0)
            // The id methods of tables use the strategies too.
            #expect(try tokens.filter(id: second).fetchOne(db)?.label == "b")
            #expect(try tokens.filter(ids: [first, second]).fetchCount(db) == 2)
            #expect(try tokens.exists(db, id: first))
            #expect(try tokens.deleteOne(db, id: first))
            #expect(try !tokens.exists(db, id: first))
            #expect(try tokens.deleteAll(db, ids: [first, second]) == 1)
            #expect(try tokens.deleteAll(db, ids: [UUID]()) == 0)
        }
    }

    @Test func tablesDeleteAndFindByKeyDictionaries() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            let players = Table("player")
            #expect(try players.exists(db, key: ["email": "barbara@example.com"]))
            #expect(try !players.exists(db, key: ["email": "nobody@example.com"]))
            #expect(try players.deleteOne(db, key: ["email": "barbara@example.com"]))
            #expect(try !players.deleteOne(db, key: ["email": "barbara@example.com"]))
            #expect(try players.deleteAll(db, keys: [["id": 1], ["id": 3]]) == 2)
            #expect(try players.deleteAll(db, keys: [[String: (any DatabaseValueConvertible)?]]()) == 0)
            // Not a unique key.
            expectDatabaseError(.SQLITE_MISUSE) { _ = try players.deleteOne(db, key: ["name": "Arthur"]) }
        }
        #expect(recorder.dataSQL.prefix(3) == [
            "SELECT EXISTS (SELECT * FROM \"player\" WHERE \"email\" = ?)",
            "SELECT EXISTS (SELECT * FROM \"player\" WHERE \"email\" = ?)",
            "DELETE FROM \"player\" WHERE \"email\" = ?",
        ])
    }

    @Test func countExistsAndSQL() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            #expect(try Player.fetchCount(db) == 3)
            #expect(try Player.exists(db, key: 1))
            #expect(try !Player.exists(db, key: 42))
            #expect(try ManualPlayer.exists(db, id: 2))
            #expect(try Player.exists(db, key: ["email": "arthur@example.com"]))
            #expect(try !Player.exists(db, key: ["email": nil]))
        }
        #expect(recorder.dataSQL == [
            "SELECT COUNT(*) FROM \"player\"",
            "SELECT EXISTS (SELECT * FROM \"player\" WHERE \"id\" = ?)",
            "SELECT EXISTS (SELECT * FROM \"player\" WHERE \"id\" = ?)",
            "SELECT EXISTS (SELECT * FROM \"player\" WHERE \"id\" = ?)",
            "SELECT EXISTS (SELECT * FROM \"player\" WHERE \"email\" = ?)",
            "SELECT EXISTS (SELECT * FROM \"player\" WHERE 0)",
        ])
    }

    @Test func fetchByKeysAndIDs() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            #expect(try Player.fetchOne(db, key: 2)?.name == "Barbara")
            #expect(try Player.fetchAll(db, keys: [1, 3]).map(\.name) == ["Arthur", "Craig"])
            #expect(try Player.fetchSet(db, keys: [1, 1]).count == 1)
            #expect(try Player.fetchOne(db, key: ["email": "barbara@example.com"])?.id == 2)
            #expect(try ManualPlayer.fetchAll(db, ids: [3, 2]).map(\.id).sorted() == [2, 3])
            #expect(try ManualPlayer.find(db, id: 1).name == "Arthur")
            #expect(try Player.fetchCursor(db, keys: [1, 2]).map(\.score).reduce(0, +) == 300)
        }
        #expect(recorder.dataSQL == [
            "SELECT * FROM \"player\" WHERE \"id\" = ?",
            "SELECT * FROM \"player\" WHERE \"id\" IN (?, ?)",
            "SELECT * FROM \"player\" WHERE \"id\" IN (?, ?)",
            "SELECT * FROM \"player\" WHERE \"email\" = ?",
            "SELECT * FROM \"player\" WHERE \"id\" IN (?, ?)",
            "SELECT * FROM \"player\" WHERE \"id\" = ?",
            "SELECT * FROM \"player\" WHERE \"id\" IN (?, ?)",
        ])
    }

    @Test func emptyAndNullKeysRunNoQueryOrMatchNothing() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            #expect(try Player.fetchAll(db, keys: [Int]()).isEmpty)
            #expect(try Player.deleteAll(db, keys: [Int]()) == 0)
            #expect(try Player.fetchOne(db, key: nil as Int?) == nil)
            #expect(try Player.deleteOne(db, key: nil as Int?) == false)
            #expect(try Player.fetchOne(db, key: ["email": nil]) == nil)
        }
        // A NULL key matches nothing: the filter becomes `0` (and, not being a unique key
        // filter, the single fetch gets LIMIT 1 as GRDB adds it).
        #expect(recorder.dataSQL == ["SELECT * FROM \"player\" WHERE 0 LIMIT 1"])
    }

    @Test func compositeAndUniqueKeys() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try db.execute(sql: citizenshipSchema)
            try Country(code: "FR", name: "France").insert(db)
            try Country(code: "US", name: "United States").insert(db)
            try Citizenship(citizenId: 1, countryCode: "FR", since: 2000).insert(db)
            try Citizenship(citizenId: 1, countryCode: "US", since: nil).insert(db)
            recorder.record(db)
            let key: [String: (any DatabaseValueConvertible)?] = ["citizenId": 1, "countryCode": "FR"]
            #expect(try Citizenship.fetchOne(db, key: key)?.since == 2000)
            #expect(try Citizenship.fetchAll(db, keys: [key, ["citizenId": 1, "countryCode": "US"]]).count == 2)
            #expect(try Country.find(db, id: "US").name == "United States")
            #expect(try Citizenship.deleteOne(db, key: key))
            #expect(try Citizenship.fetchCount(db) == 1)
        }
        #expect(recorder.dataSQL == [
            "SELECT * FROM \"citizenship\" WHERE (\"citizenId\" = ?) AND (\"countryCode\" = ?)",
            "SELECT * FROM \"citizenship\" WHERE ((\"citizenId\" = ?) AND (\"countryCode\" = ?)) OR ((\"citizenId\" = ?) AND (\"countryCode\" = ?))",
            "SELECT * FROM \"country\" WHERE \"code\" = ?",
            "DELETE FROM \"citizenship\" WHERE (\"citizenId\" = ?) AND (\"countryCode\" = ?)",
            "SELECT COUNT(*) FROM \"citizenship\"",
        ])
    }

    @Test func badKeysAreErrors() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try makePlayers(db)
            try db.execute(sql: citizenshipSchema)
            // Not a unique key: an error that names the table and columns; nothing deleted.
            let error = expectDatabaseError(.SQLITE_MISUSE) { _ = try Player.fetchOne(db, key: ["name": "Arthur"]) }
            #expect(error?.message == "table \"player\" has no unique key on column(s) \"name\"")
            expectDatabaseError(.SQLITE_MISUSE) { _ = try Player.deleteAll(db, keys: [["score": 100]]) }
            #expect(try Player.fetchCount(db) == 3)
            // A single value for a composite primary key.
            expectDatabaseError(.SQLITE_MISUSE) { _ = try Citizenship.fetchOne(db, key: 1) }
            // No such table.
            struct Missing: TableRecord, FetchableRecord { init(row: Row) {} }
            let missing = expectDatabaseError(.SQLITE_ERROR) { _ = try Missing.fetchOne(db, key: 1) }
            #expect(missing?.message == "no such table: missing")
        }
    }

    @Test func findThrowsRecordNotFound() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try makePlayers(db)
            do {
                _ = try Player.find(db, key: 42)
                Issue.record("expected RecordError")
            } catch let RecordError.recordNotFound(databaseTableName: table, key: key) {
                #expect(table == "player")
                #expect(key == ["id": 42.databaseValue])
            }
            do {
                _ = try Player.find(db, key: ["email": "nobody@example.com"])
                Issue.record("expected RecordError")
            } catch let error as RecordError {
                // The description names the columns, never the values.
                #expect(error.description == "Key not found in table \"player\" (key columns: \"email\")")
                #expect(!error.description.contains("nobody"))
            }
        }
    }

    @Test func deleteAllAndDeleteOne() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            recorder.record(db)
            #expect(try Player.deleteOne(db, key: 1))
            #expect(try !Player.deleteOne(db, key: 1))
            #expect(try ManualPlayer.deleteAll(db, ids: [2, 42]) == 1)
            #expect(try Player.deleteAll(db) == 1)
            #expect(try Player.fetchCount(db) == 0)
        }
        #expect(recorder.dataSQL == [
            "DELETE FROM \"player\" WHERE \"id\" = ?",
            "DELETE FROM \"player\" WHERE \"id\" = ?",
            "DELETE FROM \"player\" WHERE \"id\" IN (?, ?)",
            "DELETE FROM \"player\"",
            "SELECT COUNT(*) FROM \"player\"",
        ])
    }

    @Test func deleteInFailedTransactionLeavesTableUnchanged() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try makePlayers(db) }
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try test.dbQueue.write { db in
                try Player.deleteAll(db)
                throw Failure()
            }
        }
        #expect(try test.dbQueue.read { try Player.fetchCount($0) } == 3)
    }

    @Test func databaseSelectionAndHiddenRowID() throws {
        struct Name: TableRecord, FetchableRecord {
            static let databaseTableName = "player"
            static var databaseSelection: [any SQLSelectable] { [Column("name"), Column.rowID] }
            var name: String
            var rowID: Int64
            init(row: Row) {
                name = row["name"]
                rowID = row[1] // SQLite names it after the INTEGER PRIMARY KEY: "id"
            }
        }
        struct Event: TableRecord, FetchableRecord, Codable, PersistableRecord {
            var label: String
        }
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            try db.execute(sql: "CREATE TABLE event (label TEXT)")
            recorder.record(db)
            #expect(try Name.fetchAll(db).map(\.name) == ["Arthur", "Barbara", "Craig"])
            #expect(try Name.fetchOne(db)?.rowID == 1)
            #expect(try Name.numberOfSelectedColumns(db) == 2)
            #expect(try Player.numberOfSelectedColumns(db) == 4)
            try Event(label: "a").insert(db)
            // A table without explicit primary key is keyed by its hidden rowid.
            #expect(try db.primaryKey("event") == PrimaryKeyInfo.hiddenRowID)
            #expect(try Event.fetchOne(db, key: 1)?.label == "a")
        }
        #expect(recorder.dataSQL.prefix(2) == [
            "SELECT \"name\", \"rowid\" FROM \"player\"",
            "SELECT \"name\", \"rowid\" FROM \"player\" LIMIT 1",
        ])
        #expect(recorder.dataSQL.contains("SELECT * FROM \"event\" WHERE \"rowid\" = ?"))
    }

    @Test func schemaIntrospectionFollowsSchemaChanges() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try makePlayers(db)
            #expect(try db.tableExists("player"))
            #expect(try !db.tableExists("team"))
            #expect(try db.columns(in: "player").map(\.name) == ["id", "name", "email", "score"])
            let primaryKey = try db.primaryKey("player")
            #expect(primaryKey.columns == ["id"])
            #expect(primaryKey.rowIDColumn == "id")
            #expect(primaryKey.isRowID)
            #expect(try db.table("player", hasUniqueKey: ["email"]))
            #expect(try db.table("player", hasUniqueKey: ["email", "name"]))
            #expect(try !db.table("player", hasUniqueKey: ["name"]))
            #expect(try db.indexes(on: "player").contains { $0.isUnique && $0.columns == ["email"] })
            // Raw SQL schema changes are seen.
            try db.execute(sql: "ALTER TABLE player ADD COLUMN team TEXT")
            #expect(try db.columns(in: "player").map(\.name).last == "team")
            try db.execute(sql: "CREATE UNIQUE INDEX player_name ON player(name)")
            #expect(try db.table("player", hasUniqueKey: ["name"]))
            // Rolled back changes too.
            try db.execute(sql: "SAVEPOINT s; CREATE TABLE team (id TEXT PRIMARY KEY) WITHOUT ROWID")
            #expect(try db.primaryKey("team").isRowID == false)
            try db.execute(sql: "ROLLBACK TO s; RELEASE s")
            #expect(try !db.tableExists("team"))
        }
        // Changes from another connection are seen at the next access.
        _ = try test.dbQueue.read { try $0.columns(in: "player") }
        let other = try test.makeQueue()
        try other.write { try $0.execute(sql: "ALTER TABLE player ADD COLUMN level INTEGER") }
        #expect(try test.dbQueue.read { try $0.columns(in: "player").map(\.name).last } == "level")
    }

    @Test func nilIDsRunNoStatement() throws {
        // REC-6: as GRDB, a nil id (optional `ID`) matches no row without a statement.
        struct Draft: TableRecord, Identifiable {
            static let databaseTableName = "draft"
            var id: Int64?
        }
        try withRecordedDatabase("CREATE TABLE draft(id INTEGER PRIMARY KEY); INSERT INTO draft VALUES (1)") { (db: Database, recorder: SQLRecorder) throws in
            #expect(try !Draft.exists(db, id: nil))
            #expect(try !Draft.deleteOne(db, id: nil))
            #expect(try !Table<Draft>("draft").exists(db, id: nil))
            #expect(try !Table<Draft>("draft").deleteOne(db, id: nil))
            #expect(recorder.dataSQL.isEmpty)
            #expect(try Draft.exists(db, id: 1))
            #expect(try Draft.deleteOne(db, id: 1))
            #expect(recorder.dataSQL == [
                "SELECT EXISTS (SELECT * FROM \"draft\" WHERE \"id\" = ?)",
                "DELETE FROM \"draft\" WHERE \"id\" = ?",
            ])
        }
    }
}
