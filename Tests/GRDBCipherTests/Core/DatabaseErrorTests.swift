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
