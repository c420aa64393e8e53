import Foundation
import Testing
@testable import GRDBCipher

// The requests of the associations guide (../shared/reference, guide-AssociationsBasics.md),
// written as the guide writes them, on the guide's tables. The expected SQL is what GRDB 7.10
// runs for each of them (observed by running these requests on GRDB: the guide writes its SQL
// without quotes and with literal values; GRDB quotes identifiers and binds values).

// MARK: Authors, books and paintings

private struct GAuthor: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "author"
    static let books = hasMany(GBook.self)
    static let paintings = hasMany(GPainting.self)
    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let country = Column("country")
    }
    var id: Int64
    var name: String
    var country: String
}

private struct GBook: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(GAuthor.self)
    enum Columns {
        static let title = Column("title")
        static let year = Column("year")
        static let kind = Column("kind")
    }
    var id: Int64
    var authorId: Int64?
    var title: String
    var year: Int
    var kind: String
}

private struct GPainting: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "painting"
    var id: Int64
    var authorId: Int64
}

private let libraryDDL = """
    CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
    CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT NOT NULL, year INTEGER NOT NULL, kind TEXT NOT NULL);
    CREATE TABLE painting (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id));
    INSERT INTO author VALUES (1, 'Colette', 'France'), (2, 'Woolf', 'England'), (3, 'Kahlo', 'Mexico');
    INSERT INTO book VALUES
        (1, 1, 'Chéri', 1920, 'novel'), (2, 1, 'Gigi', 1944, 'novel'),
        (3, 2, 'Orlando', 1928, 'novel'), (4, 2, 'Freshwater', 1935, 'theatrePlay'),
        (5, NULL, 'Anonymous', 2012, 'poems');
    INSERT INTO painting VALUES (1, 3), (2, 3), (3, 2);
    """

extension DerivableRequest<GBook> {
    /// The guide's request extensions ("Further Refinements to Associations").
    fileprivate func filter(authorCountry: String) -> Self {
        joining(required: GBook.author.filter { $0.country == authorCountry })
    }

    fileprivate func orderedByAuthorNameAndYear() -> Self {
        let authorAlias = TableAlias<GAuthor>()
        return self
            .joining(optional: GBook.author.aliased(authorAlias))
            .order { [authorAlias[GAuthor.Columns.name].collating(.localizedCaseInsensitiveCompare), $0.year] }
    }
}

// MARK: People, countries, and books with an author and a translator

private struct GCountry: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "country"
    var code: String
    var name: String
}

private struct GPerson: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "person"
    static let country = belongsTo(GCountry.self)
    enum Columns {
        static let name = Column("name")
        static let countryCode = Column("countryCode")
        static let deathDate = Column("deathDate")
    }
    var id: Int64
    var name: String
    var countryCode: String?
    var deathDate: String?
}

private struct GWork: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(GPerson.self, key: "author", using: ForeignKey(["authorId"]))
    static let translator = belongsTo(GPerson.self, key: "translator", using: ForeignKey(["translatorId"]))
    static let country = hasOne(GCountry.self, through: author, using: GPerson.country)
    enum Columns {
        static let publishDate = Column("publishDate")
        static let deathDate = Column("deathDate")
    }
    var id: Int64
    var authorId: Int64
    var translatorId: Int64?
    var title: String
    var publishDate: String
}

private let translationsDDL = """
    CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, countryCode TEXT REFERENCES country(code), deathDate TEXT);
    CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES person(id), translatorId INTEGER REFERENCES person(id), title TEXT NOT NULL, publishDate TEXT NOT NULL);
    INSERT INTO country VALUES ('FR', 'France'), ('AR', 'Argentina');
    INSERT INTO person VALUES (1, 'Némirovsky', 'FR', '1942-08-17'), (2, 'Borges', 'AR', '1986-06-14'), (3, 'Smith', NULL, NULL);
    INSERT INTO book VALUES (1, 1, 3, 'Suite française', '2004-10-01'), (2, 2, NULL, 'Ficciones', '1944-01-01');
    """

// MARK: Teams and players

private struct GTeam: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "team"
    static let players = hasMany(GPlayer.self)
    var id: Int64
}

private struct GPlayer: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "player"
    enum Columns {
        static let score = Column("score")
    }
    var id: Int64
    var teamId: Int64
    var score: Int
}

