import Foundation

/// The result of `task` if it ends within `timeout`, nil otherwise. The task goes on either
/// way: unlike a task group, which waits for all its children, this returns at the timeout
/// even when the task cannot be cancelled (a database access waits for its connection).
func result<T: Sendable>(of task: Task<T, any Error>, within timeout: Duration) async -> Result<T, any Error>? {
    await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>?, Never>) in
        let once = ResumeOnce(continuation)
        Task { once.resume(with: await task.result) }
        Task {
            try? await Task.sleep(for: timeout)
            once.resume(with: nil)
        }
    }
}

/// Resumes a continuation with the first value given.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?

    init(_ continuation: CheckedContinuation<T, Never>) {
        self.continuation = continuation
    }

    func resume(with value: T) {
        lock.lock()
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(returning: value)
    }
}
