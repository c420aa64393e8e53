// A GRDB 7 program, as a GRDB user writes it, with only `import GRDB` changed to
// `import GRDBCipher` (and no @testable import): JSON columns and functions (GRDB's "JSON
// Support" article) and database dumps. It must compile and behave the same.
import Foundation
import GRDBCipher
import Testing

// MARK: - JSON support

private struct JSONAddress: Codable, Equatable, DatabaseValueConvertible {
    var street: String
    var city: String
    var country: String
}

private struct JSONPlayer: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "player"
    var id: String
    var name: String
    var address: JSONAddress

    enum Columns {
        static let name = Column(CodingKeys.name)
        static let address = JSONColumn(CodingKeys.address)
    }
}

private struct JSONTeam: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "team"
    var id: String
    var color: String
    var info: Data

    static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy {
        .text
    }
}

/// Collects a dump: dumps take their stream by value.
private final class DumpCollector: TextOutputStream {
    var text = ""
    func write(_ string: String) { text += string }
}

private func makeQueue() throws -> (DatabaseQueue, URL) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("GRDBCompatJSON-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var config = Configuration()
    config.prepareDatabase { db in try db.usePassphrase("secret") }
    return (try DatabaseQueue(path: directory.appendingPathComponent("db.sqlite").path, configuration: config), directory)
}

@Suite("GRDB compatibility: JSON and dumps")
struct GRDBCompatibilityJSONAndDumpTests {
    @Test func jsonArticle() throws {
        let (dbQueue, directory) = try makeQueue()
        defer { try? FileManager.default.removeItem(at: directory) }
        try dbQueue.write { db in
            try db.create(table: "player") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("address", .jsonText).notNull() // A JSON column
            }
            try db.create(
                index: "player_on_country",
                on: "player",
                expressions: [
                    JSONColumn("address")["country"],
                ])
            try db.create(table: "team") { t in
                t.primaryKey("id", .text)
                t.column("color", .text).notNull()
                t.column("info", .jsonText).notNull()
            }

            let anna = JSONPlayer(id: "anna", name: "Anna", address: JSONAddress(street: "Hauptstraße 1", city: "Berlin", country: "DE"))
            let bob = JSONPlayer(id: "bob", name: "Bob", address: JSONAddress(street: "Rue Haute 2", city: "Lyon", country: "FR"))
            try anna.insert(db)
            try bob.insert(db)
            try JSONTeam(id: "red", color: "red", info: Data(#"{"motto":"Go","members":["anna","bob"]}"#.utf8)).insert(db)

            let germanPlayers = try JSONPlayer
                .filter { $0.address["country"] == "DE" }
                .fetchAll(db)
            #expect(germanPlayers == [anna])

            let players = try JSONPlayer
                .filter { $0.address == JSONAddress(street: "Rue Haute 2", city: "Lyon", country: "FR") }
                .fetchAll(db)
            #expect(players == [bob])

            let cities = try JSONPlayer
                .select(JSONPlayer.Columns.address.jsonExtract(atPath: "$.city"), as: String.self)
                .order(JSONPlayer.Columns.name)
                .fetchAll(db)
            #expect(cities == ["Berlin", "Lyon"])

            let memberCount = try JSONTeam
                .select(Database.jsonArrayLength(JSONColumn("info"), atPath: "$.members"), as: Int.self)
                .fetchOne(db)
            #expect(memberCount == 2)

            let summary = try JSONPlayer
                .select(Database.jsonGroupArray(Database.jsonObject([
                    "name": JSONPlayer.Columns.name,
                    "city": JSONPlayer.Columns.address["city"],
                ] as KeyValuePairs<String, any SQLExpressible>), orderBy: JSONPlayer.Columns.name), as: String.self)
                .fetchOne(db)
            #expect(summary == #"[{"name":"Anna","city":"Berlin"},{"name":"Bob","city":"Lyon"}]"#)

            try JSONPlayer
                .filter(key: "bob")
                .updateAll(db, JSONPlayer.Columns.address.set(to: Database.jsonSet(JSONPlayer.Columns.address, ["$.city": "Paris"] as KeyValuePairs<String, any SQLExpressible>)))
            #expect(try JSONPlayer.find(db, key: "bob").address.city == "Paris")

            let valid = try JSONTeam.select(Database.jsonIsValid(JSONColumn("info"), options: .json), as: Bool.self).fetchOne(db)
            #expect(valid == true)
            let patched = try String.fetchOne(db, SQLRequest(literal: "SELECT \(Database.jsonPatch(#"{"a":1}"#, with: #"{"b":2}"#).asJSON.jsonExtract(atPath: "$"))"))
            #expect(patched == #"{"a":1,"b":2}"#)
        }
    }

    @Test func dumps() throws {
        let (dbQueue, directory) = try makeQueue()
        defer { try? FileManager.default.removeItem(at: directory) }
        try dbQueue.write { db in
            try db.create(table: "team") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
            }
            try db.create(table: "player") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.belongsTo("team")
                t.column("isCaptain", .boolean).notNull().defaults(to: false)
            }
            try db.create(view: "captain", as: SQLRequest(literal: "SELECT id, name, teamId FROM player WHERE isCaptain"))
            try db.execute(sql: """
                INSERT INTO team VALUES ('green', 'Green');
                INSERT INTO player VALUES ('diane', 'Diane', 'green', 0), ('eugene', 'Eugene', 'green', 1);
                """)
        }

        // The tables of GRDB's "View Records" article.
        let tables = DumpCollector()
        try dbQueue.dumpTables(["team", "player", "captain"], to: tables)
        #expect(tables.text == """
            team
            green|Green

            player
            diane|Diane|green|0
            eugene|Eugene|green|1

            captain
            eugene|Eugene|green

            """)

        let request = DumpCollector()
        try dbQueue.read { db in
            try db.dumpRequest(Table("player").select(Column("name")).order(Column("name").desc), format: .quote(header: true), to: request)
            try db.dumpSQL("SELECT type, name FROM sqlite_schema WHERE tbl_name = 'player' ORDER BY name", format: .list(separator: " "), to: request)
        }
        #expect(request.text == """
            'name'
            'Eugene'
            'Diane'
            table player
            index player_on_teamId
            index sqlite_autoindex_player_1

            """)

        let schema = DumpCollector()
        try dbQueue.dumpSchema(to: schema)
        #expect(schema.text.hasPrefix("sqlite_master\nCREATE VIEW \"captain\""))

        let json = DumpCollector()
        try dbQueue.dumpTables(["team"], format: .json(encoder: JSONDumpFormat.defaultEncoder), tableHeader: .always, stableOrder: true, to: json)
        try dbQueue.dumpContent(format: .line(nullValue: "NULL"), to: json)
        #expect(json.text.hasPrefix("team\n[{\"id\":\"green\",\"name\":\"Green\"}]\n"))
        #expect(json.text.contains("\n\nplayer\n       id = diane\n     name = Diane\n   teamId = green\nisCaptain = 0\n"))

        var format = DebugDumpFormat(header: true, separator: ", ", nullValue: "-")
        format.separator = " | "
        let custom = DumpCollector()
        try dbQueue.dumpSQL("SELECT 1 AS one, NULL AS missing", format: format, to: custom)
        #expect(custom.text == "one | missing\n1 | -\n")
        let options: [DumpTableHeaderOptions] = [.automatic, .always]
        #expect(options.count == 2)
    }
}
