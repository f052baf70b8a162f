import FlowCore
import FlowStore
import FlowWire
import Testing

@testable import FlowDaemonCore

/// What an instance of a fleet knows of the fleet, on its own (no coordinator, no store): which HELLOs wait for the
/// store and which sessions it asks about, what each answer of the store makes of them, the HELLOs refused while the
/// store is down, the sessions lost to another instance, and the fleet's instances as the `fleet` query lists them.
@Suite struct FleetMembershipTests {
    let instance = FleetInstance(
        name: "a",
        control: ["tcp://a:5860"],
        events: ["tcp://a:5861"],
        leaseMilliseconds: 5000
    )

    func hello(_ role: Role, _ peer: String, correlation: UInt64 = 1) -> ParkedHello {
        ParkedHello(
            hello: Hello(role: role, id: peer, session: "kiosk"),
            peer: peer,
            userID: nil,
            correlation: correlation
        )
    }

    func peers(_ placement: FleetMembership.Placement) -> [String] {
        switch placement {
        case .here(let parked, _), .elsewhere(let parked, _), .refused(let parked, _): parked.map(\.peer)
        }
    }

    @Test func aHelloWaitsOnlyForASessionThisInstanceNeitherOwnsNorRuns() {
        var fleet = FleetMembership(instance: instance, owned: [SessionID("restored")])
        let restored = fleet.park(hello(.stepper, "app"), session: "restored", exists: false)
        let running = fleet.park(hello(.stepper, "app"), session: "running", exists: true)
        let unknown = fleet.park(hello(.stepper, "app"), session: "kiosk", exists: false)
        #expect(!restored && !running && unknown)
        #expect(fleet.hasParkedHellos)
    }

    @Test func eachSessionIsAskedAboutOnceAndClaimedOnlyForAStepperOrPresenter() {
        var fleet = FleetMembership(instance: instance, owned: [])
        _ = fleet.park(hello(.inspector, "watch"), session: "watched", exists: false)
        _ = fleet.park(hello(.guard, "guard"), session: "kiosk", exists: false)
        _ = fleet.park(hello(.presenter, "main"), session: "kiosk", exists: false)
        let asked = fleet.takeSessionsToLocate()
        #expect(asked.map(\.session) == ["watched", "kiosk"])
        #expect(asked.map(\.claiming) == [false, true])
        let again = fleet.takeSessionsToLocate()
        #expect(again.isEmpty, "each session is asked about once")
    }

    @Test func aHelloSaidAgainWhileTheFirstWaitsReplacesIt() {
        var fleet = FleetMembership(instance: instance, owned: [])
        _ = fleet.park(hello(.stepper, "app", correlation: 1), session: "kiosk", exists: false)
        _ = fleet.park(hello(.stepper, "app", correlation: 2), session: "kiosk", exists: false)
        _ = fleet.park(hello(.presenter, "main"), session: "kiosk", exists: false)
        #expect(fleet.takeSessionsToLocate().count == 1)
        let placement = fleet.located("kiosk", .success(.here(StoredState())))
        guard case .here(let parked, let restore) = placement else {
            Issue.record("not placed here: \(placement)")
            return
        }
        #expect(parked.map(\.peer) == ["app", "main"] && parked.map(\.correlation) == [2, 1])
        #expect(restore == nil, "a new session: nothing to restore")
        #expect(fleet.owned == [SessionID("kiosk")])
    }

    @Test func aSessionWithStoredStateIsRestoredHere() {
        var fleet = FleetMembership(instance: instance, owned: [])
        _ = fleet.park(hello(.stepper, "app"), session: "kiosk", exists: false)
        var stored = StoredState()
        stored.snapshots = [SnapshotRecord(session: "kiosk", bytes: [1])]
        guard case .here(_, let restore) = fleet.located("kiosk", .success(.here(stored))) else {
            Issue.record("not placed here")
            return
        }
        #expect(restore?.snapshots.count == 1)
    }

