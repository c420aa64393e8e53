import Foundation
import Testing
@testable import GRDBCipher

// The rows of `including(all:)` are kept as values in one store that the parent rows share;
// records decode from rows that are reused when the previous record did not keep its row.
// Three writers of 150 books each: the books of a writer span several blocks of values.

private struct PSWriter: Codable, FetchableRecord, TableRecord, Hashable {
    static let databaseTableName = "writer"
    static let books = hasMany(PSBook.self)
    var id: Int64
    var name: String
}

private struct PSBook: Codable, FetchableRecord, TableRecord, Hashable {
    static let databaseTableName = "book"
    static let writer = belongsTo(PSWriter.self)
    var id: Int64
    var writerId: Int64?
    var title: String
}

/// A book that keeps its row.
private struct PSKeptBook: FetchableRecord {
    var row: Row
    var title: String

    init(row: Row) throws {
        self.row = row
        title = row["title"]
    }
}

/// A writer whose `init(row:)` reads the prefetched rows itself.
private struct PSWriterSummary: FetchableRecord {
    var name: String
    var titles: [String]
    var bookIds: [Int64]

    init(row: Row) throws {
        name = row["name"]
        let rows = row.prefetchedRows["books"] ?? []
        titles = rows.map { $0["title"] }
        bookIds = try rows.map { try PSBook(row: $0).id }
    }
}

/// Decodes the books twice from the same prefetched rows: as `Decodable` records, and as
/// records that keep their rows.
private struct PSWriterInfo: Decodable, FetchableRecord {
    var writer: PSWriter
    var books: [PSBook]
    var keptBooks: [PSKeptBook]

    enum CodingKeys: String, CodingKey { case writer, books }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        writer = try container.decode(PSWriter.self, forKey: .writer)
        books = try container.decode([PSBook].self, forKey: .books)
        let kept = try container.decode([PSKeptBookBox].self, forKey: .books)
        keptBooks = kept.map(\.book)
    }
}

/// A `Decodable` wrapper that decodes through the unkeyed container of the prefetched rows.
private struct PSKeptBookBox: Decodable, FetchableRecord {
    var book: PSKeptBook
    init(row: Row) throws { book = try PSKeptBook(row: row) }
    init(from decoder: any Decoder) throws { fatalError("decoded with init(row:)") }
}

private func withWriters(_ body: (Database) throws -> Void) throws {
    let test = try TestDatabase()
    try test.dbQueue.write { db in
        try db.execute(sql: """
            CREATE TABLE writer (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE book (id INTEGER PRIMARY KEY, writerId INTEGER REFERENCES writer(id), title TEXT NOT NULL);
            INSERT INTO writer VALUES (1, 'Ann'), (2, 'Bo'), (3, 'Cy'), (4, 'Di');
            """)
        // Books of writers 1, 2 and 3 interleaved (id 1: writer 1, id 2: writer 2…), and two
        // books without writer.
        for id in 1...450 {
            try db.execute(sql: "INSERT INTO book VALUES (?, ?, ?)", arguments: [id, (id - 1) % 3 + 1, "Book \(id)"])
        }
        try db.execute(sql: "INSERT INTO book VALUES (451, NULL, 'Orphan'), (452, NULL, 'Stray')")
        try body(db)
    }
}

/// The ids of the books of a writer (Di, 4, has none).
private func expectedIds(_ writerId: Int64) -> [Int64] {
    writerId > 3 ? [] : Array(stride(from: writerId, through: 450, by: 3))
}

@Suite("Associations: the store of prefetched rows")
struct PrefetchedRowStoreTests {
    @Test func decodableRecordsDecodeFromTheStore() throws {
        try withWriters { db in
            struct Info: Decodable, FetchableRecord {
                var writer: PSWriter
                var books: [PSBook]
            }
            let infos = try PSWriter.including(all: PSWriter.books.order(Column("id"))).order(Column("id"))
                .asRequest(of: Info.self).fetchAll(db)
            #expect(infos.map(\.writer.name) == ["Ann", "Bo", "Cy", "Di"])
            for info in infos {
                #expect(info.books.map(\.id) == expectedIds(info.writer.id))
                #expect(info.books.allSatisfy { $0.writerId == info.writer.id && $0.title == "Book \($0.id)" })
            }
        }
    }

