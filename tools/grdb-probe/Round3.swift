#if SQLCIPHER
import GRDBCipher
#else
import GRDB
#endif
import Foundation

// The last shapes of round 2 (shared/findings/grdb-behaviour-gaps-2.md): dumps of prefetched
// rows, CTEs that read CTEs, literals in aliased requests, composite prefetch chains, merged
// prefetches, annotation column order, narrowed regions, FTS5 traces.

struct Author9: TableRecord {
    static let databaseTableName = "author9"
    static let books = hasMany(Book9.self)
    static let chapters = hasMany(Chapter9.self, through: books, using: Book9.chapters)
}
struct Book9: TableRecord {
    static let databaseTableName = "book9"
    static let author = belongsTo(Author9.self)
    static let chapters = hasMany(Chapter9.self)
    static let shelf = belongsTo(Shelf9.self)
    static let room = hasOne(Room9.self, through: shelf, using: Shelf9.room)
}
struct Chapter9: TableRecord {
    static let databaseTableName = "chapter9"
}
struct Shelf9: TableRecord {
    static let databaseTableName = "shelf9"
    static let room = belongsTo(Room9.self)
}
struct Room9: TableRecord {
    static let databaseTableName = "room9"
}
struct R9: TableRecord {
    static let databaseTableName = "r9"
    static let mids = hasMany(M9.self, using: ForeignKey(["ra", "rb"]))
}
struct M9: TableRecord {
    static let databaseTableName = "m9"
    static let leaves = hasMany(L9.self, using: ForeignKey(["mx", "my"]))
}
struct L9: TableRecord {
    static let databaseTableName = "l9"
}

final class StringStream9: TextOutputStream {
    var text = ""
    func write(_ string: String) { text += string }
}

