#if SQLCIPHER
import GRDBCipher
#else
import GRDB
#endif
import Foundation

// Schema 1: author, book, painting.
struct Author1: TableRecord, FetchableRecord, Decodable {
    static let databaseTableName = "author"
    static let books = hasMany(Book1.self)
    static let paintings = hasMany(Painting1.self)
    var id: Int64
}
struct Book1: TableRecord, FetchableRecord, Decodable {
    static let databaseTableName = "book"
    static let author = belongsTo(Author1.self)
    var id: Int64
}
struct Painting1: TableRecord {
    static let databaseTableName = "painting"
}

extension DerivableRequest<Book1> {
    func filter(authorCountry: String) -> Self {
        joining(required: Book1.author.filter(Column("country") == authorCountry))
    }
    func orderedByAuthorNameAndYear() -> Self {
        let authorAlias = TableAlias<Author1>()
        return self
            .joining(optional: Book1.author.aliased(authorAlias))
            .order(authorAlias[Column("name")].collating(.localizedCaseInsensitiveCompare), Column("year"))
    }
}

// Schema 2: country, person, book with author and translator.
struct Country2: TableRecord {
    static let databaseTableName = "country"
}
struct Person2: TableRecord {
    static let databaseTableName = "person"
    static let country = belongsTo(Country2.self)
}
struct Book2: TableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(Person2.self, key: "author", using: ForeignKey(["authorId"]))
    static let translator = belongsTo(Person2.self, key: "translator", using: ForeignKey(["translatorId"]))
    static let country = hasOne(Country2.self, through: author, using: Person2.country)
}

// Schema 3: team, player.
struct Team3: TableRecord {
    static let databaseTableName = "team"
    static let players = hasMany(Player3.self)
}
struct Player3: TableRecord {
    static let databaseTableName = "player"
}

final class Recorder: @unchecked Sendable {
    var sql: [String] = []
}

func show<T>(_ name: String, _ db: Database, _ recorder: Recorder, _ request: QueryInterfaceRequest<T>) {
    recorder.sql = []
    do {
        let rows = try Row.fetchAll(db, request)
        print("== \(name)")
        for sql in recorder.sql { print(sql) }
        for row in rows.prefix(3) { print("ROW \(row.debugDescription)") }
    } catch {
        print("== \(name)")
        for sql in recorder.sql { print(sql) }
        print("ERROR \(error)")
    }
}

func traced(_ schema: String) throws -> (DatabaseQueue, Recorder) {
    let dbQueue = try DatabaseQueue()
    let recorder = Recorder()
    try dbQueue.write { db in try db.execute(sql: schema) }
    try dbQueue.inDatabase { db in
        db.trace(options: .statement) { event in
            let text = "\(event)"
            if text.hasPrefix("SELECT") || text.hasPrefix("WITH"), !text.contains("sqlite_"), !text.contains("pragma_") {
                recorder.sql.append(text)
            }
        }
    }
    return (dbQueue, recorder)
}

let (db1, rec1) = try traced("""
    CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT, country TEXT);
    CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT, year INTEGER, kind TEXT);
    CREATE TABLE painting(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT, year INTEGER);
    INSERT INTO author VALUES (1, 'A', 'FR'), (2, 'B', 'US');
    INSERT INTO book VALUES (1, 1, 't', 2000, 'novel'), (2, 1, 'u', 2011, 'poem'), (3, 2, 'v', 1990, 'novel');
    """)
