import Foundation
import GRDBCipherMacros
import Testing

// Records made by the macro, against the database: what they read and write, and that it is
// what their `Codable` twins read and write.

struct Preferences: Codable, Equatable {
    var theme: String
    var tags: [String]
}

@DatabaseRecord
struct Player: Equatable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Double?
    var joined: Date
    var lastSeen: Date?
    var avatar: Data?
    var token: UUID
    var preferences: Preferences
    var notes: [String]?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// The same record with `Codable`.
struct CodablePlayer: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Double?
    var joined: Date
    var lastSeen: Date?
    var avatar: Data?
    var token: UUID
    var preferences: Preferences
    var notes: [String]?
}

/// Strategies of its own: dates as seconds since 1970, UUIDs as text, snake case columns.
@DatabaseRecord
struct Event: Equatable, FetchableRecord, PersistableRecord {
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .lowercaseString }
    var eventId: Int64
    var happenedAt: Date
    var sourceToken: UUID
}

/// CodingKeys rename a column and leave a property out.
@DatabaseRecord
struct Renamed: Equatable, FetchableRecord, PersistableRecord {
    var id: Int64
    var title: String
    var cached: Int = 0
    enum CodingKeys: String, CodingKey {
        case id
        case title = "label"
    }
}

@DatabaseRecord
struct Author: Equatable, FetchableRecord, PersistableRecord {
    static let books = hasMany(Book.self)
    var id: Int64
    var name: String
}

@DatabaseRecord
struct Book: Equatable, FetchableRecord, PersistableRecord {
    static let author = belongsTo(Author.self)
    var id: Int64
    var authorId: Int64?
    var title: String
}

@DatabaseRecord
struct BookInfo: FetchableRecord {
    var book: Book
    var author: Author
}

@DatabaseRecord
struct OptionalAuthorBookInfo: FetchableRecord {
    var book: Book
    var author: Author?
}

@DatabaseRecord
struct AuthorInfo: FetchableRecord {
    var author: Author
    var books: [Book]
}

/// A type the macro does not name, for the default table name rule.
enum Plain {
    struct HTTPRequest: TableRecord {}
}

@DatabaseRecord
struct HTTPRequest: FetchableRecord, TableRecord {
    var id: Int64
}

private func makeDatabase(encrypted: Bool = ProcessInfo.processInfo.environment["GRDBCIPHER_TEST_ENCRYPTION"] == "1") throws -> DatabaseQueue {
    var config = Configuration()
    if encrypted {
        config.prepareDatabase { db in try db.usePassphrase("macro tests") }
    }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("macro-\(UUID().uuidString).sqlite").path
    let dbQueue = try DatabaseQueue(path: path, configuration: config)
    try dbQueue.write { db in
        try db.execute(sql: """
            CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, bonus REAL,
              joined DATETIME NOT NULL, lastSeen DATETIME, avatar BLOB, token BLOB NOT NULL, preferences TEXT NOT NULL, notes TEXT);
            CREATE TABLE event (event_id INTEGER PRIMARY KEY, happened_at DOUBLE NOT NULL, source_token TEXT NOT NULL);
            CREATE TABLE renamed (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
            CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT NOT NULL);
            """)
    }
    return dbQueue
}

private func samplePlayer(_ name: String = "Arthur") -> Player {
    Player(
        id: nil, name: name, score: 1000, bonus: 2.5,
        joined: Date(timeIntervalSince1970: 1_700_000_000.25), lastSeen: nil,
        avatar: Data([0, 1, 2, 255]), token: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
        preferences: Preferences(theme: "dark", tags: ["a", "b"]), notes: ["first"])
}

private func codableTwin(_ player: Player) -> CodablePlayer {
    CodablePlayer(
        id: player.id, name: player.name, score: player.score, bonus: player.bonus, joined: player.joined,
        lastSeen: player.lastSeen, avatar: player.avatar, token: player.token, preferences: player.preferences,
        notes: player.notes)
}

@Suite struct DatabaseRecordTests {
    @Test func encodesAsItsCodableTwin() throws {
        let player = samplePlayer()
        let macro = try player.databaseDictionary
        let codable = try codableTwin(player).databaseDictionary
        #expect(macro == codable)
        #expect(macro["preferences"] == #"{"tags":["a","b"],"theme":"dark"}"#.databaseValue
                || macro["preferences"] == #"{"theme":"dark","tags":["a","b"]}"#.databaseValue)
        #expect(macro["lastSeen"] == .null)
        #expect(Array(macro.keys).sorted() == ["avatar", "bonus", "id", "joined", "lastSeen", "name", "notes", "preferences", "score", "token"])
    }

