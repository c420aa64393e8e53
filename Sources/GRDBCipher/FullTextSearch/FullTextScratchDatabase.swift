/// A private in-memory database where strings are tokenized (``FTS3/tokenize(_:withTokenizer:)``,
/// the pattern builders of ``FTS5Pattern``) and patterns validated
/// (``FTS3Pattern/init(rawPattern:)``, ``FTS5Pattern/init(rawPattern:allowedColumns:)``).
/// It is never written to a file: nothing of what it sees leaves memory.
final class FullTextScratchDatabase: Sendable {
    static let shared = FullTextScratchDatabase()

    private let dbQueue: Result<DatabaseQueue, DatabaseError>
    /// The names of the `fts3tokenize` tables created so far, by tokenizer.
    private let tables = LockedValue<[String: String]>([:])
    /// The FTS5 tokenizers created so far, by descriptor components. They belong to the
    /// private connection, and are only used inside its `inDatabase`.
    private let fts5Tokenizers = LockedValue<[[String]: FTS5CachedTokenizer]>([:])

    private init() {
        do {
            dbQueue = .success(try DatabaseQueue())
        } catch let error as DatabaseError {
            dbQueue = .failure(error)
        } catch {
            dbQueue = .failure(DatabaseError(message: "\(error)"))
        }
    }

    func tokenize(_ string: String, tokenizer: FTS3TokenizerDescriptor) throws -> [String] {
        let dbQueue = try dbQueue.get()
        return try dbQueue.inDatabase { db in
            let table = try tokenizerTable(db, tokenizer)
            return try String.fetchAll(
                db,
                sql: "SELECT token FROM temp.\(table.quotedDatabaseIdentifier) WHERE input = ? ORDER BY position",
                arguments: [string])
        }
    }

    /// Throws the error of SQLite when the pattern is not a valid FTS3 query.
    func validate(fts3Pattern: String) throws {
        let dbQueue = try dbQueue.get()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE IF NOT EXISTS temp.\"grdb_fts3_pattern\" USING fts3(content)")
            _ = try Row.fetchAll(db, sql: "SELECT * FROM temp.\"grdb_fts3_pattern\" WHERE \"grdb_fts3_pattern\" MATCH ?", arguments: [fts3Pattern])
        }
    }

    /// The tokens of a query, as the FTS5 tokenizer makes them, without the colocated ones.
    func fts5QueryTokens(_ string: String, tokenizer descriptor: FTS5TokenizerDescriptor) throws -> [String] {
        let dbQueue = try dbQueue.get()
        return try dbQueue.inDatabase { db in
            let key = descriptor.components
            let tokenizer: any FTS5Tokenizer
            if let cached = fts5Tokenizers.read({ $0[key] }) {
                tokenizer = cached.tokenizer
            } else {
                tokenizer = try db.makeTokenizer(descriptor)
                fts5Tokenizers.update { $0[key] = FTS5CachedTokenizer(tokenizer: tokenizer) }
            }
            return try tokenizer.tokenize(query: string)
                .filter { !$0.flags.contains(.colocated) }
                .map(\.token)
        }
    }

    /// Throws the error of SQLite when the pattern is not a valid FTS5 query for a table with
    /// those columns.
    func validate(fts5Pattern: String, columns: [String]) throws {
        let dbQueue = try dbQueue.get()
        try dbQueue.inDatabase { db in
            let columns = columns.isEmpty ? ["grdb_content"] : columns
            try db.execute(sql: "DROP TABLE IF EXISTS temp.\"grdb_fts5_pattern\"")
            try db.execute(sql: "CREATE VIRTUAL TABLE temp.\"grdb_fts5_pattern\" USING fts5(\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")))")
            defer { try? db.execute(sql: "DROP TABLE IF EXISTS temp.\"grdb_fts5_pattern\"") }
            _ = try Row.fetchAll(db, sql: "SELECT * FROM temp.\"grdb_fts5_pattern\" WHERE \"grdb_fts5_pattern\" MATCH ?", arguments: [fts5Pattern])
        }
    }

    private func tokenizerTable(_ db: Database, _ tokenizer: FTS3TokenizerDescriptor) throws -> String {
        let key = tokenizer.tokenizeArguments
        if let table = tables.read({ $0[key] }) { return table }
        let table = "grdb_fts3_tokenizer_\(tables.read { $0.count })"
        try db.execute(sql: "CREATE VIRTUAL TABLE temp.\(table.quotedDatabaseIdentifier) USING fts3tokenize(\(key))")
        tables.update { $0[key] = table }
        return table
    }
}

extension FTS3TokenizerDescriptor {
    /// The arguments of an `fts3tokenize` table: the name, then each argument as a
    /// double-quoted string, separated with commas.
    var tokenizeArguments: String {
        ([name] + arguments.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" })
            .joined(separator: ", ")
    }
}

/// A tokenizer of the private database, kept for the next patterns.
private struct FTS5CachedTokenizer: @unchecked Sendable {
    // Unchecked: the tokenizer is only used inside `inDatabase` of the connection it
    // belongs to, one access at a time.
    let tokenizer: any FTS5Tokenizer
}
