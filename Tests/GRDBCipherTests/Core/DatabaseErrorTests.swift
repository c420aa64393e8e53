import Foundation
import Testing
@testable import GRDBCipher

@Suite("DatabaseError and ResultCode")
struct DatabaseErrorTests {
    @Test func patternMatching() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { (db: Database) throws in
            try db.execute(sql: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(parentId REFERENCES parent(id), name NOT NULL);
                """)
        }
        var matched: [String] = []
        do {
            try test.dbQueue.write { try $0.execute(sql: "INSERT INTO child VALUES (1, 'a')") }
        } catch DatabaseError.SQLITE_CONSTRAINT_FOREIGNKEY {
            matched.append("foreign key")
        }
        do {
            try test.dbQueue.write { try $0.execute(sql: "INSERT INTO child VALUES (NULL, NULL)") }
        } catch DatabaseError.SQLITE_CONSTRAINT_FOREIGNKEY {
            matched.append("wrong")
        } catch DatabaseError.SQLITE_CONSTRAINT {
            matched.append("constraint")
        }
        #expect(matched == ["foreign key", "constraint"])
    }

    @Test func resultCodes() {
        #expect(ResultCode.SQLITE_CONSTRAINT_UNIQUE.primaryResultCode == .SQLITE_CONSTRAINT)
        #expect(ResultCode.SQLITE_CONSTRAINT ~= ResultCode.SQLITE_CONSTRAINT_UNIQUE)
        #expect(!(ResultCode.SQLITE_CONSTRAINT_UNIQUE ~= ResultCode.SQLITE_CONSTRAINT_FOREIGNKEY))
        #expect(ResultCode.SQLITE_NOTADB.rawValue == 26)
        #expect(ResultCode.SQLITE_BUSY.description == "5 (database is locked)")
        let error = DatabaseError(resultCode: .SQLITE_CONSTRAINT_UNIQUE, message: "m", sql: "S")
        #expect(error.resultCode == .SQLITE_CONSTRAINT)
        #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
        #expect(error.description == "SQLite error 19: m - while executing `S`")
        // Without a message, SQLite's standard text for the code.
        #expect(DatabaseError().message == "SQL logic error")
        #expect(DatabaseError().description == "SQLite error 1: SQL logic error")
        #expect(DatabaseError(resultCode: .SQLITE_BUSY).message == "database is locked")
        #expect(DatabaseError(resultCode: .SQLITE_CONSTRAINT_UNIQUE).message == "constraint failed")
        #expect(!(ResultCode.SQLITE_CONSTRAINT ~= (RowDecodingError.columnNotFound("a", type: Int.self, row: Row()) as any Error)))
    }
}

extension DatabaseErrorTests {
    @Test func extendedCodesHaveSQLiteValues() {
        #expect(ResultCode.SQLITE_IOERR_DIR_FSYNC.rawValue == 1290)
        #expect(ResultCode.SQLITE_IOERR_CORRUPTFS.rawValue == 8458)
        #expect(ResultCode.SQLITE_CANTOPEN_SYMLINK.rawValue == 1550)
        #expect(ResultCode.SQLITE_LOCKED_VTAB.rawValue == 518)
        #expect(ResultCode.SQLITE_OK_LOAD_PERMANENTLY.rawValue == 256)
        #expect(ResultCode.SQLITE_CONSTRAINT_PINNED.rawValue == 2835)
        #expect(ResultCode.SQLITE_AUTH_USER.rawValue == 279)
        #expect(DatabaseError.SQLITE_BUSY_RECOVERY == ResultCode.SQLITE_BUSY_RECOVERY)
        #expect(DatabaseError.SQLITE_IOERR_SHMMAP.primaryResultCode == .SQLITE_IOERR)
        #expect(DatabaseError.SQLITE_WARNING_AUTOINDEX.primaryResultCode == .SQLITE_WARNING)
        #expect(ResultCode.SQLITE_READONLY ~= DatabaseError.SQLITE_READONLY_DIRECTORY)
        #expect(!(ResultCode.SQLITE_IOERR_READ ~= DatabaseError.SQLITE_IOERR_WRITE))
    }

    @Test func extendedCodeOfFailingStatement() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE gadget(code TEXT PRIMARY KEY, weight REAL CHECK (weight > 0))")
            try db.execute(sql: "INSERT INTO gadget VALUES ('x1', 2.5)")
        }
        let duplicate = #expect(throws: DatabaseError.self) {
            try test.dbQueue.write { try $0.execute(sql: "INSERT INTO gadget VALUES ('x1', 1)") }
        }
        #expect(duplicate?.extendedResultCode == DatabaseError.SQLITE_CONSTRAINT_PRIMARYKEY)
        var matched = ""
        do {
            try test.dbQueue.write { try $0.execute(sql: "INSERT INTO gadget VALUES ('x2', -1)") }
        } catch DatabaseError.SQLITE_CONSTRAINT_PRIMARYKEY {
            matched = "primary key"
        } catch DatabaseError.SQLITE_CONSTRAINT_CHECK {
            matched = "check"
        }
        #expect(matched == "check")
    }

    @Test func bridgesToNSError() throws {
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE secret(token TEXT NOT NULL UNIQUE)")
            try db.execute(sql: "INSERT INTO secret VALUES (?)", arguments: ["hunter2-token"])
        }
        let error = #expect(throws: DatabaseError.self) {
            try test.dbQueue.write {
                try $0.execute(sql: "INSERT INTO secret VALUES (?)", arguments: ["hunter2-token"])
            }
        }
        let nsError = try #require(error) as NSError
        #expect(DatabaseError.errorDomain == "GRDB.DatabaseError")
        #expect(nsError.domain == "GRDB.DatabaseError")
        #expect(nsError.code == 2067) // SQLITE_CONSTRAINT_UNIQUE
        #expect(nsError.code == Int(DatabaseError.SQLITE_CONSTRAINT_UNIQUE.rawValue))
        let text = try #require(nsError.userInfo[NSLocalizedDescriptionKey] as? String)
        #expect(text == "SQLite error 19: UNIQUE constraint failed: secret.token - while executing `INSERT INTO secret VALUES (?)`")
        #expect(!text.contains("hunter2"))
        #expect(nsError.localizedDescription == text)
    }

    @Test func bridgedPrimaryCodeWithoutStatement() {
        let nsError = DatabaseError(resultCode: .SQLITE_BUSY) as NSError
        #expect(nsError.code == 5)
        #expect(nsError.localizedDescription == "SQLite error 5: database is locked")
    }
}

@Suite("SQLite error log")
struct ErrorLogTests {
    /// In a new process: the log function must be set before SQLite initializes.
    @Test func logErrorReceivesSQLiteLogAndUnfinalizedStatements() async {
        await #expect(processExitsWith: .success) {
            final class Messages: @unchecked Sendable {
                let lock = NSLock()
                var list: [(ResultCode, String)] = []
            }
            let messages = Messages()
            Database.logError = { code, message in
                messages.lock.withLock { messages.list.append((code, message)) }
            }
            let dbQueue = try DatabaseQueue()
            _ = try? dbQueue.read { try $0.execute(sql: "SELEKT 1") }
            let leaked = try dbQueue.read { try $0.makeStatement(sql: "SELECT 'kept alive'") }
            #expect(throws: DatabaseError.self) { try dbQueue.close() } // the statement is alive
            let list = messages.lock.withLock { messages.list }
            let sawSyntaxError = list.contains { $0.0 == .SQLITE_ERROR && $0.1.contains("syntax error") }
            let sawUnfinalized = list.contains { $0.1 == "unfinalized statement: SELECT 'kept alive'" }
            withExtendedLifetime(leaked) {}
            exit(sawSyntaxError && sawUnfinalized ? 0 : 1)
        }
    }

    /// SQLite quotes the SQL of a statement that fails to prepare: one that holds a key is
    /// withheld, whoever ran it.
    @Test func logErrorWithholdsMessagesQuotingKeyingStatements() async {
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
            _ = try? dbQueue.read { try $0.execute(sql: "ATTACH DATABASE ':memory:' AS other KEY 'hunter2' SELEKT") }
            _ = try? dbQueue.read { try $0.execute(sql: "PRAGMA key = 'hunter2' SELEKT") }
            _ = try? dbQueue.read { try $0.execute(sql: "SELEKT 'harmless'") }
            let list = messages.lock.withLock { messages.list }
            let leaked = list.contains { $0.contains("hunter2") }
            let withheld = list.filter { $0 == "(message withheld: the statement holds a secret)" }.count
            let kept = list.contains { $0.contains("SELEKT 'harmless'") }
            exit(!leaked && withheld >= 2 && kept ? 0 : 1)
        }
    }

    @Test func keyingStatementsAreRecognizedInMessages() {
        #expect(Database.quotesKeyingStatement("near \"SELEKT\": syntax error in \"PRAGMA key = 'x' SELEKT\""))
        #expect(Database.quotesKeyingStatement("in \"attach 'a.db' as a key 'x'\""))
        #expect(Database.quotesKeyingStatement("in \"PRAGMA cipher_license = 'x'\""))
        #expect(Database.quotesKeyingStatement("in \"PRAGMA hexrekey = 'x'\""))
        #expect(!Database.quotesKeyingStatement("FOREIGN KEY constraint failed"))
        #expect(!Database.quotesKeyingStatement("near \"SELEKT\": syntax error in \"SELEKT 1\""))
    }
}
