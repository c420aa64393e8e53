import Foundation
import Testing
@testable import GRDBCipher

private struct Plant: Codable, FetchableRecord, PersistableRecord, Identifiable {
    static let databaseTableName = "plant"
    var id: Int64
    var name: String
    var water: Int
}

private struct Label: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "label"
    var code: String
    var text: String
}

private let greenhouse = """
    CREATE TABLE plant (id INTEGER PRIMARY KEY, name TEXT NOT NULL, water INTEGER NOT NULL);
    CREATE TABLE label (code TEXT PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID;
    CREATE VIEW thirstyPlant AS SELECT id, name FROM plant WHERE water > 2;
    INSERT INTO plant VALUES (1, 'fern', 3), (2, 'cactus', 1), (3, 'moss', 5);
    """

/// Keeps copies of the events it is told.
private final class EventSink: TransactionObserver {
    var events: [DatabaseEvent] = []
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) { events.append(event.copy()) }
    func databaseDidCommit(_ db: Database) {}
    func databaseDidRollback(_ db: Database) {}
}

@Suite("DatabaseRegion")
struct DatabaseRegionTests {
    private func withGreenhouse(_ body: (Database) throws -> Void) throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: greenhouse)
            try body(db)
        }
    }

    @Test func emptyFullAndUnion() throws {
        let empty = DatabaseRegion()
        #expect(empty.isEmpty)
        #expect(!empty.isFullDatabase)
        #expect(empty.description == "empty")
        #expect(DatabaseRegion.fullDatabase.isFullDatabase)
        #expect(!DatabaseRegion.fullDatabase.isEmpty)
        #expect(DatabaseRegion.fullDatabase.description == "full database")

        let plantName = DatabaseRegion(table: "plant", columns: ["name"])
        let plantWater = DatabaseRegion(table: "Plant", columns: ["WATER"])
        let label = DatabaseRegion(table: "label")
        // Columns keep the spelling they were first given (PRG-7), and compare without case.
        #expect(plantName.union(plantWater).description == "plant(name,WATER)")
        #expect(plantName.union(plantWater) == DatabaseRegion(table: "plant", columns: ["name", "water"]))
        #expect(plantName.union(label).description == "label(*),plant(name)")
        #expect(plantName.union(label).union(.fullDatabase).isFullDatabase)
        #expect(empty.union(plantName) == plantName)
        var region = plantName
        region.formUnion(DatabaseRegion(table: "plant"))
        #expect(region.description == "plant(*)")
    }

    @Test func modificationsByKind() throws {
        let region = DatabaseRegion(table: "plant", columns: ["name", "water"])
        #expect(region.isModified(byEventsOfKind: .insert(tableName: "plant")))
        #expect(region.isModified(byEventsOfKind: .delete(tableName: "PLANT")))
        #expect(region.isModified(byEventsOfKind: .update(tableName: "plant", columnNames: ["Water", "id"])))
        #expect(!region.isModified(byEventsOfKind: .update(tableName: "plant", columnNames: ["id"])))
        #expect(!region.isModified(byEventsOfKind: .insert(tableName: "label")))
        #expect(!DatabaseRegion().isModified(byEventsOfKind: .insert(tableName: "plant")))
        #expect(DatabaseRegion.fullDatabase.isModified(byEventsOfKind: .update(tableName: "any", columnNames: [])))
        let wholeTable = DatabaseRegion(table: "plant")
        // An update of no column modifies nothing (PRG-8), as GRDB.
        #expect(!wholeTable.isModified(byEventsOfKind: .update(tableName: "plant", columnNames: [])))
        #expect(!region.isModified(byEventsOfKind: .update(tableName: "plant", columnNames: [])))
        #expect(wholeTable.isModified(byEventsOfKind: .update(tableName: "plant", columnNames: ["id"])))
    }

    @Test func modificationsByKindInRegionsOfManyTables() throws {
        // Regions of a few tables and of many are looked up alike: case-insensitively for
        // ASCII letters, exactly for other characters.
        for count in [1, 4, 5, 12] {
            var region = DatabaseRegion()
            for index in 0..<count {
                region.formUnion(DatabaseRegion(table: "Table\(index)", columns: ["score"]))
            }
            for index in 0..<count {
                #expect(region.isModified(byEventsOfKind: .insert(tableName: "table\(index)")), "\(count)")
                #expect(region.isModified(byEventsOfKind: .update(tableName: "TABLE\(index)", columnNames: ["Score"])), "\(count)")
                #expect(!region.isModified(byEventsOfKind: .update(tableName: "table\(index)", columnNames: ["name"])), "\(count)")
            }
            #expect(!region.isModified(byEventsOfKind: .delete(tableName: "table\(count)")), "\(count)")
            #expect(!region.isModified(byEventsOfKind: .delete(tableName: "table")), "\(count)")
        }
        let accented = DatabaseRegion(table: "été")
        #expect(accented.isModified(byEventsOfKind: .insert(tableName: "été")))
        #expect(!accented.isModified(byEventsOfKind: .insert(tableName: "ÉTÉ")))
    }

    @Test func regionsOfRequests() throws {
        try withGreenhouse { (db: Database) throws in
            #expect(try Plant.all().databaseRegion(db).description == "plant(id,name,water)")
            #expect(try Plant.select(Column("name")).databaseRegion(db).description == "plant(name)")
            #expect(try Plant.filter(Column("water") > 2).select(Column("name")).databaseRegion(db).description == "plant(name,water)")
            #expect(try Plant.fetchCount(db) == 3)
            // Key filters of the query interface are row-level...
            #expect(try Plant.filter(id: 1).databaseRegion(db).description == "plant(id,name,water)[1]")
            #expect(try Plant.filter(ids: [3, 1]).databaseRegion(db).description == "plant(id,name,water)[1,3]")
            #expect(try Plant.filter(key: 2).databaseRegion(db).description == "plant(id,name,water)[2]")
            #expect(try Plant.filter(Column("id") == 2 || Column("id") == 3).databaseRegion(db).description == "plant(id,name,water)[2,3]")
            #expect(try Plant.filter(id: 1).filter(Column("water") > 0).databaseRegion(db).description == "plant(id,name,water)[1]")
            // ...unless the condition is not only about the rowid.
            #expect(try Plant.filter(Column("id") == 1 || Column("water") > 2).databaseRegion(db).description == "plant(id,name,water)")
            // A raw SQL request is table-level.
            #expect(try SQLRequest<Plant>(sql: "SELECT * FROM plant WHERE id = 1").databaseRegion(db).description == "plant(id,name,water)")
            // A request that matches nothing has an empty region.
            #expect(try Plant.none().databaseRegion(db).isEmpty)
            // WITHOUT ROWID tables have no rowids to narrow to.
            #expect(try Label.filter(key: "a").databaseRegion(db).description == "label(code,text)")
            // Views: the view's columns, and the columns of the tables it reads.
            #expect(try Table("thirstyPlant").select(Column("name")).databaseRegion(db).description
                == "plant(id,name,water),thirstyPlant(name)")
            #expect(try Table("PLANT").databaseRegion(db).description == "PLANT(*)")
            #expect(try Table("PLANT").databaseRegion(db) == Table("plant").databaseRegion(db))
            // Cursors and statements tell their regions too.
            let cursor = try Row.fetchCursor(db, sql: "SELECT name FROM plant")
            #expect(cursor.databaseRegion.description == "plant(name)")
        }
    }

    /// As GRDB (OBS-2): regions narrow on `===`, on contradictions and NULL to the empty
    /// region, in derived requests and in the statement of the request; the region an
    /// observation records leaves views out.
    @Test func narrowedRegions() throws {
        try withGreenhouse { (db: Database) throws in
            #expect(try Plant.filter(Column("id") === 1).databaseRegion(db).description == "plant(id,name,water)[1]")
            #expect(try Plant.filter(2 === Column.rowID).databaseRegion(db).description == "plant(id,name,water)[2]")
            #expect(try Plant.filter([1, 2, 3].contains(Column("id")) && [2, 3, 4].contains(Column("id"))).databaseRegion(db).description == "plant(id,name,water)[2,3]")
            for request in [
                Plant.filter([Int]().contains(Column("id"))),
                Plant.filter(Column("id") == nil),
                Plant.filter(Column("id") === nil),
                Plant.filter(Column("id") == 1 && Column("id") == 2),
                Plant.filter(key: 1).filter(key: 2),
            ] {
                let region = try request.databaseRegion(db)
                #expect(region.isEmpty, "\(region)")
                #expect(!region.isModified(byEventsOfKind: .insert(tableName: "plant")))
            }
            // Wrapped requests and the request's statement keep the narrowing.
            let one = Plant.filter(id: 1)
            #expect(try AnyFetchRequest(one).databaseRegion(db).description == "plant(id,name,water)[1]")
            #expect(try one.adapted { _ in SuffixRowAdapter(fromIndex: 0) }.databaseRegion(db).description == "plant(id,name,water)[1]")
            let statement = try one.makePreparedRequest(db, forSingleResult: false).statement
            #expect(statement.databaseRegion.description == "plant(id,name,water)[1]")
            // The same SQL, from a cached statement, is not narrowed.
            #expect(try SQLRequest<Row>(sql: statement.sql, arguments: [1]).databaseRegion(db).description == "plant(id,name,water)")
            // Text or real keys do not narrow.
            #expect(try Plant.filter(Column("id") == "1").databaseRegion(db).description == "plant(id,name,water)")
            // Other rows of the table are read by a self join, a subquery, a literal: no
            // narrowing, or an observation would miss their changes.
            let twin = Plant.hasOne(Plant.self, key: "twin", using: ForeignKey(["water"], to: ["id"]))
            #expect(try Plant.filter(id: 1).including(optional: twin).databaseRegion(db).description == "plant(id,name,water)")
            #expect(try Plant.filter(id: 1).filter(Column("water") == Plant.select(max(Column("water")))).databaseRegion(db).description == "plant(id,name,water)")
            #expect(try Plant.filter(id: 1).filter(sql: "water > 0").databaseRegion(db).description == "plant(id,name,water)")
            #expect(try Plant.filter(id: 1).order(literal: "name").databaseRegion(db).description == "plant(id,name,water)")
            // New arguments for the statement of a request: no narrowing.
            let reused = try Plant.filter(id: 1).makePreparedRequest(db, forSingleResult: false).statement
            try reused.setArguments([2])
            #expect(reused.databaseRegion.description == "plant(id,name,water)")
        }

        let test = try TestDatabase()
        try test.dbQueue.write { try $0.execute(sql: greenhouse + "; CREATE TEMP VIEW label AS SELECT * FROM main.label WHERE code > 'a'") }
        let fetches: [(@Sendable (Database) throws -> Int, String)] = [
            // A view named like the table it reads: the table is observed.
            ({ (db: Database) in try Row.fetchAll(db, sql: "SELECT * FROM temp.label").count }, "label(code,text)"),
            ({ (db: Database) in try Row.fetchAll(db, Table("thirstyPlant").all()).count }, "plant(id,name,water)"),
            ({ (db: Database) in try Row.fetchAll(db, sql: "SELECT name FROM thirstyPlant WHERE id = 1").count }, "plant(id,name,water)"),
            ({ (db: Database) in try Row.fetchAll(db, Plant.filter(ids: [1, 3])).count }, "plant(id,name,water)[1,3]"),
            ({ (db: Database) in try Row.fetchAll(db, Plant.filter(ids: [Int64]())).count }, "empty"),
        ]
        for (fetch, expected) in fetches {
            let regions = LockedValue<[String]>([])
            let recorder = Recorder<Int>()
            let cancellable = ValueObservation.tracking(fetch)
                .handleEvents(willTrackRegion: { region in regions.update { $0.append(region.description) } })
                .start(in: test.dbQueue, scheduling: .async(onQueue: DispatchQueue(label: "DatabaseRegionTests")),
                       onError: recorder.onError, onChange: recorder.onChange)
            #expect(recorder.wait { $0.count == 1 }.count == 1)
            #expect(regions.read() == [expected])
            cancellable.cancel()
        }
    }

    @Test func modificationsByEvent() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: greenhouse) }
        let sink = EventSink()
        test.dbQueue.add(transactionObserver: sink)
        try test.dbQueue.write { db in
            try db.execute(sql: "UPDATE plant SET water = water + 1")
            try db.execute(sql: "INSERT INTO label VALUES ('x', 'y')") // WITHOUT ROWID: no event
            let region = try Plant.filter(id: 2).databaseRegion(db)
            let events = sink.events
            #expect(events.map(\.rowID) == [1, 2, 3])
            #expect(events.map { region.isModified(by: $0) } == [false, true, false])
            // Events on tables outside of the region answer true: isModified(byEventsOfKind:)
            // is the one that tells tables apart.
            let labelRegion = DatabaseRegion(table: "label")
            #expect(events.allSatisfy { labelRegion.isModified(by: $0) })
        }
    }

    @Test func registeredAccesses() throws {
        try withGreenhouse { (db: Database) throws in
            db.trackedRegion = DatabaseRegion()
            defer { db.trackedRegion = nil }
            _ = try Plant.select(Column("name"), as: String.self).fetchAll(db)
            try db.registerAccess(to: Table("label"))
            #expect(db.trackedRegion?.description == "label(*),plant(name)")
        }
        // Without an observation tracking fetches, registering does nothing.
        try withGreenhouse { (db: Database) throws in
            try db.registerAccess(to: Table("label"))
            #expect(db.trackedRegion == nil)
        }
    }

    @Test func anyDatabaseRegionConvertible() throws {
        try withGreenhouse { (db: Database) throws in
            let convertible = AnyDatabaseRegionConvertible { db in
                try Plant.select(Column("water")).databaseRegion(db).union(Table("label").databaseRegion(db))
            }
            #expect(try convertible.databaseRegion(db).description == "label(*),plant(water)")
            #expect(try AnyDatabaseRegionConvertible(Table("plant")).databaseRegion(db).description == "plant(*)")
            struct Failing: DatabaseRegionConvertible {
                func databaseRegion(_ db: Database) throws -> DatabaseRegion {
                    throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no region")
                }
            }
            expectDatabaseError(.SQLITE_ERROR) { _ = try AnyDatabaseRegionConvertible(Failing()).databaseRegion(db) }
        }
    }
}