private let teamsDDL = """
    CREATE TABLE team (id INTEGER PRIMARY KEY);
    CREATE TABLE player (id INTEGER PRIMARY KEY, teamId INTEGER NOT NULL REFERENCES team(id), score INTEGER NOT NULL);
    INSERT INTO team VALUES (1), (2);
    INSERT INTO player VALUES (1, 1, 10), (2, 1, -30);
    """


private func sqlOf(_ db: Database, _ request: some FetchRequest) throws -> String {
    try request.makePreparedRequest(db, forSingleResult: false).statement.sql
}

@Suite("Associations: the guide's requests")
struct AssociationGuideTests {
    @Test func joiningMethods() throws {
        try withRecordedDatabase(libraryDDL) { (db: Database, _: SQLRecorder) throws in
            #expect(try sqlOf(db, GBook.including(required: GBook.author))
                == #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId""#)
            #expect(try sqlOf(db, GBook.including(optional: GBook.author))
                == #"SELECT "book".*, "author".* FROM "book" LEFT JOIN "author" ON "author"."id" = "book"."authorId""#)
            #expect(try sqlOf(db, GBook.joining(required: GBook.author.filter { $0.country == "France" }))
                == #"SELECT "book".* FROM "book" JOIN "author" ON ("author"."id" = "book"."authorId") AND ("author"."country" = ?)"#)
            #expect(try sqlOf(db, GBook.joining(optional: GBook.author))
                == #"SELECT "book".* FROM "book" LEFT JOIN "author" ON "author"."id" = "book"."authorId""#)

            // Books by French authors; every book, with or without an author.
            #expect(try GBook.joining(required: GBook.author.filter { $0.country == "France" }).fetchAll(db).map(\.title).sorted() == ["Chéri", "Gigi"])
            #expect(try GBook.joining(optional: GBook.author).fetchCount(db) == 5)
            #expect(try GBook.including(required: GBook.author).fetchCount(db) == 4)
        }
    }

    @Test func includingAll() throws {
        try withRecordedDatabase(libraryDDL) { (db: Database, recorder: SQLRecorder) throws in
            struct AuthorInfo: Decodable, FetchableRecord {
                var author: GAuthor
                var books: [GBook]
            }
            recorder.reset()
            let infos = try GAuthor.including(all: GAuthor.books).asRequest(of: AuthorInfo.self).fetchAll(db)
            #expect(recorder.dataSQL == [
                #"SELECT * FROM "author""#,
                #"SELECT *, "authorId" AS "grdb_authorId" FROM "book" WHERE "authorId" IN (?, ?, ?)"#,
            ])
            #expect(infos.map { $0.books.map(\.title) } == [["Chéri", "Gigi"], ["Orlando", "Freshwater"], []])

