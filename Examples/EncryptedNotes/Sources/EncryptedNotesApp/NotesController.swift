import Foundation
import GRDBCipher
import GRDBCipherService
import Hummingbird
import ServiceLifecycle

/// The HTTP API of the notes.
///
/// - `POST /users` `{"name": …}`: a user (201), 409 when the name is taken.
/// - `POST /users/:user/notes` `{"title": …, "body": …}`: a note (201), 404 without the user.
/// - `GET /users/:user/notes?limit=`: the user's latest notes.
/// - `GET /users/:user/notes/:id`: one note, 404 when the user has no such note.
/// - `GET /users/:user/notes/search?q=`: the notes that match the words of `q` (prefixes).
/// - `GET /users/:user/notes/stream`: server-sent events, an `event: notes` with the latest
///   notes now, then again each time they change.
struct NotesController<Repository: NoteRepository> {
    let repository: Repository

    static var maximumLimit: Int { 100 }
    static var maximumTextLength: Int { 64 * 1024 }

    func addRoutes(to router: Router<some RequestContext>) {
        router.post("/users", use: createUser)
        router.group("/users/:user/notes")
            .post(use: createNote)
            .get(use: listNotes)
            .get("search", use: search)
            .get("stream", use: stream)
            .get(":id", use: note)
    }

    struct NewUser: Decodable {
        var name: String
    }

    struct NewNote: Decodable {
        var title: String
        var body: String
    }

    @Sendable func createUser(_ request: Request, context: some RequestContext) async throws -> EditedResponse<User> {
        let input = try await request.decode(as: NewUser.self, context: context)
        let name = input.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 100 else {
            throw HTTPError(.badRequest, message: "a name has 1 to 100 characters")
        }
        do {
            return EditedResponse(status: .created, response: try await repository.createUser(name: name))
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw HTTPError(.conflict, message: "the name is taken")
        }
    }

    @Sendable func createNote(_ request: Request, context: some RequestContext) async throws -> EditedResponse<NoteInfo> {
        let userID = try context.parameters.require("user", as: Int64.self)
        let input = try await request.decode(as: NewNote.self, context: context)
        guard !input.title.isEmpty, input.title.utf8.count <= 1024, input.body.utf8.count <= Self.maximumTextLength else {
            throw HTTPError(.badRequest, message: "a note has a title of 1 to 1024 bytes and a body of at most \(Self.maximumTextLength)")
        }
        guard let note = try await repository.createNote(userID: userID, title: input.title, body: input.body) else {
            throw HTTPError(.notFound, message: "no such user")
        }
        return EditedResponse(status: .created, response: note)
    }

    @Sendable func listNotes(_ request: Request, context: some RequestContext) async throws -> NoteList {
        let userID = try context.parameters.require("user", as: Int64.self)
        return NoteList(notes: try await repository.notes(userID: userID, limit: limit(request)))
    }

    @Sendable func note(_ request: Request, context: some RequestContext) async throws -> NoteInfo {
        let userID = try context.parameters.require("user", as: Int64.self)
        let id = try context.parameters.require("id", as: Int64.self)
        guard let note = try await repository.note(userID: userID, id: id) else {
            throw HTTPError(.notFound, message: "no such note")
        }
        return note
    }

    @Sendable func search(_ request: Request, context: some RequestContext) async throws -> NoteList {
        let userID = try context.parameters.require("user", as: Int64.self)
        guard let query = request.uri.queryParameters.get("q"), !query.isEmpty else {
            throw HTTPError(.badRequest, message: "search needs a query: ?q=")
        }
        return NoteList(notes: try await repository.search(userID: userID, query: query, limit: limit(request)))
    }

    @Sendable func stream(_ request: Request, context: some RequestContext) async throws -> Response {
        let userID = try context.parameters.require("user", as: Int64.self)
        let updates = repository.observeNotes(userID: userID, limit: limit(request))
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: Self.eventStream(of: updates))
    }

    /// Server-sent events, one per value, until the client leaves or the service shuts down.
    // snippet: event-stream
    static func eventStream(of updates: some AsyncSequence<[NoteInfo], any Error> & Sendable) -> ResponseBody {
        ResponseBody { writer in
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            // Long-lived: it ends at a graceful shutdown, so that the server can stop.
            for try await notes in updates.cancelOnGracefulShutdown() {
                var event = ByteBuffer(string: "event: notes\ndata: ")
                event.writeBytes(try encoder.encode(NoteList(notes: notes)))
                event.writeString("\n\n")
                try await writer.write(event)
            }
            try await writer.finish(nil)
        }
    }
    // end snippet: event-stream

    private func limit(_ request: Request) -> Int {
        let asked = request.uri.queryParameters.get("limit", as: Int.self) ?? 20
        return max(1, min(asked, Self.maximumLimit))
    }
}
