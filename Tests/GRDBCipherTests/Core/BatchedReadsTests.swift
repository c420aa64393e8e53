import Dispatch
import Foundation
import Testing
@testable import GRDBCipher

@Suite("BatchedReads")
struct BatchedReadsTests {
    private struct NoReader: Error {}

    /// Batches run with a fake reader access that gives each job an error (no connection is
    /// needed to see when batches start).
    private static func makeBatches() -> BatchedReads {
        BatchedReads(maximumConcurrentBatches: 1) { access in
            DispatchQueue.global().async {
                let afterRelease = access(.failure(NoReader()))
                afterRelease?()
            }
        }
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    @Test func aBatchThatFollowsAnotherRestsAsLongAsThePreviousTook() throws {
        let batches = Self.makeBatches()
        let times = LockedValue<(firstEnd: UInt64, secondStart: UInt64)>((0, 0))
        let done = DispatchSemaphore(value: 0)
        let batchDuration: UInt64 = 40_000_000
        batches.schedule { _ in
            // Scheduled while this batch runs: the next batch takes it.
            batches.schedule { _ in
                times.update { $0.secondStart = Self.now() }
                done.signal()
                return nil
            }
            // A slow batch.
            Thread.sleep(forTimeInterval: Double(batchDuration) / 1e9)
            times.update { $0.firstEnd = Self.now() }
            return nil
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        let (firstEnd, secondStart) = times.read { $0 }
        // The rest is at least the first batch's duration (timers never fire early).
        #expect(secondStart >= firstEnd + batchDuration - 1_000_000)
    }

    @Test func aBatchThatFollowsAQuickOneRestsAtLeastTheMinimum() throws {
        let batches = Self.makeBatches()
        let times = LockedValue<(firstEnd: UInt64, secondStart: UInt64)>((0, 0))
        let done = DispatchSemaphore(value: 0)
        batches.schedule { _ in
            batches.schedule { _ in
                times.update { $0.secondStart = Self.now() }
                done.signal()
                return nil
            }
            times.update { $0.firstEnd = Self.now() }
            return nil
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        let (firstEnd, secondStart) = times.read { $0 }
        // A quick batch: the rest is the minimum (timers never fire early).
        #expect(secondStart >= firstEnd + BatchedReads.minimumRest)
    }

    @Test func aBatchThatStartsWhenNoneRunsRunsItsJobsAndTheirFollowUps() throws {
        let batches = Self.makeBatches()
        let events = LockedValue<[String]>([])
        let done = DispatchSemaphore(value: 0)
        batches.schedule { result in
            let failed = (try? result.get()) == nil
            events.update { $0.append(failed ? "job got the error" : "job got a connection") }
            return {
                events.update { $0.append("after release") }
                done.signal()
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(events.read { $0 } == ["job got the error", "after release"])
    }
}
