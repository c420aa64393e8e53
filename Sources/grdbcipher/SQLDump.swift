import CSQLCipher
import Foundation
import GRDBCipher

/// The SQL text of a database, as the `.dump` command of the `sqlite3` shell writes it: the
/// schema and an `INSERT` per row, in one transaction, loadable by `sqlite3` or `sqlcipher`
/// into a new database.
///
/// Tables come first, each followed by its rows (`sqlite_sequence` last among them), then the
/// views, triggers and indexes, so that loading the rows fires no trigger. Values are written
/// by SQLite's `quote()`, which reads back exactly (text bytes as they are, reals to the last
/// bit, blobs in hexadecimal). `PRAGMA user_version` is kept when it is not 0. Virtual tables
/// are declared through `PRAGMA writable_schema`, as `sqlite3` does, and their shadow tables
/// hold their content.
enum SQLDump {
    /// Writes the dump of `tables` (every table when empty) to `output`. When reading fails
    /// midway, the text ends with `ROLLBACK; -- due to errors`, so that loading it adds nothing,
    /// and the error is thrown.
    static func write(_ db: Database, tables: [String], to output: BufferedOutput) throws {
        let selection = try Selection(db, tables: tables)
        output.write("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n")
        do {
            if tables.isEmpty, let userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version"), userVersion != 0 {
                output.write("PRAGMA user_version=\(userVersion);\n")
            }
            var writableSchema = false
            let tableRows = try Row.fetchAll(db, sql: """
                SELECT name, sql FROM sqlite_schema
                WHERE type = 'table' AND sql NOT NULL
                ORDER BY tbl_name = 'sqlite_sequence', rowid
                """)
            for row in tableRows {
                let name: String = row["name"]
                let sql: String = row["sql"]
                guard selection.includes(name) else { continue }
                if name == "sqlite_sequence" {
                    output.write("DELETE FROM sqlite_sequence;\n")
                } else if name.lowercased() == "sqlite_stat1" {
                    output.write("ANALYZE sqlite_schema;\n")
                } else if name.lowercased().hasPrefix("sqlite_") {
                    continue
                } else if sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE") {
                    if !writableSchema {
                        output.write("PRAGMA writable_schema=ON;\n")
                        writableSchema = true
                    }
                    output.write("INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table',"
                        + "\(quoted(name)),\(quoted(name)),0,\(quoted(sql)));\n")
                    continue
                } else if sql.hasPrefix("CREATE TABLE \"") || sql.hasPrefix("CREATE TABLE '") {
                    output.write("CREATE TABLE IF NOT EXISTS " + sql.dropFirst("CREATE TABLE ".count) + ";\n")
                } else {
                    output.write(sql + ";\n")
                }
                try writeRows(of: name, db, to: output)
            }
            let objects = try Row.fetchAll(db, sql: """
                SELECT tbl_name, sql FROM sqlite_schema
                WHERE sql NOT NULL AND type IN ('index', 'trigger', 'view')
                ORDER BY CASE type WHEN 'view' THEN 0 WHEN 'trigger' THEN 1 ELSE 2 END, rowid
                """)
            for row in objects where selection.includes(row["tbl_name"]) {
                output.write(row["sql"] + ";\n")
            }
            if writableSchema {
                output.write("PRAGMA writable_schema=OFF;\n")
            }
            output.write("COMMIT;\n")
        } catch {
            output.write("ROLLBACK; -- due to errors\n")
            throw error
        }
    }

    /// One `INSERT` per row. Generated columns are left out (the load computes them).
    private static func writeRows(of table: String, _ db: Database, to output: BufferedOutput) throws {
        let columns = try Row.fetchAll(db, sql: "SELECT name, hidden FROM pragma_table_xinfo(?)", arguments: [table])
        let stored = columns.filter { [0, 1].contains($0["hidden"] as Int) }.map { $0["name"] as String }
        guard !stored.isEmpty else { return }
        var prefix = "INSERT INTO \(identifier(table))"
        if stored.count < columns.count {
            prefix += "(" + stored.map(identifier).joined(separator: ",") + ")"
        }
        prefix += " VALUES("
        let values = stored.map { "quote(\($0.quotedDatabaseIdentifier))" }.joined(separator: "||','||")
        let statement = try db.makeStatement(sql: "SELECT \(values) FROM \(table.quotedDatabaseIdentifier)")
        let rows = try Row.fetchCursor(statement)
        while try rows.next() != nil {
            output.write(prefix)
            // The bytes SQLite wrote, as they are: text that is not valid UTF-8 stays so.
            let sqliteStatement = statement.sqliteStatement
            if let text = sqlite3_column_text(sqliteStatement, 0) {
                output.write(bytes: UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(sqliteStatement, 0))))
            }
            output.write(");\n")
        }
    }

    /// A name as the `sqlite3` shell writes it: bare when it can be, in double quotes otherwise.
    static func identifier(_ name: String) -> String {
        let bare = name.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
            && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        if bare && sqlite3_keyword_check(name, Int32(name.utf8.count)) == 0 {
            return name
        }
        return name.quotedDatabaseIdentifier
    }

    /// An SQL string literal.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The tables to dump: all, or the named ones (names compare as SQLite compares them,
    /// ignoring ASCII case).
    private struct Selection {
        var names: Set<String>?

        init(_ db: Database, tables: [String]) throws {
            guard !tables.isEmpty else { return }
            let known = try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view')")
            let knownNames = Set(known.map { $0.lowercased() })
            for table in tables where !knownNames.contains(table.lowercased()) {
                throw CLIFailure(.failure, "no such table: \(table)")
            }
            names = Set(tables.map { $0.lowercased() })
        }

        func includes(_ name: String) -> Bool {
            names?.contains(name.lowercased()) ?? true
        }
    }
}
