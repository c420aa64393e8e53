import Foundation
import Testing
@testable import GRDBCipher

// fetchCount and fetchOne as GRDB 7.10 writes them: joins and annotations are counted through
// a subquery (PRG-4, CNT-1); a key filter keeps LIMIT 1 with joins (PRG-3), and needs none for
// `IS NULL` on a unique key (SQL-7).

private struct Author: TableRecord {
    static let databaseTableName = "author"
}

private struct Book: TableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(Author.self)
}

private let schema = """
    CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT);
    CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), price INTEGER);
    INSERT INTO author VALUES (1, 'Ann'), (2, 'Bob');
    INSERT INTO book VALUES (1, 1, 3), (2, 1, 8), (3, NULL, 10);
    """

@Suite("Counts and limits")
struct CountAndLimitTests {
    @Test func countsThroughASubquery() throws {
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            #expect(try Book.joining(required: Book.author).fetchCount(db) == 2)
            let doubled = Book.annotated(with: (Column("price") * 2).forKey("double")).filter(Column("double").detached > 10)
            #expect(try doubled.fetchCount(db) == 2)
            #expect(try Book.all().fetchCount(db) == 3)
            #expect(recorder.dataSQL == [
                #"SELECT COUNT(*) FROM (SELECT "book".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId")"#,
                #"SELECT COUNT(*) FROM (SELECT *, "price" * ? AS "double" FROM "book" WHERE "double" > ?)"#,
                #"SELECT COUNT(*) FROM "book""#,
            ])
        }
    }

    @Test func keyFiltersAndLimits() throws {
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            _ = try Row.fetchOne(db, Book.filter(key: 1))
            _ = try Row.fetchOne(db, Book.filter(key: 1).including(required: Book.author))
            _ = try Row.fetchOne(db, Book.filter(Column("id") == nil))
            #expect(recorder.dataSQL == [
                #"SELECT * FROM "book" WHERE "id" = ?"#,
                #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" WHERE "book"."id" = ? LIMIT 1"#,
                #"SELECT * FROM "book" WHERE "id" IS NULL"#,
            ])
        }
    }
}

private struct Person: TableRecord {
    static let databaseTableName = "person"
    static let passport = hasOne(Passport.self)
    static let badge = hasOne(Badge.self)
}

private struct Passport: TableRecord {
    static let databaseTableName = "passport"
}

private struct Badge: TableRecord {
    static let databaseTableName = "badge"
}

@Suite("TableAlias.exists")
struct TableAliasExistsTests {
    @Test func existenceTestsThePrimaryKey() throws {
        // ASC-7, PRG-5: the key of the table, as GRDB, not always the rowid.
        let schema = """
            CREATE TABLE person(id INTEGER PRIMARY KEY);
            CREATE TABLE passport(id INTEGER PRIMARY KEY, personId INTEGER REFERENCES person(id));
            CREATE TABLE badge(personId INTEGER REFERENCES person(id), code TEXT, PRIMARY KEY (personId, code)) WITHOUT ROWID;
            INSERT INTO person VALUES (1), (2);
            INSERT INTO passport VALUES (10, 1);
            INSERT INTO badge VALUES (2, 'x');
            """
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let passport = TableAlias<Passport>()
            let withPassport = try Int64.fetchAll(db, Person.select(Column("id")).joining(optional: Person.passport.aliased(passport)).filter(passport.exists))
            let withoutPassport = try Int64.fetchAll(db, Person.select(Column("id")).joining(optional: Person.passport.aliased(passport)).filter(!passport.exists))
            #expect(withPassport == [1])
            #expect(withoutPassport == [2])
            let badge = TableAlias<Badge>()
            let withBadge = try Int64.fetchAll(db, Person.select(Column("id")).joining(optional: Person.badge.aliased(badge)).filter(badge.exists))
            #expect(withBadge == [2])
            let withoutBadge = try Int64.fetchAll(db, Person.select(Column("id")).joining(optional: Person.badge.aliased(badge)).filter(!badge.exists))
            #expect(withoutBadge == [1])
            #expect(recorder.dataSQL == [
                #"SELECT "person"."id" FROM "person" LEFT JOIN "passport" ON "passport"."personId" = "person"."id" WHERE "passport"."id" IS NOT NULL"#,
                #"SELECT "person"."id" FROM "person" LEFT JOIN "passport" ON "passport"."personId" = "person"."id" WHERE "passport"."id" IS NULL"#,
                #"SELECT "person"."id" FROM "person" LEFT JOIN "badge" ON "badge"."personId" = "person"."id" WHERE ("badge"."personId" IS NOT NULL) AND ("badge"."code" IS NOT NULL)"#,
                #"SELECT "person"."id" FROM "person" LEFT JOIN "badge" ON "badge"."personId" = "person"."id" WHERE NOT (("badge"."personId" IS NOT NULL) AND ("badge"."code" IS NOT NULL))"#,
            ])
        }
    }
}

private struct Room: TableRecord {
    static let databaseTableName = "room"
}

private struct Shelf: TableRecord {
    static let databaseTableName = "shelf"
    static let room = belongsTo(Room.self)
}

private struct Volume: TableRecord {
    static let databaseTableName = "volume"
    static let shelf = belongsTo(Shelf.self)
}

@Suite("Reversed associations")
struct ReversedAssociationTests {
    @Test func reversingAnAssociationReversesItsIncludedAssociations() throws {
        // ASC-5, as GRDB.
        let schema = """
            CREATE TABLE room(id INTEGER PRIMARY KEY, floor INTEGER);
            CREATE TABLE shelf(id INTEGER PRIMARY KEY, roomId INTEGER REFERENCES room(id), label TEXT);
            CREATE TABLE volume(id INTEGER PRIMARY KEY, shelfId INTEGER REFERENCES shelf(id));
            """
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let association = Volume.shelf.order(Column("label"))
                .including(required: Shelf.room.order(Column("floor")))
            _ = try Row.fetchAll(db, Volume.including(required: association.reversed()))
            _ = try Row.fetchAll(db, Volume.including(required: association.reversed()).reversed())
            #expect(recorder.dataSQL.map { String($0[$0.range(of: "ORDER BY")!.lowerBound...]) } == [
                #"ORDER BY "shelf"."label" DESC, "room"."floor" DESC"#,
                #"ORDER BY "shelf"."label", "room"."floor""#,
            ])
        }
    }
}

@Suite("Stable orders")
struct StableOrderTests {
    @Test func stableOrderOfJoinsAndViews() throws {
        // ORD-1, as GRDB.
        try withRecordedDatabase(schema + "CREATE VIEW cheap AS SELECT id, price FROM book WHERE price < 9;") { (db: Database, recorder: SQLRecorder) throws in
            _ = try Row.fetchAll(db, Book.order(Column("price")).including(required: Book.author.order(Column("name"))).withStableOrder())
            _ = try Row.fetchAll(db, Table("cheap").all().withStableOrder())
            _ = try Row.fetchAll(db, Book.order(Column("price")).including(required: Book.author.order(Column("name"))).unordered())
            #expect(recorder.dataSQL == [
                #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "book"."price", "book"."id", "author"."name", "author"."id""#,
                #"SELECT * FROM "cheap" ORDER BY 1, 2"#,
                #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId""#,
            ])
        }
    }
}
