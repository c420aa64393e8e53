import Foundation
import Testing
@testable import GRDBCipher

// A small library: writers write novels, novels have chapters, writers live in a country that
// has one census. Novels may have a translator, also a writer (two keys to one table).

private struct AJWriter: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "writer"
    static let novels = hasMany(AJNovel.self, using: ForeignKey(["writerId"]))
    static let country = belongsTo(AJCountry.self)
    var id: Int64
    var name: String
    var countryCode: String?
}

private struct AJNovel: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "novel"
    static let author = belongsTo(AJWriter.self, key: "author", using: ForeignKey(["writerId"]))
    static let translator = belongsTo(AJWriter.self, key: "translator", using: ForeignKey(["translatorId"]))
    static let chapters = hasMany(AJChapter.self)
    var id: Int64
    var writerId: Int64
    var translatorId: Int64?
    var title: String
    var year: Int
}

private struct AJChapter: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "chapter"
    static let novel = belongsTo(AJNovel.self)
    var id: Int64
    var novelId: Int64
    var position: Int
}

private struct AJCountry: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "country"
    static let census = hasOne(AJCensus.self)
    static let writers = hasMany(AJWriter.self)
    var code: String
    var name: String
}

private struct AJCensus: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "census"
    var id: Int64
    var countryCode: String
    var population: Int
}

private let schema = """
    CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE census (id INTEGER PRIMARY KEY, countryCode TEXT NOT NULL UNIQUE REFERENCES country(code), population INTEGER NOT NULL);
    CREATE TABLE writer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, countryCode TEXT REFERENCES country(code));
    CREATE TABLE novel (
        id INTEGER PRIMARY KEY,
        writerId INTEGER NOT NULL REFERENCES writer(id),
        translatorId INTEGER REFERENCES writer(id),
        title TEXT NOT NULL, year INTEGER NOT NULL);
    CREATE TABLE chapter (id INTEGER PRIMARY KEY, novelId INTEGER NOT NULL REFERENCES novel(id), position INTEGER NOT NULL);
    INSERT INTO country VALUES ('IT', 'Italy'), ('PT', 'Portugal');
    INSERT INTO census VALUES (1, 'IT', 59);
    INSERT INTO writer VALUES (1, 'Calvino', 'IT'), (2, 'Pessoa', 'PT'), (3, 'Weaver', NULL);
    INSERT INTO novel VALUES
        (1, 1, 3, 'Invisible Cities', 1972),
        (2, 1, NULL, 'Baron in the Trees', 1957),
        (3, 2, NULL, 'Book of Disquiet', 1982);
    INSERT INTO chapter VALUES (1, 1, 1), (2, 1, 2), (3, 3, 1);
    """

private func sqlOf(_ db: Database, _ request: some FetchRequest) throws -> String {
    try request.makePreparedRequest(db, forSingleResult: false).statement.sql
}

private func expectSQL(_ db: Database, _ request: some FetchRequest, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let sql = try sqlOf(db, request)
    #expect(sql == expected, sourceLocation: sourceLocation)
}

private func withLibrary(_ body: (Database) throws -> Void) throws {
    let test = try TestDatabase()
    try test.dbQueue.write { db in
        try db.execute(sql: schema)
        try body(db)
    }
}

