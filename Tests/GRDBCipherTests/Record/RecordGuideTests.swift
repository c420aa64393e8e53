import Foundation
import Testing
@testable import GRDBCipher

// The patterns of GRDB's record guides: the Record class, record timestamps with the
// transaction date, single-row tables.

final class RecordPlayer: Record {
    var id: Int64?
    var name: String
    var score: Int

    override class var databaseTableName: String { "player" }

    init(id: Int64? = nil, name: String, score: Int) {
        self.id = id
        self.name = name
        self.score = score
        super.init()
    }

    required init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        score = row["score"]
        try super.init(row: row)
    }

    override func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["score"] = score
    }

    override func didInsert(_ inserted: InsertionSuccess) {
        super.didInsert(inserted)
        id = inserted.rowID
    }
}

/// The guide's timestamped player.
struct StampedPlayer: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "stamped"
    var id: Int64?
    var creationDate: Date?
    var modificationDate: Date?
    var name: String

    mutating func willInsert(_ db: Database) throws {
        if creationDate == nil { creationDate = try db.transactionDate }
        if modificationDate == nil { modificationDate = try db.transactionDate }
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// The guide's single-row configuration.
struct AppConfiguration: Codable, FetchableRecord, PersistableRecord {
    private var id = 1
    private var storedFlag: Bool?

    var flag: Bool {
        get { storedFlag ?? true }
        set { storedFlag = newValue }
    }

    static let `default` = AppConfiguration(storedFlag: nil)

    init(storedFlag: Bool?) {
        self.storedFlag = storedFlag
    }

    /// Updates fail on an empty table: insert the default row first.
    func willUpdate(_ db: Database, columns: Set<String>) throws {
        if try !exists(db) {
            try AppConfiguration.default.insert(db)
        }
    }

    static func find(_ db: Database) throws -> AppConfiguration {
        try fetchOne(db) ?? .default
    }
}

@Suite("Record guides")
struct RecordGuideTests {
    @Test func recordClassTracksChanges() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            try makePlayers(db)
            let player = RecordPlayer(name: "Dan", score: 5)
            #expect(player.hasDatabaseChanges)
            try player.insert(db)
            #expect(player.id == 4)
            #expect(!player.hasDatabaseChanges)
            let fetched = try RecordPlayer.find(db, key: 1)
            #expect(!fetched.hasDatabaseChanges)
            recorder.record(db)
            #expect(try !fetched.updateChanges(db))
            fetched.score = 101
            #expect(fetched.hasDatabaseChanges)
            #expect(try fetched.databaseChanges == ["score": 100.databaseValue])
            #expect(try fetched.updateChanges(db))
            #expect(!fetched.hasDatabaseChanges)
            let copy = try fetched.copy()
            #expect(copy.score == 101 && !copy.hasDatabaseChanges)
            try fetched.delete(db)
            #expect(fetched.hasDatabaseChanges)
        }
        #expect(recorder.dataSQL == [
            "UPDATE \"player\" SET \"score\"=? WHERE \"id\"=?",
            "DELETE FROM \"player\" WHERE \"id\"=?",
        ])
    }

    @Test func timestampsUseTheTransactionDate() throws {
        let clockDates = LockedValue<[Date]>([Date(timeIntervalSince1970: 1000), Date(timeIntervalSince1970: 2000), Date(timeIntervalSince1970: 3000)])
        var config = Configuration()
        config.transactionClock = .custom { _ in clockDates.update { $0.removeFirst() } }
        let test = try TestDatabase(configuration: config)
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE stamped (id INTEGER PRIMARY KEY, creationDate DATETIME NOT NULL, modificationDate DATETIME NOT NULL, name TEXT)")
            var a = StampedPlayer(name: "A")
            var b = StampedPlayer(name: "B")
            try a.insert(db)
            try b.insert(db)
            // One transaction, one date.
            #expect(a.creationDate == Date(timeIntervalSince1970: 1000))
            #expect(b.creationDate == a.creationDate && b.modificationDate == a.creationDate)
            try a.updateChanges(db) { $0.modificationDate = try db.transactionDate }
            #expect(a.modificationDate == Date(timeIntervalSince1970: 1000))
        }
        try test.dbQueue.write { (db: Database) throws in
            // The next transaction gets the next date.
            #expect(try db.transactionDate == Date(timeIntervalSince1970: 2000))
            #expect(try db.transactionDate == Date(timeIntervalSince1970: 2000))
        }
        // Outside of a transaction, every call asks the clock.
        try test.dbQueue.writeWithoutTransaction { (db: Database) throws in
            #expect(try db.transactionDate == Date(timeIntervalSince1970: 3000))
        }
        let stored = try test.dbQueue.read { try StampedPlayer.fetchAll(db: $0) }
        #expect(stored.map(\.creationDate) == [Date(timeIntervalSince1970: 1000), Date(timeIntervalSince1970: 1000)])
    }

    @Test func defaultClockIsConstantWithinATransaction() throws {
        let test = try TestDatabase()
        let (first, second) = try test.dbQueue.write { db in
            let first = try db.transactionDate
            Thread.sleep(forTimeInterval: 0.01)
            return (first, try db.transactionDate)
        }
        #expect(first == second)
        let later = try test.dbQueue.write { try $0.transactionDate }
        #expect(later > first)
    }

    @Test func singleRowTable() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE appConfiguration (id INTEGER PRIMARY KEY ON CONFLICT REPLACE CHECK (id = 1), storedFlag BOOLEAN)")
            #expect(try AppConfiguration.find(db).flag == true)
            var config = try AppConfiguration.find(db)
            try config.updateChanges(db) { $0.flag = false }
            #expect(try AppConfiguration.fetchCount(db) == 1)
            #expect(try AppConfiguration.find(db).flag == false)
            config.flag = true
            try config.save(db)
            try config.update(db)
            try config.insert(db)
            try config.upsert(db)
            #expect(try AppConfiguration.fetchCount(db) == 1)
            #expect(try AppConfiguration.find(db).flag == true)
            // The CHECK keeps a second row out.
            expectDatabaseError(.SQLITE_CONSTRAINT_CHECK) {
                try db.execute(sql: "INSERT INTO appConfiguration (id) VALUES (2)")
            }
        }
    }
}

extension FetchableRecord where Self: TableRecord {
    /// Helper for the tests: `fetchAll` ordered by rowid.
    static func fetchAll(db: Database) throws -> [Self] {
        try fetchAll(db, sql: "SELECT * FROM \(databaseTableName.quotedDatabaseIdentifier) ORDER BY rowid")
    }
}
