import FlowCore
import FlowWire
import Testing

@testable import FlowDaemonCore

/// Who waits for which step's fate, on its own: a fate decided in the turn keeps nothing, one still to come is
/// kept and its sequence noted, the last dropped steps are bounded per session, and a session is forgotten whole.
@Suite struct AcknowledgementsTests {
    private let session = SessionID("kiosk")
    private var key: StepperKey { StepperKey(session: session, role: .stepper, name: "app") }

    private func waiting(_ sequence: UInt64) -> PendingAcknowledgement {
        PendingAcknowledgement(peer: "kiosk/app", stepper: key, sequence: sequence, correlation: sequence, sentAt: 0)
    }

    @Test func aFateDecidedInTheTurnLeavesNothingWaiting() {
        var acknowledgements = Acknowledgements()
        acknowledgements.deciding(StepToken(1), for: waiting(7))
        #expect(acknowledgements.waiting(for: StepToken(1), in: session)?.sequence == 7)
        let settled = acknowledgements.settle(StepToken(1), in: session)
        #expect(settled?.sequence == 7)
        acknowledgements.stillUndecided(sequence: 7)
        #expect(acknowledgements.waiting(in: session).isEmpty)
        #expect(acknowledgements.steppers[key] == nil)
    }

    @Test func aFateStillToComeIsKeptWithItsSequence() {
        var acknowledgements = Acknowledgements()
        acknowledgements.deciding(StepToken(1), for: waiting(7))
        acknowledgements.stillUndecided(sequence: 7)
        #expect(acknowledgements.waiting(in: session).map(\.token) == [StepToken(1)])
        #expect(acknowledgements.steppers[key]?.pending == [7])
        #expect(acknowledgements.waiting(for: StepToken(1), in: SessionID("other")) == nil, "another session's")
        let settled = acknowledgements.settle(StepToken(1), in: session)
        #expect(settled?.sequence == 7)
        let settledAgain = acknowledgements.settle(StepToken(1), in: session)
        #expect(settledAgain == nil, "settled once")
    }

    @Test func theLastHundredDropsOfASessionAreKept() {
        var acknowledgements = Acknowledgements()
        for index in 0..<(Acknowledgements.rememberedDrops + 5) {
            acknowledgements.remember(
                DroppedStep(
                    at: Int64(index),
                    step: Step("s\(index)"),
                    source: .null,
                    sender: nil,
                    fate: WireFate(.dropped(.noneStep))
                ),
                in: session
            )
        }
        #expect(acknowledgements.drops(in: session).count == Acknowledgements.rememberedDrops)
        #expect(acknowledgements.drops(in: session).first?.at == 5)
        #expect(acknowledgements.drops(in: session, limit: 2).map(\.at) == [103, 104])
        #expect(acknowledgements.drops(in: session, limit: -1).isEmpty)
        #expect(acknowledgements.drops(in: SessionID("other")).isEmpty)
    }

    @Test func forgettingASessionForgetsWhatWaitsAndItsSenders() {
        var acknowledgements = Acknowledgements()
        acknowledgements.deciding(StepToken(1), for: waiting(7))
        acknowledgements.stillUndecided(sequence: 7)
        acknowledgements.forget(session)
        #expect(acknowledgements.waiting(in: session).isEmpty)
        #expect(acknowledgements.steppers[key] == nil)
    }

    @Test func aRestoredSessionWaitsAsItsRecordSays() {
        var acknowledgements = Acknowledgements()
        acknowledgements.restore(waiting: [(StepToken(3), waiting(9))], drops: [], in: session)
        let settled = acknowledgements.settle(StepToken(3), in: session)
        #expect(settled?.sequence == 9)
    }
}
