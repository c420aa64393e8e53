// The benchmarks of this executable: each workload, in each mode the library can run, by the
// raw C API and by the library. Databases are created on first use (not measured) in a
// temporary directory removed at exit.
#if SQLCIPHER
import GRDBCipher
#else
import GRDB
#endif
import BenchmarkSupport
import Foundation

#if SQLCIPHER
let rawName = "raw"
let modes = Mode.allCases
#else
let rawName = "raw-system"
let modes = [Mode.plaintext]
#endif

/// Values made once, on first use.
final class Once<Value> {
    private var value: Value?
    private let make: () throws -> Value
    init(_ make: @escaping () throws -> Value) { self.make = make }
    func get() throws -> Value {
        if let value { return value }
        let made = try make()
        value = made
        return made
    }
}

func rawKey(_ mode: Mode) -> RawKey {
    mode == .plaintext ? .none : .passphrase(WorkloadData.passphrase)
}

func register(_ suite: BenchmarkSuite, directory: String) {
    suite.libraryDescription = { RawC.libraryDescription }
    func path(_ name: String) -> String { directory + "/" + name }

    for mode in modes {
        // W1–W3b: one table of 200,000 rows, read by a raw connection and a database queue
        // that stay open between runs.
        let fetchPath = Once { () throws -> String in
            let fetchPath = path("fetch-\(mode).sqlite")
            try RawC.createItemTable(path: fetchPath, key: rawKey(mode), rows: WorkloadData.fetchRowCount)
            return fetchPath
        }
        let rawFetch = Once { try RawConnection(path: try fetchPath.get(), key: rawKey(mode)) }
        let fetchQueue = Once { try DatabaseQueue(path: try fetchPath.get(), configuration: configuration(mode)) }
        for workload in ["W1", "W2", "W3", "W3b"] {
            suite.add(workload, mode, rawName) { try RawC.fetch(try rawFetch.get()) }
        }
        suite.add("W1", mode, libraryName) { try Library.fetchRows(try fetchQueue.get(), byName: false) }
        suite.add("W2", mode, libraryName) { try Library.fetchRows(try fetchQueue.get(), byName: true) }
        suite.add("W3", mode, libraryName) { try Library.fetchRecords(try fetchQueue.get(), RowRecord.self) { $0.sum } }
        suite.add("W3b", mode, libraryName) { try Library.fetchRecords(try fetchQueue.get(), CodableRecord.self) { $0.sum } }
        // W3m: W3b's record made by `@DatabaseRecord` (GRDBCipher only: GRDBBenchmarks, which
        // compiles this file too, has no macro).
        #if canImport(GRDBCipherMacros)
        suite.add("W3m", mode, rawName) { try RawC.fetch(try rawFetch.get()) }
        suite.add("W3m", mode, libraryName) { try Library.fetchRecords(try fetchQueue.get(), MacroRecord.self) { $0.sum } }
        #endif

        // W4–W5b: each side inserts into a database of its own.
        let rawInsert = Once { () throws -> RawConnection in
            let insertPath = path("insert-raw-\(mode).sqlite")
            try RawC.createItemTable(path: insertPath, key: rawKey(mode), rows: 0)
            return try RawConnection(path: insertPath, key: rawKey(mode))
        }
        let insertQueue = Once { () throws -> DatabaseQueue in
            let dbQueue = try DatabaseQueue(path: path("insert-library-\(mode).sqlite"), configuration: configuration(mode))
            try dbQueue.write { db in try db.execute(sql: WorkloadData.createSQL) }
            return dbQueue
        }
        for workload in ["W4", "W5", "W5b"] {
            suite.add(workload, mode, rawName) { try RawC.insert(try rawInsert.get()) }
        }
        suite.add("W4", mode, libraryName) { try Library.insertWithStatement(try insertQueue.get()) }
        suite.add("W5", mode, libraryName) { try Library.insertManualRecords(try insertQueue.get()) }
        suite.add("W5b", mode, libraryName) { try Library.insertCodableRecords(try insertQueue.get()) }
        // W5m: W5b's record made by `@DatabaseRecord` (GRDBCipher only).
        #if canImport(GRDBCipherMacros)
        suite.add("W5m", mode, rawName) { try RawC.insert(try rawInsert.get()) }
        suite.add("W5m", mode, libraryName) { try Library.insertMacroRecords(try insertQueue.get()) }
        #endif

        // W6: W4 with a transaction observer; the baseline is the library's W4 without one, in
        // the same run (in the "raw" column).
        for (workload, table) in [("W6", "item"), ("W6-other", "other")] {
            suite.add(workload, mode, rawName) { try Library.insertWithStatement(try insertQueue.get()) }
            suite.add(workload, mode, libraryName) { try Library.insertObserved(try insertQueue.get(), observedTable: table) }
        }

        // W7: writes with 10 observations on a pool; the baseline is the same writes without
        // them. W8: commit-to-onChange latency on a queue; the baseline is the write alone.
        let observationPool = Once { try ObservationWorkloads.makePool(path: path("observe-\(mode).sqlite"), mode: mode) }
        suite.add("W7", mode, rawName) { try ObservationWorkloads.writes(try observationPool.get(), observed: false) }
        suite.add("W7", mode, libraryName) { try ObservationWorkloads.writes(try observationPool.get(), observed: true) }
        let latencyQueue = Once { try ObservationWorkloads.makeQueue(path: path("latency-\(mode).sqlite"), mode: mode) }
        for (workload, percentile) in [("W8-median", 0.5), ("W8-p99", 0.99)] {
            suite.add(workload, mode, rawName) { try ObservationWorkloads.latency(try latencyQueue.get(), percentile: percentile, observed: false) }
            suite.add(workload, mode, libraryName) { try ObservationWorkloads.latency(try latencyQueue.get(), percentile: percentile, observed: true) }
        }

        // W11: an FTS5 table filled with 100,000 short documents (insert), then queried 1,000
        // times (match). Each side has its own database; the insert drops and creates the
        // table before it measures.
        let rawFTS = Once { try RawConnection(path: path("fts-raw-\(mode).sqlite"), key: rawKey(mode)) }
        let ftsQueue = Once { try DatabaseQueue(path: path("fts-library-\(mode).sqlite"), configuration: configuration(mode)) }
        let rawFTSFilled = Once { () throws -> RawConnection in
            let db = try rawFTS.get()
            _ = try RawC.ftsInsert(db)
            return db
        }
        let ftsQueueFilled = Once { () throws -> DatabaseQueue in
            let dbQueue = try ftsQueue.get()
            _ = try Library.ftsInsert(dbQueue)
            return dbQueue
        }
        suite.add("W11-insert", mode, rawName) { try RawC.ftsInsert(try rawFTS.get()) }
        suite.add("W11-insert", mode, libraryName) { try Library.ftsInsert(try ftsQueue.get()) }
        suite.add("W11-match", mode, rawName) { try RawC.ftsMatch(try rawFTSFilled.get()) }
        suite.add("W11-match", mode, libraryName) { try Library.ftsMatch(try ftsQueueFilled.get()) }

        // W9 and W10: 2,000 authors and 20,000 books, read through associations; one database
        // that both sides read, like W1–W3b.
        let associationPath = Once { () throws -> String in
            let associationPath = path("associations-\(mode).sqlite")
            try RawC.createAuthorsAndBooks(path: associationPath, key: rawKey(mode))
            return associationPath
        }
        let rawAssociations = Once { try RawConnection(path: try associationPath.get(), key: rawKey(mode)) }
        let associationQueue = Once { try DatabaseQueue(path: try associationPath.get(), configuration: configuration(mode)) }
        suite.add("W9", mode, rawName) { try RawC.authorsWithBooks(try rawAssociations.get()) }
        suite.add("W9", mode, libraryName) { try Library.authorsWithBooks(try associationQueue.get()) }
        suite.add("W10", mode, rawName) { try RawC.booksWithAuthor(try rawAssociations.get()) }
        suite.add("W10", mode, libraryName) { try Library.booksWithAuthor(try associationQueue.get()) }
        // W10-row: the same reads, records decoded by hand (raw C is W10's).
        suite.add("W10-row", mode, rawName) { try RawC.booksWithAuthor(try rawAssociations.get()) }
        suite.add("W10-row", mode, libraryName) { try Library.booksWithAuthorByRow(try associationQueue.get()) }
        // W10m: the same reads, records made by `@DatabaseRecord` (GRDBCipher only).
        #if canImport(GRDBCipherMacros)
        suite.add("W10m", mode, rawName) { try RawC.booksWithAuthor(try rawAssociations.get()) }
        suite.add("W10m", mode, libraryName) { try Library.booksWithAuthorByMacro(try associationQueue.get()) }
        #endif

        // POOL: the Nth reader of a WAL database. The raw baseline opens a read-only
        // connection without key derivation: plaintext, or encrypted with a raw key (which is
        // what the pool's derived key makes of a passphrase).
        let poolPath = Once { () throws -> String in
            let poolPath = path("pool-\(mode).sqlite")
            let pool = try DatabasePool(path: poolPath, configuration: configuration(mode))
            try Library.createSmallDatabase(pool)
            try pool.close()
            return poolPath
        }
        let pool = Once { try DatabasePool(path: try poolPath.get(), configuration: configuration(mode)) }
        suite.add("POOL", mode, libraryName) { try Library.nthReader(try pool.get()) }
        let rawPoolPath = Once { () throws -> String in
            let rawPoolPath = path("pool-raw-\(mode).sqlite")
            let key: RawKey = mode == .plaintext ? .none : .rawKey(hex: WorkloadData.rawKeyHex)
            try RawC.createItemTable(path: rawPoolPath, key: key, rows: openRowCount)
            try RawConnection(path: rawPoolPath, key: key).execute("PRAGMA journal_mode = WAL")
            return rawPoolPath
        }
        suite.add("POOL", mode, rawName) {
            try RawC.open(path: try rawPoolPath.get(), key: mode == .plaintext ? .none : .rawKey(hex: WorkloadData.rawKeyHex), readOnly: true)
        }
    }

    // OPEN: open, key, first query, close; plaintext, then with a passphrase and a raw key.
    let openPlainPath = Once { () throws -> String in
        let openPath = path("open-plaintext.sqlite")
        try RawC.createItemTable(path: openPath, key: .none, rows: openRowCount)
        return openPath
    }
    suite.add("OPEN", .plaintext, rawName) { try RawC.open(path: try openPlainPath.get(), key: .none, readOnly: false) }
    suite.add("OPEN", .plaintext, libraryName) { try Library.open(path: try openPlainPath.get(), configuration: Configuration()) }
    #if SQLCIPHER
    for (workload, key) in [("OPEN-passphrase", RawKey.passphrase(WorkloadData.passphrase)), ("OPEN-rawkey", RawKey.rawKey(hex: WorkloadData.rawKeyHex))] {
        let openPath = Once { () throws -> String in
            let openPath = path("\(workload).sqlite")
            try RawC.createItemTable(path: openPath, key: key, rows: openRowCount)
            return openPath
        }
        var config = Configuration()
        switch key {
        case .passphrase(let passphrase):
            config.prepareDatabase { db in try db.usePassphrase(passphrase) }
        case .rawKey(let hex):
            let cipherKey = try! CipherKey.rawKey(hex: hex)
            config.prepareDatabase { db in try db.use(cipherKey) }
        case .none:
            break
        }
        suite.add(workload, .encrypted, rawName) { try RawC.open(path: try openPath.get(), key: key, readOnly: false) }
        suite.add(workload, .encrypted, libraryName) { [config] in try Library.open(path: try openPath.get(), configuration: config) }
    }
    // OPEN-keyring: a database keyed from a keyring unlocked once (with a key file slot of
    // 256,000 PBKDF2 rounds, not measured): each open uses the raw data key. Raw C opens with
    // a raw key too.
    let keyringOpen = Once { () throws -> (String, DatabaseKeyring) in
        let openPath = path("OPEN-keyring.sqlite")
        let keyFile = path("OPEN-keyring.key")
        try Data(WorkloadData.passphrase.utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        let keyring = try DatabaseKeyring.create(databaseAt: openPath, slots: [.source("primary", .keyFile(keyFile))])
        var config = Configuration()
        config.prepareDatabase { db in try db.useKeyring(keyring) }
        let dbQueue = try DatabaseQueue(path: openPath, configuration: config)
        try Library.createSmallDatabase(dbQueue)
        try dbQueue.close()
        return (openPath, try DatabaseKeyring.unlock(databaseAt: openPath, with: .keyFile(keyFile)))
    }
    let rawKeyOpenPath = Once { () throws -> String in
        let openPath = path("OPEN-keyring-raw.sqlite")
        try RawC.createItemTable(path: openPath, key: .rawKey(hex: WorkloadData.rawKeyHex), rows: openRowCount)
        return openPath
    }
    // POOL-keyring: the Nth reader of a WAL pool keyed from the unlocked keyring (raw C opens
    // a read-only connection with a raw key, as POOL's).
    let keyringPool = Once { () throws -> DatabasePool in
        let poolPath = path("POOL-keyring.sqlite")
        let keyFile = path("POOL-keyring.key")
        try Data(WorkloadData.passphrase.utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        let poolKeyring = try DatabaseKeyring.create(databaseAt: poolPath, slots: [.source("primary", .keyFile(keyFile))], kdfIterations: 1_000)
        var config = Configuration()
        config.prepareDatabase { db in try db.useKeyring(poolKeyring) }
        let pool = try DatabasePool(path: poolPath, configuration: config)
        try Library.createSmallDatabase(pool)
        return pool
    }
    let rawKeyPoolPath = Once { () throws -> String in
        let rawPoolPath = path("POOL-keyring-raw.sqlite")
        try RawC.createItemTable(path: rawPoolPath, key: .rawKey(hex: WorkloadData.rawKeyHex), rows: openRowCount)
        try RawConnection(path: rawPoolPath, key: .rawKey(hex: WorkloadData.rawKeyHex)).execute("PRAGMA journal_mode = WAL")
        return rawPoolPath
    }
    suite.add("POOL-keyring", .encrypted, libraryName) { try Library.nthReader(try keyringPool.get()) }
    suite.add("POOL-keyring", .encrypted, rawName) {
        try RawC.open(path: try rawKeyPoolPath.get(), key: .rawKey(hex: WorkloadData.rawKeyHex), readOnly: true)
    }
    suite.add("OPEN-keyring", .encrypted, rawName) { try RawC.open(path: try rawKeyOpenPath.get(), key: .rawKey(hex: WorkloadData.rawKeyHex), readOnly: false) }
    suite.add("OPEN-keyring", .encrypted, libraryName) {
        let (openPath, keyring) = try keyringOpen.get()
        var config = Configuration()
        config.prepareDatabase { db in try db.useKeyring(keyring) }
        return try Library.open(path: openPath, configuration: config)
    }

    // EXPORT: encrypt a ~50 MB plaintext database into a new file; re-key an encrypted one
    // (each side its own copy, with passphrases that alternate from run to run).
    let exportSource = Once { () throws -> String in
        let source = path("export-source.sqlite")
        try RawC.createExportSource(path: source)
        return source
    }
    for implementation in [rawName, libraryName] {
        let target = path("export-\(implementation).sqlite")
        suite.add("EXPORT-encrypt", .encrypted, implementation) {
            let source = try exportSource.get()
            try? FileManager.default.removeItem(atPath: target)
            return implementation == rawName
                ? try RawC.encrypt(source: source, target: target, passphrase: WorkloadData.passphrase)
                : try Library.encrypt(source: source, target: target)
        }
        let rekeyPath = path("rekey-\(implementation).sqlite")
        let passphrases = Once { () throws -> PassphrasePair in
            _ = try RawC.encrypt(source: try exportSource.get(), target: rekeyPath, passphrase: WorkloadData.passphrase)
            return PassphrasePair()
        }
        suite.add("EXPORT-rekey", .encrypted, implementation) {
            let pair = try passphrases.get()
            defer { pair.swap() }
            return implementation == rawName
                ? try RawC.rekey(path: rekeyPath, from: pair.current, to: pair.next)
                : try Library.rekey(path: rekeyPath, from: pair.current, to: pair.next)
        }
    }
    #endif
}

/// The passphrase a re-keyed file has now, and the one the next run gives it.
final class PassphrasePair {
    private(set) var current = WorkloadData.passphrase
    private(set) var next = WorkloadData.otherPassphrase
    func swap() { (current, next) = (next, current) }
}
