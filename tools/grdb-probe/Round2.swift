#if SQLCIPHER
import GRDBCipher
#else
import GRDB
#endif
import Foundation

// Round 2 of the compatibility findings (shared/findings/grdb-behaviour-gaps-2.md): the shapes
// they touch, printed the same way as the rest of the probe.

struct Shelf8: TableRecord {
    static let databaseTableName = "shelf8"
    static let notes = hasMany(Note8.self, using: ForeignKey(["shelfId"]))
}
struct Note8: TableRecord, FetchableRecord {
    static let databaseTableName = "note8"
    var row: Row
    init(row: Row) throws { self.row = row.copy() }
    static let shelf = belongsTo(Shelf8.self, using: ForeignKey(["shelfId"]))
}

final class Invoice8: Record {
    override class var databaseTableName: String { "invoice8" }
    var id: Int64?
    var number: String
    init(id: Int64?, number: String) { self.id = id; self.number = number; super.init() }
    required init(row: Row) throws { id = row["id"]; number = row["number"] ?? "?"; try super.init(row: row) }
    override func encode(to container: inout PersistenceContainer) { container["id"] = id; container["number"] = number }
}

struct SwallowingInvoice8: MutablePersistableRecord, Encodable {
    static let databaseTableName = "invoice8"
    var id: Int64?
    var number: String
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws { _ = try? insert() }
    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {}
    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {}
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws { _ = try? save() }
}

final class NextTransactionWriter8: TransactionObserver {
    var commits = 0
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) {
        commits += 1
        if commits > 3 { print("TXO3 recursion"); return }
        try? db.inTransaction { try db.execute(sql: "DELETE FROM outbox8 WHERE sent"); return .commit }
    }
    func databaseDidRollback(_ db: Database) {}
}

enum Trace8 { @TaskLocal static var requestID: String? }

