import Foundation
@testable import GRDBCipher

// Record types and schemas shared by the record test suites.

/// CREATE TABLE player: auto-incremented id, unique email, NOT NULL name and score.
let playerSchema = """
    CREATE TABLE player (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        email TEXT UNIQUE,
        score INTEGER NOT NULL DEFAULT 1000 CHECK (score >= 0));
    """

/// A Codable record with an auto-incremented id.
struct Player: Codable, Hashable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var name: String
    var email: String?
    var score: Int

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let score = Column(CodingKeys.score)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// The same table, through `init(row:)` and `encode(to:)` written by hand.
struct ManualPlayer: FetchableRecord, PersistableRecord, Identifiable, Hashable {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
    var email: String?
    var score: Int

    enum Columns: String, ColumnExpression {
        case id, name, email, score
    }

    init(id: Int64, name: String, email: String? = nil, score: Int) {
        self.id = id
        self.name = name
        self.email = email
        self.score = score
    }

    init(row: Row) {
        id = row[Columns.id]
        name = row[Columns.name]
        email = row[Columns.email]
        score = row[Columns.score]
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = id
        container[Columns.name] = name
        container[Columns.email] = email
        container[Columns.score] = score
    }
}

/// CREATE TABLE citizenship: a composite primary key.
let citizenshipSchema = """
    CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE citizenship (
        citizenId INTEGER NOT NULL,
        countryCode TEXT NOT NULL REFERENCES country(code),
        since INTEGER,
        PRIMARY KEY (citizenId, countryCode));
    """

struct Country: Codable, Hashable, FetchableRecord, PersistableRecord, Identifiable {
    var code: String
    var name: String
    var id: String { code }

    enum CodingKeys: String, CodingKey { case code, name }
}

struct Citizenship: Codable, Hashable, FetchableRecord, PersistableRecord {
    var citizenId: Int64
    var countryCode: String
    var since: Int?
}

/// Creates the player table and three players (ids 1, 2, 3).
func makePlayers(_ db: Database) throws {
    try db.execute(sql: playerSchema)
    try db.execute(sql: """
        INSERT INTO player (name, email, score) VALUES ('Arthur', 'arthur@example.com', 100);
        INSERT INTO player (name, email, score) VALUES ('Barbara', 'barbara@example.com', 200);
        INSERT INTO player (name, email, score) VALUES ('Craig', NULL, 300);
        """)
}

/// The player rows, for "nothing changed" checks.
func playerRows(_ db: Database) throws -> [Row] {
    try Row.fetchAll(db, sql: "SELECT * FROM player ORDER BY id")
}
