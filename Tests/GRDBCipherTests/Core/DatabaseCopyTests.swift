import Foundation
import Testing
@testable import GRDBCipher

@Suite("In-memory and temporary copies")
struct DatabaseCopyTests {
    private func makeOriginal() throws -> TestDatabase {
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: "CREATE TABLE city(name TEXT, population INTEGER); INSERT INTO city VALUES ('Lyon', 522000), ('Nantes', 320000)")
        }
        return test
    }

    @Test(arguments: [false, true])
    func copiesAreIndependentOfTheFile(temporary: Bool) throws {
        let test = try makeOriginal()
        let config = TestDatabase.configure(Configuration())
        let copy = temporary
            ? try DatabaseQueue.temporaryCopy(fromPath: test.path, configuration: config)
            : try DatabaseQueue.inMemoryCopy(fromPath: test.path, configuration: config)
        #expect(copy.path != test.path)
        try copy.write { (db: Database) throws in
            #expect(try String.fetchAll(db, sql: "SELECT name FROM city ORDER BY name") == ["Lyon", "Nantes"])
            try db.execute(sql: "INSERT INTO city VALUES ('Brest', 140000)")
        }
        #expect(try copy.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM city") } == 3)
        // The file did not change; and the copy does not see later changes to the file.
        try test.dbQueue.write { try $0.execute(sql: "DELETE FROM city WHERE name = 'Lyon'") }
        #expect(try test.dbQueue.read { try String.fetchAll($0, sql: "SELECT name FROM city") } == ["Nantes"])
        #expect(try copy.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM city") } == 3)
    }

    @Test func theConfigurationAppliesToTheCopy() throws {
        let test = try makeOriginal()
        var config = TestDatabase.configure(Configuration())
        config.label = "Copy"
        config.prepareDatabase { db in
            db.add(function: DatabaseFunction("half", argumentCount: 1) { values in (Int.fromDatabaseValue(values[0]) ?? 0) / 2 })
        }
        let copy = try DatabaseQueue.temporaryCopy(fromPath: test.path, configuration: config)
        #expect(copy.configuration.label == "Copy")
        #expect(try copy.read { try Int.fetchOne($0, sql: "SELECT half(population) FROM city WHERE name = 'Nantes'") } == 160000)
        // A read-only configuration gives copies that refuse writes once made, before and
        // after reads, as GRDB (COPY-1).
        config.readonly = true
        let inMemory = try DatabaseQueue.inMemoryCopy(fromPath: test.path, configuration: config)
        let temporary = try DatabaseQueue.temporaryCopy(fromPath: test.path, configuration: config)
        for readOnlyCopy in [inMemory, temporary] {
            expectDatabaseError(.SQLITE_READONLY) { try readOnlyCopy.writeWithoutTransaction { try $0.execute(sql: "DELETE FROM city") } }
            #expect(try readOnlyCopy.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM city") } == 2)
            expectDatabaseError(.SQLITE_READONLY) { try readOnlyCopy.writeWithoutTransaction { try $0.execute(sql: "DELETE FROM city") } }
            #expect(try readOnlyCopy.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM city") } == 2)
        }
    }

    @Test func aMissingFileIsAnError() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.sqlite")
        expectDatabaseError(.SQLITE_CANTOPEN) { _ = try DatabaseQueue.inMemoryCopy(fromPath: missing) }
        expectDatabaseError(.SQLITE_CANTOPEN) { _ = try DatabaseQueue.temporaryCopy(fromPath: missing) }
        // Nothing was created at the path.
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
