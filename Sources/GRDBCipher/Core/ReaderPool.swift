import Foundation

/// The read-only connections of a ``DatabasePool``: opened on demand up to a maximum, handed out
/// one access at a time, and a barrier that waits for every read to end and holds new ones.
///
/// `@unchecked Sendable`: all mutable state is guarded by `condition`.
final class ReaderPool: @unchecked Sendable {
    private let condition = NSCondition()
    private let maximumCount: Int
    private let makeReader: (Int) throws -> SerializedDatabase
    /// Set on every reader's queue: tells, without a lock, whether a thread runs on one.
    private let readerIdentity = QueueIdentity()
    private var idle: [SerializedDatabase] = []
    /// Every open reader, idle or in use, to find the one the current thread runs on.
    private var open: [ObjectIdentifier: SerializedDatabase] = [:]
    /// Readers being opened, outside of the lock.
    private var pendingOpens = 0
    private var readsInProgress = 0
    private var barrierActive = false
    private var barriersWaiting = 0
    private var generation = 0
    private var nextIndex = 1
    private var isClosed = false

    /// A reader handed out for one access. Give it back with ``release(_:)``.
    struct Lease {
        let reader: SerializedDatabase
        fileprivate let generation: Int
    }

    init(maximumCount: Int, makeReader: @escaping (Int) throws -> SerializedDatabase) {
        precondition(maximumCount > 0, "maximumReaderCount must be at least 1")
        self.maximumCount = maximumCount
        self.makeReader = makeReader
    }

    /// Waits for an idle reader, or opens one, and hands it out. Waits while a barrier runs.
    func acquire() throws -> Lease {
        condition.lock()
        while true {
            if isClosed {
                condition.unlock()
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed")
            }
            if barrierActive || barriersWaiting > 0 {
                condition.wait()
                continue
            }
            if let reader = idle.popLast() {
                readsInProgress += 1
                let lease = Lease(reader: reader, generation: generation)
                condition.unlock()
                return lease
            }
            if open.count + pendingOpens < maximumCount {
                break
            }
            condition.wait()
        }
        // Open a new reader outside of the lock: with a passphrase, this may take a while.
        pendingOpens += 1
        readsInProgress += 1
        let index = nextIndex
        nextIndex += 1
        let generation = self.generation
        condition.unlock()
        do {
            let reader = try makeReader(index)
            reader.queue.setSpecific(key: QueueIdentity.readerPoolKey, value: readerIdentity)
            condition.lock()
            pendingOpens -= 1
            open[ObjectIdentifier(reader)] = reader
            condition.unlock()
            return Lease(reader: reader, generation: generation)
        } catch {
            condition.lock()
            pendingOpens -= 1
            readsInProgress -= 1
            condition.broadcast()
            condition.unlock()
            throw error
        }
    }

    /// Takes back a reader. It is closed instead of kept when the pool was closed or its
    /// readers invalidated since it was handed out.
    func release(_ lease: Lease) {
        condition.lock()
        readsInProgress -= 1
        let keep = !isClosed && lease.generation == generation
        if keep {
            idle.append(lease.reader)
        } else {
            open[ObjectIdentifier(lease.reader)] = nil
        }
        condition.broadcast()
        condition.unlock()
        if !keep {
            try? lease.reader.close()
        }
    }

    /// Runs `body` once no read is in progress, holding new reads until it returns.
    func barrier<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        barriersWaiting += 1
        while barrierActive || readsInProgress > 0 {
            condition.wait()
        }
        barriersWaiting -= 1
        barrierActive = true
        condition.unlock()
        defer {
            condition.lock()
            barrierActive = false
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    /// Every open reader, idle or in use.
    var allReaders: [SerializedDatabase] {
        condition.lock()
        defer { condition.unlock() }
        return Array(open.values)
    }

    /// Whether the current thread runs on a reader's queue.
    var onReaderQueue: Bool {
        readerIdentity.isCurrent(QueueIdentity.readerPoolKey)
    }

    /// The reader whose queue the current thread runs on, if any.
    var currentReader: SerializedDatabase? {
        onReaderQueue ? allReaders.first { $0.onQueue } : nil
    }

    /// Closes the idle readers; readers in use are closed when they are released. New reads
    /// open new connections.
    func invalidate() {
        condition.lock()
        generation += 1
        let closing = idle
        idle = []
        for reader in closing { open[ObjectIdentifier(reader)] = nil }
        condition.broadcast()
        condition.unlock()
        for reader in closing { try? reader.close() }
    }

    /// Runs `body` on each idle reader.
    func forEachIdleReader(_ body: (SerializedDatabase) -> Void) {
        condition.lock()
        let readers = idle
        condition.unlock()
        readers.forEach(body)
    }

    /// Closes every reader, unless one is in use (SQLITE_BUSY). Later accesses throw
    /// SQLITE_MISUSE.
    /// Refuses new reads, as the pool starts closing; throws SQLITE_BUSY while a read is in
    /// progress. ``cancelClose()`` accepts reads again when the close is refused.
    func beginClose() throws {
        condition.lock()
        defer { condition.unlock() }
        if readsInProgress > 0 {
            throw DatabaseError(resultCode: .SQLITE_BUSY, message: "unable to close due to concurrent database accesses")
        }
        isClosed = true
    }

    /// Accepts reads again, after a close was refused.
    func cancelClose() {
        condition.lock()
        isClosed = false
        condition.broadcast()
        condition.unlock()
    }

    func close() throws {
        condition.lock()
        if readsInProgress > 0 {
            condition.unlock()
            throw DatabaseError(resultCode: .SQLITE_BUSY, message: "unable to close due to concurrent database accesses")
        }
        isClosed = true
        let closing = idle
        idle = []
        open = [:]
        condition.broadcast()
        condition.unlock()
        var firstError: (any Error)?
        for reader in closing {
            do { try reader.close() } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }
}
