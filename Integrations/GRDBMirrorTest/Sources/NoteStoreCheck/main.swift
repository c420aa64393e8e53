import Foundation
import GRDB
import NoteStore

// Runs the GRDB library on whatever the GRDB dependency resolved to, and checks what it does.
// Prints one line per check; exits with 1 on the first failure.
func check(_ condition: Bool, _ what: String) {
    print("\(condition ? "ok" : "FAILED"): \(what)")
    if !condition { exit(1) }
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("notestore-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let path = directory.appendingPathComponent("notes.sqlite").path

let store = try NoteStore(path: path, passphrase: "correct horse battery staple")
try store.add("Groceries", pinned: true)
try store.add("Archive")
try store.add("Books", pinned: true)
check(try store.pinnedTitles() == ["Books", "Groceries"], "records, query interface and migrations")
check(try await store.count() == 3, "async access")
check(store.insertDuplicateID() == .SQLITE_CONSTRAINT, "GRDB.DatabaseError and its result code")

// The file is encrypted: no SQLite header, and the wrong passphrase is refused.
let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).readData(ofLength: 16)
check(header != Data("SQLite format 3\0".utf8), "the database file is encrypted (SQLCipher)")
do {
    _ = try NoteStore(path: path, passphrase: "wrong")
    check(false, "a wrong passphrase is refused")
} catch let error as DatabaseError {
    check(error.resultCode == .SQLITE_NOTADB, "a wrong passphrase is refused (SQLITE_NOTADB)")
}
let version = try store.dbQueue.read { db in try String.fetchOne(db, sql: "PRAGMA cipher_version") }
check(version != nil, "SQLCipher \(version ?? "?") under the GRDB module")
print("NoteStoreCheck: the GRDB library runs on GRDBCipher")
