import Foundation
import Testing
@testable import GRDBCipher

@Suite("Trace")
struct TraceTests {
    final class Events: @unchecked Sendable {
        var descriptions: [String] = []
        var durations: [TimeInterval] = []
    }

    @Test func statementEventsHideArguments() throws {
        let test = try TestDatabase()
        let events = Events()
        try test.dbQueue.write { (db: Database) throws in
            db.trace { events.descriptions.append($0.description) }
            try db.execute(sql: "CREATE TABLE t(a)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["secret"])
            db.trace(nil)
            try db.execute(sql: "DELETE FROM t")
        }
        #expect(events.descriptions.contains("INSERT INTO t VALUES (?)"))
        #expect(!events.descriptions.joined().contains("secret"))
        #expect(!events.descriptions.contains("DELETE FROM t"))
    }

    /// As GRDB (PRG-10): the library's name lookups do not trace the configuration reads of
    /// the FTS5 tables SQLite connects for them; the user's own statements still do.
    @Test func nameLookupsDoNotTraceFTS5ConfigurationReads() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            try db.create(virtualTable: "docA", using: FTS5()) { t in t.column("body") }
            try db.create(virtualTable: "docB", using: FTS5()) { t in t.column("body") }
        }
        try test.dbQueue.close()
        let queue = try test.makeQueue()
        let events = Events()
        try queue.write { (db: Database) throws in
            db.trace { events.descriptions.append($0.description) }
            #expect(try !db.tableExists("nothing"))
            #expect(try db.tableExists("docA"))
            try db.execute(sql: "INSERT INTO docB VALUES ('hello')")
        }
        #expect(!events.descriptions.contains { $0.contains("_config") }, "\(events.descriptions)")
        #expect(events.descriptions.contains("INSERT INTO docB VALUES ('hello')"))

        // Without a lookup first, the first statement on the table shows SQLite's read.
        let fresh = try test.makeQueue()
        let freshEvents = Events()
        try fresh.read { (db: Database) throws in
            db.trace { freshEvents.descriptions.append($0.description) }
            _ = try Row.fetchAll(db, sql: "SELECT * FROM docA")
        }
        #expect(freshEvents.descriptions.contains("SELECT k, v FROM 'main'.'docA_config'"), "\(freshEvents.descriptions)")
    }

    @Test func statementsOfTriggersAreTracedAsComments() throws {
        // As GRDB: SQLite's "-- " comment of each statement a trigger runs, after the
        // statement that fired it; never the arguments.
        let test = try TestDatabase()
        let events = Events()
        try test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: """
                CREATE TABLE t(a);
                CREATE TABLE log(a);
                CREATE TRIGGER t_insert AFTER INSERT ON t BEGIN INSERT INTO log VALUES (NEW.a); END;
                """)
            db.trace { events.descriptions.append($0.description) }
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["secret"])
            db.trace(options: .statement) { event in
                if case .statement(let statement) = event { events.descriptions.append("expanded: " + statement.expandedSQL) }
            }
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["secret"])
            db.trace(nil)
        }
        #expect(events.descriptions == [
            "INSERT INTO t VALUES (?)",
            "-- TRIGGER t_insert",
            "-- INSERT INTO log VALUES (NEW.a)",
            "expanded: INSERT INTO t VALUES ('secret')",
            "expanded: -- TRIGGER t_insert",
            "expanded: -- INSERT INTO log VALUES (NEW.a)",
        ])
    }

    @Test func publicArgumentsAreExpanded() throws {
        var config = Configuration()
        config.publicStatementArguments = true
        let test = try TestDatabase(configuration: config)
        let events = Events()
        try test.dbQueue.read { (db: Database) throws in
            db.trace { events.descriptions.append($0.description) }
            _ = try Int.fetchOne(db, sql: "SELECT ?", arguments: [42])
        }
        #expect(events.descriptions.contains("SELECT 42"))
    }

    @Test func profileEvents() throws {
        let test = try TestDatabase()
        let events = Events()
        try test.dbQueue.read { (db: Database) throws in
            db.trace(options: .profile) { event in
                if case let .profile(statement, duration) = event {
                    events.descriptions.append(statement.sql)
                    events.durations.append(duration)
                }
            }
            _ = try Int.fetchOne(db, sql: "SELECT 1")
        }
        #expect(events.descriptions.contains("SELECT 1"))
        #expect(events.durations.allSatisfy { $0 >= 0 })
    }

    @Test func tracedSQLIsTrimmedStatementByStatement() throws {
        let test = try TestDatabase()
        let events = Events()
        var expanded: [String] = []
        try test.dbQueue.writeWithoutTransaction { (db: Database) throws in
            db.trace {
                events.descriptions.append($0.description)
                if case .statement(let statement) = $0 { expanded.append(statement.expandedSQL) }
            }
            try db.execute(sql: "CREATE TABLE note(body TEXT);")
            try db.execute(sql: """
                INSERT INTO note(body) VALUES (?);
                  INSERT INTO note(body) VALUES ('second') ;
                """, arguments: ["first"])
        }
        // Only the user's statements: not the savepoint that protects multi-statement SQL.
        #expect(events.descriptions == [
            "CREATE TABLE note(body TEXT)",
            "INSERT INTO note(body) VALUES (?)",
            "INSERT INTO note(body) VALUES ('second')",
        ])
        #expect(expanded[1] == "INSERT INTO note(body) VALUES ('first')")
    }

    @Test func expandedDescriptionShowsArguments() throws {
        let test = try TestDatabase()
        let events = Events()
        var expanded: [String] = []
        try test.dbQueue.read { (db: Database) throws in
            db.trace { event in
                events.descriptions.append(event.description)
                expanded.append(event.expandedDescription)
            }
            _ = try String.fetchOne(db, sql: "SELECT ? || ?", arguments: ["en", "crypted"])
        }
        #expect(events.descriptions.contains("SELECT ? || ?"))
        #expect(expanded.contains("SELECT 'en' || 'crypted'"))
    }
}