func probeRound3() throws {
    let dbQueue = try DatabaseQueue()
    let recorder = Recorder()
    try dbQueue.write { db in
        try db.execute(sql: """
            CREATE TABLE author9(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE room9(id INTEGER PRIMARY KEY, floor INTEGER);
            CREATE TABLE shelf9(id INTEGER PRIMARY KEY, roomId INTEGER REFERENCES room9(id), label TEXT);
            CREATE TABLE book9(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author9(id), shelfId INTEGER REFERENCES shelf9(id), title TEXT, year INTEGER);
            CREATE TABLE chapter9(id INTEGER PRIMARY KEY, bookId INTEGER REFERENCES book9(id), title TEXT);
            CREATE TABLE r9(a INTEGER, b INTEGER, name TEXT, PRIMARY KEY(a, b));
            CREATE TABLE m9(x INTEGER, y INTEGER, ra INTEGER, rb INTEGER, name TEXT, PRIMARY KEY(x, y), FOREIGN KEY(ra, rb) REFERENCES r9(a, b));
            CREATE TABLE l9(id INTEGER PRIMARY KEY, mx INTEGER, my INTEGER, name TEXT, FOREIGN KEY(mx, my) REFERENCES m9(x, y));
            CREATE VIEW recent9 AS SELECT id, title FROM book9 WHERE year > 2000;
            CREATE VIRTUAL TABLE text9 USING fts5(body);
            INSERT INTO author9 VALUES (1, 'Ann'), (2, 'Bob');
            INSERT INTO room9 VALUES (1, 3);
            INSERT INTO shelf9 VALUES (1, 1, 'top');
            INSERT INTO book9 VALUES (1, 1, 1, 'Dune', 1965), (2, 1, NULL, 'Emma', 2005), (3, 2, 1, 'Kim', 2010);
            INSERT INTO chapter9 VALUES (1, 1, 'c1'), (2, 1, 'c2'), (3, 3, 'c3');
            INSERT INTO r9 VALUES (1, 1, 'r11'), (1, 2, 'r12');
            INSERT INTO m9 VALUES (5, 6, 1, 1, 'm56'), (7, 8, 1, 2, 'm78');
            INSERT INTO l9 VALUES (1, 5, 6, 'l1'), (2, 7, 8, 'l2'), (3, 5, 6, 'l3');
            INSERT INTO text9 VALUES ('hello world');
            """)
    }
    try dbQueue.inDatabase { db in
        db.trace(options: .statement) { event in
            let text = "\(event)"
            if !text.contains("sqlite_"), !text.contains("pragma_"), !text.hasPrefix("PRAGMA") {
                recorder.sql.append(text)
            }
        }
    }
    // Dumps print without their trace: GRDB runs each query of a dump twice, GRDBCipher once.
    func run(_ name: String, traced: Bool = true, _ body: (Database) throws -> Any) {
        recorder.sql = []
        do {
            let result = try dbQueue.inDatabase { db in try body(db) }
            print("== \(name)")
            if traced { for sql in recorder.sql { print(sql) } }
            print("RESULT \(result)")
        } catch {
            print("== \(name)")
            for sql in recorder.sql { print(sql) }
            print("ERROR \(error)")
        }
    }
    func dump(_ db: Database, _ request: some FetchRequest, format: some DumpFormat = .debug()) throws -> String {
        let stream = StringStream9()
        try db.dumpRequest(request, format: format, to: stream)
        return "\n" + stream.text
    }
    let authors = Author9.orderByPrimaryKey()
    let books = Author9.books.orderByPrimaryKey()

    // DMP-3
    run("dmp3-debug", traced: false) { db in try dump(db, authors.including(all: books)) }
    run("dmp3-json", traced: false) { db in try dump(db, authors.including(all: books), format: .json()) }
    run("dmp3-line", traced: false) { db in try dump(db, authors.including(all: books), format: .line()) }
    run("dmp3-list", traced: false) { db in try dump(db, authors.including(all: books), format: .list(header: true)) }
    run("dmp3-quote", traced: false) { db in try dump(db, authors.including(all: books), format: .quote(header: true)) }
    run("dmp3-two", traced: false) { db in
        try dump(db, authors.including(all: books).including(all: Author9.books.filter(Column("year") > 2000).forKey("recent").orderByPrimaryKey()))
    }
    run("dmp3-nested", traced: false) { db in
        try dump(db, authors.including(all: books.including(all: Book9.chapters.orderByPrimaryKey())))
    }
    run("dmp3-through", traced: false) { db in try dump(db, authors.including(all: Author9.chapters.orderByPrimaryKey())) }
    run("dmp3-throughForKey", traced: false) { db in try dump(db, authors.including(all: Author9.chapters.forKey("ch").orderByPrimaryKey())) }
    run("dmp3-nestedThroughJoin", traced: false) { db in
        try dump(db, Chapter9.orderByPrimaryKey().including(required: Chapter9.belongsTo(Book9.self).including(required: Book9.author.including(all: Author9.chapters))))
    }
    run("dmp3-underJoin", traced: false) { db in
        try dump(db, Book9.orderByPrimaryKey().including(required: Book9.author.including(all: books)))
    }
    run("dmp3-empty", traced: false) { db in try dump(db, authors.filter(Column("id") > 5).including(all: books)) }
    run("dmp3-noneMatch", traced: false) { db in try dump(db, authors.including(all: books.filter(Column("year") > 3000))) }

    // CTE-3
    run("cte3-ctes") { db in
        let b = CommonTableExpression(named: "b", request: Table("book9").select(Column("title"), Column("year")))
        let a = CommonTableExpression(named: "a", request: Table("b").select(Column("title")))
        return try Row.fetchAll(db, a.all().with(b).with(a)).map(\.description)
    }
    run("cte3-literal") { db in
        let a = CommonTableExpression(named: "a", sql: "SELECT * FROM b")
        return try Row.fetchAll(db, a.all().with(a)).map(\.description)
    }
    run("cte3-literalRequest") { db in
        let a = CommonTableExpression(named: "a", literal: "SELECT \(Column("title")) FROM b")
        return try Row.fetchAll(db, a.all().with(a)).map(\.description)
    }
    run("cte3-allColumns") { db in
        let b = CommonTableExpression(named: "b", request: Table("book9").select(Column("title"), Column("year")))
        let a = CommonTableExpression(named: "a", request: Table("b").all())
        return try Row.fetchAll(db, a.all().with(b).with(a)).map(\.description)
    }

    run("cte3-included") { db in
        let b = CommonTableExpression(named: "b", request: Table("book9").select(Column("authorId"), Column("title")))
        let a = CommonTableExpression(named: "a", request: Table("b").select(Column("authorId"), Column("title")))
        let association = Author9.association(to: a) { author, a in a[Column("authorId")] == author[Column("id")] }
        return try Row.fetchAll(db, authors.with(b).with(a).including(required: association)).map(\.debugDescription)
    }
    run("cte3-includedLiteral") { db in
        let b = CommonTableExpression(named: "b", request: Table("book9").select(Column("authorId"), Column("title")))
        let a = CommonTableExpression(named: "a", sql: "SELECT authorId, title FROM b")
        let association = Author9.association(to: a) { author, a in a[Column("authorId")] == author[Column("id")] }
        return try Row.fetchAll(db, authors.with(b).with(a).including(required: association)).map(\.debugDescription)
    }
    run("cte3-includedLiteralColumns") { db in
        let b = CommonTableExpression(named: "b", request: Table("book9").select(Column("authorId"), Column("title")))
        let a = CommonTableExpression(named: "a", columns: ["authorId", "title"], sql: "SELECT authorId, title FROM b")
        let association = Author9.association(to: a) { author, a in a[Column("authorId")] == author[Column("id")] }
        return try Row.fetchAll(db, authors.with(b).with(a).including(required: association)).map(\.debugDescription)
    }
    run("cte3-includedAllColumns") { db in
        let b = CommonTableExpression(named: "b", request: Table("book9").select(Column("authorId"), Column("title")))
        let a = CommonTableExpression(named: "a", request: Table("b").all())
        let association = Author9.association(to: a) { author, a in a[Column("authorId")] == author[Column("id")] }
        return try Row.fetchAll(db, authors.with(b).with(a).including(required: association)).map(\.debugDescription)
    }

    // LIT-1
    run("lit1-max") { db in
        let alias = TableAlias(name: "s")
        let longest: SQLRequest<String> = "SELECT MAX(\(Column("title"))) FROM book9"
        return try Row.fetchAll(db, Table("book9").aliased(alias).filter(literal: "\(Column("title")) = (\(longest))")).map(\.description)
    }
    run("lit1-inner") { db in
        let alias = TableAlias(name: "s")
        let inner: SQLRequest<Int> = "SELECT \(Column("id")) FROM author9 WHERE \(Column("name")) = 'Ann'"
        return try Row.fetchAll(db, Table("book9").aliased(alias).filter(literal: "\(Column("authorId")) IN (\(inner))").select(Column("title"))).map(\.description)
    }
    run("lit1-qualifiedInner") { db in
        let alias = TableAlias(name: "s")
        let inner: SQLRequest<Int> = "SELECT \(alias[Column("id")])"
        return try Row.fetchAll(db, Table("book9").aliased(alias).select(literal: "(\(inner)) AS x")).map(\.description)
    }
    run("lit1-requestInSQLRequest") { db in
        let alias = TableAlias(name: "s")
        let request = Table("author9").select(Column("id")).filter(Column("name") == "Ann")
        let inner: SQLRequest<Int> = "SELECT \(Column("id")) FROM (\(request))"
        return try Row.fetchAll(db, Table("book9").aliased(alias).filter(literal: "\(Column("authorId")) IN (\(inner))").select(Column("title"))).map(\.description)
    }

    // ASC-9
    run("asc9-threeLevels") { db in
        try Row.fetchAll(db, R9.orderByPrimaryKey().including(all: R9.mids.orderByPrimaryKey().including(all: M9.leaves.orderByPrimaryKey()))).map(\.debugDescription)
    }

    // ASC-8
    run("asc8-sameKey") { db in
        try Row.fetchAll(db, authors.including(all: Author9.books.filter(Column("year") > 1900)).including(all: Author9.books.filter(Column("year") < 2008))).map(\.debugDescription)
    }
    run("asc8-sameKeyThrough") { db in
        try Row.fetchAll(db, authors.including(all: Author9.chapters.filter(Column("id") > 1)).including(all: Author9.chapters.filter(Column("id") < 3))).map(\.debugDescription)
    }
    run("asc8-pivotSameKey") { db in
        let throughA = Author9.hasMany(Chapter9.self, through: Author9.books.filter(Column("year") > 1900), using: Book9.chapters)
        return try Row.fetchAll(db, authors.including(all: throughA.forKey("c")).including(all: Author9.books.forKey("books").including(all: Book9.chapters.forKey("x")))).map(\.debugDescription)
    }
    run("asc8-sameKeyNested") { db in
        try Row.fetchAll(db, authors.including(all: books.including(all: Book9.chapters)).including(all: books.filter(Column("year") > 2000))).map(\.debugDescription)
    }

    // ASC-4
    let orderedBooks = Book9.orderByPrimaryKey()
    run("asc4-optionalThrough") { db in
        try Row.fetchAll(db, orderedBooks.including(optional: Book9.shelf).annotated(withOptional: Book9.room)).map(\.debugDescription)
    }
    run("asc4-requiredThenIncluded") { db in
        try Row.fetchAll(db, orderedBooks.annotated(withRequired: Book9.author.select(Column("name").forKey("authorName"))).including(optional: Book9.shelf)).map(\.debugDescription)
    }
    run("asc4-includedThenAnnotated") { db in
        try Row.fetchAll(db, orderedBooks.including(optional: Book9.shelf).annotated(withRequired: Book9.author.select(Column("name").forKey("authorName")))).map(\.debugDescription)
    }
    run("asc4-twoAnnotations") { db in
        try Row.fetchAll(db, orderedBooks.including(optional: Book9.author).annotated(withOptional: Book9.room.select(Column("floor"))).annotated(withOptional: Book9.shelf.select(Column("label")))).map(\.debugDescription)
    }
    run("asc4-annotatedInside") { db in
        try Row.fetchAll(db, Chapter9.orderByPrimaryKey().including(required: Chapter9.belongsTo(Book9.self).including(optional: Book9.author).annotated(withOptional: Book9.shelf.select(Column("label"))))).map(\.debugDescription)
    }
    run("asc4-selectThenAnnotated") { db in
        try Row.fetchAll(db, orderedBooks.select(Column("title")).including(optional: Book9.author).annotated(withOptional: Book9.shelf.select(Column("label"))).annotated(with: Column("year"))).map(\.debugDescription)
    }

    run("asc4-selectAfter") { db in
        try Row.fetchAll(db, orderedBooks.annotated(withRequired: Book9.author.select(Column("name").forKey("authorName"))).select(Column("title"))).map(\.debugDescription)
    }
    run("asc4-selectAfterIncluded") { db in
        try Row.fetchAll(db, orderedBooks.including(optional: Book9.shelf).annotated(withOptional: Book9.room).select(Column("title"))).map(\.debugDescription)
    }
    run("asc4-mergedIncluded") { db in
        try Row.fetchAll(db, orderedBooks.including(required: Book9.author).annotated(withRequired: Book9.author.select(Column("name").forKey("authorName")))).map(\.debugDescription)
    }
    run("asc4-annotationThenIncluded") { db in
        try Row.fetchAll(db, orderedBooks.annotated(withOptional: Book9.shelf.select(Column("label"))).including(optional: Book9.shelf)).map(\.debugDescription)
    }
    run("asc4-nestedAnnotation") { db in
        try Row.fetchAll(db, Chapter9.orderByPrimaryKey().annotated(withRequired: Chapter9.belongsTo(Book9.self).select(Column("title").forKey("bookTitle")).annotated(withRequired: Book9.author.select(Column("name").forKey("authorName")))).annotated(with: Column("id").forKey("again"))).map(\.debugDescription)
    }
    run("asc4-aggregateBetween") { db in
        try Row.fetchAll(db, Author9.orderByPrimaryKey().annotated(withOptional: Author9.books.filter(Column("year") > 2008).select(Column("title").forKey("recent"))).annotated(with: Author9.books.count).including(all: Author9.books.forKey("all"))).map(\.debugDescription)
    }
    run("asc4-throughRequired") { db in
        try Row.fetchAll(db, orderedBooks.annotated(withRequired: Book9.room.select(Column("floor"))).including(required: Book9.author)).map(\.debugDescription)
    }

    // OBS-2, PRG-11
    let bookTable = Table("book9")
    func region(_ request: some FetchRequest, _ db: Database) throws -> String {
        try request.databaseRegion(db).description
    }
    run("obs2-identical") { db in try region(bookTable.filter(Column("id") === 1), db) }
    run("obs2-identicalReversed") { db in try region(bookTable.filter(1 === Column.rowID), db) }
    run("obs2-keys") { db in try region(bookTable.filter(keys: [1, 2, 3]), db) }
    run("obs2-key") { db in try region(bookTable.filter(key: 2), db) }
    run("obs2-emptyContains") { db in try region(bookTable.filter([Int]().contains(Column("id"))), db) }
    run("obs2-isNil") { db in try region(bookTable.filter(Column("id") == nil), db) }
    run("obs2-isIdenticalNil") { db in try region(bookTable.filter(Column("id") === nil), db) }
    run("obs2-contradiction") { db in try region(bookTable.filter(Column("id") == 1 && Column("id") == 2), db) }
    run("obs2-twoKeys") { db in try region(bookTable.filter(key: 1).filter(key: 2), db) }
    run("obs2-and") { db in try region(bookTable.filter(Column("id") == 1 && Column("year") > 3), db) }
    run("obs2-or") { db in try region(bookTable.filter(Column("id") == 1 || Column("id") == 3), db) }
    run("obs2-orOther") { db in try region(bookTable.filter(Column("id") == 1 || Column("year") == 3), db) }
    run("obs2-inAnd") { db in try region(bookTable.filter([1, 2, 3].contains(Column("id")) && [2, 3, 4].contains(Column("id"))), db) }
    run("obs2-anyRequest") { db in try region(AnyFetchRequest(bookTable.filter(key: 1)), db) }
    run("obs2-adapted") { db in try region(bookTable.filter(key: 1).adapted { _ in SuffixRowAdapter(fromIndex: 0) }, db) }
    run("obs2-asRequest") { db in try region(bookTable.filter(key: 1).asRequest(of: Row.self), db) }
    run("obs2-view") { db in try region(Table("recent9").all(), db) }
    run("obs2-viewFiltered") { db in try region(Table("recent9").filter(Column("id") == 1), db) }
    run("obs2-sqlRequest") { db in try region(SQLRequest<Row>(sql: "SELECT * FROM book9 WHERE id = 1"), db) }
    run("obs2-joined") { db in try region(Book9.filter(key: 1).including(required: Book9.author), db) }
    run("obs2-prefetch") { db in try region(Author9.filter(key: 1).including(all: Author9.books), db) }
    run("obs2-statementRegion") { db in
        let statement = try bookTable.filter(key: 1).makePreparedRequest(db, forSingleResult: false).statement
        return statement.databaseRegion.description
    }
    run("prg11-viewStatement") { db in
        try db.makeStatement(sql: "SELECT * FROM recent9").databaseRegion.description
    }
    run("prg11-viewStatementFiltered") { db in
        try db.makeStatement(sql: "SELECT title FROM recent9 WHERE id = 1").databaseRegion.description
    }
    func observedRegion(_ observation: ValueObservation<some ValueReducer>) throws -> String {
        let box = StringStream9()
        let semaphore = DispatchSemaphore(value: 0)
        let cancellable = observation
            .handleEvents(willTrackRegion: { box.write($0.description); semaphore.signal() })
            .start(in: dbQueue, scheduling: .immediate, onError: { _ in semaphore.signal() }, onChange: { _ in })
        semaphore.wait()
        cancellable.cancel()
        return box.text
    }
    let observations: [(String, ValueObservation<ValueReducers.Fetch<[Row]>>)] = [
        ("obs2-observedKey", ValueObservation.tracking { db in try Row.fetchAll(db, bookTable.filter(key: 1)) }),
        ("obs2-observedView", ValueObservation.tracking { db in try Row.fetchAll(db, Table("recent9").all()) }),
        ("obs2-observedViewSQL", ValueObservation.tracking { db in try Row.fetchAll(db, sql: "SELECT * FROM recent9 WHERE id = 2") }),
        ("obs2-observedEmpty", ValueObservation.tracking { db in try Row.fetchAll(db, bookTable.filter([Int]().contains(Column("id")))) }),
        ("obs2-observedOr", ValueObservation.tracking { db in try Row.fetchAll(db, bookTable.filter(Column("id") == 1 || Column("id") == 3)) }),
    ]
    for (name, observation) in observations {
        recorder.sql = []
        do {
            let text = try observedRegion(observation)
            print("== \(name)\nRESULT \(text)")
        } catch {
            print("== \(name)\nERROR \(error)")
        }
    }

    // PRG-10
    run("prg10-fts5Created") { db in
        try db.create(virtualTable: "text10", using: FTS5()) { t in t.column("body") }
        try db.execute(sql: "INSERT INTO text10 VALUES ('hello again')")
        return try String.fetchAll(db, sql: "SELECT body FROM text10 WHERE text10 MATCH 'hello'")
    }
    run("prg10-fts5Trace") { db in
        try db.execute(sql: "INSERT INTO text9 VALUES ('second')")
        return try String.fetchAll(db, sql: "SELECT body FROM text9 WHERE text9 MATCH 'hello'")
    }

    // PRG-10, on a connection that opens an existing FTS5 table
    do {
        let path = NSTemporaryDirectory() + "probe-prg10-\(getpid()).sqlite"
        try? FileManager.default.removeItem(atPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try DatabaseQueue(path: path)
        try first.write { db in
            try db.create(virtualTable: "doc", using: FTS5()) { t in t.column("body") }
            try db.execute(sql: "INSERT INTO doc VALUES ('hello')")
        }
        try first.close()
        let second = try DatabaseQueue(path: path)
        var lines: [String] = []
        let result = try second.inDatabase { db -> [String] in
            db.trace(options: .statement) { event in
                let text = "\(event)"
                if !text.contains("sqlite_"), !text.contains("pragma_"), !text.hasPrefix("PRAGMA") { lines.append(text) }
            }
            let found = try String.fetchAll(db, sql: "SELECT body FROM doc WHERE doc MATCH 'hello'")
            try db.execute(sql: "INSERT INTO doc VALUES ('again')")
            return found + (try String.fetchAll(db, Table("doc").select(Column("body")).matching(FTS5Pattern(matchingAnyTokenIn: "again"))))
        }
        print("== prg10-reopened")
        for line in lines { print(line) }
        print("RESULT \(result)")
    }

    do {
        let path = NSTemporaryDirectory() + "probe-prg10b-\(getpid()).sqlite"
        try? FileManager.default.removeItem(atPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let creator = try DatabaseQueue(path: path)
        try creator.write { db in
            try db.create(virtualTable: "docA", using: FTS5()) { t in t.column("body") }
            try db.create(virtualTable: "docB", using: FTS5()) { t in t.column("body") }
        }
        try creator.close()
        let queue = try DatabaseQueue(path: path)
        var lines: [String] = []
        let result = try queue.inDatabase { db -> [Bool] in
            db.trace(options: .statement) { event in
                let text = "\(event)"
                if !text.contains("sqlite_"), !text.contains("pragma_"), !text.hasPrefix("PRAGMA") { lines.append(text) }
            }
            // (Not columns(in:) or primaryKey(_:) of a virtual table: GRDBCipher's name
            // lookups connect every virtual table, untraced; GRDB connects each one when it is
            // first used, traced. See docs/GRDB-Differences.md.)
            let exists = [try db.tableExists("nothing"), try db.tableExists("docA")]
            try db.execute(sql: "CREATE TABLE other(a)")
            return exists + [try db.tableExists("other")]
        }
        print("== prg10-schemaQueries")
        for line in lines { print(line) }
        print("RESULT \(result)")
    }
}
