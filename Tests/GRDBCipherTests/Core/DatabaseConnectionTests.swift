import Foundation
import Testing
@testable import GRDBCipher

@Suite("Database connection state")
struct DatabaseConnectionTests {
    @Test func lastErrorCodeAndMessage() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE harbour (name TEXT NOT NULL UNIQUE)")
            try db.execute(sql: "INSERT INTO harbour VALUES ('Mousehole')")
            #expect(db.lastErrorCode == .SQLITE_OK)
            #expect(db.lastErrorMessage == "not an error")

            expectDatabaseError(.SQLITE_CONSTRAINT_UNIQUE) { try db.execute(sql: "INSERT INTO harbour VALUES ('Mousehole')") }
            // The extended code, which matches its primary code too.
            #expect(db.lastErrorCode == .SQLITE_CONSTRAINT_UNIQUE)
            #expect(db.lastErrorCode.primaryResultCode == .SQLITE_CONSTRAINT)
            #expect(db.lastErrorMessage == "UNIQUE constraint failed: harbour.name")

            expectDatabaseError(.SQLITE_ERROR) { _ = try db.makeStatement(sql: "SELECT * FROM quay") }
            #expect(db.lastErrorCode == .SQLITE_ERROR)
            #expect(db.lastErrorMessage == "no such table: quay")

            // A success resets them.
            _ = try db.makeStatement(sql: "SELECT 1")
            #expect(db.lastErrorCode == .SQLITE_OK)
        }
    }

    @Test func suspensionNotificationsHaveNoEffectOnLinux() throws {
        #expect(Database.suspendNotification != Database.resumeNotification)
        var config = Configuration()
        config.observesSuspensionNotifications = true
        let test = try TestDatabase(configuration: config)
        NotificationCenter.default.post(name: Database.suspendNotification, object: nil)
        // Not suspended: writes and reads go on.
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE buoy (id INTEGER)")
            try db.execute(sql: "INSERT INTO buoy VALUES (1)")
        }
        #expect(try test.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM buoy") } == 1)
        NotificationCenter.default.post(name: Database.resumeNotification, object: nil)
        try test.dbQueue.write { db in try db.execute(sql: "INSERT INTO buoy VALUES (2)") }
    }
}
