import GRDBCipher
import GRDBCipherService
import Synchronization

/// Writes that arrive while a transaction is being written wait, and then share the next
/// transaction (group commit): each still runs in a savepoint of its own, succeeds or fails
/// alone, and is answered only once its transaction has committed.
///
/// Why: each commit makes SQLite drop the page cache of every reader connection, and in an
/// encrypted database every page a reader then needs again is authenticated and decrypted
/// again. Fewer commits for the same writes keep the readers' caches longer
/// (docs/Performance.md, "A service under load"). A lone write is not delayed: it starts at
/// once.
final class GroupCommit<Input: Sendable, Output: Sendable>: Sendable {
    private struct Pending: Sendable {
        var input: Input
        var continuation: CheckedContinuation<Output, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var writing = false
    }

    private let database: DatabaseService
    private let body: @Sendable (Database, Input) throws -> Output
    private let state = Mutex(State())

    init(database: DatabaseService, _ body: @escaping @Sendable (Database, Input) throws -> Output) {
        self.database = database
        self.body = body
    }

    func write(_ input: Input) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLock { state in
                state.pending.append(Pending(input: input, continuation: continuation))
                defer { state.writing = true }
                return !state.writing
            }
            if starts {
                Task { await self.drain() }
            }
        }
    }

    /// Writes the waiting inputs, one transaction at a time, until none waits.
    private func drain() async {
        while true {
            let batch = state.withLock { state in
                let batch = state.pending
                state.pending = []
                if batch.isEmpty { state.writing = false }
                return batch
            }
            if batch.isEmpty { return }
            let body = self.body
            do {
                let results = try await database.write { db in
                    batch.map { item in
                        Result<Output, any Error> {
                            var output: Output?
                            try db.inSavepoint {
                                output = try body(db, item.input)
                                return .commit
                            }
                            return output!
                        }
                    }
                }
                for (item, result) in zip(batch, results) {
                    item.continuation.resume(with: result)
                }
            } catch {
                // The transaction failed as a whole (its commit, or the access): no input of
                // the batch was written.
                for item in batch {
                    item.continuation.resume(throwing: error)
                }
            }
        }
    }
}