try db1.inDatabase { db in
    show("includingRequired", db, rec1, Book1.including(required: Book1.author))
    show("includingOptional", db, rec1, Book1.including(optional: Book1.author))
    show("includingAll", db, rec1, Author1.including(all: Author1.books))
    show("includingAllSelect", db, rec1, Author1.including(all: Author1.books.select(Column("title")).forKey("bookTitles")))
    show("annotatedWithRequired", db, rec1, Book1.annotated(withRequired: Book1.author.select(Column("name"), Column("country"))))
    show("annotatedWithRequiredForKey", db, rec1, Book1.annotated(withRequired: Book1.author.select(Column("name").forKey("authorName"))))
    show("annotatedWithOptional", db, rec1, Book1.annotated(withOptional: Book1.author.select(Column("name"), Column("country"))))
    show("joiningRequiredFrance", db, rec1, Book1.joining(required: Book1.author.filter(Column("country") == "France")))
    show("joiningOptional", db, rec1, Book1.joining(optional: Book1.author))
    show("selectIdName", db, rec1, Book1.including(required: Book1.author.select(Column("id"), Column("name"))))
    show("fluent", db, rec1, Book1.all().filter(authorCountry: "FR").orderedByAuthorNameAndYear().including(required: Book1.author))
    show("annotatedCountMax", db, rec1, Author1.annotated(with: Author1.books.count, Author1.books.max(Column("year"))))
    show("havingIsEmpty", db, rec1, Author1.having(Author1.books.isEmpty))
    show("havingNotIsEmpty", db, rec1, Author1.having(Author1.books.isEmpty == false))
    show("havingCount", db, rec1, Author1.having(Author1.books.count >= 2))
    show("havingMax", db, rec1, Author1.having(Author1.books.max(Column("year")) >= 2010))
    show("havingNovels", db, rec1, Author1.having(Author1.books.filter(Column("kind") == "novel").isEmpty == false))
    show("havingMoreBooks", db, rec1, Author1.having(Author1.books.count > Author1.paintings.count))
    show("havingNoBookSomePainting", db, rec1, Author1.having(Author1.books.isEmpty && !Author1.paintings.isEmpty))
    show("havingAnd", db, rec1, Author1.having(Author1.books.isEmpty && Author1.paintings.isEmpty))
    show("workCount", db, rec1, Author1.annotated(with: (Author1.books.count + Author1.paintings.count).forKey("workCount")))
    show("minMax", db, rec1, Author1.annotated(with: Author1.books.min(Column("year")), Author1.books.max(Column("year"))))
    let novelCount = Author1.books.filter(Column("kind") == "novel").forKey("novels").count
    let theatrePlayCount = Author1.books.filter(Column("kind") == "theatrePlay").forKey("theatrePlays").count
    show("isolation", db, rec1, Author1.annotated(with: novelCount, theatrePlayCount))
    let wrongNovels = Author1.books.filter(Column("kind") == "novel").count.forKey("novelCount")
    let wrongPlays = Author1.books.filter(Column("kind") == "theatrePlay").count.forKey("theatrePlayCount")
    show("isolationWrong", db, rec1, Author1.annotated(with: wrongNovels, wrongPlays))
}

