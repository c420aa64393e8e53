import Foundation
import Testing
@testable import GRDBCipher

/// The cross-version compatibility suite: every file of Fixtures/fixtures.json is opened, read,
/// written, checked, inspected, upgraded, exported and re-keyed (each on its own copy), and the
/// outcome of each operation must be what the manifest says. docs/Compatibility.md shows the same
/// outcomes as a matrix, which a test keeps in step with the manifest.
@Suite("Compatibility with SQLCipher files")
struct CompatibilityTests {
    static let manifest = FixtureManifest.shared

    /// A passphrase that opens none of the fixtures.
    static let wrongPassphrase = CipherKey.passphrase("not the passphrase")

    static func open(_ path: String, key: CipherKey?, settings: CipherSettings) throws -> DatabaseQueue {
        var config = Configuration()
        if let key {
            config.prepareDatabase { db in try db.use(key, settings: settings) }
        }
        return try DatabaseQueue(path: path, configuration: config)
    }

    /// "yes" when every query of the manifest returns its rows; "error N" when reading fails.
    static func readOutcome(_ dbQueue: DatabaseQueue) -> String {
        outcome {
            try dbQueue.read { db in
                for query in manifest.content.queries {
                    let rows = try Row.fetchAll(db, sql: query.sql).map { row in
                        row.databaseValues.map(FixtureManifest.Value.init)
                    }
                    guard rows == query.rows else {
                        Issue.record("\(query.sql) returned \(rows), not \(query.rows)")
                        return "different content"
                    }
                }
                return "yes"
            }
        }
    }

    /// The outcome of an operation: its own answer, or "error N" for a database error.
    static func outcome(_ operation: () throws -> String) -> String {
        do {
            return try operation()
        } catch let error as DatabaseError {
            return "error \(error.resultCode.rawValue)"
        } catch {
            Issue.record(error)
            return "unexpected \(error)"
        }
    }

    @Test(arguments: manifest.fixtures)
    func fixture(_ fixture: FixtureManifest.Fixture) throws {
        let key = try fixture.key?.cipherKey()
        let settings = try fixture.settings.cipherSettings()
        let directory = try TemporaryDirectory()
        let path = try fixture.copy(into: directory)
        var actual = FixtureManifest.Expectations(
            open: "-", read: "-", write: "-", integrity: "-", inspect: "-", upgrade: "-", export: "-", rekey: "-")

        // Open, read, check.
        var dbQueue: DatabaseQueue?
        actual.open = Self.outcome {
            dbQueue = try Self.open(path, key: key, settings: settings)
            return "yes"
        }
        if let dbQueue {
            actual.read = Self.readOutcome(dbQueue)
            actual.integrity = Self.integrityOutcome(dbQueue, encrypted: key != nil)
            if let journalMode = fixture.journal_mode {
                #expect(try dbQueue.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == journalMode)
            }
            if actual.read == "yes" {
                actual.export = Self.exportOutcome(dbQueue, directory: directory)
            } else {
                actual.export = Self.outcome {
                    try dbQueue.exportDatabase(to: directory.path("export.sqlite"), options: .plaintext)
                    return "yes, from a damaged file"
                }
                #expect(!FileManager.default.fileExists(atPath: directory.path("export.sqlite")) || actual.export.hasPrefix("yes"))
            }
            try dbQueue.close()
        }

        actual.inspect = Self.outcome { () throws -> String in
            let info = try SQLCipherFile.inspect(atPath: path, key: key, settings: settings.isEmpty ? nil : settings)
            switch info.content {
            case .plaintext: return "plaintext"
            case .notADatabase: return "not a database"
            case .empty: return "empty"
            case .encrypted:
                if info.keyOpensFile != true { return "key does not open it" }
                if info.hasPlaintextHeader { return "plaintext header" }
                return info.sqlcipherFormat.map { "SQLCipher \($0)" } ?? "custom settings"
            }
        }

        if actual.open == "yes" {
            actual.write = try Self.writeOutcome(fixture, key: key, settings: settings)
            actual.upgrade = try Self.upgradeOutcome(fixture, key: key, settings: settings)
            actual.rekey = try Self.rekeyOutcome(fixture, key: key, settings: settings)
        } else {
            actual.upgrade = try Self.upgradeOutcome(fixture, key: key, settings: settings)
        }

        // The original copy is still as it was.
        let original = try Data(contentsOf: FixtureManifest.directory.appendingPathComponent(fixture.file))
        if fixture.extra_files == nil && actual.open != "yes" {
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        }

        for column in FixtureManifest.Expectations.columns {
            #expect(actual[keyPath: column.value] == fixture.expect[keyPath: column.value], "\(column.title)")
        }
        try checkDiagnosis(fixture, key: key, settings: settings, path: path)
    }