@Suite("Associations: joins")
struct AssociationJoinTests {
    @Test func belongsToIncludingRequiredAndOptional() throws {
        try withLibrary { db in
            try expectSQL(db, AJChapter.including(required: AJChapter.novel),
                #"SELECT "chapter".*, "novel".* FROM "chapter" JOIN "novel" ON "novel"."id" = "chapter"."novelId""#)
            try expectSQL(db, AJWriter.including(optional: AJWriter.country),
                #"SELECT "writer".*, "country".* FROM "writer" LEFT JOIN "country" ON "country"."code" = "writer"."countryCode""#)

            struct WriterInfo: Decodable, FetchableRecord {
                var writer: AJWriter
                var country: AJCountry?
            }
            let infos = try AJWriter.including(optional: AJWriter.country).order(Column("id")).asRequest(of: WriterInfo.self).fetchAll(db)
            #expect(infos.map(\.writer.name) == ["Calvino", "Pessoa", "Weaver"])
            #expect(infos.map(\.country?.name) == ["Italy", "Portugal", nil])
            // A required join leaves out the writer without country.
            #expect(try AJWriter.including(required: AJWriter.country).fetchCount(db) == 2)

            // Rows carry the scope, named after the table.
            let row = try Row.fetchOne(db, AJChapter.including(required: AJChapter.novel).filter(Column("id") == 3))!
            #expect(row.scopes.names == ["novel"])
            #expect(row["position"] as Int == 1)
            let novel: AJNovel = row["novel"]
            #expect(novel.title == "Book of Disquiet")
            #expect(row.unscoped.count == 3)
        }
    }

    @Test func hasOneAndHasManyJoins() throws {
        try withLibrary { db in
            try expectSQL(db, AJCountry.including(optional: AJCountry.census),
                #"SELECT "country".*, "census".* FROM "country" LEFT JOIN "census" ON "census"."countryCode" = "country"."code""#)
            // A to-many association joined: the scope is singular.
            try expectSQL(db, AJWriter.joining(required: AJWriter.novels.filter(Column("year") > 1970)).select(Column("name")).distinct(),
                #"SELECT DISTINCT "writer"."name" FROM "writer" JOIN "novel" ON ("novel"."writerId" = "writer"."id") AND ("novel"."year" > ?)"#)
            let names = try AJWriter.joining(required: AJWriter.novels.filter(Column("year") > 1970)).select(Column("name"), as: String.self).distinct().order(Column("name")).fetchAll(db)
            #expect(names == ["Calvino", "Pessoa"])
            let row = try Row.fetchOne(db, AJWriter.including(required: AJWriter.novels).filter(key: 2))!
            #expect(row.scopes.names == ["novel"])

            struct CountryInfo: Decodable, FetchableRecord {
                var country: AJCountry
                var census: AJCensus?
            }
            // As GRDB (ASC-1), the key of table "census" is singularized ("censu"): a record
            // that decodes `census` names its key.
            #expect(try Row.fetchOne(db, AJCountry.including(optional: AJCountry.census))?.scopes.names == ["censu"])
            let infos = try AJCountry.including(optional: AJCountry.census.forKey("census")).order(Column("code")).asRequest(of: CountryInfo.self).fetchAll(db)
            #expect(infos.map(\.census?.population) == [59, nil])
        }
    }

    @Test func twoKeysToOneTableAreNumbered() throws {
        try withLibrary { db in
            let request = AJNovel
                .including(required: AJNovel.author)
                .including(optional: AJNovel.translator)
                .order(Column("id"))
            try expectSQL(db, request, #"SELECT "novel".*, "writer1".*, "writer2".* FROM "novel" JOIN "writer" "writer1" ON "writer1"."id" = "novel"."writerId" LEFT JOIN "writer" "writer2" ON "writer2"."id" = "novel"."translatorId" ORDER BY "novel"."id""#)

            struct NovelInfo: Decodable, FetchableRecord {
                var novel: AJNovel
                var author: AJWriter
                var translator: AJWriter?
            }
            let infos = try request.asRequest(of: NovelInfo.self).fetchAll(db)
            #expect(infos.map(\.author.name) == ["Calvino", "Calvino", "Pessoa"])
            #expect(infos.map(\.translator?.name) == ["Weaver", nil, nil])
        }
    }

    @Test func nestedJoinsSelectionOrderingAndKeys() throws {
        try withLibrary { db in
            // Chained: chapter → novel → author → country, the novel fetched without columns.
            let request = AJChapter
                .joining(required: AJChapter.novel.including(required: AJNovel.author.select(Column("name")).including(optional: AJWriter.country)))
                .order(Column("position").desc)
                .filter(Column("position") == 1)
            try expectSQL(db, request, #"SELECT "chapter".*, "writer"."name", "country".* FROM "chapter" JOIN "novel" ON "novel"."id" = "chapter"."novelId" JOIN "writer" ON "writer"."id" = "novel"."writerId" LEFT JOIN "country" ON "country"."code" = "writer"."countryCode" WHERE "chapter"."position" = ? ORDER BY "chapter"."position" DESC"#)
            let rows = try Row.fetchAll(db, request.order(Column("id")))
            #expect(rows.count == 2)
            // As GRDB (ASC-2): the scopes follow the associations. The novel, joined without
            // columns, has a scope without columns, holding the author, holding the country.
            #expect(rows[0].scopes.names == ["novel"])
            #expect(rows[0].scopes["novel"]?.count == 0)
            #expect(rows[0].scopes["novel"]?.scopes["author"]?["name"] == "Calvino")
            #expect(rows[0].scopesTree["author"]?["name"] == "Calvino")
            #expect(rows[1].scopes["novel"]?.scopes["author"]?.scopes["country"]?["name"] == "Portugal")
            #expect(rows[1].scopesTree["country"]?["name"] == "Portugal")

            // Orderings: the base first, then the associated ones; forKey renames the scope.
            let sorted = AJNovel.including(required: AJNovel.author.order(Column("name")).forKey("writtenBy")).order(Column("year").desc)
            try expectSQL(db, sorted, #"SELECT "novel".*, "writer".* FROM "novel" JOIN "writer" ON "writer"."id" = "novel"."writerId" ORDER BY "novel"."year" DESC, "writer"."name""#)
            #expect(try Row.fetchOne(db, sorted)!.scopes.names == ["writtenBy"])
        }
    }

    @Test func annotatedWithAssociationColumns() throws {
        try withLibrary { db in
            let request = AJNovel.annotated(withRequired: AJNovel.author.select(Column("name").forKey("authorName"))).order(Column("id"))
            try expectSQL(db, request, #"SELECT "novel".*, "writer"."name" AS "authorName" FROM "novel" JOIN "writer" ON "writer"."id" = "novel"."writerId" ORDER BY "novel"."id""#)
            struct NovelWithAuthorName: Decodable, FetchableRecord {
                var title: String
                var authorName: String
            }
            #expect(try request.asRequest(of: NovelWithAuthorName.self).fetchAll(db).map(\.authorName) == ["Calvino", "Calvino", "Pessoa"])

            let optional = AJNovel.annotated(withOptional: AJNovel.translator.select(Column("name").forKey("translatorName"))).order(Column("id"))
            let rows = try Row.fetchAll(db, optional)
            #expect(rows.map { $0["translatorName"] as String? } == ["Weaver", nil, nil])
            #expect(rows[0].scopes.isEmpty)
        }
    }

    /// As GRDB (ASC-4): the columns of annotations are among the request's own, in the order
    /// of the calls, before the columns of included associations; `select` replaces them; an
    /// included association of the same key keeps its own columns.
    @Test func annotationColumnsComeWithTheRequestColumns() throws {
        try withLibrary { db in
            let country = AJNovel.hasOne(AJCountry.self, through: AJNovel.author, using: AJWriter.country)
            let through = AJNovel.including(required: AJNovel.author).annotated(withOptional: country.select(Column("name").forKey("countryName"))).order(Column("id"))
            try expectSQL(db, through, #"SELECT "novel".*, "country"."name" AS "countryName", "writer".* FROM "novel" JOIN "writer" ON "writer"."id" = "novel"."writerId" LEFT JOIN "country" ON "country"."code" = "writer"."countryCode" ORDER BY "novel"."id""#)
            let rows = try Row.fetchAll(db, through)
            #expect(rows[0].unscoped == ["id": 1, "writerId": 1, "translatorId": 3, "title": "Invisible Cities", "year": 1972, "countryName": "Italy"])
            #expect(rows[0].scopes["author"] == ["id": 1, "name": "Calvino", "countryCode": "IT"])

            let interleaved = AJNovel.select(Column("title"))
                .including(optional: AJNovel.translator)
                .annotated(withRequired: AJNovel.author.select(Column("name").forKey("authorName")))
                .annotated(with: Column("year"))
                .order(Column("id"))
            try expectSQL(db, interleaved, #"SELECT "novel"."title", "writer2"."name" AS "authorName", "novel"."year", "writer1".* FROM "novel" LEFT JOIN "writer" "writer1" ON "writer1"."id" = "novel"."translatorId" JOIN "writer" "writer2" ON "writer2"."id" = "novel"."writerId" ORDER BY "novel"."id""#)
            #expect(try Row.fetchAll(db, interleaved).map { [$0[0], $0[1], $0[2]] as [DatabaseValue] } == [
                ["Invisible Cities".databaseValue, "Calvino".databaseValue, 1972.databaseValue],
                ["Baron in the Trees".databaseValue, "Calvino".databaseValue, 1957.databaseValue],
                ["Book of Disquiet".databaseValue, "Pessoa".databaseValue, 1982.databaseValue],
            ])

            let merged = AJNovel.including(required: AJNovel.author).annotated(withRequired: AJNovel.author.select(Column("name").forKey("authorName"))).order(Column("id"))
            try expectSQL(db, merged, #"SELECT "novel".*, "writer"."name" AS "authorName", "writer".* FROM "novel" JOIN "writer" ON "writer"."id" = "novel"."writerId" ORDER BY "novel"."id""#)

            let replaced = AJNovel.annotated(withRequired: AJNovel.author.select(Column("name").forKey("authorName"))).select(Column("title")).order(Column("id"))
            try expectSQL(db, replaced, #"SELECT "novel"."title" FROM "novel" JOIN "writer" ON "writer"."id" = "novel"."writerId" ORDER BY "novel"."id""#)

            // An annotation of an annotation, and of an included association.
            let nested = AJChapter.annotated(withRequired: AJChapter.novel.select(Column("title")).annotated(withRequired: AJNovel.author.select(Column("name")))).order(Column("id"))
            try expectSQL(db, nested, #"SELECT "chapter".*, "novel"."title", "writer"."name" FROM "chapter" JOIN "novel" ON "novel"."id" = "chapter"."novelId" JOIN "writer" ON "writer"."id" = "novel"."writerId" ORDER BY "chapter"."id""#)
            let inside = AJChapter.including(required: AJChapter.novel.including(optional: AJNovel.translator).annotated(withRequired: AJNovel.author.select(Column("name")))).order(Column("id"))
            try expectSQL(db, inside, #"SELECT "chapter".*, "novel".*, "writer2"."name", "writer1".* FROM "chapter" JOIN "novel" ON "novel"."id" = "chapter"."novelId" LEFT JOIN "writer" "writer1" ON "writer1"."id" = "novel"."translatorId" JOIN "writer" "writer2" ON "writer2"."id" = "novel"."writerId" ORDER BY "chapter"."id""#)
            let insideRows = try Row.fetchAll(db, inside)
            #expect(insideRows[0].scopes["novel"]?["name"] == "Calvino")
            #expect(insideRows[0].scopes["novel"]?.scopes["translator"]?["name"] == "Weaver")
        }
    }

    /// SQL literals of orderings are columns of the request's table, qualified when it joins
    /// others (only subqueries keep theirs unqualified, LIT-1).
    @Test func orderingLiteralsAreQualified() throws {
        try withLibrary { db in
            let request = AJNovel.including(required: AJNovel.author).order(literal: "\(Column("id")) DESC")
            try expectSQL(db, request, #"SELECT "novel".*, "writer".* FROM "novel" JOIN "writer" ON "writer"."id" = "novel"."writerId" ORDER BY "novel"."id" DESC"#)
            #expect(try Row.fetchAll(db, request).map { $0["id"] as Int64 } == [3, 2, 1])
        }
    }

    @Test func userAliasesInJoins() throws {
        try withLibrary { db in
            // A filter on the associated table from the base request, through an alias.
            let authorAlias = TableAlias(name: "a")
            let request = AJNovel.joining(required: AJNovel.author.aliased(authorAlias)).filter(authorAlias[Column("name")] == "Pessoa")
            try expectSQL(db, request, #"SELECT "novel".* FROM "novel" JOIN "writer" "a" ON "a"."id" = "novel"."writerId" WHERE "a"."name" = ?"#)
            #expect(try request.fetchAll(db).map(\.title) == ["Book of Disquiet"])

            // An alias of the base table, used in an association filter.
            let novelAlias = TableAlias<AJNovel>()
            let sameYear = AJNovel.all().aliased(novelAlias).joining(required: AJNovel.chapters.filter(Column("position") < novelAlias[Column("year")]))
            try expectSQL(db, sameYear, #"SELECT "novel".* FROM "novel" JOIN "chapter" ON ("chapter"."novelId" = "novel"."id") AND ("chapter"."position" < "novel"."year")"#)
        }
    }

    @Test func tablesAndRowsJoin() throws {
        try withLibrary { db in
            let novels = Table("novel")
            let author = novels.belongsTo(Table("writer"), using: ForeignKey(["writerId"]))
            let request = novels.including(required: author).filter(Column("year") < 1960)
            try expectSQL(db, request, #"SELECT "novel".*, "writer".* FROM "novel" JOIN "writer" ON "writer"."id" = "novel"."writerId" WHERE "novel"."year" < ?"#)
            let row = try request.fetchOne(db)!
            #expect(row["title"] == "Baron in the Trees")
            #expect(row.scopes["writer"]?["name"] == "Calvino")
        }
    }
}

@Suite("Associations: common table expressions")
struct AssociationCTETests {
    @Test func associationToCommonTableExpression() throws {
        try withLibrary { (db: Database) throws in
            // The latest novel of each writer.
            let latestNovel = CommonTableExpression<AJNovel>(
                named: "latestNovel",
                request: AJNovel.annotated(with: max(Column("year"))).group(Column("writerId")))
            let association = AJWriter.association(to: latestNovel) { writer, novel in
                writer[Column("id")] == novel[Column("writerId")]
            }
            let request = AJWriter.with(latestNovel).including(optional: association).order(Column("id"))
            let sql = try sqlOf(db, request)
            #expect(sql == #"WITH "latestNovel" AS (SELECT *, MAX("year") FROM "novel" GROUP BY "writerId") SELECT "writer".*, "latestNovel".* FROM "writer" LEFT JOIN "latestNovel" ON "writer"."id" = "latestNovel"."writerId" ORDER BY "writer"."id""#)
            struct WriterInfo: Decodable, FetchableRecord {
                var writer: AJWriter
                var latestNovel: AJNovel?
            }
            let infos = try request.asRequest(of: WriterInfo.self).fetchAll(db)
            #expect(infos.map(\.latestNovel?.title) == ["Invisible Cities", "Book of Disquiet", nil])

            // From a common table expression to a table.
            let novels = latestNovel.association(to: AJChapter.self) { novel, chapter in chapter[Column("novelId")] == novel[Column("id")] }
            let chapters = try latestNovel.all().with(latestNovel).joining(required: novels).select(Column("title"), as: String.self).distinct().fetchAll(db)
            #expect(chapters.sorted() == ["Book of Disquiet", "Invisible Cities"])
        }
    }

    @Test func commonTableExpressionsOfAssociations() throws {
        try withLibrary { (db: Database) throws in
            // CTE-1: a CTE attached to an association goes to the WITH clause of the statement.
            let recent = CommonTableExpression(named: "recent", sql: "SELECT id FROM novel WHERE year > 1970")
            let request = AJWriter.joining(optional: AJWriter.novels.with(recent).filter(sql: "novel.id IN recent")).select(Column("name")).distinct().order(Column("name"))
            #expect(try sqlOf(db, request) == #"WITH "recent" AS (SELECT id FROM novel WHERE year > 1970) SELECT DISTINCT "writer"."name" FROM "writer" LEFT JOIN "novel" ON ("novel"."writerId" = "writer"."id") AND (novel.id IN recent) ORDER BY "writer"."name""#)
            #expect(try String.fetchAll(db, request).count == 3)
            // CTE-2: an association to a CTE without condition has no ON; joined twice, the
            // last condition wins.
            let everyCountry = CommonTableExpression(named: "everyCountry", sql: "SELECT code FROM country")
            let plain = AJWriter.association(to: everyCountry)
            #expect(try sqlOf(db, AJWriter.with(everyCountry).joining(required: plain).select(Column("name"))) ==
                #"WITH "everyCountry" AS (SELECT code FROM country) SELECT "writer"."name" FROM "writer" JOIN "everyCountry""#)
            let first = AJWriter.association(to: everyCountry) { writer, country in writer[Column("countryCode")] == country[Column("code")] }
            let last = AJWriter.association(to: everyCountry) { writer, country in writer[Column("countryCode")] != country[Column("code")] }
            let twice = AJWriter.with(everyCountry).joining(required: first).joining(required: last).select(Column("name"))
            #expect(try sqlOf(db, twice).hasSuffix(#"JOIN "everyCountry" ON "writer"."countryCode" <> "everyCountry"."code""#))
        }
    }

    /// As GRDB (CTE-3): an included CTE counts its columns from its request's selection, so
    /// it may read another CTE of the statement; when counting needs SQL that does not
    /// compile alone, the error says how to give the columns.
    @Test func includedCommonTableExpressionReadingAnother() throws {
        try withLibrary { (db: Database) throws in
            let recent = CommonTableExpression(named: "recent", request: AJNovel.select(Column("writerId"), Column("title")).filter(Column("year") > 1970))
            let titled = CommonTableExpression(named: "titled", request: Table("recent").select(Column("writerId"), Column("title")))
            let association = AJWriter.association(to: titled) { writer, titled in titled[Column("writerId")] == writer[Column("id")] }
            let rows = try Row.fetchAll(db, AJWriter.with(recent).with(titled).including(required: association).order(Column("id")))
            #expect(rows.map { $0.scopes["titled"]?["title"] as String? } == ["Invisible Cities", "Book of Disquiet"])

            for titled in [
                CommonTableExpression(named: "titled", sql: "SELECT writerId, title FROM recent"),
                CommonTableExpression(named: "titled", request: Table("recent").all()),
            ] {
                let association = AJWriter.association(to: titled) { writer, titled in titled[Column("writerId")] == writer[Column("id")] }
                let error = try #require(throws: DatabaseError.self) {
                    try Row.fetchAll(db, AJWriter.with(recent).with(titled).including(required: association))
                }
                #expect(error.resultCode == .SQLITE_ERROR)
                #expect(error.message == #"Can't compute the number of columns in the "titled" common table expression: no such table: recent. Check the syntax of the SQL definition, or provide the explicit list of selected columns with the `columns` parameter in the CommonTableExpression initializer."#)
            }

            // A CTE's own common table expressions count; raw SQL in the selection is counted
            // by compiling; other errors than SQLITE_ERROR keep their message.
            let own = CommonTableExpression(named: "titled", request: Table("recent").with(recent).select(Column("writerId"), Column("title")).filter(sql: "1"))
            let ownAll = CommonTableExpression(named: "titled", request: Table("recent").with(recent).all())
            let literal = CommonTableExpression(named: "titled", request: AJNovel.select(sql: "writerId, title").filter(Column("year") > 1970))
            for titled in [own, ownAll, literal] {
                let association = AJWriter.association(to: titled) { writer, titled in titled[Column("writerId")] == writer[Column("id")] }
                let rows = try Row.fetchAll(db, AJWriter.with(titled).including(required: association).order(Column("id")))
                #expect(rows.map { $0.scopes["titled"]?["title"] as String? } == ["Invisible Cities", "Book of Disquiet"])
            }

            // With the columns given, no counting.
            let named = CommonTableExpression(named: "titled", columns: ["writerId", "title"], sql: "SELECT writerId, title FROM recent")
            let namedAssociation = AJWriter.association(to: named) { writer, titled in titled[Column("writerId")] == writer[Column("id")] }
            #expect(try Row.fetchAll(db, AJWriter.with(recent).with(named).including(required: namedAssociation)).count == 2)
        }
    }
}

@Suite("Associations: foreign keys and errors")
struct AssociationForeignKeyTests {
    @Test func ambiguousAndMissingForeignKeysThrow() throws {
        try withLibrary { db in
            // novel has two foreign keys to writer: inference is ambiguous.
            let ambiguous = AJNovel.belongsTo(AJWriter.self)
            let error = expectDatabaseError(.SQLITE_ERROR) { _ = try AJNovel.including(required: ambiguous).fetchAll(db) }
            #expect(error?.message?.contains("Ambiguous foreign key from novel to writer") == true)

            // No foreign key from chapter to country.
            let missing = AJChapter.belongsTo(AJCountry.self)
            let missingError = expectDatabaseError(.SQLITE_ERROR) { _ = try AJChapter.joining(optional: missing).fetchAll(db) }
            #expect(missingError?.message?.contains("Could not infer foreign key from chapter to country") == true)

            // A foreign key whose columns do not match the destination columns.
            let bad = AJNovel.belongsTo(AJWriter.self, using: ForeignKey(["writerId", "translatorId"], to: ["id"]))
            expectDatabaseError(.SQLITE_MISUSE) { _ = try AJNovel.including(required: bad).fetchAll(db) }
        }
    }

    @Test func foreignKeysFromColumnsAndInference() throws {
        try withLibrary { db in
            // Inferred: writer.countryCode → country.code.
            try expectSQL(db, AJCountry.joining(required: AJCountry.writers).select(Column("code")),
                #"SELECT "country"."code" FROM "country" JOIN "writer" ON "writer"."countryCode" = "country"."code""#)
            // Columns given as ColumnExpression, with destination columns.
            let translator = AJNovel.belongsTo(AJWriter.self, key: "translator", using: ForeignKey([Column("translatorId")], to: [Column("id")]))
            #expect(try AJNovel.joining(required: translator).fetchCount(db) == 1)
            // The symmetric hasMany reuses the foreign key of the other side.
            let translated = AJWriter.hasMany(AJNovel.self, key: "translatedNovels", using: ForeignKey(["translatorId"]))
            let names = try AJWriter.joining(required: translated).select(Column("name"), as: String.self).fetchAll(db)
            #expect(names == ["Weaver"])
        }
    }

    @Test func requestForRecord() throws {
        try withLibrary { db in
            let calvino = try AJWriter.fetchOne(db, key: 1)!
            try expectSQL(db, calvino.request(for: AJWriter.novels), #"SELECT * FROM "novel" WHERE "writerId" = ?"#)
            #expect(try calvino.request(for: AJWriter.novels).order(Column("year")).fetchAll(db).map(\.year) == [1957, 1972])
            #expect(try calvino.request(for: AJWriter.country).fetchOne(db)?.name == "Italy")

            let novel = try AJNovel.fetchOne(db, key: 2)!
            // A NULL foreign key matches nothing: WHERE ? bound to false.
            try expectSQL(db, novel.request(for: AJNovel.translator), #"SELECT * FROM "writer" WHERE ?"#)
            #expect(try novel.request(for: AJNovel.translator).fetchOne(db) == nil)
            #expect(try novel.request(for: AJNovel.chapters).fetchCount(db) == 0)
        }
    }
}