func probeRound2() throws {
    setvbuf(stdout, nil, _IONBF, 0)
    let dbQueue = try DatabaseQueue()
    let recorder = Recorder()
    try dbQueue.write { db in
        try db.execute(sql: """
            CREATE TABLE shelf8(id INTEGER PRIMARY KEY, label TEXT, room TEXT);
            CREATE TABLE note8(id INTEGER PRIMARY KEY, shelfId INTEGER REFERENCES shelf8(id), title TEXT, archivedAt TEXT, qty INTEGER);
            CREATE TABLE pair8(a INTEGER, b INTEGER, v TEXT, PRIMARY KEY(a, b));
            CREATE TABLE member8(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE invoice8(id INTEGER PRIMARY KEY, number TEXT UNIQUE);
            CREATE TABLE outbox8(id INTEGER PRIMARY KEY, sent BOOLEAN);
            """)
    }
    func reset(_ db: Database) throws {
        try db.execute(sql: """
            DELETE FROM note8; DELETE FROM shelf8; DELETE FROM pair8; DELETE FROM member8;
            INSERT INTO shelf8 VALUES (1, 'a', 'FR'), (2, 'b', 'US');
            INSERT INTO note8 VALUES (1, 1, 'x', NULL, 2), (2, 1, 'y', '2024', 0), (3, 2, 'z', NULL, 5);
            INSERT INTO pair8 VALUES (1, 1, 'p'), (1, 2, 'q'), (2, 1, 'r');
            INSERT INTO member8 VALUES (1, 'Ann'), (2, 'BOB'), (3, 'carl');
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
    func run(_ name: String, _ body: (Database) throws -> Any) {
        do {
            try dbQueue.inDatabase { db in try reset(db) }
            recorder.sql = []
            let result = try dbQueue.inDatabase { db in try body(db) }
            print("== \(name)")
            for sql in recorder.sql { print(sql) }
            print("RESULT \(result)")
        } catch {
            print("== \(name)")
            for sql in recorder.sql { print(sql) }
            print("ERROR \(error)")
        }
    }
    let notes = Table("note8")
    let remaining = { (db: Database) in try Int.fetchAll(db, sql: "SELECT id FROM note8 ORDER BY id") }

    // MOD-1, MOD-2
    run("mod1-deleteJoined") { db in
        let n = try Note8.joining(required: Note8.shelf.filter(Column("room") == "FR")).deleteAll(db)
        return (n, try remaining(db))
    }
    run("mod1-deleteJoinedAliased") { db in
        let n = try Note8.aliased(TableAlias(name: "n")).joining(required: Note8.shelf.filter(Column("room") == "US")).deleteAll(db)
        return (n, try remaining(db))
    }
    run("mod1-deleteIncluding") { db in
        let n = try Note8.including(required: Note8.shelf).filter(Column("qty") > 1).deleteAll(db)
        return (n, try remaining(db))
    }
    run("mod1-updateJoined") { db in
        let n = try Note8.joining(required: Note8.shelf.filter(Column("room") == "FR")).updateAll(db, Column("title").set(to: "fr"))
        return (n, try String.fetchAll(db, sql: "SELECT title FROM note8 ORDER BY id"))
    }
    run("mod1-deleteAndFetchJoined") { db in
        try Array(Note8.joining(required: Note8.shelf.filter(Column("room") == "US")).deleteAndFetchCursor(db)).map(\.row.description)
    }
    run("mod1-updateAndFetchJoined") { db in
        try Array(Note8.joining(required: Note8.shelf.filter(Column("room") == "US")).updateAndFetchCursor(db, [Column("qty").set(to: 9)])).map(\.row.description)
    }
    run("mod2-groupByPrimaryKeyComposite") { db in
        try Row.fetchAll(db, Table("pair8").select(Column("v")).groupByPrimaryKey()).map(\.description)
    }

    // ASC-3
    run("asc3-includingAllInsideJoin") { db in
        try Row.fetchAll(db, Note8.joining(optional: Note8.shelf.including(all: Shelf8.notes.order(Column("id")))).order(Column("id"))).map(\.debugDescription)
    }

    // SQL-1 .. SQL-6
    run("sql1-notEqualNil") { db in try Row.fetchAll(db, notes.filter(!(Column("archivedAt") == nil))).count }
    run("sql1-notNilEqual") { db in try Row.fetchAll(db, notes.filter(!(nil == Column("archivedAt")))).count }
    run("sql1-andNil") { db in try Row.fetchAll(db, notes.filter(Column("archivedAt") == nil && Column("qty") > 1)).count }
    let wanted = ["ann", "bob"]
    run("sql2-inNocase") { db in try String.fetchAll(db, Table("member8").select(Column("name")).filter(wanted.contains(Column("name")).collating(.nocase))) }
    run("sql2-notInNocase") { db in try String.fetchAll(db, Table("member8").select(Column("name")).filter(!wanted.contains(Column("name")).collating(.nocase))) }
    run("sql2-eqNocase") { db in try String.fetchAll(db, Table("member8").select(Column("name")).filter((Column("name") == "ann").collating(.nocase))) }
    run("sql2-betweenNocase") { db in try String.fetchAll(db, Table("member8").select(Column("name")).filter(("A"..."b").contains(Column("name")).collating(.nocase))) }
    run("sql2-rangeNocase") { db in try String.fetchAll(db, Table("member8").select(Column("name")).filter(("A"..<"b").contains(Column("name")).collating(.nocase))) }
    run("sql2-columnNocase") { db in try String.fetchAll(db, Table("member8").select(Column("name")).filter(("A"..."b").contains(Column("name").collating(.nocase)))) }
    run("sql2-constantNocase") { db in try Row.fetchAll(db, Table("member8").filter([String]().contains(Column("name")).collating(.nocase))).count }
    run("sql3-notNot") { db in try Int.fetchAll(db, notes.select(!(!Column("qty"))).order(Column("id"))) }
    run("sql4-coalesce") { db in
        (try Row.fetchOne(db, notes.select(coalesce([]))).map(\.description) ?? "nil",
         try Row.fetchOne(db, notes.select(coalesce([Column("qty")]))).map(\.description) ?? "nil",
         try Row.fetchOne(db, notes.select(coalesce([Column("archivedAt"), Column("title")]))).map(\.description) ?? "nil")
    }
    run("sql5-nested") { db in
        (try Row.fetchOne(db, notes.select(1 + (Column("qty") + Column("id")))).map(\.description) ?? "nil",
         try Row.fetchOne(db, notes.select([Column("qty") + 1, 2 + Column("qty")].joined(operator: .add))).map(\.description) ?? "nil",
         try notes.updateAll(db, Column("qty") *= Column("id") * 2))
    }
    run("sql5-shapes") { db in
        let a = Column("qty"), b = Column("id"), c = Column("shelfId")
        let requests: [SQLRequest<Row>] = [
            "SELECT \(a + b + c) FROM note8", "SELECT \(a + (b + c)) FROM note8", "SELECT \((a + b) + (b + c)) FROM note8",
            "SELECT \([a, b].joined(operator: .add) + c) FROM note8", "SELECT \(a * b * c) FROM note8", "SELECT \(a * (b * c)) FROM note8",
            "SELECT \(a + b * c) FROM note8", "SELECT \((a + b) * c) FROM note8", "SELECT \(a && b && c) FROM note8", "SELECT \(a && (b && c)) FROM note8",
            "SELECT \(a || (b || c)) FROM note8", "SELECT \([a && b, c].joined(operator: .and)) FROM note8", "SELECT \(a - (b - c)) FROM note8",
            "SELECT \([a, b, c].joined(operator: .add)) FROM note8", "SELECT \([a + b, c].joined(operator: .add)) FROM note8",
            "SELECT \(a + [b, c].joined(operator: .add)) FROM note8",
        ]
        return try requests.map { request in try request.makePreparedRequest(db).statement.sql }
    }
    run("sql5-filters") { db in
        let a = Column("qty"), b = Column("id"), c = Column("shelfId")
        _ = try Row.fetchAll(db, notes.filter(a > 1 && b > 1).filter(c > 1))
        _ = try Row.fetchAll(db, notes.filter(a > 1).filter(b > 1 || c > 1))
        _ = try Row.fetchAll(db, notes.filter(a > 1 || b > 1).filter(c > 1 || a > 2))
        return "ok"
    }
    run("sql6-constants") { db in
        (try Row.fetchAll(db, notes.filter(nil === Column("archivedAt"))).count,
         try Row.fetchAll(db, notes.filter(![Int]().contains(Column("id")))).count,
         try Row.fetchAll(db, notes.filter([Int]().contains(Column("id")) || true.databaseValue)).count)
    }
    run("prg2-bool") { db in
        try Row.fetchAll(db, notes.filter(Column("qty") == false)).count
    }

    // ASC-1: keys inflected from table names, and forKey.
    do {
        let inflectionQueue = try DatabaseQueue()
        try inflectionQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE country9(code TEXT PRIMARY KEY);
                CREATE TABLE census(id INTEGER PRIMARY KEY, countryCode TEXT REFERENCES country9(code));
                CREATE TABLE shelves(id INTEGER PRIMARY KEY);
                CREATE TABLE books(id INTEGER PRIMARY KEY, shelfId INTEGER REFERENCES shelves(id));
                CREATE TABLE children(id INTEGER PRIMARY KEY, shelfId INTEGER REFERENCES shelves(id));
                INSERT INTO country9 VALUES ('IT'); INSERT INTO census VALUES (1, 'IT');
                INSERT INTO shelves VALUES (1); INSERT INTO books VALUES (1, 1); INSERT INTO children VALUES (1, 1);
                """)
        }
        struct Country9: TableRecord {
            static let databaseTableName = "country9"
            static let census = hasOne(Census9.self)
        }
        struct Census9: TableRecord { static let databaseTableName = "census" }
        struct Shelf9: TableRecord {
            static let databaseTableName = "shelves"
            static let books = hasMany(Book9.self)
            static let children = hasMany(Child9.self)
        }
        struct Book9: TableRecord {
            static let databaseTableName = "books"
            static let shelf = belongsTo(Shelf9.self)
        }
        struct Child9: TableRecord { static let databaseTableName = "children" }
        try inflectionQueue.read { db in
            func keys(_ row: Row?) -> String {
                guard let row else { return "nil" }
                return "scopes \(Array(row.scopes.names).sorted()) prefetched \(Array(row.prefetchedRows.keys).sorted())"
            }
            print("== asc1")
            print(keys(try Row.fetchOne(db, Country9.including(optional: Country9.census))))
            print(keys(try Row.fetchOne(db, Book9.including(required: Book9.shelf))))
            print(keys(try Row.fetchOne(db, Shelf9.including(required: Shelf9.children))))
            print(keys(try Row.fetchOne(db, Shelf9.including(all: Shelf9.children))))
            print(keys(try Row.fetchOne(db, Shelf9.including(required: Shelf9.books.forKey("novels")))))
            print(keys(try Row.fetchOne(db, Shelf9.including(all: Shelf9.books.forKey("novels")))))
            print(keys(try Row.fetchOne(db, Book9.including(required: Book9.shelf.forKey("rack")))))
            print(keys(try Row.fetchOne(db, Shelf9.including(all: Shelf9.books.forKey("novel")))))
        }
    } catch { print("== asc1\nERROR \(error)") }

    // PRG-9, SQL-7: FTS4 options.
    do {
        let ftsQueue = try DatabaseQueue()
        let ftsRecorder = Recorder()
        try ftsQueue.write { db in
            db.trace(options: .statement) { event in ftsRecorder.sql.append("\(event)") }
            try db.create(virtualTable: "doc4", using: FTS4()) { t in
                t.tokenizer = .porter
                t.column("author").notIndexed()
                t.column("body")
                t.column("lid").asLanguageId()
                t.compress = "zip"
                t.uncompress = "unzip"
                t.matchinfo = "fts3"
                t.prefixes = [2, 4]
                t.content = "other"
            }
        }
        print("== prg9")
        for sql in ftsRecorder.sql where sql.hasPrefix("CREATE") { print(sql) }
    } catch { print("== prg9\nERROR \(error)") }

    // ARG-1
    run("arg1") { db in
        let merged: StatementArguments = ["limit": 10, "offset": 0] &+ ["limit": 50]
        var added: StatementArguments = [1]
        added += [2]
        return "\(merged) \(added) \(([1] as StatementArguments) + [2])"
    }

    // REC-1
    run("rec1-insertSwallows") { db in
        try db.execute(sql: "DELETE FROM invoice8; INSERT INTO invoice8 VALUES (1, '2024-001')")
        var invoice = SwallowingInvoice8(id: nil, number: "2024-001")
        try invoice.insert(db)
        return "inserted"
    }
    run("rec1-updateNotCalled") { db in
        try SwallowingInvoice8(id: 1, number: "x").update(db)
        return "updated"
    }
    run("rec1-deleteNotCalled") { db in try SwallowingInvoice8(id: 1, number: "x").delete(db) }
    run("rec1-saveSwallows") { db in
        var invoice = SwallowingInvoice8(id: nil, number: "2024-001")
        try invoice.save(db)
        return "saved"
    }

    // REC-4
    run("rec4-updateChangesLiteralRow") { db in
        try db.execute(sql: "DELETE FROM invoice8; INSERT INTO invoice8 VALUES (7, 'old')")
        let invoice = try Invoice8(row: ["id": 7, "number": "new text"])
        let changed = try invoice.updateChanges(db)
        return (changed, try String.fetchAll(db, sql: "SELECT number FROM invoice8"))
    }
    run("rec4-databaseChanges") { db in
        let fresh = Invoice8(id: 8, number: "x")
        let changes = try fresh.databaseChanges.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.map(\.description) ?? "nil")" }
        let fetched = try Invoice8.fetchOne(db, sql: "SELECT 7 AS id, NULL AS other")!
        fetched.number = "y"
        let partial = try fetched.databaseChanges.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.map(\.description) ?? "nil")" }
        return (changes, partial, try fresh.hasDatabaseChanges)
    }

    // MIG-3
    do {
        let migrationQueue = try DatabaseQueue()
        var old = DatabaseMigrator()
        old.registerMigration("create-notes") { db in try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY)") }
        old.registerMigration("add-tags") { db in try db.execute(sql: "ALTER TABLE notes ADD COLUMN tags TEXT") }
        old.registerMigration("add-index") { db in try db.execute(sql: "CREATE INDEX notes_tags ON notes(tags)") }
        try old.migrate(migrationQueue)
        var new = DatabaseMigrator()
        new.registerMigration("add-index", merging: ["create-notes", "add-tags"]) { db, applied in
            print("MIG3 merged migration ran with \(applied.sorted())")
        }
        try migrationQueue.read { db in
            print("== mig3-before")
            print("RESULT \(try new.hasBeenSuperseded(db)) \(try new.hasSchemaChanges(db)) \(try new.appliedMigrations(db)) \(try new.hasCompletedMigrations(db))")
        }
        try new.migrate(migrationQueue)
        try migrationQueue.read { db in
            print("== mig3")
            print("RESULT \(try new.appliedIdentifiers(db).sorted()) \(try new.hasBeenSuperseded(db)) \(try new.completedMigrations(db))")
        }
    } catch { print("== mig3\nERROR \(error)") }

    do {
        let migrationQueue = try DatabaseQueue()
        var old = DatabaseMigrator()
        old.registerMigration("create-notes") { db in try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY)") }
        old.registerMigration("add-tags") { db in try db.execute(sql: "ALTER TABLE notes ADD COLUMN tags TEXT") }
        try old.migrate(migrationQueue)
        try migrationQueue.write { db in try db.execute(sql: "INSERT INTO notes VALUES (1, 'kept')") }
        var new = DatabaseMigrator()
        new.eraseDatabaseOnSchemaChange = true
        new.registerMigration("add-tags", merging: ["create-notes"]) { db, applied in
            if !applied.contains("create-notes") { try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, tags TEXT)") }
        }
        try new.migrate(migrationQueue)
        let first = try migrationQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notes")! }
        try new.migrate(migrationQueue)
        let second = try migrationQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notes")! }
        print("== mig3-erase\nRESULT \(first) \(second)")
    } catch { print("== mig3-erase\nERROR \(error)") }

    // TXO-3
    do {
        let observer = NextTransactionWriter8()
        dbQueue.add(transactionObserver: observer, extent: .nextTransaction)
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO outbox8(sent) VALUES (1)") }
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO outbox8(sent) VALUES (1)") }
        print("== txo3\nRESULT \(observer.commits)")
    } catch { print("== txo3\nERROR \(error)") }

    // TL-1, CAN-1
    let semaphore = DispatchSemaphore(value: 0)
    Task {
        do {
            let seen = try await Trace8.$requestID.withValue("r-42") {
                try await dbQueue.read { _ in Trace8.requestID }
            }
            print("== tl1\nRESULT \(seen ?? "nil")")
        } catch { print("== tl1\nERROR \(error)") }
        let task = Task {
            try await dbQueue.write { db in
                withUnsafeCurrentTask { $0?.cancel() }
                let cancelled = Task.isCancelled
                try db.execute(sql: "INSERT INTO outbox8(sent) VALUES (0)")
                return cancelled
            }
        }
        do {
            let cancelled = try await task.value
            print("== can1\nRESULT committed, isCancelled \(cancelled)")
        } catch {
            print("== can1\nERROR \(type(of: error))")
        }
        do {
            let count = try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox8 WHERE NOT sent")! }
            print("== can1-after\nRESULT \(count)")
        } catch { print("== can1-after\nERROR \(error)") }
        let rollbackTask = Task {
            try await dbQueue.writeWithoutTransaction { db in
                try db.beginTransaction()
                try db.execute(sql: "INSERT INTO outbox8(sent) VALUES (0)")
                withUnsafeCurrentTask { $0?.cancel() }
                try db.rollback()
            }
        }
        do {
            try await rollbackTask.value
            print("== tx1\nRESULT rolled back")
        } catch {
            print("== tx1\nERROR \(type(of: error))")
        }
        func outcome<T: Sendable>(_ name: String, _ operation: @escaping @Sendable () async throws -> T) async {
            let task = Task { try await operation() }
            do {
                let value = try await task.value
                print("== \(name)\nRESULT \(value)")
            } catch is CancellationError {
                print("== \(name)\nERROR CancellationError")
            } catch {
                print("== \(name)\nERROR \(error)")
            }
        }
        await outcome("can1-readNoStatementAfter") {
            try await dbQueue.read { _ in withUnsafeCurrentTask { $0?.cancel() }; return Task.isCancelled }
        }
        await outcome("can1-unsafeReadNoStatementAfter") {
            try await dbQueue.unsafeRead { _ in withUnsafeCurrentTask { $0?.cancel() }; return Task.isCancelled }
        }
        await outcome("can1-writeWithoutTransactionCatches") {
            try await dbQueue.writeWithoutTransaction { db -> String in
                withUnsafeCurrentTask { $0?.cancel() }
                do { try db.execute(sql: "INSERT INTO outbox8(sent) VALUES (0)"); return "inserted" } catch { return "refused \(type(of: error))" }
            }
        }
        await outcome("can1-readStatementAfter") {
            try await dbQueue.read { db -> String in
                withUnsafeCurrentTask { $0?.cancel() }
                do { _ = try Int.fetchOne(db, sql: "SELECT 1"); return "selected" } catch { return "refused \(type(of: error))" }
            }
        }
        await outcome("can1-writeNothingAfter") {
            try await dbQueue.write { _ in withUnsafeCurrentTask { $0?.cancel() }; return "done" }
        }
        semaphore.signal()
    }
    semaphore.wait()

    // OBS-4
    do {
        let shared = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox8")! }
            .shared(in: dbQueue, scheduling: .immediate)
        var values: [String] = []
        var inner: AnyDatabaseCancellable?
        let first = shared.start(onError: { _ in }, onChange: { value in
            values.append("first \(value)")
            if inner == nil {
                inner = shared.start(onError: { _ in }, onChange: { value in values.append("second \(value)") })
            }
        })
        print("== obs4\nRESULT \(values)")
        first.cancel()
        inner?.cancel()
    }
}
