import Foundation
import Testing
@testable import GRDBCipher

// An `around…` persistence callback that does not call its action, or swallows its error,
// makes the persistence method throw SQLITE_MISUSE, as GRDB 7.10 (REC-1; it stopped the
// process). The messages are GRDB's, checked with tools/grdb-probe.

private struct Invoice: MutablePersistableRecord, Encodable {
    static let databaseTableName = "invoice"
    var id: Int64?
    var number: String
    /// What the callbacks do wrong.
    var misuse: Misuse = .none

    enum Misuse { case none, swallowInsert, skipUpdate, skipDelete, swallowSave }
    enum CodingKeys: String, CodingKey { case id, number }

    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        if misuse == .swallowInsert { _ = try? insert() } else { _ = try insert() }
    }

    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        if misuse != .skipUpdate { _ = try update() }
    }

    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
        if misuse != .skipDelete { _ = try delete() }
    }

    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        if misuse == .swallowSave { _ = try? save() } else { _ = try save() }
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

private func message(_ callback: String) -> String {
    "Incorrect implementation of the `Invoice.\(callback)` persistence callback: the action function was not called, or its error was not rethrown."
}

@Suite("Misused persistence callbacks")
struct PersistenceCallbackMisuseTests {
    private func withInvoices(_ body: (Database) throws -> Void) throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE invoice(id INTEGER PRIMARY KEY, number TEXT NOT NULL UNIQUE); INSERT INTO invoice VALUES (1, '2024-001')")
            try body(db)
        }
    }

    @Test func swallowedInsertErrorThrowsMisuse() throws {
        try withInvoices { (db: Database) throws in
            // The number exists: the insert fails, and the callback swallows the failure.
            var invoice = Invoice(id: nil, number: "2024-001", misuse: .swallowInsert)
            let error = expectDatabaseError(.SQLITE_MISUSE) { try invoice.insert(db) }
            #expect(error?.message == message("aroundInsert"))
            #expect(invoice.id == nil)
            // inserted(_:) goes through the same callbacks.
            let other = Invoice(id: nil, number: "2024-001", misuse: .swallowInsert)
            expectDatabaseError(.SQLITE_MISUSE) { _ = try other.inserted(db) }
            // A new number: the action succeeds, nothing is wrong.
            var fresh = Invoice(id: nil, number: "2024-002", misuse: .swallowInsert)
            try fresh.insert(db)
            #expect(fresh.id == 2)
        }
    }

    @Test func skippedUpdateAndDeleteThrowMisuse() throws {
        try withInvoices { (db: Database) throws in
            let update = expectDatabaseError(.SQLITE_MISUSE) {
                try Invoice(id: 1, number: "changed", misuse: .skipUpdate).update(db)
            }
            #expect(update?.message == message("aroundUpdate"))
            let delete = expectDatabaseError(.SQLITE_MISUSE) {
                _ = try Invoice(id: 1, number: "2024-001", misuse: .skipDelete).delete(db)
            }
            #expect(delete?.message == message("aroundDelete"))
            // Nothing changed.
            #expect(try String.fetchAll(db, sql: "SELECT number FROM invoice") == ["2024-001"])
        }
    }

    @Test func swallowedSaveErrorThrowsMisuse() throws {
        try withInvoices { (db: Database) throws in
            var invoice = Invoice(id: nil, number: "2024-001", misuse: .swallowSave)
            let error = expectDatabaseError(.SQLITE_MISUSE) { try invoice.save(db) }
            #expect(error?.message == message("aroundSave"))
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM invoice") == 1)
        }
    }
}
