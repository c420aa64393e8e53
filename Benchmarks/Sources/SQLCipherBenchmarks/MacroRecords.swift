// W3m, W5m and W10m: the records of W3b, W5b and W10 made by `@DatabaseRecord`
// (GRDBCipherMacros), which GRDB does not have: GRDBCipher only.
import BenchmarkSupport
import GRDBCipherMacros

/// W3m and W5m: W3b's and W5b's record.
@DatabaseRecord
struct MacroRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int64
    var sum: Int64 { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }

    init(row i: Int) {
        c0 = WorkloadData.value(i, 0); c1 = WorkloadData.value(i, 1); c2 = WorkloadData.value(i, 2)
        c3 = WorkloadData.value(i, 3); c4 = WorkloadData.value(i, 4); c5 = WorkloadData.value(i, 5)
        c6 = WorkloadData.value(i, 6); c7 = WorkloadData.value(i, 7); c8 = WorkloadData.value(i, 8)
        c9 = WorkloadData.value(i, 9)
    }
}

/// W10m: W10's author.
@DatabaseRecord
struct MacroAuthor: FetchableRecord, TableRecord {
    static let databaseTableName = "author"
    var id: Int
    var name: String
    var country: String
}

/// W10m: W10's book.
@DatabaseRecord
struct MacroBook: FetchableRecord, TableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(MacroAuthor.self)
    var id: Int
    var authorId: Int
    var title: String
    var year: Int
}

/// W10m: a book and its author.
@DatabaseRecord
struct MacroBookInfo: FetchableRecord {
    var book: MacroBook
    var author: MacroAuthor
}

extension Library {
    /// W5m: `PersistableRecord.insert` of records made by the macro.
    static func insertMacroRecords(_ dbQueue: DatabaseQueue) throws -> Double {
        try insert(dbQueue) { db in
            for i in 0..<WorkloadData.insertRowCount {
                try MacroRecord(row: i).insert(db)
            }
        }
    }

    /// W10m: `MacroBook.including(required: MacroBook.author)` into `MacroBookInfo`.
    static func booksWithAuthorByMacro(_ dbQueue: DatabaseQueue) throws -> Double {
        var infos: [MacroBookInfo] = []
        let request = MacroBook.including(required: MacroBook.author).asRequest(of: MacroBookInfo.self)
        let time = try measure {
            infos = try dbQueue.read { db in try request.fetchAll(db) }
        }
        try verifyBooksWithAuthor(infos.map { ($0.book.id, $0.book.authorId, $0.book.title, $0.book.year, $0.author.id, $0.author.name, $0.author.country) }, "\(libraryName) W10m")
        return time
    }
}
