import Foundation
import Testing
@testable import GRDBCipher

@Suite("SQLCipher license")
struct SQLCipherLicenseTests {
    /// Not a real license: the community edition of SQLCipher ignores the pragma.
    private let license = "OmF1ZGl0b3I6dGlkZXdhdGNoZXI=:Smugglers' Cove"

    @Test func licenseAppliedBeforeTheKeyInPrepareDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("licensed.sqlite")
        var config = Configuration()
        config.prepareDatabase { [license] db in
            try db.applySQLCipherLicense(license)
            try db.usePassphrase("lantern")
        }
        let dbQueue = try DatabaseQueue(path: path, configuration: config)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE cargo (item TEXT); INSERT INTO cargo VALUES ('brandy')")
        }
        try dbQueue.close()
        // Encrypted with the passphrase, as without a license.
        let reopened = try DatabaseQueue(path: path, configuration: config)
        #expect(try reopened.read { try String.fetchAll($0, sql: "SELECT item FROM cargo") } == ["brandy"])
        var wrongKey = Configuration()
        wrongKey.prepareDatabase { db in try db.usePassphrase("candle") }
        expectDatabaseError(.SQLITE_NOTADB) { _ = try DatabaseQueue(path: path, configuration: wrongKey) }
    }

    @Test func licenseStaysOutOfTraces() throws {
        let test = try TestDatabase()
        let recorder = SQLRecorder()
        try test.dbQueue.writeWithoutTransaction { db in
            recorder.record(db)
            try db.execute(sql: "SELECT 'before'")
            try db.applySQLCipherLicense(license)
            try db.execute(sql: "SELECT 'after'")
        }
        #expect(recorder.sql == ["SELECT 'before'", "SELECT 'after'"])
        #expect(!recorder.sql.joined().contains("Smugglers"))
    }

    @Test func badLicenseIsRefusedWithoutQuotingIt() throws {
        let test = try TestDatabase()
        try test.dbQueue.writeWithoutTransaction { db throws in
            let secret = "Smugglers\u{0}Cove"
            let error = expectDatabaseError(.SQLITE_MISUSE) { try db.applySQLCipherLicense(secret) }
            #expect(error?.message == "invalid SQLCipher license: it contains a NUL character")
            #expect(error.map { !"\($0)".contains("Smugglers") } == true)
            #expect(error?.sql == nil)
            // The connection is still usable.
            #expect(try Int.fetchOne(db, sql: "SELECT 1") == 1)
        }
    }

    /// In a new process: the log function must be set before SQLite initializes.
    @Test func sqliteLogIsWithheldForSecretStatements() async {
        await #expect(processExitsWith: .success) {
            final class Messages: @unchecked Sendable {
                let lock = NSLock()
                var list: [String] = []
            }
            let messages = Messages()
            Database.logError = { _, message in
                messages.lock.withLock { messages.list.append(message) }
            }
            let dbQueue = try DatabaseQueue()
            try dbQueue.writeWithoutTransaction { db in
                // SQLite logs syntax errors with the statement text.
                _ = try? db.execute(sql: "SELEKT 'visible'")
                db.withSecretStatement {
                    _ = try? db.execute(sql: "SELEKT 'hidden'")
                }
                try db.applySQLCipherLicense("Smugglers' Cove")
            }
            let list = messages.lock.withLock { messages.list }
            let sawVisible = list.contains { $0.contains("visible") }
            let sawHidden = list.contains { $0.contains("hidden") || $0.contains("Smugglers") }
            let sawWithheld = list.contains { $0 == "(message withheld: the statement holds a secret)" }
            exit(sawVisible && !sawHidden && sawWithheld ? 0 : 1)
        }
    }
}
