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
        let result1 = registry.hear("a", now: 10, resolution: 1000)
        #expect(result1?.activeSession == SessionID("kiosk"))
        let result2 = registry.hear("a", now: 500, resolution: 1000)
        #expect(result2?.activeSession == nil)
        let result3 = registry.hear("a", now: 1010, resolution: 1000)
        #expect(result3?.activeSession == SessionID("kiosk"))
        #expect(registry["a"]?.lastHeard == 1010)
        let result4 = registry.hear("i", now: 2000, resolution: 1000)
        #expect(result4?.activeSession == nil, "no session to note")
        let result5 = registry.hear("nobody", now: 2000, resolution: 1000)
        #expect(result5 == nil)
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
        let result6 = registry.hold(message, for: "a")
        #expect(result6)
        let result7 = registry.verified("a")
        #expect(result7 == [message])
        #expect(!registry.isUnverified("a"))
        let result8 = registry.verified("a")
        #expect(result8.isEmpty, "given once")
        #expect(registry.isUnverified("b"))
    }

    @Test func atMostTheHeldLimitWaitsForAPeer() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        registry.connectionEnded()
        for index in 0..<PeerRegistry.heldLimit {
            let result9 = registry.hold(.toPeer("a", [[UInt8(index % 256)]]), for: "a")
            #expect(result9)
        }
        let outcome1 = registry.hold(.toPeer("a", [[0]]), for: "a")
        #expect(!outcome1)
        let result10 = registry.verified("a")
        #expect(result10.count == PeerRegistry.heldLimit)
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
        let result11 = registry.remove("a")
        #expect(result11?.id == "a")
        #expect(registry.held.isEmpty && !registry.isUnverified("a"))
        let result12 = registry.remove("a")
        #expect(result12 == nil)
    }

    @Test func removingASessionsPeersReturnsTheirIdsInOrder() {
        var registry = PeerRegistry()
        registry.add(peer("b"))
        registry.add(peer("a"))
        registry.add(peer("c", session: "lobby"))
        let result13 = registry.removeAll(in: SessionID("kiosk"))
        #expect(result13 == ["a", "b"])
        #expect(registry.count == 1)
        #expect(registry.occupiedSessions == [SessionID("lobby")])
    }

    @Test func aPeerWhoseRepliesAreDroppedForFiveSecondsIsToBeForgotten() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        let outcome2 = registry.repliesDropped(to: "a", now: 0)
        #expect(!outcome2)
        let outcome3 = registry.repliesDropped(to: "a", now: 4000)
        #expect(!outcome3)
        let result14 = registry.repliesDropped(to: "a", now: 5000)
        #expect(result14)
        // A pause as long as the limit starts another episode.
        let outcome4 = registry.repliesDropped(to: "a", now: 6000)
        #expect(!outcome4)
        let outcome5 = registry.repliesDropped(to: "a", now: 11_000)
        #expect(!outcome5)
        let outcome6 = registry.repliesDropped(to: "a", now: 15_000)
        #expect(!outcome6)
        let result15 = registry.repliesDropped(to: "a", now: 16_000)
        #expect(result15)
        // One that is not registered is never to be forgotten.
        let outcome7 = registry.repliesDropped(to: "gone", now: 0)
        #expect(!outcome7)
        let outcome8 = registry.repliesDropped(to: "gone", now: 5000)
        #expect(!outcome8)
    }

    @Test func aPeerThatReadsAgainIsForgottenFromTheUnreadOnes() {
        var registry = PeerRegistry()
        registry.add(peer("a"))
        _ = registry.repliesDropped(to: "a", now: 0)
        _ = registry.repliesDropped(to: "a", now: 4000)
        registry.forgetReadingPeers(now: 9000)
        let outcome9 = registry.repliesDropped(to: "a", now: 9001)
        #expect(!outcome9, "a new episode")
    }
}
