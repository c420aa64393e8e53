import Foundation
import Testing
@testable import GRDBCipher

// Composers write pieces; pieces have movements. Musicians hold memberships in orchestras
// (many-to-many through membership). Staff members report to a manager (self join).

private struct APComposer: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "composer"
    static let pieces = hasMany(APPiece.self)
    var id: Int64
    var name: String
}

private struct APPiece: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "piece"
    static let movements = hasMany(APMovement.self).order(Column("position"))
    static let composer = belongsTo(APComposer.self)
    var id: Int64
    var composerId: Int64?
    var title: String
}

private struct APMovement: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "movement"
    var id: Int64
    var pieceId: Int64
    var position: Int
}

private struct APOrchestra: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "orchestra"
    static let memberships = hasMany(APMembership.self)
    static let musicians = hasMany(APMusician.self, through: memberships, using: APMembership.musician)
    var code: String
    var city: String
}

private struct APMembership: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "membership"
    static let musician = belongsTo(APMusician.self)
    static let orchestra = belongsTo(APOrchestra.self)
    var orchestraCode: String
    var musicianId: Int64
}

private struct APMusician: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "musician"
    static let memberships = hasMany(APMembership.self)
    static let orchestras = hasMany(APOrchestra.self, through: memberships, using: APMembership.orchestra)
    var id: Int64
    var name: String
}

private struct APStaff: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "staff"
    static let manager = belongsTo(APStaff.self, key: "manager")
    static let reports = hasMany(APStaff.self, key: "reports")
    /// Through the same association twice: every table is `staff`.
    static let reportsOfReports = hasMany(APStaff.self, through: reports, using: APStaff.reports, key: "reportsOfReports")
    var id: Int64
    var managerId: Int64?
    var name: String
}

private let schema = """
    CREATE TABLE composer (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE piece (id INTEGER PRIMARY KEY, composerId INTEGER REFERENCES composer(id), title TEXT NOT NULL);
    CREATE TABLE movement (id INTEGER PRIMARY KEY, pieceId INTEGER NOT NULL REFERENCES piece(id), position INTEGER NOT NULL);
    CREATE TABLE orchestra (code TEXT PRIMARY KEY, city TEXT NOT NULL);
    CREATE TABLE musician (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE membership (
        orchestraCode TEXT NOT NULL REFERENCES orchestra(code),
        musicianId INTEGER NOT NULL REFERENCES musician(id),
        PRIMARY KEY (orchestraCode, musicianId));
    CREATE TABLE staff (id INTEGER PRIMARY KEY, managerId INTEGER REFERENCES staff(id), name TEXT NOT NULL);
    INSERT INTO composer VALUES (1, 'Satie'), (2, 'Ravel'), (3, 'Lili');
    INSERT INTO piece VALUES (10, 1, 'Gymnopedies'), (11, 2, 'Bolero'), (12, 1, 'Gnossiennes'), (13, NULL, 'Anonymous');
    INSERT INTO movement VALUES (1, 10, 2), (2, 10, 1), (3, 11, 1);
    INSERT INTO orchestra VALUES ('LSO', 'London'), ('BPO', 'Berlin'), ('NYP', 'New York');
    INSERT INTO musician VALUES (1, 'Ann'), (2, 'Bo'), (3, 'Cy');
    INSERT INTO membership VALUES ('LSO', 1), ('BPO', 1), ('LSO', 2);
    INSERT INTO staff VALUES (1, NULL, 'Boss'), (2, 1, 'Mid'), (3, 2, 'Junior'), (4, 1, 'Other');
    """

private func withMusic(_ body: (Database, SQLRecorder) throws -> Void) throws {
    try withRecordedDatabase(schema, body)
}

@Suite("Associations: including(all:)")
struct AssociationPrefetchTests {
    @Test func hasManyPrefetchRunsOneQueryKeyedOnTheParents() throws {
        try withMusic { db, recorder in
            struct ComposerInfo: Decodable, FetchableRecord {
                var composer: APComposer
                var pieces: [APPiece]
            }
            let request = APComposer.including(all: APComposer.pieces.order(Column("title"))).order(Column("id"))
            let infos = try request.asRequest(of: ComposerInfo.self).fetchAll(db)
            #expect(recorder.dataSQL == [
                #"SELECT * FROM "composer" ORDER BY "id""#,
                #"SELECT *, "composerId" AS "grdb_composerId" FROM "piece" WHERE "composerId" IN (?, ?, ?) ORDER BY "title""#,
            ])
            #expect(infos.map(\.composer.name) == ["Satie", "Ravel", "Lili"])
            #expect(infos.map { $0.pieces.map(\.title) } == [["Gnossiennes", "Gymnopedies"], ["Bolero"], []])

