import Foundation
import GRDBCipher
import Hummingbird

/// A user of the service. Each user has notes.
public struct User: Codable, Sendable, Identifiable, FetchableRecord, MutablePersistableRecord, ResponseEncodable {
    public var id: Int64?
    public var name: String

    public static let databaseTableName = "user"
    static let notes = hasMany(Note.self)

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// A note, stored encrypted with the rest of the database, and indexed for full-text search
/// in the (equally encrypted) `noteFullText` table.
public struct Note: Codable, Sendable, Identifiable, FetchableRecord, MutablePersistableRecord {
    public var id: Int64?
    public var userId: Int64
    public var title: String
    public var body: String
    public var createdAt: Date

    public static let databaseTableName = "note"
    static let user = belongsTo(User.self)

    public enum Columns {
        static let userId = Column(CodingKeys.userId)
        static let createdAt = Column(CodingKeys.createdAt)
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// The full-text index of the notes: an external-content FTS5 table that SQLite keeps in sync
/// with `note` through triggers.
struct NoteFullText: TableRecord {
    static let databaseTableName = "noteFullText"
}

/// A note as the API returns it: with its author's name, fetched through the `user`
/// association.
public struct NoteInfo: Codable, Sendable, Equatable, FetchableRecord, ResponseEncodable {
    public var id: Int64
    public var userId: Int64
    public var title: String
    public var body: String
    public var createdAt: Date
    public var author: String
}

/// A list of notes as the API returns it.
public struct NoteList: Codable, Sendable, ResponseEncodable {
    public var notes: [NoteInfo]
}
