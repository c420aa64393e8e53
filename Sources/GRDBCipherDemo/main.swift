// `make demo`: creates an encrypted database, writes and reads rows, and shows that the file is
// useless without the passphrase; then moves a plaintext service database to encryption at
// startup and migrates it.
import Foundation
import GRDBCipher

func step(_ text: String) {
    print("• \(text)")
}

let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("grdbcipher-demo-\(UUID().uuidString)", isDirectory: true)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let path = directory.appendingPathComponent("players.sqlite").path

// A real application loads its passphrase from a secret store, inside prepareDatabase, so
// that it is read when a connection opens and not kept around.
let passphrase = "correct horse battery staple"
var config = Configuration()
config.label = "Demo"
config.prepareDatabase { db in
    try db.usePassphrase(passphrase)
}

do {
    let dbQueue = try DatabaseQueue(path: path, configuration: config)
    step("Opened \(path)")
    try dbQueue.read { db in
        step("SQLCipher \(try db.cipherVersion) with \(try db.cipherProvider ?? "?") \(try db.cipherProviderVersion ?? "")")
    }

    try dbQueue.write { db in
        try db.execute(sql: """
            CREATE TABLE player (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                name TEXT NOT NULL,
                score INTEGER NOT NULL,
                joinedAt DATETIME NOT NULL)
            """)
        let statement = try db.makeStatement(sql: "INSERT INTO player (name, score, joinedAt) VALUES (?, ?, ?)")
        for (name, score) in [("Arthur", 100), ("Barbara", 1000), ("Craig", 450)] {
            try statement.execute(arguments: [name, score, Date()])
        }
        let bonus = 50
        try db.execute(literal: "UPDATE player SET score = score + \(bonus) WHERE name = \("Craig")")
    }
    step("Created table player and inserted 3 rows in one transaction")

    let rows = try dbQueue.read { db in
        try Row.fetchAll(db, sql: "SELECT name, score FROM player ORDER BY score DESC")
    }
    for row in rows {
        let name: String = row["name"]
        let score: Int = row["score"]
        step("  \(name): \(score)")
    }
    let best = try dbQueue.read { db in
        try String.fetchOne(db, sql: "SELECT name FROM player ORDER BY score DESC LIMIT 1")
    }
    step("Best player: \(best ?? "none")")
    try dbQueue.close()

    let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 16) ?? Data()
    let isPlaintext = header == Data("SQLite format 3\0".utf8)
    step("File header: \(header.map { String(format: "%02x", $0) }.joined()) — " + (isPlaintext ? "PLAINTEXT (unexpected!)" : "not the plaintext SQLite header"))
    let contents = try Data(contentsOf: URL(fileURLWithPath: path))
    step("The name \"Barbara\" appears in the file: \(contents.range(of: Data("Barbara".utf8)) != nil)")

    do {
        _ = try DatabaseQueue(path: path)
        step("Opened without passphrase (unexpected!)")
    } catch let error as DatabaseError {
        step("Without passphrase: error \(error.resultCode.rawValue): \(error.message ?? "")")
    }
    do {
        var wrong = Configuration()
        wrong.prepareDatabase { db in try db.usePassphrase("wrong passphrase") }
        _ = try DatabaseQueue(path: path, configuration: wrong)
        step("Opened with a wrong passphrase (unexpected!)")
    } catch let error as DatabaseError {
        step("With a wrong passphrase: error \(error.resultCode.rawValue): \(error.message ?? "")")
    }
    if isPlaintext { exit(1) }

    // A service that stored its data in plaintext until this release.
    let servicePath = directory.appendingPathComponent("service.sqlite").path
    var migrator = DatabaseMigrator()
    migrator.registerMigration("createNote") { db in
        try db.create(table: "note") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("body", .text).notNull()
        }
    }
    let plaintext = try DatabaseQueue(path: servicePath)
    try migrator.migrate(plaintext)
    try plaintext.write { db in try db.execute(sql: "INSERT INTO note (body) VALUES ('written before encryption')") }
    try plaintext.close()
    step("Service database, plaintext, migration \"createNote\" applied")

    // The release: encrypt at startup (nothing happens once done), then migrate as usual.
    let outcome = try SQLCipherFile.encryptInPlace(atPath: servicePath, key: .passphrase(passphrase))
    step("encryptInPlace: \(outcome.rawValue)")
    migrator.registerMigration("addPinned") { db in
        try db.alter(table: "note") { t in t.add(column: "pinned", .boolean).notNull().defaults(to: false) }
    }
    let service = try DatabaseQueue(path: servicePath, configuration: config)
    try migrator.migrate(service)
    try service.read { db in
        step("Migrations applied: \(try migrator.appliedMigrations(db).joined(separator: ", "))")
        let columns = try db.columns(in: "note").map(\.name)
        step("note(\(columns.joined(separator: ", "))): \(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note") ?? 0) row")
    }
    try service.close()
    let serviceHeader = try FileHandle(forReadingFrom: URL(fileURLWithPath: servicePath)).read(upToCount: 16) ?? Data()
    if serviceHeader == Data("SQLite format 3\0".utf8) { exit(1) }
    step("Second startup: encryptInPlace: \(try SQLCipherFile.encryptInPlace(atPath: servicePath, key: .passphrase(passphrase)).rawValue)")
    step("Done; the temporary folder is removed.")
} catch {
    print("Demo failed: \(error)")
    exit(1)
}
