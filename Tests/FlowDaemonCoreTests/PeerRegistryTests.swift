import FlowCore
import FlowWire
import Testing

@testable import FlowDaemonCore

/// Who is connected, on its own: registrations, liveness with the time given to each call, CURVE's unverified
/// peers and what waits for them, replies not read. No coordinator, no socket.
@Suite struct PeerRegistryTests {
    private func peer(_ id: String, session: String? = "kiosk", role: Role = .stepper, at time: Int64 = 0) -> Peer {
        Peer(
            id: id,
            name: id,
            role: role,
            session: session.map { SessionID($0) },
            lastHeard: time,
            lastSent: time
        )
    }

    @Test func aPeerSilentPastTheTimeoutIsDueToBeForgottenAndAnIdleOneAHeartbeat() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        registry.add(peer("b"))
        registry.add(peer("c"))
        _ = registry.hear("b", now: 4000, resolution: 1000)
        _ = registry.sent(to: "c", now: 4500)
        // a: heard at 0, sent at 0; b: heard at 4000; c: sent at 4500.
        #expect(
            registry.due(now: 5001, timeout: 5000, interval: 1000, everyone: false) == [
                .silent("a"), .heartbeat("b", session: SessionID("kiosk")), .silent("c"),
            ]
        )
        #expect(
            registry.due(now: 4600, timeout: 5000, interval: 1000, everyone: false) == [
                .heartbeat("a", session: SessionID("kiosk")), .heartbeat("b", session: SessionID("kiosk")),
            ]
        )
        // While answers wait for the store, every peer that is not silent gets one.
        #expect(registry.due(now: 4600, timeout: 5000, interval: 1000, everyone: true).count == 3)
    }

    @Test func hearingAPeerNotesItsSessionsActivityOnceASecond() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        registry.add(peer("i", session: nil, role: .inspector))
        let heardAt10 = registry.hear("a", now: 10, resolution: 1000)
        #expect(heardAt10?.activeSession == SessionID("kiosk"))
        let heardAt500 = registry.hear("a", now: 500, resolution: 1000)
        #expect(heardAt500?.activeSession == nil)
        let heardAt1010 = registry.hear("a", now: 1010, resolution: 1000)
        #expect(heardAt1010?.activeSession == SessionID("kiosk"))
        #expect(registry["a"]?.lastHeard == 1010)
        let heardAt2000 = registry.hear("i", now: 2000, resolution: 1000)
        #expect(heardAt2000?.activeSession == nil, "no session to note")
        let heardNobody = registry.hear("nobody", now: 2000, resolution: 1000)
        #expect(heardNobody == nil)
    }

    @Test func aNameIsTakenOnlyByAnotherPeerOfTheSameSessionAndRole() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        #expect(registry.other(than: "b", in: SessionID("kiosk"), role: .stepper, name: "a")?.id == "a")
        #expect(registry.other(than: "a", in: SessionID("kiosk"), role: .stepper, name: "a") == nil, "itself")
        #expect(registry.other(than: "b", in: SessionID("lobby"), role: .stepper, name: "a") == nil)
        #expect(registry.other(than: "b", in: SessionID("kiosk"), role: .presenter, name: "a") == nil)
    }

    @Test func afterAConnectionEndsWhatIsSentWaitsUntilThePeersKeySpeaks() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        registry.add(peer("b"))
        #expect(!registry.isUnverified("a"))
        registry.connectionEnded()
        #expect(registry.isUnverified("a") && registry.isUnverified("b"))
        let message = Outgoing.toPeer("a", [[1], [2], [3], [4]])
        let held = registry.hold(message, for: "a")
        #expect(held)
        let released = registry.verified("a")
        #expect(released == [message])
        #expect(!registry.isUnverified("a"))
        let releasedAgain = registry.verified("a")
        #expect(releasedAgain.isEmpty, "given once")
        #expect(registry.isUnverified("b"))
    }

    @Test func atMostTheHeldLimitWaitsForAPeer() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        registry.connectionEnded()
        for index in 0..<PeerRegistry.heldLimit {
            let held = registry.hold(.toPeer("a", [[UInt8(index % 256)]]), for: "a")
            #expect(held)
        }
        let heldPastTheLimit = registry.hold(.toPeer("a", [[0]]), for: "a")
        #expect(!heldPastTheLimit)
        let released = registry.verified("a")
        #expect(released.count == PeerRegistry.heldLimit)
    }

    @Test func anotherKeySpeakingUnderARegisteredIdMakesItUnverified() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        registry.spokenByAnother("a")
        registry.spokenByAnother("unknown")
        #expect(registry.isUnverified("a"))
        #expect(!registry.isUnverified("unknown"), "no registration, nothing to hold")
    }

    @Test func removingAPeerForgetsWhatWaitedForIt() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        registry.connectionEnded()
        _ = registry.hold(.toPeer("a", [[1]]), for: "a")
        let removed = registry.remove("a")
        #expect(removed?.id == "a")
        #expect(registry.held.isEmpty && !registry.isUnverified("a"))
        let removedAgain = registry.remove("a")
        #expect(removedAgain == nil)
    }

    @Test func removingASessionsPeersReturnsTheirIdsInOrder() {
        var registry = PeerRegistry()
        registry.add(peer("b"))
        registry.add(peer("a"))
        registry.add(peer("c", session: "lobby"))
        let removedIDs = registry.removeAll(in: SessionID("kiosk"))
        #expect(removedIDs == ["a", "b"])
        #expect(registry.count == 1)
        #expect(registry.occupiedSessions == [SessionID("lobby")])
    }

    @Test func aPeerWhoseRepliesAreDroppedForFiveSecondsIsToBeForgotten() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        // (peer, when its replies were dropped, whether it is then to be forgotten): five seconds of drops forget
        // it; a pause as long as the limit starts another episode; one not registered is never to be forgotten.
        let drops: [(String, Int64, Bool)] = [
            ("a", 0, false), ("a", 4000, false), ("a", 5000, true),
            ("a", 6000, false), ("a", 11_000, false), ("a", 15_000, false), ("a", 16_000, true),
            ("gone", 0, false), ("gone", 5000, false),
        ]
        for (id, time, forget) in drops {
            let forgotten = registry.repliesDropped(to: id, now: time)
            #expect(forgotten == forget, "\(id) at \(time) ms")
        }
    }

    @Test func aPeerThatReadsAgainIsForgottenFromTheUnreadOnes() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        _ = registry.repliesDropped(to: "a", now: 0)
        _ = registry.repliesDropped(to: "a", now: 4000)
        registry.forgetReadingPeers(now: 9000)
        let forgetAt9001 = registry.repliesDropped(to: "a", now: 9001)
        #expect(!forgetAt9001, "a new episode")
    }
}
