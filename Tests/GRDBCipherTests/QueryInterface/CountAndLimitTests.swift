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
