import Foundation
import Testing
@testable import GRDBCipher

/// FTS5 shadow tables (`_data`, `_idx`, `_content`, `_docsize`) are ordinary tables: their
/// pages are encrypted like the others. These tests look for a distinctive word in the bytes
/// of the main file and of the WAL.
@Suite("Full-text search encryption")
struct FullTextEncryptionTests {
    private static let word = "Zanzibarquokka"

    private func fileContains(_ path: String, _ needle: String) throws -> Bool {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.range(of: Data(needle.utf8)) != nil
    }

    /// Writes the word into an FTS5 table (and an FTS4 one) of a database in WAL mode, and
    /// returns the paths of the main file and of the WAL, before any checkpoint.
    private func writeWord(encrypted: Bool, in directory: TemporaryDirectory, check: (String, String) throws -> Void) throws {
        let path = directory.path(encrypted ? "encrypted.sqlite" : "plain.sqlite")
        var config = Configuration()
        if encrypted {
            config.prepareDatabase { db in try db.usePassphrase(TestEnvironment.testKey) }
        }
        let pool = try DatabasePool(path: path, configuration: config)
        try pool.write { db in
            try db.create(virtualTable: "note", using: FTS5()) { t in
                t.column("body")
            }
            try db.create(virtualTable: "memo", using: FTS4()) { t in
                t.column("body")
            }
            for index in 0..<50 {
                try db.execute(sql: "INSERT INTO note (body) VALUES (?)", arguments: ["entry \(index) about \(Self.word) in the garden"])
                try db.execute(sql: "INSERT INTO memo (body) VALUES (?)", arguments: ["memo \(index) \(Self.word)"])
            }
            try db.execute(sql: "INSERT INTO note(note) VALUES('optimize')")
        }
        // The index works, and finds the word.
        let count = try pool.read { db in
            try Note.matching(FTS5Pattern(matchingAllTokensIn: Self.word)).fetchCount(db)
        }
        #expect(count == 50)
        let walPath = path + "-wal"
        #expect(FileManager.default.fileExists(atPath: walPath))
        #expect(((try FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int) ?? 0) > 0)
        try check(path, walPath)
        // After a checkpoint, the pages are in the main file.
        try pool.writeWithoutTransaction { db in
            _ = try db.checkpoint(.truncate)
        }
        try check(path, walPath)
    }

    private struct Note: TableRecord {
        static let databaseTableName = "note"
    }

    @Test func encryptedIndexHidesTheWord() throws {
        let directory = try TemporaryDirectory()
        try writeWord(encrypted: true, in: directory) { (path: String, walPath: String) throws in
            for needle in [Self.word, Self.word.lowercased()] {
                #expect(try !fileContains(path, needle), "\(needle) in the main file")
                if FileManager.default.fileExists(atPath: walPath) {
                    #expect(try !fileContains(walPath, needle), "\(needle) in the WAL")
                }
            }
        }
    }

    @Test func plaintextControlShowsTheWord() throws {
        // The same search finds the word in a plaintext database: the check above is a real one.
        let directory = try TemporaryDirectory()
        var checks = 0
        try writeWord(encrypted: false, in: directory) { (path: String, walPath: String) throws in
            checks += 1
            let inMain = try fileContains(path, Self.word.lowercased())
            let inWAL = FileManager.default.fileExists(atPath: walPath) ? try fileContains(walPath, Self.word.lowercased()) : false
            #expect(inMain || inWAL)
            if checks == 1 {
                #expect(inWAL, "before the checkpoint, the index pages are in the WAL")
            } else {
                #expect(inMain, "after the checkpoint, the index pages are in the main file")
            }
        }
    }
}