            // One parent: `= ?`. No parent: no second query.
            recorder.reset()
            _ = try APComposer.including(all: APComposer.pieces).filter(key: 2).fetchAll(db)
            #expect(recorder.dataSQL.last == #"SELECT *, "composerId" AS "grdb_composerId" FROM "piece" WHERE "composerId" = ?"#)
            recorder.reset()
            #expect(try APComposer.including(all: APComposer.pieces).filter(key: 99).fetchAll(db).isEmpty)
            #expect(recorder.dataSQL.count == 1)
        }
    }

    /// As GRDB (ASC-8): two `including(all:)` of one key merge into one query, as joins do.
    @Test func prefetchesOfOneKeyMerge() throws {
        try withMusic { db, recorder in
            let request = APComposer.order(Column("id"))
                .including(all: APComposer.pieces.order(Column("title")).including(all: APPiece.movements))
                .including(all: APComposer.pieces.filter(Column("id") > 10).order(Column("id")))
            let rows = try Row.fetchAll(db, request)
            #expect(recorder.dataSQL == [
                #"SELECT * FROM "composer" ORDER BY "id""#,
                #"SELECT *, "composerId" AS "grdb_composerId" FROM "piece" WHERE ("id" > ?) AND ("composerId" IN (?, ?, ?)) ORDER BY "id""#,
                #"SELECT *, "pieceId" AS "grdb_pieceId" FROM "movement" WHERE "pieceId" IN (?, ?) ORDER BY "position""#,
            ])
            #expect(rows.map { $0.prefetchedRows["pieces"]?.map { $0["title"] as String } } == [["Gnossiennes"], ["Bolero"], []])
            #expect(rows[1].prefetchedRows["pieces"]?.first?.prefetchedRows["movements"]?.count == 1)

            // Through associations too; other keys stay apart.
            recorder.reset()
            let musicians = try APOrchestra.order(Column("code"))
                .including(all: APOrchestra.musicians.filter(Column("id") > 1))
                .including(all: APOrchestra.musicians.filter(Column("id") < 3))
                .including(all: APOrchestra.musicians.forKey("everyone"))
                .asRequest(of: Row.self)
                .fetchAll(db)
            #expect(recorder.dataSQL.count == 3)
            #expect(recorder.dataSQL[1].hasSuffix(#"WHERE ("musician"."id" > ?) AND ("musician"."id" < ?)"#))
            #expect(musicians.map { $0.prefetchedRows["musicians"]?.count } == [0, 1, 0])
            #expect(musicians.map { $0.prefetchedRows["everyone"]?.count } == [1, 2, 0])

            // Aggregates merge with their grouping.
            let composers = try Row.fetchAll(db, APComposer.order(Column("id"))
                .including(all: APComposer.pieces.order(Column("id")))
                .including(all: APComposer.pieces.annotated(with: APPiece.movements.count).order(Column("id"))))
            #expect(composers.map { $0.prefetchedRows["pieces"]?.map { $0["movementCount"] as Int } } == [[2, 0], [1], []])

            // Another foreign key under the same key: two queries, not one.
            try db.execute(sql: "ALTER TABLE piece ADD COLUMN arrangerId INTEGER REFERENCES composer(id); UPDATE piece SET arrangerId = 2 WHERE id = 10")
            recorder.reset()
            let composed = APComposer.hasMany(APPiece.self, key: "pieces", using: ForeignKey(["composerId"]))
            let arranged = APComposer.hasMany(APPiece.self, key: "pieces", using: ForeignKey(["arrangerId"]))
            let both = try Row.fetchAll(db, APComposer.order(Column("id")).including(all: composed).including(all: arranged))
            #expect(recorder.dataSQL.count == 3)
            #expect(both.map { $0.prefetchedRows["pieces"]?.count } == [0, 1, 0])
        }
    }

    @Test func prefetchedRowsOfRowsAndCursors() throws {
        try withMusic { db, _ in
            let request = APComposer.including(all: APComposer.pieces).order(Column("id"))
            let rows = try Row.fetchAll(db, request)
            #expect(rows[0].prefetchedRows.keys == ["pieces"])
            #expect(rows[0].prefetchedRows["pieces"]?.count == 2)
            #expect(rows[2].prefetchedRows["pieces"] == [])
            #expect(rows[0].prefetchedRows["other"] == nil)
            #expect(!rows[0].prefetchedRows.isEmpty)
            // Row without prefetch.
            #expect(try Row.fetchOne(db, APComposer.all())!.prefetchedRows.isEmpty)

            // Row.decode(_:forKey:) into collections.
            let pieces: [APPiece] = try rows[0].decode(forKey: "pieces")
            #expect(pieces.count == 2)
            let pieceSet = try rows[1].decode(Set<APPiece>.self, forKey: "pieces")
            #expect(pieceSet.count == 1)
            #expect(try rows[2].decode([APPiece].self, forKey: "pieces").isEmpty)
            do {
                _ = try rows[0].decode([APPiece].self, forKey: "other")
                Issue.record("expected an error")
            } catch let error as RowDecodingError {
                #expect("\(error)".contains("prefetched rows not found: \"other\""))
            }

            // Cursors see the prefetched rows too.
            struct ComposerInfo: Decodable, FetchableRecord {
                var composer: APComposer
                var pieces: Set<APPiece>
            }
            let cursor = try request.asRequest(of: ComposerInfo.self).fetchCursor(db)
            var counts: [Int] = []
            while let info = try cursor.next() { counts.append(info.pieces.count) }
            #expect(counts == [2, 1, 0])
            let one = try request.asRequest(of: ComposerInfo.self).fetchOne(db)
            #expect(one?.pieces.count == 2)
        }
    }

    @Test func nestedPrefetchAndSingleColumns() throws {
        try withMusic { db, recorder in
            struct PieceInfo: Decodable, FetchableRecord {
                var piece: APPiece
                var movements: [APMovement]
            }
            struct ComposerInfo: Decodable, FetchableRecord {
                var composer: APComposer
                var pieces: [PieceInfo]
                var pieceTitles: [String]
            }
            let request = APComposer
                .including(all: APComposer.pieces.including(all: APPiece.movements).order(Column("id")))
                .including(all: APComposer.pieces.select(Column("title")).order(Column("title").desc).forKey("pieceTitles"))
                .filter(Column("id") < 3)
                .order(Column("id"))
            let infos = try request.asRequest(of: ComposerInfo.self).fetchAll(db)
            #expect(recorder.dataSQL == [
                #"SELECT * FROM "composer" WHERE "id" < ? ORDER BY "id""#,
                #"SELECT *, "composerId" AS "grdb_composerId" FROM "piece" WHERE "composerId" IN (?, ?) ORDER BY "id""#,
                #"SELECT *, "pieceId" AS "grdb_pieceId" FROM "movement" WHERE "pieceId" IN (?, ?, ?) ORDER BY "position""#,
                #"SELECT "title", "composerId" AS "grdb_composerId" FROM "piece" WHERE "composerId" IN (?, ?) ORDER BY "title" DESC"#,
            ])
            #expect(infos[0].pieces.map { $0.movements.map(\.position) } == [[1, 2], []])
            #expect(infos[0].pieceTitles == ["Gymnopedies", "Gnossiennes"])
            #expect(infos[1].pieces.map(\.piece.title) == ["Bolero"])
        }
    }

    /// The region of a request with `including(all:)` covers the prefetch queries' tables, at
    /// every level, through pivot tables, and inside included associations (columns are
    /// described lowercased).
    @Test func prefetchedTablesAreInTheRegion() throws {
        try withMusic { (db: Database, _: SQLRecorder) throws in
            let nested = APComposer.including(all: APComposer.pieces.including(all: APPiece.movements))
            let region = try nested.databaseRegion(db)
            #expect(region.description == "composer(id,name),movement(id,pieceId,position),piece(composerId,id,title)")
            #expect(region.isModified(byEventsOfKind: .insert(tableName: "movement")))

            let through = try APOrchestra.including(all: APOrchestra.musicians).databaseRegion(db)
            #expect(through.description == "membership(musicianId,orchestraCode),musician(id,name),orchestra(city,code)")

            // Inside an included association.
            let inside = try APPiece.including(optional: APPiece.composer.including(all: APComposer.pieces.forKey("otherPieces")))
                .databaseRegion(db)
            #expect(inside.isModified(byEventsOfKind: .insert(tableName: "piece")))
            #expect(inside.description == "composer(id,name),piece(composerId,id,title)")

            // The base request's rows stay restricted when the prefetch reads other tables;
            // a request that matches nothing reads nothing.
            let one = try APComposer.filter(key: 1).including(all: APComposer.pieces).databaseRegion(db)
            #expect(one.description == "composer(id,name)[1],piece(composerId,id,title)")
            #expect(try APComposer.none().including(all: APComposer.pieces).databaseRegion(db).isEmpty)

            // An update of a movement changes what the nested request fetches, not the flat one.
            #expect(region.isModified(byEventsOfKind: .update(tableName: "movement", columnNames: ["position"])))
            #expect(try !APComposer.all().databaseRegion(db).isModified(byEventsOfKind: .insert(tableName: "movement")))
        }
    }

    @Test func hasManyThroughPrefetchAndJoin() throws {
        try withMusic { db, recorder in
            struct OrchestraInfo: Decodable, FetchableRecord {
                var orchestra: APOrchestra
                var musicians: [APMusician]
            }
            let infos = try APOrchestra.including(all: APOrchestra.musicians.order(Column("name"))).order(Column("code"))
                .asRequest(of: OrchestraInfo.self).fetchAll(db)
            #expect(recorder.dataSQL.last == #"SELECT "musician".*, "membership"."orchestraCode" AS "grdb_orchestraCode" FROM "musician" JOIN "membership" ON ("membership"."musicianId" = "musician"."id") AND ("membership"."orchestraCode" IN (?, ?, ?)) ORDER BY "musician"."name""#)
            #expect(infos.map(\.orchestra.code) == ["BPO", "LSO", "NYP"])
            #expect(infos.map { $0.musicians.map(\.name) } == [["Ann"], ["Ann", "Bo"], []])

            // Joined: the intermediate table has an empty scope, the destination is nested in it.
            let joined = APMusician.including(required: APMusician.orchestras.filter(Column("city") == "London")).order(Column("id"))
            let sql = try joined.makePreparedRequest(db).statement.sql
            #expect(sql == #"SELECT "musician".*, "orchestra".* FROM "musician" JOIN "membership" ON "membership"."musicianId" = "musician"."id" JOIN "orchestra" ON ("orchestra"."code" = "membership"."orchestraCode") AND ("orchestra"."city" = ?) ORDER BY "musician"."id""#)
            let rows = try Row.fetchAll(db, joined)
            #expect(rows.count == 2)
            #expect(rows[0].scopes.names == ["membership"])
            #expect(rows[0].scopes["membership"]?.isEmpty == true)
            #expect(rows[0].scopesTree["orchestra"]?["city"] == "London")

            // The request of one record's associated records, through the pivot.
            let ann = try APMusician.fetchOne(db, key: 1)!
            let request = ann.request(for: APMusician.orchestras).order(Column("code"))
            #expect(try request.makePreparedRequest(db).statement.sql == #"SELECT "orchestra".* FROM "orchestra" JOIN "membership" ON ("membership"."orchestraCode" = "orchestra"."code") AND ("membership"."musicianId" = ?) ORDER BY "orchestra"."code""#)
            #expect(try request.fetchAll(db).map(\.code) == ["BPO", "LSO"])
        }
    }

    @Test func hasOneThrough() throws {
        try withMusic { (db: Database, _: SQLRecorder) throws in
            // movement → piece → composer
            let composer = APMovement.hasOne(APComposer.self, through: APMovement.belongsTo(APPiece.self), using: APPiece.composer)
            let request = APMovement.including(optional: composer).order(Column("id"))
            #expect(try request.makePreparedRequest(db).statement.sql == #"SELECT "movement".*, "composer".* FROM "movement" LEFT JOIN "piece" ON "piece"."id" = "movement"."pieceId" LEFT JOIN "composer" ON "composer"."id" = "piece"."composerId" ORDER BY "movement"."id""#)
            struct MovementInfo: Decodable, FetchableRecord {
                var movement: APMovement
                var composer: APComposer?
            }
            #expect(try request.asRequest(of: MovementInfo.self).fetchAll(db).map(\.composer?.name) == ["Satie", "Satie", "Ravel"])
        }
    }

    @Test func selfJoinAndPrefetch() throws {
        try withMusic { db, recorder in
            struct StaffInfo: Decodable, FetchableRecord {
                var staff: APStaff
                var manager: APStaff?
                var reports: [APStaff]
            }
            let request = APStaff.including(optional: APStaff.manager).including(all: APStaff.reports.order(Column("id"))).order(Column("id"))
            let infos = try request.asRequest(of: StaffInfo.self).fetchAll(db)
            #expect(recorder.dataSQL == [
                #"SELECT "staff1".*, "staff2".* FROM "staff" "staff1" LEFT JOIN "staff" "staff2" ON "staff2"."id" = "staff1"."managerId" ORDER BY "staff1"."id""#,
                #"SELECT *, "managerId" AS "grdb_managerId" FROM "staff" WHERE "managerId" IN (?, ?, ?, ?) ORDER BY "id""#,
            ])
            #expect(infos.map(\.manager?.name) == [nil, "Boss", "Mid", "Boss"])
            #expect(infos.map { $0.reports.map(\.name) } == [["Mid", "Other"], ["Junior"], [], []])
        }
    }

    @Test func debugDescriptionsCountThePrefetchedRows() throws {
        try withMusic { db, _ in
            let rows = try Row.fetchAll(db, APComposer
                .including(all: APComposer.pieces.forKey("works"))
                .including(all: APComposer.pieces)
                .order(Column("id")))
            // Keys by name; "1 row", "2 rows", and GRDB's "0 row".
            #expect(rows.map(\.debugDescription) == [
                "▿ [id:1 name:\"Satie\"]\n  + pieces: 2 rows\n  + works: 2 rows",
                "▿ [id:2 name:\"Ravel\"]\n  + pieces: 1 row\n  + works: 1 row",
                "▿ [id:3 name:\"Lili\"]\n  + pieces: 0 row\n  + works: 0 row",
            ])

            // The rows prefetched for a scope show in the scope, and in the row.
            let piece = try Row.fetchOne(db, APPiece
                .including(required: APPiece.composer.including(all: APComposer.pieces))
                .order(Column("id")))!
            #expect(piece.debugDescription == """
                ▿ [id:10 composerId:1 title:"Gymnopedies"]
                  unadapted: [id:10 composerId:1 title:"Gymnopedies" id:1 name:"Satie"]
                  - composer: [id:1 name:"Satie"]
                    + pieces: 2 rows
                  + pieces: 2 rows
                """)
        }
    }

    @Test func throughTheSameAssociationAliasesEachTable() throws {
        try withMusic { db, recorder in
            struct StaffInfo: Decodable, FetchableRecord {
                var staff: APStaff
                var reportsOfReports: [APStaff]
            }
            recorder.reset()
            let infos = try APStaff.including(all: APStaff.reportsOfReports).asRequest(of: StaffInfo.self).fetchAll(db)
            #expect(recorder.dataSQL.last
                == #"SELECT "staff1".*, "staff2"."managerId" AS "grdb_managerId" FROM "staff" "staff1" JOIN "staff" "staff2" ON ("staff2"."id" = "staff1"."managerId") AND ("staff2"."managerId" IN (?, ?, ?, ?))"#)
            #expect(infos.map { $0.reportsOfReports.map(\.name) } == [["Junior"], [], [], []])

            let boss = try APStaff.fetchOne(db, key: 1)!
            let request = boss.request(for: APStaff.reportsOfReports)
            #expect(try request.makePreparedRequest(db, forSingleResult: false).statement.sql
                == #"SELECT "staff1".* FROM "staff" "staff1" JOIN "staff" "staff2" ON ("staff2"."id" = "staff1"."managerId") AND ("staff2"."managerId" = ?)"#)
            #expect(try request.fetchAll(db).map(\.name) == ["Junior"])

            let joined = APStaff.joining(required: APStaff.reportsOfReports)
            #expect(try joined.makePreparedRequest(db, forSingleResult: false).statement.sql
                == #"SELECT "staff1".* FROM "staff" "staff1" JOIN "staff" "staff2" ON "staff2"."managerId" = "staff1"."id" JOIN "staff" "staff3" ON "staff3"."managerId" = "staff2"."id""#)
            #expect(try joined.fetchAll(db).map(\.name) == ["Boss"])
        }
    }

    @Test func associationFiltersComeBeforeTheKeys() throws {
        try withMusic { db, recorder in
            // As in GRDB: the association's own conditions, then the condition on the keys.
            let notBolero = APComposer.pieces.filter(Column("title") != "Bolero")
            recorder.reset()
            let rows = try Row.fetchAll(db, APComposer.including(all: notBolero).order(Column("id")))
            #expect(recorder.dataSQL.last
                == #"SELECT *, "composerId" AS "grdb_composerId" FROM "piece" WHERE ("title" <> ?) AND ("composerId" IN (?, ?, ?))"#)
            #expect(rows.map { $0.prefetchedRows["pieces"]?.count } == [2, 0, 0])

            let ravel = try APComposer.fetchOne(db, key: 2)!
            let request = ravel.request(for: notBolero)
            #expect(try request.makePreparedRequest(db, forSingleResult: false).statement.sql
                == #"SELECT * FROM "piece" WHERE ("title" <> ?) AND ("composerId" = ?)"#)
            #expect(try request.fetchCount(db) == 0)

            // Through an association: the pivot's conditions, then the keys, in the ON clause.
            let activeMembers = APOrchestra.hasMany(
                APMusician.self,
                through: APOrchestra.memberships.filter(Column("musicianId") != 3),
                using: APMembership.musician,
                key: "activeMembers")
            recorder.reset()
            _ = try Row.fetchAll(db, APOrchestra.including(all: activeMembers))
            #expect(recorder.dataSQL.last
                == #"SELECT "musician".*, "membership"."orchestraCode" AS "grdb_orchestraCode" FROM "musician" JOIN "membership" ON ("membership"."musicianId" = "musician"."id") AND ("membership"."musicianId" <> ?) AND ("membership"."orchestraCode" IN (?, ?, ?))"#)
        }
    }

    @Test func pivotsKeepTheirOrderingAndJoinWithoutColumns() throws {
        try withMusic { db, recorder in
            // The ordering of the pivot orders the prefetched rows; a relation included in the
            // pivot is joined, without its columns.
            let musicians = APOrchestra.hasMany(
                APMusician.self,
                through: APOrchestra.memberships.order(Column("musicianId").desc).including(required: APMembership.orchestra),
                using: APMembership.musician,
                key: "musicians")
            struct OrchestraInfo: Decodable, FetchableRecord {
                var orchestra: APOrchestra
                var musicians: [APMusician]
            }
            recorder.reset()
            let infos = try APOrchestra.including(all: musicians).order(Column("code")).asRequest(of: OrchestraInfo.self).fetchAll(db)
            #expect(recorder.dataSQL.last
                == #"SELECT "musician".*, "membership"."orchestraCode" AS "grdb_orchestraCode" FROM "musician" JOIN "membership" ON ("membership"."musicianId" = "musician"."id") AND ("membership"."orchestraCode" IN (?, ?, ?)) JOIN "orchestra" ON "orchestra"."code" = "membership"."orchestraCode" ORDER BY "membership"."musicianId" DESC"#)
            #expect(infos.map(\.orchestra.code) == ["BPO", "LSO", "NYP"])
            #expect(infos.map { $0.musicians.map(\.name) } == [["Ann"], ["Bo", "Ann"], []])
        }
    }

    @Test func compositeKeysPrefetchThroughTheBaseRequest() throws {
        try withMusic { db, recorder in
            try db.execute(sql: """
                CREATE TABLE season (year INTEGER, venue TEXT, PRIMARY KEY (year, venue));
                CREATE TABLE concert (id INTEGER PRIMARY KEY, seasonYear INTEGER, seasonVenue TEXT,
                    FOREIGN KEY (seasonYear, seasonVenue) REFERENCES season(year, venue));
                INSERT INTO season VALUES (2023, 'Hall'), (2024, 'Hall'), (2024, 'Park');
                INSERT INTO concert VALUES (1, 2024, 'Hall'), (2, 2024, 'Hall'), (3, 2023, 'Hall');
                """)
            let seasons = Table("season")
            let concerts = seasons.hasMany(Table("concert"))
            recorder.reset()
            let rows = try seasons.including(all: concerts.order(Column("id"))).filter(Column("year") == 2024).order(Column("venue")).fetchAll(db)
            #expect(recorder.dataSQL.last == #"WITH "grdb_base" AS (SELECT "year", "venue" FROM "season" WHERE "year" = ?) SELECT *, "seasonYear" AS "grdb_seasonYear", "seasonVenue" AS "grdb_seasonVenue" FROM "concert" WHERE ("seasonYear", "seasonVenue") IN "grdb_base" ORDER BY "id""#)
            #expect(rows.map { $0["venue"] as String } == ["Hall", "Park"])
            #expect(rows.map { $0.prefetchedRows["concerts"]?.map { $0["id"] as Int64 } } == [[1, 2], []])

            // Inside a joined association: the base request selects the keys of the fetched
            // concerts only (its join selects nothing), and names its tables on its own.
            let season = Table("concert").belongsTo(seasons)
            recorder.reset()
            let concertRows = try Table("concert").including(required: season.including(all: concerts.order(Column("id")))).order(Column("id")).fetchAll(db)
            #expect(recorder.dataSQL.last == #"WITH "grdb_base" AS (SELECT "concert"."seasonYear", "concert"."seasonVenue" FROM "concert" JOIN "season" ON ("season"."year" = "concert"."seasonYear") AND ("season"."venue" = "concert"."seasonVenue")) SELECT "concert".*, "season"."year" AS "grdb_year", "season"."venue" AS "grdb_venue" FROM "concert" JOIN "season" ON ("season"."year" = "concert"."seasonYear") AND ("season"."venue" = "concert"."seasonVenue") AND (("season"."year", "season"."venue") IN "grdb_base") ORDER BY "concert"."id""#)
            #expect(concertRows.map { $0.scopes["season"]?.prefetchedRows["concerts"]?.map { $0["id"] as Int64 } } == [[1, 2], [1, 2], [3]])
        }
    }

    /// As GRDB (ASC-9): the second level of composite keys reads the keys of the first level,
    /// whose base is a WITH inside the WITH.
    @Test func compositeKeysOnThreeLevels() throws {
        try withMusic { db, recorder in
            try db.execute(sql: """
                CREATE TABLE season (year INTEGER, venue TEXT, PRIMARY KEY (year, venue));
                CREATE TABLE concert (day INTEGER, slot INTEGER, seasonYear INTEGER, seasonVenue TEXT, PRIMARY KEY (day, slot),
                    FOREIGN KEY (seasonYear, seasonVenue) REFERENCES season(year, venue));
                CREATE TABLE ticket (id INTEGER PRIMARY KEY, concertDay INTEGER, concertSlot INTEGER,
                    FOREIGN KEY (concertDay, concertSlot) REFERENCES concert(day, slot));
                INSERT INTO season VALUES (2024, 'Hall'), (2024, 'Park');
                INSERT INTO concert VALUES (1, 1, 2024, 'Hall'), (1, 2, 2024, 'Park'), (2, 1, 2024, 'Hall');
                INSERT INTO ticket VALUES (1, 1, 1), (2, 2, 1), (3, 1, 1), (4, 1, 2);
                """)
            let seasons = Table("season")
            let concerts = seasons.hasMany(Table("concert"))
            let tickets = Table("concert").hasMany(Table("ticket"))
            recorder.reset()
            let rows = try seasons.order(Column("venue"))
                .including(all: concerts.order(Column("day"), Column("slot")).including(all: tickets.order(Column("id"))))
                .fetchAll(db)
            #expect(recorder.dataSQL.last == #"WITH "grdb_base" AS (WITH "grdb_base" AS (SELECT "year", "venue" FROM "season") SELECT "day", "slot" FROM "concert" WHERE ("seasonYear", "seasonVenue") IN "grdb_base") SELECT *, "concertDay" AS "grdb_concertDay", "concertSlot" AS "grdb_concertSlot" FROM "ticket" WHERE ("concertDay", "concertSlot") IN "grdb_base" ORDER BY "id""#)
            let ticketIds = rows.map { row in
                (row.prefetchedRows["concerts"] ?? []).map { concert in (concert.prefetchedRows["tickets"] ?? []).map { $0["id"] as Int64 } }
            }
            #expect(ticketIds == [[[1, 3], [2]], [[4]]])
        }
    }

    @Test func prefetchedRowsGroupByValueAcrossStorageClasses() throws {
        try withMusic { db, _ in
            // Keys without column affinity keep their storage class: a child key stored as a
            // double equals an integer parent key, as in SQL; text does not.
            try db.execute(sql: """
                CREATE TABLE parent (id PRIMARY KEY);
                CREATE TABLE child (id INTEGER PRIMARY KEY, parentId REFERENCES parent(id));
                INSERT INTO parent VALUES (1), (2), (3), ('a'), (2.5);
                INSERT INTO child VALUES (1, 1.0), (2, 2), (3, 1), (4, 'a'), (5, 2.5), (6, 3.0);
                """)
            let parents = Table("parent")
            let children = parents.hasMany(Table("child"))
            func childIds(_ request: QueryInterfaceRequest<Row>) throws -> [[Int64]?] {
                try request.fetchAll(db).map { $0.prefetchedRows["children"]?.map { $0["id"] as Int64 } }
            }
            // Integer parent keys only.
            let integers = parents.including(all: children.order(Column("id"))).filter(sql: "typeof(id) = 'integer'").order(Column("id"))
            #expect(try childIds(integers) == [[1, 3], [2], [6]])
            // Integer, real and text keys.
            let mixed = parents.including(all: children.order(Column("id"))).order(sql: "rowid")
            #expect(try childIds(mixed) == [[1, 3], [2], [6], [4], [5]])
        }
    }

    @Test func prefetchNeedsTheKeyColumns() throws {
        try withMusic { db, _ in
            let request = APComposer.select(Column("name")).including(all: APComposer.pieces)
            let error = expectDatabaseError(.SQLITE_MISUSE) { _ = try Row.fetchAll(db, request) }
            #expect(error?.message?.contains(#"needs the column "id""#) == true)
        }
    }

    @Test func aggregatesInsidePrefetchedAssociations() throws {
        try withMusic { db, recorder in
            struct PieceInfo: Decodable, FetchableRecord {
                var piece: APPiece
                var movementCount: Int
                var maxMovementPosition: Int?
            }
            struct ComposerInfo: Decodable, FetchableRecord {
                var composer: APComposer
                var pieces: [PieceInfo]
            }
            let pieces = APComposer.pieces
                .annotated(with: APPiece.movements.count, APPiece.movements.max(Column("position")))
                .order(Column("id"))
            let infos = try APComposer.including(all: pieces).order(Column("id"))
                .asRequest(of: ComposerInfo.self).fetchAll(db)
            #expect(recorder.dataSQL == [
                #"SELECT * FROM "composer" ORDER BY "id""#,
                #"SELECT "piece".*, COUNT(DISTINCT "movement"."id") AS "movementCount", MAX("movement"."position") AS "maxMovementPosition", "piece"."composerId" AS "grdb_composerId" FROM "piece" LEFT JOIN "movement" ON "movement"."pieceId" = "piece"."id" WHERE "piece"."composerId" IN (?, ?, ?) GROUP BY "piece"."id" ORDER BY "piece"."id""#,
            ])
            #expect(infos.map { $0.pieces.map(\.piece.title) } == [["Gymnopedies", "Gnossiennes"], ["Bolero"], []])
            #expect(infos.map { $0.pieces.map(\.movementCount) } == [[2, 0], [1], []])
            #expect(infos.map { $0.pieces.map(\.maxMovementPosition) } == [[2, nil], [1], []])

            // having(_:) on the association: the pieces without movements.
            recorder.reset()
            let silentPieces = try APComposer.including(all: APComposer.pieces.having(APPiece.movements.isEmpty).forKey("silentPieces"))
                .order(Column("id"))
                .fetchAll(db)
            #expect(recorder.dataSQL.last == #"SELECT "piece".*, "piece"."composerId" AS "grdb_composerId" FROM "piece" LEFT JOIN "movement" ON "movement"."pieceId" = "piece"."id" WHERE "piece"."composerId" IN (?, ?, ?) GROUP BY "piece"."id" HAVING COUNT(DISTINCT "movement"."id") = 0"#)
            let rows = try Row.fetchAll(db, APComposer.including(all: APComposer.pieces.having(APPiece.movements.isEmpty).forKey("silentPieces")).order(Column("id")))
            #expect(rows.map { $0.prefetchedRows["silentPieces"]?.map { $0["title"] as String } } == [["Gnossiennes"], [], []])
            #expect(silentPieces.count == 3)

            // The ordering of an aggregated association orders nothing (`movements` is ordered
            // by position).
            recorder.reset()
            let counts = try Row.fetchAll(db, APPiece.annotated(with: APPiece.movements.count).order(Column("id")))
            #expect(recorder.dataSQL == [#"SELECT "piece".*, COUNT(DISTINCT "movement"."id") AS "movementCount" FROM "piece" LEFT JOIN "movement" ON "movement"."pieceId" = "piece"."id" GROUP BY "piece"."id" ORDER BY "piece"."id""#])
            #expect(counts.map { $0["movementCount"] as Int } == [2, 1, 0, 0])
        }
    }

    @Test func aggregatesInsideThroughPrefetchGroupByThePivotKeyToo() throws {
        try withMusic { db, recorder in
            struct MusicianInfo: Decodable, FetchableRecord {
                var musician: APMusician
                var membershipCount: Int
            }
            struct OrchestraInfo: Decodable, FetchableRecord {
                var orchestra: APOrchestra
                var musicians: [MusicianInfo]
            }
            // Ann plays in two orchestras: grouped by musician alone, one of her rows would
            // go missing.
            let musicians = APOrchestra.musicians.annotated(with: APMusician.memberships.count).order(Column("name"))
            let infos = try APOrchestra.including(all: musicians).order(Column("code"))
                .asRequest(of: OrchestraInfo.self).fetchAll(db)
            #expect(recorder.dataSQL.last == #"SELECT "musician".*, COUNT(DISTINCT "membership1"."rowid") AS "membershipCount", "membership2"."orchestraCode" AS "grdb_orchestraCode" FROM "musician" LEFT JOIN "membership" "membership1" ON "membership1"."musicianId" = "musician"."id" JOIN "membership" "membership2" ON ("membership2"."musicianId" = "musician"."id") AND ("membership2"."orchestraCode" IN (?, ?, ?)) GROUP BY "musician"."id", "membership2"."orchestraCode" ORDER BY "musician"."name""#)
            #expect(infos.map(\.orchestra.code) == ["BPO", "LSO", "NYP"])
            #expect(infos.map { $0.musicians.map(\.musician.name) } == [["Ann"], ["Ann", "Bo"], []])
            #expect(infos.map { $0.musicians.map(\.membershipCount) } == [[2], [2, 1], []])
        }
    }

    @Test func aggregatesInsideJoinedAssociationsThrow() throws {
        try withMusic { db, _ in
            // GRDB stops the program: "associations refined with ... association aggregates can
            // only be used with including(all:)". GRDBCipher throws.
            let composers = APPiece.composer.annotated(with: APComposer.pieces.count)
            for request in [
                APPiece.including(required: composers),
                APPiece.including(optional: composers),
                APPiece.joining(required: composers),
                APPiece.all().annotated(withOptional: composers),
            ] {
                let error = expectDatabaseError(.SQLITE_MISUSE) { _ = try Row.fetchAll(db, request) }
                #expect(error?.message == #"association aggregates, limit, distinct, group and having are only supported in associations fetched with including(all:) (association "composer" of "piece")"#)
            }
            let grouped = APPiece.including(required: APPiece.composer.group(Column("name")))
            let error = expectDatabaseError(.SQLITE_MISUSE) { _ = try Row.fetchAll(db, grouped) }
            #expect(error?.message?.contains(#"(association "composer" of "piece")"#) == true)
            let distinct = APPiece.including(optional: APPiece.composer.distinct())
            #expect(expectDatabaseError(.SQLITE_MISUSE) { _ = try Row.fetchAll(db, distinct) } != nil)
        }
    }
}
