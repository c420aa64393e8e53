import Foundation
import Testing
@testable import GRDBCipher

/// A user module, declared as in GRDB: SQLite's R*Tree, with its columns.
private struct RTree: VirtualTableModule {
    final class TableDefinition {
        var columns: [String] = []
        func column(_ name: String) { columns.append(name) }
    }

    var moduleName: String { "rtree" }

    func makeTableDefinition(configuration: VirtualTableConfiguration) -> TableDefinition {
        TableDefinition()
    }

    func moduleArguments(for definition: TableDefinition, in db: Database) throws -> [String] {
        definition.columns
    }

    func database(_ db: Database, didCreate tableName: String, using definition: TableDefinition) throws { }
}

/// A module whose post-creation step fails, to check that the table goes with it.
private struct FailingModule: VirtualTableModule {
    struct Failure: Error {}
    var moduleName: String { "fts5" }
    func makeTableDefinition(configuration: VirtualTableConfiguration) -> [String] { [] }
    func moduleArguments(for definition: [String], in db: Database) throws -> [String] { ["body"] }
    func database(_ db: Database, didCreate tableName: String, using definition: [String]) throws {
        try db.execute(sql: "CREATE TABLE \"\(tableName)_extra\"(a)")
        throw Failure()
    }
}

/// A module that records the configuration it is given.
private struct ConfigurationProbe: VirtualTableModule {
    final class Definition {
        let configuration: VirtualTableConfiguration
        init(_ configuration: VirtualTableConfiguration) { self.configuration = configuration }
    }
    var moduleName: String { "fts4" }
    func makeTableDefinition(configuration: VirtualTableConfiguration) -> Definition { Definition(configuration) }
    func moduleArguments(for definition: Definition, in db: Database) throws -> [String] { ["content"] }
    func database(_ db: Database, didCreate tableName: String, using definition: Definition) throws { }
}

@Suite("Virtual tables")
struct VirtualTableTests {
    @Test func userModule() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            recorder.record(db)
            try db.create(virtualTable: "boundary", using: RTree()) { t in
                t.column("id")
                t.column("minX")
                t.column("maxX")
                t.column("minY")
                t.column("maxY")
            }
            try db.execute(sql: "INSERT INTO boundary VALUES (1, 0, 10, 0, 10), (2, 20, 30, 20, 30)")
            #expect(try Int.fetchAll(db, sql: "SELECT id FROM boundary WHERE minX <= 5 AND maxX >= 5") == [1])
        }
        #expect(recorder.sql.contains("CREATE VIRTUAL TABLE \"boundary\" USING rtree(id, minX, maxX, minY, maxY)"))
    }

    @Test func moduleString() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.write { db in
            recorder.record(db)
            try db.create(virtualTable: "point", using: "rtree(id, minX, maxX)")
            try db.create(virtualTable: "scratch", options: [.temporary, .ifNotExists], using: "fts4")
            try db.create(virtualTable: "scratch", options: [.temporary, .ifNotExists], using: "fts4")
            try db.create(virtualTable: "point", ifNotExists: true, using: "rtree(id, minX, maxX)")
            #expect(try db.tableExists("point"))
            // Without IF NOT EXISTS, a second creation fails.
            let error = expectDatabaseError(.SQLITE_ERROR) { try db.create(virtualTable: "point", using: "rtree(id, minX, maxX)") }
            #expect(error?.message == "table \"point\" already exists")
            expectDatabaseError(.SQLITE_ERROR) { try db.create(virtualTable: "nothing", using: "nosuchmodule") }
        }
        #expect(recorder.sql.filter { $0.hasPrefix("CREATE") } == [
            "CREATE VIRTUAL TABLE \"point\" USING rtree(id, minX, maxX)",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.\"scratch\" USING fts4",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.\"scratch\" USING fts4",
            "CREATE VIRTUAL TABLE IF NOT EXISTS \"point\" USING rtree(id, minX, maxX)",
            // The failed statements never started (SQLite refused to compile them)
            "CREATE VIRTUAL TABLE \"nothing\" USING nosuchmodule",
        ])
    }

    @Test func optionsAndConfiguration() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            var seen: [VirtualTableConfiguration] = []
            try db.create(virtualTable: "a", using: ConfigurationProbe()) { seen.append($0.configuration) }
            try db.create(virtualTable: "b", options: [.ifNotExists, .temporary], using: ConfigurationProbe()) { seen.append($0.configuration) }
            try db.create(virtualTable: "b", options: .ifNotExists, using: ConfigurationProbe()) { seen.append($0.configuration) }
            #expect(seen.map(\.ifNotExists) == [false, true, true])
            #expect(seen.map(\.temporary) == [false, true, false])
            #expect(try db.tableExists("b", in: "temp"))
            #expect(try db.tableExists("b", in: "main"))
            // The GRDB 5 form, with a boolean
            try db.create(virtualTable: "a", ifNotExists: true, using: FTS4()) { t in t.column("content") }
            expectDatabaseError(.SQLITE_ERROR) {
                try db.create(virtualTable: "a", ifNotExists: false, using: FTS4()) { t in t.column("content") }
            }
        }
        #expect(VirtualTableOptions.ifNotExists.rawValue != VirtualTableOptions.temporary.rawValue)
        #expect(VirtualTableOptions(rawValue: 3) == [.ifNotExists, .temporary])
    }

    @Test func creationIsAtomic() throws {
        let test = try TestDatabase()
        // Outside of a transaction, and inside one: the table and what the module created
        // are rolled back together, the rest of the transaction stays.
        try test.dbQueue.writeWithoutTransaction { (db: Database) throws in
            #expect(throws: FailingModule.Failure.self) {
                try db.create(virtualTable: "doc", using: FailingModule())
            }
            #expect(try !db.tableExists("doc"))
            #expect(try !db.tableExists("doc_extra"))
            #expect(!db.isInsideTransaction)
        }
        try test.dbQueue.write { db in
            try db.create(table: "kept") { t in t.column("a") }
            #expect(throws: FailingModule.Failure.self) {
                try db.create(virtualTable: "doc", using: FailingModule())
            }
            #expect(try !db.tableExists("doc"))
            #expect(try !db.tableExists("doc_extra"))
            #expect(try db.tableExists("kept"))
        }
    }
}