            struct AuthorTitles: Decodable, FetchableRecord {
                var author: GAuthor
                var bookTitles: [String]
            }
            recorder.reset()
            let titles = try GAuthor
                .including(all: GAuthor.books.select(\.title).forKey("bookTitles"))
                .asRequest(of: AuthorTitles.self)
                .fetchAll(db)
            #expect(recorder.dataSQL == [
                #"SELECT * FROM "author""#,
                #"SELECT "title", "authorId" AS "grdb_authorId" FROM "book" WHERE "authorId" IN (?, ?, ?)"#,
            ])
            #expect(titles.map(\.bookTitles) == [["Chéri", "Gigi"], ["Orlando", "Freshwater"], []])
        }
    }

    @Test func annotatedWithAssociatedColumns() throws {
        try withRecordedDatabase(libraryDDL) { (db: Database, _: SQLRecorder) throws in
            let required = GBook.annotated(withRequired: GBook.author.select { [$0.name, $0.country] })
            #expect(try sqlOf(db, required)
                == #"SELECT "book".*, "author"."name", "author"."country" FROM "book" JOIN "author" ON "author"."id" = "book"."authorId""#)
            let optional = GBook.annotated(withOptional: GBook.author.select { [$0.name, $0.country] })
            #expect(try sqlOf(db, optional)
                == #"SELECT "book".*, "author"."name", "author"."country" FROM "book" LEFT JOIN "author" ON "author"."id" = "book"."authorId""#)
            let renamed = GBook.annotated(withRequired: GBook.author.select { $0.name.forKey("authorName") })
            #expect(try sqlOf(db, renamed)
                == #"SELECT "book".*, "author"."name" AS "authorName" FROM "book" JOIN "author" ON "author"."id" = "book"."authorId""#)

            struct BookInfo: Decodable, FetchableRecord {
                var book: GBook
                var name: String?
                var country: String?
            }
            // Annotated rows are plain rows (no adapter), as in GRDB.
            let annotatedRow = try Row.fetchOne(db, required.order(Column("id")))!
            #expect(annotatedRow.debugDescription == #"[id:1 authorId:1 title:"Chéri" year:1920 kind:"novel" name:"Colette" country:"France"]"#)
            #expect(annotatedRow.unadapted === annotatedRow)

            let infos = try optional.asRequest(of: BookInfo.self).fetchAll(db).sorted { $0.book.id < $1.book.id }
            #expect(infos.map(\.name) == ["Colette", "Colette", "Woolf", "Woolf", nil])
            #expect(infos.last?.book.title == "Anonymous")
        }
    }

    @Test func selectedColumnsOfAnAssociation() throws {
        try withRecordedDatabase(libraryDDL) { (db: Database, _: SQLRecorder) throws in
            let restrictedAuthor = GBook.author.select { [$0.id, $0.name] }
            #expect(try sqlOf(db, GBook.including(required: restrictedAuthor))
                == #"SELECT "book".*, "author"."id", "author"."name" FROM "book" JOIN "author" ON "author"."id" = "book"."authorId""#)
        }
    }

    @Test func combiningAssociations() throws {
        try withRecordedDatabase(translationsDDL) { (db: Database, _: SQLRecorder) throws in
            let parallel = GWork.including(required: GWork.author).including(optional: GWork.translator)
            #expect(try sqlOf(db, parallel)
                == #"SELECT "book".*, "person1".*, "person2".* FROM "book" JOIN "person" "person1" ON "person1"."id" = "book"."authorId" LEFT JOIN "person" "person2" ON "person2"."id" = "book"."translatorId""#)
            struct WorkInfo: Decodable, FetchableRecord {
                var book: GWork
                var author: GPerson
                var translator: GPerson?
            }
            let infos = try parallel.asRequest(of: WorkInfo.self).fetchAll(db).sorted { $0.book.id < $1.book.id }
            #expect(infos.map(\.author.name) == ["Némirovsky", "Borges"])
            #expect(infos.map(\.translator?.name) == ["Smith", nil])

            let chained = GWork.including(required: GWork.author.including(optional: GPerson.country))
            #expect(try sqlOf(db, chained)
                == #"SELECT "book".*, "person".*, "country".* FROM "book" JOIN "person" ON "person"."id" = "book"."authorId" LEFT JOIN "country" ON "country"."code" = "person"."countryCode""#)

            let countryOnly = GWork.joining(optional: GWork.author.including(optional: GPerson.country))
            let countrySQL = #"SELECT "book".*, "country".* FROM "book" LEFT JOIN "person" ON "person"."id" = "book"."authorId" LEFT JOIN "country" ON "country"."code" = "person"."countryCode""#
            #expect(try sqlOf(db, countryOnly) == countrySQL)
            // The through association is a shortcut for the same request.
            #expect(try sqlOf(db, GWork.including(optional: GWork.country)) == countrySQL)
            struct WorkCountry: Decodable, FetchableRecord {
                var book: GWork
                var country: GCountry?
            }
            let countries = try countryOnly.asRequest(of: WorkCountry.self).fetchAll(db).sorted { $0.book.id < $1.book.id }
            #expect(countries.map(\.country?.name) == ["France", "Argentina"])
        }
    }

    @Test func filteringAndSortingAssociations() throws {
        try withRecordedDatabase(translationsDDL) { (db: Database, _: SQLRecorder) throws in
            let frenchAuthor = GWork.author.filter { $0.countryCode == "FR" }
            #expect(try sqlOf(db, GWork.joining(required: frenchAuthor))
                == #"SELECT "book".* FROM "book" JOIN "person" ON ("person"."id" = "book"."authorId") AND ("person"."countryCode" = ?)"#)
            #expect(try GWork.joining(required: frenchAuthor).fetchAll(db).map(\.title) == ["Suite française"])

            let sortedAuthor = GWork.author.order(\.name)
            #expect(try sqlOf(db, GWork.including(required: sortedAuthor))
                == #"SELECT "book".*, "person".* FROM "book" JOIN "person" ON "person"."id" = "book"."authorId" ORDER BY "person"."name""#)
            #expect(try sqlOf(db, GWork.including(required: sortedAuthor).order(\.publishDate.desc))
                == #"SELECT "book".*, "person".* FROM "book" JOIN "person" ON "person"."id" = "book"."authorId" ORDER BY "book"."publishDate" DESC, "person"."name""#)
        }
    }

    @Test func tableAliases() throws {
        try withRecordedDatabase(translationsDDL) { (db: Database, _: SQLRecorder) throws in
            // The wrong request: the death date is looked up in the book table.
            let wrong = GWork.joining(required: GWork.author).filter { $0.publishDate >= $0.deathDate }
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try wrong.fetchAll(db) }
            #expect(error?.message == "no such column: book.deathDate")
            #expect(error?.sql == #"SELECT "book".* FROM "book" JOIN "person" ON "person"."id" = "book"."authorId" WHERE "book"."publishDate" >= "book"."deathDate""#)

            // Posthumous books, with an unnamed alias.
            let authorAlias = TableAlias<GPerson>()
            let posthumous = GWork
                .joining(required: GWork.author.aliased(authorAlias))
                .filter { $0.publishDate >= authorAlias[GPerson.Columns.deathDate] }
            #expect(try sqlOf(db, posthumous)
                == #"SELECT "book".* FROM "book" JOIN "person" ON "person"."id" = "book"."authorId" WHERE "book"."publishDate" >= "person"."deathDate""#)
            #expect(try posthumous.fetchAll(db).map(\.title) == ["Suite française"])

            let byAuthorName = GWork
                .joining(required: GWork.author.aliased(authorAlias))
                .order { [authorAlias[GPerson.Columns.name], $0.publishDate] }
            #expect(try sqlOf(db, byAuthorName)
                == #"SELECT "book".* FROM "book" JOIN "person" ON "person"."id" = "book"."authorId" ORDER BY "person"."name", "book"."publishDate""#)
            #expect(try byAuthorName.fetchAll(db).map(\.title) == ["Ficciones", "Suite française"])

            // Named aliases, used in raw SQL snippets.
            let bookAlias = TableAlias<GWork>(name: "b")
            let namedAuthor = TableAlias<GPerson>(name: "a")
            let named = GWork.aliased(bookAlias)
                .joining(required: GWork.author.aliased(namedAuthor)
                    .filter(sql: "a.countryCode = ?", arguments: ["FR"]))
                .filter(sql: "b.publishDate >= a.deathDate")
            #expect(try sqlOf(db, named)
                == #"SELECT "b".* FROM "book" "b" JOIN "person" "a" ON ("a"."id" = "b"."authorId") AND (a.countryCode = ?) WHERE b.publishDate >= a.deathDate"#)
            #expect(try named.fetchAll(db).map(\.title) == ["Suite française"])
        }
    }

    @Test func refinedRequestsComposeFluently() throws {
        try withRecordedDatabase(libraryDDL) { (db: Database, _: SQLRecorder) throws in
            struct BookInfo: Decodable, FetchableRecord {
                var book: GBook
                var author: GAuthor
            }
            let request = GBook.all()
                .filter(authorCountry: "France")
                .orderedByAuthorNameAndYear()
                .including(required: GBook.author)
            // The three uses of the `author` key merge into one required join.
            #expect(try sqlOf(db, request)
                == #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON ("author"."id" = "book"."authorId") AND ("author"."country" = ?) ORDER BY "author"."name" COLLATE swiftLocalizedCaseInsensitiveCompare, "book"."year""#)
            #expect(try request.asRequest(of: BookInfo.self).fetchAll(db).map(\.book.title) == ["Chéri", "Gigi"])
        }
    }

    @Test func annotatingWithAggregates() throws {
        try withRecordedDatabase(libraryDDL) { (db: Database, _: SQLRecorder) throws in
            struct AuthorInfo: Decodable, FetchableRecord {
                var author: GAuthor
                var bookCount: Int
                var maxBookYear: Int?
            }
            let request = GAuthor.annotated(with: GAuthor.books.count, GAuthor.books.max(\.year))
            #expect(try sqlOf(db, request)
                == #"SELECT "author".*, COUNT(DISTINCT "book"."id") AS "bookCount", MAX("book"."year") AS "maxBookYear" FROM "author" LEFT JOIN "book" ON "book"."authorId" = "author"."id" GROUP BY "author"."id""#)
            let infos = try AuthorInfo.fetchAll(db, request)
            #expect(infos.map(\.bookCount) == [2, 2, 0])
            #expect(infos.map(\.maxBookYear) == [1944, 1935, nil])

            let years = GAuthor.annotated(with: GAuthor.books.min(\.year), GAuthor.books.max(\.year))
            #expect(try sqlOf(db, years)
                == #"SELECT "author".*, MIN("book"."year") AS "minBookYear", MAX("book"."year") AS "maxBookYear" FROM "author" LEFT JOIN "book" ON "book"."authorId" = "author"."id" GROUP BY "author"."id""#)
        }
    }

    @Test func havingAggregates() throws {
        try withRecordedDatabase(libraryDDL) { (db: Database, _: SQLRecorder) throws in
            let base = #"SELECT "author".* FROM "author" LEFT JOIN "book" ON "book"."authorId" = "author"."id""#
            let withPaintings = base + #" LEFT JOIN "painting" ON "painting"."authorId" = "author"."id""#
            let group = #" GROUP BY "author"."id""#

            #expect(try sqlOf(db, GAuthor.having(GAuthor.books.isEmpty)) == base + group + #" HAVING COUNT(DISTINCT "book"."id") = 0"#)
            #expect(try sqlOf(db, GAuthor.having(GAuthor.books.isEmpty == false)) == base + group + #" HAVING COUNT(DISTINCT "book"."id") > 0"#)
            #expect(try sqlOf(db, GAuthor.having(GAuthor.books.count >= 2)) == base + group + #" HAVING COUNT(DISTINCT "book"."id") >= ?"#)
            let recent = GAuthor.having(GAuthor.books.max(\.year) >= 1940)
            #expect(try sqlOf(db, recent) == base + group + #" HAVING MAX("book"."year") >= ?"#)
            #expect(try recent.fetchAll(db).map(\.name) == ["Colette"])

            let novels = GAuthor.books.filter { $0.kind == "novel" }
            let novelists = GAuthor.having(novels.isEmpty == false)
            #expect(try sqlOf(db, novelists)
                == #"SELECT "author".* FROM "author" LEFT JOIN "book" ON ("book"."authorId" = "author"."id") AND ("book"."kind" = ?) GROUP BY "author"."id" HAVING COUNT(DISTINCT "book"."id") > 0"#)
            #expect(try novelists.fetchAll(db).map(\.name) == ["Colette", "Woolf"])

            let moreBooks = GAuthor.having(GAuthor.books.count > GAuthor.paintings.count)
            #expect(try sqlOf(db, moreBooks) == withPaintings + group + #" HAVING COUNT(DISTINCT "book"."id") > COUNT(DISTINCT "painting"."id")"#)
            #expect(try moreBooks.fetchAll(db).map(\.name) == ["Colette", "Woolf"])

            let painters = GAuthor.having(GAuthor.books.isEmpty && !GAuthor.paintings.isEmpty)
            #expect(try sqlOf(db, painters) == withPaintings + group + #" HAVING (COUNT(DISTINCT "book"."id") = 0) AND (COUNT(DISTINCT "painting"."id") > 0)"#)
            #expect(try painters.fetchAll(db).map(\.name) == ["Kahlo"])

            let idle = GAuthor.having(GAuthor.books.isEmpty && GAuthor.paintings.isEmpty)
            #expect(try sqlOf(db, idle) == withPaintings + group + #" HAVING (COUNT(DISTINCT "book"."id") = 0) AND (COUNT(DISTINCT "painting"."id") = 0)"#)
            #expect(try idle.fetchAll(db).isEmpty)
        }
    }

    @Test func aggregateOperations() throws {
        try withRecordedDatabase(libraryDDL) { (db: Database, _: SQLRecorder) throws in
            struct AuthorInfo: Decodable, FetchableRecord {
                var author: GAuthor
                var workCount: Int
            }
            // An arithmetic combination has no name of its own: it needs one.
            let workCount = GAuthor.books.count + GAuthor.paintings.count
            let request = GAuthor.annotated(with: workCount.forKey("workCount"))
            #expect(try sqlOf(db, request)
                == #"SELECT "author".*, COUNT(DISTINCT "book"."id") + COUNT(DISTINCT "painting"."id") AS "workCount" FROM "author" LEFT JOIN "book" ON "book"."authorId" = "author"."id" LEFT JOIN "painting" ON "painting"."authorId" = "author"."id" GROUP BY "author"."id""#)
            #expect(try AuthorInfo.fetchAll(db, request).map(\.workCount) == [2, 3, 2])
        }
        try withRecordedDatabase(teamsDDL) { (db: Database, _: SQLRecorder) throws in
            let base = #" FROM "team" LEFT JOIN "player" ON "player"."teamId" = "team"."id" GROUP BY "team"."id""#
            // `??` and `cast` keep the aggregate's name; other functions and operators do not.
            let minScore = GTeam.annotated(with: GTeam.players.min(\.score) ?? 0)
            #expect(try sqlOf(db, minScore) == #"SELECT "team".*, IFNULL(MIN("player"."score"), ?) AS "minPlayerScore""# + base)
            struct TeamInfo: Decodable, FetchableRecord {
                var team: GTeam
                var minPlayerScore: Int
            }
            #expect(try TeamInfo.fetchAll(db, minScore).map(\.minPlayerScore) == [-30, 0])
            #expect(try sqlOf(db, GTeam.annotated(with: GTeam.players.count ?? 0))
                == #"SELECT "team".*, IFNULL(COUNT(DISTINCT "player"."id"), ?) AS "playerCount""# + base)
            #expect(try sqlOf(db, GTeam.annotated(with: GTeam.players.min(\.score).forKey("lowest") ?? 0))
                == #"SELECT "team".*, IFNULL(MIN("player"."score"), ?) AS "lowest""# + base)
            #expect(try sqlOf(db, GTeam.annotated(with: cast(GTeam.players.max(\.score), as: .text)))
                == #"SELECT "team".*, CAST(MAX("player"."score") AS TEXT) AS "maxPlayerScore""# + base)
            #expect(try sqlOf(db, GTeam.annotated(with: abs(GTeam.players.max(\.score))))
                == #"SELECT "team".*, ABS(MAX("player"."score"))"# + base)
            #expect(try sqlOf(db, GTeam.annotated(with: length(GTeam.players.max(\.score))))
                == #"SELECT "team".*, LENGTH(MAX("player"."score"))"# + base)
            #expect(try sqlOf(db, GTeam.annotated(with: -GTeam.players.count))
                == #"SELECT "team".*, -COUNT(DISTINCT "player"."id")"# + base)
            #expect(try sqlOf(db, GTeam.annotated(with: GTeam.players.isEmpty))
                == #"SELECT "team".*, COUNT(DISTINCT "player"."id") = 0 AS "hasNoPlayer""# + base)
            #expect(try sqlOf(db, GTeam.annotated(with: !GTeam.players.isEmpty))
                == #"SELECT "team".*, COUNT(DISTINCT "player"."id") > 0"# + base)
        }
    }

    @Test func isolationOfMultipleAggregates() throws {
        try withRecordedDatabase(libraryDDL) { (db: Database, _: SQLRecorder) throws in
            struct AuthorInfo: Decodable, FetchableRecord {
                var author: GAuthor
                var novelCount: Int
                var theatrePlayCount: Int
            }
            // Distinct keys: two joins of the book table, aliased book1 and book2.
            let novelCount = GAuthor.books.filter { $0.kind == "novel" }.forKey("novels").count
            let theatrePlayCount = GAuthor.books.filter { $0.kind == "theatrePlay" }.forKey("theatrePlays").count
            let isolated = GAuthor.annotated(with: novelCount, theatrePlayCount)
            #expect(try sqlOf(db, isolated)
                == #"SELECT "author".*, COUNT(DISTINCT "book1"."id") AS "novelCount", COUNT(DISTINCT "book2"."id") AS "theatrePlayCount" FROM "author" LEFT JOIN "book" "book1" ON ("book1"."authorId" = "author"."id") AND ("book1"."kind" = ?) LEFT JOIN "book" "book2" ON ("book2"."authorId" = "author"."id") AND ("book2"."kind" = ?) GROUP BY "author"."id""#)
            let infos = try AuthorInfo.fetchAll(db, isolated)
            #expect(infos.map(\.novelCount) == [2, 1, 0])
            #expect(infos.map(\.theatrePlayCount) == [0, 1, 0])

            // The same key twice: one join, whose conditions add up (the guide's wrong example).
            let wrongNovels = GAuthor.books.filter { $0.kind == "novel" }.count.forKey("novelCount")
            let wrongPlays = GAuthor.books.filter { $0.kind == "theatrePlay" }.count.forKey("theatrePlayCount")
            let merged = GAuthor.annotated(with: wrongNovels, wrongPlays)
            #expect(try sqlOf(db, merged)
                == #"SELECT "author".*, COUNT(DISTINCT "book"."id") AS "novelCount", COUNT(DISTINCT "book"."id") AS "theatrePlayCount" FROM "author" LEFT JOIN "book" ON ("book"."authorId" = "author"."id") AND ("book"."kind" = ?) AND ("book"."kind" = ?) GROUP BY "author"."id""#)
            #expect(try AuthorInfo.fetchAll(db, merged).map(\.novelCount) == [0, 0, 0])
        }
    }
}
