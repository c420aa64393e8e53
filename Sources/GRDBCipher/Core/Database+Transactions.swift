import CSQLCipher

extension Database {
    /// A transaction kind.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_transaction.html>
    public enum TransactionKind: String, Sendable {
        /// `BEGIN DEFERRED`: locks are taken by the first read or write.
        case deferred = "DEFERRED"
        /// `BEGIN IMMEDIATE`: the write lock is taken at once.
        case immediate = "IMMEDIATE"
        /// `BEGIN EXCLUSIVE`: the write lock is taken at once; readers wait too, except in WAL mode.
        case exclusive = "EXCLUSIVE"
    }

    /// A transaction commit, or rollback.
    public enum TransactionCompletion: Sendable {
        /// Commits the transaction or releases the savepoint.
        case commit
        /// Rolls back the transaction or the savepoint.
        case rollback
    }

    /// Begins a transaction.
    ///
    /// Without a kind, the transaction is DEFERRED when the connection is read-only at this
    /// moment (inside a read access or ``readOnly(_:)``), and IMMEDIATE otherwise.
    ///
    /// ```swift
    /// try db.beginTransaction(.immediate) // BEGIN IMMEDIATE TRANSACTION
    /// ```
    public func beginTransaction(_ kind: TransactionKind? = nil) throws {
        let kind = kind ?? (isReadOnly ? .deferred : .immediate)
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
        try executeRollback("ROLLBACK TRANSACTION")
    }

    /// Runs a rollback: never refused nor interrupted by Task cancellation. A rollback of the
    /// transaction is tried once more, silently, when an interrupt (``DatabaseReader/interrupt()``,
    /// FTS5's lingering one) or an abort stops it, after the statements that keep an interrupt
    /// alive are reset. (A rollback to a savepoint is not: resetting would restart the
    /// cursors of the transaction that goes on.)
    private func executeRollback(_ sql: String, retries: Bool = true) throws {
        let run = {
            do {
                try self.executeInternal(sql)
            } catch let error as DatabaseError
                where retries && (error.resultCode == .SQLITE_INTERRUPT || error.resultCode == .SQLITE_ABORT)
            {
                self.resetAllStatements()
                try self.executeInternal(sql)
            }
        }
        try exemptFromCancellation(run)
    }

    /// Runs `body` safe from the cancellation of the async access: the statements that undo
    /// or clean up (rollbacks, the end of a read-only section) must run.
    func exemptFromCancellation<T>(_ body: () throws -> T) rethrows -> T {
        if let accessCancellation {
            return try accessCancellation.exempting(body)
        }
        return try body()
    }

    /// Whether a statement runs even after the Task of the access was cancelled: a rollback,
    /// and the commit of a read-only access (GRDB's rules: a `read` whose task is cancelled
    /// after its last statement returns its value; a `write` throws `CancellationError`).
    func isExemptFromCancellation(_ statement: Statement) -> Bool {
        if accessCancellation?.isExempting == true { return true }
        guard statement.hasTransactionEffect else { return false }
        switch statement.analysis.transactionEffect {
        case .rollbackTransaction, .rollbackSavepoint: return true
        case .commitTransaction: return isReadOnly
        default: return false
        }
    }

