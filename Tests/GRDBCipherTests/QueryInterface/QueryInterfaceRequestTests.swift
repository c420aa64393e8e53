import Foundation
import Testing
@testable import GRDBCipher

private struct QIPlayer: Codable, FetchableRecord, PersistableRecord, Identifiable, Hashable {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Int
    var team: String?
    var email: String?

    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let score = Column("score")
        static let bonus = Column("bonus")
        static let team = Column("team")
        static let email = Column("email")
    }
}

private struct QITeam: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "team"
    var id: Int64
    var name: String
}

/// A record that selects all columns but two.
private struct QIPlayerSummary: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "player"
    static var databaseSelection: [any SQLSelectable] { [.allColumns(excluding: ["bonus", "EMAIL"])] }
    var id: Int64
    var name: String
    var score: Int
    var team: String?
}

/// A record that selects its hidden rowid too.
private struct QICitizenshipWithRowID: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "citizenship"
    static var databaseSelection: [any SQLSelectable] { [.allColumns, .rowID] }
    var countryCode: String
    var rowid: Int64
}

private struct QICitizenship: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "citizenship"
    var citizenId: Int64
    var countryCode: String
}

private let schema = """
    CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE player (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, bonus INTEGER NOT NULL,
        team TEXT, email TEXT UNIQUE);
    CREATE TABLE citizenship (citizenId INTEGER NOT NULL, countryCode TEXT NOT NULL, PRIMARY KEY (citizenId, countryCode));
    INSERT INTO team (id, name) VALUES (1, 'red'), (2, 'blue'), (3, 'green');
    INSERT INTO player (id, name, score, bonus, team, email) VALUES
        (1, 'Arthur', 100, 10, 'red', 'arthur@example.com'),
        (2, 'Barbara', 300, 0, 'blue', NULL),
        (3, 'Craig', 200, 5, 'red', 'craig@example.com'),
        (4, 'Diane', 50, 50, NULL, NULL);
    INSERT INTO citizenship VALUES (1, 'FR'), (1, 'US'), (2, 'FR');
    """

/// The SQL and arguments of a request, as it would run.
private func sqlOf(_ db: Database, _ request: some FetchRequest, single: Bool = false) throws -> String {
    try request.makePreparedRequest(db, forSingleResult: single).statement.sql
}

/// Expects the SQL of a request (outside `#expect`, whose expansion does not accept `try` in
/// operator sub-expressions).
private func expectSQL(_ db: Database, _ request: some FetchRequest, _ expected: String, single: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let sql = try sqlOf(db, request, single: single)
    #expect(sql == expected, sourceLocation: sourceLocation)
}

private func argumentsOf(_ db: Database, _ request: some FetchRequest) throws -> StatementArguments {
    try request.makePreparedRequest(db, forSingleResult: false).statement.arguments
}

