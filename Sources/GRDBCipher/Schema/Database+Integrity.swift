import Foundation

/// A foreign key of a table, from `Database.foreignKeys(on:)`.
public struct ForeignKeyInfo: Sendable {
    /// The id of the foreign key in the table (`ForeignKeyViolation.foreignKeyId` refers to it).
    public var id: Int
    /// The referenced table.
    public var destinationTable: String
    /// The columns of the key, paired: origin column in the table, destination column in the
    /// referenced table.
    public var mapping: [(origin: String, destination: String)]
    /// The columns of the key in the table.
    public var originColumns: [String] { mapping.map(\.origin) }
    /// The referenced columns.
    public var destinationColumns: [String] { mapping.map(\.destination) }
}

/// A row that breaks a foreign key, from `Database.foreignKeyViolations()`.
///
/// ```swift
/// let violations = try db.foreignKeyViolations()
/// while let violation = try violations.next() {
///     print(violation) // FOREIGN KEY constraint violation - from player to team, in rowid 1
/// }
/// ```
public struct ForeignKeyViolation: FetchableRecord, CustomStringConvertible, Sendable {
    /// The table that holds the foreign key.
    public var originTable: String
    /// The rowid of the offending row, or nil in a `WITHOUT ROWID` table.
    public var originRowID: Int64?
    /// The referenced table.
    public var destinationTable: String
    /// The id of the foreign key (see ``ForeignKeyInfo/id``).
    public var foreignKeyId: Int

    public init(row: Row) throws {
        originTable = row[0]
        originRowID = row[1]
        destinationTable = row[2]
        foreignKeyId = row[3]
    }

    public var description: String {
        var text = "FOREIGN KEY constraint violation - from \(originTable) to \(destinationTable)"
        if let originRowID { text += ", in rowid \(originRowID)" }
        return text
    }

    /// A description with the columns of the key: "FOREIGN KEY constraint violation - from
    /// player(teamId) to team(id), in rowid 1".
    ///
    /// Column values stay out (GRDB shows the row): they may be sensitive, and error messages
    /// reach logs.
    public func failureDescription(_ db: Database) throws -> String {
        guard let key = try db.foreignKeys(on: originTable).first(where: { $0.id == foreignKeyId }) else {
            return description
        }
        var text = "FOREIGN KEY constraint violation - from \(originTable)(\(key.originColumns.joined(separator: ", "))) to \(destinationTable)(\(key.destinationColumns.joined(separator: ", ")))"
        if let originRowID { text += ", in rowid \(originRowID)" }
        return text
    }

    /// The violation as a `DatabaseError` with code `SQLITE_CONSTRAINT_FOREIGNKEY`.
    public func databaseError(_ db: Database) -> DatabaseError {
        let message = (try? failureDescription(db)) ?? description
        return DatabaseError(resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY, message: message)
    }
}

extension Database {
    /// The foreign keys of a table; throws if the table does not exist.
    ///
    /// Without a schema name, the table is looked up as SQLite resolves an unqualified name:
    /// in `temp`, then `main`, then the attached databases in order of attachment. An unknown
    /// schema name throws `SQLITE_ERROR`.
    ///
    /// ```swift
    /// for key in try db.foreignKeys(on: "player") {
    ///     print(key.destinationTable, key.mapping)
    /// }
    /// ```
    public func foreignKeys(on tableName: String, in schemaName: String? = nil) throws -> [ForeignKeyInfo] {
        let schema = try schemaOfTable(tableName, in: schemaName)
        var keys: [Int: ForeignKeyInfo] = [:]
        var order: [Int] = []
        let sql = "PRAGMA \(schema.quotedDatabaseIdentifier).foreign_key_list(\(tableName.quotedDatabaseIdentifier))"
        for row in try Row.fetchAll(self, sql: sql) {
            let id: Int = row["id"]
            let destinationTable: String = row["table"]
            let origin: String = row["from"]
            var destination: String? = row["to"]
            if destination == nil {
                // A reference to the primary key: SQLite leaves the column out. The referenced
                // table is in the same schema.
                let seq: Int = row["seq"]
                let primaryKey = try self.primaryKey(destinationTable, in: schema).columns
                destination = seq < primaryKey.count ? primaryKey[seq] : nil
            }
            if keys[id] == nil {
                keys[id] = ForeignKeyInfo(id: id, destinationTable: destinationTable, mapping: [])
                order.append(id)
            }
            keys[id]?.mapping.append((origin, destination ?? origin))
        }
        return order.compactMap { keys[$0] }
    }