    @Test func roundTripsAndDecodesAsItsCodableTwin() throws {
        let dbQueue = try makeDatabase()
        var player = samplePlayer()
        try dbQueue.write { db in try player.insert(db) }
        #expect(player.id == 1)
        try dbQueue.read { db throws in
            let fetched = try Player.fetchOne(db, key: 1)
            #expect(fetched == player)
            let twin = try CodablePlayer.fetchOne(db, key: 1)
            #expect(twin == codableTwin(player))
            // The standard query interface, with the generated columns.
            let best = try Player.filter(Player.Columns.score > 500).order(Player.Columns.name).fetchAll(db)
            #expect(best.map(\.name) == ["Arthur"])
        }
        // What the Codable twin writes, the macro record reads.
        var other = codableTwin(samplePlayer("Barbara"))
        other.lastSeen = Date(timeIntervalSince1970: 1_800_000_000)
        other.notes = nil
        try dbQueue.write { db in try other.insert(db) }
        let read = try dbQueue.read { db in try Player.filter(Player.Columns.name == "Barbara").fetchOne(db) }
        #expect(read?.lastSeen == other.lastSeen)
        #expect(read?.notes == nil)
        #expect(read?.preferences == other.preferences)
    }

    @Test func tableNameAndColumns() {
        #expect(Player.databaseTableName == "player")
        #expect(HTTPRequest.databaseTableName == Plain.HTTPRequest.databaseTableName)
        #expect(HTTPRequest.databaseTableName == "httpRequest")
        #expect(Player.Columns.lastSeen.name == "lastSeen")
        #expect(Renamed.Columns.title.name == "label")
    }

    @Test func recordStrategiesApply() throws {
        let dbQueue = try makeDatabase()
        let token = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let event = Event(eventId: 7, happenedAt: Date(timeIntervalSince1970: 1234.5), sourceToken: token)
        try dbQueue.write { db in try event.insert(db) }
        try dbQueue.read { db throws in
            let row = try Row.fetchOne(db, sql: "SELECT event_id, happened_at, source_token, typeof(happened_at) AS type FROM event")!
            #expect(row["event_id"] as Int64 == 7)
            #expect(row["happened_at"] as Double == 1234.5)
            #expect(row["type"] as String == "real")
            #expect(row["source_token"] as String == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
            #expect(try Event.fetchOne(db) == event)
        }
    }

    @Test func codingKeysRenameAndLeaveOut() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in try Renamed(id: 1, title: "Hello", cached: 42).insert(db) }
        try dbQueue.read { db throws in
            #expect(try String.fetchOne(db, sql: "SELECT label FROM renamed") == "Hello")
            #expect(try Renamed.fetchOne(db) == Renamed(id: 1, title: "Hello", cached: 0))
        }
    }

    @Test func associations() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try Author(id: 1, name: "Ann").insert(db)
            try Author(id: 2, name: "Bob").insert(db)
            try Book(id: 1, authorId: 1, title: "One").insert(db)
            try Book(id: 2, authorId: 1, title: "Two").insert(db)
            try Book(id: 3, authorId: 2, title: "Three").insert(db)
            try db.execute(sql: "INSERT INTO book (id, authorId, title) VALUES (4, NULL, 'Orphan')")
        }
        try dbQueue.read { db throws in
            let infos = try Book.including(required: Book.author).order(Column("id")).asRequest(of: BookInfo.self).fetchAll(db)
            #expect(infos.map(\.book.title) == ["One", "Two", "Three"])
            #expect(infos.map(\.author.name) == ["Ann", "Ann", "Bob"])
            let optional = try Book.including(optional: Book.author).order(Column("id")).asRequest(of: OptionalAuthorBookInfo.self).fetchAll(db)
            #expect(optional.map(\.author?.name) == ["Ann", "Ann", "Bob", nil])
            let authors = try Author.including(all: Author.books.order(Column("id"))).order(Column("id")).asRequest(of: AuthorInfo.self).fetchAll(db)
            #expect(authors.map { $0.books.map(\.title) } == [["One", "Two"], ["Three"]])
        }
    }

    @Test func badRowsThrow() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db throws in
            // A missing column, a NULL for a non-optional property, a value that does not convert.
            #expect(throws: RowDecodingError.self) { try Author.fetchOne(db, sql: "SELECT 1 AS id") }
            #expect(throws: RowDecodingError.self) { try Author.fetchOne(db, sql: "SELECT 1 AS id, NULL AS name") }
            #expect(throws: (any Error).self) { try Player.fetchOne(db, sql: "SELECT 1 AS id, 'x' AS name, 1 AS score, 'not a date' AS joined, x'00' AS token, '{}' AS preferences") }
            // A JSON column that is not JSON.
            #expect(throws: (any Error).self) {
                try Player.fetchOne(db, sql: "SELECT 1 AS id, 'x' AS name, 1 AS score, '2020-01-01 00:00:00' AS joined, x'E621E1F8C36C495A93FC0C247A3E6E5F' AS token, 'oops' AS preferences")
            }
        }
    }

    @Test func encryptedDatabase() throws {
        let dbQueue = try makeDatabase(encrypted: true)
        var player = samplePlayer()
        try dbQueue.write { db in try player.insert(db) }
        #expect(try dbQueue.read { db in try Player.fetchOne(db, key: player.id) } == player)
        #expect(try dbQueue.read { db in try String.fetchOne(db, sql: "PRAGMA cipher_version") } != nil)
    }
}
