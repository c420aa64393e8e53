import Foundation
import Testing
@testable import GRDBCipher

// Books have an author and awards; authors have a country and awards of their own. Used for
// the refinements of joined associations: prefetches nested in joined scopes, merged joins,
// and required associations chained behind optional ones.

private struct ARCountry: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "country"
    static let authors = hasMany(ARAuthor.self)
    var code: String
    var name: String
}

private struct ARAuthor: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "author"
    static let country = belongsTo(ARCountry.self)
    static let books = hasMany(ARBook.self)
    static let prizes = hasMany(ARPrize.self)
    var id: Int64
    var name: String
    var countryCode: String?
}

private struct ARBook: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "book"
    static let author = belongsTo(ARAuthor.self)
    static let country = hasOne(ARCountry.self, through: author, using: ARAuthor.country)
    var id: Int64
    var authorId: Int64?
    var title: String
    var year: Int
}

private struct ARPrize: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "prize"
    var id: Int64
    var authorId: Int64
    var name: String
}

private let schema = """
    CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL, countryCode TEXT REFERENCES country(code));
    CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT NOT NULL, year INTEGER NOT NULL);
    CREATE TABLE prize (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id), name TEXT NOT NULL);
    INSERT INTO country VALUES ('FR', 'France'), ('JP', 'Japan');
    INSERT INTO author VALUES (1, 'Duras', 'FR'), (2, 'Kawabata', 'JP'), (3, 'Nobody', NULL);
    INSERT INTO book VALUES
        (1, 1, 'L''Amant', 1984),
        (2, 2, 'Yukiguni', 1948),
        (3, 1, 'Moderato cantabile', 1958),
        (4, NULL, 'Anonymous', 1900),
        (5, 3, 'Nothing', 2000);
    INSERT INTO prize VALUES (1, 1, 'Goncourt'), (2, 2, 'Nobel'), (3, 1, 'Ibsen');
    """

private func withBooks(_ body: (Database, SQLRecorder) throws -> Void) throws {
    try withRecordedDatabase(schema, body)
}

private func sqlOf(_ db: Database, _ request: some FetchRequest) throws -> String {
    try request.makePreparedRequest(db, forSingleResult: false).statement.sql
}

@Suite("Associations: refinements of joined associations")
struct AssociationRefinementTests {
    @Test func includingAllInsideAnIncludedAssociation() throws {
        try withBooks { db, recorder throws in
            // Hierarchical decoding: the author's prizes are decoded with the author.
            struct AuthorInfo: Decodable, FetchableRecord {
                var author: ARAuthor
                var prizes: [ARPrize]
            }
            struct BookInfo: Decodable, FetchableRecord {
                var book: ARBook
                var author: AuthorInfo
            }
            let request = ARBook
                .including(required: ARBook.author.including(all: ARAuthor.prizes.order(Column("name"))))
                .order(Column("id"))
            let infos = try request.asRequest(of: BookInfo.self).fetchAll(db)
            #expect(recorder.dataSQL == [
                #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "book"."id""#,
                // GRDB's prefetch of a joined association: keyed on the fetched books, through
                // the join to their author.
                #"SELECT "prize".*, "author"."id" AS "grdb_id" FROM "prize" JOIN "author" ON ("author"."id" = "prize"."authorId") AND ("author"."id" IN (?, ?, ?)) ORDER BY "prize"."name""#,
            ])
            #expect(infos.map(\.book.title) == ["L'Amant", "Yukiguni", "Moderato cantabile", "Nothing"])
            #expect(infos.map(\.author.author.name) == ["Duras", "Kawabata", "Duras", "Nobody"])
            #expect(infos.map { $0.author.prizes.map(\.name) } == [["Goncourt", "Ibsen"], ["Nobel"], ["Goncourt", "Ibsen"], []])

            // Flat decoding: the prefetched rows are found in the scope.
            struct FlatBookInfo: Decodable, FetchableRecord {
                var book: ARBook
                var author: ARAuthor
                var prizes: [ARPrize]
            }
            let flat = try request.asRequest(of: FlatBookInfo.self).fetchAll(db)
            #expect(flat.map { $0.prizes.count } == [2, 1, 2, 0])

