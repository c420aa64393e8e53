import Foundation
import Testing
@testable import GRDBCipher

// Closures over a record's columns, `…WhenConnected` requests, typed table aliases, selectID,
// AnyFetchRequest, and the batch deletes and updates that return rows.

private struct Book: Codable, FetchableRecord, PersistableRecord, Identifiable, Hashable {
    static let databaseTableName = "book"
    var id: Int64
    var title: String
    var pages: Int
    var shelf: String?

    enum Columns {
        static let id = Column("id")
        static let title = Column("title")
        static let pages = Column("pages")
        static let shelf = Column("shelf")
    }
}

/// A record with custom components: its closures receive a struct instance.
private struct Shelf: TableRecord {
    static let databaseTableName = "shelf"
    struct Components {
        let label = Column("label")
        let floor = Column("floor")
    }
    static var databaseComponents: Components { Components() }
}

private let library = """
    CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT NOT NULL, pages INTEGER NOT NULL, shelf TEXT);
    CREATE TABLE shelf (label TEXT PRIMARY KEY, floor INTEGER NOT NULL);
    INSERT INTO book VALUES (1, 'Dune', 612, 'A'), (2, 'Emma', 474, 'B'), (3, 'Ubik', 202, 'A'), (4, 'Solaris', 204, NULL);
    INSERT INTO shelf VALUES ('A', 1), ('B', 2);
    """

private func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
    try request.makePreparedRequest(db, forSingleResult: false).statement.sql
}

