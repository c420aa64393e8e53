import CSQLCipher
import Foundation

/// The one owner of a connection's SQLite hooks: commit, rollback, update, and the progress
/// handler. Features register with it instead of installing their own hooks, so that none
/// removes another's.
///
/// It also brokers transaction observation: it asks observers which changes they want before
/// each statement runs, holds the changes made inside savepoints until the outermost one is
/// released (and drops those of a rolled back savepoint), and calls `databaseWillCommit`,
/// `databaseDidCommit` and `databaseDidRollback` in GRDB's order.
final class ConnectionHooks {
    /// The connection, which owns the hooks: they never outlive it. Set once, by the
    /// connection's initializer.
    // Unsafe: the connection owns the hooks (`let hooks`) and removes their SQLite callbacks
    // before it goes, so it is alive whenever the hooks run.
    unowned(unsafe) var database: Database! {
        didSet { databaseReference = database.map { Unmanaged.passUnretained($0) } }
    }
    /// `database`, read without retaining it on the paths that run before each statement.
    // Unsafe: the same connection as `database`, alive as long as the hooks (see above).
    private var databaseReference: Unmanaged<Database>?

    init() {}

    deinit {
        entryBuffer.deallocate()
        for buffer in staleEntryBuffers { buffer.deallocate() }
    }

