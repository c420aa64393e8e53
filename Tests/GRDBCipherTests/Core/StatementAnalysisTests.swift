import CSQLCipher
import Foundation
import Testing
@_spi(GRDBCipherTools) @testable import GRDBCipher

// What statements read and write, as SQLite reports it to the authorizer at compile time.

private let zoo = """
    CREATE TABLE keeper (id INTEGER PRIMARY KEY, name TEXT NOT NULL, shift TEXT);
    CREATE TABLE animal (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL, species TEXT,
        keeperId INTEGER REFERENCES keeper(id) ON DELETE SET NULL, meals INTEGER DEFAULT 0);
    CREATE TABLE feeding (animalId INTEGER NOT NULL REFERENCES animal(id) ON DELETE CASCADE, at TEXT);
    CREATE VIEW nightAnimal AS SELECT animal.name AS animalName, keeper.name AS keeperName
        FROM animal JOIN keeper ON keeper.id = animal.keeperId WHERE keeper.shift = 'night';
    CREATE TRIGGER countMeals AFTER INSERT ON feeding BEGIN
        UPDATE animal SET meals = meals + 1 WHERE id = NEW.animalId;
    END;
    """

@Suite("Statement analysis")
struct StatementAnalysisTests {
    private func withZoo(_ body: (Database) throws -> Void) throws {
        let test = try TestDatabase()
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: zoo)
            try body(db)
        }
    }

    private func region(_ db: Database, _ sql: String) throws -> String {
        try db.makeStatement(sql: sql).databaseRegion.description
    }

    private func events(_ db: Database, _ sql: String) throws -> [DatabaseEventKind] {
        try db.makeStatement(sql: sql).analysis.eventKinds
    }

    @Test func regionsOfSelects() throws {
        try withZoo { (db: Database) throws in
            #expect(try region(db, "SELECT name FROM animal") == "animal(name)")
            #expect(try region(db, "SELECT * FROM keeper") == "keeper(id,name,shift)")
            // COUNT(*) reads no column: the whole table.
            #expect(try region(db, "SELECT COUNT(*) FROM animal") == "animal(*)")
            #expect(try region(db, "SELECT animal.name, keeper.name FROM animal JOIN keeper ON keeper.id = animal.keeperId")
                == "animal(keeperId,name),keeper(id,name)")
            #expect(try region(db, "SELECT name FROM animal WHERE keeperId IN (SELECT id FROM keeper WHERE shift = 'day')")
                == "animal(keeperId,name),keeper(id,shift)")
            #expect(try region(db, "WITH busy AS (SELECT animalId FROM feeding) SELECT name FROM animal WHERE id IN busy")
                == "animal(id,name),feeding(animalId)")
            // A recursive CTE reads no table.
            #expect(try region(db, "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3) SELECT x FROM n")
                == "empty")
            // A view: its columns, and the columns of the tables it reads.
            let viewRegion = try region(db, "SELECT animalName FROM nightAnimal")
            #expect(viewRegion
                == "animal(keeperId,name),keeper(id,name,shift),nightAnimal(animalName)")
            #expect(try region(db, "SELECT 1") == "empty")
        }
    }

    @Test func regionsAreCaseInsensitive() throws {
        try withZoo { (db: Database) throws in
            let lower = try db.makeStatement(sql: "SELECT name FROM animal").databaseRegion
            let upper = try db.makeStatement(sql: "SELECT NAME FROM ANIMAL").databaseRegion
            #expect(lower == upper)
            #expect(try Table("ANIMAL").databaseRegion(db).description == "ANIMAL(*)")
            #expect(try Table("ANIMAL").databaseRegion(db) == Table("animal").databaseRegion(db))
        }
    }

    @Test func eventsOfWrites() throws {
        try withZoo { (db: Database) throws in
            #expect(try events(db, "INSERT INTO keeper (name) VALUES ('Ann')") == [.insert(tableName: "keeper")])
            #expect(try events(db, "UPDATE animal SET name = 'Leo', species = 'lion' WHERE id = 1")
                == [.update(tableName: "animal", columnNames: ["name", "species"])])
            // The foreign key action of the deletion sets animal.keeperId to NULL.
            #expect(try events(db, "DELETE FROM keeper WHERE id = 1")
                == [.delete(tableName: "keeper"), .update(tableName: "animal", columnNames: ["keeperId"])])
            // RETURNING reads the changed table.
            let returning = try db.makeStatement(sql: "INSERT INTO keeper (name) VALUES ('Bo') RETURNING id, name")
            #expect(returning.analysis.eventKinds == [.insert(tableName: "keeper")])
            #expect(returning.databaseRegion.isModified(byEventsOfKind: .update(tableName: "keeper", columnNames: ["name"])))
            #expect(!returning.databaseRegion.isModified(byEventsOfKind: .update(tableName: "keeper", columnNames: ["shift"])))
            // An upsert may insert or update.
            #expect(try events(db, "INSERT INTO keeper (id, name) VALUES (1, 'Cy') ON CONFLICT (id) DO UPDATE SET name = excluded.name")
                == [.insert(tableName: "keeper"), .update(tableName: "keeper", columnNames: ["name"])])
            // Triggers and foreign key actions are part of what a statement may change.
            #expect(try events(db, "INSERT INTO feeding (animalId) VALUES (1)")
                == [.insert(tableName: "feeding"), .update(tableName: "animal", columnNames: ["meals"])])
            let cascade = try events(db, "DELETE FROM animal WHERE id = 1")
            #expect(cascade.contains(.delete(tableName: "animal")))
            #expect(cascade.contains(.delete(tableName: "feeding")))
            let setNull = try events(db, "DELETE FROM keeper")
            #expect(setNull.contains(.delete(tableName: "keeper")))
            #expect(setNull.contains(.update(tableName: "animal", columnNames: ["keeperId"])))
            // Reads write nothing.
            #expect(try events(db, "SELECT * FROM animal").isEmpty)
        }
    }

    @Test func schemaAndTransactionEffects() throws {
        try withZoo { (db: Database) throws in
            func analysis(_ sql: String) throws -> StatementAnalysis { try db.makeStatement(sql: sql).analysis }
            #expect(try analysis("CREATE TABLE cage (id INTEGER PRIMARY KEY)").changesSchema)
            #expect(try analysis("CREATE INDEX animal_name ON animal(name)").changesSchema)
            #expect(try analysis("ALTER TABLE animal ADD COLUMN weight REAL").changesSchema)
            #expect(try analysis("DROP VIEW nightAnimal").changesSchema)
            #expect(try analysis("ATTACH DATABASE ':memory:' AS spare").attachesOrDetaches)
            // Schema changes are no row events.
            #expect(try analysis("CREATE TABLE cage (id INTEGER PRIMARY KEY)").eventKinds.isEmpty)
            #expect(try !analysis("SELECT * FROM animal").changesSchema)

            #expect(try analysis("BEGIN IMMEDIATE").transactionEffect == .beginTransaction)
            #expect(try analysis("COMMIT").transactionEffect == .commitTransaction)
            #expect(try analysis("END TRANSACTION").transactionEffect == .commitTransaction)
            #expect(try analysis("ROLLBACK").transactionEffect == .rollbackTransaction)
            #expect(try analysis("SAVEPOINT feeding_time").transactionEffect == .beginSavepoint("feeding_time"))
            #expect(try analysis("RELEASE SAVEPOINT feeding_time").transactionEffect == .releaseSavepoint("feeding_time"))
            #expect(try analysis("ROLLBACK TO feeding_time").transactionEffect == .rollbackSavepoint("feeding_time"))

            #expect(try analysis("PRAGMA user_version = 3").isPragma)
            let vacuum = try db.makeStatement(sql: "VACUUM")
            #expect(!vacuum.canRunInSavepoint)
            #expect(try db.makeStatement(sql: "INSERT INTO keeper (name) VALUES ('Di')").canRunInSavepoint)
            #expect(try !db.makeStatement(sql: "PRAGMA user_version = 3").canRunInSavepoint)
            #expect(try !db.makeStatement(sql: "BEGIN").canRunInSavepoint)
        }
    }

    @Test func droppedTablesAreDropped() throws {
        // The authorizer turns deletions into row-by-row deletions, but never cancels a drop.
        try withZoo { (db: Database) throws in
            try db.execute(sql: "INSERT INTO keeper (name) VALUES ('Ed'), ('Flo')")
            try db.execute(sql: "DROP VIEW nightAnimal; DROP TRIGGER countMeals; DROP TABLE feeding; DROP TABLE keeper")
            #expect(try !db.tableExists("keeper"))
            #expect(try !db.tableExists("feeding"))
            #expect(try !db.viewExists("nightAnimal"))
            #expect(try !db.triggerExists("countMeals"))
        }
    }

    @Test func deleteWithoutWhereDeletesEveryRow() throws {
        try withZoo { (db: Database) throws in
            try db.execute(sql: "INSERT INTO keeper (name) VALUES ('Gus'), ('Hal'), ('Ivy')")
            try db.execute(sql: "DELETE FROM keeper")
            #expect(db.changesCount == 3)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM keeper") == 0)
        }
    }

    @Test func aReadOnlySavepointLeavesNoStaleTransactionDate() throws {
        var configuration = Configuration()
        let clock = LockedValue(0.0)
        configuration.transactionClock = .custom { _ in
            clock.update { $0 += 1; return Date(timeIntervalSince1970: $0) }
        }
        let test = try TestDatabase(configuration: configuration)
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "SAVEPOINT s")
            let first = try db.transactionDate
            #expect(try db.transactionDate == first)
            try db.execute(sql: "RELEASE SAVEPOINT s")
            try db.execute(sql: "SAVEPOINT s")
            #expect(try db.transactionDate != first)
            try db.execute(sql: "RELEASE SAVEPOINT s")
        }
    }

    @Test func toolPolicyDoesNotReplaceTheAnalysis() throws {
        try withZoo { (db: Database) throws in
            let refusal = db.firstRefusal(in: "SELECT 1; DELETE FROM keeper") { action, _, _ in
                action == SQLITE_DELETE ? "delete" : nil
            }
            #expect(refusal == "delete")
            #expect(db.firstRefusal(in: "SELECT name FROM keeper") { _, _, _ in nil } == nil)
            #expect(db.firstRefusal(in: "UPDATE keeper SET name = 'x'") { _, _, _ in nil } == "writes")
            // The connection's analysis still works after the check.
            #expect(try region(db, "SELECT shift FROM keeper") == "keeper(shift)")
            // And the policy is gone: deletions run.
            try db.execute(sql: "DELETE FROM keeper")
        }
    }
}
