import Foundation
import Testing
@testable import GRDBCipher

/// Collects a dump's output (dumps take their stream by value: a class keeps what it is given).
final class DumpOutput: TextOutputStream {
    var text = ""
    func write(_ string: String) { text += string }
}

@Suite("Database dumps")
struct DumpTests {
    /// A database with a `hero` table (one NULL, one quote, one blob) and a `guild` table.
    private func makeDatabase() throws -> TestDatabase {
        let database = try TestDatabase()
        try database.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE guild (code TEXT NOT NULL PRIMARY KEY, motto TEXT) WITHOUT ROWID;
                CREATE TABLE hero (id INTEGER PRIMARY KEY, name TEXT, power REAL, badge BLOB);
                CREATE INDEX hero_on_name ON hero(name);
                INSERT INTO guild VALUES ('owl', 'Wisdom first'), ('fox', NULL);
                INSERT INTO hero VALUES (2, 'Zoë O''Hara', 2.5, X'00FF');
                INSERT INTO hero VALUES (1, 'Milo', 100.0, NULL);
                INSERT INTO hero VALUES (3, NULL, 1e300, 'ok');
                """)
        }
        return database
    }

    @Test func listFormat() throws {
        let database = try makeDatabase()
        try database.dbQueue.read { db in
            let output = DumpOutput()
            try db.dumpSQL("SELECT id, name, power, badge FROM hero ORDER BY id", format: .list(), to: output)
            #expect(output.text == "1|Milo|100.0|\n2|Zoë O'Hara|2.5|\u{0}\u{FFFD}\n3||1.0e+300|ok\n")

            let custom = DumpOutput()
            try db.dumpSQL("SELECT id, name FROM hero ORDER BY id", format: .list(header: true, separator: ";", nullValue: "∅"), to: custom)
            #expect(custom.text == "id;name\n1;Milo\n2;Zoë O'Hara\n3;∅\n")

            // No row, no header.
            let empty = DumpOutput()
            try db.dumpSQL("SELECT id FROM hero WHERE 0", format: .list(header: true), to: empty)
            #expect(empty.text == "")
        }
    }

    @Test func quoteFormat() throws {
        let database = try makeDatabase()
        try database.dbQueue.read { db in
            let output = DumpOutput()
            try db.dumpSQL("SELECT * FROM hero ORDER BY id", format: .quote(header: true), to: output)
            #expect(output.text == """
                'id','name','power','badge'
                1,'Milo',100.0,NULL
                2,'Zoë O''Hara',2.5,X'00FF'
                3,NULL,1.0e+300,'ok'

                """)
            let reals = DumpOutput()
            try db.dumpSQL("SELECT 0.1 + 0.2, -0.5, 9e999, 123456789.125", format: .quote(separator: " "), to: reals)
            #expect(reals.text == "0.30000000000000004 -0.5 9.0e+999 123456789.125\n")
            // The literals read back as the same values.
            let literal = reals.text.split(separator: " ")[0]
            #expect(try Double.fetchOne(db, sql: "SELECT \(literal)") == 0.1 + 0.2)
        }
    }

    @Test func lineFormat() throws {
        let database = try makeDatabase()
        try database.dbQueue.read { db in
            let output = DumpOutput()
            try db.dumpSQL("SELECT id, name AS heroName FROM hero WHERE id >= 2 ORDER BY id", format: .line(nullValue: "NULL"), to: output)
            #expect(output.text == """
                      id = 2
                heroName = Zoë O'Hara

                      id = 3
                heroName = NULL

                """)
        }
    }

    @Test func jsonFormat() throws {
        let database = try makeDatabase()
        try database.dbQueue.read { db in
            let output = DumpOutput()
            try db.dumpSQL("SELECT id, name, power, badge FROM hero ORDER BY id", format: .json(), to: output)
            #expect(output.text == """
                [{"id":1,"name":"Milo","power":100,"badge":null},
                {"id":2,"name":"Zoë O'Hara","power":2.5,"badge":"AP8="},
                {"id":3,"name":null,"power":1e+300,"badge":"ok"}]

                """)
            let empty = DumpOutput()
            try db.dumpSQL("SELECT id FROM hero WHERE 0", format: .json(), to: empty)
            #expect(empty.text == "[]\n")

            let encoder = JSONDumpFormat.defaultEncoder
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let pretty = DumpOutput()
            try db.dumpSQL("SELECT name, id FROM hero WHERE id <= 2 ORDER BY id", format: .json(encoder: encoder), to: pretty)
            // As GRDB (DMP-4): column order (`.sortedKeys` does not apply), `"key":value`.
            #expect(pretty.text == """
                [
                  {
                    "name":"Milo",
                    "id":1
                  },
                  {
                    "name":"Zoë O'Hara",
                    "id":2
                  }
                ]

                """)
            // Infinity is a string with the default encoder.
            let infinite = DumpOutput()
            try db.dumpSQL("SELECT 9e999 AS x", format: .json(), to: infinite)
            #expect(infinite.text == "[{\"x\":\"Infinity\"}]\n")
        }
    }

    @Test func debugFormat() throws {
        let database = try makeDatabase()
        try database.dbQueue.read { db in
            let output = DumpOutput()
            try db.dumpSQL("SELECT * FROM hero ORDER BY id", to: output)
            #expect(output.text == "1|Milo|100.0|\n2|Zoë O'Hara|2.5|X'00FF'\n3||1.0e+300|ok\n")
            let headed = DumpOutput()
            try db.dumpSQL("SELECT id, name FROM hero WHERE id = 1", format: .debug(header: true, separator: ", ", nullValue: "NULL"), to: headed)
            #expect(headed.text == "id, name\n1, Milo\n")
        }
    }

    @Test func dumpTables() throws {
        let database = try makeDatabase()
        try database.dbQueue.write { db in
            try db.execute(sql: "CREATE VIEW strongHero AS SELECT name, power FROM hero WHERE power > 2")

            let one = DumpOutput()
            try db.dumpTables(["guild"], stableOrder: true, to: one)
            #expect(one.text == "fox|\nowl|Wisdom first\n")

            let always = DumpOutput()
            try db.dumpTables(["guild"], tableHeader: .always, stableOrder: true, to: always)
            #expect(always.text == "guild\nfox|\nowl|Wisdom first\n")

            let several = DumpOutput()
            try db.dumpTables(["hero", "strongHero", "guild"], format: .quote(), stableOrder: true, to: several)
            #expect(several.text == """
                hero
                1,'Milo',100.0,NULL
                2,'Zoë O''Hara',2.5,X'00FF'
                3,NULL,1.0e+300,'ok'

                strongHero
                NULL,1.0e+300
                'Milo',100.0
                'Zoë O''Hara',2.5

                guild
                'fox',NULL
                'owl','Wisdom first'

                """)

            // An empty table prints its header only.
            try db.execute(sql: "DELETE FROM guild")
            let empty = DumpOutput()
            try db.dumpTables(["guild", "hero"], format: .list(), stableOrder: true, to: empty)
            #expect(empty.text == "guild\n\nhero\n1|Milo|100.0|\n2|Zoë O'Hara|2.5|\u{0}\u{FFFD}\n3||1.0e+300|ok\n")

            expectDatabaseError(.SQLITE_ERROR) {
                try db.dumpTables(["missing"], to: DumpOutput())
            }
        }
    }

    @Test func dumpSchemaAndContent() throws {
        let database = try makeDatabase()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("sequence") { db in
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT)")
            try db.execute(sql: "INSERT INTO note (text) VALUES ('first')")
        }
        try migrator.migrate(database.dbQueue)

        let schema = DumpOutput()
        try database.dbQueue.dumpSchema(to: schema)
        #expect(schema.text == """
            sqlite_master
            CREATE TABLE guild (code TEXT NOT NULL PRIMARY KEY, motto TEXT) WITHOUT ROWID;
            CREATE TABLE hero (id INTEGER PRIMARY KEY, name TEXT, power REAL, badge BLOB);
            CREATE INDEX hero_on_name ON hero(name);
            CREATE TABLE note (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT);

            """)

        let content = DumpOutput()
        try database.dbQueue.dumpContent(format: .quote(), to: content)
        #expect(content.text == """
            sqlite_master
            CREATE TABLE guild (code TEXT NOT NULL PRIMARY KEY, motto TEXT) WITHOUT ROWID;
            CREATE TABLE hero (id INTEGER PRIMARY KEY, name TEXT, power REAL, badge BLOB);
            CREATE INDEX hero_on_name ON hero(name);
            CREATE TABLE note (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT);

            guild
            'fox',NULL
            'owl','Wisdom first'

            hero
            1,'Milo',100.0,NULL
            2,'Zoë O''Hara',2.5,X'00FF'
            3,NULL,1.0e+300,'ok'

            note
            1,'first'

            """)
    }

    /// Virtual tables are dumped; their shadow tables are not.
    @Test func virtualAndShadowTables() throws {
        let database = try TestDatabase()
        try database.dbQueue.write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE memo USING fts5(body);
                INSERT INTO memo VALUES ('buy milk'), ('call mom');
                """)
        }
        let output = DumpOutput()
        try database.dbQueue.dumpContent(to: output)
        #expect(output.text == """
            sqlite_master
            CREATE VIRTUAL TABLE memo USING fts5(body);

            memo
            buy milk
            call mom

            """)
    }

    @Test func dumpRequest() throws {
        let database = try makeDatabase()
        struct Hero: TableRecord { }
        try database.dbQueue.read { db in
            let output = DumpOutput()
            let request = Hero.select(Column("name"), Column("power")).filter(Column("power") > 2).order(Column("power").desc)
            try db.dumpRequest(request, format: .list(header: true), to: output)
            #expect(output.text == "name|power\n||1.0e+300\nMilo|100.0\nZoë O'Hara|2.5\n".replacingOccurrences(of: "||", with: "|"))

            let sqlRequest = SQLRequest<Row>(sql: "SELECT name FROM hero WHERE id = ?", arguments: [1])
            let one = DumpOutput()
            try db.dumpRequest(sqlRequest, to: one)
            #expect(one.text == "Milo\n")
        }
        let reader = DumpOutput()
        try database.dbQueue.dumpRequest(Hero.filter(key: 2).select(Column("id")), to: reader)
        #expect(reader.text == "2\n")
    }

    /// As GRDB (DMP-3): the rows of `including(all:)` follow the fetched rows, under the keys
    /// that lead to them, without the key columns that link them to their parents.
    @Test func dumpRequestPrintsPrefetchedRows() throws {
        let database = try TestDatabase()
        struct Guild: TableRecord {
            static let heroes = hasMany(Hero.self)
            static let quests = hasMany(Quest.self, through: heroes, using: Hero.quests)
        }
        struct Hero: TableRecord {
            static let guild = belongsTo(Guild.self)
            static let quests = hasMany(Quest.self)
        }
        struct Quest: TableRecord { }
        try database.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE guild (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE hero (id INTEGER PRIMARY KEY, guildId INTEGER REFERENCES guild(id), name TEXT);
                CREATE TABLE quest (id INTEGER PRIMARY KEY, heroId INTEGER REFERENCES hero(id), goal TEXT);
                INSERT INTO guild VALUES (1, 'owl'), (2, 'fox');
                INSERT INTO hero VALUES (1, 1, 'Milo'), (2, 1, 'Zoë'), (3, 2, NULL);
                INSERT INTO quest VALUES (1, 1, 'dragon'), (2, 3, 'tower');
                """)
        }
        try database.dbQueue.read { db in
            let heroes = Guild.heroes.orderByPrimaryKey()
            let output = DumpOutput()
            try db.dumpRequest(Guild.orderByPrimaryKey().including(all: heroes.including(all: Hero.quests.orderByPrimaryKey())), to: output)
            #expect(output.text == """
                1|owl
                2|fox

                heros
                1|1|Milo
                2|1|Zoë
                3|2|

                quests
                1|1|dragon
                2|3|tower

                """)

            // The header names the printed columns only; a through association is named by
            // its pivot and its target; other formats too.
            let list = DumpOutput()
            try db.dumpRequest(Guild.filter(key: 2).including(all: heroes.filter(Column("name") != nil).forKey("named")), format: .list(header: true), to: list)
            #expect(list.text == "id|name\n2|fox\n\nnamed\n")
            let json = DumpOutput()
            try db.dumpRequest(Guild.filter(key: 1).including(all: Guild.quests), format: .json(), to: json)
            #expect(json.text == """
                [{"id":1,"name":"owl"}]

                heros.quests
                [{"id":1,"heroId":1,"goal":"dragon"}]

                """)

            // The key columns are hidden where they are: before the columns of the
            // associations included in the prefetched rows.
            let withGuild = DumpOutput()
            try db.dumpRequest(Guild.filter(key: 2).including(all: heroes.including(required: Hero.guild)), to: withGuild)
            #expect(withGuild.text == "2|fox\n\nheros\n3|2||2|fox\n")

            // Under an included association: the keys from the fetched table.
            let joined = DumpOutput()
            try db.dumpRequest(Hero.filter(key: 3).including(required: Hero.guild.including(all: heroes)), to: joined)
            #expect(joined.text == "3|2||2|fox\n\nguild.heros\n3|2|\n")

            // No fetched row, no prefetched section.
            let none = DumpOutput()
            try db.dumpRequest(Guild.filter(key: 9).including(all: heroes), to: none)
            #expect(none.text == "")
        }
    }

    @Test func dumpSQLRunsEveryStatement() throws {
        let database = try makeDatabase()
        try database.dbQueue.write { db in
            let output = DumpOutput()
            try db.dumpSQL("""
                SELECT COUNT(*) FROM hero;
                UPDATE hero SET power = power * 2 WHERE id = \(1);
                SELECT power FROM hero WHERE id = 1
                """, to: output)
            // As GRDB (DMP-1): no empty line between results.
            #expect(output.text == "3\n200.0\n")
            // As GRDB (DMP-2): a reader's dump may be called from inside an access.
            let nested = DumpOutput()
            try database.dbQueue.dumpSQL("SELECT COUNT(*) FROM hero", to: nested)
            #expect(nested.text == "3\n")
        }
        // On a queue, the dump of a reader may write, as GRDB (DMP-2).
        let output = DumpOutput()
        try database.dbQueue.dumpSQL("CREATE TABLE scratch(a); INSERT INTO scratch VALUES (1); SELECT a FROM scratch", to: output)
        #expect(output.text == "1\n")
        // A 16-byte blob that is not UTF-8 is printed as a UUID (DMP-5).
        let uuid = try #require(UUID(uuidString: "0C2D4E6F-1A3B-4C5D-8E9F-A0B1C2D3E4F5"))
        let blobs = DumpOutput()
        try database.dbQueue.dumpSQL("SELECT \(uuid), x'00FF'", to: blobs)
        #expect(blobs.text == "0C2D4E6F-1A3B-4C5D-8E9F-A0B1C2D3E4F5|X'00FF'\n")
    }

    @Test func readersDump() throws {
        let database = try makeDatabase()
        let pool = try DatabasePool(path: database.directory.path("pool.sqlite"), configuration: TestDatabase.configure(Configuration()))
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, label TEXT); INSERT INTO item VALUES (1, 'lamp')")
        }
        let output = DumpOutput()
        try pool.dumpTables(["item"], tableHeader: .always, to: output)
        try pool.dumpSQL("SELECT label FROM item", format: .quote(), to: output)
        try pool.dumpContent(format: .json(), to: output)
        #expect(output.text == """
            item
            1|lamp
            'lamp'
            sqlite_master
            CREATE TABLE item (id INTEGER PRIMARY KEY, label TEXT);

            item
            [{"id":1,"label":"lamp"}]

            """)
    }

    @Test func stringStreamIsACopy() throws {
        let database = try makeDatabase()
        let text = ""
        try database.dbQueue.dumpTables(["guild"], to: text)
        #expect(text.isEmpty)
    }

    @Test func customFormat() throws {
        /// Prints the first column of each row, and the row count.
        struct CountingFormat: DumpFormat {
            var count = 0
            mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws {
                count += 1
                stream.write("- " + (String.fromDatabaseValue(statement.dumpValue(at: 0)) ?? "?") + "\n")
            }
            mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
                stream.margin()
                stream.margin()
                stream.write("\(count) rows\n")
                count = 0
            }
        }
        let database = try makeDatabase()
        let output = DumpOutput()
        try database.dbQueue.dumpSQL("SELECT motto FROM guild WHERE motto NOT NULL; SELECT code FROM guild ORDER BY code", format: CountingFormat(), to: output)
        #expect(output.text == "- Wisdom first\n\n1 rows\n- fox\n- owl\n\n2 rows\n")
    }
}
