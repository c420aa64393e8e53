// The baseline: the workloads written with SQLite's C API, on the library this executable links
// (SQLCipher in SQLCipherBenchmarks, the system's SQLite in GRDBBenchmarks, which compiles this
// file through a symbolic link). Connections open with SQLITE_OPEN_NOMUTEX, the threading mode
// of GRDB's and GRDBCipher's connections, so that neither side pays SQLite's per-call mutex.
#if SQLCIPHER
import CRawSQLCipher
#else
import CRawSQLite
#endif
import BenchmarkSupport
import Foundation

/// How a raw connection is keyed.
enum RawKey {
    case none
    case passphrase(String)
    /// 64 hexadecimal digits, given to SQLCipher as `x'…'`.
    case rawKey(hex: String)
}

/// A connection opened with the C API.
final class RawConnection {
    let handle: OpaquePointer

    init(path: String, key: RawKey, readOnly: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard let handle else { throw VerificationFailure("sqlite3_open_v2: out of memory") }
        self.handle = handle
        guard code == SQLITE_OK else { throw error("sqlite3_open_v2") }
        switch key {
        case .none:
            break
        case .passphrase(let passphrase):
            try setKey(passphrase)
        case .rawKey(let hex):
            try setKey("x'\(hex)'")
        }
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    private func setKey(_ key: String) throws {
        #if SQLCIPHER
        let code = key.withCString { sqlite3_key(handle, $0, Int32(strlen($0))) }
        guard code == SQLITE_OK else { throw error("sqlite3_key") }
        #else
        throw VerificationFailure("the system's SQLite does not encrypt")
        #endif
    }

    func error(_ function: String) -> VerificationFailure {
        VerificationFailure("\(function): \(String(cString: sqlite3_errmsg(handle)))")
    }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error("sqlite3_exec") }
    }

    /// The integers of the first row of `sql`.
    func integers(_ sql: String) throws -> [Int64] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw error("sqlite3_prepare_v2") }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw error("sqlite3_step") }
        return (0..<sqlite3_column_count(statement)).map { sqlite3_column_int64(statement, $0) }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw error("sqlite3_prepare_v2") }
        return statement
    }
}

enum RawC {
    /// Fills the `item` table with `rows` rows of WorkloadData (not measured: setup).
    static func createItemTable(path: String, key: RawKey, rows: Int) throws {
        let db = try RawConnection(path: path, key: key)
        try db.execute("BEGIN; \(WorkloadData.createSQL)")
        try insertItems(db, rows: rows)
        try db.execute("COMMIT")
    }

    /// W4: inserts `rows` rows with one prepared statement, bound with `sqlite3_bind_int64`.
    static func insertItems(_ db: RawConnection, rows: Int) throws {
        let statement = try db.prepare(WorkloadData.insertSQL)
        defer { sqlite3_finalize(statement) }
        for row in 0..<rows {
            for column in 0..<10 {
                sqlite3_bind_int64(statement, Int32(column + 1), WorkloadData.value(row, column))
            }
            guard sqlite3_step(statement) == SQLITE_DONE else { throw db.error("sqlite3_step") }
            sqlite3_reset(statement)
        }
    }

    /// W1–W3b: the 10 integer columns of every row, read by index.
    static func fetch(_ db: RawConnection) throws -> Double {
        var sum: Int64 = 0
        var count = 0
        let time = try measure {
            let statement = try db.prepare(WorkloadData.selectSQL)
            while sqlite3_step(statement) == SQLITE_ROW {
                for column in 0..<Int32(10) { sum &+= sqlite3_column_int64(statement, column) }
                count += 1
            }
            sqlite3_finalize(statement)
        }
        try verify(count == WorkloadData.fetchRowCount, "raw fetch: \(count) rows")
        try verify(sum == WorkloadData.expectedSum(rows: count), "raw fetch: checksum \(sum)")
        return time
    }

    /// W4–W5b: inserts WorkloadData.insertRowCount rows in one transaction. The previous run's
    /// rows are deleted first, outside of the measured time.
    static func insert(_ db: RawConnection) throws -> Double {
        try db.execute("DELETE FROM item")
        let time = try measure {
            try db.execute("BEGIN IMMEDIATE")
            try insertItems(db, rows: WorkloadData.insertRowCount)
            try db.execute("COMMIT")
        }
        try verifyInserted(try db.integers(WorkloadData.sumSQL), "raw insert")
        return time
    }

    /// OPEN and POOL: opens a connection, keys it, runs a first query, closes it.
    static func open(path: String, key: RawKey, readOnly: Bool) throws -> Double {
        var count: Int64 = -1
        let time = try measure {
            let db = try RawConnection(path: path, key: key, readOnly: readOnly)
            count = try db.integers("SELECT COUNT(*) FROM item")[0]
        }
        try verify(count == Int64(openRowCount), "raw open: \(count) rows")
        return time
    }

    /// W11: creates the empty FTS5 table (not measured: setup), after dropping the previous
    /// run's.
    static func createFTSTable(_ db: RawConnection) throws {
        try db.execute("DROP TABLE IF EXISTS doc; \(WorkloadData.ftsCreateSQL)")
    }

