import FlowCore
import Testing

@testable import FlowDaemonCore

/// What flowd keeps of each session beside its tree, on its own: idle sessions found with the time given to each
/// call (not before a check is due, never an occupied one, at most a thousand a check), and command sequences.
@Suite struct SessionLedgerTests {
    @Test func idleSessionsAreFoundOnlyWhenACheckIsDueAndNotWhileOccupied() {
        var ledger = SessionLedger(now: 0)
        ledger.started(SessionID("a"), at: 0)
        ledger.started(SessionID("b"), at: 0)
        ledger.started(SessionID("c"), at: 0)
        ledger.used(SessionID("c"), at: 30_000)
        func idle(at now: Int64, occupied: Set<SessionID> = []) -> [SessionID] {
            ledger.idleSessions(now: now, expiry: 60_000, cutoff: now - 60_000, runStarted: 0, occupied: { occupied })
                .map(\.session)
        }
        #expect(idle(at: 5_000).isEmpty, "no check due before ten seconds")
        var asked = false
        let early = ledger.idleSessions(now: 6_000, expiry: 60_000, cutoff: 0, runStarted: 0) {
            asked = true
            return []
        }
        #expect(early.isEmpty && !asked, "the peers are not looked at while no check is due")
        #expect(idle(at: 70_000, occupied: [SessionID("b")]) == [SessionID("a")])
        #expect(idle(at: 75_000).isEmpty, "checked five seconds ago")
        #expect(idle(at: 100_000) == [SessionID("a"), SessionID("b"), SessionID("c")])
    }

    @Test func aSessionIsIdleNoEarlierThanTheRunStartedPlusTheExpiry() {
        var ledger = SessionLedger(now: 0)
        ledger.started(SessionID("a"), at: 0)
        let idle = ledger.idleSessions(
            now: 70_000,
            expiry: 60_000,
            cutoff: 10_000,
            runStarted: 20_000,
            occupied: { [] }
        )
        #expect(idle.isEmpty)
    }

    @Test func atMostAThousandIdleSessionsAreEndedAtOneCheck() {
        var ledger = SessionLedger(now: 0)
        for index in 0..<1005 {
            ledger.started(SessionID("s\(index)"), at: 0)
        }
        let idle = ledger.idleSessions(now: 70_000, expiry: 60_000, cutoff: 10_000, runStarted: 0, occupied: { [] })
        #expect(idle.count == SessionLedger.idleSessionsPerCheck)
    }

    @Test func commandSequencesCountPerPresenterFromOne() {
        var ledger = SessionLedger(now: 0)
        let kiosk = SessionID("kiosk")
        #expect(!ledger.hasSentCommands(in: kiosk, to: PresenterID("main")))
        let sequence = ledger.nextCommandSequence(of: kiosk, to: PresenterID("main"))
        #expect(sequence == 1)
        let sequenceAgain = ledger.nextCommandSequence(of: kiosk, to: PresenterID("main"))
        #expect(sequenceAgain == 2)
        let sequence3 = ledger.nextCommandSequence(of: kiosk, to: PresenterID("side"))
        #expect(sequence3 == 1)
        #expect(ledger.commandSequence(of: kiosk, to: PresenterID("main")) == 2)
        #expect(ledger.hasSentCommands(in: kiosk, to: PresenterID("side")))
        ledger.forget(kiosk)
        #expect(ledger.commandSequence(of: kiosk, to: PresenterID("main")) == 0)
    }
}