@Suite("QueryInterfaceRequest")
struct QueryInterfaceRequestTests {
    private func withDatabase(_ body: (Database) throws -> Void) throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: schema)
            try body(db)
        }
    }

    @Test func selection() throws {
        try withDatabase { (db: Database) throws in
            try expectSQL(db, QIPlayer.all(), "SELECT * FROM \"player\"")
            try expectSQL(db, Table("player").all(), "SELECT * FROM \"player\"")
            try expectSQL(db, QIPlayer.select(Column("name"), Column("score")), "SELECT \"name\", \"score\" FROM \"player\"")
            try expectSQL(db, QIPlayer.select(Column("name"), as: String.self).distinct(), "SELECT DISTINCT \"name\" FROM \"player\"")
            try expectSQL(db, QIPlayer.select((Column("score") + Column("bonus")).forKey("total")), "SELECT \"score\" + \"bonus\" AS \"total\" FROM \"player\"")
            // An aliased expression is not parenthesized, as in GRDB.
            try expectSQL(db, QIPlayer.select((Column("score") * 10).forKey("s10")), "SELECT \"score\" * ? AS \"s10\" FROM \"player\"")
            try expectSQL(db, QIPlayer.select((-Column("score")).forKey("negated"), Column("name").forKey("n")), "SELECT -\"score\" AS \"negated\", \"name\" AS \"n\" FROM \"player\"")
            try expectSQL(db, QIPlayer.annotated(with: (Column("score") + Column("bonus")).forKey("total")), "SELECT *, \"score\" + \"bonus\" AS \"total\" FROM \"player\"")
            try expectSQL(db, QIPlayer.select(sql: "IFNULL(team, ?), score", arguments: ["none"]), "SELECT IFNULL(team, ?), score FROM \"player\"")
            #expect(try argumentsOf(db, QIPlayer.select(sql: "IFNULL(team, ?), score", arguments: ["none"])) == ["none"])
            try expectSQL(db, QIPlayer.selectPrimaryKey(as: Int64.self), "SELECT \"id\" FROM \"player\"")
            try expectSQL(db, QICitizenship.selectPrimaryKey(as: Row.self), "SELECT \"citizenId\", \"countryCode\" FROM \"citizenship\"")
            let name = "x"
            try expectSQL(db, QIPlayer.select(literal: "IFNULL(\(Column("team")), \(name)) AS t"), "SELECT IFNULL(\"team\", ?) AS t FROM \"player\"")

            #expect(try QIPlayer.select(Column("name"), as: String.self).order(Column("name")).fetchAll(db) == ["Arthur", "Barbara", "Craig", "Diane"])
            #expect(try QIPlayer.select(max(Column("score")), as: Int.self).fetchOne(db) == 300)
            #expect(try Int.fetchOne(db, QIPlayer.select(min(Column("score")))) == 50)
            #expect(try QIPlayer.selectPrimaryKey(as: Int64.self).fetchSet(db) == [1, 2, 3, 4])
            let row = try Row.fetchOne(db, QIPlayer.select(min(Column("score")), max(Column("score"))))!
            #expect(row[0] as Int == 50 && row[1] as Int == 300)
        }
    }

    @Test func allColumnsExcludingAndRowID() throws {
        try withDatabase { (db: Database) throws in
            try expectSQL(db, QIPlayer.select(.allColumns(excluding: ["score", "BONUS"])), "SELECT \"id\", \"name\", \"team\", \"email\" FROM \"player\"")
            try expectSQL(db, QIPlayer.select(.allColumns(excluding: [Column("team"), Column("email")])), "SELECT \"id\", \"name\", \"score\", \"bonus\" FROM \"player\"")
            try expectSQL(db, QIPlayer.aliased(TableAlias(name: "p")).select(.allColumns(excluding: ["score", "bonus", "team", "email"])), "SELECT \"p\".\"id\", \"p\".\"name\" FROM \"player\" \"p\"")
            try expectSQL(db, QIPlayerSummary.all(), "SELECT \"id\", \"name\", \"score\", \"team\" FROM \"player\"")
            #expect(try QIPlayerSummary.numberOfSelectedColumns(db) == 4)
            #expect(try QIPlayerSummary.order(Column("id")).fetchAll(db).map(\.name) == ["Arthur", "Barbara", "Craig", "Diane"])
            try expectSQL(db, QICitizenshipWithRowID.all(), "SELECT *, \"rowid\" FROM \"citizenship\"")
            #expect(try QICitizenshipWithRowID.numberOfSelectedColumns(db) == 3)
            #expect(try QICitizenshipWithRowID.filter(Column("countryCode") == "US").fetchOne(db)?.rowid == 2)
            // A missing table is SQLite's error.
            expectDatabaseError(.SQLITE_ERROR) { _ = try Table("nowhere").select(.allColumns(excluding: ["a"])).fetchAll(db) }
        }
    }

    @Test func filtering() throws {
        try withDatabase { (db: Database) throws in
            try expectSQL(db, QIPlayer.filter(Column("score") > 100), "SELECT * FROM \"player\" WHERE \"score\" > ?")
            #expect(try argumentsOf(db, QIPlayer.filter(Column("score") > 100)) == [100])
            try expectSQL(db, QIPlayer.filter(Column("team") != nil && Column("score") > 100), "SELECT * FROM \"player\" WHERE (\"team\" IS NOT NULL) AND (\"score\" > ?)")
            try expectSQL(db, QIPlayer.filter(Column("team") == nil).filter(Column("score") >= 50), "SELECT * FROM \"player\" WHERE (\"team\" IS NULL) AND (\"score\" >= ?)")
            try expectSQL(db, QIPlayer.filter(sql: "score > ?", arguments: [10]).filter(literal: "bonus < \(5)"), "SELECT * FROM \"player\" WHERE (score > ?) AND (bonus < ?)")
            // GRDB's none(): a false argument.
            try expectSQL(db, QIPlayer.none(), "SELECT * FROM \"player\" WHERE ?")
            #expect(try argumentsOf(db, QIPlayer.none()) == [false])
            try expectSQL(db, QIPlayer.filter(Column("score") > 1).none(), "SELECT * FROM \"player\" WHERE (\"score\" > ?) AND ?")
            #expect(try QIPlayer.none().fetchAll(db).isEmpty)
            #expect(try QIPlayer.all().none().fetchCount(db) == 0)
            // Unary minus is parenthesized as an operand.
            try expectSQL(db, QIPlayer.filter(-Column("score") < -100), "SELECT * FROM \"player\" WHERE (-\"score\") < ?")
            #expect(try QIPlayer.filter(-Column("score") < -100).order(Column("id")).fetchAll(db).map(\.name) == ["Barbara", "Craig"])
            #expect(try QIPlayer.filter(Column("team") == "red").order(Column("id")).fetchAll(db).map(\.name) == ["Arthur", "Craig"])
            #expect(try QIPlayer.filter(Column("team") == nil).fetchAll(db).map(\.name) == ["Diane"])
            // NULL semantics: `= NULL` would match nothing; the query interface writes IS NULL.
            #expect(try QIPlayer.filter(Column("email") != nil).fetchCount(db) == 2)
            #expect(try QIPlayer.filter(Column("team") != "red").fetchCount(db) == 1) // NULL team is neither
        }
    }

    @Test func keyFilters() throws {
        try withDatabase { (db: Database) throws in
            try expectSQL(db, QIPlayer.filter(key: 1), "SELECT * FROM \"player\" WHERE \"id\" = ?")
            try expectSQL(db, QIPlayer.filter(keys: [1, 2, 3]), "SELECT * FROM \"player\" WHERE \"id\" IN (?, ?, ?)")
            try expectSQL(db, QIPlayer.filter(id: 1), "SELECT * FROM \"player\" WHERE \"id\" = ?")
            try expectSQL(db, QIPlayer.filter(ids: [1, 2]), "SELECT * FROM \"player\" WHERE \"id\" IN (?, ?)")
            try expectSQL(db, QIPlayer.filter(key: ["email": "a@b.c"]), "SELECT * FROM \"player\" WHERE \"email\" = ?")
            try expectSQL(db, QICitizenship.filter(key: ["citizenId": 1, "countryCode": "FR"]), "SELECT * FROM \"citizenship\" WHERE (\"citizenId\" = ?) AND (\"countryCode\" = ?)")
            try expectSQL(db, QICitizenship.filter(keys: [["citizenId": 1, "countryCode": "FR"], ["citizenId": 2, "countryCode": "FR"]]), "SELECT * FROM \"citizenship\" WHERE ((\"citizenId\" = ?) AND (\"countryCode\" = ?)) OR ((\"citizenId\" = ?) AND (\"countryCode\" = ?))")
            #expect(try QICitizenship.filter(key: ["citizenId": 1, "countryCode": "US"]).fetchCount(db) == 1)
            #expect(try Table("player").filter(key: 2).fetchOne(db)?["name"] == "Barbara")

            // Bad input: a key that is not unique, a composite primary key given as a value.
            let notUnique = expectDatabaseError(.SQLITE_MISUSE) { _ = try QIPlayer.filter(key: ["team": "red"]).fetchAll(db) }
            #expect(notUnique?.message?.contains("no unique key on column(s) \"team\"") == true)
            let composite = expectDatabaseError(.SQLITE_MISUSE) { _ = try QICitizenship.filter(key: 1).fetchAll(db) }
            #expect(composite?.message?.contains("composite primary key") == true)
        }
    }

    @Test func fetchOneAddsLimitUnlessTheFilterIsOnAUniqueKey() throws {
        try withDatabase { (db: Database) throws in
            let recorder = SQLRecorder()
            recorder.record(db)
            _ = try QIPlayer.fetchOne(db)
            _ = try QIPlayer.filter(Column("score") > 100).fetchOne(db)
            _ = try QIPlayer.filter(Column("id") == 1).fetchOne(db)
            _ = try QIPlayer.filter(key: 1).fetchOne(db)
            _ = try QIPlayer.filter(Column("email") == "arthur@example.com").fetchOne(db)
            _ = try QIPlayer.filter(Column("email") == "arthur@example.com" && Column("score") > 0).fetchOne(db)
            _ = try QICitizenship.filter(Column("citizenId") == 1).fetchOne(db)
            _ = try QICitizenship.filter(Column("citizenId") == 1 && Column("countryCode") == "FR").fetchOne(db)
            _ = try QIPlayer.filter(sql: "id = 1").fetchOne(db)
            _ = try QIPlayer.limit(2, offset: 1).fetchOne(db)
            _ = try QIPlayer.select(Column("name"), as: String.self).fetchOne(db)
            // Aggregates alone give one row: no LIMIT. Grouped aggregates give many.
            _ = try QIPlayer.select(max(Column("score")), as: Int.self).fetchOne(db)
            _ = try QIPlayer.select(count(AllColumns()), max(Column("score")) + 1).asRequest(of: Row.self).fetchOne(db)
            _ = try QIPlayer.select(max(Column("score")), as: Int.self).group(Column("team")).fetchOne(db)
            _ = try QIPlayer.select(max(Column("score")), Column("name")).asRequest(of: Row.self).fetchOne(db)
            _ = try QIPlayer.limit(3, offset: 1).fetchOne(db)
            #expect(recorder.dataSQL == [
                "SELECT * FROM \"player\" LIMIT 1",
                "SELECT * FROM \"player\" WHERE \"score\" > ? LIMIT 1",
                "SELECT * FROM \"player\" WHERE \"id\" = ?",
                "SELECT * FROM \"player\" WHERE \"id\" = ?",
                "SELECT * FROM \"player\" WHERE \"email\" = ?",
                "SELECT * FROM \"player\" WHERE (\"email\" = ?) AND (\"score\" > ?)",
                "SELECT * FROM \"citizenship\" WHERE \"citizenId\" = ? LIMIT 1",
                "SELECT * FROM \"citizenship\" WHERE (\"citizenId\" = ?) AND (\"countryCode\" = ?)",
                "SELECT * FROM \"player\" WHERE id = 1 LIMIT 1",
                "SELECT * FROM \"player\" LIMIT 2 OFFSET 1",
                "SELECT \"name\" FROM \"player\" LIMIT 1",
                "SELECT MAX(\"score\") FROM \"player\"",
                "SELECT COUNT(*), MAX(\"score\") + ? FROM \"player\"",
                "SELECT MAX(\"score\") FROM \"player\" GROUP BY \"team\" LIMIT 1",
                "SELECT MAX(\"score\"), \"name\" FROM \"player\" LIMIT 1",
                "SELECT * FROM \"player\" LIMIT 3 OFFSET 1",
            ])
        }
    }

    @Test func ordering() throws {
        try withDatabase { (db: Database) throws in
            try expectSQL(db, QIPlayer.order(Column("name")), "SELECT * FROM \"player\" ORDER BY \"name\"")
            try expectSQL(db, QIPlayer.order(Column("score").desc, Column("name")), "SELECT * FROM \"player\" ORDER BY \"score\" DESC, \"name\"")
            try expectSQL(db, QIPlayer.order(Column("score")).order(Column("name")), "SELECT * FROM \"player\" ORDER BY \"name\"")
            try expectSQL(db, QIPlayer.order(Column("score").desc, Column("name")).reversed(), "SELECT * FROM \"player\" ORDER BY \"score\" ASC, \"name\" DESC")
            try expectSQL(db, QIPlayer.order(Column("team").ascNullsLast, Column("name").descNullsFirst), "SELECT * FROM \"player\" ORDER BY \"team\" ASC NULLS LAST, \"name\" DESC NULLS FIRST")
            try expectSQL(db, QIPlayer.order(Column("team").ascNullsLast).reversed(), "SELECT * FROM \"player\" ORDER BY \"team\" DESC NULLS FIRST")
            try expectSQL(db, QIPlayer.all().reversed(), "SELECT * FROM \"player\"")
            try expectSQL(db, QIPlayer.order(Column("name")).unordered(), "SELECT * FROM \"player\"")
            try expectSQL(db, QIPlayer.orderByPrimaryKey(), "SELECT * FROM \"player\" ORDER BY \"id\"")
            try expectSQL(db, QICitizenship.orderByPrimaryKey().reversed(), "SELECT * FROM \"citizenship\" ORDER BY \"citizenId\" DESC, \"countryCode\" DESC")
            try expectSQL(db, QIPlayer.order(Column("name")).withStableOrder(), "SELECT * FROM \"player\" ORDER BY \"name\", \"id\"")
            try expectSQL(db, QIPlayer.order(Column("name").collating(.nocase)), "SELECT * FROM \"player\" ORDER BY \"name\" COLLATE NOCASE")
            try expectSQL(db, QIPlayer.order(sql: "score + bonus DESC"), "SELECT * FROM \"player\" ORDER BY score + bonus DESC")
            let total = SQL("score + bonus").sqlExpression
            try expectSQL(db, QIPlayer.order(total.desc).reversed(), "SELECT * FROM \"player\" ORDER BY score + bonus ASC")
            #expect(try QIPlayer.order(Column("score").desc).fetchAll(db).map(\.name) == ["Barbara", "Craig", "Arthur", "Diane"])
            #expect(try QIPlayer.order((Column("score") + Column("bonus")).desc).limit(1).fetchOne(db)?.name == "Barbara")

            // A raw SQL ordering can not be reversed: a clear error, not wrong SQL.
            let error = expectDatabaseError(.SQLITE_MISUSE) { _ = try QIPlayer.order(sql: "name").reversed().fetchAll(db) }
            #expect(error?.message?.contains("can not be reversed") == true)
        }
    }

    @Test func groupingAndLimits() throws {
        try withDatabase { (db: Database) throws in
            let request = QIPlayer.select(Column("team"), max(Column("score"))).group(Column("team")).having(min(Column("score")) >= 100)
            try expectSQL(db, request, "SELECT \"team\", MAX(\"score\") FROM \"player\" GROUP BY \"team\" HAVING MIN(\"score\") >= ?")
            let rows = try Row.fetchAll(db, request.order(Column("team")))
            #expect(rows.map { $0[0] as String } == ["blue", "red"])
            #expect(rows.map { $0[1] as Int } == [300, 200])
            try expectSQL(db, QIPlayer.all().group(sql: "team").having(sql: "COUNT(*) > ?", arguments: [1]), "SELECT * FROM \"player\" GROUP BY team HAVING COUNT(*) > ?")
            try expectSQL(db, QIPlayer.all().groupByPrimaryKey(), "SELECT * FROM \"player\" GROUP BY \"id\"")
            try expectSQL(db, QIPlayer.limit(5), "SELECT * FROM \"player\" LIMIT 5")
            try expectSQL(db, QIPlayer.limit(5, offset: 10), "SELECT * FROM \"player\" LIMIT 5 OFFSET 10")
            try expectSQL(db, QIPlayer.limit(20, offset: 40).limit(10), "SELECT * FROM \"player\" LIMIT 10")
            // The documented chain: filters add up, the last order and limit win.
            let chained = QIPlayer
                .filter(Column("name") != nil)
                .filter(Column("email") != nil)
                .order(Column("name"))
                .reversed()
                .order(Column("score"))
                .limit(20, offset: 40)
                .limit(10)
            try expectSQL(db, chained, "SELECT * FROM \"player\" WHERE (\"name\" IS NOT NULL) AND (\"email\" IS NOT NULL) ORDER BY \"score\" LIMIT 10")
            #expect(try QIPlayer.order(Column("id")).limit(2, offset: 1).fetchAll(db).map(\.id) == [2, 3])
        }
    }

    @Test func counting() throws {
        try withDatabase { (db: Database) throws in
            let recorder = SQLRecorder()
            recorder.record(db)
            #expect(try QIPlayer.fetchCount(db) == 4)
            #expect(try QIPlayer.filter(Column("email") != nil).fetchCount(db) == 2)
            #expect(try QIPlayer.select(Column("team")).distinct().fetchCount(db) == 2) // COUNT(DISTINCT) skips NULL
            #expect(try QIPlayer.select(Column("team"), Column("score")).distinct().fetchCount(db) == 4)
            #expect(try QIPlayer.order(Column("name")).limit(2).fetchCount(db) == 2)
            #expect(try QIPlayer.select(max(Column("score"))).fetchCount(db) == 1)
            #expect(try QIPlayer.select(Column("name")).fetchCount(db) == 4)
            #expect(try Table("player").fetchCount(db) == 4)
            #expect(try SQLRequest<Row>(sql: "SELECT * FROM player WHERE score > ?", arguments: [100]).fetchCount(db) == 2)
            #expect(recorder.dataSQL == [
                "SELECT COUNT(*) FROM \"player\"",
                "SELECT COUNT(*) FROM \"player\" WHERE \"email\" IS NOT NULL",
                "SELECT COUNT(DISTINCT \"team\") FROM \"player\"",
                "SELECT COUNT(*) FROM (SELECT DISTINCT \"team\", \"score\" FROM \"player\")",
                "SELECT COUNT(*) FROM (SELECT * FROM \"player\" ORDER BY \"name\" LIMIT 2)",
                "SELECT COUNT(*) FROM (SELECT MAX(\"score\") FROM \"player\")",
                "SELECT COUNT(*) FROM \"player\"",
                "SELECT COUNT(*) FROM \"player\"",
                "SELECT COUNT(*) FROM (SELECT * FROM player WHERE score > ?)",
            ])
            #expect(try !QIPlayer.all().isEmpty(db))
            #expect(try QIPlayer.filter(Column("score") > 1000).isEmpty(db))
            #expect(recorder.dataSQL.suffix(2) == [
                "SELECT EXISTS (SELECT * FROM \"player\")",
                "SELECT EXISTS (SELECT * FROM \"player\" WHERE \"score\" > ?)",
            ])
        }
    }

    @Test func deleteAll() throws {
        try withDatabase { (db: Database) throws in
            let recorder = SQLRecorder()
            recorder.record(db)
            #expect(try QIPlayer.filter(Column("team") == "red").deleteAll(db) == 2)
            #expect(try QIPlayer.order(Column("score")).limit(1).deleteAll(db) == 1)
            #expect(try QIPlayer.fetchAll(db).map(\.name) == ["Barbara"])
            #expect(try Table("citizenship").filter(Column("countryCode") == "FR").deleteAll(db) == 2)
            #expect(try QICitizenship.deleteAll(db) == 1)
            #expect(recorder.dataSQL == [
                "DELETE FROM \"player\" WHERE \"team\" = ?",
                "DELETE FROM \"player\" ORDER BY \"score\" LIMIT 1",
                "SELECT * FROM \"player\"",
                "DELETE FROM \"citizenship\" WHERE \"countryCode\" = ?",
                "DELETE FROM \"citizenship\"",
            ])
        }
    }

    @Test func deleteAllWithGroupingUsesASubquery() throws {
        try withDatabase { (db: Database) throws in
            let request = QIPlayer.filter(Column("score") > 0).group(Column("team")).having(count(AllColumns()) > 1)
            let recorder = SQLRecorder()
            recorder.record(db)
            #expect(try request.deleteAll(db) == 1)
            // The key subquery uses the single-column primary key, as GRDB (MOD-2).
            #expect(recorder.dataSQL.last == "DELETE FROM \"player\" WHERE \"id\" IN (SELECT \"id\" FROM \"player\" WHERE \"score\" > ? GROUP BY \"team\" HAVING COUNT(*) > ?)")
        }
    }

    @Test func updateAll() throws {
        try withDatabase { (db: Database) throws in
            let recorder = SQLRecorder()
            recorder.record(db)
            #expect(try QIPlayer.updateAll(db, Column("bonus").set(to: 0)) == 4)
            #expect(try QIPlayer.filter(Column("team") == "red").updateAll(db, Column("score") += Column("bonus") * 2, Column("email").set(to: nil)) == 2)
            #expect(try QIPlayer.filter(key: 2).updateAll(db, Column("score") -= 1) == 1)
            #expect(try QIPlayer.order(Column("score").desc).limit(1).updateAll(db, Column("score") *= 2) == 1)
            #expect(try QIPlayer.filter(key: 4).updateAll(db, Column("score") /= 2, Column("bonus").noOverwrite) == 1)
            #expect(try QIPlayer.updateAll(db, onConflict: .ignore, Column("email").set(to: "same@example.com")) == 1)
            #expect(try QIPlayer.updateAll(db, []) == 0)
            #expect(recorder.dataSQL == [
                "UPDATE \"player\" SET \"bonus\" = ?",
                "UPDATE \"player\" SET \"score\" = \"score\" + (\"bonus\" * ?), \"email\" = NULL WHERE \"team\" = ?",
                "UPDATE \"player\" SET \"score\" = \"score\" - ? WHERE \"id\" = ?",
                "UPDATE \"player\" SET \"score\" = \"score\" * ? ORDER BY \"score\" DESC LIMIT 1",
                "UPDATE \"player\" SET \"score\" = \"score\" / ?, \"bonus\" = \"bonus\" WHERE \"id\" = ?",
                "UPDATE OR IGNORE \"player\" SET \"email\" = ?",
            ])
            let scores = try QIPlayer.order(Column("id")).select(Column("score"), as: Int.self).fetchAll(db)
            #expect(scores == [100, 598, 200, 25])
            #expect(try QIPlayer.filter(Column("email") == "same@example.com").fetchCount(db) == 1)
        }
    }

    @Test func failedUpdateAndDeleteLeaveDataUnchanged() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        // A UNIQUE violation aborts the statement: no row changed.
        let error = expectDatabaseError(.SQLITE_CONSTRAINT) {
            try test.dbQueue.write { db in
                _ = try QIPlayer.updateAll(db, Column("email").set(to: "dup@example.com"))
            }
        }
        #expect(error?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
        // A failing transaction rolls back its updateAll and deleteAll.
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try test.dbQueue.write { db in
                try QIPlayer.updateAll(db, Column("score").set(to: 0))
                try QIPlayer.deleteAll(db)
                throw Abort()
            }
        }
        try test.dbQueue.read { (db: Database) throws in
            #expect(try QIPlayer.fetchCount(db) == 4)
            #expect(try QIPlayer.filter(Column("email") == "dup@example.com").fetchCount(db) == 0)
            #expect(try QIPlayer.select(sum(Column("score")), as: Int.self).fetchOne(db) == 650)
        }
    }

    @Test func unknownTableOrColumnIsNamedInTheError() throws {
        try withDatabase { (db: Database) throws in
            let column = expectDatabaseError(.SQLITE_ERROR) { _ = try QIPlayer.filter(Column("nope") > 1).fetchAll(db) }
            #expect(column?.message?.hasPrefix("no such column: \"nope\"") == true)
            let table = expectDatabaseError(.SQLITE_ERROR) { _ = try Table("missing").fetchAll(db) }
            #expect(table?.message == "no such table: missing")
            let key = expectDatabaseError(.SQLITE_ERROR) { _ = try Table("missing").filter(key: 1).fetchAll(db) }
            #expect(key?.message == "no such table: missing")
        }
    }

    @Test func requestsOnAView() throws {
        try withDatabase { (db: Database) throws in
            try db.execute(sql: "CREATE VIEW redPlayer AS SELECT * FROM player WHERE team = 'red'")
            let view = Table("redPlayer")
            #expect(try view.fetchCount(db) == 2)
            #expect(try view.order(Column("name").desc).fetchOne(db)?["name"] == "Craig")
            try expectSQL(db, view.filter(Column("id") == 1), "SELECT * FROM \"redPlayer\" WHERE \"id\" = ? LIMIT 1", single: true)
            #expect(try Table<QIPlayer>("redPlayer").fetchAll(db).map(\.name).sorted() == ["Arthur", "Craig"])
        }
    }

    @Test func aliasesAndSubqueries() throws {
        try withDatabase { (db: Database) throws in
            let maximumScore = QIPlayer.select(max(Column("score")))
            try expectSQL(db, QIPlayer.filter(Column("score") == maximumScore), "SELECT * FROM \"player\" WHERE \"score\" = (SELECT MAX(\"score\") FROM \"player\")")
            #expect(try QIPlayer.filter(Column("score") == maximumScore).fetchOne(db)?.name == "Barbara")

            let redIds = QIPlayer.filter(Column("team") == "red").select(Column("id"))
            try expectSQL(db, QIPlayer.filter(redIds.contains(Column("id"))), "SELECT * FROM \"player\" WHERE \"id\" IN (SELECT \"id\" FROM \"player\" WHERE \"team\" = ?)")
            let sqlIds = SQLRequest<Int64>(sql: "SELECT citizenId FROM citizenship")
            #expect(try QIPlayer.filter(sqlIds.contains(Column("id"))).fetchCount(db) == 2)

            // Teams that have players, and those that have none.
            let teamAlias = TableAlias()
            let players = QIPlayer.filter(Column("team") == teamAlias[Column("name")])
            let teams = QITeam.aliased(teamAlias).filter(players.exists())
            try expectSQL(db, teams, "SELECT * FROM \"team\" WHERE EXISTS (SELECT * FROM \"player\" WHERE \"team\" = \"team\".\"name\")")
            #expect(try teams.fetchAll(db).map(\.name) == ["red", "blue"])
            try expectSQL(db, QITeam.aliased(teamAlias).filter(!players.exists()), "SELECT * FROM \"team\" WHERE NOT EXISTS (SELECT * FROM \"player\" WHERE \"team\" = \"team\".\"name\")")
            #expect(try QITeam.aliased(teamAlias).filter(!players.exists()).fetchAll(db).map(\.name) == ["green"])

            // The same table twice: a named alias disambiguates, and qualifies its columns.
            let best = TableAlias(name: "best")
            let better = QIPlayer.filter(Column("score") > best[Column("score")])
            let request = QIPlayer.aliased(best).filter(!better.exists())
            try expectSQL(db, request, "SELECT \"best\".* FROM \"player\" \"best\" WHERE NOT EXISTS (SELECT * FROM \"player\" WHERE \"score\" > \"best\".\"score\")")
            #expect(try request.fetchAll(db).map(\.name) == ["Barbara"])
            // An unnamed alias on the same table gets a numbered name in the subquery.
            let other = TableAlias()
            let worse = QIPlayer.aliased(other).filter(other[Column("score")] < Column("score"))
            _ = worse
            let outer = TableAlias()
            let lowest = QIPlayer.aliased(outer).filter(!QIPlayer.filter(Column("score") < outer[Column("score")]).exists())
            try expectSQL(db, lowest, "SELECT * FROM \"player\" WHERE NOT EXISTS (SELECT * FROM \"player\" \"player1\" WHERE \"score\" < \"player\".\"score\")")
            #expect(try lowest.fetchAll(db).map(\.name) == ["Diane"])
        }
    }

    @Test func commonTableExpressions() throws {
        try withDatabase { (db: Database) throws in
            let cte = CommonTableExpression(named: "redPlayer", request: QIPlayer.filter(Column("team") == "red"))
            let request = cte.all().with(cte).order(Column("name"))
            try expectSQL(db, request, "WITH \"redPlayer\" AS (SELECT * FROM \"player\" WHERE \"team\" = ?) SELECT * FROM \"redPlayer\" ORDER BY \"name\"")
            #expect(try request.fetchAll(db).map { $0["name"] as String } == ["Arthur", "Craig"])
            #expect(try request.fetchCount(db) == 2)

            let names = CommonTableExpression<Void>(named: "chosen", columns: ["name"], sql: "VALUES ('Arthur'), ('Diane')")
            let chosen = QIPlayer.with(names).filter(names.contains(Column("name")))
            try expectSQL(db, chosen, "WITH \"chosen\"(\"name\") AS (VALUES ('Arthur'), ('Diane')) SELECT * FROM \"player\" WHERE \"name\" IN \"chosen\"")
            #expect(try chosen.fetchAll(db).map(\.id) == [1, 4])

            let counter = CommonTableExpression(
                recursive: true, named: "counter", columns: ["n"],
                sql: "SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < ?", arguments: [5])
            let numbers = counter.all().with(counter).select(Column("n"), as: Int.self)
            try expectSQL(db, numbers, "WITH RECURSIVE \"counter\"(\"n\") AS (SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < ?) SELECT \"n\" FROM \"counter\"")
            #expect(try numbers.fetchAll(db) == [1, 2, 3, 4, 5])
        }
    }

    @Test func sqlRequestsAndRequestTypes() throws {
        try withDatabase { (db: Database) throws in
            let name = "Arthur"
            let request: SQLRequest<QIPlayer> = "SELECT * FROM player WHERE name = \(name)"
            #expect(try request.fetchOne(db)?.id == 1)
            #expect(try SQLRequest<String>(sql: "SELECT name FROM player ORDER BY id").fetchAll(db) == ["Arthur", "Barbara", "Craig", "Diane"])
            #expect(try SQLRequest(sql: "SELECT * FROM player").fetchCount(db) == 4)
            let rows = try SQLRequest<Row>(literal: "SELECT \(Column("name")) FROM player WHERE \(Column("score")) > \(150)").fetchAll(db)
            #expect(rows.count == 2)
            #expect(try QIPlayer.all().asRequest(of: Row.self).fetchOne(db)?["name"] == "Arthur")
            #expect(try QIPlayer.filter(Column("score") > 100).fetchSet(db).count == 2)
            #expect(try Array(QIPlayer.order(Column("id")).fetchCursor(db)).map(\.id) == [1, 2, 3, 4])
            #expect(try QIPlayer.fetchAll(db, QIPlayer.filter(Column("team") == "blue")).map(\.name) == ["Barbara"])
            #expect(try Row.fetchCursor(db, Table("team").all()).map { $0["name"] as String }.reduce("", +) == "redbluegreen")
            #expect(try String.fetchSet(db, QITeam.select(Column("name"))) == ["red", "blue", "green"])
            #expect(try QITeam.select(Column("name"), as: String.self).fetchCursor(db).map { $0.count }.reduce(0, +) == 12)
            // Wrong argument count in a raw SQL fragment: an error, not a crash.
            let error = expectDatabaseError(.SQLITE_MISUSE) { _ = try QIPlayer.filter(sql: "score > ?").fetchAll(db) }
            #expect(error?.message?.contains("argument") == true)
        }
    }
}
