import Foundation
import Testing
@testable import GRDBCipher

// Painters and sculptors: an artist has paintings and sculptures; a gallery (text primary key)
// has people.

private struct AAArtist: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "artist"
    static let paintings = hasMany(AAPainting.self)
    static let sculptures = hasMany(AASculpture.self)
    var id: Int64
    var name: String
}

private struct AAPainting: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "painting"
    enum Columns {
        static let year = Column("year")
        static let width = Column("width")
    }
    var id: Int64
    var artistId: Int64
    var year: Int
    var width: Int
}

private struct AASculpture: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "sculpture"
    var id: Int64
    var artistId: Int64
}

private struct AAGallery: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "gallery"
    static let people = hasMany(AAPerson.self, key: "people")
    var code: String
}

private struct AAPerson: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "person"
    var id: Int64
    var galleryCode: String
}

private let schema = """
    CREATE TABLE artist (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE painting (id INTEGER PRIMARY KEY, artistId INTEGER NOT NULL REFERENCES artist(id), year INTEGER NOT NULL, width INTEGER NOT NULL);
    CREATE TABLE sculpture (id INTEGER PRIMARY KEY, artistId INTEGER NOT NULL REFERENCES artist(id));
    CREATE TABLE gallery (code TEXT PRIMARY KEY);
    CREATE TABLE person (id INTEGER PRIMARY KEY, galleryCode TEXT NOT NULL REFERENCES gallery(code));
    INSERT INTO artist VALUES (1, 'Kahlo'), (2, 'Hepworth'), (3, 'Newcomer');
    INSERT INTO painting VALUES (1, 1, 1939, 170), (2, 1, 1940, 60), (3, 1, 1944, 30);
    INSERT INTO sculpture VALUES (1, 2), (2, 2), (3, 1);
    INSERT INTO gallery VALUES ('TATE'), ('MOMA');
    INSERT INTO person VALUES (1, 'TATE'), (2, 'TATE');
    """

private func withArt(_ body: (Database) throws -> Void) throws {
    let test = try TestDatabase()
    try test.dbQueue.write { db in
        try db.execute(sql: schema)
        try body(db)
    }
}

private func sqlOf(_ db: Database, _ request: some FetchRequest) throws -> String {
    try request.makePreparedRequest(db, forSingleResult: false).statement.sql
}

@Suite("Associations: aggregates")
struct AssociationAggregateTests {
    @Test func annotatedWithDefaultKeys() throws {
        try withArt { (db: Database) throws in
            struct ArtistInfo: Decodable, FetchableRecord {
                var artist: AAArtist
                var paintingCount: Int
                var maxPaintingYear: Int?
                var paintingWidthSum: Int?
            }
            let request = AAArtist
                .annotated(with: AAArtist.paintings.count, AAArtist.paintings.max(\.year), AAArtist.paintings.sum(AAPainting.Columns.width))
                .order(Column("id"))
            #expect(try sqlOf(db, request) == #"SELECT "artist".*, COUNT(DISTINCT "painting"."id") AS "paintingCount", MAX("painting"."year") AS "maxPaintingYear", SUM("painting"."width") AS "paintingWidthSum" FROM "artist" LEFT JOIN "painting" ON "painting"."artistId" = "artist"."id" GROUP BY "artist"."id" ORDER BY "artist"."id""#)
            let infos = try request.asRequest(of: ArtistInfo.self).fetchAll(db)
            #expect(infos.map(\.paintingCount) == [3, 0, 0])
            #expect(infos.map(\.maxPaintingYear) == [1944, nil, nil])
            #expect(infos.map(\.paintingWidthSum) == [260, nil, nil])
            #expect(try request.fetchCount(db) == 3)

            // Other default names: min, average, total (a Sum suffix, as sum), isEmpty.
            let row = try Row.fetchOne(db, AAArtist.annotated(with:
                AAArtist.paintings.min(Column("year")), AAArtist.paintings.average(Column("width")),
                AAArtist.paintings.total(Column("width")), AAArtist.paintings.isEmpty).filter(key: 1))!
            #expect(row["minPaintingYear"] == 1939)
            #expect(row["averagePaintingWidth"] as Double? == 260.0 / 3)
            #expect(row["paintingWidthSum"] == 260.0)
            #expect(row["hasNoPainting"] == false)
        }
    }