            // Rows: the scope carries the prefetched rows, found from the base row too.
            let rows = try Row.fetchAll(db, request)
            #expect(rows[0].scopes["author"]?.prefetchedRows["prizes"]?.count == 2)
            #expect(rows[1].prefetchedRows["prizes"]?.count == 1)
            #expect(rows[0].prefetchedRows.keys == ["prizes"])
            // Kept rows keep them.
            #expect(rows[0].copy().prefetchedRows["prizes"]?.count == 2)
        }
    }

    @Test func includingAllTwoJoinsDeep() throws {
        try withBooks { db, recorder throws in
            struct CountryInfo: Decodable, FetchableRecord {
                var country: ARCountry
                var authors: [ARAuthor]
            }
            struct AuthorInfo: Decodable, FetchableRecord {
                var author: ARAuthor
                var country: CountryInfo
            }
            struct BookInfo: Decodable, FetchableRecord {
                var book: ARBook
                var author: AuthorInfo
            }
            let request = ARBook
                .including(required: ARBook.author
                    .including(required: ARAuthor.country
                        .including(all: ARCountry.authors.order(Column("name")))))
                .order(Column("id"))
            recorder.reset()
            let infos = try request.asRequest(of: BookInfo.self).fetchAll(db)
            // Keyed on the fetched books, through both joins (the author table twice).
            #expect(recorder.dataSQL.last
                == #"SELECT "author1".*, "author2"."id" AS "grdb_id" FROM "author" "author1" JOIN "country" ON "country"."code" = "author1"."countryCode" JOIN "author" "author2" ON ("author2"."countryCode" = "country"."code") AND ("author2"."id" IN (?, ?)) ORDER BY "author1"."name""#)
            #expect(infos.map(\.book.id) == [1, 2, 3])
            #expect(infos.map { $0.author.country.country.code } == ["FR", "JP", "FR"])
            #expect(infos.map { $0.author.country.authors.map(\.name) } == [["Duras"], ["Kawabata"], ["Duras"]])
        }
    }

    @Test func includingAllInsideAnOptionalAssociationAndDeeper() throws {
        try withBooks { db, recorder throws in
            struct AuthorInfo: Decodable, FetchableRecord {
                var author: ARAuthor
                var country: ARCountry?
                var books: [ARBook]
            }
            struct BookInfo: Decodable, FetchableRecord {
                var book: ARBook
                var author: AuthorInfo?
            }
            // The book without author has no author, and no prefetched books: the prefetch
            // query asks only for the authors of the fetched books, through the join (and its
            // own joins, without their columns), as GRDB does.
            let request = ARBook
                .including(optional: ARBook.author
                    .including(optional: ARAuthor.country)
                    .including(all: ARAuthor.books.order(Column("year"))))
                .filter(Column("year") < 1990)
                .order(Column("id"))
            let infos = try request.asRequest(of: BookInfo.self).fetchAll(db)
            #expect(recorder.dataSQL.last == #"SELECT "book".*, "author"."id" AS "grdb_id" FROM "book" JOIN "author" ON ("author"."id" = "book"."authorId") AND ("author"."id" IN (?, ?)) LEFT JOIN "country" ON "country"."code" = "author"."countryCode" ORDER BY "book"."year""#)
            #expect(infos.map(\.book.id) == [1, 2, 3, 4])
            #expect(infos.map { $0.author?.author.name } == ["Duras", "Kawabata", "Duras", nil])
            #expect(infos.map { $0.author?.country?.name } == ["France", "Japan", "France", nil])
            #expect(infos.map { $0.author?.books.map(\.year) } == [[1958, 1984], [1948], [1958, 1984], nil])

            // Two levels: prefetched rows of prefetched rows still work inside a scope.
            struct PrizedAuthor: Decodable, FetchableRecord {
                var author: ARAuthor
                var books: [ARBook]
                var prizes: [ARPrize]
            }
            struct Info: Decodable, FetchableRecord {
                var book: ARBook
                var author: PrizedAuthor
            }
            let twoPrefetches = try ARBook
                .including(required: ARBook.author.including(all: ARAuthor.books).including(all: ARAuthor.prizes))
                .filter(key: 2)
                .asRequest(of: Info.self)
                .fetchOne(db)
            #expect(twoPrefetches?.author.books.map(\.title) == ["Yukiguni"])
            #expect(twoPrefetches?.author.prizes.map(\.name) == ["Nobel"])
        }
    }

    @Test func includingAllInsideAJoinedAssociation() throws {
        // As GRDB (ASC-3): the prefetch is keyed on the fetched rows through the join, and
        // its rows go to the nearest included ancestor, the book row itself.
        try withBooks { db, _ throws in
            let recorder = SQLRecorder()
            recorder.record(db)
            let request = ARBook.joining(optional: ARBook.author.including(all: ARAuthor.prizes.order(Column("id")))).filter(key: 2)
            let row = try #require(try Row.fetchOne(db, request))
            #expect(row.scopes.isEmpty)
            #expect(row.prefetchedRows["prizes"]?.map { $0["name"] as String } == ["Nobel"])
            struct BookWithPrizes: Decodable, FetchableRecord {
                var book: ARBook
                var prizes: [ARPrize]
            }
            let info = try request.asRequest(of: BookWithPrizes.self).fetchOne(db)
            #expect(info?.prizes.map(\.name) == ["Nobel"])
            let all = try ARBook.joining(required: ARBook.author.including(all: ARAuthor.prizes.order(Column("id")))).order(Column("id"))
                .asRequest(of: BookWithPrizes.self).fetchAll(db)
            #expect(all.map(\.book.id) == [1, 2, 3, 5])
            #expect(all.map { $0.prizes.map(\.name) } == [["Goncourt", "Ibsen"], ["Nobel"], ["Goncourt", "Ibsen"], []])
            #expect(recorder.dataSQL.contains(#"SELECT "prize".*, "author"."id" AS "grdb_id" FROM "prize" JOIN "author" ON ("author"."id" = "prize"."authorId") AND ("author"."id" = ?) ORDER BY "prize"."id""#))
        }
    }

    @Test func prefetchesOfIncludedRelationsUnderAJoinedOne() throws {
        // ASC-2 with ASC-3: the country, included under a joined author, is a scope of the
        // author's scope without columns, and its prefetched rows are found there.
        try withBooks { db, _ throws in
            let request = ARBook
                .joining(required: ARBook.author.including(required: ARAuthor.country.including(all: ARCountry.authors.order(Column("id")))))
                .filter(key: 2)
            let row = try #require(try Row.fetchOne(db, request))
            let country = try #require(row.scopes["author"]?.scopes["country"])
            #expect(country["name"] == "Japan")
            #expect(row.scopesTree["country"]?.prefetchedRows["authors"]?.map { $0["name"] as String } == ["Kawabata"])
        }
    }

    @Test func aUserAliasNamesAChainOfMergedJoins() throws {
        // Two aggregates and a named join of one association: every merged alias takes the
        // user's name.
        try withBooks { db, _ throws in
            let recorder = SQLRecorder()
            recorder.record(db)
            let request = ARAuthor
                .annotated(with: ARAuthor.books.max(Column("year")), ARAuthor.books.count)
                .joining(required: ARAuthor.books.aliased(TableAlias(name: "b")).filter(sql: "b.year > 1950"))
                .order(Column("id"))
            let rows = try Row.fetchAll(db, request)
            #expect(rows.map { $0["name"] as String } == ["Duras", "Nobody"])
            #expect(recorder.dataSQL.last?.contains(#"MAX("b"."year")"#) == true)
        }
    }

    @Test func aUserAliasNamesTheMergedJoin() throws {
        // ASC-6: as GRDB, the name given with TableAlias(name:) names the merged join, whichever
        // of the two joins carries it.
        try withBooks { db, _ throws in
            let recorder = SQLRecorder()
            recorder.record(db)
            let request = ARAuthor
                .annotated(with: ARAuthor.books.count)
                .joining(required: ARAuthor.books.aliased(TableAlias(name: "b")).filter(sql: "b.year > 1950"))
                .order(Column("id"))
            let rows = try Row.fetchAll(db, request)
            #expect(rows.map { $0["name"] as String } == ["Duras", "Nobody"])
            #expect(recorder.dataSQL.last?.contains(#"JOIN "book" "b" ON"#) == true)
        }
    }

    @Test func mergedJoinsApplyAllFiltersAndTheLastOrderingAndSelection() throws {
        try withBooks { db, _ throws in
            // All filters are applied.
            let filtered = ARBook
                .joining(required: ARBook.author.filter(Column("countryCode") == "FR"))
                .joining(optional: ARBook.author.filter(Column("name") != "Nobody"))
            #expect(try sqlOf(db, filtered) == #"SELECT "book".* FROM "book" JOIN "author" ON ("author"."id" = "book"."authorId") AND ("author"."countryCode" = ?) AND ("author"."name" <> ?)"#)
            #expect(try filtered.order(Column("id")).fetchAll(db).map(\.id) == [1, 3])

            // including wins over joining, required over optional, the last ordering wins.
            let ordered = ARBook
                .including(optional: ARBook.author.order(Column("name")))
                .joining(required: ARBook.author.order(Column("id").desc))
            #expect(try sqlOf(db, ordered) == #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "author"."id" DESC"#)

            // The last selection of an included association wins; a join without scope
            // keeps the selection.
            let selected = ARBook
                .including(required: ARBook.author.select(Column("id")))
                .including(required: ARBook.author.select(Column("name")))
                .joining(required: ARBook.author)
            #expect(try sqlOf(db, selected) == #"SELECT "book".*, "author"."name" FROM "book" JOIN "author" ON "author"."id" = "book"."authorId""#)

            // The intermediate table of a through association, merged with the association
            // to it, in either order: the author keeps its columns.
            struct BookInfo: Decodable, FetchableRecord {
                var book: ARBook
                var author: ARAuthor
                var country: ARCountry?
            }
            let throughFirst = ARBook
                .including(optional: ARBook.country)
                .including(required: ARBook.author)
                .order(Column("id"))
            #expect(try sqlOf(db, throughFirst) == #"SELECT "book".*, "author".*, "country".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" LEFT JOIN "country" ON "country"."code" = "author"."countryCode" ORDER BY "book"."id""#)
            let throughLast = ARBook
                .including(required: ARBook.author)
                .including(optional: ARBook.country)
                .order(Column("id"))
            #expect(try sqlOf(db, throughLast) == sqlOf(db, throughFirst))
            for request in [throughFirst, throughLast] {
                let infos = try request.asRequest(of: BookInfo.self).fetchAll(db)
                #expect(infos.map(\.author.name) == ["Duras", "Kawabata", "Duras", "Nobody"])
                #expect(infos.map(\.country?.code) == ["FR", "JP", "FR", nil])
            }

            // Another key: two joins.
            let twoKeys = ARBook
                .joining(required: ARBook.author.filter(Column("countryCode") == "FR"))
                .joining(required: ARBook.author.forKey("other").filter(Column("name") == "Duras"))
            #expect(try sqlOf(db, twoKeys) == #"SELECT "book".* FROM "book" JOIN "author" "author1" ON ("author1"."id" = "book"."authorId") AND ("author1"."countryCode" = ?) JOIN "author" "author2" ON ("author2"."id" = "book"."authorId") AND ("author2"."name" = ?)"#)
        }
    }

    @Test func requiredAssociationBehindAnOptionalOneThrows() throws {
        try withBooks { db, _ throws in
            // GRDB: a fatal error "Not implemented: chaining a required association behind an
            // optional association". GRDBCipher throws.
            let request = ARBook.joining(optional: ARBook.author.including(required: ARAuthor.country))
            let error = expectDatabaseError(.SQLITE_MISUSE) { _ = try request.fetchAll(db) }
            #expect(error?.message?.hasPrefix("Not implemented: chaining a required association behind an optional association") == true)
            expectDatabaseError(.SQLITE_MISUSE) {
                _ = try ARBook.including(optional: ARBook.author.joining(required: ARAuthor.country)).fetchCount(db)
            }

            // Optional behind required, required behind required, optional behind optional.
            #expect(try ARBook.including(required: ARBook.author.including(optional: ARAuthor.country)).fetchCount(db) == 4)
            #expect(try ARBook.including(required: ARBook.author.including(required: ARAuthor.country)).fetchCount(db) == 3)
            #expect(try ARBook.including(optional: ARBook.author.including(optional: ARAuthor.country)).fetchCount(db) == 5)
            // Merged with a required join of the same key, the association is required.
            let merged = ARBook
                .joining(optional: ARBook.author.including(required: ARAuthor.country))
                .joining(required: ARBook.author)
            #expect(try merged.fetchCount(db) == 3)
        }
    }
}
