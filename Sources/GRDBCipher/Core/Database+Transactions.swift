import CSQLCipher

extension Database {
    /// A transaction kind.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_transaction.html>
    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    /// A transaction commit, or rollback.
    public enum TransactionCompletion: Sendable {
        case commit
        case rollback
    }

    /// Begins a transaction.
    ///
    /// ```swift
    /// try db.beginTransaction(.immediate) // BEGIN IMMEDIATE TRANSACTION
    /// ```
    public func beginTransaction(_ kind: TransactionKind? = nil) throws {
        let kind = kind ?? configuration.defaultTransactionKind
        try executeInternal("BEGIN \(kind.rawValue) TRANSACTION")
    }

    /// Commits the current transaction.
    public func commit() throws {
        try executeInternal("COMMIT TRANSACTION")
    }

    /// Rolls back the current transaction. Does nothing when no transaction is open (SQLite may
    /// have rolled it back already after an error).
    public func rollback() throws {
        guard isInsideTransaction else { return }
        try executeInternal("ROLLBACK TRANSACTION")
    }

    /// Runs `operations` inside a transaction, committed or rolled back as they return. A thrown
    /// error rolls the transaction back and is rethrown.
    ///
    /// ```swift
    /// try dbQueue.writeWithoutTransaction { db in
    ///     try db.inTransaction {
    ///         try db.execute(sql: "INSERT INTO credit ...")
    ///         try db.execute(sql: "INSERT INTO debit ...")
    ///         return .commit
    ///     }
    /// }
    /// ```
    public func inTransaction(_ kind: TransactionKind? = nil, _ operations: () throws -> TransactionCompletion) throws {
        try beginTransaction(kind)
        let completion: TransactionCompletion
        do {
            completion = try operations()
        } catch {
            try? rollback()
            throw error
        }
        switch completion {
        case .commit:
            do {
                try commit()
            } catch {
                try? rollback()
                throw error
            }
        case .rollback:
            try rollback()
        }
    }

    /// Runs `operations` inside a savepoint, released or rolled back as they return. Savepoints
    /// nest; outside of a transaction, this opens a transaction.
    ///
    /// ```swift
    /// try db.inSavepoint {
    ///     try db.execute(sql: "INSERT ...")
    ///     return .commit
    /// }
    /// ```
    public func inSavepoint(_ operations: () throws -> TransactionCompletion) throws {
        if !isInsideTransaction {
            try inTransaction(nil, operations)
            return
        }
        try executeInternal("SAVEPOINT grdb")
        let completion: TransactionCompletion
        do {
            completion = try operations()
        } catch {
            rollbackSavepoint()
            throw error
        }
        switch completion {
        case .commit:
            try executeInternal("RELEASE SAVEPOINT grdb")
        case .rollback:
            rollbackSavepoint()
        }
    }

    private func rollbackSavepoint() {
        // An error may have rolled back the whole transaction already.
        guard isInsideTransaction else { return }
        try? executeInternal("ROLLBACK TRANSACTION TO SAVEPOINT grdb")
        try? executeInternal("RELEASE SAVEPOINT grdb")
    }

    /// How the connection reacts when the database is locked.
    public enum BusyMode: Sendable {
        /// SQLITE_BUSY is thrown at once.
        case immediateError
        /// SQLite retries for up to the given duration, in seconds.
        case timeout(TimeInterval)
        /// The callback decides, given the number of tries so far, whether to retry.
        case callback(BusyCallback)
    }

    /// Returns whether SQLite should retry a locked database access.
    public typealias BusyCallback = @Sendable (_ numberOfTries: Int) -> Bool

    func setUpBusyMode() throws {
        switch configuration.busyMode {
        case .immediateError where isPoolConnection:
            // The connections of one pool never wait for each other's transactions, but SQLite
            // may hold a WAL lock for an instant (a reader checking the WAL index while the
            // writer commits): wait that long instead of failing with SQLITE_BUSY.
            sqlite3_busy_timeout(handle, 100)
        case .immediateError:
            break
        case .timeout(let seconds):
            let milliseconds = seconds * 1000
            sqlite3_busy_timeout(handle, CInt(clamping: Int(milliseconds.rounded(.up))))
        case .callback(let callback):
            let box = BusyCallbackBox(callback)
            busyCallbackBox = box
            sqlite3_busy_handler(handle, { context, tries in
                let box = Unmanaged<BusyCallbackBox>.fromOpaque(context!).takeUnretainedValue()
                return box.callback(Int(tries)) ? 1 : 0
            }, Unmanaged.passUnretained(box).toOpaque())
        }
    }
}

final class BusyCallbackBox {
    let callback: Database.BusyCallback
    init(_ callback: @escaping Database.BusyCallback) { self.callback = callback }
}

import Foundation
