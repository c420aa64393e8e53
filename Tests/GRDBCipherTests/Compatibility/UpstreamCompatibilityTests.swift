import Foundation
import Testing
@testable import GRDBCipher

/// Files written by genuine SQLCipher 1.1.8, 2.0, 3.0 and 4.0 builds
/// (../shared/upstream-fixtures, with the passphrase "testkey"): each is opened with its settings,
/// read, checked and inspected. Their upgrades are in UpgradeTests. When the folder is missing,
/// the cases are skipped with a message.
@Suite("Compatibility with files from genuine SQLCipher builds")
struct UpstreamCompatibilityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var file: String
        var writtenBy: String
        /// SQL run after the key, as the upstream README says.
        var settingsSQL: String
        var rowCount: Int
        var distinctRows: [String]
        var cipherIntegrity: [String]
        /// What inspecting with the key alone (the standard formats) finds.
        var inspect: String

        var testDescription: String { file }
    }

    static let cases: [Case] = [
        Case(file: "sqlcipher-4.0-testkey.db", writtenBy: "SQLCipher 4.0", settingsSQL: "",
             rowCount: 78536, distinctRows: ["1,1", "one,one", "1,2", "one,two"], cipherIntegrity: [],
             inspect: "SQLCipher 4"),
        Case(file: "sqlcipher-3.0-testkey.db", writtenBy: "SQLCipher 3.0", settingsSQL: "PRAGMA cipher_compatibility = 3",
             rowCount: 78536, distinctRows: ["1,1", "one,one", "1,2", "one,two"], cipherIntegrity: [],
             inspect: "SQLCipher 3"),
        Case(file: "sqlcipher-2.0-le-testkey.db", writtenBy: "SQLCipher 2.0 (little-endian)", settingsSQL: "PRAGMA cipher_compatibility = 2",
             rowCount: 78536, distinctRows: ["1,1", "one,one", "1,2", "one,two"], cipherIntegrity: [],
             inspect: "SQLCipher 2"),
        Case(file: "sqlcipher-2.0-be-testkey.db", writtenBy: "SQLCipher 2.0 (big-endian)",
             settingsSQL: "PRAGMA cipher_compatibility = 2; PRAGMA cipher_hmac_pgno = be",
             rowCount: 78536, distinctRows: ["1,1", "one,one", "1,2", "one,two"], cipherIntegrity: [],
             inspect: "key does not open it"),
        Case(file: "sqlcipher-1.1.8-testkey.db", writtenBy: "SQLCipher 1.1.8", settingsSQL: "PRAGMA cipher_compatibility = 1",
             rowCount: 75709, distinctRows: ["1,1", "one,one", "1,2", "one,two", "'1','2'"],
             cipherIntegrity: ["HMAC is not enabled, unable to integrity check"],
             inspect: "SQLCipher 1"),
    ]

    static let key = CipherKey.passphrase("testkey")

    static func configuration(settingsSQL: String) -> Configuration {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.use(key)
            if !settingsSQL.isEmpty {
                // Deprecated pragmas answer with a warning row: run them as queries.
                for statement in settingsSQL.components(separatedBy: ";") {
                    _ = try Row.fetchAll(db, sql: statement)
                }
            }
        }
        return config
    }

    static func distinctRows(_ db: Database) throws -> [String] {
        try Row.fetchAll(db, sql: "SELECT DISTINCT a, b FROM t1").map { row in
            [row[0], row[1]].map { (value: DatabaseValue) in
                switch value.storage {
                case .int64(let integer): "\(integer)"
                case .string(let text): Int(text) == nil ? text : "'\(text)'" // the TEXT '1', '2' row of 1.1.8
                default: value.description
                }
            }.joined(separator: ",")
        }
    }

    @Test(.enabled(if: UpstreamFixtures.available, "../shared/upstream-fixtures is not beside the checkout"),
          arguments: cases)
    func opensReadsChecksAndInspects(_ testCase: Case) throws {
        let directory = try TemporaryDirectory()
        let path = try UpstreamFixtures.copy(testCase.file, into: directory)
        let dbQueue = try DatabaseQueue(path: path, configuration: Self.configuration(settingsSQL: testCase.settingsSQL))
        try dbQueue.read { (db: Database) throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t1") == testCase.rowCount)
            #expect(try Self.distinctRows(db) == testCase.distinctRows)
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
            #expect(try String.fetchAll(db, sql: "PRAGMA cipher_integrity_check") == testCase.cipherIntegrity)
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "delete")
        }
        try dbQueue.close()

        let info = try SQLCipherFile.inspect(atPath: path, key: Self.key)
        let inspected = info.keyOpensFile == true ? info.sqlcipherFormat.map { "SQLCipher \($0)" } ?? "custom settings" : "key does not open it"
        #expect(inspected == testCase.inspect)
        if info.keyOpensFile == true {
            #expect(info.userVersion == 0)
            #expect(info.journalMode == "delete")
        }
        // Opened with SQLCipher 4 defaults, every older file fails with a message that names its
        // format when the standard formats find it.
        if testCase.inspect == "SQLCipher 4" {
            // Nothing to upgrade: the file is left as it is. (Older files: UpgradeTests.)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(try SQLCipherFile.upgrade(atPath: path, key: Self.key).method == .alreadyCurrent)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        } else {
            let error = expectDatabaseError(.SQLITE_NOTADB) {
                _ = try DatabaseQueue(path: path, configuration: Self.configuration(settingsSQL: ""))
            }
            if testCase.inspect.hasPrefix("SQLCipher ") {
                #expect(error?.message?.contains("the file is in the \(testCase.inspect) format") == true)
            } else {
                #expect(error?.message?.contains("wrong passphrase or cipher settings") == true)
            }
        }
    }

    /// The 2.0 beta file needs `cipher_hmac_salt_mask`, which is process-wide: it is read in a
    /// child process.
    @Test(.enabled(if: UpstreamFixtures.available, "../shared/upstream-fixtures is not beside the checkout"))
    func opensTheSQLCipher2BetaFileInAChildProcess() async throws {
        let directory = try TemporaryDirectory()
        let path = try UpstreamFixtures.copy("sqlcipher-2.0-beta-testkey.db", into: directory)
        await #expect(processExitsWith: .success) { [path = path as String] in
            var config = Configuration()
            config.prepareDatabase { db in
                try db.use(.passphrase("testkey"), settings: .sqlcipher2)
                _ = try Row.fetchAll(db, sql: "PRAGMA fast_kdf_iter = 4000")
                _ = try Row.fetchAll(db, sql: "PRAGMA cipher_hmac_salt_mask = \"x'00'\"")
            }
            let dbQueue = try DatabaseQueue(path: path, configuration: config)
            let (count, integrity, cipherIntegrity, distinct) = try dbQueue.read { db in
                (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t1"),
                 try String.fetchAll(db, sql: "PRAGMA integrity_check"),
                 try String.fetchAll(db, sql: "PRAGMA cipher_integrity_check"),
                 try Self.distinctRows(db))
            }
            guard count == 38768, integrity == ["ok"], cipherIntegrity.isEmpty,
                  distinct == ["test-0-0,test-0-1", "test-1-0,test-1-1"]
            else { exit(3) }
        }
    }

    /// The table in docs/Compatibility.md, from the cases above.
    static func matrix() -> String {
        var lines = [
            "| File | Written by | Opens with (after the key) | Rows read | `cipher_integrity_check` | Inspect with the key alone |",
            "|---|---|---|---|---|---|",
        ]
        for testCase in cases {
            let settings = testCase.settingsSQL.isEmpty ? "nothing (defaults)" : "`\(testCase.settingsSQL)`"
            let integrity = testCase.cipherIntegrity.isEmpty ? "clean" : testCase.cipherIntegrity.joined(separator: "; ")
            lines.append("| `\(testCase.file)` | \(testCase.writtenBy) | \(settings) | \(testCase.rowCount) | \(integrity) | \(testCase.inspect) |")
        }
        return lines.joined(separator: "\n")
    }

    @Test func docsShowTheProvenTable() throws {
        try expectCompatibilityDocsContain(Self.matrix())
    }
}