    /// Runs `operations` inside a transaction, committed or rolled back as they return. A thrown
    /// error rolls the transaction back and is rethrown.
    ///
    /// When SQLite ends the transaction before `operations` return (an interrupt, a constraint
    /// declared `ON CONFLICT ROLLBACK`, a `ROLLBACK` statement), the statements that follow, and
    /// the commit, throw `SQLITE_ABORT`: nothing of the transaction runs in autocommit mode.
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
        try withOwnedTransaction(kind) { ((), try operations() == .commit) }
    }

    /// Runs `body` in a transaction the library owns, committed when `body` says so, rolled
    /// back otherwise or when it throws. The transaction always ends, even when its commit or
    /// rollback fails; statements that run after SQLite aborted it throw SQLITE_ABORT.
    func withOwnedTransaction<T>(_ kind: TransactionKind?, _ body: () throws -> (value: T, commit: Bool)) throws -> T {
        try beginTransaction(kind)
        transactionScope = .owned(aborted: false)
        defer { transactionScope = .none }
        do {
            let (value, commit) = try body()
            if commit {
                try self.commit()
            } else if isInsideTransaction {
                try rollbackOnPurpose()
            }
            return value
        } catch {
            endTransactionForcibly()
            throw error
        }
    }

    /// Rolls back, without counting the rollback as an abort.
    private func rollbackOnPurpose() throws {
        let scope = transactionScope
        transactionScope = .rollingBack
        defer { transactionScope = scope }
        try executeRollback("ROLLBACK TRANSACTION")
    }

    /// Makes sure no transaction is left open: a rollback interrupted (by
    /// ``DatabaseReader/interrupt()``, or a virtual table that fails while SQLite rolls back) is
    /// tried again once the statements that kept the interrupt alive have been reset.
    func endTransactionForcibly() {
        var attempts = 0
        while isInsideTransaction && attempts < 3 {
            attempts += 1
            if (try? rollbackOnPurpose()) != nil { return }
            resetAllStatements()
        }
    }

    /// Resets every statement of the connection that is still running: SQLite keeps an
    /// interrupt in effect as long as one runs.
    private func resetAllStatements() {
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(handle, current)
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
        try? executeRollback("ROLLBACK TRANSACTION TO SAVEPOINT grdb", retries: false)
        exemptFromCancellation { try? executeInternal("RELEASE SAVEPOINT grdb") }
    }

    /// The transaction the library opened, if any, and whether SQLite ended it early.
    enum TransactionScope {
        /// No transaction opened by the library (there may be one opened by SQL).
        case none
        /// A transaction opened by the library; `aborted` once SQLite rolled it back before
        /// the library ended it.
        case owned(aborted: Bool)
        /// The library is rolling back its own transaction.
        case rollingBack
    }

    /// Called by the rollback hook.
    func noticeRollback() {
        if case .owned = transactionScope {
            transactionScope = .owned(aborted: true)
        }
    }

    /// Throws SQLITE_ABORT when the transaction the library opened was aborted by SQLite.
    @inline(__always)
    func checkTransactionNotAborted(_ statement: Statement) throws {
        if case .owned(aborted: true) = transactionScope {
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted", sql: statement.sql)
        }
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
            // Not sqlite3_busy_timeout: SQLite's own handler backs off to sleeps of 100 ms,
            // and under steady contention from other processes a waiting connection can miss
            // every moment the lock is free until its timeout expires (three writer processes
            // in the soak of docs/Reliability.md: one starved past 10 s). This one retries
            // every 0.1 to 1.6 ms, with jitter, for the same total duration.
            installBusyHandler(BusyCallbackBox(timeout: seconds))
        case .callback(let callback):
            installBusyHandler(BusyCallbackBox(callback))
        }
    }

    private func installBusyHandler(_ box: BusyCallbackBox) {
        // Unsafe: the box is passed unretained: `busyCallbackBox` keeps it as long as the
        // connection, which removes the handler before its handle may outlive it.
        busyCallbackBox = box
        sqlite3_busy_handler(handle, { context, tries in
            // Unsafe: SQLite calls the handler only while it is installed, box alive.
            let box = Unmanaged<BusyCallbackBox>.fromOpaque(context!).takeUnretainedValue()
            return box.shouldRetry(tries: Int(tries)) ? 1 : 0
        }, Unmanaged.passUnretained(box).toOpaque())
    }
}

/// The busy handler of a connection: the user's callback, or a timeout.
final class BusyCallbackBox {
    private let callback: Database.BusyCallback?
    private let timeoutNanoseconds: UInt64
    /// When the current wait began, and the handler's last call. Only the thread that uses
    /// the connection runs its busy handler.
    private var waitStart: UInt64 = 0
    private var lastCall: UInt64 = 0

    init(_ callback: @escaping Database.BusyCallback) {
        self.callback = callback
        self.timeoutNanoseconds = 0
    }

    init(timeout seconds: TimeInterval) {
        self.callback = nil
        self.timeoutNanoseconds = seconds > 0 ? UInt64(min(seconds, 1e9) * 1e9) : 0
    }

    func shouldRetry(tries: Int) -> Bool {
        if let callback { return callback(tries) }
        let now = DispatchTime.now().uptimeNanoseconds
        // A new wait: SQLite's count starts at 0, but not on every path (it is reset when a
        // statement starts, not when a prepare loads the schema): a pause longer than any
        // retry's sleep also starts one.
        if tries == 0 || now &- lastCall > 100_000_000 { waitStart = now }
        lastCall = now
        let elapsed = now - waitStart
        guard elapsed < timeoutNanoseconds else { return false }
        // 100 µs, doubling up to 1.6 ms, each with jitter so that waiting processes do not
        // retry in step; never past the deadline.
        let ceiling = UInt64(100_000) << UInt64(min(tries, 4))
        let delay = min(UInt64.random(in: ceiling / 2...ceiling), timeoutNanoseconds - elapsed)
        usleep(UInt32(delay / 1_000))
        return true
    }
}

import Foundation
