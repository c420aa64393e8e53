import Foundation
import Testing
@testable import GRDBCipher

@Suite("Backup")
struct DatabaseBackupTests {
    @Test func backupCopiesEverything() throws {
        let source = try TestDatabase()
        try source.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a); PRAGMA user_version = 9")
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (randomblob(500))")
            for _ in 0..<200 { try statement.execute() }
        }
        let destination = try TestDatabase()
        try destination.dbQueue.write { try $0.execute(sql: "CREATE TABLE old(x)") }
        final class Log: @unchecked Sendable { var steps: [DatabaseBackupProgress] = [] }
        let log = Log()
        try source.dbQueue.backup(to: destination.dbQueue, pagesPerStep: 10) { log.steps.append($0) }
        try destination.dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 200)
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 9)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'old'") == 0)
        }
        #expect(log.steps.count > 2)
        #expect(log.steps.last?.isCompleted == true)
        #expect(log.steps.last?.completedPageCount == log.steps.last?.totalPageCount)
    }

    @Test func progressErrorsStopTheBackup() throws {
        let source = try TestDatabase()
        try source.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (randomblob(500))")
            for _ in 0..<200 { try statement.execute() }
        }
        let destination = try TestDatabase()
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try source.dbQueue.backup(to: destination.dbQueue, pagesPerStep: 5) { _ in throw Stop() }
        }
        #expect(try destination.dbQueue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master") } == 0)
    }

    @Test func differentEncryptionIsExplained() throws {
        let directory = try TemporaryDirectory()
        let plain = try DatabaseQueue(path: directory.path("plain.sqlite"))
        try plain.write { try $0.execute(sql: "CREATE TABLE t(a)") }
        var config = Configuration()
        config.prepareDatabase { try $0.usePassphrase("k", settings: CipherSettings(kdfIterations: 1000)) }
        let encrypted = try DatabaseQueue(path: directory.path("e.sqlite"), configuration: config)
        let error = expectDatabaseError(.SQLITE_ERROR) { try plain.backup(to: encrypted) }
        #expect(error?.message?.contains("use exportDatabase(to:options:)") == true)
    }
}
