import Foundation
import GRDB

/// A note, as a GRDB record.
public struct Note: Codable, Identifiable, Sendable, FetchableRecord, MutablePersistableRecord {
    public var id: Int64?
    public var title: String
    public var pinned: Bool

    public init(id: Int64? = nil, title: String, pinned: Bool = false) {
        self.id = id
        self.title = title
        self.pinned = pinned
    }

    public enum Columns {
        public static let title = Column(CodingKeys.title)
        public static let pinned = Column(CodingKeys.pinned)
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// A store of notes written against GRDB's API, with module-qualified names as some libraries
/// of GRDB's ecosystem write them.
public final class NoteStore: Sendable {
    public let dbQueue: GRDB.DatabaseQueue

    /// Opens the store; with a passphrase, the database is encrypted (SQLCipher).
    public init(path: String, passphrase: String?) throws {
        var configuration = GRDB.Configuration()
        if let passphrase {
            configuration.prepareDatabase { db in
                try db.usePassphrase(passphrase)
            }
        }
        dbQueue = try GRDB.DatabaseQueue(path: path, configuration: configuration)
        try Self.migrator.migrate(dbQueue)
    }

    static var migrator: GRDB.DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createNote") { db in
            try db.create(table: "note") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text).notNull()
                t.column("pinned", .boolean).notNull().defaults(to: false)
            }
        }
        return migrator
    }

    @discardableResult
    public func add(_ title: String, pinned: Bool = false) throws -> Note {
        try dbQueue.write { db in
            var note = Note(title: title, pinned: pinned)
            try note.insert(db)
            return note
        }
    }

    public func pinnedTitles() throws -> [String] {
        try dbQueue.read { db in
            try Note.filter(Note.Columns.pinned == true).order(Note.Columns.title).fetchAll(db).map(\.title)
        }
    }

    public func count() async throws -> Int {
        try await dbQueue.read { db in try Note.fetchCount(db) }
    }

    /// A GRDB error, caught by its module-qualified type.
    public func insertDuplicateID() -> GRDB.ResultCode? {
        do {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO note(id, title) VALUES (1, 'a'), (1, 'b')")
            }
            return nil
        } catch let error as GRDB.DatabaseError {
            return error.resultCode
        } catch {
            return nil
        }
    }
}
