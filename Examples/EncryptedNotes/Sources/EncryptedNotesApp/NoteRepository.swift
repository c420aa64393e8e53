import Foundation
import GRDBCipher
import GRDBCipherService

/// Where the notes live. The routes know this protocol only; ``DatabaseNoteRepository``
/// keeps them in an encrypted database.
public protocol NoteRepository: Sendable {
    func createUser(name: String) async throws -> User
    /// Nil when there is no such user.
    func createNote(userID: Int64, title: String, body: String) async throws -> NoteInfo?
    func notes(userID: Int64, limit: Int) async throws -> [NoteInfo]
    /// Nil when the user has no such note.
    func note(userID: Int64, id: Int64) async throws -> NoteInfo?
    /// The user's notes whose title or body contain words starting with each word of `query`.
    func search(userID: Int64, query: String, limit: Int) async throws -> [NoteInfo]
    /// The user's latest notes, then again each time they change.
    func observeNotes(userID: Int64, limit: Int) -> any AsyncSequence<[NoteInfo], any Error> & Sendable
    /// An online copy of the database into `path`, verified.
    func backup(to path: String) async throws -> DatabaseBackupReport
}

/// The notes in the database of a ``DatabaseService``.
public struct DatabaseNoteRepository: NoteRepository {
    let database: DatabaseService
    private let noteCreation: GroupCommit<NewNote, NoteInfo?>

    struct NewNote: Sendable {
        var userID: Int64
        var title: String
        var body: String
    }

    public init(database: DatabaseService) {
        self.database = database
        noteCreation = GroupCommit(database: database) { db, new in
            guard try User.exists(db, id: new.userID) else { return nil }
            var note = Note(id: nil, userId: new.userID, title: new.title, body: new.body, createdAt: Date())
            try note.insert(db)
            return try Self.withAuthors(Note.filter(id: note.id!)).fetchOne(db)
        }
    }

    public func createUser(name: String) async throws -> User {
        try await database.write { db in
            var user = User(id: nil, name: name)
            try user.insert(db)
            return user
        }
    }

    public func createNote(userID: Int64, title: String, body: String) async throws -> NoteInfo? {
        try await noteCreation.write(NewNote(userID: userID, title: title, body: body))
    }

    public func notes(userID: Int64, limit: Int) async throws -> [NoteInfo] {
        try await database.read { db in
            try Self.latestNotes(userID: userID, limit: limit).fetchAll(db)
        }
    }

    public func note(userID: Int64, id: Int64) async throws -> NoteInfo? {
        try await database.read { db in
            try Self.withAuthors(Note.filter(id: id).filter(Note.Columns.userId == userID)).fetchOne(db)
        }
    }

    // snippet: search
    public func search(userID: Int64, query: String, limit: Int) async throws -> [NoteInfo] {
        // Nil when the query has no word: then nothing matches.
        guard let pattern = FTS5Pattern(matchingAllPrefixesIn: query) else { return [] }
        return try await database.read { db in
            let matches = NoteFullText.matching(pattern).select(Column.rowID)
            let request = Note
                .filter(Note.Columns.userId == userID)
                .filter(matches.contains(Column.rowID))
                .order(Note.Columns.createdAt.desc, Column.rowID.desc)
                .limit(limit)
            return try Self.withAuthors(request).fetchAll(db)
        }
    }
    // end snippet: search

    // snippet: observe
    public func observeNotes(userID: Int64, limit: Int) -> any AsyncSequence<[NoteInfo], any Error> & Sendable {
        ValueObservation
            .tracking { db in try Self.latestNotes(userID: userID, limit: limit).fetchAll(db) }
            .removeDuplicates()
            .values(in: database.writer)
    }
    // end snippet: observe

    public func backup(to path: String) async throws -> DatabaseBackupReport {
        try await database.backup(to: path)
    }

    static func latestNotes(userID: Int64, limit: Int) -> QueryInterfaceRequest<NoteInfo> {
        withAuthors(Note
            .filter(Note.Columns.userId == userID)
            .order(Note.Columns.createdAt.desc, Column.rowID.desc)
            .limit(limit))
    }

    /// The notes of `request` with their author's name, through the `user` association.
    static func withAuthors(_ request: QueryInterfaceRequest<Note>) -> QueryInterfaceRequest<NoteInfo> {
        request
            .annotated(withRequired: Note.user.select(Column("name").forKey("author")))
            .asRequest(of: NoteInfo.self)
    }
}
