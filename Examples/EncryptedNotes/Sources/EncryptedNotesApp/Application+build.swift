import Foundation
import GRDBCipher
import GRDBCipherService
import Hummingbird
import Logging

/// How the service runs: from the command line and the environment, never a key.
public struct NotesSettings: Sendable {
    public var hostname = "127.0.0.1"
    /// 0: any free port; the port is written to ``portFile``.
    public var port = 8080
    public var databasePath: String
    /// How the database is keyed: its keyring, unlocked with a key file or a systemd
    /// credential. `.configuration` leaves it plaintext: for the load comparison only.
    public var key: DatabaseServiceKey
    /// Where `POST /backups` writes.
    public var backupDirectory: String
    /// A file that receives the port once the server listens.
    public var portFile: String?
    public var logLevel: Logger.Level = .info
    /// The number of reader connections of the pool; nil: the library's default.
    public var maximumReaderCount: Int?

    public init(databasePath: String, key: DatabaseServiceKey, backupDirectory: String) {
        self.databasePath = databasePath
        self.key = key
        self.backupDirectory = backupDirectory
    }
}

/// The notes service: a Hummingbird application whose service group also runs the
/// ``DatabaseService``. A graceful shutdown (SIGTERM, SIGINT) stops the server first (the
/// requests in progress end, the event streams close), then the database (checkpointed,
/// closed, its keys forgotten).
public func buildApplication(_ settings: NotesSettings) throws -> some ApplicationProtocol {
    let logger = {
        var logger = Logger(label: "EncryptedNotes")
        logger.logLevel = settings.logLevel
        return logger
    }()
    // snippet: wiring
    try DatabaseService.bootstrapLogging(logger, sqlcipherLogLevel: .warn)

    let database = try DatabaseService(
        path: settings.databasePath,
        key: settings.key,
        migrator: .notes,
        logger: logger,
        configure: { configuration in
            if let readers = settings.maximumReaderCount { configuration.maximumReaderCount = readers }
        })
    let repository = DatabaseNoteRepository(database: database)

    let router = Router()
    router.middlewares.add(LogRequestsMiddleware(.debug))
    router.get("/health") { _, _ -> Response in
        let health = await database.health()
        return Response(
            status: health.status == .healthy ? .ok : .serviceUnavailable,
            body: ResponseBody(byteBuffer: ByteBuffer(string: health.description + "\n")))
    }
    router.post("/backups") { _, _ -> EditedResponse<DatabaseBackupReport> in
        let name = "notes-\(backupStamp()).db"
        let path = URL(fileURLWithPath: settings.backupDirectory).appendingPathComponent(name).path
        return EditedResponse(status: .created, response: try await repository.backup(to: path))
    }
    NotesController(repository: repository).addRoutes(to: router)

    var app = Application(
        router: router,
        configuration: .init(address: .hostname(settings.hostname, port: settings.port), serverName: "EncryptedNotes"),
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? 0
            logger.info("listening", metadata: ["host": "\(settings.hostname)", "port": "\(port)"])
            if let portFile = settings.portFile {
                try? "\(port)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
            }
        },
        logger: logger)
    // Services start in order and stop in reverse: the server, added by Hummingbird after
    // these, stops before the database.
    app.addServices(database)
    // end snippet: wiring
    return app
}

extension DatabaseBackupReport: @retroactive ResponseEncodable {}

/// A name part for a backup: the UTC time to the millisecond.
private func backupStamp() -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
    return formatter.string(from: Date())
}
