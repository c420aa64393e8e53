import Foundation
import Testing
@testable import GRDBCipher

// `Row.unscoped` removes scopes and prefetched rows, as GRDB 7.10 (ROW-1).

private struct UAuthor: TableRecord {
    static let databaseTableName = "author"
    static let books = hasMany(UBook.self)
    static let country = belongsTo(UCountry.self)
}

private struct UBook: TableRecord {
    static let databaseTableName = "book"
}

private struct UCountry: TableRecord {
    static let databaseTableName = "country"
}

@Suite("Row.unscoped")
struct RowUnscopedTests {
    @Test func unscopedRowsHaveNoPrefetchedRows() throws {
        let schema = """
            CREATE TABLE country(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT, countryId INTEGER REFERENCES country(id));
            CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT);
            INSERT INTO country VALUES (1, 'FR');
            INSERT INTO author VALUES (1, 'Ann', 1);
            INSERT INTO book VALUES (1, 1, 'Dune'), (2, 1, 'Emma');
            """
        try withRecordedDatabase(schema) { (db: Database, _: SQLRecorder) throws in
            let rows = try Row.fetchAll(db, UAuthor.select(Column("id"), Column("name")).including(all: UAuthor.books))
            let row = try #require(rows.first)
            #expect(!row.prefetchedRows.isEmpty)
            #expect(row.unscoped == ["id": 1, "name": "Ann"])
            #expect(row.unscoped.prefetchedRows.isEmpty)
            #expect(row != row.unscoped)

            // Scopes and prefetched rows both go.
            let scoped = try #require(try Row.fetchOne(db, UAuthor.select(Column("id")).including(required: UAuthor.country).including(all: UAuthor.books)))
            #expect(scoped.scopes["country"] != nil)
            #expect(scoped.unscoped == ["id": 1])
            #expect(scoped.unscoped.scopes.isEmpty)
            #expect(scoped.unscoped.prefetchedRows.isEmpty)

            // A plain row is its own unscoped row.
            let plain = try #require(try Row.fetchOne(db, sql: "SELECT 1 AS a"))
            #expect(plain.unscoped == plain)
        }
    }
}