    /// "ok", or "damage reported" when `integrity_check` or `cipher_integrity_check` reports a
    /// problem or fails.
    static func integrityOutcome(_ dbQueue: DatabaseQueue, encrypted: Bool) -> String {
        func rows(_ sql: String) -> [String] {
            do {
                return try dbQueue.read { try String.fetchAll($0, sql: sql) }
            } catch {
                return ["\(error)"]
            }
        }
        let problems = rows("PRAGMA integrity_check").filter { $0 != "ok" }
        let cipherProblems = encrypted ? rows("PRAGMA cipher_integrity_check") : []
        if problems.isEmpty && cipherProblems.isEmpty { return "ok" }
        if problems.isEmpty && cipherProblems == ["HMAC is not enabled, unable to integrity check"] {
            return "ok (no HMAC to check)"
        }
        return "damage reported"
    }

    /// Writes a row (the trigger writes another), then reads it back from a new connection.
    static func writeOutcome(_ fixture: FixtureManifest.Fixture, key: CipherKey?, settings: CipherSettings) throws -> String {
        let directory = try TemporaryDirectory()
        let path = try fixture.copy(into: directory)
        return outcome {
            let dbQueue = try open(path, key: key, settings: settings)
            try dbQueue.write { try $0.execute(sql: "INSERT INTO item(id, name) VALUES (10, 'written')") }
            try dbQueue.close()
            let count = try open(path, key: key, settings: settings).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item JOIN event ON event.itemId = item.id WHERE item.id = 10")
            }
            return count == 1 ? "yes" : "not read back"
        }
    }

    /// Upgrades a copy, then opens it with the key and SQLCipher 4 defaults.
    static func upgradeOutcome(_ fixture: FixtureManifest.Fixture, key: CipherKey?, settings: CipherSettings) throws -> String {
        let directory = try TemporaryDirectory()
        let path = try fixture.copy(into: directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let key else {
            let result = outcome {
                try SQLCipherFile.upgrade(atPath: path, key: .passphrase("any"))
                return "yes"
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            return result == "error 21" ? "refused (plaintext)" : result
        }
        var prepare: (@Sendable (Database) throws -> Void)?
        if !settings.isEmpty {
            prepare = { db in try db.applyCipherSettings(settings) }
        }
        let result = outcome { () throws -> String in
            let report = try SQLCipherFile.upgrade(atPath: path, key: key, prepareLegacyConnection: prepare)
            switch report.method {
            case .alreadyCurrent: return "already current"
            case .cipherMigrate: return "cipher_migrate"
            case .export: return "export"
            }
        }
        switch result {
        case "cipher_migrate", "export":
            let read = readOutcome(try open(path, key: key, settings: CipherSettings()))
            return read == "yes" ? result : "\(result), then read: \(read)"
        case "already current":
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            return result
        default:
            // A failed upgrade leaves the file as it was.
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            return result
        }
    }

    /// Exports to plaintext, then back to an encrypted file, and reads both.
    static func exportOutcome(_ dbQueue: DatabaseQueue, directory: TemporaryDirectory) -> String {
        outcome {
            let plainPath = directory.path("export-plain.sqlite")
            try dbQueue.exportDatabase(to: plainPath, options: .plaintext)
            let plain = try DatabaseQueue(path: plainPath)
            guard readOutcome(plain) == "yes" else { return "plaintext copy differs" }
            let backKey = try CipherKey.rawKey(hex: String(repeating: "5A", count: 32))
            let backPath = directory.path("export-back.sqlite")
            try plain.exportDatabase(to: backPath, options: .encrypted(with: backKey))
            guard readOutcome(try open(backPath, key: backKey, settings: CipherSettings())) == "yes" else {
                return "encrypted copy differs"
            }
            return "yes"
        }
    }

    /// Changes the passphrase of a copy, then opens it with the new one and the same settings.
    static func rekeyOutcome(_ fixture: FixtureManifest.Fixture, key: CipherKey?, settings: CipherSettings) throws -> String {
        let directory = try TemporaryDirectory()
        let path = try fixture.copy(into: directory)
        let result = outcome {
            let dbQueue = try open(path, key: key, settings: settings)
            try dbQueue.changePassphrase("a new passphrase")
            try dbQueue.close()
            return "yes"
        }
        guard result == "yes" else {
            // A refused passphrase change leaves the file as it was.
            let original = try Data(contentsOf: FixtureManifest.directory.appendingPathComponent(fixture.file))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
            return result == "error 21" && key == nil ? "refused (plaintext)" : result
        }
        let read = readOutcome(try open(path, key: .passphrase("a new passphrase"), settings: settings))
        return read == "yes" ? "yes" : "yes, then read: \(read)"
    }

    /// Error 26 says which case it is: wrong passphrase, other format, plaintext, not a database.
    func checkDiagnosis(_ fixture: FixtureManifest.Fixture, key: CipherKey?, settings: CipherSettings, path: String) throws {
        func message(_ key: CipherKey?, _ settings: CipherSettings) -> String? {
            do {
                _ = try Self.open(path, key: key, settings: settings)
                Issue.record("\(fixture.file) opened")
                return nil
            } catch let error as DatabaseError {
                #expect([ResultCode.SQLITE_NOTADB, .SQLITE_ERROR, .SQLITE_CORRUPT].contains(error.resultCode))
                return error.message
            } catch {
                Issue.record(error)
                return nil
            }
        }
        let diagnosis = fixture.diagnosis
        if let expected = diagnosis.open_error {
            let text = message(key, settings)
            #expect(text?.contains(expected) == true, "open: \(text ?? "")")
        }
        let wrong = message(Self.wrongPassphrase, settings)
        #expect(wrong?.contains(diagnosis.wrong_passphrase) == true, "wrong passphrase: \(wrong ?? "")")
        #expect(wrong?.contains("not the passphrase") == false)
        if let other = diagnosis.other_settings, let expected = diagnosis.other_settings_message {
            let text = message(key, try other.cipherSettings())
            #expect(text?.contains(expected) == true, "other settings: \(text ?? "")")
        }
        if let expected = diagnosis.no_key {
            let text = message(nil, CipherSettings())
            #expect(text?.contains(expected) == true, "no key: \(text ?? "")")
        }
    }

    // MARK: - The matrix in docs/Compatibility.md

    /// The matrix rows, from the manifest's outcomes (which the fixture test proves).
    static func matrix() -> String {
        let columns = FixtureManifest.Expectations.columns
        var lines = [
            "| Fixture | " + columns.map(\.title).joined(separator: " | ") + " |",
            "|---|" + String(repeating: "---|", count: columns.count),
        ]
        for fixture in manifest.fixtures {
            let cells = columns.map { fixture.expect[keyPath: $0.value] }
            lines.append("| `\(fixture.file)`: \(fixture.description) | " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    @Test func docsShowTheProvenMatrix() throws {
        try expectCompatibilityDocsContain(Self.matrix())
    }
}
