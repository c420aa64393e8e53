import Foundation
import Testing
@testable import GRDBCipher

// `containsNonNullValue` looks into scopes, and `decodeNil(forKey:)` is false for prefetched
// rows, as GRDB 7.10 (ROW-2).

private struct Author: TableRecord {
    static let databaseTableName = "author"
    static let books = hasMany(Book.self)
}

private struct Book: TableRecord, Decodable, FetchableRecord {
    static let databaseTableName = "book"
    var title: String
}

/// Decodes its books by hand, checking decodeNil first.
private struct AuthorWithBooks: Decodable, FetchableRecord {
    var name: String
    var books: [Book]?

    enum CodingKeys: String, CodingKey { case name, books }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        books = try container.decodeNil(forKey: .books) ? nil : container.decode([Book].self, forKey: .books)
    }
}

@Suite("Values of scopes")
struct RowScopeValuesTests {
    @Test func scopesWithoutColumnsOfTheirOwn() throws {
        try withRecordedDatabase("SELECT 1") { (db: Database, _: SQLRecorder) throws in
            let adapter = ScopeAdapter(["outer": ScopeAdapter(base: EmptyRowAdapter(), scopes: ["inner": SuffixRowAdapter(fromIndex: 1)])])
            let row = try #require(try Row.fetchOne(db, sql: "SELECT NULL, 2", adapter: adapter))
            let outer = try #require(row.scopes["outer"])
            #expect(outer.count == 0)
            #expect(outer.containsNonNullValue)
            let nulls = try #require(try Row.fetchOne(db, sql: "SELECT NULL, NULL", adapter: adapter))
            #expect(nulls.scopes["outer"]?.containsNonNullValue == false)
        }
    }

    @Test func prefetchedRowsAreNotNil() throws {
        let schema = """
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT);
            INSERT INTO author VALUES (1, 'Ann'); INSERT INTO book VALUES (1, 1, 'Dune');
            """
        try withRecordedDatabase(schema) { (db: Database, _: SQLRecorder) throws in
            let authors = try AuthorWithBooks.fetchAll(db, Author.including(all: Author.books))
            #expect(authors.first?.books?.map(\.title) == ["Dune"])
        }
    }
}

private struct Note: Decodable, FetchableRecord {
    var id: Int64
    var text: String
}

@Suite("Records decoded from the row's own columns")
struct OwnColumnsDecodingTests {
    @Test func onlyOnePropertyDecodesFromTheRowsOwnColumns() throws {
        // REC-5: as GRDB, a second such property is a missing key, not a copy.
        struct Pair: Decodable, FetchableRecord {
            var left: Note
            var right: Note
        }
        struct Wrapper: Decodable, FetchableRecord {
            var note: Note
        }
        try withRecordedDatabase("CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT); INSERT INTO note VALUES (1, 'a'), (2, 'b')") { (db: Database, _: SQLRecorder) throws in
            #expect(try Wrapper.fetchAll(db, sql: "SELECT * FROM note ORDER BY id").map(\.note.text) == ["a", "b"])
            #expect {
                _ = try Pair.fetchAll(db, sql: "SELECT * FROM note ORDER BY id")
            } throws: { error in
                guard case DecodingError.keyNotFound(let key, _) = error else { return false }
                return key.stringValue == "right"
            }
            #expect(throws: DecodingError.self) { _ = try Pair.fetchOne(db, sql: "SELECT * FROM note") }
        }
    }
}
