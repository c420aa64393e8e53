import GRDBCipher

extension DatabaseMigrator {
    /// The schema of the notes database. A migration, once shipped, never changes: a new
    /// version of the service registers a new one after it (docs/Service.md, "Upgrades").
    public static var notes: DatabaseMigrator {
        // snippet: migrations
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users and notes") { db in
            try db.create(table: "user") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
            }
            try db.create(table: "note") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("title", .text).notNull()
                t.column("body", .text).notNull()
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(index: "note_on_userId_createdAt", on: "note", columns: ["userId", "createdAt"])
        }
        migrator.registerMigration("v2: full-text search") { db in
            try db.create(virtualTable: "noteFullText", using: FTS5()) { t in
                t.synchronize(withTable: "note")
                t.tokenizer = .porter(wrapping: .unicode61())
                t.column("title")
                t.column("body")
            }
        }
        migrator.registerMigration("v3: fewer full-text segments") { db in
            // Each write makes SQLite drop the page cache of every reader connection, and a
            // search reads one b-tree per FTS5 segment: in an encrypted database each of those
            // pages is authenticated and decrypted again. Merging segments as soon as two are
            // at the same level (FTS5's default waits for four) keeps searches to a few pages
            // (docs/Performance.md, "A service under load").
            try db.execute(sql: "INSERT INTO noteFullText(noteFullText, rank) VALUES('automerge', 2)")
        }
        return migrator
        // end snippet: migrations
    }
}