    /// W11-insert: indexes the documents in one transaction, with one prepared statement.
    static func ftsInsert(_ db: RawConnection) throws -> Double {
        try createFTSTable(db)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let documents = (0..<WorkloadData.ftsDocumentCount).map(WorkloadData.ftsDocument)
        let time = try measure {
            try db.execute("BEGIN IMMEDIATE")
            let statement = try db.prepare(WorkloadData.ftsInsertSQL)
            for document in documents {
                sqlite3_bind_text(statement, 1, document, -1, transient)
                guard sqlite3_step(statement) == SQLITE_DONE else { throw db.error("sqlite3_step") }
                sqlite3_reset(statement)
            }
            sqlite3_finalize(statement)
            try db.execute("COMMIT")
        }
        let count = try db.integers("SELECT COUNT(*) FROM doc")[0]
        try verify(count == Int64(WorkloadData.ftsDocumentCount), "raw FTS insert: \(count) rows")
        return time
    }

    /// W11-match: runs the queries (a pattern made from each, as an application does: the
    /// words, lowercased), and reads the matching documents.
    static func ftsMatch(_ db: RawConnection) throws -> Double {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let queries = (0..<WorkloadData.ftsQueryCount).map(WorkloadData.ftsQuery)
        var matches = 0
        var length = 0
        let time = try measure {
            let statement = try db.prepare(WorkloadData.ftsMatchSQL)
            for query in queries {
                let pattern = query.lowercased()
                sqlite3_bind_text(statement, 1, pattern, -1, transient)
                while sqlite3_step(statement) == SQLITE_ROW {
                    length &+= Int(sqlite3_column_bytes(statement, 0))
                    matches += 1
                }
                sqlite3_reset(statement)
            }
            sqlite3_finalize(statement)
        }
        blackHole(length)
        try verify(matches == WorkloadData.ftsExpectedMatches, "raw FTS match: \(matches) matches")
        return time
    }

    #if SQLCIPHER
    /// EXPORT: encrypts the plaintext database at `source` into `target` with sqlcipher_export.
    static func encrypt(source: String, target: String, passphrase: String) throws -> Double {
        let time = try measure {
            let db = try RawConnection(path: source, key: .none)
            let quotedTarget = target.replacingOccurrences(of: "'", with: "''")
            let quotedKey = passphrase.replacingOccurrences(of: "'", with: "''")
            try db.execute("ATTACH DATABASE '\(quotedTarget)' AS encrypted KEY '\(quotedKey)'")
            try db.execute("SELECT sqlcipher_export('encrypted')")
            try db.execute("DETACH DATABASE encrypted")
        }
        try verifyExport(path: target, key: .passphrase(passphrase))
        return time
    }

    /// EXPORT: changes the passphrase of the database at `path` with sqlite3_rekey.
    static func rekey(path: String, from oldPassphrase: String, to newPassphrase: String) throws -> Double {
        let time = try measure {
            let db = try RawConnection(path: path, key: .passphrase(oldPassphrase))
            _ = try db.integers("SELECT COUNT(*) FROM sqlite_master")
            let code = newPassphrase.withCString { sqlite3_rekey(db.handle, $0, Int32(strlen($0))) }
            guard code == SQLITE_OK else { throw db.error("sqlite3_rekey") }
        }
        try verifyExport(path: path, key: .passphrase(newPassphrase))
        return time
    }
    #endif

    /// EXPORT's source: a plaintext database of about 50 MB.
    static func createExportSource(path: String) throws {
        let db = try RawConnection(path: path, key: .none)
        try db.execute("BEGIN; \(WorkloadData.exportCreateSQL)")
        let statement = try db.prepare(WorkloadData.exportInsertSQL)
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for row in 0..<WorkloadData.exportRowCount {
            sqlite3_bind_int64(statement, 1, Int64(row % 7))
            sqlite3_bind_text(statement, 2, WorkloadData.exportBody(row), -1, transient)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw db.error("sqlite3_step") }
            sqlite3_reset(statement)
        }
        try db.execute("COMMIT")
    }

    /// Checks an exported or re-keyed file: it opens with `key` and holds the source's rows.
    static func verifyExport(path: String, key: RawKey) throws {
        let db = try RawConnection(path: path, key: key, readOnly: true)
        let row = try db.integers(WorkloadData.exportChecksumSQL)
        let expected = WorkloadData.exportExpected
        try verify(row == [expected.count, expected.kinds, expected.lengths], "export of \(path): \(row)")
    }

    /// The version line of the report.
    static var libraryDescription: String {
        let version = String(cString: sqlite3_libversion())
        #if SQLCIPHER
        let db = try? RawConnection(path: ":memory:", key: .none)
        var cipher = "?"
        if let db {
            var statement: OpaquePointer?
            if sqlite3_prepare_v2(db.handle, "PRAGMA cipher_version", -1, &statement, nil) == SQLITE_OK,
               sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) {
                cipher = String(cString: text)
            }
            sqlite3_finalize(statement)
        }
        return "SQLCipher \(cipher) (SQLite \(version))"
        #else
        return "SQLite \(version)"
        #endif
    }
}

/// OPEN and POOL: rows of their small databases.
let openRowCount = 100

/// Checks the `[count, sum]` of the inserted table.
func verifyInserted(_ row: [Int64], _ what: String) throws {
    let rows = WorkloadData.insertRowCount
    try verify(row == [Int64(rows), WorkloadData.expectedSum(rows: rows)], "\(what): count and sum \(row)")
}
