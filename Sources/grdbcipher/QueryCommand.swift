import ArgumentParser
import Foundation
import GRDBCipher

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run a read-only SQL query and print its rows.",
        discussion: """
            The database is opened read-only, and statements that could write anything (VACUUM \
            INTO, ATTACH, PRAGMA rekey…) are refused with status 2. Rows are streamed as an \
            aligned table (the default), CSV (RFC 4180) or JSON (an array of objects). Blobs are \
            printed in hexadecimal (X'…' in tables).

            Examples:
              grdbcipher query app.db "SELECT name, score FROM player ORDER BY score DESC LIMIT 10"
              grdbcipher query app.db "SELECT * FROM player" --format csv --passphrase-env KEY > players.csv
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, csv, json
    }

    @Argument(help: "The database file.") var file: String
    @Argument(help: "The SQL query.") var sql: String
    @Option(help: "Output format: table, csv or json.") var format: Format = .table
    @OptionGroup var keyOptions: KeyOptions
    @OptionGroup var cipherOptions: InputCipherOptions
    @OptionGroup var keyringOptions: KeyringUnlockOptions

    func run() throws {
        let database = try InputDatabase.resolve(path: file, keyOptions: keyOptions, cipherOptions: cipherOptions, keyringOptions: keyringOptions)
        let dbQueue = try database.open(readonly: true)
        defer { try? dbQueue.close() }
        let output = BufferedOutput()
        defer { output.flush() }
        var printer: any RowPrinter = switch format {
        case .table: TablePrinter(output: output)
        case .csv: CSVPrinter(output: output)
        case .json: JSONPrinter(output: output)
        }
        try dbQueue.read { db in
            try ReadOnlyGuard.check(sql, in: db)
            let statement = try db.makeStatement(sql: sql)
            printer.begin(columns: statement.columnNames)
            // Rows are printed as they are stepped, never collected.
            let rows = try Row.fetchCursor(statement)
            while let row = try rows.next() {
                printer.print(row.databaseValues)
            }
            printer.end()
        }
    }
}
