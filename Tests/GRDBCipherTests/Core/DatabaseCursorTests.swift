import Testing
@testable import GRDBCipher

@Suite("DatabaseCursor")
struct DatabaseCursorTests {
    @Test func cursorsDescribeTheirStatement() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE planet(name TEXT, moons INTEGER); INSERT INTO planet VALUES ('Mars', 2), ('Earth', 1)")
            let rows = try Row.fetchCursor(db, sql: "SELECT name, moons AS moonCount FROM planet WHERE moons > ?", arguments: [0])
            #expect(rows.sql == "SELECT name, moons AS moonCount FROM planet WHERE moons > ?")
            #expect(rows.arguments.values == [0.databaseValue])
            #expect(rows.columnNames == ["name", "moonCount"])
            #expect(rows.columnCount == 2)

            let names = try String.fetchCursor(db, sql: "SELECT name FROM planet WHERE name <> :excluded", arguments: ["excluded": "Venus"])
            #expect(names.sql == "SELECT name FROM planet WHERE name <> :excluded")
            #expect(names.arguments.namedValues == ["excluded": "Venus".databaseValue])
            #expect(names.columnNames == ["name"])
            #expect(names.columnCount == 1)

            let dates = try DatabaseValue.fetchCursor(db, sql: "SELECT moons, name FROM planet")
            #expect(dates.arguments.isEmpty)
            #expect(dates.columnNames == ["moons", "name"])

            // The properties of a record cursor, and through a generic function of DatabaseCursor.
            struct Planet: FetchableRecord, Decodable { var name: String }
            let planets = try Planet.fetchCursor(db, sql: "SELECT * FROM planet")
            func describe(_ cursor: some DatabaseCursor) -> String {
                "\(cursor.columnCount) \(cursor.columnNames.joined(separator: ",")) \(cursor.sql)"
            }
            #expect(describe(planets) == "2 name,moons SELECT * FROM planet")
            // They stay readable once the cursor is done.
            #expect(try Array(planets).map(\.name) == ["Mars", "Earth"])
            #expect(planets.columnCount == 2)
        }
    }
}
