import ArgumentParser
import Foundation
import GRDBCipher

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a database: integrity, encrypted pages, foreign keys.",
        discussion: """
            Runs PRAGMA integrity_check, PRAGMA cipher_integrity_check on encrypted files (after \
            folding the WAL into the file, which changes no content), and PRAGMA \
            foreign_key_check. Lists every problem found.

            Examples:
              grdbcipher verify app.db --passphrase-env APP_DB_KEY
              grdbcipher verify plain.db

            Exit status: 0 when every check passes, 4 when a check finds problems, 3 when the \
            file is not a database or the key does not open it.
            """)

    @Argument(help: "The database file.") var file: String
    @OptionGroup var keyOptions: KeyOptions
    @OptionGroup var cipherOptions: InputCipherOptions
    @OptionGroup var keyringOptions: KeyringUnlockOptions
    @Flag(help: "Print problems only.") var quiet = false

    func run() throws {
        let database = try InputDatabase.resolve(path: file, keyOptions: keyOptions, cipherOptions: cipherOptions, keyringOptions: keyringOptions)
        let dbQueue: DatabaseQueue
        do {
            dbQueue = try database.open(readonly: false)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
            print("open: 1 problem")
            print("  \(error.message ?? "damaged")")
            throw CLIFailure(.integrityProblems, "\(file): the file is damaged and cannot be opened")
        }
        defer { try? dbQueue.close() }
        var problemCount = 0
        func report(_ check: String, _ problems: [String]) {
            if problems.isEmpty {
                printResult("\(check): ok", quiet: quiet)
            } else {
                problemCount += problems.count
                print("\(check): \(problems.count) problem\(problems.count == 1 ? "" : "s")")
                for problem in problems { print("  \(problem)") }
            }
        }
        dbQueue.writeWithoutTransaction { db in
            if database.isEncrypted {
                report("cipher_integrity_check", Self.problems { try db.cipherIntegrityProblems() })
            }
            report("integrity_check", Self.problems { try db.integrityProblems() })
            report("foreign_key_check", Self.problems {
                try Array(db.foreignKeyViolations()).map { try $0.failureDescription(db) }
            })
        }
        if problemCount > 0 {
            throw CLIFailure(.integrityProblems, "\(file): \(problemCount) problem\(problemCount == 1 ? "" : "s") found")
        }
    }

    /// The problems a check returns; a check that cannot run is a problem too.
    static func problems(_ check: () throws -> [String]) -> [String] {
        do {
            return try check()
        } catch let error as DatabaseError {
            return [error.message ?? "SQLite error \(error.resultCode.rawValue)"]
        } catch {
            return ["\(error)"]
        }
    }
}
