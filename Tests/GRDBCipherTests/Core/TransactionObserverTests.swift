import Foundation
import Testing
@testable import GRDBCipher

/// Writes down what it is told, in order.
private final class Journal: TransactionObserver, @unchecked Sendable {
    var entries: [String] = []
    /// Tables whose changes are observed (all when nil).
    let tables: Set<String>?
    /// Thrown by databaseWillCommit.
    var refusal: (any Error)?
    /// The event kinds it was asked about.
    var askedKinds: [DatabaseEventKind] = []
    /// Stops observing changes after the first one.
    var stopsAfterFirstChange = false

    init(tables: Set<String>? = nil) {
        self.tables = tables
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        askedKinds.append(eventKind)
        return tables.map { $0.contains(eventKind.tableName) } ?? true
    }

    func databaseDidChange() {
        entries.append("changed")
    }

    func databaseDidChange(with event: DatabaseEvent) {
        entries.append("\(event.kind) \(event.tableName) \(event.rowID)")
        if stopsAfterFirstChange { stopObservingDatabaseChangesUntilNextTransaction() }
    }

    func databaseWillCommit() throws {
        entries.append("willCommit")
        if let refusal { throw refusal }
    }

    func databaseDidCommit(_ db: Database) {
        entries.append("didCommit")
    }

    func databaseDidRollback(_ db: Database) {
        entries.append("didRollback")
    }

    func take() -> [String] {
        defer { entries = [] }
        return entries
    }
}

private struct Veto: Error, Equatable {}

/// Tells whether an observer still exists.
private final class WeakBox<Value: AnyObject> {
    weak var value: Value?
}

private let schema = """
    CREATE TABLE owner (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE pet (id INTEGER PRIMARY KEY, name TEXT NOT NULL,
        ownerId INTEGER REFERENCES owner(id) ON DELETE CASCADE, visits INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE visit (petId INTEGER NOT NULL, day TEXT NOT NULL);
    CREATE TRIGGER visitCount AFTER INSERT ON visit BEGIN
        UPDATE pet SET visits = visits + 1 WHERE id = NEW.petId;
    END;
    """

@Suite("TransactionObserver")
struct TransactionObserverTests {
    private func makeQueue() throws -> TestDatabase {
        let test = try TestDatabase()
        try test.dbQueue.write { db in try db.execute(sql: schema) }
        return test
    }

    @Test func changesThenCommitInOrder() throws {
        let test = try makeQueue()
        let journal = Journal()
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.write { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada')")
            try db.execute(sql: "UPDATE owner SET name = 'Ada L.' WHERE id = 1")
            try db.execute(sql: "DELETE FROM owner WHERE id = 1")
        }
        #expect(journal.take() == ["insert owner 1", "update owner 1", "delete owner 1", "willCommit", "didCommit"])
    }