    @Test func recordsThatKeepTheirRowsKeepTheirOwnRows() throws {
        try withWriters { db in
            let infos = try PSWriter.including(all: PSWriter.books.order(Column("id"))).order(Column("id"))
                .asRequest(of: PSWriterInfo.self).fetchAll(db)
            for info in infos {
                #expect(info.keptBooks.map(\.title) == info.books.map(\.title))
                // The rows the records kept did not change when the next records decoded.
                #expect(info.keptBooks.map { $0.row["id"] as Int64 } == info.books.map(\.id))
                #expect(info.keptBooks.map { $0.row["title"] as String } == info.books.map(\.title))
                #expect(Set(info.keptBooks.map { ObjectIdentifier($0.row) }).count == info.keptBooks.count)
            }
            // Records kept in an array of `FetchableRecord`s decoded straight from the rows.
            struct KeptInfo: Decodable, FetchableRecord {
                var books: [PSKeptBookBox]
            }
            let kept = try PSWriter.including(all: PSWriter.books.order(Column("id"))).order(Column("id"))
                .asRequest(of: KeptInfo.self).fetchAll(db)
            #expect(kept.map { $0.books.map { $0.book.row["id"] as Int64 } } == [1, 2, 3, 4].map { expectedIds($0) })
        }
    }