@Suite("Database components")
struct DatabaseComponentsTests {
    private func withLibrary(_ body: (Database) throws -> Void) throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: library)
            try body(db)
        }
    }

    @Test func closuresReceiveTheRecordColumns() throws {
        try withLibrary { (db: Database) throws in
            let request = Book.filter { $0.pages > 300 }.order { $0.title.desc }
            #expect(try sql(db, request) == #"SELECT * FROM "book" WHERE "pages" > ? ORDER BY "title" DESC"#)
            #expect(try request.fetchAll(db).map(\.title) == ["Emma", "Dune"])

            #expect(try sql(db, Book.select { [$0.title, $0.pages] }) == #"SELECT "title", "pages" FROM "book""#)
            #expect(try sql(db, Book.select { $0.title }) == #"SELECT "title" FROM "book""#)
            #expect(try Book.select({ max($0.pages) }, as: Int.self).fetchOne(db) == 612)
            #expect(try Book.all().select({ min($0.pages) }, as: Int.self).fetchOne(db) == 202)
            #expect(try sql(db, Book.annotated { ($0.pages / 100).forKey("hundreds") })
                == #"SELECT *, "pages" / ? AS "hundreds" FROM "book""#)
            #expect(try sql(db, Book.order { [$0.shelf, $0.pages.desc] }) == #"SELECT * FROM "book" ORDER BY "shelf", "pages" DESC"#)

            let grouped = Book.all()
                .select { [$0.shelf, count($0.id).forKey("n")] }
                .filter { $0.shelf != nil }
                .group { $0.shelf }
                .having { count($0.id) > 1 }
            #expect(try sql(db, grouped)
                == #"SELECT "shelf", COUNT("id") AS "n" FROM "book" WHERE "shelf" IS NOT NULL GROUP BY "shelf" HAVING COUNT("id") > ?"#)
            #expect(try Row.fetchAll(db, grouped) == [["shelf": "A", "n": 2]])
        }
    }

    @Test func customComponents() throws {
        try withLibrary { (db: Database) throws in
            let request = Shelf.filter { $0.floor == 2 }.select({ $0.label }, as: String.self)
            #expect(try sql(db, request) == #"SELECT "label" FROM "shelf" WHERE "floor" = ?"#)
            #expect(try request.fetchAll(db) == ["B"])
        }
    }

    @Test func updatesWithClosures() throws {
        try withLibrary { (db: Database) throws in
            #expect(try Book.filter { $0.shelf == "A" }.updateAll(db) { $0.pages += 1 } == 2)
            #expect(try Book.updateAll(db, assignments: { [$0.shelf.set(to: "Z")] }) == 4)
            #expect(try Table<Book>("book").updateAll(db) { $0.pages.set(to: 1) } == 4)
            #expect(try Int.fetchAll(db, sql: "SELECT pages FROM book ORDER BY id") == [1, 1, 1, 1])
            #expect(try String.fetchAll(db, sql: "SELECT DISTINCT shelf FROM book") == ["Z"])
        }
    }

    @Test func whenConnectedRequestsAskTheDatabase() throws {
        try withLibrary { (db: Database) throws in
            // The closures run when the request does: they see the schema of that moment.
            let request = Book.all()
                .selectWhenConnected { db in try db.columns(in: "book").filter { $0.name != "shelf" }.map { Column($0.name) } }
                .filterWhenConnected { db in
                    if try db.tableExists("shelf") { return Column("pages") > 300 }
                    return true
                }
                .orderWhenConnected { _ in [Column("pages")] }
            #expect(try sql(db, request) == #"SELECT "id", "title", "pages" FROM "book" WHERE "pages" > ? ORDER BY "pages""#)
            try db.execute(sql: "DROP TABLE shelf")
            #expect(try sql(db, request) == #"SELECT "id", "title", "pages" FROM "book" WHERE ? ORDER BY "pages""#)
            #expect(try Row.fetchAll(db, request).count == 4)

            let annotated = Book.select(Column("title")).annotatedWhenConnected { _ in [Column("pages").forKey("p")] }
            #expect(try sql(db, annotated) == #"SELECT "title", "pages" AS "p" FROM "book""#)
            let grouped = Table("book").select(Column("shelf"), count(Column("id")))
                .groupWhenConnected { _ in [Column("shelf")] }
                .havingWhenConnected { _ in count(Column("id")) >= 2 }
            #expect(try sql(db, grouped) == #"SELECT "shelf", COUNT("id") FROM "book" GROUP BY "shelf" HAVING COUNT("id") >= ?"#)

            // An error of the closure is the request's error.
            let failing = Book.all().filterWhenConnected { _ in throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no filter today") }
            expectDatabaseError(.SQLITE_ERROR) { _ = try failing.fetchAll(db) }
        }
    }

    @Test func annotatingAPrimaryKeySelection() throws {
        try withLibrary { (db: Database) throws in
            // The primary key is known when the request runs: annotations come after it.
            let request = Book.all().selectPrimaryKey(as: Row.self).annotated(with: Column("title"))
            #expect(try sql(db, request) == #"SELECT "id", "title" FROM "book""#)
        }
    }

    @Test func selectID() throws {
        try withLibrary { (db: Database) throws in
            #expect(try sql(db, Book.selectID()) == #"SELECT "id" FROM "book""#)
            #expect(try Book.filter { $0.shelf == "A" }.selectID().fetchSet(db) == [1, 3])
            #expect(try Table<Book>("book").selectID().order(Column("id").desc).fetchAll(db) == [4, 3, 2, 1])
        }
    }

    @Test func typedAliases() throws {
        try withLibrary { (db: Database) throws in
            // Books on the first floor: the alias reaches the shelf's columns by name.
            let shelf = TableAlias<Shelf>()
            let firstFloor = Shelf.aliased(shelf).filter(shelf.floor == 1).filter(sql: "label = book.shelf")
            let request = Book.filter(firstFloor.exists()).order { $0.id }
            #expect(try sql(db, request)
                == #"SELECT * FROM "book" WHERE EXISTS (SELECT * FROM "shelf" WHERE ("floor" = ?) AND (label = book.shelf)) ORDER BY "id""#)
            #expect(try request.fetchAll(db).map(\.id) == [1, 3])

            let named = TableAlias(name: "b", for: Book.self)
            #expect(try sql(db, Book.aliased(named).filter(named.pages > 500).select(named.title))
                == #"SELECT "b"."title" FROM "book" "b" WHERE "b"."pages" > ?"#)

            let untyped = TableAlias(name: "t")
            #expect(try sql(db, Table("book").aliased(untyped).select(untyped["title"])) == #"SELECT "t"."title" FROM "book" "t""#)

            // Aliases are equal when they are the same instance.
            let other = TableAlias(name: "t")
            #expect(untyped == untyped)
            #expect(untyped != other)
            #expect(Set<TableAliasBase>([untyped, other, untyped]).count == 2)
        }
    }

    @Test func anyFetchRequest() throws {
        try withLibrary { (db: Database) throws in
            func longBooks(raw: Bool) -> AnyFetchRequest<Book> {
                if raw {
                    return AnyFetchRequest(SQLRequest<Book>(sql: "SELECT * FROM book WHERE pages > 300 ORDER BY id"))
                }
                return AnyFetchRequest(Book.filter { $0.pages > 300 }.order { $0.id })
            }
            #expect(try longBooks(raw: true).fetchAll(db).map(\.title) == ["Dune", "Emma"])
            #expect(try longBooks(raw: false).fetchAll(db).map(\.title) == ["Dune", "Emma"])
            #expect(try longBooks(raw: false).fetchCount(db) == 2)
            #expect(try longBooks(raw: false).fetchOne(db)?.title == "Dune")
            let titles = AnyFetchRequest(Book.select(Column("title")).order(Column("title"))).asRequest(of: String.self)
            #expect(try titles.fetchAll(db) == ["Dune", "Emma", "Solaris", "Ubik"])
            // An erased request is a subquery like any other.
            let longIDs = AnyFetchRequest(Book.filter { $0.pages > 300 }.select(Column("id")))
            #expect(try Book.filter(longIDs.contains(Column("id"))).fetchCount(db) == 2)
        }
    }
}

