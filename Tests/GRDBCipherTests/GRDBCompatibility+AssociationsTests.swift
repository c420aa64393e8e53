// A GRDB 7 program that uses associations, as a GRDB user writes it, with only `import GRDB`
// changed to `import GRDBCipher` (and no @testable import): it must compile and behave the same.
import Foundation
import GRDBCipher
import Testing

private struct Author: Codable, Identifiable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var name: String
    var countryCode: String?

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let countryCode = Column(CodingKeys.countryCode)
    }

    static let books = hasMany(Book.self)
    static let country = belongsTo(Nation.self)

    var books: QueryInterfaceRequest<Book> {
        request(for: Author.books)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

private struct Book: Codable, Identifiable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var authorId: Int64
    var title: String
    var year: Int

    enum Columns {
        static let authorId = Column(CodingKeys.authorId)
        static let title = Column(CodingKeys.title)
        static let year = Column(CodingKeys.year)
    }

    static let author = belongsTo(Author.self)
    static let country = hasOne(Nation.self, through: author, using: Author.country)

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

private struct Nation: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "country"
    var code: String
    var name: String
    static let authors = hasMany(Author.self)
    static let books = hasMany(Book.self, through: authors, using: Author.books)
}

private struct BookInfo: Decodable, FetchableRecord {
    var book: Book
    var author: Author
    var country: Nation?
}

private struct AuthorInfo: Decodable, FetchableRecord {
    var author: Author
    var books: [Book]
}

private struct AuthorStats: Decodable, FetchableRecord {
    var author: Author
    var bookCount: Int
    var maxBookYear: Int?
}

/// A request extension that works on records and associations alike.
extension DerivableRequest<Book> {
    fileprivate func publishedAfter(_ year: Int) -> Self {
        filter { $0.year > year }
    }
}

private func makeLibrary() throws -> DatabaseQueue {
    let dbQueue = try DatabaseQueue()
    try dbQueue.write { db in
        try db.create(table: "country") { t in
            t.primaryKey("code", .text)
            t.column("name", .text).notNull()
        }
        try db.create(table: "author") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.belongsTo("country")
        }
        try db.create(table: "book") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("author", onDelete: .cascade).notNull()
            t.column("title", .text).notNull()
            t.column("year", .integer).notNull()
        }
        try Nation(code: "AR", name: "Argentina").insert(db)
        var borges = Author(name: "Borges", countryCode: "AR")
        try borges.insert(db)
        var leGuin = Author(name: "Le Guin", countryCode: nil)
        try leGuin.insert(db)
        for (title, year) in [("Ficciones", 1944), ("El Aleph", 1949)] {
            var book = Book(authorId: borges.id!, title: title, year: year)
            try book.insert(db)
        }
        var earthsea = Book(authorId: leGuin.id!, title: "A Wizard of Earthsea", year: 1968)
        try earthsea.insert(db)
    }
    return dbQueue
}

@Suite("GRDB 7 source compatibility: associations")
struct GRDBCompatibilityAssociationsTests {
    @Test func joinedAndPrefetchedGraphs() throws {
        let dbQueue = try makeLibrary()
        try dbQueue.read { db in
            let bookInfos = try Book
                .including(required: Book.author)
                .including(optional: Book.country)
                .order(\.year)
                .asRequest(of: BookInfo.self)
                .fetchAll(db)
            #expect(bookInfos.map(\.author.name) == ["Borges", "Borges", "Le Guin"])
            #expect(bookInfos.map(\.country?.name) == ["Argentina", "Argentina", nil])

            let authorInfos: [AuthorInfo] = try AuthorInfo.fetchAll(db, Author
                .including(all: Author.books.publishedAfter(1945).order(\.title))
                .orderByPrimaryKey())
            #expect(authorInfos.map { $0.books.map(\.title) } == [["El Aleph"], ["A Wizard of Earthsea"]])

            let borges = try Author.filter { $0.name == "Borges" }.fetchOne(db)!
            #expect(try borges.books.fetchCount(db) == 2)
            #expect(try Book.joining(required: Book.author.filter { $0.name == "Le Guin" }).fetchAll(db).map(\.title) == ["A Wizard of Earthsea"])
            let countryRow = try Row.fetchOne(db, Nation.including(all: Nation.books))!
            #expect(countryRow.prefetchedRows["books"]?.count == 2)
        }
    }

    @Test func aggregatesAndRows() throws {
        let dbQueue = try makeLibrary()
        try dbQueue.read { db in
            let stats = try Author
                .annotated(with: Author.books.count, Author.books.max(\.year))
                .having(Author.books.isEmpty == false)
                .orderByPrimaryKey()
                .asRequest(of: AuthorStats.self)
                .fetchAll(db)
            #expect(stats.map(\.bookCount) == [2, 1])
            #expect(stats.map(\.maxBookYear) == [1949, 1968])

            let row = try Row.fetchOne(db, Book.including(required: Book.author.select(\.name)).filter(key: 1))!
            #expect(row.scopes["author"]?["name"] == "Borges")
            let prefetched = try Row.fetchOne(db, Author.including(all: Author.books).filter(id: 1))!
            #expect(prefetched.prefetchedRows["books"]?.count == 2)
            #expect(Inflections.default.pluralize("library") == "libraries")
            #expect(Inflections.default.singularize("people") == "person")
        }
    }
}