    /// Whether the connection is in a read-only access, read without retaining it (before each
    /// statement that writes, when there are observers).
    private var databaseIsReadOnly: Bool {
        databaseReference.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.isReadOnly }
    }

    /// `database.isInsideTransaction`, read without retaining the connection.
    private var databaseIsInsideTransaction: Bool {
        databaseReference.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.isInsideTransaction }
    }

    // MARK: - Installation

    func install(on handle: OpaquePointer) {
        // Unsafe: unretained; the connection owns the hooks, and removes them from the handle
        // (`uninstall`) before the handle may outlive it (a zombie that still rolls back).
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_commit_hook(handle, { context in
            // Unsafe: called only while installed, the hooks alive (see above).
            Unmanaged<ConnectionHooks>.fromOpaque(context!).takeUnretainedValue().commitHook()
        }, context)
        sqlite3_rollback_hook(handle, { context in
            // Unsafe: called only while installed, the hooks alive (see above).
            Unmanaged<ConnectionHooks>.fromOpaque(context!).takeUnretainedValue().rollbackHook()
        }, context)
    }

    /// Removes every hook that points to this object, before the handle closes: a zombie
    /// handle may still roll back after the object is gone.
    static func uninstall(from handle: OpaquePointer) {
        sqlite3_commit_hook(handle, nil, nil)
        sqlite3_rollback_hook(handle, nil, nil)
        sqlite3_update_hook(handle, nil, nil)
        sqlite3_progress_handler(handle, 0, nil, nil)
    }

    // MARK: - Progress handlers

    /// A progress handler answers true to interrupt the running statement.
    typealias ProgressHandler = () -> Bool

    private var progressHandlers: [(id: Int, handler: ProgressHandler)] = []
    private var nextProgressHandlerID = 0

    /// Registers a progress handler, called every 1000 SQLite instructions while statements
    /// run; returns the token that removes it.
    func addProgressHandler(_ handler: @escaping ProgressHandler) -> Int {
        nextProgressHandlerID += 1
        progressHandlers.append((nextProgressHandlerID, handler))
        if progressHandlers.count == 1, let handle = database.sqliteConnection {
            sqlite3_progress_handler(handle, 1000, { context in
                // Unsafe: the hooks, unretained: the connection owns them, and removes the
                // handler (`uninstall`) before its handle may outlive it.
                Unmanaged<ConnectionHooks>.fromOpaque(context!).takeUnretainedValue().progress()
            }, Unmanaged.passUnretained(self).toOpaque())
        }
        return nextProgressHandlerID
    }

    func removeProgressHandler(_ id: Int) {
        progressHandlers.removeAll { $0.id == id }
        if progressHandlers.isEmpty, let handle = database.sqliteConnection {
            sqlite3_progress_handler(handle, 0, nil, nil)
        }
    }

    private func progress() -> CInt {
        // Every handler runs: one that reports progress must not miss a poll because another
        // interrupts.
        var interrupts = false
        for (_, handler) in progressHandlers where handler() {
            interrupts = true
        }
        return interrupts ? 1 : 0
    }

    // MARK: - Observers

    /// A registered observer (a ``TypedEntry``, which knows its type).
    ///
    /// An observer held weakly (`.observerLifetime`) is also held strongly from the first
    /// statement of a transaction that asks it about its changes, until that transaction ends
    /// ("held"): the statements of the transaction then call it without loading the weak
    /// reference, and without retaining and releasing it (an object with weak references
    /// counts them in a side table: each load, retain and release takes the runtime's slow
    /// path). One that its owner lets go meanwhile lives until the transaction ends.
    class Entry {
        weak var weakObserver: (any TransactionObserver)?
        /// Set for `.nextTransaction` and `.databaseLifetime`; for `.observerLifetime`, while
        /// held for a transaction.
        @exclusivity(unchecked) var strongObserver: (any TransactionObserver)?
        let extent: Database.TransactionObservationExtent
        let id: ObjectIdentifier
        /// Set by `stopObservingDatabaseChangesUntilNextTransaction()`.
        @exclusivity(unchecked) var ignoresChangesUntilTransactionEnd = false

        fileprivate init(_ observer: any TransactionObserver, extent: Database.TransactionObservationExtent) {
            id = ObjectIdentifier(observer)
            self.extent = extent
            if extent == .observerLifetime {
                weakObserver = observer
            } else {
                strongObserver = observer
            }
        }

        var observer: (any TransactionObserver)? {
            if let strongObserver { return strongObserver }
            return weakObserver
        }

        /// Whether the observer is held strongly: the unretained calls below are safe.
        @inline(__always)
        var isHeld: Bool { strongObserver != nil }

        /// Holds the observer until the transaction ends; false when it is gone.
        func hold() -> Bool {
            guard let observer = weakObserver else { return false }
            strongObserver = observer
            return true
        }

        /// Lets go of an observer held for a transaction.
        func releaseHold() {
            if extent == .observerLifetime { strongObserver = nil }
        }

        /// `observes(eventsOfKind:)`, called without retaining the observer: only while held.
        func heldObserverObserves(_ eventKind: borrowing DatabaseEventKind) -> Bool {
            preconditionFailure("abstract")
        }

        /// `databaseDidChange(with:)`, called without retaining the observer: only while held.
        func heldObserverDidChange(with event: DatabaseEvent) {
            preconditionFailure("abstract")
        }

        /// `databaseWillCommit()`, called without retaining the observer: only while held.
        func heldObserverWillCommit() throws {
            preconditionFailure("abstract")
        }

        /// `databaseDidCommit(_:)` or `databaseDidRollback(_:)`, called without retaining the
        /// observer: only while held.
        func heldObserverDidEnd(_ end: TransactionEnd, _ db: Database) {
            preconditionFailure("abstract")
        }

        /// Forgets the observer: nothing buffered for it is delivered any longer.
        func invalidate() {
            weakObserver = nil
            strongObserver = nil
        }
    }

    /// An ``Entry`` for an observer of type `Observer`, which it calls through an unmanaged
    /// reference while the entry holds it.
    final class TypedEntry<Observer: TransactionObserver>: Entry {
        // Unsafe: used only while `strongObserver` holds the same observer (`isHeld`), or while
        // `retiredObservers` keeps one let go during a call (``retireIfCalledUnretained(_:)``).
        private let reference: Unmanaged<Observer>

        init(_ observer: Observer, extent: Database.TransactionObservationExtent) {
            // Unsafe: not retained here; see `reference`.
            reference = .passUnretained(observer)
            super.init(observer, extent: extent)
        }

        override func heldObserverObserves(_ eventKind: borrowing DatabaseEventKind) -> Bool {
            reference._withUnsafeGuaranteedRef { $0.observes(eventsOfKind: eventKind) }
        }

        override func heldObserverDidChange(with event: DatabaseEvent) {
            reference._withUnsafeGuaranteedRef { $0.databaseDidChange(with: event) }
        }

        override func heldObserverWillCommit() throws {
            try reference._withUnsafeGuaranteedRef { try $0.databaseWillCommit() }
        }

        override func heldObserverDidEnd(_ end: TransactionEnd, _ db: Database) {
            reference._withUnsafeGuaranteedRef { $0.databaseDidEnd(end, db) }
        }
    }

    /// How a transaction ended, for its observers.
    enum TransactionEnd {
        case commit
        case rollback
    }

    /// What the observers wanted of the changes of the statement that computed it last
    /// (``lastInterest``): a statement compiled anew that makes the same changes, and gets the
    /// same answers, reuses its list. Statements keep theirs as `Statement.interestGeneration`,
    /// `interestAnswers` and `cachedInterest`.
    private struct InterestCache {
        /// The observers it was computed for (``ConnectionHooks/entriesGeneration``).
        fileprivate var generation: Int
        /// Bit `e * kinds + k`: observer `e` wants the changes of kind `k`.
        fileprivate var answers: UInt64
        fileprivate var interest: [Interest]
    }

    /// An observer that wants some changes of the running statement, and which ones. Kept per
    /// execution: a cursor that steps later still delivers what its statement's observers
    /// wanted when it started.
    struct Interest {
        let entry: Entry
        /// The kinds of change, and the tables (ASCII-lowercased); empty when `acceptsAll`.
        let changes: [(kind: DatabaseEvent.Kind, table: String)]
        /// The observer wants every change the statement may make: no event needs a check.
        let acceptsAll: Bool
        /// The tables (ASCII-lowercased) of every change the statement announced; empty when
        /// `acceptsAll`.
        var announcedTables: [String] = []

        /// Whether the observer gets the event: a change it wants, or a change on a table the
        /// statement never announced (FTS4 writes its shadow tables this way), as GRDB (TXO-4).
        func accepts(_ event: DatabaseEvent) -> Bool {
            if acceptsAll { return true }
            if changes.contains(where: { $0.kind == event.kind && event.isOnTable(lowercasedName: $0.table) }) { return true }
            return !announcedTables.contains { event.isOnTable(lowercasedName: $0) }
        }
    }

    // Accessed by each statement that writes: no dynamic exclusivity check (the connection is
    // used by one thread at a time, and these are never accessed overlapping).
    @exclusivity(unchecked) private var entries: [Entry] = [] {
        didSet {
            entriesGeneration &+= 1
            if askingDepth > 0 {
                // Observers are being asked from the old buffer: it stays, with its entries,
                // until the asking ends; the answers are about the list it holds.
                if entriesAskedBeforeChange == nil { entriesAskedBeforeChange = oldValue }
                staleEntryBuffers.append(entryBuffer)
            } else {
                entryBuffer.deallocate()
            }
            entryBuffer = .allocate(capacity: entries.count)
            // Unsafe: unretained copies of `entries`, which keeps them alive until it changes;
            // a buffer replaced while observers are asked from it waits in `staleEntryBuffers`.
            _ = entryBuffer.initialize(from: entries.lazy.map { Unmanaged.passUnretained($0) })
        }
    }
    /// `entries`, unretained (the array keeps them alive), in memory of the hooks' own: read
    /// before each statement that writes, with no retain and release of the array or entries.
    // Unsafe: valid while `entries` is unchanged (see its `didSet`); deallocated in `deinit`.
    @exclusivity(unchecked) private var entryBuffer = UnsafeMutableBufferPointer<Unmanaged<Entry>>.allocate(capacity: 0)
    /// Changes with the list of observers: a statement's cached interest is for one list.
    @exclusivity(unchecked) private var entriesGeneration = 0
    /// The list that was being asked when an observer changed it (from its callback): the
    /// answers are about that list.
    @exclusivity(unchecked) private var entriesAskedBeforeChange: [Entry]?
    /// Buffers of `entries` replaced while observers were asked from them.
    // Unsafe: kept, with `entriesAskedBeforeChange`, until the asking ends (askingDepth 0); a
    // statement run from an observer's `observes` does not drop that list (see `interest`).
    @exclusivity(unchecked) private var staleEntryBuffers: [UnsafeMutableBufferPointer<Unmanaged<Entry>>] = []

    /// Whether an observer may be told something (deallocated observers are forgotten at the
    /// end of transactions, and when observers are added or removed).
    var hasObservers: Bool {
        !entries.isEmpty
    }

    func add(_ observer: some TransactionObserver, extent: Database.TransactionObservationExtent) {
        entries.removeAll { $0.observer == nil }
        entries.append(TypedEntry(observer, extent: extent))
    }

    func remove(_ observer: some TransactionObserver) {
        let id = ObjectIdentifier(observer)
        // Changes buffered in savepoints for it are no longer delivered.
        for entry in entries where entry.id == id {
            retireIfCalledUnretained(entry)
            entry.invalidate()
        }
        entries.removeAll { $0.id == id || $0.observer == nil }
        // While a statement runs, the update hook may be looping on `interested`: the removed
        // entries stay in it, invalidated (they are told nothing), until the statement ends.
        if executionDepth == 0 {
            interested.removeAll { $0.entry.id == id }
            if interested.isEmpty { removeUpdateHook() }
        }
    }

    /// An observer may be let go while it is called without being retained (``Entry``): from
    /// its own callback, or from a statement run by another's. Its entry's strong reference is
    /// then kept until the statement (or the asking) ends.
    private func retireIfCalledUnretained(_ entry: Entry) {
        if mayCallUnretained, let held = entry.strongObserver {
            retiredObservers.append(held)
        }
    }

    /// Forgets the retired observers once no unretained call can be in progress.
    private func forgetRetiredObserversIfIdle() {
        if !retiredObservers.isEmpty && !mayCallUnretained { retiredObservers = [] }
    }

    /// Whether an observer may be in a call made without retaining it: a statement runs (its
    /// update hook), observers are asked about a statement, or told that a transaction commits
    /// or ended.
    private var mayCallUnretained: Bool {
        executionDepth > 0 || askingDepth > 0 || notifyingDepth > 0
    }

    /// How many loops tell observers that a transaction commits or ended (nested when a
    /// callback runs a transaction).
    @exclusivity(unchecked) private var notifyingDepth = 0

    /// Calls `body` with each entry of `list`, which the caller keeps alive, without retaining
    /// the entries.
    @inline(__always)
    private func forEachUnretained(_ list: [Entry], _ body: (Entry) throws -> Void) rethrows {
        try list.withUnsafeBufferPointer { buffer in
            // Unsafe: an array of class references has the layout of Unmanaged references, and
            // the caller's `list` keeps the entries alive through the loop.
            try buffer.withMemoryRebound(to: Unmanaged<Entry>.self) { entries in
                for entry in entries {
                    try entry._withUnsafeGuaranteedRef(body)
                }
            }
        }
    }

    func stopObservingChanges(of observer: some TransactionObserver) {
        let id = ObjectIdentifier(observer)
        entries.withUnsafeBufferPointer { entries in
            for index in entries.indices where entries[index].id == id {
                entries[index].ignoresChangesUntilTransactionEnd = true
            }
        }
    }

    /// The hooks whose observers are being called on this thread, for
    /// `stopObservingDatabaseChangesUntilNextTransaction()`.
    static var currentlyNotifying: ConnectionHooks? {
        NotifyingHooks.current
    }

    private func notifying(_ body: () throws -> Void) rethrows {
        let slot = NotifyingHooks.slot
        let previous = slot.pointee
        // Unsafe: unretained: this call outlives the value it sets, and restores the previous.
        slot.pointee = Unmanaged.passUnretained(self).toOpaque()
        defer { slot.pointee = previous }
        try body()
    }

    // MARK: - Savepoints

    /// An open savepoint, and the changes made since it began (held until the outermost
    /// savepoint is released).
    private struct Savepoint {
        var name: String
        /// The savepoint began the transaction: releasing it commits.
        var beganTransaction: Bool
        var events: [(entry: Entry, event: DatabaseEvent)] = []
    }

    @exclusivity(unchecked) private var savepoints: [Savepoint] = []

    // MARK: - Statement execution

    /// What the hooks remember of the statement that runs. Plain values only (no reference to
    /// retain or release at each statement): the interest of an execution that ran before it
    /// waits in ``savedInterests``.
    struct Execution {
        fileprivate var wasInsideTransaction: Bool
        /// The key of the interest to give back to the execution that ran before this one
        /// (a cursor that steps later) in ``savedInterests``; 0 when there is none.
        fileprivate var savedInterestKey = 0
        /// The statement commits the transaction if it succeeds.
        fileprivate var commitsTransaction = false
        /// Observers hear of the end of the transaction (there are some, and the connection is
        /// not in a read-only access).
        fileprivate var notifies = false
    }

    /// Observers that want changes of the running statement.
    @exclusivity(unchecked) private var interested: [Interest] = []
    /// The interest of executions that wait for a nested one to end (``Execution/savedInterestKey``).
    @exclusivity(unchecked) private var savedInterests: [Int: [Interest]] = [:]
    @exclusivity(unchecked) private var nextSavedInterestKey = 1
    /// How many tracked executions run (nested ones included).
    @exclusivity(unchecked) private var executionDepth = 0
    @exclusivity(unchecked) private var updateHookInstalled = false

    /// Set by the commit and rollback hooks while a statement runs.
    @exclusivity(unchecked) private var didCommit = false
    @exclusivity(unchecked) private var didRollback = false
    /// `databaseWillCommit` already ran for the commit in progress.
    @exclusivity(unchecked) private var willCommitDone = false
    /// The error of an observer that refused a commit from the commit hook.
    @exclusivity(unchecked) private var commitError: (any Error)?

    /// Called before the first step of a statement that may change the database or end a
    /// transaction; nil when nothing needs to be known of it (no observer, and no transaction
    /// effect to track).
    @inline(__always)
    func willExecute(_ statement: Statement) throws -> Execution? {
        if entries.isEmpty && !statement.hasTransactionEffect { return nil }
        return try willExecuteTracked(statement)
    }

    private func willExecuteTracked(_ statement: Statement) throws -> Execution? {
        // The common case, kept short: a statement that does not begin or end a transaction,
        // whose observers give the answers they gave the last time it ran, and want none of its
        // changes (observers of other tables). They are asked, and nothing else is needed.
        if !statement.hasTransactionEffect && interested.isEmpty && !databaseIsReadOnly,
           let answers = askObservers(about: statement)
        {
            if statement.interestGeneration == entriesGeneration && statement.interestAnswers == answers {
                // Same observers, same answers: the statement's list holds.
                if statement.cachedInterest.isEmpty {
                    return startUntrackedExecution()
                }
                // Observers that want its changes (the observers of an inserted table) get them
                // through the update hook, unless the statement may truncate a table (it is then
                // prepared again), or observers held for a transaction that ended are released.
                if !statement.analysis.allowsTruncation && !(holdsObservers && !databaseIsInsideTransaction) {
                    interested = statement.cachedInterest
                    installUpdateHook()
                    return startUntrackedExecution()
                }
            }
            return try willExecuteTracked(statement, answers: answers)
        }
        return try willExecuteTracked(statement, answers: nil)
    }

    /// The execution of a statement that neither begins nor ends a transaction, whose
    /// observers' interest is settled.
    @inline(__always)
    private func startUntrackedExecution() -> Execution {
        didCommit = false
        didRollback = false
        if commitError != nil { commitError = nil }
        willCommitDone = false
        executionDepth += 1
        var execution = Execution(wasInsideTransaction: false)
        execution.notifies = true
        return execution
    }

    /// The observers' answers for each change the statement may make, one bit per observer and
    /// kind (``InterestCache/answers``); nil when there are no changes, or too many observers and
    /// kinds for the bits.
    @inline(__always)
    private func askObservers(about statement: Statement) -> UInt64? {
        let kindCount = statement.eventKinds.count
        let entries = UnsafeBufferPointer(entryBuffer)
        if kindCount == 0 || entries.isEmpty || entries.count * kindCount > UInt64.bitWidth { return nil }
        if askingDepth == 0 && entriesAskedBeforeChange != nil { entriesAskedBeforeChange = nil }
        askingDepth += 1
        var answers: UInt64 = 0
        var bit: UInt64 = 1
        for entry in entries {
            entry._withUnsafeGuaranteedRef { entry in
                if !entry.ignoresChangesUntilTransactionEnd && (entry.isHeld || holdForTransaction(entry)) {
                    // The first kind is lent from the statement's constant property, without a copy.
                    if entry.heldObserverObserves(statement.firstEventKind) { answers |= bit }
                    bit &<<= 1
                    for index in 1..<kindCount {
                        if entry.heldObserverObserves(statement.eventKinds[index]) { answers |= bit }
                        bit &<<= 1
                    }
                } else if !entry.ignoresChangesUntilTransactionEnd, let observer = entry.weakObserver {
                    // Outside of a transaction: asked through the weak reference.
                    for index in 0..<kindCount {
                        if observer.observes(eventsOfKind: statement.eventKinds[index]) { answers |= bit }
                        bit &<<= 1
                    }
                } else {
                    bit &<<= UInt64(kindCount)
                }
            }
        }
        // No defer: nothing above throws.
        askingDepth -= 1
        if askingDepth == 0 && !staleEntryBuffers.isEmpty {
            for buffer in staleEntryBuffers { buffer.deallocate() }
            staleEntryBuffers = []
        }
        return answers
    }

    /// Holds a weakly held observer until the end of the transaction in progress (see
    /// ``Entry``); false outside of a transaction, or when the observer is gone.
    @inline(never)
    private func holdForTransaction(_ entry: Entry) -> Bool {
        guard database.isInsideTransaction, entry.hold() else { return false }
        holdsObservers = true
        return true
    }

    /// How many ``askObservers(about:)`` call observers (before their statement counts in
    /// `executionDepth`; nested when an observer runs a statement).
    @exclusivity(unchecked) private var askingDepth = 0

    /// Observers removed while a statement runs, kept until it ends (see ``remove(_:)``).
    @exclusivity(unchecked) private var retiredObservers: [any TransactionObserver] = []

    /// Some entries hold their observer for the transaction in progress.
    @exclusivity(unchecked) private var holdsObservers = false

    /// Lets go of the observers held for a transaction that ended.
    private func releaseHeldObservers() {
        holdsObservers = false
        for entry in entries where entry.extent == .observerLifetime {
            retireIfCalledUnretained(entry)
            entry.releaseHold()
        }
    }

    /// `answers`: the observers' answers when already asked (``askObservers(about:)``).
    private func willExecuteTracked(_ statement: Statement, answers: UInt64?) throws -> Execution? {
        // Holds left by a transaction that ended without the hooks seeing it (a read that
        // failed and rolled back, SQL run through the C API) do not last into another one.
        if holdsObservers && !databaseIsInsideTransaction { releaseHeldObservers() }
        let effect = statement.hasTransactionEffect ? statement.analysis.transactionEffect : nil
        // The flags of the hooks are about this statement only.
        didCommit = false
        didRollback = false
        commitError = nil
        willCommitDone = false
        // Only transaction statements need the transaction state: the commit and rollback hooks
        // tell the rest.
        let wasInsideTransaction = effect != nil && database.isInsideTransaction
        var execution = Execution(wasInsideTransaction: wasInsideTransaction)
        execution.commitsTransaction = wasInsideTransaction && commits(effect)
        if !interested.isEmpty {
            execution.savedInterestKey = nextSavedInterestKey
            nextSavedInterestKey += 1
            savedInterests[execution.savedInterestKey] = interested
        }
        guard !entries.isEmpty, !databaseIsReadOnly else {
            execution.notifies = false
            interested = []
            removeUpdateHook()
            executionDepth += 1
            return execution
        }

        execution.notifies = true

        // Which observers want which changes of this statement.
        let newInterest = interest(in: statement, answers: answers)
        interested = newInterest
        if newInterest.isEmpty {
            removeUpdateHook()
        } else {
            installUpdateHook()
        }
        if statement.analysis.allowsTruncation
            && newInterest.contains(where: { interest in
                interest.acceptsAll
                    ? statement.eventKinds.contains { $0.eventKind == .delete }
                    : interest.changes.contains { $0.kind == .delete }
            })
        {
            do {
                try statement.prepareAgainWithoutTruncation()
            } catch {
                restore(execution)
                throw error
            }
        }

        // An explicit commit: observers may refuse it before it runs (SQLite calls no commit
        // hook for a transaction without writes, which GRDB observers hear of too).
        if execution.commitsTransaction {
            do {
                try prepareCommit()
            } catch {
                willCommitDone = false
                restore(execution)
                // The transaction is rolled back, and the commit throws the observer's error.
                try? database.executeInternal("ROLLBACK")
                throw error
            }
        }
        executionDepth += 1
        return execution
    }

    /// Asks each observer about each change the statement may make (once per execution, as
    /// GRDB documents; `answers` when they were already asked), and returns those that want
    /// some. The list is the statement's cached one when the observers and their answers are
    /// the same as last time.
    private func interest(in statement: Statement, answers: UInt64?) -> [Interest] {
        let kindCount = statement.eventKinds.count
        if kindCount == 0 { return [] }
        guard let answers = answers ?? askObservers(about: statement) else {
            // Too many observers for the bits: ask, and keep nothing.
            return computeInterest(statement.eventKinds, of: entries) { _, kindIndex, observer in
                observer.observes(eventsOfKind: statement.eventKinds[kindIndex])
            }
        }
        if let asked = entriesAskedBeforeChange {
            // An observer changed the list while asked: the answers are about the list it
            // changed (the observers it removed are invalidated, and skipped). Nothing cached.
            // A statement run from an observer's `observes` (asking still in progress) leaves
            // the list to the outer asking, which still loops over its entries unretained.
            if askingDepth == 0 { entriesAskedBeforeChange = nil }
            return computeInterest(statement.eventKinds, of: asked) { entryIndex, kindIndex, _ in
                answers & (1 << UInt64(entryIndex * kindCount + kindIndex)) != 0
            }
        }
        if statement.interestGeneration == entriesGeneration && statement.interestAnswers == answers {
            return statement.cachedInterest
        }
        // A statement that is not reused (`execute(sql:)` compiles anew) may make the same
        // changes as the previous one: its list is the same.
        let cache: InterestCache
        if let last = lastInterest, last.cache.generation == entriesGeneration, last.cache.answers == answers,
           last.eventKinds == statement.eventKinds
        {
            cache = last.cache
        } else {
            let interest = computeInterest(statement.eventKinds, of: entries) { entryIndex, kindIndex, _ in
                answers & (1 << UInt64(entryIndex * kindCount + kindIndex)) != 0
            }
            cache = InterestCache(generation: entriesGeneration, answers: answers, interest: interest)
            lastInterest = (statement.eventKinds, cache)
        }
        statement.interestGeneration = cache.generation
        statement.interestAnswers = cache.answers
        statement.cachedInterest = cache.interest
        return cache.interest
    }

    /// The interest computed last, for the statements that run once.
    @exclusivity(unchecked) private var lastInterest: (eventKinds: [DatabaseEventKind], cache: InterestCache)?

    /// The observers that want some of the changes, given each one's answer for each kind.
    private func computeInterest(
        _ eventKinds: [DatabaseEventKind],
        of entries: [Entry],
        _ wants: (_ entryIndex: Int, _ kindIndex: Int, _ observer: any TransactionObserver) -> Bool) -> [Interest]
    {
        var result: [Interest] = []
        for (entryIndex, entry) in entries.enumerated() {
            guard !entry.ignoresChangesUntilTransactionEnd, let observer = entry.observer else { continue }
            // The accepted changes are listed only when some are refused: an observer that
            // wants all of them (the common case) needs no list.
            var changes: [(kind: DatabaseEvent.Kind, table: String)] = []
            var acceptsAll = true
            for (kindIndex, kind) in eventKinds.enumerated() {
                if wants(entryIndex, kindIndex, observer) {
                    if !acceptsAll { changes.append((kind.eventKind, kind.tableName.asciiLowercased())) }
                } else if acceptsAll {
                    acceptsAll = false
                    changes = eventKinds[..<kindIndex].map { ($0.eventKind, $0.tableName.asciiLowercased()) }
                }
            }
            if acceptsAll || !changes.isEmpty {
                var interest = Interest(entry: entry, changes: changes, acceptsAll: acceptsAll)
                if !acceptsAll { interest.announcedTables = eventKinds.map { $0.tableName.asciiLowercased() } }
                result.append(interest)
            }
        }
        return result
    }

    /// Called once the statement is done (or failed, with `error`); returns the error to throw.
    @inline(__always)
    func didExecute(_ statement: Statement, _ execution: Execution, error: (any Error)?) -> (any Error)? {
        // The common case, inlined into the step loops: a statement that neither began nor
        // ended a transaction (no transaction effect, and the hooks saw no commit or rollback),
        // run while no other statement had observers' interest, with no observer's interest
        // to forget and no observer to let go.
        if endedNoTransaction(statement, execution) && interested.isEmpty && retiredObservers.isEmpty {
            executionDepth -= 1
            return error
        }
        return didExecuteTracked(statement, execution, error: error)
    }

    /// The statement neither began nor ended a transaction (no transaction effect, and the
    /// hooks saw no commit or rollback), and no execution that ran before waits for its
    /// interest back.
    @inline(__always)
    private func endedNoTransaction(_ statement: Statement, _ execution: Execution) -> Bool {
        !statement.hasTransactionEffect && !didCommit && !didRollback && commitError == nil
            && execution.savedInterestKey == 0
    }

    private func didExecuteTracked(_ statement: Statement, _ execution: Execution, error: (any Error)?) -> (any Error)? {
        executionDepth -= 1
        if endedNoTransaction(statement, execution) {
            if !interested.isEmpty { interested = [] }
            forgetRetiredObserversIfIdle()
            return error
        }
        var error = error
        if let commitError {
            // An observer refused the commit from the commit hook: SQLite reports
            // SQLITE_CONSTRAINT_COMMITHOOK, the application gets the observer's error.
            error = commitError
            self.commitError = nil
        }
        let effect = statement.hasTransactionEffect ? statement.analysis.transactionEffect : nil
        if error == nil && effect != nil {
            trackSavepoints(effect, wasInsideTransaction: execution.wasInsideTransaction)
        }
        // Without a transaction effect, the hooks tell whether the statement committed or
        // rolled back (an implicit transaction, an error that rolled back).
        let isInsideTransaction = effect == nil || database.isInsideTransaction
        var committed: Bool
        var rolledBack: Bool
        if execution.wasInsideTransaction && !isInsideTransaction {
            committed = didCommit || (error == nil && execution.commitsTransaction)
            rolledBack = !committed
            if !didCommit && !didRollback && database.isReadOnly {
                // A read-only transaction: observers do not hear of it.
                committed = false
                rolledBack = false
            }
        } else {
            // A commit hook followed by a failure (SQLITE_BUSY) leaves the transaction open: no
            // commit then.
            committed = didCommit && !database.isInsideTransaction
            // A statement that fails in autocommit mode rolls back its implicit transaction
            // without a word to observers, as in GRDB (TXO-1).
            // Observers asked to commit hear of the rollback, though.
            rolledBack = didRollback && (execution.wasInsideTransaction || willCommitDone)
        }
        didCommit = false
        didRollback = false
        willCommitDone = false
        restore(execution)
        if !isInsideTransaction && !savepoints.isEmpty {
            savepoints = []
        }
        if committed && (execution.notifies || !entries.isEmpty) {
            transactionDidEnd(.commit)
        } else if rolledBack && execution.notifies {
            transactionDidEnd(.rollback)
        }
        if holdsObservers && !databaseIsInsideTransaction { releaseHeldObservers() }
        forgetRetiredObserversIfIdle()
        return error
    }

    /// Gives the interest back to the execution that ran before (a cursor that steps later).
    /// The update hook stays installed: the next statement decides whether it needs it.
    private func restore(_ execution: Execution) {
        if execution.savedInterestKey != 0, let previous = savedInterests.removeValue(forKey: execution.savedInterestKey) {
            interested = previous
            installUpdateHook()
        } else if !interested.isEmpty {
            interested = []
        }
    }

    /// Whether the statement ends the transaction by committing it.
    private func commits(_ effect: StatementAnalysis.TransactionEffect?) -> Bool {
        switch effect {
        case .commitTransaction:
            return true
        case let .releaseSavepoint(name):
            // SQLite releases the innermost savepoint of that name: it commits when that one
            // began the transaction.
            guard let index = savepoints.lastIndex(where: { $0.name.equalsIgnoringASCIICase(name) }) else { return false }
            return index == 0 && savepoints[0].beganTransaction
        default:
            return false
        }
    }

    private func trackSavepoints(_ effect: StatementAnalysis.TransactionEffect?, wasInsideTransaction: Bool) {
        switch effect {
        case nil, .beginTransaction:
            break
        case .commitTransaction, .rollbackTransaction:
            savepoints = []
        case let .beginSavepoint(name):
            savepoints.append(Savepoint(name: name, beganTransaction: !wasInsideTransaction))
        case let .releaseSavepoint(name):
            guard let index = savepoints.lastIndex(where: { $0.name.equalsIgnoringASCIICase(name) }) else { return }
            let released = savepoints[index...].flatMap(\.events)
            savepoints.removeSubrange(index...)
            if savepoints.isEmpty {
                deliver(released)
            } else {
                savepoints[savepoints.count - 1].events.append(contentsOf: released)
            }
        case let .rollbackSavepoint(name):
            guard let index = savepoints.lastIndex(where: { $0.name.equalsIgnoringASCIICase(name) }) else { return }
            // The savepoint stays open, without the changes made since it began.
            savepoints.removeSubrange((index + 1)...)
            savepoints[index].events = []
        }
    }

    /// Delivers buffered changes, and calls `databaseWillCommit`; throws the first observer's
    /// error.
    private func prepareCommit() throws {
        guard !willCommitDone else { return }
        willCommitDone = true
        let pending = savepoints.flatMap(\.events)
        for index in savepoints.indices { savepoints[index].events = [] }
        deliver(pending)
        // The list as it is now, kept alive through the loop. An observer removed by an
        // earlier one's callback is invalidated, and skipped; one held for the transaction is
        // called without retaining it (one let go meanwhile is retired until the loop ends).
        let notified = entries
        notifyingDepth += 1
        defer { notifyingDepth -= 1 }
        try notifying {
            try forEachUnretained(notified) { entry in
                if entry.isHeld {
                    try entry.heldObserverWillCommit()
                } else {
                    try entry.weakObserver?.databaseWillCommit()
                }
            }
        }
    }

    private func deliver(_ events: [(entry: Entry, event: DatabaseEvent)]) {
        if events.isEmpty { return }
        notifying {
            for (entry, event) in events where !entry.ignoresChangesUntilTransactionEnd {
                entry.observer?.databaseDidChange(with: event)
            }
        }
    }

    /// Tells the observers the transaction ended, then forgets the `.nextTransaction` ones.
    private func transactionDidEnd(_ end: TransactionEnd) {
        // The list as it is now, kept alive through the loop (observers added by a callback
        // hear of the next transaction). An observer held strongly (for the transaction, or for
        // good) is called without retaining it: a statement run by one observer's callback may
        // end a transaction, which lets go of the observers held for this one, and they are
        // then retired until the loop ends. An observer removed by an earlier one's callback
        // is invalidated, and skipped.
        let notified = entries
        let database = self.database!
        var someAreGone = false
        let endsExtents = notified.contains { $0.extent == .nextTransaction }
        if endsExtents {
            // Their extent ends with this transaction, before they are told: a transaction
            // that one of them runs from `databaseDidCommit` is reported to the others only
            // (it recursed until the stack overflowed). `notified` keeps them alive.
            entries.removeAll { $0.extent == .nextTransaction }
        }
        notifyingDepth += 1
        // Observers hear of the end of the transaction even when the task of the access was
        // cancelled meanwhile: their fetches and writes are not refused (an observation that
        // fetches after a commit would otherwise fail).
        database.exemptFromCancellation {
            notifying {
                forEachUnretained(notified) { entry in
                    if entry.isHeld {
                        entry.heldObserverDidEnd(end, database)
                    } else if let observer = entry.weakObserver {
                        observer.databaseDidEnd(end, database)
                    } else {
                        someAreGone = true
                    }
                }
            }
        }
        notifyingDepth -= 1
        // After the callbacks: a stop asked from `databaseDidCommit` is about the transaction
        // that just ended.
        forEachUnretained(notified) { entry in
            entry.ignoresChangesUntilTransactionEnd = false
        }
        guard someAreGone || endsExtents else { return }
        let ended = notified.filter { $0.extent == .nextTransaction }
        // Invalidated, so that an outer notification loop (a transaction run from a
        // `databaseDidCommit`, such as an observation's fetch in a savepoint) skips them.
        for entry in ended {
            retireIfCalledUnretained(entry)
            entry.invalidate()
        }
        entries.removeAll { $0.observer == nil }
        if entries.isEmpty && executionDepth == 0 { removeUpdateHook() }
    }

    // MARK: - notifyChanges(in:)

    func notifyChanges(in region: DatabaseRegion) throws {
        guard hasObservers else { return }
        var toldObservers: [any TransactionObserver] = []
        for entry in entries where !entry.ignoresChangesUntilTransactionEnd {
            guard let observer = entry.observer else { continue }
            if try observes(region, observer) { toldObservers.append(observer) }
        }
        notifying {
            for observer in toldObservers { observer.databaseDidChange() }
        }
    }

    /// Whether an observer observes some change of the region: inserts, deletes, and updates
    /// of the region's columns (or of every column of the table).
    ///
    /// As GRDB (TXO-2), the region is made concrete first: the full database is every table of
    /// the schema (not `sqlite_master`), and tables take their schema spelling. Each observer is
    /// asked table by table.
    private func observes(_ region: DatabaseRegion, _ observer: some TransactionObserver) throws -> Bool {
        for (name, regionColumns) in try concreteTables(of: region) {
            if observer.observes(eventsOfKind: .insert(tableName: name)) { return true }
            if observer.observes(eventsOfKind: .delete(tableName: name)) { return true }
            let columns: Set<String>
            if let regionColumns {
                columns = regionColumns
            } else if try database.tableExists(name) || database.viewExists(name) {
                columns = try Set(database.columns(in: name).map(\.name))
            } else {
                columns = []
            }
            if observer.observes(eventsOfKind: .update(tableName: name, columnNames: columns)) { return true }
        }
        return false
    }

    /// The tables of a region, with their columns (nil: all of them), named as the schema
    /// names them.
    private func concreteTables(of region: DatabaseRegion) throws -> [(name: String, columns: Set<String>?)] {
        guard let tables = region.tables else {
            let names = try String.fetchAll(database, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                UNION ALL
                SELECT name FROM sqlite_temp_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                """)
            return names.map { ($0, nil) }
        }
        return try tables.values.map { table in
            // SQLite's own tables are asked about as named (`sqlite_master`, not the
            // `sqlite_schema` SQLite resolves it to).
            if table.name.lowercased().hasPrefix("sqlite_") { return (table.name, table.columns) }
            return (try database.existingTableName(table.name) ?? table.name, table.columns)
        }
    }

    // MARK: - SQLite hooks

    /// Installs the update hook, for the changes of the running statement that observers want.
    private func installUpdateHook() {
        if updateHookInstalled { return }
        guard let handle = database.sqliteConnection else { return }
        sqlite3_update_hook(handle, { context, kind, databaseName, tableName, rowID in
            // Unsafe: unretained; the connection owns the hooks and uninstalls them on close
            // (so the hooks outlive the call, made without a retain: it runs for each row).
            Unmanaged<ConnectionHooks>.fromOpaque(context!)._withUnsafeGuaranteedRef { hooks in
                hooks.updateHook(kind, databaseName!, tableName!, rowID)
            }
        // Unsafe: the context is the hooks, unretained (see above).
        }, Unmanaged.passUnretained(self).toOpaque())
        updateHookInstalled = true
    }

    /// Removes the update hook, when no observer wants the changes of the running statement.
    private func removeUpdateHook() {
        if !updateHookInstalled { return }
        guard let handle = database.sqliteConnection else { return }
        sqlite3_update_hook(handle, nil, nil)
        updateHookInstalled = false
    }

    private func updateHook(_ kind: CInt, _ databaseName: UnsafePointer<CChar>, _ tableName: UnsafePointer<CChar>, _ rowID: Int64) {
        // The hook stays installed between statements: one that nobody observes is not told.
        if interested.isEmpty { return }
        guard let kind = DatabaseEvent.Kind(rawValue: kind) else { return }
        let event = DatabaseEvent(kind: kind, rowID: rowID, databaseNameCString: databaseName, tableNameCString: tableName)
        if savepoints.isEmpty {
            notifying {
                interested.withUnsafeBufferPointer { interested in
                    for index in interested.indices {
                        let entry = interested[index].entry
                        if !entry.ignoresChangesUntilTransactionEnd && interested[index].accepts(event) {
                            if entry.isHeld {
                                entry.heldObserverDidChange(with: event)
                            } else {
                                entry.observer?.databaseDidChange(with: event)
                            }
                        }
                    }
                }
            }
        } else {
            var copy: DatabaseEvent?
            for interest in interested where interest.accepts(event) {
                if copy == nil { copy = event.copy() }
                savepoints[savepoints.count - 1].events.append((interest.entry, copy!))
            }
        }
    }

    private func commitHook() -> CInt {
        database.transactionHasWrites = false
        database.currentTransactionDate = nil
        // Observers hear of commits made by the statements the library runs (a commit made by
        // SQL inside a function, say, is one of the changes GRDB documents as undetected).
        if !willCommitDone && executionDepth > 0 && !database.isReadOnly && hasObservers {
            do {
                try prepareCommit()
            } catch {
                commitError = error
                return 1
            }
        }
        didCommit = true
        // The commit releases every savepoint.
        savepoints = []
        return 0
    }

    private func rollbackHook() {
        database.transactionHasWrites = false
        database.currentTransactionDate = nil
        // A rolled back transaction may have created or dropped tables. The statements built
        // from the schema are finalized later, out of the hook (SQLite forbids changing the
        // connection inside it).
        database.schemaCache.clear()
        database.persistenceStatementsAreStale = true
        database.noticeRollback()
        didRollback = true
        savepoints = []
    }
}

/// The hooks calling observers on the current thread.
private enum NotifyingHooks {
    /// Per-thread storage: a slot of the thread's own, allocated at its first notification,
    /// freed when the thread exits. The slot is read and written around each notification (one
    /// per changed row): plain memory costs less than `pthread_setspecific` each time.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let code = pthread_key_create(&key) { slot in
            // Unsafe: the key's values are slots allocated by `slot` below, as raw pointers.
            slot?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self).deallocate()
        }
        precondition(code == 0, "pthread_key_create failed: \(code)")
        return key
    }()

    /// The current thread's slot, which holds the notifying hooks, unretained, or nil.
    static var slot: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        if let slot = pthread_getspecific(key) {
            // Unsafe: the key's values are slots allocated below.
            return slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        }
        let slot = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 1)
        slot.initialize(to: nil)
        pthread_setspecific(key, slot)
        return slot
    }

    static var current: ConnectionHooks? {
        guard let slot = pthread_getspecific(key) else { return nil }
        // Unsafe: the key's values are slots allocated by `slot`; the hooks in a slot are set
        // only by `notifying(_:)`, whose hooks are alive until it restores the previous value.
        return slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee.map {
            Unmanaged<ConnectionHooks>.fromOpaque($0).takeUnretainedValue()
        }
    }
}

extension TransactionObserver {
    /// `databaseDidCommit(_:)` or `databaseDidRollback(_:)`.
    @inline(__always)
    fileprivate func databaseDidEnd(_ end: ConnectionHooks.TransactionEnd, _ db: Database) {
        switch end {
        case .commit: databaseDidCommit(db)
        case .rollback: databaseDidRollback(db)
        }
    }
}
