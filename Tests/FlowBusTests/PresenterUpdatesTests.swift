import FlowBusTesting
import FlowCore
import Foundation
import Synchronization
import Testing

@testable import FlowBus

/// The queue between a presenter's connection thread and the task that reads its updates, on its own: order, the
/// end, a reader that waits, and cancellation (the cases `AsyncStream` covered before).
@Suite struct PresenterUpdatesTests {
    private func navigation(_ sequence: UInt64) -> PresenterUpdate {
        .navigate(Navigation(sequence: sequence, commands: [], flow: FlowID(1), step: nil, screens: ScreenTree()))
    }

    private func sequences(_ updates: [PresenterUpdate]) -> [UInt64] {
        updates.map { update in
            guard case .navigate(let navigation) = update else { return 0 }
            return navigation.sequence
        }
    }

    @Test func updatesAddedBeforeTheyAreReadComeInOrderThenTheEndAfterThem() async {
        let queue = UpdateQueue()
        for sequence in 1...2_000 {
            queue.add(navigation(UInt64(sequence)))
        }
        queue.finish()
        queue.add(navigation(9_999))  // after the end: not kept
        var read: [PresenterUpdate] = []
        for await update in PresenterUpdates(queue: queue) {
            read.append(update)
        }
        #expect(sequences(read) == Array(1...2_000))
    }

    @Test func aReaderThatWaitsIsGivenEachUpdateAsItComes() async throws {
        let queue = UpdateQueue()
        let reader = Task {
            var read: [PresenterUpdate] = []
            for await update in PresenterUpdates(queue: queue) {
                read.append(update)
            }
            return read
        }
        // Added from another thread, as the connection's thread adds them; every 50th once the reader waits for it
        // (handed straight to the waiting reader), the others whether it waits or not.
        let waited = Mutex(0)
        let adder = Thread {
            for sequence in 1...500 {
                if sequence % 50 == 0, waitUntil({ queue.hasWaitingReader }) {
                    waited.withLock { $0 += 1 }
                }
                queue.add(navigation(UInt64(sequence)))
            }
            queue.finish()
        }
        adder.start()
        #expect(sequences(try await Self.value(of: reader) ?? []) == Array(1...500))
        #expect(waited.withLock { $0 } == 10)
    }

    @Test func aReaderCancelledWhileItWaitsGetsTheEnd() async throws {
        let queue = UpdateQueue()
        let reader = Task {
            var iterator = PresenterUpdates(queue: queue).makeAsyncIterator()
            return await iterator.next()
        }
        // Cancelled once it waits: the cancellation handler gives it the end.
        try await eventually("the reader to wait") { queue.hasWaitingReader }
        reader.cancel()
        #expect(try await Self.value(of: reader) == .some(nil))
        // The queue still takes updates for a reader that comes later.
        queue.add(navigation(7))
        var iterator = PresenterUpdates(queue: queue).makeAsyncIterator()
        #expect(sequences([try #require(await iterator.next())]) == [7])
    }

    @Test func aReaderAlreadyCancelledGetsWhatIsThereThenTheEnd() async throws {
        let queue = UpdateQueue()
        queue.add(navigation(1))
        let reader = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var iterator = PresenterUpdates(queue: queue).makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return (first, second)
        }
        let (first, second) = try #require(try await Self.value(of: reader))
        #expect(first.map { sequences([$0]) } == [1])
        #expect(second == nil)
    }

    /// What `task` returns, or `nil` (a recorded issue) when it has not returned within 10 s: a reader the queue never
    /// resumes fails its test instead of holding the whole run.
    static func value<Value: Sendable>(of task: Task<Value, Never>) async throws -> Value? {
        let race = FirstOfTwo<Value?>()
        let value = await withCheckedContinuation { continuation in
            race.start(continuation)
            Task { race.settle(await task.value) }
            Task {
                try? await Task.sleep(for: .seconds(10))
                race.settle(nil)
            }
        }
        if value == nil {
            Issue.record("the reader did not return within 10 s")
        }
        return value
    }
}

/// Resumes a continuation with whichever of two values comes first.
private final class FirstOfTwo<Value: Sendable>: Sendable {
    private let state = Mutex<(settled: Bool, continuation: CheckedContinuation<Value, Never>?)>((false, nil))

    func start(_ continuation: CheckedContinuation<Value, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func settle(_ value: Value) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard !state.settled else { return nil }
            state.settled = true
            return state.continuation
        }
        continuation?.resume(returning: value)
    }
}
