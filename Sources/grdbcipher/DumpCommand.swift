import ArgumentParser
import Foundation
import GRDBCipher

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the content of a database: SQL text, or rows in another format.",
        discussion: """
            Without --format (or with --format sql), prints the SQL text of the database as \
            the .dump command of the sqlite3 shell does: the schema and the rows, loadable by \
            sqlite3 or sqlcipher into a new database. With TABLE arguments, only those tables \
            and views, with their indexes and triggers. Other formats print rows as GRDB's \
            dump methods do (json, line, list, quote, debug): the schema and every table, or \
            the given tables.

            A dump is plaintext: it goes to standard output, or to --output OUTPUT (mode 0600, \
            refused if it exists unless --force; written beside, then renamed into place once \
            complete). The file is checked first \
            (PRAGMA quick_check): a damaged file prints nothing and exits with status 4.

            Examples:
              grdbcipher dump app.db --passphrase-env KEY | sqlite3 plain-copy.db
              grdbcipher dump app.db player team --format json --passphrase-file key.txt
              grdbcipher dump app.db --output app.sql --passphrase-env KEY
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case sql, json, line, list, quote, debug
    }

    @Argument(help: "The database file.") var file: String
    @Argument(help: "Tables or views to dump (default: all).") var tables: [String] = []
    @Option(help: "Output format: sql, json, line, list, quote or debug.") var format: Format = .sql
    @Option(help: ArgumentHelp("Write the dump to this file instead of standard output.", valueName: "OUTPUT")) var output: String?
    @Flag(help: "Replace OUTPUT if it exists.") var force = false
    @OptionGroup var keyOptions: KeyOptions
    @OptionGroup var cipherOptions: InputCipherOptions
    @OptionGroup var keyringOptions: KeyringUnlockOptions

    func run() throws {
        // Paths first, so that no key is asked for a command that cannot run.
        try Paths.requireInput(file)
        if let output {
            try Paths.requireOutput(output, besides: file, force: force)
            Paths.removeStaleTemporaries(besides: output)
        }
        let database = try InputDatabase.resolve(path: file, keyOptions: keyOptions, cipherOptions: cipherOptions, keyringOptions: keyringOptions)
        let dbQueue = try database.open(readonly: true)
        defer { try? dbQueue.close() }
        try dbQueue.read { db in
            try Self.checkIntegrity(db, file: file)
            let destination = try Destination(output, force: force)
            do {
                try dump(db, to: destination.output)
                try destination.finish()
            } catch {
                destination.abandon()
                throw error
            }
        }
    }

    private func dump(_ db: Database, to output: BufferedOutput) throws {
        let stream = BufferedOutputStream(output)
        switch format {
        case .sql: try SQLDump.write(db, tables: tables, to: output)
        case .json: try dumpContent(db, format: .json(), to: stream)
        case .line: try dumpContent(db, format: .line(), to: stream)
        case .list: try dumpContent(db, format: .list(), to: stream)
        case .quote: try dumpContent(db, format: .quote(), to: stream)
        case .debug: try dumpContent(db, format: .debug(), to: stream)
        }
    }

    private func dumpContent(_ db: Database, format: some DumpFormat, to stream: BufferedOutputStream) throws {
        if tables.isEmpty {
            try db.dumpContent(format: format, to: stream)
        } else {
            try db.dumpTables(tables, format: format, stableOrder: true, to: stream)
        }
    }

    /// Fails with status 4 when `PRAGMA quick_check` finds a problem or cannot read a page
    /// (SQLCipher fails the check with an error when a page does not decrypt: its HMAC does
    /// not match).
    static func checkIntegrity(_ db: Database, file: String) throws {
        let problems: [String]
        do {
            problems = try String.fetchAll(db, sql: "PRAGMA quick_check").filter { $0 != "ok" }
        } catch let error as DatabaseError {
            problems = ["a page cannot be read (\(error.message ?? "SQLite error \(error.resultCode.rawValue)"))"]
        }
        if let first = problems.first {
            let more = problems.count > 1 ? " (and \(problems.count - 1) more problems)" : ""
            throw CLIFailure(.integrityProblems, "\(file) is damaged: \(first)\(more); nothing dumped (grdbcipher verify lists every problem)")
        }
    }

    /// Standard output, or the --output file. The file is written as a temporary file beside
    /// it (`.OUTPUT.grdbcipher-dump-PID-RANDOM`, created with O_EXCL and mode 0600, locked
    /// while it is written, as the other commands' temporary files), synced, then put in place:
    /// renamed over OUTPUT with --force, linked to OUTPUT otherwise (which fails if OUTPUT
    /// appeared meanwhile). A failed dump removes it: OUTPUT is either complete, or as it was.
    private struct Destination {
        let output: BufferedOutput
        let path: String?
        let force: Bool
        let temporaryPath: String?
        let fileDescriptor: Int32?

        init(_ path: String?, force: Bool) throws {
            self.force = force
            guard let path else {
                output = BufferedOutput()
                self.path = nil
                temporaryPath = nil
                fileDescriptor = nil
                return
            }
            let url = URL(fileURLWithPath: path).standardizedFileURL
            let prefix = url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".grdbcipher-dump-\(getpid())-"
            var created: (path: String, fd: Int32)?
            for _ in 0..<8 where created == nil {
                let candidate = prefix + String(UInt64.random(in: 0...UInt64.max), radix: 36)
                let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                if fd >= 0 {
                    created = (candidate, fd)
                } else if errno != EEXIST {
                    throw CLIFailure(.failure, "cannot write \(path): \(String(cString: strerror(errno)).lowercased())")
                }
            }
            guard let created else {
                throw CLIFailure(.failure, "cannot create a temporary file beside \(path)")
            }
            // Whatever the umask; and the lock tells other runs that the file is in use.
            fchmod(created.fd, 0o600)
            flock(created.fd, LOCK_EX | LOCK_NB)
            output = BufferedOutput(fileDescriptor: created.fd)
            self.path = path
            temporaryPath = created.path
            fileDescriptor = created.fd
        }

        /// Flushes; for a file, syncs it and puts it in place. Fails if a write failed.
        func finish() throws {
            output.flush()
            guard let path, let temporaryPath, let fileDescriptor else { return }
            if let error = output.writeError {
                abandon()
                throw CLIFailure(.failure, "cannot write \(path): \(String(cString: strerror(error)).lowercased())")
            }
            fsync(fileDescriptor)
            if force {
                guard rename(temporaryPath, path) == 0 else {
                    let reason = String(cString: strerror(errno)).lowercased()
                    abandon()
                    throw CLIFailure(.failure, "cannot write \(path): \(reason)")
                }
            } else {
                guard link(temporaryPath, path) == 0 else {
                    let exists = errno == EEXIST
                    let reason = String(cString: strerror(errno)).lowercased()
                    abandon()
                    throw CLIFailure(.failure, exists ? "the output file exists: \(path) (use --force to replace it)" : "cannot write \(path): \(reason)")
                }
                unlink(temporaryPath)
            }
            close(fileDescriptor)
        }

        /// Flushes what standard output holds; removes the temporary file.
        func abandon() {
            output.flush()
            if let temporaryPath, let fileDescriptor {
                unlink(temporaryPath)
                close(fileDescriptor)
            }
        }
    }
}
