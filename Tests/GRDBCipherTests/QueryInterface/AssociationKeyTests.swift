import Foundation
import Testing
@testable import GRDBCipher

// Association keys inflected as GRDB 7.10 inflects them (ASC-1, checked with tools/grdb-probe):
// singular for a joined scope, plural for prefetched rows; `forKey` used as is for the
// association's own cardinality, inflected for the other one.

private struct Shelf: TableRecord, Decodable, FetchableRecord {
    static let databaseTableName = "shelves"
    static let books = hasMany(Book.self)
    static let children = hasMany(Child.self)
    var id: Int64
}

private struct Book: TableRecord, Decodable, FetchableRecord {
    static let databaseTableName = "books"
    static let shelf = belongsTo(Shelf.self)
    var id: Int64
    var shelfId: Int64
}

private struct Child: TableRecord {
    static let databaseTableName = "children"
}

@Suite("Association keys")
struct AssociationKeyTests {
    private let schema = """
        CREATE TABLE shelves(id INTEGER PRIMARY KEY);
        CREATE TABLE books(id INTEGER PRIMARY KEY, shelfId INTEGER REFERENCES shelves(id));
        CREATE TABLE children(id INTEGER PRIMARY KEY, shelfId INTEGER REFERENCES shelves(id));
        INSERT INTO shelves VALUES (1); INSERT INTO books VALUES (1, 1); INSERT INTO children VALUES (1, 1);
        """

    @Test func keysOfPluralTableNames() throws {
        try withRecordedDatabase(schema) { (db: Database, _: SQLRecorder) throws in
            func scopes(_ request: QueryInterfaceRequest<some Any>) throws -> [String] {
                try Array(Row.fetchOne(db, request)?.scopes.names ?? []).sorted()
            }
            func prefetched(_ request: QueryInterfaceRequest<some Any>) throws -> [String] {
                try Array(Row.fetchOne(db, request)?.prefetchedRows.keys ?? []).sorted()
            }
            #expect(try scopes(Book.including(required: Book.shelf)) == ["shelf"])
            #expect(try scopes(Shelf.including(required: Shelf.children)) == ["child"])
            #expect(try prefetched(Shelf.including(all: Shelf.children)) == ["children"])
            #expect(try scopes(Shelf.including(required: Shelf.books.forKey("novels"))) == ["novel"])
            #expect(try prefetched(Shelf.including(all: Shelf.books.forKey("novels"))) == ["novels"])
            #expect(try scopes(Book.including(required: Book.shelf.forKey("rack"))) == ["rack"])
            #expect(try prefetched(Shelf.including(all: Shelf.books.forKey("novel"))) == ["novel"])

            // A Decodable record written for GRDB: `shelf` for the table "shelves".
            struct BookInfo: Decodable, FetchableRecord {
                var book: Book
                var shelf: Shelf
            }
            let infos = try BookInfo.fetchAll(db, Book.including(required: Book.shelf))
            #expect(infos.map(\.shelf.id) == [1])
        }
    }

    @Test func foreignKeyColumnsTakeTheSchemaSpelling() throws {
        // SQL-7: an origin column given in another case is written as the schema spells it.
        struct ShoutingBook: TableRecord {
            static let databaseTableName = "books"
            static let shelf = belongsTo(Shelf.self, using: ForeignKey(["SHELFID"]))
        }
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            _ = try Row.fetchAll(db, ShoutingBook.joining(required: ShoutingBook.shelf))
            #expect(recorder.dataSQL == [#"SELECT "books".* FROM "books" JOIN "shelves" ON "shelves"."id" = "books"."shelfId""#])
        }
    }

    @Test func prefetchOfAMissingTableFailsBeforeAnythingRuns() throws {
        // PRG-6: as GRDB, the request fails before its parent query runs.
        struct Ghost: TableRecord { static let databaseTableName = "ghosts" }
        struct Haunted: TableRecord {
            static let databaseTableName = "shelves"
            static let ghosts = hasMany(Ghost.self, using: ForeignKey(["shelfId"]))
        }
        try withRecordedDatabase(schema) { (db: Database, recorder: SQLRecorder) throws in
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try Row.fetchAll(db, Haunted.including(all: Haunted.ghosts)) }
            #expect(error?.message == "no such table: ghosts")
            #expect(recorder.dataSQL.isEmpty)
        }
    }
}
