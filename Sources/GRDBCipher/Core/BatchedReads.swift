import Foundation

/// Runs small read jobs of a pool (the fetches of observations after a commit) together: the
/// jobs waiting when a batch starts share one reader and one read transaction, and only a few
/// batches run at once.
///
/// A commit that changes what ten observations track asks for ten fetches. Run one by one, each
/// in its own reader, they take every core and slow the writer that caused them; run together,
/// they cost one lease, one transaction, and at most `maximumConcurrentBatches` threads, and a
/// job that arrives while a batch runs waits for the next batch instead of starting a thread.
///
/// A job runs in a read transaction that began after the job was scheduled: it sees the commit
/// that scheduled it, or a later one.
///
/// Under a continuous stream of commits, batches would run back to back, and take a core for
/// themselves: on a small machine, from the writer that causes them. A batch that follows
/// another one at once (jobs arrived while it ran) starts after a rest as long as the previous
/// batch took, and at least ``minimumRest`` (1 ms; at most ``maximumRest``): the batches use at
/// most about half of a core, and at most about a thousand a second run, each fetch covers
/// more commits, and a value is late by at most the rest. A batch that starts when none runs
/// starts at once: a commit that follows a quiet moment is seen without delay.
final class BatchedReads: @unchecked Sendable {
    /// A job gets the connection inside the batch's transaction, or the error that prevented
    /// the batch from starting. It handles its own errors. It returns what it has left to do
    /// once the batch's reader is released (reducing and delivering a fetched value, say), if
    /// anything: that runs after the reads of the whole batch, in the order of the jobs.
    typealias Job = @Sendable (Result<Database, any Error>) -> AfterRelease?
    typealias AfterRelease = @Sendable () -> Void

    private struct State {
        var pending: [Job] = []
        var runningBatches = 0
    }

    /// The longest rest between two batches, in nanoseconds: a slow batch does not delay the
    /// next values by as much again.
    static let maximumRest: UInt64 = 50_000_000

    /// The shortest rest between two batches, in nanoseconds: under a stream of commits, at
    /// most about a thousand batches a second, whatever their size.
    static let minimumRest: UInt64 = 1_000_000

    private let state = LockedValue(State())
    private let maximumConcurrentBatches: Int
    private let acquireReader: @Sendable (@escaping @Sendable (Result<Database, any Error>) -> AfterRelease?) -> Void

    /// - parameter maximumConcurrentBatches: at least 1.
    /// - parameter acquireReader: runs its argument in a reader connection, off the caller's
    ///   thread, then, once the reader is released, what the argument returned.
    init(
        maximumConcurrentBatches: Int,
        acquireReader: @escaping @Sendable (@escaping @Sendable (Result<Database, any Error>) -> AfterRelease?) -> Void)
    {
        self.maximumConcurrentBatches = max(1, maximumConcurrentBatches)
        self.acquireReader = acquireReader
    }

    /// How many batches a pool runs at once: one core is left to the writer, and no more
    /// batches than readers.
    static func defaultConcurrency(maximumReaderCount: Int) -> Int {
        max(1, min(maximumReaderCount, ProcessInfo.processInfo.activeProcessorCount - 1))
    }

    /// Schedules a job; it runs in the next batch that starts.
    func schedule(_ job: @escaping Job) {
        let startsBatch = state.update { state -> Bool in
            state.pending.append(job)
            guard state.runningBatches < maximumConcurrentBatches else { return false }
            state.runningBatches += 1
            return true
        }
        if startsBatch { runBatch() }
    }

    /// Takes the pending jobs, and runs them in one reader and one transaction; then goes on
    /// with the jobs that arrived meanwhile, if any.
    private func runBatch() {
        acquireReader { [self] dbResult -> AfterRelease? in
            let started = DispatchTime.now().uptimeNanoseconds
            // Taken once the reader is there: jobs that arrived while it was acquired join.
            let jobs = state.update { state -> [Job] in
                defer { state.pending = [] }
                return state.pending
            }
            var afterRelease: [AfterRelease] = []
            switch dbResult {
            case let .failure(error):
                for job in jobs { job(.failure(error)).map { afterRelease.append($0) } }
            case .success where jobs.isEmpty:
                // Another batch took them while this one waited for its reader.
                break
            case let .success(db):
                // The jobs before `next` have run.
                var next = 0
                var began = false
                do {
                    try db.isolated(snapshotNow: false) {
                        began = true
                        while next < jobs.count {
                            let job = jobs[next]
                            next += 1
                            job(.success(db)).map { afterRelease.append($0) }
                            // A job whose failure ended the transaction (an interrupt, say)
                            // leaves the others to a new one.
                            if !db.isInsideTransaction { break }
                        }
                    }
                } catch {
                    // The transaction could not begin: no job ran, each gets the error. An
                    // error at its end is about jobs that ran and saw their own results.
                    if !began {
                        for job in jobs { job(.failure(error)).map { afterRelease.append($0) } }
                        next = jobs.count
                    }
                }
                if next < jobs.count {
                    // Left by a transaction that ended early: first in the next batch.
                    state.update { $0.pending.insert(contentsOf: jobs[next...], at: 0) }
                }
            }
            let continues = state.update { state -> Bool in
                if state.pending.isEmpty {
                    state.runningBatches -= 1
                    return false
                }
                return true
            }
            if continues {
                // The rest before the next batch (see the type's documentation).
                let rest = min(max(DispatchTime.now().uptimeNanoseconds &- started, Self.minimumRest), Self.maximumRest)
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(rest))) {
                    self.runBatch()
                }
            }
            if afterRelease.isEmpty { return nil }
            let tasks = afterRelease
            return { for task in tasks { task() } }
        }
    }
}