    @Test func statementsOutsideOfTransactionsCommitOneByOne() throws {
        let test = try makeQueue()
        let journal = Journal()
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada')")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (2, 'Bob')")
            // A read commits nothing.
            _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM owner")
        }
        #expect(journal.take() == ["insert owner 1", "willCommit", "didCommit", "insert owner 2", "willCommit", "didCommit"])
    }

    @Test func rollbacksAreTold() throws {
        let test = try makeQueue()
        let journal = Journal()
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.inTransaction { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada')")
            return .rollback
        }
        #expect(journal.take() == ["insert owner 1", "didRollback"])

        struct Oops: Error {}
        #expect(throws: Oops.self) {
            try test.dbQueue.write { db in
                try db.execute(sql: "INSERT INTO owner (id, name) VALUES (2, 'Bob')")
                throw Oops()
            }
        }
        #expect(journal.take() == ["insert owner 2", "didRollback"])
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM owner") } == 0)
    }

    @Test func savepointChangesWaitForTheRelease() throws {
        let test = try makeQueue()
        let journal = Journal()
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.inTransaction { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada')")
            try db.execute(sql: "SAVEPOINT kept")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (2, 'Bob')")
            try db.execute(sql: "SAVEPOINT inner")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (3, 'Cy')")
            try db.execute(sql: "RELEASE SAVEPOINT inner")
            #expect(journal.entries == ["insert owner 1"])
            try db.execute(sql: "RELEASE SAVEPOINT kept")
            #expect(journal.entries == ["insert owner 1", "insert owner 2", "insert owner 3"])

            try db.execute(sql: "SAVEPOINT dropped")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (4, 'Di')")
            try db.execute(sql: "ROLLBACK TO SAVEPOINT dropped")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (5, 'Ed')")
            try db.execute(sql: "RELEASE SAVEPOINT dropped")
            return .commit
        }
        #expect(journal.take() == ["insert owner 1", "insert owner 2", "insert owner 3", "insert owner 5", "willCommit", "didCommit"])
    }

    @Test func inSavepointRollbackDropsItsChanges() throws {
        let test = try makeQueue()
        let journal = Journal()
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.write { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada')")
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO owner (id, name) VALUES (2, 'Bob')")
                return .rollback
            }
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO owner (id, name) VALUES (3, 'Cy')")
                return .commit
            }
        }
        #expect(journal.take() == ["insert owner 1", "insert owner 3", "willCommit", "didCommit"])
    }

    @Test func savepointOutsideOfTransactionDeliversAtCommit() throws {
        let test = try makeQueue()
        let journal = Journal()
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "SAVEPOINT outer")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada')")
            #expect(journal.entries.isEmpty)
            try db.execute(sql: "RELEASE SAVEPOINT outer")
        }
        #expect(journal.take() == ["insert owner 1", "willCommit", "didCommit"])

        // Rolled back as a whole: nothing but the rollback.
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "SAVEPOINT outer")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (2, 'Bob')")
            try db.execute(sql: "ROLLBACK")
        }
        #expect(journal.take() == ["didRollback"])
    }

    @Test func emptyTransactionsCommitToo() throws {
        let test = try makeQueue()
        let journal = Journal()
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.write { _ in }
        #expect(journal.take() == ["willCommit", "didCommit"])

        // Read accesses are not transactions observers hear of.
        try test.dbQueue.read { db in _ = try Row.fetchAll(db, sql: "SELECT * FROM owner") }
        #expect(journal.take().isEmpty)

        journal.refusal = Veto()
        #expect(throws: Veto.self) { try test.dbQueue.write { _ in } }
        #expect(journal.take() == ["willCommit", "didRollback"])
    }

    @Test func refusedCommitRollsBack() throws {
        let test = try makeQueue()
        let journal = Journal()
        journal.refusal = Veto()
        test.dbQueue.add(transactionObserver: journal)
        #expect(throws: Veto.self) {
            try test.dbQueue.write { db in
                try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada')")
            }
        }
        #expect(journal.take() == ["insert owner 1", "willCommit", "didRollback"])

        // Outside of a transaction, the statement itself fails with the observer's error.
        #expect(throws: Veto.self) {
            try test.dbQueue.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO owner (id, name) VALUES (2, 'Bob')")
            }
        }
        #expect(journal.take() == ["insert owner 2", "willCommit", "didRollback"])

        // An explicit COMMIT, too.
        #expect(throws: Veto.self) {
            try test.dbQueue.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN")
                try db.execute(sql: "INSERT INTO owner (id, name) VALUES (3, 'Cy')")
                try db.execute(sql: "COMMIT")
            }
        }
        #expect(journal.take() == ["insert owner 3", "willCommit", "didRollback"])

        journal.refusal = nil
        try test.dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM owner") == 0)
        }
        // No transaction is left open.
        test.dbQueue.writeWithoutTransaction { db in #expect(!db.isInsideTransaction) }
    }

    @Test func deleteWithoutWhereTellsEachRow() throws {
        let test = try makeQueue()
        try test.dbQueue.write { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada'), (2, 'Bob'), (3, 'Cy')")
        }
        let journal = Journal(tables: ["owner"])
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.write { db in try db.execute(sql: "DELETE FROM owner") }
        #expect(journal.take() == ["delete owner 1", "delete owner 2", "delete owner 3", "willCommit", "didCommit"])
    }

    @Test func deletionsCompiledBeforeTheObserverTellEachRow() throws {
        let test = try makeQueue()
        let journal = Journal(tables: ["owner"])
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada'), (2, 'Bob'), (3, 'Cy'), (4, 'Di')")
            // Compiled while nobody observes: SQLite may truncate the table.
            let deleteAll = try db.cachedStatement(sql: "DELETE FROM owner")
            let deleteSome = try db.makeStatement(sql: "DELETE FROM owner WHERE id > ?")
            try deleteSome.setArguments([2])
            db.add(transactionObserver: journal)
            // Prepared again when run, with their arguments.
            try deleteSome.execute()
            #expect(journal.take() == ["delete owner 3", "delete owner 4", "willCommit", "didCommit"])
            try deleteAll.execute()
            #expect(journal.take() == ["delete owner 1", "delete owner 2", "willCommit", "didCommit"])
            #expect(deleteSome.arguments == [2])
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (5, 'Ed')")
            _ = journal.take()
            try deleteSome.execute(arguments: [0])
            #expect(journal.take() == ["delete owner 5", "willCommit", "didCommit"])
        }
    }

    @Test func savepointsWithTheSameName() throws {
        let test = try makeQueue()
        let journal = Journal()
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "SAVEPOINT a")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada')")
            try db.execute(sql: "SAVEPOINT a")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (2, 'Bob')")
            // Releases the inner "a" only: nothing commits, nothing is told yet.
            try db.execute(sql: "RELEASE a")
            #expect(journal.entries.isEmpty)
            try db.execute(sql: "ROLLBACK TO a")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (3, 'Cy')")
            try db.execute(sql: "RELEASE A")
        }
        #expect(journal.take() == ["insert owner 3", "willCommit", "didCommit"])
    }

    @Test func removedObserversHearNothingMore() throws {
        let test = try makeQueue()
        let journal = Journal()
        test.dbQueue.add(transactionObserver: journal, extent: .databaseLifetime)
        try test.dbQueue.write { db in
            try db.execute(sql: "SAVEPOINT s")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada')")
            db.remove(transactionObserver: journal)
            try db.execute(sql: "RELEASE SAVEPOINT s")
        }
        #expect(journal.take().isEmpty)
    }

    @Test func tablesWithNonASCIINames() throws {
        let test = try makeQueue()
        let journal = Journal(tables: ["Été"])
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE \"Été\" (id INTEGER PRIMARY KEY)")
            _ = journal.take()
            try db.execute(sql: "INSERT INTO \"Été\" (id) VALUES (1)")
        }
        #expect(journal.take() == ["insert Été 1", "willCommit", "didCommit"])
    }

    @Test func deletionsPreparedAgainBySQLiteStayRowByRow() throws {
        let test = try makeQueue()
        let journal = Journal(tables: ["owner"])
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.writeWithoutTransaction { db in
            let deleteAll = try db.makeStatement(sql: "DELETE FROM owner")
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada'), (2, 'Bob')")
            // A schema change: SQLite prepares the statement again when it runs.
            try db.execute(sql: "CREATE TABLE unrelated (a)")
            _ = journal.take()
            try deleteAll.execute()
            #expect(journal.take() == ["delete owner 1", "delete owner 2", "willCommit", "didCommit"])
            // Drops are never cancelled.
            try db.execute(sql: "DROP TABLE unrelated")
            #expect(try !db.tableExists("unrelated"))
        }
    }

    @Test func aCursorKeepsTheInterestOfItsStatement() throws {
        let test = try makeQueue()
        let journal = Journal(tables: ["owner"])
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada'), (2, 'Bob')")
            _ = journal.take()
            try db.inTransaction {
                let deleted = try Int64.fetchCursor(db, sql: "DELETE FROM owner RETURNING id")
                // Another statement runs between the cursor's creation and its steps.
                try db.execute(sql: "INSERT INTO visit (petId, day) VALUES (0, 'x')")
                #expect(try Array(deleted).sorted() == [1, 2])
                return .commit
            }
        }
        #expect(journal.take() == ["delete owner 1", "delete owner 2", "willCommit", "didCommit"])
    }

    @Test func stoppingFromDidCommitDoesNotLast() throws {
        final class Stopper: TransactionObserver {
            var changes = 0
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
            func databaseDidChange(with event: DatabaseEvent) { changes += 1 }
            func databaseDidCommit(_ db: Database) { stopObservingDatabaseChangesUntilNextTransaction() }
            func databaseDidRollback(_ db: Database) {}
        }
        let test = try makeQueue()
        let stopper = Stopper()
        test.dbQueue.add(transactionObserver: stopper)
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO owner (name) VALUES ('a')") }
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO owner (name) VALUES ('b')") }
        #expect(stopper.changes == 2)
    }

    @Test func observersChooseTheirChanges() throws {
        let test = try makeQueue()
        let petJournal = Journal(tables: ["pet"])
        let ownerJournal = Journal(tables: ["owner"])
        test.dbQueue.add(transactionObserver: petJournal)
        test.dbQueue.add(transactionObserver: ownerJournal)
        try test.dbQueue.write { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'Ada')")
            try db.execute(sql: "INSERT INTO pet (id, name, ownerId) VALUES (10, 'Rex', 1)")
            // The trigger updates pet.
            try db.execute(sql: "INSERT INTO visit (petId, day) VALUES (10, 'monday')")
            // The foreign key action deletes pets.
            try db.execute(sql: "DELETE FROM owner WHERE id = 1")
        }
        #expect(petJournal.take() == ["insert pet 10", "update pet 10", "delete pet 10", "willCommit", "didCommit"])
        #expect(ownerJournal.take() == ["insert owner 1", "delete owner 1", "willCommit", "didCommit"])
        // Observers are asked about the writes of triggers and foreign key actions.
        #expect(petJournal.askedKinds.contains(.update(tableName: "pet", columnNames: ["visits"])))
        #expect(petJournal.askedKinds.contains(.delete(tableName: "pet")))
    }

    @Test func stopObservingUntilNextTransaction() throws {
        let test = try makeQueue()
        let journal = Journal()
        journal.stopsAfterFirstChange = true
        test.dbQueue.add(transactionObserver: journal)
        for _ in 0..<2 {
            try test.dbQueue.write { db in
                try db.execute(sql: "INSERT INTO owner (name) VALUES ('a'), ('b'), ('c')")
                try db.execute(sql: "DELETE FROM owner")
            }
        }
        #expect(journal.take() == [
            "insert owner 1", "willCommit", "didCommit",
            "insert owner 1", "willCommit", "didCommit",
        ])
    }

    @Test func extents() throws {
        let test = try makeQueue()
        let released = WeakBox<Journal>()
        do {
            let observer = Journal()
            released.value = observer
            test.dbQueue.add(transactionObserver: observer)
        }
        // The default extent does not retain the observer.
        #expect(released.value == nil)

        let retained = Journal()
        weak var nextTransactionObserver: Journal?
        do {
            let observer = Journal()
            nextTransactionObserver = observer
            test.dbQueue.add(transactionObserver: observer, extent: .nextTransaction)
            test.dbQueue.add(transactionObserver: retained, extent: .databaseLifetime)
        }
        #expect(nextTransactionObserver != nil)
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO owner (name) VALUES ('a')") }
        // Told about the next transaction, then released.
        #expect(nextTransactionObserver == nil)
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO owner (name) VALUES ('b')") }
        #expect(retained.take() == ["insert owner 1", "willCommit", "didCommit", "insert owner 2", "willCommit", "didCommit"])

        test.dbQueue.remove(transactionObserver: retained)
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO owner (name) VALUES ('c')") }
        #expect(retained.take().isEmpty)
    }

    @Test func afterNextTransaction() throws {
        let test = try makeQueue()
        let outcomes = LockedValue<[String]>([])
        try test.dbQueue.write { db in
            db.afterNextTransaction { db in
                outcomes.update { $0.append("committed \(db.isInsideTransaction)") }
            } onRollback: { _ in
                outcomes.update { $0.append("rolled back") }
            }
            try db.execute(sql: "INSERT INTO owner (name) VALUES ('a')")
        }
        try test.dbQueue.inTransaction { db in
            db.afterNextTransaction { _ in
                outcomes.update { $0.append("committed") }
            } onRollback: { _ in
                outcomes.update { $0.append("rolled back") }
            }
            return .rollback
        }
        // Each handler runs once.
        try test.dbQueue.write { _ in }
        #expect(outcomes.read() == ["committed false", "rolled back"])
    }

    @Test func didCommitMayUseTheDatabase() throws {
        final class Auditor: TransactionObserver {
            var counts: [Int] = []
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
            func databaseDidChange(with event: DatabaseEvent) {}
            func databaseDidCommit(_ db: Database) {
                counts.append((try? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM owner")) ?? -1)
            }
            func databaseDidRollback(_ db: Database) {}
        }
        let test = try makeQueue()
        let auditor = Auditor()
        test.dbQueue.add(transactionObserver: auditor)
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO owner (name) VALUES ('a')") }
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO owner (name) VALUES ('b')") }
        #expect(auditor.counts == [1, 2])
    }

    @Test func notifyChanges() throws {
        let test = try makeQueue()
        let ownerJournal = Journal(tables: ["owner"])
        let petJournal = Journal(tables: ["pet"])
        test.dbQueue.add(transactionObserver: ownerJournal)
        test.dbQueue.add(transactionObserver: petJournal)
        try test.dbQueue.write { db in
            try db.notifyChanges(in: Table("owner"))
        }
        #expect(ownerJournal.take() == ["changed", "willCommit", "didCommit"])
        #expect(petJournal.take() == ["willCommit", "didCommit"])
        try test.dbQueue.write { db in
            try db.notifyChanges(in: .fullDatabase)
        }
        #expect(ownerJournal.take() == ["changed", "willCommit", "didCommit"])
        #expect(petJournal.take() == ["changed", "willCommit", "didCommit"])

        // Outside of a write transaction, it is a misuse.
        test.dbQueue.writeWithoutTransaction { db in
            _ = expectDatabaseError(.SQLITE_MISUSE) { try db.notifyChanges(in: Table("owner")) }
        }
        // In a read access it does nothing, as GRDB (TXO-5).
        try test.dbQueue.read { db in try db.notifyChanges(in: Table("owner")) }
        #expect(ownerJournal.take() == [])
    }

    @Test func notifyChangesAsksTableByTable() throws {
        // TXO-2: the region is made concrete (every table of the schema, schema spelling),
        // and each observer is asked table by table.
        let test = try makeQueue()
        let ownerJournal = Journal(tables: ["owner"])
        let nobody = Journal(tables: [])
        let masterJournal = Journal(tables: ["sqlite_master"])
        test.dbQueue.add(transactionObserver: ownerJournal)
        test.dbQueue.add(transactionObserver: nobody)
        test.dbQueue.add(transactionObserver: masterJournal)
        try test.dbQueue.write { db in try db.notifyChanges(in: .fullDatabase) }
        #expect(ownerJournal.take() == ["changed", "willCommit", "didCommit"])
        #expect(nobody.take() == ["willCommit", "didCommit"])
        #expect(masterJournal.take() == ["willCommit", "didCommit"])
        #expect(!nobody.askedKinds.contains { $0.tableName == "sqlite_master" })
        #expect(nobody.askedKinds.contains { $0.tableName == "owner" })
        // Written in another case: asked with the schema's spelling.
        try test.dbQueue.write { db in try db.notifyChanges(in: Table("OWNER")) }
        #expect(ownerJournal.take() == ["changed", "willCommit", "didCommit"])
        #expect(masterJournal.take() == ["willCommit", "didCommit"])
        // sqlite_master named explicitly is asked about as such.
        try test.dbQueue.write { db in try db.notifyChanges(in: Table("sqlite_master")) }
        #expect(masterJournal.take() == ["changed", "willCommit", "didCommit"])
    }

    @Test func failedAutocommitStatementIsNoRollback() throws {
        // TXO-1: a statement that fails outside a transaction rolls back its implicit
        // transaction without telling observers.
        let test = try makeQueue()
        let journal = Journal()
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE unique_name(name TEXT UNIQUE); INSERT INTO unique_name VALUES ('a')")
            _ = journal.take()
            expectDatabaseError(.SQLITE_CONSTRAINT) { try db.execute(sql: "INSERT INTO unique_name VALUES ('a')") }
            #expect(!journal.take().contains("didRollback"))
            // Inside a transaction, a rollback is told.
            try db.beginTransaction()
            try db.execute(sql: "INSERT INTO unique_name VALUES ('b')")
            try db.rollback()
            #expect(journal.take().last == "didRollback")
        }
    }

    @Test func poolWriterObserversSurviveAPassphraseChange() throws {
        guard TestEnvironment.encrypted else { return }
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.usePassphrase(TestEnvironment.testKey) }
        let pool = try DatabasePool(path: directory.path("pool.sqlite"), configuration: configuration)
        try pool.write { db in try db.execute(sql: schema) }
        let journal = Journal(tables: ["owner"])
        pool.add(transactionObserver: journal)
        try pool.changePassphrase("a new passphrase")
        // The change runs in a transaction of the writer, told like any other.
        #expect(!journal.take().contains { $0.hasPrefix("insert") })
        try pool.write { db in try db.execute(sql: "INSERT INTO owner (name) VALUES ('a')") }
        #expect(journal.take() == ["insert owner 1", "willCommit", "didCommit"])
    }

    @Test func poolWriterObservers() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("pool.sqlite"), configuration: TestDatabase.configure(Configuration()))
        try pool.write { db in try db.execute(sql: schema) }
        let journal = Journal(tables: ["owner"])
        pool.add(transactionObserver: journal)
        try pool.write { db in try db.execute(sql: "INSERT INTO owner (name) VALUES ('a')") }
        // Readers are not observed.
        try pool.read { db in _ = try Row.fetchAll(db, sql: "SELECT * FROM owner") }
        #expect(journal.take() == ["insert owner 1", "willCommit", "didCommit"])
        pool.remove(transactionObserver: journal)
        try pool.write { db in try db.execute(sql: "INSERT INTO owner (name) VALUES ('b')") }
        #expect(journal.take().isEmpty)
    }

    @Test func recordsAndRequestsAreObserved() throws {
        struct Owner: Codable, PersistableRecord, FetchableRecord {
            var id: Int64?
            var name: String
        }
        let test = try makeQueue()
        let journal = Journal(tables: ["owner"])
        test.dbQueue.add(transactionObserver: journal)
        try test.dbQueue.write { db in
            try Owner(id: 7, name: "Gil").insert(db)
            try Owner(id: 7, name: "Gil B.").update(db)
            _ = try Owner.filter(Column("id") == 7).updateAndFetchAll(db, [Column("name").set(to: "G.")])
            try Owner.deleteAll(db)
        }
        #expect(journal.take() == ["insert owner 7", "update owner 7", "update owner 7", "delete owner 7", "willCommit", "didCommit"])
    }

    @Test func eventsCopiesOutliveTheCallback() throws {
        final class Keeper: TransactionObserver {
            var events: [DatabaseEvent] = []
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
            func databaseDidChange(with event: DatabaseEvent) { events.append(event.copy()) }
            func databaseDidCommit(_ db: Database) {}
            func databaseDidRollback(_ db: Database) {}
        }
        let test = try makeQueue()
        let keeper = Keeper()
        test.dbQueue.add(transactionObserver: keeper)
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO owner (id, name) VALUES (42, 'Hu')") }
        #expect(keeper.events.map(\.tableName) == ["owner"])
        #expect(keeper.events.map(\.databaseName) == ["main"])
        #expect(keeper.events.map(\.rowID) == [42])
        #expect(keeper.events.map(\.kind) == [.insert])
        // A description names the change, never the row's values.
        #expect(!"\(keeper.events[0])".contains("Hu"))
    }

    /// An observer whose interest changes between two runs of the same statement.
    private final class Switchable: TransactionObserver {
        var wantsOwners = false
        var asked = 0
        var rowIDs: [Int64] = []
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
            asked += 1
            return wantsOwners && eventKind.tableName == "owner"
        }
        func databaseDidChange(with event: DatabaseEvent) { rowIDs.append(event.rowID) }
        func databaseDidCommit(_ db: Database) {}
        func databaseDidRollback(_ db: Database) {}
    }

    @Test func aReusedStatementAsksAgainAtEachExecution() throws {
        let test = try makeQueue()
        let observer = Switchable()
        test.dbQueue.add(transactionObserver: observer)
        try test.dbQueue.write { db in
            let statement = try db.cachedStatement(sql: "INSERT INTO owner (id, name) VALUES (?, 'x')")
            try statement.execute(arguments: [1])
            observer.wantsOwners = true
            try statement.execute(arguments: [2])
            try statement.execute(arguments: [3])
            observer.wantsOwners = false
            try statement.execute(arguments: [4])
            // Statements compiled anew each time (execute(sql:)) too.
            for id in 5...7 {
                observer.wantsOwners = id != 6
                try db.execute(sql: "INSERT INTO owner (id, name) VALUES (?, 'y')", arguments: [id])
            }
        }
        #expect(observer.rowIDs == [2, 3, 5, 7])
        // Once per execution, as GRDB documents it.
        #expect(observer.asked == 7)
    }

    @Test func interestFollowsObserversAddedAndRemovedBetweenExecutions() throws {
        let test = try makeQueue()
        let first = Journal(tables: ["owner"])
        let second = Journal(tables: ["owner"])
        // More observers than the 64 answers a statement remembers: asked every time too.
        let crowd = (0..<70).map { _ in Journal(tables: ["pet"]) }
        try test.dbQueue.write { db in
            let statement = try db.cachedStatement(sql: "INSERT INTO owner (id, name) VALUES (?, 'x')")
            db.add(transactionObserver: first)
            try statement.execute(arguments: [1])
            db.add(transactionObserver: second)
            try statement.execute(arguments: [2])
            db.remove(transactionObserver: first)
            try statement.execute(arguments: [3])
            for journal in crowd { db.add(transactionObserver: journal) }
            try statement.execute(arguments: [4])
            try db.execute(sql: "INSERT INTO pet (id, name) VALUES (1, 'Rex')")
        }
        #expect(first.take() == ["insert owner 1", "insert owner 2"])
        #expect(second.take() == ["insert owner 2", "insert owner 3", "insert owner 4", "willCommit", "didCommit"])
        #expect(crowd.allSatisfy { $0.take() == ["insert pet 1", "willCommit", "didCommit"] })
        #expect(crowd[0].askedKinds.count == 2)
    }

    /// An observer held weakly is held for the rest of a transaction once a statement of the
    /// transaction asked it: its owner letting it go inside the transaction ends its life when
    /// the transaction ends (docs/GRDB-Differences.md), and it hears nothing after that.
    @Test func aWeakObserverLetGoInsideATransactionLivesUntilItsEnd() throws {
        let test = try makeQueue()
        let released = WeakBox<Journal>()
        let log = LockedValue<[String]>([])
        var observer: Journal? = Journal(tables: ["owner"])
        released.value = observer
        test.dbQueue.add(transactionObserver: observer!)
        try test.dbQueue.inTransaction { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'a')")
            log.update { $0 = observer!.entries }
            observer = nil
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (2, 'b')")
            // Still held: the transaction has not ended.
            log.update { $0.append(released.value?.entries.last ?? "gone") }
            return .commit
        }
        #expect(log.read() == ["insert owner 1", "insert owner 2"])
        #expect(released.value == nil)
        // Later transactions tell nothing to anybody, and do not fail.
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO owner (id, name) VALUES (3, 'c')") }
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM owner") } == 3)
    }

    /// Outside of a transaction, nothing holds a weakly held observer: letting it go ends it.
    @Test func aWeakObserverIsNotHeldBetweenTransactions() throws {
        let test = try makeQueue()
        let released = WeakBox<Journal>()
        do {
            let observer = Journal(tables: ["owner"])
            released.value = observer
            test.dbQueue.add(transactionObserver: observer)
            try test.dbQueue.write { db in
                try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'a')")
                try db.execute(sql: "INSERT INTO pet (id, name) VALUES (1, 'Rex')")
            }
            // A statement outside of any transaction (autocommit) holds nothing either.
            try test.dbQueue.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO owner (id, name) VALUES (2, 'b')")
                try db.execute(sql: "UPDATE owner SET name = 'z' WHERE id = 99")
            }
            // SQLite commits the UPDATE that changes nothing too.
            #expect(observer.take() == [
                "insert owner 1", "willCommit", "didCommit",
                "insert owner 2", "willCommit", "didCommit",
                "willCommit", "didCommit",
            ])
        }
        #expect(released.value == nil)
    }

    /// A rolled back transaction lets go of the observers it held too.
    @Test func aRollbackLetsGoOfHeldObservers() throws {
        let test = try makeQueue()
        let released = WeakBox<Journal>()
        var observer: Journal? = Journal(tables: ["owner"])
        released.value = observer
        test.dbQueue.add(transactionObserver: observer!)
        try test.dbQueue.inTransaction { db in
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'a')")
            observer = nil
            return .rollback
        }
        #expect(released.value == nil)
        // A failed statement that rolls back on its own: nothing held, nothing told.
        #expect(throws: DatabaseError.self) {
            try test.dbQueue.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO owner (id, name) VALUES (NULL, NULL)")
            }
        }
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM owner") } == 0)
    }

    /// An observer that removes itself while it is told of a change, its owner holding it no
    /// longer, is not used after it is gone (it is called without being retained while held).
    @Test func anObserverRemovingItselfWhileToldOfAChange() throws {
        let test = try makeQueue()
        final class SelfRemover: TransactionObserver {
            let writer: DatabaseQueue
            let log: LockedValue<[String]>
            var asked = 0
            init(writer: DatabaseQueue, log: LockedValue<[String]>) {
                self.writer = writer
                self.log = log
            }
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
                asked += 1
                return eventKind.tableName == "owner"
            }
            func databaseDidChange(with event: DatabaseEvent) {
                log.update { $0.append("\(event.kind) \(event.rowID)") }
                // Called on the writer: removes itself from the connection directly.
                ConnectionHooks.currentlyNotifying?.database.remove(transactionObserver: self)
                log.update { $0.append("removed, asked \(asked)") }
            }
            func databaseDidCommit(_ db: Database) { log.update { $0.append("didCommit") } }
            func databaseDidRollback(_ db: Database) {}
        }
        let log = LockedValue<[String]>([])
        let released = WeakBox<SelfRemover>()
        var observer: SelfRemover? = SelfRemover(writer: test.dbQueue, log: log)
        released.value = observer
        try test.dbQueue.inTransaction { db in
            db.add(transactionObserver: observer!)
            // Asked, and held for the transaction.
            try db.execute(sql: "INSERT INTO pet (id, name) VALUES (1, 'Rex')")
            observer = nil
            #expect(released.value != nil)
            // Held by the connection only: the insertion of 2 rows tells it once.
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'a'), (2, 'b')")
            #expect(released.value == nil)
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (3, 'c')")
            return .commit
        }
        #expect(log.read() == ["insert 1", "removed, asked 2"])
        #expect(released.value == nil)
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM owner") } == 3)
    }

    /// The same when it removes itself while asked about a statement's changes.
    @Test func anObserverRemovingItselfWhileAsked() throws {
        let test = try makeQueue()
        final class RemovesWhenAskedTwice: TransactionObserver {
            unowned(unsafe) var db: Database?
            var asked = 0
            var told: [String] = []
            let deinitialized = LockedValue(false)
            let deinitializedWhileAsked = LockedValue(false)
            deinit { deinitialized.write(true) }
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
                asked += 1
                if asked == 2 {
                    // Held by locals: readable even if the observer were gone.
                    let deinitialized = deinitialized
                    let deinitializedWhileAsked = deinitializedWhileAsked
                    db?.remove(transactionObserver: self)
                    if deinitialized.read() { deinitializedWhileAsked.write(true) }
                }
                return true
            }
            func databaseDidChange(with event: DatabaseEvent) { told.append("\(event.tableName) \(event.rowID)") }
            func databaseDidCommit(_ db: Database) {}
            func databaseDidRollback(_ db: Database) {}
        }
        let released = WeakBox<RemovesWhenAskedTwice>()
        var observer: RemovesWhenAskedTwice? = RemovesWhenAskedTwice()
        released.value = observer
        let deinitialized = observer!.deinitialized
        let deinitializedWhileAsked = observer!.deinitializedWhileAsked
        let told = LockedValue<[String]>([])
        try test.dbQueue.inTransaction { db in
            observer!.db = db
            db.add(transactionObserver: observer!)
            try db.execute(sql: "INSERT INTO pet (id, name) VALUES (1, 'Rex')")
            told.write(observer!.told)
            observer = nil
            // Asked a second time: removes itself, and is told nothing.
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'a')")
            #expect(released.value == nil)
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (2, 'b')")
            return .commit
        }
        #expect(told.read() == ["pet 1"])
        #expect(deinitialized.read())
        #expect(!deinitializedWhileAsked.read())
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM owner") } == 2)
    }

    /// An observer that, while asked about a statement's changes, removes another observer
    /// (which only the list being asked still holds) and runs a statement of its own: the
    /// nested statement must not release that list while the outer asking loops over it
    /// (docs/UnsafeCode.md; AddressSanitizer reports a use after free otherwise).
    @Test func anObserverRemovingAnotherAndWritingWhileAsked() throws {
        let test = try makeQueue()
        final class Victim: TransactionObserver {
            var told: [String] = []
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
            func databaseDidChange(with event: DatabaseEvent) { told.append("\(event.tableName) \(event.rowID)") }
            func databaseDidCommit(_ db: Database) {}
            func databaseDidRollback(_ db: Database) {}
        }
        final class Remover: TransactionObserver {
            unowned(unsafe) var db: Database?
            var victim: Victim?
            var told: [String] = []
            var writing = false
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
                if let victim, let db, !writing {
                    self.victim = nil
                    db.remove(transactionObserver: victim)
                    writing = true
                    defer { writing = false }
                    try? db.execute(sql: "INSERT INTO owner (id, name) VALUES (99, 'nested')")
                }
                return true
            }
            func databaseDidChange(with event: DatabaseEvent) { told.append("\(event.tableName) \(event.rowID)") }
            func databaseDidCommit(_ db: Database) {}
            func databaseDidRollback(_ db: Database) {}
        }
        let remover = Remover()
        var victim: Victim? = Victim()
        let victimTold = LockedValue<[String]>([])
        try test.dbQueue.inTransaction { db in
            remover.db = db
            db.add(transactionObserver: remover)
            db.add(transactionObserver: victim!)
            remover.victim = victim
            victimTold.write(victim!.told)
            // Only the observers' list holds the victim now.
            victim = nil
            try db.execute(sql: "INSERT INTO pet (id, name) VALUES (1, 'Rex')")
            return .commit
        }
        #expect(victimTold.read() == [])
        #expect(remover.told.sorted() == ["owner 99", "pet 1"])
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM owner") } == 1)
    }

    /// Observers held for a transaction are told of its commit without being retained: one
    /// that removes itself from `databaseWillCommit` or `databaseDidCommit`, its owner holding
    /// it no longer, lives until its call returns; one removed by an earlier observer's
    /// callback is not told; the others are told in order.
    @Test func observersRemovedWhileToldOfTheCommit() throws {
        let test = try makeQueue()
        final class Remover: TransactionObserver {
            let name: String
            let log: LockedValue<[String]>
            /// Removes itself from this callback.
            let removesItselfIn: String?
            /// Removes this observer from `databaseDidCommit`.
            var removesOther: Remover?
            unowned(unsafe) var db: Database?
            let deinitialized = LockedValue(false)
            init(_ name: String, log: LockedValue<[String]>, removesItselfIn: String? = nil) {
                self.name = name
                self.log = log
                self.removesItselfIn = removesItselfIn
            }
            deinit { deinitialized.write(true) }
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
            func databaseDidChange(with event: DatabaseEvent) {}
            private func removeSelf(in callback: String) {
                guard removesItselfIn == callback, let db else { return }
                // Held by locals: readable even if the observer were gone.
                let deinitialized = deinitialized
                let log = log
                let name = name
                db.remove(transactionObserver: self)
                log.update { $0.append("\(name) removed, gone: \(deinitialized.read())") }
            }
            func databaseWillCommit() throws {
                log.update { $0.append("\(name) willCommit") }
                removeSelf(in: "willCommit")
            }
            func databaseDidCommit(_ db: Database) {
                log.update { $0.append("\(name) didCommit") }
                if let other = removesOther {
                    removesOther = nil
                    db.remove(transactionObserver: other)
                }
                removeSelf(in: "didCommit")
            }
            func databaseDidRollback(_ db: Database) {}
        }
        let log = LockedValue<[String]>([])
        var a: Remover? = Remover("a", log: log, removesItselfIn: "willCommit")
        var b: Remover? = Remover("b", log: log, removesItselfIn: "didCommit")
        var c: Remover? = Remover("c", log: log)
        var d: Remover? = Remover("d", log: log)
        let kept = Remover("e", log: log)
        let gone = [a!.deinitialized, b!.deinitialized, c!.deinitialized, d!.deinitialized]
        try test.dbQueue.inTransaction { db in
            for observer in [a!, b!, c!, d!, kept] {
                observer.db = db
                db.add(transactionObserver: observer)
            }
            // c removes d when told of the commit.
            c!.removesOther = d
            // Asked, and held for the transaction; their owner lets them go.
            try db.execute(sql: "INSERT INTO owner (id, name) VALUES (1, 'a')")
            (a, b, c, d) = (nil, nil, nil, nil)
            #expect(gone.allSatisfy { !$0.read() })
            return .commit
        }
        #expect(log.read() == [
            "a willCommit", "a removed, gone: false",
            "b willCommit", "c willCommit", "d willCommit", "e willCommit",
            "b didCommit", "b removed, gone: false",
            "c didCommit", "e didCommit",
        ])
        // Once the commit is over, the observers nobody holds are gone.
        #expect(gone.allSatisfy { $0.read() })
        // The one still held hears of the next transaction, alone.
        log.write([])
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO owner (id, name) VALUES (2, 'b')") }
        #expect(log.read() == ["e willCommit", "e didCommit"])
        withExtendedLifetime(kept) {}
    }

    /// An observer that removes itself while asked, before another one is asked, about a
    /// statement of several kinds of change: the other keeps its own answers.
    @Test func observersChangedWhileAskedKeepTheirOwnAnswers() throws {
        let test = try makeQueue()
        final class Remover: TransactionObserver {
            unowned(unsafe) var db: Database?
            let deinitialized = LockedValue(false)
            let deinitializedWhileAsked = LockedValue(false)
            deinit { deinitialized.write(true) }
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
                if let db {
                    self.db = nil
                    let deinitialized = deinitialized
                    let deinitializedWhileAsked = deinitializedWhileAsked
                    db.remove(transactionObserver: self)
                    if deinitialized.read() { deinitializedWhileAsked.write(true) }
                }
                return true
            }
            func databaseDidChange(with event: DatabaseEvent) {}
            func databaseDidCommit(_ db: Database) {}
            func databaseDidRollback(_ db: Database) {}
        }
        var remover: Remover? = Remover()
        let deinitialized = remover!.deinitialized
        let deinitializedWhileAsked = remover!.deinitializedWhileAsked
        let petJournal = Journal(tables: ["pet"])
        try test.dbQueue.inTransaction { db in
            db.add(transactionObserver: remover!)
            db.add(transactionObserver: petJournal)
            try db.execute(sql: "INSERT INTO pet (id, name) VALUES (1, 'Rex')")
            remover!.db = db
            remover = nil
            // Two kinds of change (the trigger updates pet): the remover goes while asked.
            try db.execute(sql: "INSERT INTO visit (petId, day) VALUES (1, 'monday')")
            try db.execute(sql: "INSERT INTO visit (petId, day) VALUES (1, 'tuesday')")
            return .commit
        }
        #expect(petJournal.take() == ["insert pet 1", "update pet 1", "update pet 1", "willCommit", "didCommit"])
        #expect(petJournal.askedKinds.filter { $0.tableName == "visit" }.count == 2)
        #expect(deinitialized.read())
        #expect(!deinitializedWhileAsked.read())
    }
}
