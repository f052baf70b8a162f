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
        // Added from another thread, as the connection's thread adds them, some while the reader waits.
        let adder = Thread {
            for sequence in 1...500 {
                queue.add(navigation(UInt64(sequence)))
                if sequence % 50 == 0 { usleep(200) }
            }
            queue.finish()
        }
        adder.start()
        #expect(sequences(await reader.value) == Array(1...500))
    }

    @Test func aReaderCancelledWhileItWaitsGetsTheEnd() async throws {
        let queue = UpdateQueue()
        let started = Mutex(false)
        let reader = Task {
            var iterator = PresenterUpdates(queue: queue).makeAsyncIterator()
            started.withLock { $0 = true }
            return await iterator.next()
        }
        try await eventually("the reader to start") { started.withLock { $0 } }
        reader.cancel()
        let last = await reader.value
        #expect(last == nil)
        // The queue still takes updates for a reader that comes later.
        queue.add(navigation(7))
        var iterator = PresenterUpdates(queue: queue).makeAsyncIterator()
        #expect(sequences([try #require(await iterator.next())]) == [7])
    }

    @Test func aReaderAlreadyCancelledGetsWhatIsThereThenTheEnd() async {
        let queue = UpdateQueue()
        queue.add(navigation(1))
        let reader = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var iterator = PresenterUpdates(queue: queue).makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return (first, second)
        }
        let (first, second) = await reader.value
        #expect(first.map { sequences([$0]) } == [1])
        #expect(second == nil)
    }
}
