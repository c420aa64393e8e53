// W9 and W10 written with the library's associations: GRDBCipher in SQLCipherBenchmarks, GRDB
// 7.10 in GRDBBenchmarks (a symbolic link to this file). Records are `Codable`, as in the
// associations guide.
#if SQLCIPHER
import GRDBCipher
#else
import GRDB
#endif
import BenchmarkSupport
import Foundation

struct Author: Codable, FetchableRecord, TableRecord {
    static let books = hasMany(Book.self)
    var id: Int
    var name: String
    var country: String
}

struct Book: Codable, FetchableRecord, TableRecord {
    static let author = belongsTo(Author.self)
    var id: Int
    var authorId: Int
    var title: String
    var year: Int
}

/// W10-row: the author of W10 with an `init(row:)` written by hand, as W3's records.
struct PlainAuthor: FetchableRecord, TableRecord {
    static let databaseTableName = "author"
    var id: Int
    var name: String
    var country: String

    init(row: Row) {
        id = row["id"]
        name = row["name"]
        country = row["country"]
    }
}

/// W10-row: the book of W10 with an `init(row:)` written by hand.
struct PlainBook: FetchableRecord, TableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(PlainAuthor.self)
    var id: Int
    var authorId: Int
    var title: String
    var year: Int

    init(row: Row) {
        id = row["id"]
        authorId = row["authorId"]
        title = row["title"]
        year = row["year"]
    }
}

/// W10-row: a book and its author, from the joined row and its `author` scope.
struct PlainBookInfo: FetchableRecord {
    var book: PlainBook
    var author: PlainAuthor

    init(row: Row) throws {
        book = PlainBook(row: row)
        author = try row.decode(PlainAuthor.self, forKey: "author")
    }
}

/// W9: an author and her books.
struct AuthorInfo: Decodable, FetchableRecord {
    var author: Author
    var books: [Book]
}

/// W10: a book and its author.
struct BookInfo: Decodable, FetchableRecord {
    var book: Book
    var author: Author
}

extension Library {
    /// W9: `Author.including(all: Author.books)` into `AuthorInfo`.
    static func authorsWithBooks(_ dbQueue: DatabaseQueue) throws -> Double {
        var infos: [AuthorInfo] = []
        let request = Author.including(all: Author.books).asRequest(of: AuthorInfo.self)
        let time = try measure {
            infos = try dbQueue.read { db in try request.fetchAll(db) }
        }
        var checksum = WorkloadData.AssociationChecksum()
        for info in infos {
            checksum.count += 1
            for book in info.books {
                try verify(book.authorId == info.author.id, "\(libraryName) W9: book \(book.id) under author \(info.author.id)")
                checksum.related += 1
                checksum.add(authorId: info.author.id, name: info.author.name, country: info.author.country,
                             bookId: book.id, title: book.title, year: book.year)
            }
        }
        try verify(checksum == WorkloadData.authorsWithBooksExpected, "\(libraryName) W9: \(checksum)")
        return time
    }

    /// W10: `Book.including(required: Book.author)` into `BookInfo`.
    static func booksWithAuthor(_ dbQueue: DatabaseQueue) throws -> Double {
        var infos: [BookInfo] = []
        let request = Book.including(required: Book.author).asRequest(of: BookInfo.self)
        let time = try measure {
            infos = try dbQueue.read { db in try request.fetchAll(db) }
        }
        try verifyBooksWithAuthor(infos.map { ($0.book.id, $0.book.authorId, $0.book.title, $0.book.year, $0.author.id, $0.author.name, $0.author.country) }, "\(libraryName) W10")
        return time
    }

    /// W10-row: `PlainBook.including(required: PlainBook.author)` into `PlainBookInfo`, whose
    /// records decode their rows by hand.
    static func booksWithAuthorByRow(_ dbQueue: DatabaseQueue) throws -> Double {
        var infos: [PlainBookInfo] = []
        let request = PlainBook.including(required: PlainBook.author).asRequest(of: PlainBookInfo.self)
        let time = try measure {
            infos = try dbQueue.read { db in try request.fetchAll(db) }
        }
        try verifyBooksWithAuthor(infos.map { ($0.book.id, $0.book.authorId, $0.book.title, $0.book.year, $0.author.id, $0.author.name, $0.author.country) }, "\(libraryName) W10-row")
        return time
    }
}
