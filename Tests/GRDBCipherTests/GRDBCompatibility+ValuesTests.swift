// GRDB 7 code for errors, values, expressions and rows, written as a GRDB user writes it, with
// only `import GRDB` changed to `import GRDBCipher` (no @testable import).
import Foundation
import GRDBCipher
import Testing

private struct Book: Codable, FetchableRecord, PersistableRecord, TableRecord {
    var id: Int64
    var title: String
    var pages: Int
    var isAvailable: Bool
    enum Columns {
        static let id = Column(CodingKeys.id)
        static let title = Column(CodingKeys.title)
        static let pages = Column(CodingKeys.pages)
        static let isAvailable = Column(CodingKeys.isAvailable)
    }
}

private struct Author: Decodable, FetchableRecord {
    var name: String
}

private final class Shelf: Record {
    var id: Int64
    var label: String
    override class var databaseTableName: String { "shelf" }
    init(id: Int64, label: String) {
        self.id = id
        self.label = label
        super.init()
    }
    required init(row: Row) throws {
        id = row["id"]
        label = row["label"]
        try super.init(row: row)
    }
    override func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["label"] = label
    }
}

private func makeLibrary() throws -> DatabaseQueue {
    let dbQueue = try DatabaseQueue()
    try dbQueue.write { db in
        try db.execute(sql: """
            CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, pages INTEGER, isAvailable BOOLEAN);
            CREATE TABLE shelf (id INTEGER PRIMARY KEY, label TEXT);
            INSERT INTO book VALUES (1, 'Dune', 412, 1), (2, 'Emma', 474, 0), (3, 'Ubik', 202, 1);
            """)
    }
    return dbQueue
}

@Suite("GRDB 7 source compatibility: errors, values, expressions, rows")
struct GRDBCompatibilityValuesTests {
    @Test func errorsBridgeAndMatch() throws {
        let dbQueue = try makeLibrary()
        do {
            try dbQueue.write { db in
                try Book(id: 9, title: "Dune", pages: 1, isAvailable: true).insert(db)
            }
            Issue.record("expected a constraint error")
        } catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE {
            // expected
        }
        do {
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO book (id, title) VALUES (1, 'Other')") }
        } catch let error as DatabaseError {
            #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY)
            let nsError = error as NSError
            #expect(nsError.domain == DatabaseError.errorDomain)
            #expect(nsError.code == error.errorCode)
            #expect(error.errorUserInfo[NSLocalizedDescriptionKey] as? String == error.description)
        }
        #expect(ResultCode.SQLITE_IOERR_SHORT_READ.primaryResultCode == .SQLITE_IOERR)
    }

    @Test func valuesConvert() throws {
        let dbQueue = try makeLibrary()
        try dbQueue.read { db in
            let pages: Int64 = 412
            #expect(pages.databaseValue == 412.databaseValue)
            #expect(DatabaseValue(value: 3)?.storage.value as? Int64 == 3)
            let day = try Double.fetchOne(db, sql: "SELECT julianday('2000-01-01')")!
            #expect(Date(julianDay: day) == Date(timeIntervalSince1970: 946_684_800))
            let dates = try Date.fetchAll(db, sql: "SELECT '2000-01-01'")
            #expect(dates == [Date(timeIntervalSince1970: 946_684_800)])
            let components = try DatabaseDateComponents.fetchOne(db, sql: "SELECT '12:30'")!
            let json = try JSONEncoder().encode(components)
            #expect(try JSONDecoder().decode(DatabaseDateComponents.self, from: json) == components)
            let titles = try String.fetchCursor(db, sql: "SELECT title FROM book ORDER BY id")
            #expect(try Array(titles.dropFirst()) == ["Emma", "Ubik"])
        }
    }

    @Test func expressionsRender() throws {
        let dbQueue = try makeLibrary()
        try dbQueue.read { db in
            let available = try Book.filter(Book.Columns.isAvailable == true).order(Book.Columns.id).fetchAll(db)
            #expect(available.map(\.title) == ["Dune", "Ubik"])
            let short = try Book.filter((200...300).contains(Book.Columns.pages)).fetchAll(db)
            #expect(short.map(\.title) == ["Ubik"])
            let ratio = try Book
                .select(cast(Book.Columns.pages, as: .real) / 2, as: Double.self)
                .filter(key: 3)
                .fetchOne(db)
            #expect(ratio == 101)
            let total = try Book.select(sum(Book.Columns.pages, orderBy: Book.Columns.title), as: Int.self).fetchOne(db)
            #expect(total == 1088)
            let widest = try Book.select(max(Book.Columns.pages, 450), as: Int.self).order(Book.Columns.id).fetchAll(db)
            #expect(widest == [450, 474, 450])
            let counted = try Book.select(count(Book.Columns.title), as: Int.self).fetchOne(db)
            #expect(counted == 3)
            let sum = [Book.Columns.pages, Book.Columns.id].joined(operator: .add)
            #expect(try Book.select(sum, as: Int.self).filter(key: 1).fetchOne(db) == 413)

            let ids = [1, 3]
            let titles: [String] = try SQLRequest("SELECT \(Book.Columns.title) FROM book WHERE id IN \(ids) ORDER BY \(Book.Columns.id.desc)").fetchAll(db)
            #expect(titles == ["Ubik", "Dune"])
            let prefix: Substring = "Du"
            let found: String? = try SQLRequest("SELECT title FROM book WHERE title LIKE \(prefix + "%")").fetchOne(db)
            #expect(found == "Dune")
            let cte = CommonTableExpression(named: "thick", sql: "SELECT * FROM book WHERE pages > 400")
            let thick: [String] = try SQLRequest("WITH \(definitionFor: cte) SELECT title FROM \(cte) ORDER BY title").fetchAll(db)
            #expect(thick == ["Dune", "Emma"])

            let shout = DatabaseFunction("shout", argumentCount: 1, pure: true) { values in
                String.fromDatabaseValue(values[0])?.uppercased()
            }
            db.add(function: shout)
            #expect(try Book.select(shout(Book.Columns.title), as: String.self).filter(key: 1).fetchOne(db) == "DUNE")
            #expect(shout.id == DatabaseFunction("SHOUT", argumentCount: 1) { _ in nil }.id)
        }
    }

    @Test func rowsAndRecords() throws {
        let dbQueue = try makeLibrary()
        try dbQueue.write { db in
            let adapter = ScopeAdapter(["author": SuffixRowAdapter(fromIndex: 1)])
            let row = try Row.fetchOne(db, sql: "SELECT title, 'Herbert' AS name FROM book WHERE id = 1", adapter: adapter)!
            let author = try row.decode(Author.self, forKey: "author")
            #expect(author.name == "Herbert")
            #expect(try row.decodeIfPresent(Author.self, forKey: "publisher") == nil)
            #expect(row.coalesce([Column("subtitle"), Column("title")]) as String? == "Dune")
            #expect(row.dataNoCopy(named: "title") == Data("Dune".utf8))

            let shelf = Shelf(id: 1, label: "fiction")
            try shelf.insert(db)
            shelf.label = "novels"
            try shelf.updateChanges(db)
            #expect(try String.fetchOne(db, sql: "SELECT label FROM shelf") == "novels")
            let container = try PersistenceContainer(shelf)
            #expect(container.map { $0.0 } == ["id", "label"])
        }
    }
}
