import CSQLCipher
@_spi(GRDBCipherTools) import GRDBCipher

/// Refuses SQL that could write anywhere, as SQLite itself sees it: every statement of the SQL
/// is compiled under an authorizer policy that allows reading only (applied by the
/// connection's own authorizer), and must be read-only for
/// `sqlite3_stmt_readonly`. A read-only connection already refuses to write its file; this
/// also refuses what escapes that flag: `VACUUM INTO` (a new file), `ATTACH`, and SQLCipher's
/// pragmas that act at compile time (`PRAGMA rekey = …`, `PRAGMA cipher_migrate`).
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/set_authorizer.html>
enum ReadOnlyGuard {
    /// Pragmas that read with an argument (a table, an index, a limit).
    private static let pragmasReadingWithArgument: Set<String> = [
        "table_info", "table_xinfo", "index_info", "index_xinfo", "index_list", "foreign_key_list",
        "foreign_key_check", "integrity_check", "quick_check", "table_list",
    ]
    /// Pragmas that write without an argument.
    private static let pragmasWritingWithoutArgument: Set<String> = [
        "cipher_migrate", "optimize", "wal_checkpoint", "incremental_vacuum", "key", "rekey", "hexkey", "hexrekey",
    ]
    /// Functions that write or load code.
    private static let writingFunctions: Set<String> = ["sqlcipher_export", "load_extension"]

    /// Throws a usage failure (status 2) when `sql` could write.
    static func check(_ sql: String, in db: Database) throws {
        guard let refusal = db.firstRefusal(in: sql, policy: ReadOnlyGuard.refusal) else { return }
        if refusal == "writes" {
            throw CLIFailure.usage("query runs read-only statements only: this one writes")
        }
        throw CLIFailure.usage("query runs read-only statements only: this one would \(refusal)")
    }

    /// Why an action is refused, or nil when it only reads.
    static func refusal(_ action: CInt, _ first: String?, _ second: String?) -> String? {
        switch action {
        case SQLITE_SELECT, SQLITE_READ, SQLITE_RECURSIVE:
            return nil
        case SQLITE_FUNCTION:
            guard let name = second?.lowercased(), writingFunctions.contains(name) else { return nil }
            return "call \(name)()"
        case SQLITE_PRAGMA:
            let name = (first ?? "").lowercased()
            if second == nil ? !pragmasWritingWithoutArgument.contains(name) : pragmasReadingWithArgument.contains(name) {
                return nil
            }
            return "run PRAGMA \(name)" + (second == nil ? "" : " with a value")
        case SQLITE_ATTACH: return "attach a database"
        case SQLITE_DETACH: return "detach a database"
        case SQLITE_INSERT: return "insert into \(first ?? "a table")"
        case SQLITE_UPDATE: return "update \(first ?? "a table")"
        case SQLITE_DELETE: return "delete from \(first ?? "a table")"
        case SQLITE_TRANSACTION, SQLITE_SAVEPOINT: return "control a transaction"
        default: return "change the database or its schema"
        }
    }
}