    /// Returns a cursor over the rows that break a foreign key, in the whole database.
    public func foreignKeyViolations() throws -> RecordCursor<ForeignKeyViolation> {
        try ForeignKeyViolation.fetchCursor(self, sql: "PRAGMA foreign_key_check")
    }

    /// Returns a cursor over the rows of a table that break a foreign key.
    ///
    /// Without a schema name, the table is looked up as SQLite resolves an unqualified name.
    /// An unknown schema name throws `SQLITE_ERROR` "no such schema".
    ///
    /// ```swift
    /// let violations = try db.foreignKeyViolations(in: "player", in: "archive")
    /// ```
    public func foreignKeyViolations(in tableName: String, in schemaName: String? = nil) throws -> RecordCursor<ForeignKeyViolation> {
        let schema = try schemaName.map { "\(try canonicalSchemaName($0).quotedDatabaseIdentifier)." } ?? ""
        return try ForeignKeyViolation.fetchCursor(self, sql: "PRAGMA \(schema)foreign_key_check(\(tableName.quotedDatabaseIdentifier))")
    }

    /// Throws a `DatabaseError` (`SQLITE_CONSTRAINT_FOREIGNKEY`) for the first row that breaks a
    /// foreign key. Useful after changes made with foreign keys off (migrations).
    public func checkForeignKeys() throws {
        if let violation = try foreignKeyViolations().next() {
            throw violation.databaseError(self)
        }
    }

    /// Throws a `DatabaseError` for the first row of a table that breaks a foreign key.
    ///
    /// Without a schema name, the table is looked up as SQLite resolves an unqualified name:
    /// in `temp`, then `main`, then the attached databases. An unknown schema name throws
    /// `SQLITE_ERROR` "no such schema".
    ///
    /// ```swift
    /// try db.checkForeignKeys(in: "player")
    /// ```
    public func checkForeignKeys(in tableName: String, in schemaName: String? = nil) throws {
        if let violation = try foreignKeyViolations(in: tableName, in: schemaName).next() {
            throw violation.databaseError(self)
        }
    }

    /// The problems `PRAGMA integrity_check` finds (at most `maxErrors`), or an empty array
    /// when the database is sound. A GRDBCipher addition.
    ///
    /// ```swift
    /// let problems = try db.integrityProblems()
    /// ```
    public func integrityProblems(maxErrors: Int = 100) throws -> [String] {
        // On an encrypted database SQLCipher adds its page checks; without HMAC (SQLCipher 1
        // files) it notes that it cannot run them, which is not a problem.
        let results = try String.fetchAll(self, sql: "PRAGMA integrity_check(\(max(1, maxErrors)))")
            .filter { !$0.hasPrefix("HMAC is not enabled") }
        return results == ["ok"] || results.isEmpty ? [] : results
    }

    /// Throws `SQLITE_CORRUPT` listing the problems `PRAGMA integrity_check` finds. A GRDBCipher
    /// addition; on an encrypted database, see also `cipher_integrity_check`.
    public func checkIntegrity(maxErrors: Int = 100) throws {
        let problems = try integrityProblems(maxErrors: maxErrors)
        if !problems.isEmpty {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "integrity check failed: " + problems.joined(separator: "; "))
        }
    }

    /// Returns whether a table is an internal SQLite table (`sqlite_...`).
    public static func isSQLiteInternalTable(_ tableName: String) -> Bool {
        tableName.lowercased().hasPrefix("sqlite_")
    }

    /// Returns whether a table is an internal GRDB table (`grdb_...`, such as the migrations
    /// table).
    public static func isGRDBInternalTable(_ tableName: String) -> Bool {
        tableName.lowercased().hasPrefix("grdb_")
    }
}