    @Test func nobodyOwningTheSessionLetsWatchersWaitAndCreatorsAskAgainClaiming() {
        var fleet = FleetMembership(instance: instance, owned: [])
        _ = fleet.park(hello(.inspector, "watch"), session: "kiosk", exists: false)
        _ = fleet.park(hello(.stepper, "app"), session: "kiosk", exists: false)
        _ = fleet.takeSessionsToLocate()
        let placement = fleet.located("kiosk", .success(.nowhere))
        #expect(peers(placement) == ["watch"])
        let askedAgain = fleet.takeSessionsToLocate()
        #expect(askedAgain.map(\.session) == ["kiosk"] && askedAgain.first?.claiming == true)
        #expect(fleet.owned.isEmpty)
    }

    @Test func aSessionServedElsewhereSendsEveryWaitingHelloThere() {
        var fleet = FleetMembership(instance: instance, owned: [])
        _ = fleet.park(hello(.stepper, "app"), session: "kiosk", exists: false)
        _ = fleet.park(hello(.inspector, "watch"), session: "kiosk", exists: false)
        let owner = FleetMember(
            name: "b",
            control: [],
            events: [],
            alive: true,
            leaseRemainingMilliseconds: 1,
            sessions: 1,
            startedAt: 0
        )
        let placement = fleet.located("kiosk", .success(.elsewhere(owner)))
        guard case .elsewhere(let parked, let to) = placement else {
            Issue.record("not elsewhere: \(placement)")
            return
        }
        #expect(parked.map(\.peer) == ["app", "watch"] && to.name == "b")
        #expect(!fleet.hasParkedHellos && fleet.owned.isEmpty)
    }

    @Test func aStoreThatFailsRefusesTheSessionsHellosWithItsReason() {
        var fleet = FleetMembership(instance: instance, owned: [])
        _ = fleet.park(hello(.stepper, "app"), session: "kiosk", exists: false)
        let placement = fleet.located("kiosk", .failure(StoreError(.unavailable, "connection refused")))
        guard case .refused(let parked, let reason) = placement else {
            Issue.record("not refused: \(placement)")
            return
        }
        #expect(parked.map(\.peer) == ["app"])
        #expect(reason.contains("kiosk") && reason.contains("connection refused"))
    }

    @Test func aStoreThatIsDownRefusesEveryWaitingHelloOnceAndItsAnswerFindsNone() {
        var fleet = FleetMembership(instance: instance, owned: [])
        _ = fleet.park(hello(.stepper, "app"), session: "b-kiosk", exists: false)
        _ = fleet.park(hello(.stepper, "app2"), session: "a-kiosk", exists: false)
        let refused = fleet.refuseAll(because: "no answer for 1 s")
        #expect(refused.map(\.hello.peer) == ["app2", "app"], "by session")
        #expect(refused.allSatisfy { $0.refusal.contains("no answer for 1 s") })
        #expect(fleet.refuseAll(because: "again").isEmpty)
        let late = fleet.located("a-kiosk", .success(.here(StoredState())))
        #expect(peers(late).isEmpty, "the store's late answer finds no HELLO")
    }

    @Test func sessionsTheStoreNoLongerGivesThisInstanceAreLost() {
        var fleet = FleetMembership(instance: instance, owned: [SessionID("kept"), SessionID("taken")])
        fleet.owns("adopted")
        fleet.disowns("ended")
        #expect(fleet.lost(owning: ["kept", "adopted"]) == ["taken"])
        fleet.disowns("taken")
        #expect(fleet.lost(owning: ["kept", "adopted"]).isEmpty)
    }

    @Test func theInstancesListThisOneWithItsOwnCountEvenBeforeTheStoreDoes() {
        var fleet = FleetMembership(instance: instance, owned: [SessionID("x"), SessionID("y")])
        let listed = fleet.instances(startedAt: 42)
        #expect(listed.map(\.name) == ["a"] && listed.first?.sessions == 2 && listed.first?.startedAt == 42)
        let stale = FleetMember(
            name: "a",
            control: [],
            events: [],
            alive: true,
            leaseRemainingMilliseconds: 10,
            sessions: 0,
            startedAt: 1
        )
        let other = FleetMember(
            name: "0-b",
            control: [],
            events: [],
            alive: false,
            leaseRemainingMilliseconds: -5,
            sessions: 7,
            startedAt: 1
        )
        fleet.members = [stale, other]
        let both = fleet.instances(startedAt: 42)
        #expect(both.map(\.name) == ["0-b", "a"])
        #expect(both.map(\.sessions) == [7, 2], "this instance counts its own sessions, not the store's last count")
    }
}
