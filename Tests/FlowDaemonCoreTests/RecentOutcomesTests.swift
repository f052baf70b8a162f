import FlowCore
import FlowWire
import Testing

@testable import FlowDaemonCore

/// A sender's remembered outcomes: the last ones, in order, however many come, and when how many to remember
/// changes (a reload): tried with fewer than the capacity, many times it, the same sequence twice, a capacity
/// raised and lowered, and a capacity below one.
@Suite struct RecentOutcomesTests {
    private func fate(_ flow: UInt32) -> StepOutcome {
        .fate(WireFate(accepted: true, flows: [FlowID(flow)]))
    }

    private func sequences(_ outcomes: RecentOutcomes) -> [UInt64] {
        outcomes.inOrder.map(\.sequence)
    }

    @Test func theLastOutcomesAreKeptInOrder() {
        var outcomes = RecentOutcomes()
        for sequence in UInt64(1)...3 {
            outcomes.append(fate(UInt32(sequence)), of: sequence, keeping: 4)
        }
        #expect(sequences(outcomes) == [1, 2, 3])
        for sequence in UInt64(4)...10 {
            outcomes.append(fate(UInt32(sequence)), of: sequence, keeping: 4)
        }
        #expect(sequences(outcomes) == [7, 8, 9, 10])
        #expect(outcomes.count == 4)
        #expect(outcomes.outcome(of: 6) == nil)
        #expect(outcomes.outcome(of: 8) == fate(8))
        #expect(outcomes.outcome(of: 10) == fate(10))
        // The same sequence twice (a refusal, then its step applied after a restart): the latest answers.
        outcomes.append(.refused(StepRefusal(code: .sequenceGap, message: "gap")), of: 10, keeping: 4)
        #expect(outcomes.outcome(of: 10) == .refused(StepRefusal(code: .sequenceGap, message: "gap")))
        #expect(sequences(outcomes) == [8, 9, 10, 10])
    }

    @Test func aChangedCapacityKeepsTheLastInOrder() {
        var outcomes = RecentOutcomes()
        for sequence in UInt64(1)...6 {
            outcomes.append(fate(1), of: sequence, keeping: 4)
        }
        #expect(sequences(outcomes) == [3, 4, 5, 6])
        // Raised: nothing is let go until the new capacity is reached.
        for sequence in UInt64(7)...9 {
            outcomes.append(fate(1), of: sequence, keeping: 6)
        }
        #expect(sequences(outcomes) == [4, 5, 6, 7, 8, 9])
        outcomes.append(fate(1), of: 10, keeping: 6)
        #expect(sequences(outcomes) == [5, 6, 7, 8, 9, 10])
        // Lowered: the oldest beyond it go at the next outcome.
        outcomes.append(fate(1), of: 11, keeping: 3)
        #expect(sequences(outcomes) == [9, 10, 11])
        outcomes.append(fate(1), of: 12, keeping: 0)
        #expect(sequences(outcomes) == [12])
    }

    @Test func restoredOutcomesGoOnInOrder() {
        var outcomes = RecentOutcomes([(1, fate(1)), (2, fate(2))])
        outcomes.append(fate(3), of: 3, keeping: 2)
        #expect(sequences(outcomes) == [2, 3])
        #expect(outcomes.outcome(of: 1) == nil)
    }
}
