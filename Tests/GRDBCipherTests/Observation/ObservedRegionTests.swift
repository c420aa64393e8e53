import Foundation
import Testing
@testable import GRDBCipher

// The region an observation records for a request with `including(all:)` covers the prefetched
// tables, even when the first fetch finds no parent row (OBS-1), as GRDB 7.10.

private struct Author: TableRecord {
    static let databaseTableName = "author"
    static let books = hasMany(Book.self)
}

private struct Book: TableRecord {
    static let databaseTableName = "book"
}

@Suite("Regions recorded by observations")
struct ObservedRegionTests {
    @Test func prefetchedTablesAreObservedFromAnEmptyStart() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("q.sqlite"), configuration: TestDatabase.configure(Configuration()))
        let pool = try DatabasePool(path: directory.path("p.sqlite"), configuration: TestDatabase.configure(Configuration()))
        for writer in [queue as any DatabaseWriter, pool] {
            try writer.write { db in
                try db.execute(sql: """
                    CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT);
                    """)
            }
            let request = Author.including(all: Author.books)
            let observation = ValueObservation.trackingConstantRegion { db in
                try Row.fetchAll(db, request).map { row in row.prefetchedRows["books"]?.count ?? 0 }
            }
            let recorder = Recorder<[Int]>()
            let regions = LockedValue<[String]>([])
            let cancellable = observation
                .handleEvents(willTrackRegion: { region in regions.update { $0.append(region.description) } })
                .start(in: writer, scheduling: .async(onQueue: DispatchQueue(label: "ObservedRegionTests")),
                       onError: recorder.onError, onChange: recorder.onChange)
            #expect(recorder.wait { $0.count == 1 } == [[]])
            #expect(regions.read().first?.contains("book") == true, "\(regions.read())")
            try writer.write { try $0.execute(sql: "INSERT INTO author VALUES (1, 'Ann')") }
            #expect(recorder.wait { $0.count == 2 }.last == [0])
            // The books were not fetched at the start: their table is observed anyway.
            try writer.write { try $0.execute(sql: "INSERT INTO book VALUES (1, 1, 'Dune')") }
            #expect(recorder.wait { $0.count == 3 }.last == [1])
            cancellable.cancel()
        }
    }
}

@Suite("Changes SQLite reports on unannounced tables")
struct UnannouncedChangesTests {
    @Test func observationOfASynchronizedFTS4Table() throws {
        // TXO-4: the triggers write the FTS4 table and its shadow tables, which the statement
        // did not announce: the observer of the full-text table hears of them, as in GRDB.
        let test = try TestDatabase()
        try test.dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
            try db.create(virtualTable: "ft_notes", using: FTS4()) { t in
                t.synchronize(withTable: "notes")
                t.column("body")
            }
        }
        let observation = ValueObservation.trackingConstantRegion { db in
            try Row.fetchAll(db, sql: "SELECT body FROM ft_notes").count
        }
        let recorder = Recorder<Int>()
        let cancellable = observation.start(
            in: test.dbQueue, scheduling: .async(onQueue: DispatchQueue(label: "UnannouncedChangesTests")),
            onError: recorder.onError, onChange: recorder.onChange)
        #expect(recorder.wait { $0.count == 1 } == [0])
        try test.dbQueue.write { try $0.execute(sql: "INSERT INTO notes(body) VALUES ('encrypted')") }
        #expect(recorder.wait { $0.count == 2 } == [0, 1])
        cancellable.cancel()
    }
}