try db1.inDatabase { db in
    for row in try Row.fetchAll(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c", adapter: ColumnMapping(["x": "a"])) { print("ADAPTED \(row.debugDescription)") }
    for row in try Row.fetchAll(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c", adapter: ScopeAdapter(["s": SuffixRowAdapter(fromIndex: 1)])) { print("SCOPED \(row.debugDescription)") }
    for row in try Row.fetchAll(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c", adapter: ScopeAdapter(base: RangeRowAdapter(0..<1), scopes: ["s": SuffixRowAdapter(fromIndex: 1), "t": ScopeAdapter(["u": SuffixRowAdapter(fromIndex: 2)])])) { print("NESTED \(row.debugDescription)") }
    let literal: Row = ["a": 1, "b": "x"]
    print("LITERAL \(literal.debugDescription)")
    print("EMPTY \(Row().debugDescription)")
}

let (db2, rec2) = try traced("""
    CREATE TABLE country(code TEXT PRIMARY KEY, name TEXT);
    CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, countryCode TEXT REFERENCES country(code), deathDate TEXT);
    CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES person(id), translatorId INTEGER REFERENCES person(id), title TEXT, publishDate TEXT);
    """)
try db2.inDatabase { db in
    show("parallel", db, rec2, Book2.including(required: Book2.author).including(optional: Book2.translator))
    show("chained", db, rec2, Book2.including(required: Book2.author.including(optional: Person2.country)))
    show("chainedJoining", db, rec2, Book2.joining(optional: Book2.author.including(optional: Person2.country)))
    show("through", db, rec2, Book2.including(optional: Book2.country))
    show("filterFR", db, rec2, Book2.joining(required: Book2.author.filter(Column("countryCode") == "FR")))
    show("sortAssociated", db, rec2, Book2.including(required: Book2.author.order(Column("name"))))
    show("sortBoth", db, rec2, Book2.including(required: Book2.author.order(Column("name"))).order(Column("publishDate").desc))
    show("wrongAlias", db, rec2, Book2.joining(required: Book2.author).filter(Column("publishDate") >= Column("deathDate")))
    let authorAlias = TableAlias<Person2>()
    show("alias", db, rec2, Book2.joining(required: Book2.author.aliased(authorAlias)).filter(Column("publishDate") >= authorAlias[Column("deathDate")]))
    let authorAlias2 = TableAlias<Person2>()
    show("aliasOrder", db, rec2, Book2.joining(required: Book2.author.aliased(authorAlias2)).order(authorAlias2[Column("name")], Column("publishDate")))
    let bookAlias = TableAlias<Book2>(name: "b")
    let namedAuthor = TableAlias<Person2>(name: "a")
    show("namedAliases", db, rec2, Book2.aliased(bookAlias)
        .joining(required: Book2.author.aliased(namedAuthor).filter(sql: "a.countryCode = ?", arguments: ["FR"]))
        .filter(sql: "b.publishDate >= a.deathDate"))
}

let (db3, rec3) = try traced("""
    CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
    CREATE TABLE player(id INTEGER PRIMARY KEY, teamId INTEGER REFERENCES team(id), score INTEGER);
    """)
try db3.inDatabase { db in
    show("ifnull", db, rec3, Team3.annotated(with: Team3.players.min(Column("score")) ?? 0))
    show("abs", db, rec3, Team3.annotated(with: abs(Team3.players.max(Column("score")))))
    show("negate", db, rec3, Team3.annotated(with: -Team3.players.count))
    show("ifnullAggregates", db, rec3, Team3.annotated(with: Team3.players.max(Column("score")) ?? Team3.players.min(Column("score"))))
    show("cast", db, rec3, Team3.annotated(with: cast(Team3.players.max(Column("score")), as: .text)))
    show("length", db, rec3, Team3.annotated(with: length(Team3.players.max(Column("score")))))
    show("plusOne", db, rec3, Team3.annotated(with: Team3.players.count + 1))
    show("avgIfnull", db, rec3, Team3.annotated(with: Team3.players.average(Column("score")) ?? 0))
    show("sumIfnull", db, rec3, Team3.annotated(with: Team3.players.sum(Column("score")) ?? 0))
    show("total", db, rec3, Team3.annotated(with: Team3.players.total(Column("score"))))
    show("countIfnull", db, rec3, Team3.annotated(with: Team3.players.count ?? 0))
    show("ifnullForKey", db, rec3, Team3.annotated(with: (Team3.players.min(Column("score")) ?? 0).forKey("x")))
    show("forKeyIfnull", db, rec3, Team3.annotated(with: Team3.players.min(Column("score")).forKey("y") ?? 0))
    show("ifnullIfnull", db, rec3, Team3.annotated(with: (Team3.players.min(Column("score")) ?? Team3.players.max(Column("score"))) ?? 0))
    show("isEmptyAnnot", db, rec3, Team3.annotated(with: Team3.players.isEmpty))
    show("notIsEmpty", db, rec3, Team3.annotated(with: !Team3.players.isEmpty))
    show("ifnullColumn", db, rec3, Team3.annotated(with: Team3.players.min(Column("score")) ?? Column("id")))
}

// Part 2: shapes beyond the guide's SQL.
struct P4: FetchableRecord, PersistableRecord, Codable {
    static let databaseTableName = "person"
    static let parent = belongsTo(P4.self)
    static let children = hasMany(P4.self)
    static let grandChildren = hasMany(P4.self, through: children, using: P4.children, key: "grandChildren")
    var id: Int64
    var parentId: Int64?
}
struct C4: FetchableRecord, PersistableRecord, Codable {
    var code: String
    static let databaseTableName = "country"
    static let authors = hasMany(A4.self)
    static let books = hasMany(B4.self, through: authors, using: A4.books)
    static let people = hasMany(A4.self, key: "people")
}
struct A4: FetchableRecord, PersistableRecord, Codable {
    static let databaseTableName = "author"
    static let books = hasMany(B4.self)
    static let country = belongsTo(C4.self)
    var id: Int64
}
struct B4: FetchableRecord, PersistableRecord, Codable {
    static let databaseTableName = "book"
    static let author = belongsTo(A4.self)
    static let country = hasOne(C4.self, through: author, using: A4.country)
    static let chapters = hasMany(Ch4.self)
    var id: Int64
    var authorId: Int64?
}
struct Ch4: TableRecord {
    static let databaseTableName = "chapter"
    static let book = belongsTo(B4.self)
}
struct Parent4: TableRecord {
    static let databaseTableName = "parent"
    static let children = hasMany(Child4.self)
}
struct Child4: TableRecord {
    static let databaseTableName = "child"
    static let parent = belongsTo(Parent4.self)
}

let (db4, rec4) = try traced("""
    CREATE TABLE country(code TEXT PRIMARY KEY, name TEXT);
    CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT, countryCode TEXT REFERENCES country(code));
    CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT, pages INTEGER, year INTEGER);
    CREATE TABLE chapter(id INTEGER PRIMARY KEY, bookId INTEGER REFERENCES book(id), title TEXT);
    CREATE TABLE person(id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES person(id), name TEXT);
    CREATE TABLE parent(a TEXT, b INTEGER, name TEXT, PRIMARY KEY(a, b));
    CREATE TABLE child(id INTEGER PRIMARY KEY, parentA TEXT, parentB INTEGER, FOREIGN KEY(parentA, parentB) REFERENCES parent(a, b));
    INSERT INTO country VALUES ('FR', 'France'), ('AR', 'Argentina');
    INSERT INTO author VALUES (1, 'A', 'FR'), (2, 'B', 'AR'), (3, 'C', 'FR');
    INSERT INTO book VALUES (1, 1, 't', 100, 2000), (2, 2, 'u', 200, 2001), (3, NULL, 'v', 300, 2002);
    INSERT INTO chapter VALUES (1, 1, 'c1'), (2, 1, 'c2'), (3, 2, 'c3');
    INSERT INTO person VALUES (1, NULL, 'root'), (2, 1, 'kid'), (3, 2, 'grandkid');
    INSERT INTO parent VALUES ('x', 1, 'p1'), ('y', 2, 'p2');
    INSERT INTO child VALUES (1, 'x', 1), (2, 'y', 2), (3, 'x', 1);
    """)
try db4.inDatabase { db in
    show("selfJoin", db, rec4, P4.including(optional: P4.parent).including(all: P4.children))
    show("selfJoinRequired", db, rec4, P4.including(required: P4.parent.including(optional: P4.parent)))
    show("grandChildren", db, rec4, P4.including(all: P4.grandChildren))
    show("throughPrefetch", db, rec4, C4.including(all: C4.books))
    show("throughJoin", db, rec4, C4.joining(required: C4.books))
    show("throughOneIncluded", db, rec4, B4.including(optional: B4.country))
    show("nestedPrefetch", db, rec4, A4.including(all: A4.books.including(all: B4.chapters)))
    show("includedThenPrefetch", db, rec4, B4.including(required: B4.author.including(all: A4.books)))
    show("singleKeyPrefetch", db, rec4, A4.filter(Column("id") == 1).including(all: A4.books))
    show("emptyPrefetch", db, rec4, A4.filter(Column("id") == 99).including(all: A4.books))
    show("compositePrefetch", db, rec4, Parent4.including(all: Parent4.children))
    show("compositePrefetchLimit", db, rec4, Parent4.order(Column("name")).limit(1).including(all: Parent4.children))
    show("compositeJoin", db, rec4, Child4.including(required: Child4.parent))
    show("textPKAggregate", db, rec4, C4.annotated(with: C4.authors.count))
    show("peopleCount", db, rec4, C4.annotated(with: C4.people.count, C4.people.isEmpty))
    show("sumTotal", db, rec4, A4.annotated(with: A4.books.sum(Column("pages")), A4.books.total(Column("pages")), A4.books.average(Column("pages"))))
    show("sameKeyTwice", db, rec4, B4.including(required: B4.author).including(optional: B4.author.forKey("writer")))
    show("prefetchOrderedFiltered", db, rec4, A4.order(Column("name").desc).including(all: A4.books.filter(Column("year") > 2000).order(Column("title"))))
    show("prefetchForKeyRows", db, rec4, A4.including(all: A4.books.forKey("works")).asRequest(of: Row.self))
    show("throughAggregate", db, rec4, C4.annotated(with: C4.books.count))
    show("havingThrough", db, rec4, C4.having(C4.books.isEmpty))
    show("joinedFilterOnBase", db, rec4, B4.joining(required: B4.author.filter(Column("name") == "A")).filter(Column("year") > 1999).order(Column("title")).limit(2))
    show("annotatedRequiredFilter", db, rec4, B4.annotated(withRequired: B4.author.select(Column("name").forKey("authorName")).filter(Column("name") != "B")))
    show("distinctIncluded", db, rec4, A4.joining(required: A4.books).distinct())
    show("countJoin", db, rec4, A4.joining(required: A4.books).select(count(Column("id"))).asRequest(of: Int.self))
    let book = try B4.fetchOne(db, key: 3)!
    show("requestForNullFK", db, rec4, book.request(for: B4.author))
    let book1 = try B4.fetchOne(db, key: 1)!
    show("requestFor", db, rec4, book1.request(for: B4.author))
    show("requestForThrough", db, rec4, book1.request(for: B4.country))
    let author1 = try A4.fetchOne(db, key: 1)!
    show("requestForMany", db, rec4, author1.request(for: A4.books))
    show("requestForManyOrdered", db, rec4, author1.request(for: A4.books.order(Column("year"))))
    show("requestForManyFiltered", db, rec4, author1.request(for: A4.books.filter(Column("year") > 1999)))
    show("throughPrefetchFiltered", db, rec4, C4.including(all: C4.books.filter(Column("year") > 1999)))
    let filteredThrough = C4.hasMany(B4.self, through: C4.authors.filter(Column("name") != "Z"), using: A4.books.filter(Column("year") > 1999), key: "ft")
    show("throughPrefetchPivotFiltered", db, rec4, C4.including(all: filteredThrough))
    let fr = try Row.fetchOne(db, sql: "SELECT 1")!
    _ = fr
    show("prefetchPivotFilteredJoin", db, rec4, C4.joining(required: filteredThrough))
    show("nestedPrefetchFiltered", db, rec4, A4.including(all: A4.books.filter(Column("year") > 1999).including(all: B4.chapters.filter(Column("title") != "z"))))
    show("includedThenPrefetchFiltered", db, rec4, B4.including(required: B4.author.filter(Column("name") != "Z").including(all: A4.books.filter(Column("year") > 1999))))
    show("optionalThenPrefetch", db, rec4, B4.including(optional: B4.author.including(all: A4.books)))
    show("grandChildrenJoin", db, rec4, P4.joining(required: P4.grandChildren))
    show("grandChildrenIncluded", db, rec4, P4.including(required: P4.grandChildren))
    show("grandChildrenAggregate", db, rec4, P4.annotated(with: P4.grandChildren.count))
    show("twoLevelNested", db, rec4, Ch4.including(required: Ch4.book.including(required: B4.author.including(all: A4.books))))
    show("pivotWithJoin", db, rec4, B4.including(required: B4.author.including(optional: A4.country).including(all: A4.books)))
    show("pivotOrdered", db, rec4, B4.including(required: B4.author.including(all: A4.books.forKey("works")).order(Column("name"))))
    show("nestedThroughInJoin", db, rec4, B4.including(required: B4.author.including(optional: A4.country.including(all: C4.books))))
    show("joinThroughPrefetchInJoin", db, rec4, A4.including(optional: A4.country.including(all: C4.books)))
    let orderedThrough = C4.hasMany(B4.self, through: C4.authors.order(Column("name")), using: A4.books, key: "ot")
    show("orderedPivotPrefetch", db, rec4, C4.including(all: orderedThrough))
    show("orderedPivotJoin", db, rec4, C4.including(required: orderedThrough))
    let orderedDestThrough = C4.hasMany(B4.self, through: C4.authors, using: A4.books.order(Column("title")), key: "odt")
    show("orderedDestPrefetch", db, rec4, C4.including(all: orderedDestThrough))
    let pivotJoinThrough = C4.hasMany(B4.self, through: C4.authors.including(optional: A4.country), using: A4.books, key: "pjt")
    show("pivotJoinPrefetch", db, rec4, C4.including(all: pivotJoinThrough))
    show("optionalNestedOrderedPrefetch", db, rec4, B4.including(optional: B4.author.including(all: A4.books.order(Column("title"))).filter(Column("name") != "Z")).order(Column("title")))
    let countryFR = try C4.fetchOne(db, sql: "SELECT * FROM country WHERE code = 'FR'")!
    show("requestForOrderedThrough", db, rec4, countryFR.request(for: C4.hasMany(B4.self, through: C4.authors.order(Column("name")), using: A4.books)))
    show("refinement1", db, rec4, B4.including(required: B4.author.including(all: A4.books.order(Column("title")))).order(Column("id")))
    show("refinement2", db, rec4, B4.including(optional: B4.author.including(optional: A4.country).including(all: A4.books.order(Column("year")))).filter(Column("year") < 1990).order(Column("id")))
    show("scopeOrder", db, rec4, B4.including(optional: B4.author.forKey("zed")).including(required: B4.author.forKey("alpha")).including(optional: B4.author.forKey("mid")))
    show("prefetchOrder", db, rec4, A4.including(all: A4.books.forKey("zz")).including(all: A4.books.forKey("aa")).including(all: A4.books.forKey("mm")))
    show("compositeChain", db, rec4, Child4.including(required: Child4.parent.including(all: Parent4.children)).order(Column("id")))
    show("twoJoinsDeep", db, rec4, B4.including(required: B4.author.including(required: A4.country.including(all: C4.authors.order(Column("name"))))).order(Column("id")))
    let p1 = try P4.fetchOne(db, key: 1)!
    show("requestForGrandChildren", db, rec4, p1.request(for: P4.grandChildren))
    let cte = CommonTableExpression(named: "recent", request: B4.filter(Column("year") > 2000))
    let assoc = A4.association(to: cte, on: { left, right in left[Column("id")] == right[Column("authorId")] })
    show("cteJoin", db, rec4, A4.with(cte).including(optional: assoc))
    show("tableAssoc", db, rec4, Table("author").including(all: Table("author").hasMany(Table("book"))))
    show("tableBelongs", db, rec4, Table("book").including(optional: Table("book").belongsTo(Table("author"))))
}

// Part 3: the query interface and records, every statement.
struct Player5: Codable, FetchableRecord, MutablePersistableRecord, Identifiable {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
    var team: String?
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

let dbQueue5 = try DatabaseQueue()
let rec5 = Recorder()
try dbQueue5.write { db in
    try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INTEGER NOT NULL, team TEXT)")
    try db.execute(sql: "INSERT INTO player(name, score, team) VALUES ('a', 10, 'x'), ('b', 20, 'y'), ('c', 30, NULL)")
}
try dbQueue5.inDatabase { db in
    db.trace(options: .statement) { event in
        let text = "\(event)"
        if !text.contains("sqlite_"), !text.contains("pragma_"), !text.hasPrefix("PRAGMA") {
            rec5.sql.append(text)
        }
    }
}
func run5(_ name: String, _ body: (Database) throws -> Any) {
    rec5.sql = []
    do {
        let result = try dbQueue5.inDatabase { db in try body(db) }
        print("== \(name) -> \(result)")
    } catch {
        print("== \(name) -> ERROR \(error)")
    }
    for sql in rec5.sql { print(sql) }
}
let p = Table<Player5>("player")
_ = p
run5("count") { db in try Player5.fetchCount(db) }
run5("countFiltered") { db in try Player5.filter(Column("score") > 10).fetchCount(db) }
run5("countDistinct") { db in try Player5.select(Column("team")).distinct().fetchCount(db) }
run5("countLimit") { db in try Player5.limit(2).fetchCount(db) }
run5("countGroup") { db in try Player5.all().group(Column("team")).fetchCount(db) }
run5("exists") { db in try Player5.filter(Column("name") == "a").isEmpty(db) }
run5("fetchOne") { db in try Player5.filter(Column("score") > 10).order(Column("score").desc).fetchOne(db)?.name ?? "nil" }
run5("fetchOneKey") { db in try Player5.fetchOne(db, key: 1)?.name ?? "nil" }
run5("fetchKeys") { db in try Player5.fetchAll(db, keys: [1, 2, 99]).map(\.name) }
run5("filterKeyDict") { db in try Player5.filter(key: ["name": "b"]).fetchAll(db).map(\.name) }
run5("existsKey") { db in try Player5.exists(db, key: 2) }
run5("deleteAll") { db in try Player5.filter(Column("score") > 100).deleteAll(db) }
run5("deleteKey") { db in try Player5.deleteOne(db, key: 99) }
run5("updateAll") { db in try Player5.filter(Column("team") == nil).updateAll(db, Column("score") += 1) }
run5("updateAllSet") { db in try Player5.updateAll(db, Column("team").set(to: "z"), Column("score").set(to: Column("score") * 2)) }
run5("insert") { db in var pl = Player5(id: nil, name: "d", score: 1, team: nil); try pl.insert(db); return pl.id ?? -1 }
run5("save") { db in var pl = try Player5.fetchOne(db, key: 1)!; pl.score = 99; try pl.save(db); return pl.score }
run5("update") { db in var pl = try Player5.fetchOne(db, key: 1)!; pl.score = 98; try pl.update(db); return pl.score }
run5("updateColumns") { db in var pl = try Player5.fetchOne(db, key: 1)!; pl.score = 97; try pl.update(db, columns: ["score"]); return pl.score }
run5("updateChanges") { db in var pl = try Player5.fetchOne(db, key: 2)!; return try pl.updateChanges(db) { $0.score = 55 } }
run5("upsert") { db in var pl = Player5(id: nil, name: "a", score: 5, team: nil); try pl.upsert(db); return pl.id ?? -1 }
run5("insertAndFetch") { db in var pl = Player5(id: nil, name: "e", score: 2, team: "q"); return try pl.insertAndFetch(db).name }
run5("deleteRecord") { db in let pl = try Player5.fetchOne(db, key: 3)!; return try pl.delete(db) }
run5("selectAs") { db in try Player5.select(Column("name"), as: String.self).order(Column("name")).fetchAll(db) }
run5("selectMax") { db in try Player5.select(max(Column("score")), as: Int.self).fetchOne(db) ?? -1 }
run5("annotatedLiteral") { db in try Player5.annotated(with: SQL("score * 2").forKey("double")).limit(1).asRequest(of: Row.self).fetchOne(db)!.description }
run5("orderReversed") { db in try Player5.order(Column("score"), Column("name").desc).reversed().limit(2, offset: 1).fetchAll(db).map(\.name) }
run5("orderNullsLast") { db in try Player5.order(Column("team").ascNullsLast).fetchAll(db).map(\.name) }
run5("matchingFilterLike") { db in try Player5.filter(Column("name").like("%a%")).fetchAll(db).map(\.name) }
run5("inSubquery") { db in try Player5.filter(Player5.select(Column("id")).filter(Column("score") > 20).contains(Column("id"))).fetchAll(db).map(\.name) }
run5("existsSubquery") { db in try Player5.filter(Player5.filter(Column("score") > 1000).exists()).fetchCount(db) }
run5("groupHaving") { db in try Player5.select(Column("team"), count(Column("id"))).group(Column("team")).having(count(Column("id")) > 0).asRequest(of: Row.self).fetchAll(db).map(\.description) }
run5("fetchSet") { db in try Set(String.fetchAll(db, Player5.select(Column("team")).filter(Column("team") != nil))) }
run5("rowid") { db in try Player5.select(Column.rowID).fetchAll(db).count }
run5("filterId") { db in try Player5.filter(id: 1).fetchAll(db).map(\.name) }
run5("limitOne") { db in try Player5.limit(1).fetchAll(db).count }
run5("allColumnsExcluding") { db in try Player5.select(.allColumns(excluding: ["team"])).limit(1).asRequest(of: Row.self).fetchOne(db)!.description }
run5("cte") { db in
    let cte = CommonTableExpression(named: "top", request: Player5.order(Column("score").desc).limit(2))
    return try cte.all().with(cte).fetchCount(db)
}
run5("recursiveCte") { db in
    let counter = CommonTableExpression(recursive: true, named: "counter", columns: ["n"], literal: "SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 3")
    return try Int.fetchAll(db, counter.all().with(counter))
}
struct Player6: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
    var team: String?
}
run5("upsertPersistable") { db in let pl = Player6(id: nil, name: "b", score: 7, team: nil); try pl.upsert(db); return 0 }
run5("upsertAndFetch") { db in var pl = Player5(id: nil, name: "b", score: 8, team: nil); let s = try pl.upsertAndFetch(db).score; return "\(s) id \(pl.id ?? -1)" }
run5("upsertWithId") { db in var pl = Player5(id: 1, name: "zz", score: 9, team: nil); try pl.upsert(db); return pl.id ?? -1 }
run5("upsertAndFetchTarget") { db in var pl = Player5(id: nil, name: "b", score: 8, team: nil); let r = try pl.upsertAndFetch(db, onConflict: ["name"], doUpdate: { _ in [Column("score") += 1] }); return "\(r.score) id \(pl.id ?? -1)" }
run5("upsertAndFetchNone") { db in var pl = Player5(id: nil, name: "b", score: 8, team: nil); let r = try pl.upsertAndFetch(db, updating: .noColumnUnlessSpecified); return "\(r.score) id \(pl.id ?? -1)" }
run5("upsertAndFetchAs") { db in var pl = Player5(id: nil, name: "b", score: 8, team: nil); let r = try pl.upsertAndFetch(db, as: Player6.self); return "\(r.score) id \(pl.id ?? -1)" }

// Part 4: conversions.
func conv<T>(_ name: String, _ body: (Database) throws -> T) {
    do {
        let v = try dbQueue5.inDatabase { db in try body(db) }
        print("== \(name) -> \(String(describing: v))")
    } catch {
        print("== \(name) -> ERROR \(error)")
    }
}
for sql in ["SELECT 1", "SELECT 1.5", "SELECT 2.0", "SELECT '12'", "SELECT '12abc'", "SELECT ' 7 '", "SELECT 'x'", "SELECT NULL", "SELECT x'3132'", "SELECT 9223372036854775807", "SELECT 1e30", "SELECT -0.0", "SELECT '1.5e2'"] {
    conv("Int \(sql)") { db in try Int.fetchOne(db, sql: sql) }
    conv("Int64 \(sql)") { db in try Int64.fetchOne(db, sql: sql) }
    conv("Int8 \(sql)") { db in try Int8.fetchOne(db, sql: sql) }
    conv("Double \(sql)") { db in try Double.fetchOne(db, sql: sql) }
    conv("String \(sql)") { db in try String.fetchOne(db, sql: sql) }
    conv("Bool \(sql)") { db in try Bool.fetchOne(db, sql: sql) }
    conv("Data \(sql)") { db in try Data.fetchOne(db, sql: sql).map { Array($0) } }
    conv("Date \(sql)") { db in try Date.fetchOne(db, sql: sql).map { $0.timeIntervalSince1970 } }
    conv("DV \(sql)") { db in try DatabaseValue.fetchOne(db, sql: sql) }
    conv("Row \(sql)") { db in try Row.fetchOne(db, sql: sql)?.debugDescription }
}
for sql in ["SELECT '2024-01-02'", "SELECT '2024-01-02 03:04'", "SELECT '2024-01-02 03:04:05'", "SELECT '2024-01-02T03:04:05.678'", "SELECT '2024-01-02 03:04:05.678+02:00'", "SELECT '03:04'", "SELECT 1700000000", "SELECT 1700000000.5", "SELECT 'garbage'"] {
    conv("Date \(sql)") { db in try Date.fetchOne(db, sql: sql).map { $0.timeIntervalSince1970 } }
    conv("DateComponents \(sql)") { db in try DatabaseDateComponents.fetchOne(db, sql: sql).map { "\($0.format) \($0.dateComponents)" } }
}
conv("UUID text") { db in try UUID.fetchOne(db, sql: "SELECT '61626364-6566-6768-696A-6B6C6D6E6F70'") }
conv("UUID blob") { db in try UUID.fetchOne(db, sql: "SELECT x'6162636465666768696A6B6C6D6E6F70'") }
conv("Decimal") { db in try Decimal.fetchOne(db, sql: "SELECT '12.345'") }
conv("Decimal int") { db in try Decimal.fetchOne(db, sql: "SELECT 12") }
conv("Float") { db in try Float.fetchOne(db, sql: "SELECT 1.25") }
conv("URL") { db in try URL.fetchOne(db, sql: "SELECT 'https://example.com/a'") }
conv("DVdesc") { db in try Row.fetchOne(db, sql: "SELECT 1 AS a, 1.5 AS b, 'x' AS c, NULL AS d, x'00ff' AS e, 'he said \"hi\"' AS f")?.description }

// Part 5: schema definitions.
let dbQueue7 = try DatabaseQueue()
let rec7 = Recorder()
try dbQueue7.inDatabase { db in
    db.trace(options: .statement) { event in
        let text = "\(event)"
        if !text.contains("sqlite_"), !text.contains("pragma_"), !text.hasPrefix("PRAGMA"), !text.hasPrefix("SELECT") {
            rec7.sql.append(text)
        }
    }
}
func ddl(_ name: String, _ body: (Database) throws -> Void) {
    rec7.sql = []
    do {
        try dbQueue7.inDatabase { db in try body(db) }
        print("== \(name)")
    } catch {
        print("== \(name) -> ERROR \(error)")
    }
    for sql in rec7.sql { print(sql) }
}
ddl("team") { db in try db.create(table: "team") { t in
    t.primaryKey("id", .text)
    t.column("name", .text).notNull().unique(onConflict: .replace).collate(.nocase)
    t.column("rank", .integer).defaults(to: 1).check { $0 > 0 }
} }
ddl("player") { db in try db.create(table: "player", options: [.ifNotExists]) { t in
    t.autoIncrementedPrimaryKey("id")
    t.belongsTo("team", onDelete: .cascade).notNull()
    t.column("name", .text).notNull().indexed()
    t.column("score", .integer).notNull().defaults(sql: "0")
    t.column("bonus", .double).generatedAs(sql: "score * 2", .stored)
    t.column("created", .datetime).defaults(sql: "CURRENT_TIMESTAMP")
    t.column("data", .blob)
    t.column("json", .jsonText)
    t.check(sql: "score >= 0")
    t.uniqueKey(["name", "teamId"])
} }
ddl("composite") { db in try db.create(table: "membership", options: [.withoutRowID, .strict]) { t in
    t.primaryKey {
        t.column("a", .text)
        t.column("b", .integer)
    }
    t.column("c", .any)
} }
ddl("temp") { db in try db.create(table: "scratch", options: [.temporary]) { t in t.column("x") } }
ddl("fk") { db in try db.create(table: "fk") { t in
    t.column("teamId", .text).references("team", column: "id", onDelete: .setNull, onUpdate: .cascade, deferred: true)
    t.foreignKey(["teamId"], references: "team", columns: ["id"], onDelete: .restrict)
} }
ddl("alter") { db in try db.alter(table: "player") { t in
    t.add(column: "nick", .text).defaults(to: "x")
    t.rename(column: "nick", to: "nickname")
    t.drop(column: "data")
} }
ddl("index") { db in
    try db.create(index: "player_on_score", on: "player", columns: ["score"], options: [.unique, .ifNotExists], condition: Column("score") > 10)
    try db.create(indexOn: "player", columns: ["created"])
}
ddl("view") { db in try db.create(view: "best", options: [.ifNotExists], as: Table("player").filter(Column("score") > 10)) }
ddl("rename") { db in try db.rename(table: "fk", to: "fk2") }
ddl("drop") { db in try db.drop(view: "best"); try db.drop(index: "player_on_score"); try db.drop(table: "fk2") }
ddl("fts5") { db in try db.create(virtualTable: "doc", using: FTS5()) { t in t.tokenizer = .porter(wrapping: .unicode61()); t.column("title"); t.column("body").notIndexed(); t.prefixes = [2, 3] } }
ddl("fts4") { db in try db.create(virtualTable: "doc4", using: FTS4()) { t in t.tokenizer = .unicode61(); t.column("body") } }
do {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("one") { db in try db.execute(sql: "CREATE TABLE m1(x)") }
    migrator.registerMigration("two", foreignKeyChecks: .immediate) { db in try db.execute(sql: "CREATE TABLE m2(x)") }
    rec7.sql = []
    try migrator.migrate(dbQueue7)
    print("== migrator")
    for sql in rec7.sql { print(sql) }
}

// Part 6: regions and row access.
try dbQueue5.inDatabase { db in
    func region(_ name: String, _ r: some FetchRequest) {
        do { print("REGION \(name): \(try r.databaseRegion(db))") } catch { print("REGION \(name): ERROR \(error)") }
    }
    region("all", Player5.all())
    region("select", Player5.select(Column("name")))
    region("key", Player5.filter(key: 1))
    region("keys", Player5.filter(keys: [1, 2]))
    region("filter", Player5.filter(Column("score") > 1))
    region("count", Player5.all().select(count(Column("id"))).asRequest(of: Int.self))
    region("sql", SQLRequest<Row>(sql: "SELECT name FROM player WHERE id = 1"))
    region("rowid", Player5.filter(Column.rowID == 3))
    let row = try Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS A, 3 AS b")!
    print("ROWACCESS \(row["a"] as Int?) \(row["A"] as Int?) \(row["B"] as Int?) \(row.columnNames) \(row.hasColumn("B")) \(row.count)")
    print("ROWEQ \(row == ["a": 1, "A": 2, "b": 3]) \(Row(["x": 1]) == Row(["x": 1.0]))")
    print("DV \(1.databaseValue == 1.0.databaseValue) \("1".databaseValue == 1.databaseValue) \(DatabaseValue.null == DatabaseValue.null)")
}
try probeRound2()
try probeRound3()