@Suite("Batch deletes and updates with RETURNING")
struct ReturningRequestTests {
    private func withLibrary(_ body: (Database) throws -> Void) throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: library)
            try body(db)
        }
    }

    @Test func deleteAndFetch() throws {
        try withLibrary { (db: Database) throws in
            let recorder = SQLRecorder()
            recorder.record(db)
            let deleted = try Book.filter { $0.shelf == "A" }.deleteAndFetchAll(db)
            #expect(Set(deleted.map(\.title)) == ["Dune", "Ubik"])
            #expect(recorder.dataSQL.last == #"DELETE FROM "book" WHERE "shelf" = ? RETURNING *"#)
            #expect(try Book.fetchCount(db) == 2)

            #expect(try Book.filter(id: 2).deleteAndFetchSet(db) == [Book(id: 2, title: "Emma", pages: 474, shelf: "B")])
            #expect(try Book.filter { $0.id == 99 }.deleteAndFetchAll(db).isEmpty)
            #expect(try Book.all().deleteAndFetchIds(db) == [4])
            #expect(try Book.fetchCount(db) == 0)
        }
    }

    @Test func deleteAndFetchStatementChangesAsItIsIterated() throws {
        try withLibrary { (db: Database) throws in
            let statement = try Book.all().deleteAndFetchStatement(db) { [$0.title] }
            #expect(statement.sql == #"DELETE FROM "book" RETURNING "title""#)
            // Nothing is deleted until the statement runs.
            #expect(try Book.fetchCount(db) == 4)
            #expect(try String.fetchSet(statement) == ["Dune", "Emma", "Ubik", "Solaris"])
            #expect(try Book.fetchCount(db) == 0)

            let cursor = try Table<Book>("book").all().deleteAndFetchCursor(db)
            #expect(try cursor.next() == nil)
        }
    }

    @Test func updateAndFetch() throws {
        try withLibrary { (db: Database) throws in
            let recorder = SQLRecorder()
            recorder.record(db)
            let updated = try Book.filter { $0.shelf == "A" }.updateAndFetchAll(db) { [$0.pages += 10] }
            #expect(Set(updated.map(\.pages)) == [622, 212])
            #expect(recorder.dataSQL.last == #"UPDATE "book" SET "pages" = "pages" + ? WHERE "shelf" = ? RETURNING *"#)

            let renamed = try Book.filter(id: 2).updateAndFetchSet(db, [Column("title").set(to: "Persuasion")])
            #expect(renamed.map(\.title) == ["Persuasion"])
            #expect(try Book.filter(id: 4).updateAndFetchSet(db, assignments: { [$0.shelf.set(to: "C")] }).first?.shelf == "C")
            let cursor = try Book.all().updateAndFetchCursor(db, onConflict: .replace, [Column("pages") -= 2])
            #expect(try Array(cursor).count == 4)
            #expect(recorder.dataSQL.last == #"UPDATE OR REPLACE "book" SET "pages" = "pages" - ? RETURNING *"#)
            #expect(try Int.fetchAll(db, sql: "SELECT pages FROM book ORDER BY id") == [620, 472, 210, 202])

            let statement = try Book.filter { $0.id <= 2 }.updateAndFetchStatement(db) {
                [$0.pages.set(to: 1)]
            } select: {
                [$0.id]
            }
            #expect(statement.sql == #"UPDATE "book" SET "pages" = ? WHERE "id" <= ? RETURNING "id""#)
            #expect(try Int64.fetchSet(statement) == [1, 2])
        }
    }

    @Test func returningNeedsColumnsAndAssignments() throws {
        try withLibrary { (db: Database) throws in
            expectDatabaseError(.SQLITE_MISUSE) { _ = try Book.all().deleteAndFetchStatement(db, selection: []) }
            expectDatabaseError(.SQLITE_MISUSE) { _ = try Book.all().updateAndFetchAll(db, []) }
            expectDatabaseError(.SQLITE_MISUSE) {
                _ = try Book.all().updateAndFetchStatement(db, [Column("pages").set(to: 0)], selection: [])
            }
            // Nothing changed.
            #expect(try Int.fetchAll(db, sql: "SELECT pages FROM book ORDER BY id") == [612, 474, 202, 204])
            // A constraint violation fails the statement and changes nothing.
            expectDatabaseError(.SQLITE_CONSTRAINT_NOTNULL) {
                _ = try Book.all().updateAndFetchAll(db, [Column("title").set(to: nil)])
            }
            #expect(try String.fetchAll(db, sql: "SELECT title FROM book ORDER BY id") == ["Dune", "Emma", "Ubik", "Solaris"])
        }
    }

    @Test func insertAndFetchWithComponents() throws {
        try withLibrary { (db: Database) throws in
            let book = Book(id: 10, title: "Kindred", pages: 264, shelf: nil)
            let pages = try book.insertAndFetch(db) { statement in
                try Int.fetchOne(statement)
            } select: {
                [$0.pages * 2]
            }
            #expect(pages == 528)
            #expect(try Book.exists(db, id: 10))
        }
    }

    @Test func recordNotFoundOfARecord() throws {
        try withLibrary { (db: Database) throws in
            let missing = Book(id: 42, title: "Nowhere", pages: 1, shelf: nil)
            let error = missing.recordNotFound(db)
            guard case let RecordError.recordNotFound(databaseTableName: table, key: key) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(table == "book")
            #expect(key == ["id": 42.databaseValue])
            let byKey: RecordError = Book.recordNotFound(key: ["title": "Nowhere"])
            #expect("\(byKey)".contains("title"))
            #expect(!"\(byKey)".contains("Nowhere"))
        }
    }
}
