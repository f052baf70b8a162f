import FlowBusTesting
import Testing

struct ManualClockTests {
    @Test func theClockMovesOnlyWhenAdvanced() {
        let clock = ManualClock()
        let start = clock.now
        #expect(clock.now == start)
        clock.advance(by: .milliseconds(1500))
        #expect(start.duration(to: clock.now) == .milliseconds(1500))
        clock.advance(to: start.advanced(by: .seconds(1)))
        #expect(start.duration(to: clock.now) == .milliseconds(1500))
    }

    @Test func aSleeperWakesWhenTheClockReachesItsDeadline() async throws {
        let clock = ManualClock()
        let deadline = clock.now.advanced(by: .seconds(10))
        let sleeper = Task { try await clock.sleep(until: deadline) }
        clock.advance(by: .seconds(10))
        try await sleeper.value
        #expect(clock.now == deadline)
    }

    @Test func aCancelledSleeperThrows() async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(10))) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
