// W9 and W10 written with SQLite's C API: the queries an application would write by hand, the
// rows decoded by hand into Swift structs, the books grouped by author with a dictionary.
#if SQLCIPHER
import CRawSQLCipher
#else
import CRawSQLite
#endif
import BenchmarkSupport
import Foundation

/// The structs raw C decodes into: the same fields as the library's records.
struct RawAuthor {
    var id: Int
    var name: String
    var country: String
}

struct RawBook {
    var id: Int
    var authorId: Int
    var title: String
    var year: Int
}

struct RawAuthorInfo {
    var author: RawAuthor
    var books: [RawBook]
}

struct RawBookInfo {
    var book: RawBook
    var author: RawAuthor
}

extension RawC {
    /// Creates and fills the author and book tables (not measured: setup).
    static func createAuthorsAndBooks(path: String, key: RawKey) throws {
        let db = try RawConnection(path: path, key: key)
        try db.execute("BEGIN; \(WorkloadData.associationCreateSQL)")
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let authorStatement = try db.prepare(WorkloadData.authorInsertSQL)
        defer { sqlite3_finalize(authorStatement) }
        for id in 1...WorkloadData.authorCount {
            sqlite3_bind_int64(authorStatement, 1, Int64(id))
            sqlite3_bind_text(authorStatement, 2, WorkloadData.authorName(id), -1, transient)
            sqlite3_bind_text(authorStatement, 3, WorkloadData.authorCountry(id), -1, transient)
            guard sqlite3_step(authorStatement) == SQLITE_DONE else { throw db.error("sqlite3_step") }
            sqlite3_reset(authorStatement)
        }
        let bookStatement = try db.prepare(WorkloadData.bookInsertSQL)
        defer { sqlite3_finalize(bookStatement) }
        for id in 1...WorkloadData.bookCount {
            sqlite3_bind_int64(bookStatement, 1, Int64(id))
            sqlite3_bind_int64(bookStatement, 2, Int64(WorkloadData.bookAuthorId(id)))
            sqlite3_bind_text(bookStatement, 3, WorkloadData.bookTitle(id), -1, transient)
            sqlite3_bind_int64(bookStatement, 4, Int64(WorkloadData.bookYear(id)))
            guard sqlite3_step(bookStatement) == SQLITE_DONE else { throw db.error("sqlite3_step") }
            sqlite3_reset(bookStatement)
        }
        try db.execute("COMMIT")
    }

    /// The text of column `index` of the current row.
    @inline(__always)
    private static func text(_ statement: OpaquePointer, _ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    @inline(__always)
    private static func author(_ statement: OpaquePointer, from column: Int32) -> RawAuthor {
        RawAuthor(
            id: Int(sqlite3_column_int64(statement, column)),
            name: text(statement, column + 1),
            country: text(statement, column + 2))
    }

    @inline(__always)
    private static func book(_ statement: OpaquePointer, from column: Int32) -> RawBook {
        RawBook(
            id: Int(sqlite3_column_int64(statement, column)),
            authorId: Int(sqlite3_column_int64(statement, column + 1)),
            title: text(statement, column + 2),
            year: Int(sqlite3_column_int64(statement, column + 3)))
    }

    /// W9: the authors (one query), then their books (one `IN` query), grouped by author.
    static func authorsWithBooks(_ db: RawConnection) throws -> Double {
        var infos: [RawAuthorInfo] = []
        let time = try measure {
            let authorStatement = try db.prepare("SELECT id, name, country FROM author")
            var authors: [RawAuthorInfo] = []
            var indexes: [Int: Int] = [:]
            while sqlite3_step(authorStatement) == SQLITE_ROW {
                let author = author(authorStatement, from: 0)
                indexes[author.id] = authors.count
                authors.append(RawAuthorInfo(author: author, books: []))
            }
            sqlite3_finalize(authorStatement)
            let bookStatement = try db.prepare("SELECT id, authorId, title, year FROM book WHERE authorId IN (SELECT id FROM author)")
            while sqlite3_step(bookStatement) == SQLITE_ROW {
                let book = book(bookStatement, from: 0)
                guard let index = indexes[book.authorId] else { throw VerificationFailure("raw W9: book \(book.id) without author") }
                authors[index].books.append(book)
            }
            sqlite3_finalize(bookStatement)
            infos = authors
        }
        var checksum = WorkloadData.AssociationChecksum()
        for info in infos {
            checksum.count += 1
            for book in info.books {
                try verify(book.authorId == info.author.id, "raw W9: book \(book.id) under author \(info.author.id)")
                checksum.related += 1
                checksum.add(authorId: info.author.id, name: info.author.name, country: info.author.country,
                             bookId: book.id, title: book.title, year: book.year)
            }
        }
        try verify(checksum == WorkloadData.authorsWithBooksExpected, "raw W9: \(checksum)")
        return time
    }

    /// W10: the books with their author, one JOIN query.
    static func booksWithAuthor(_ db: RawConnection) throws -> Double {
        var infos: [RawBookInfo] = []
        let time = try measure {
            let statement = try db.prepare("""
                SELECT book.id, book.authorId, book.title, book.year, author.id, author.name, author.country \
                FROM book JOIN author ON author.id = book.authorId
                """)
            var books: [RawBookInfo] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                books.append(RawBookInfo(book: book(statement, from: 0), author: author(statement, from: 4)))
            }
            sqlite3_finalize(statement)
            infos = books
        }
        try verifyBooksWithAuthor(infos.map { ($0.book.id, $0.book.authorId, $0.book.title, $0.book.year, $0.author.id, $0.author.name, $0.author.country) }, "raw W10")
        return time
    }
}

/// W10's verification, for both sides: every book with its own author, the checksum of all.
func verifyBooksWithAuthor(_ rows: [(bookId: Int, authorId: Int, title: String, year: Int, id: Int, name: String, country: String)], _ what: String) throws {
    var checksum = WorkloadData.AssociationChecksum()
    for row in rows {
        try verify(row.authorId == row.id, "\(what): book \(row.bookId) with author \(row.id)")
        checksum.count += 1
        checksum.related += 1
        checksum.add(authorId: row.id, name: row.name, country: row.country, bookId: row.bookId, title: row.title, year: row.year)
    }
    try verify(checksum == WorkloadData.booksWithAuthorExpected, "\(what): \(checksum)")
}
