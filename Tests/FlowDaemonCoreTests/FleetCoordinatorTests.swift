import FlowCore
import FlowDaemonCore
import FlowStore
import FlowWire
import Testing

/// An instance of a fleet's coordinator, without sockets or a database: a HELLO for a session it does not own waits
/// for the store, then goes on here or is redirected; an inspector's does not claim a session; sessions lost to
/// another instance are forgotten and their peers told.
@Suite struct FleetCoordinatorTests {
    let other = FleetMember(
        name: "b",
        control: ["tcp://b:5860"],
        events: ["tcp://b:5861"],
        alive: true,
        leaseRemainingMilliseconds: 4000,
        sessions: 1,
        startedAt: 0
    )

    func fleetBus(configure: (inout DaemonConfiguration) -> Void = { _ in }) throws -> Bus {
        var bus = try Bus(durable: true, configure: configure)
        bus.coordinator.joinFleet(
            as: FleetInstance(name: "a", control: ["tcp://a:5860"], events: ["tcp://a:5861"], leaseMilliseconds: 5000)
        )
        return bus
    }

    @Test func aHelloForASessionServedElsewhereIsRedirected() throws {
        var bus = try fleetBus()
        let hello = Hello(role: .stepper, id: "kiosk/app", name: "app", session: "kiosk")
        #expect(bus.send(.hello(hello), from: "kiosk/app").isEmpty, "answered before the store said where")
        let asked = bus.coordinator.finishTurn(sending: []).sessionsToLocate
        #expect(asked.map(\.session) == ["kiosk"] && asked.first?.claiming == true)
        let out = bus.coordinator.located("kiosk", .success(.elsewhere(other)))
        let replies = bus.replies(out, to: "kiosk/app")
        guard case .redirect(let redirect)? = replies.first?.message else {
            Issue.record("no REDIRECT: \(replies)")
            return
        }
        #expect(
            redirect == Redirect(session: "kiosk", instance: "b", control: ["tcp://b:5860"], events: ["tcp://b:5861"])
        )
        #expect(replies.first?.header.correlation == 1)
        #expect(!bus.coordinator.sessions.contains("kiosk"))
    }

    @Test func aSessionTheStoreGivesThisInstanceIsCreatedHere() throws {
        var bus = try fleetBus()
        _ = bus.send(.hello(Hello(role: .stepper, id: "kiosk/app", name: "app", session: "kiosk")), from: "kiosk/app")
        _ = bus.coordinator.finishTurn(sending: []).sessionsToLocate
        let out = bus.coordinator.located("kiosk", .success(.here(StoredState())))
        guard case .welcome(let welcome)? = bus.replies(out, to: "kiosk/app").first?.message else {
            Issue.record("no WELCOME")
            return
        }
        #expect(welcome.sessionCreated)
        #expect(bus.coordinator.sessions == ["kiosk"])
        // A second peer of the session is served at once: the session is this instance's.
        let second = bus.send(.hello(Hello(role: .presenter, id: "kiosk/main", session: "kiosk")), from: "kiosk/main")
        #expect(second.contains { if case .welcome = $0.message { true } else { false } })
        #expect(bus.coordinator.finishTurn(sending: []).sessionsToLocate.isEmpty)
    }

    /// An inspector asks without claiming; a stepper's HELLO that comes meanwhile is asked about again, claiming,
    /// rather than creating a session the store does not say is this instance's.
    @Test func anInspectorDoesNotClaimAndAStepperAfterItAsksAgain() throws {
        var bus = try fleetBus()
        _ = bus.send(.hello(Hello(role: .inspector, id: "probe", session: "kiosk")), from: "probe")
        #expect(bus.coordinator.finishTurn(sending: []).sessionsToLocate.map(\.claiming) == [false])
        _ = bus.send(.hello(Hello(role: .stepper, id: "kiosk/app", name: "app", session: "kiosk")), from: "kiosk/app")
        let out = bus.coordinator.located("kiosk", .success(.nowhere))
        #expect(bus.replies(out, to: "probe").contains { if case .welcome = $0.message { true } else { false } })
        #expect(bus.replies(out, to: "kiosk/app").isEmpty)
        #expect(!bus.coordinator.sessions.contains("kiosk"))
        let again = bus.coordinator.finishTurn(sending: []).sessionsToLocate
        #expect(again.map(\.session) == ["kiosk"] && again.first?.claiming == true)
    }

    /// A peer cannot make an instance claim sessions in the store beyond the bounds: a creation is counted before the
    /// store is asked (once: a HELLO the store lets go on is not counted again).
    @Test func sessionCreationIsBoundedBeforeTheStoreIsAsked() throws {
        var bus = try fleetBus { $0.sessionsPerPeerPerMinute = 2 }
        for session in ["k1", "k2"] {
            let hello = Hello(role: .stepper, id: "flooder", name: "app", session: session)
            #expect(bus.send(.hello(hello), from: "flooder", session: session).isEmpty)
        }
        let third = bus.send(
            .hello(Hello(role: .stepper, id: "flooder", name: "app", session: "k3")),
            from: "flooder",
            session: "k3"
        )
        guard case .error(let refusal)? = third.first?.message else {
            Issue.record("the third creation was not refused: \(third)")
            return
        }
        #expect(refusal.code == "sessionLimit")
        #expect(bus.coordinator.finishTurn(sending: []).sessionsToLocate.map(\.session) == ["k1", "k2"])
        let out = bus.coordinator.located("k1", .success(.here(StoredState())))
        #expect(bus.replies(out, to: "flooder").contains { if case .welcome = $0.message { true } else { false } })
    }

    @Test func sessionsLostToAnotherInstanceAreForgottenAndTheirPeersTold() throws {
        var bus = try fleetBus()
        _ = bus.send(.hello(Hello(role: .stepper, id: "kiosk/app", name: "app", session: "kiosk")), from: "kiosk/app")
        _ = bus.coordinator.finishTurn(sending: []).sessionsToLocate
        _ = bus.coordinator.located("kiosk", .success(.here(StoredState())))
        _ = bus.coordinator.takeStoreGroup()
        let out = bus.coordinator.forgetLost(["kiosk"])
        guard case .error(let error)? = bus.replies(out, to: "kiosk/app").first?.message else {
            Issue.record("the peer was not told")
            return
        }
        #expect(error.code == "notRegistered")
        #expect(!bus.coordinator.sessions.contains("kiosk"))
        #expect(bus.coordinator.sessionsLost(owning: []).isEmpty)
        // Nothing of it is written by this instance any more.
        #expect(bus.coordinator.takeStoreGroup().entries.isEmpty)
        // Its peer says HELLO again: the store is asked where the session is served now.
        _ = bus.send(.hello(Hello(role: .stepper, id: "kiosk/app", name: "app", session: "kiosk")), from: "kiosk/app")
        #expect(bus.coordinator.finishTurn(sending: []).sessionsToLocate.map(\.session) == ["kiosk"])
    }
}