    @Test func recordsReadingPrefetchedRowsInTheirInitializerInTheSameFetch() throws {
        try withWriters { db in
            let request = PSWriter.including(all: PSWriter.books.order(Column("id").desc)).order(Column("id"))
            let summaries = try request.asRequest(of: PSWriterSummary.self).fetchAll(db)
            #expect(summaries.map(\.name) == ["Ann", "Bo", "Cy", "Di"])
            #expect(summaries.map(\.bookIds) == [1, 2, 3, 4].map { expectedIds(Int64($0)).reversed() })
            #expect(summaries[0].titles.first == "Book 448")

            // A `Decodable` record and records reading the prefetched rows, from the same rows.
            struct Mixed: Decodable, FetchableRecord {
                var writer: PSWriter
                var books: [PSBook]
                var summary: PSWriterSummaryBox
                enum CodingKeys: String, CodingKey { case writer, books }
                init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    writer = try container.decode(PSWriter.self, forKey: .writer)
                    books = try container.decode([PSBook].self, forKey: .books)
                    summary = try decoder.singleValueContainer().decode(PSWriterSummaryBox.self)
                }
            }
            let mixed = try request.asRequest(of: Mixed.self).fetchAll(db)
            #expect(mixed.map { $0.books.map(\.id) } == summaries.map(\.bookIds))
            #expect(mixed.map(\.summary.summary.bookIds) == summaries.map(\.bookIds))
        }
    }

    @Test func rowsKeptAfterTheFetchReadTheirPrefetchedRows() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE writer (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE book (id INTEGER PRIMARY KEY, writerId INTEGER REFERENCES writer(id), title TEXT NOT NULL);
                INSERT INTO writer VALUES (1, 'Ann'), (2, 'Bo');
                """)
            for id in 1...300 {
                try db.execute(sql: "INSERT INTO book VALUES (?, ?, ?)", arguments: [id, (id - 1) % 2 + 1, "Book \(id)"])
            }
        }
        let request = PSWriter.including(all: PSWriter.books.order(Column("id"))).order(Column("id"))
        let rows = try test.dbQueue.read { db in try Row.fetchAll(db, request) }
        let kept = rows[1]
        let bookRows = try #require(kept.prefetchedRows["books"])
        #expect(bookRows.map { $0["id"] as Int64 } == Array(stride(from: 2, through: 300, by: 2)))
        #expect(bookRows.map { $0["title"] as String } == stride(from: 2, through: 300, by: 2).map { "Book \($0)" })
        #expect(bookRows.map { $0["grdb_writerId"] as Int64 }.allSatisfy { $0 == 2 })
        // The same rows, asked twice; and decoded from the kept row.
        #expect(kept.prefetchedRows["books"] == bookRows)
        let books: [PSBook] = try kept.decode(forKey: "books")
        #expect(books.map(\.id) == Array(stride(from: 2, through: 300, by: 2)))
        struct Info: Decodable, FetchableRecord {
            var writer: PSWriter
            var books: [PSBook]
        }
        let info = try Info(row: kept)
        #expect(info.writer.name == "Bo")
        #expect(info.books == books)
        // Rows of two fetches are equal, with their prefetched rows.
        let again = try test.dbQueue.read { db in try Row.fetchAll(db, request) }
        #expect(again == rows)
        #expect(again[0] != again[1])
        #expect(kept.copy() == kept)
    }

    @Test func recordsThatDecodeTheirKeysInVaryingOrder() throws {
        try withWriters { db in
            // Odd books decode their title before their writer, even books after: the keys
            // remembered from the previous record do not match, and are looked up again.
            struct Wobbly: Decodable, FetchableRecord, Equatable {
                var id: Int64
                var title: String
                var writerId: Int64?
                enum CodingKeys: String, CodingKey { case id, title, writerId }
                init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    id = try container.decode(Int64.self, forKey: .id)
                    if id % 2 == 1 {
                        title = try container.decode(String.self, forKey: .title)
                        writerId = try container.decodeIfPresent(Int64.self, forKey: .writerId)
                    } else {
                        writerId = try container.decodeIfPresent(Int64.self, forKey: .writerId)
                        title = try container.decode(String.self, forKey: .title)
                    }
                }
            }
            struct Info: Decodable, FetchableRecord {
                var writer: PSWriter
                var books: [Wobbly]
            }
            let infos = try PSWriter.including(all: PSWriter.books.order(Column("id"))).order(Column("id"))
                .asRequest(of: Info.self).fetchAll(db)
            for info in infos {
                #expect(info.books.map(\.id) == expectedIds(info.writer.id))
                #expect(info.books.allSatisfy { $0.title == "Book \($0.id)" && $0.writerId == info.writer.id })
            }
            let all = try Wobbly.fetchAll(db, sql: "SELECT * FROM book ORDER BY id")
            #expect(all.count == 452)
            #expect(all.allSatisfy { $0.id > 450 || ($0.title == "Book \($0.id)" && $0.writerId == ($0.id - 1) % 3 + 1) })
            #expect(all.suffix(2).map(\.writerId) == [nil, nil])
            #expect(try Row.fetchAll(db, sql: "SELECT * FROM book ORDER BY id").map { try Wobbly(row: $0) } == all)
        }
    }

    @Test func keysWithoutRowsAndRowsWithoutParent() throws {
        try withWriters { db in
            // Di has no book; the books without writer belong to no one.
            let rows = try Row.fetchAll(db, PSWriter.including(all: PSWriter.books).filter([1, 4].contains(Column("id"))).order(Column("id")))
            #expect(rows.map { $0.prefetchedRows["books"]?.count } == [150, 0])
            #expect(rows[1].prefetchedRows["books"] == [])
            #expect(rows[1].prefetchedRows.keys == ["books"])
            #expect(rows[0].prefetchedRows["books"]?.contains { ($0["title"] as String) == "Orphan" } == false)
        }
    }

    @Test func adaptedPrefetchedRows() throws {
        try withWriters { db in
            // The prefetched rows have a scope: they are kept as rows.
            struct BookInfo: Decodable, FetchableRecord, Equatable {
                var id: Int64
                var title: String
                var writer: PSWriter
            }
            struct Info: Decodable, FetchableRecord {
                var writer: PSWriter
                var books: [BookInfo]
            }
            let request = PSWriter
                .including(all: PSWriter.books.including(required: PSBook.writer).order(Column("id")))
                .order(Column("id"))
            let infos = try request.asRequest(of: Info.self).fetchAll(db)
            #expect(infos.map { $0.books.map(\.id) } == [1, 2, 3, 4].map { expectedIds($0) })
            #expect(infos.allSatisfy { info in info.books.allSatisfy { $0.writer == info.writer } })
            let rows = try Row.fetchAll(db, request)
            #expect(rows[0].prefetchedRows["books"]?.first?.scopes["writer"]?["name"] as String? == "Ann")
        }
    }
}

/// A `Decodable` wrapper of ``PSWriterSummary``, decoded from the whole row.
private struct PSWriterSummaryBox: Decodable, FetchableRecord {
    var summary: PSWriterSummary
    init(row: Row) throws { summary = try PSWriterSummary(row: row) }
    init(from decoder: any Decoder) throws { fatalError("decoded with init(row:)") }
}
