// A GRDB 7 program of the query interface, as its users write it (record columns in closures,
// typed aliases, RETURNING batches, type-erased requests), with only `import GRDB` changed.
import Foundation
import GRDBCipher
import Testing

private struct Author: Codable, Identifiable, Hashable, FetchableRecord, PersistableRecord {
    var id: Int64
    var name: String
    var country: String?

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let country = Column(CodingKeys.country)
    }
}

private struct Novel: Codable, Identifiable, Hashable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var authorId: Int64
    var title: String
    var year: Int

    enum Columns {
        static let authorId = Column(CodingKeys.authorId)
        static let title = Column(CodingKeys.title)
        static let year = Column(CodingKeys.year)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

private func recentNovels(since year: Int, sortedByTitle: Bool) -> AnyFetchRequest<Novel> {
    let request = Novel.filter { $0.year >= year }
    if sortedByTitle {
        return AnyFetchRequest(request.order { $0.title })
    }
    return AnyFetchRequest(request.order { [$0.year.desc, $0.title] })
}

@Suite("GRDB 7 source compatibility: query interface")
struct GRDBCompatibilityQueryInterfaceTests {
    @Test func recordColumnsProgram() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "author") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("country", .text)
            }
            try db.create(table: "novel") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("author").notNull()
                t.column("title", .text).notNull()
                t.column("year", .integer).notNull()
            }
            try Author(id: 1, name: "Octavia Butler", country: "US").insert(db)
            try Author(id: 2, name: "Stanisław Lem", country: "PL").insert(db)
            for (authorId, title, year) in [(1, "Kindred", 1979), (1, "Dawn", 1987), (2, "Solaris", 1961), (2, "Fiasco", 1986)] {
                var novel = Novel(id: nil, authorId: Int64(authorId), title: title, year: year)
                try novel.insert(db)
            }
        }

        try dbQueue.read { db in
            let titles = try Novel
                .filter { $0.year > 1970 }
                .order { $0.year }
                .select({ $0.title }, as: String.self)
                .fetchAll(db)
            #expect(titles == ["Kindred", "Fiasco", "Dawn"])

            let ids: [Int64] = try Author.order { $0.name.desc }.selectID().fetchAll(db)
            #expect(ids == [2, 1])

            // Typed aliases: novels by Polish authors.
            let author = TableAlias<Author>()
            let polish = Author.aliased(author).filter(author.country == "PL").select(author.id)
            let polishNovels = try Novel.filter { polish.contains($0.authorId) }.order { $0.title }.fetchAll(db)
            #expect(polishNovels.map(\.title) == ["Fiasco", "Solaris"])

            let latest = try recentNovels(since: 1980, sortedByTitle: false).fetchAll(db)
            #expect(latest.map(\.title) == ["Dawn", "Fiasco"])
            #expect(try recentNovels(since: 1980, sortedByTitle: true).fetchCount(db) == 2)

            let count = try Novel.all()
                .filterWhenConnected { db in
                    try db.columns(in: "novel").contains { $0.name == "year" } ? Novel.Columns.year > 1980 : Novel.Columns.year > 0
                }
                .fetchCount(db)
            #expect(count == 2)
        }

        try dbQueue.write { db in
            let renamed = try Novel.filter { $0.title == "Dawn" }.updateAndFetchAll(db) { [$0.title.set(to: "Dawn (Xenogenesis)")] }
            #expect(renamed.map(\.title) == ["Dawn (Xenogenesis)"])

            let statement = try Novel.filter { $0.year < 1970 }.deleteAndFetchStatement(db) { [$0.title] }
            #expect(try String.fetchSet(statement) == ["Solaris"])

            let deletedIDs = try Novel.filter { $0.authorId == 2 }.deleteAndFetchIds(db)
            #expect(deletedIDs.count == 1)

            try Novel.updateAll(db) { $0.year += 1 }
            let years = try Int.fetchAll(db, Novel.select { $0.year }.order { $0.year })
            #expect(years == [1980, 1988])

            var novel = Novel(id: nil, authorId: 1, title: "Fledgling", year: 2005)
            let insertedYear = try novel.insertAndFetch(db) { statement in
                try Int.fetchOne(statement)
            } select: {
                [$0.year]
            }
            #expect(insertedYear == 2005)
        }
    }
}