    @Test func havingAggregates() throws {
        try withArt { (db: Database) throws in
            let empty = AAArtist.having(AAArtist.paintings.isEmpty)
            #expect(try sqlOf(db, empty) == #"SELECT "artist".* FROM "artist" LEFT JOIN "painting" ON "painting"."artistId" = "artist"."id" GROUP BY "artist"."id" HAVING COUNT(DISTINCT "painting"."id") = 0"#)
            #expect(try empty.fetchAll(db).map(\.name).sorted() == ["Hepworth", "Newcomer"])

            let productive = AAArtist.having(AAArtist.paintings.isEmpty == false)
            #expect(try sqlOf(db, productive) == #"SELECT "artist".* FROM "artist" LEFT JOIN "painting" ON "painting"."artistId" = "artist"."id" GROUP BY "artist"."id" HAVING COUNT(DISTINCT "painting"."id") > 0"#)
            #expect(try productive.fetchAll(db).map(\.name) == ["Kahlo"])
            #expect(try AAArtist.having(!AAArtist.paintings.isEmpty).fetchCount(db) == 1)

            let prolific = AAArtist.having(AAArtist.paintings.count >= 2)
            #expect(try sqlOf(db, prolific) == #"SELECT "artist".* FROM "artist" LEFT JOIN "painting" ON "painting"."artistId" = "artist"."id" GROUP BY "artist"."id" HAVING COUNT(DISTINCT "painting"."id") >= ?"#)
            #expect(try prolific.fetchAll(db).map(\.name) == ["Kahlo"])

            // A filtered association: the filter goes to the ON clause.
            let recent = AAArtist.paintings.filter(Column("year") > 1942)
            #expect(try AAArtist.having(recent.isEmpty == false).fetchAll(db).map(\.name) == ["Kahlo"])
        }
    }

    @Test func aggregatesOfSeveralAssociations() throws {
        try withArt { (db: Database) throws in
            // Two associations: two joins. Two aggregates of one association: one join.
            let request = AAArtist
                .annotated(with: (AAArtist.paintings.count + AAArtist.sculptures.count).forKey("workCount"))
                .having(AAArtist.paintings.count > AAArtist.sculptures.count)
            #expect(try sqlOf(db, request) == #"SELECT "artist".*, COUNT(DISTINCT "painting"."id") + COUNT(DISTINCT "sculpture"."id") AS "workCount" FROM "artist" LEFT JOIN "painting" ON "painting"."artistId" = "artist"."id" LEFT JOIN "sculpture" ON "sculpture"."artistId" = "artist"."id" GROUP BY "artist"."id" HAVING COUNT(DISTINCT "painting"."id") > COUNT(DISTINCT "sculpture"."id")"#)
            let rows = try Row.fetchAll(db, request)
            #expect(rows.count == 1)
            #expect(rows[0]["workCount"] == 4)

            let both = AAArtist.annotated(with: AAArtist.paintings.min(Column("year")), AAArtist.paintings.max(Column("year")))
            #expect(try sqlOf(db, both) == #"SELECT "artist".*, MIN("painting"."year") AS "minPaintingYear", MAX("painting"."year") AS "maxPaintingYear" FROM "artist" LEFT JOIN "painting" ON "painting"."artistId" = "artist"."id" GROUP BY "artist"."id""#)

            // IFNULL, functions, and a coding key.
            enum CodingKeys: String, CodingKey { case firstYear }
            let firstYear = AAArtist.annotated(with: (AAArtist.paintings.min(Column("year")) ?? 0).forKey(CodingKeys.firstYear)).order(Column("id"))
            #expect(try sqlOf(db, firstYear) == #"SELECT "artist".*, IFNULL(MIN("painting"."year"), ?) AS "firstYear" FROM "artist" LEFT JOIN "painting" ON "painting"."artistId" = "artist"."id" GROUP BY "artist"."id" ORDER BY "artist"."id""#)
            #expect(try Row.fetchAll(db, firstYear).map { $0["firstYear"] as Int } == [1939, 0, 0])
            #expect(try Row.fetchOne(db, AAArtist.annotated(with: abs(-AAArtist.paintings.count)).filter(key: 1))![2] == 3)
        }
    }

    @Test func tablesWithoutRowIDPrimaryKeyAndPluralKeys() throws {
        try withArt { (db: Database) throws in
            let request = AAGallery.annotated(with: AAGallery.people.count).order(Column("code"))
            #expect(try sqlOf(db, request) == #"SELECT "gallery".*, COUNT(DISTINCT "person"."id") AS "personCount" FROM "gallery" LEFT JOIN "person" ON "person"."galleryCode" = "gallery"."code" GROUP BY "gallery"."rowid" ORDER BY "gallery"."code""#)
            #expect(try Row.fetchAll(db, request).map { $0["personCount"] as Int } == [0, 2])
            // Rows of tables: Table requests take aggregates too.
            let galleries = Table("gallery")
            let people = galleries.hasMany(Table("person"))
            #expect(try galleries.having(people.count > 1).fetchAll(db).map { $0["code"] as String } == ["TATE"])
        }
    }
}
