import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing

@testable import FlowDaemonCore

/// What each role may do under a granted key, and what no peer may do whatever its key: speak under another
/// connection's id, answer or hear another session's guard questions, create a session by looking at it, or take
/// a reserved name.
@Suite struct RoleTests {
    /// A coordinator with CURVE: `kiosk/app` a stepper, `kiosk/main` a presenter, `kiosk/guard` a guard and `reader`
    /// a reading inspector, all granted session kiosk; `admin` granted nothing (it may do everything).
    private func curveBus(flows: String? = nil) throws -> Bus {
        let grants = try [
            "kiosk/app": ClientGrant(parsing: "kiosk:stepper"),
            "kiosk/main": ClientGrant(parsing: "kiosk:presenter"),
            "kiosk/guard": ClientGrant(parsing: "kiosk:guard"),
            "reader": ClientGrant(parsing: "kiosk:inspector"),
        ]
        let keys = Dictionary(uniqueKeysWithValues: (Array(grants.keys) + ["admin"]).map { ($0, "unused") })
        return try Bus(flows: flows) {
            $0.curve = CurveSettings(secretKey: "unused", authorizedKeys: keys, grants: grants)
        }
    }

    @Test func aConnectionSpeaksOnlyUnderItsKeysId() throws {
        var bus = try curveBus()
        #expect(error(bus.hello(.stepper, "kiosk/app", name: "app")) == nil)
        // Tried: the admin's routing id on the stepper's key (as a connection that took it over would be).
        let hijacked = bus.send(.query(Query(what: "sessions")), from: "admin", session: nil, key: "kiosk/app")
        #expect(error(hijacked)?.code == "idNotAllowed")
        let stepped = bus.send(
            .step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)),
            from: "kiosk/app",
            key: "reader"
        )
        #expect(error(stepped)?.code == "idNotAllowed")
        #expect(bus.coordinator.counters.stepsIn == 0)
    }

    @Test func underAGrantEachRoleSendsOnlyWhatItsRoleSends() throws {
        var bus = try curveBus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        _ = bus.hello(.presenter, "kiosk/main", name: "main")
        _ = bus.hello(.guard, "kiosk/guard", name: "permissions")
        // Tried: a stepper's query and snapshot request, a guard's step, link and data, a presenter's step that
        // names no screen, a stepper's and a guard's visibility report, a stepper's guard answer (FlowWire's
        // MessageRule table).
        let cases: [(String, Message, String)] = [
            ("kiosk/app", .query(Query(what: "tree")), "queries are for inspectors"),
            ("kiosk/app", .query(Query(what: "endSession")), "endSession by a stepper"),
            ("kiosk/app", .snapshotRequest(SnapshotRequest(presenter: "main")), "a stepper's snapshot"),
            ("kiosk/guard", .step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), "a guard's step"),
            ("kiosk/guard", .deepLink(DeepLinkMessage(path: [Step("about")], sequence: 1)), "a guard's deep link"),
            ("kiosk/guard", .sessionData(SessionDataMessage(key: "permissions", value: .array([]))), "guard data"),
            ("kiosk/main", .step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), "no presentable"),
            ("kiosk/app", .visibility(VisibilityReport(visibility: .visible, presentables: [])), "a stepper's report"),
            ("kiosk/guard", .visibility(VisibilityReport(visibility: .visible, presentables: [])), "a guard's report"),
            ("kiosk/app", .guardAnswer(GuardAnswer(question: 1, allowed: true)), "a stepper's answer"),
        ]
        for (peer, message, what) in cases {
            let refused = error(bus.send(message, from: peer))
            #expect(refused?.code == "notAllowed", "\(what): \(String(describing: refused))")
        }
        #expect(bus.engineHasSession("kiosk"))
        #expect(bus.coordinator.counters.stepsIn == 0)
        // What the roles do still works.
        #expect(
            fate(bus.send(.step(StepMessage(step: Step("onboardingIsRequired"), sequence: 1)), from: "kiosk/app"))
                != nil
        )
        #expect(error(bus.send(.snapshotRequest(SnapshotRequest(presenter: "main")), from: "kiosk/main")) == nil)
    }

    @Test func aQueryWhoseHeaderNamesAnotherSessionIsRefused() throws {
        var bus = try Bus()
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        _ = bus.hello(.stepper, "other/app", name: "app", session: "other")
        let refused = bus.send(.query(Query(what: "endSession")), from: "kiosk/app", session: "other")
        #expect(error(refused)?.code == "wrongSession")
        #expect(bus.engineHasSession("kiosk") && bus.engineHasSession("other"))
    }

    @Test func guardQuestionsGoToAGuardOfTheirSessionAndOnlyItAnswers() throws {
        var bus = try Bus(flows: guardedAboutFlows)
        // Two guards of the same name, in two sessions; "a/guard" sorts first.
        _ = bus.hello(.guard, "a/guard", name: "permissions", session: "a")
        _ = bus.hello(.guard, "b/guard", name: "permissions", session: "b")
        _ = bus.hello(.stepper, "b/app", name: "app", session: "b")
        _ = bus.send(.step(StepMessage(step: Step("about"), sequence: 1)), from: "b/app", session: "b")
        let asked = bus.sent.compactMap { outgoing -> String? in
            guard case .toPeer(let peer, let frames) = outgoing,
                case .guardQuestion = try? bus.codec.decode(frames).message
            else { return nil }
            return peer
        }
        #expect(asked == ["b/guard"])
        // The guard of a may not answer b's question.
        let question = bus.lastQuestion(to: "b/guard")
        let foreign = bus.send(
            .guardAnswer(GuardAnswer(question: question, allowed: true)),
            from: "a/guard",
            session: "b"
        )
        #expect(error(foreign)?.code == "notAllowed")
        #expect(error(foreign)?.message.contains("guard of session a") == true)
    }

    @Test func inspectorsAndGuardsCreateNoSessionAndReservedNamesAreRefused() throws {
        var bus = try Bus()
        // Tried: an inspector and a guard naming a session that does not exist, the session '-', a presenter named
        // with a slash.
        #expect(error(bus.hello(.inspector, "watcher", session: "nowhere")) == nil)
        #expect(error(bus.hello(.guard, "nowhere/guard", name: "permissions", session: "nowhere")) == nil)
        #expect(!bus.engineHasSession("nowhere"))
        #expect(error(bus.hello(.stepper, "dash/app", name: "app", session: "-"))?.message.contains("reserved") == true)
        #expect(error(bus.hello(.presenter, "kiosk/left", name: "left/main"))?.code == "malformedBody")
        // A presenter without a name is named after the end of its id.
        #expect(error(bus.hello(.presenter, "kiosk/left", name: nil)) == nil)
        #expect(bus.coordinator.peers["kiosk/left"]?.name == "left")
        #expect(!bus.engineHasSession("-"))
        // A stepper creates its session as ever.
        #expect(error(bus.hello(.stepper, "nowhere/app", name: "app", session: "nowhere")) == nil)
        #expect(bus.engineHasSession("nowhere"))
    }
}

extension Bus {
    func engineHasSession(_ session: String) -> Bool {
        coordinator.engine.hasSession(SessionID(session))
    }

    /// The id of the last guard question sent to `peer`.
    func lastQuestion(to peer: String) -> UInt64 {
        sent.compactMap { outgoing -> UInt64? in
            guard case .toPeer(let target, let frames) = outgoing, target == peer,
                case .guardQuestion(let question) = try? codec.decode(frames).message
            else { return nil }
            return question.question
        }.last ?? 0
    }
}

/// With CURVE, after a control connection ended, what is sent under a registered peer's id waits until the peer's
/// own key speaks there: the connection under the id may be another key's that sent nothing (a passive intruder
/// that took the id of a peer whose connection closed would otherwise get its fates and guard questions).
@Suite struct UnverifiedPeerTests {
    @Test func afterAConnectionEndsFatesAndQuestionsWaitForThePeersOwnKey() throws {
        let keys = Dictionary(uniqueKeysWithValues: ["b/app", "b/guard"].map { ($0, "unused") })
        var bus = try Bus(flows: guardedAboutFlows) {
            $0.curve = CurveSettings(secretKey: "unused", authorizedKeys: keys)
        }
        _ = bus.hello(.guard, "b/guard", name: "permissions", session: "b")
        _ = bus.hello(.stepper, "b/app", name: "app", session: "b")
        // A control connection ends (flowd cannot tell whose): every peer must be heard again.
        bus.coordinator.controlConnectionEnded()
        // The stepper's step: it speaks, so it is heard; the guard's question waits for the guard.
        _ = bus.send(.step(StepMessage(step: Step("about"), sequence: 1)), from: "b/app", session: "b")
        #expect(bus.lastQuestion(to: "b/guard") == 0)
        // The stepper's connection ends too; the guard speaks (a heartbeat): its question comes now.
        bus.coordinator.controlConnectionEnded()
        _ = bus.send(.heartbeat(Heartbeat()), from: "b/guard", session: "b")
        let question = bus.lastQuestion(to: "b/guard")
        #expect(question != 0)
        // Its answer decides the step; the fate waits for the stepper's own key.
        let answered = bus.send(
            .guardAnswer(GuardAnswer(question: question, allowed: true)),
            from: "b/guard",
            session: "b"
        )
        #expect(error(answered) == nil)
        #expect(fate(bus.replies(bus.sent, to: "b/app")) == nil)
        let heard = bus.send(.heartbeat(Heartbeat()), from: "b/app", session: "b")
        #expect(fate(heard)?.accepted == true)
        // Without CURVE nothing waits.
        var plain = try Bus(flows: guardedAboutFlows)
        _ = plain.hello(.stepper, "b/app", name: "app", session: "b")
        plain.coordinator.controlConnectionEnded()
        #expect(plain.coordinator.unverifiedCount == 0)
    }
}

extension UnverifiedPeerTests {
    @Test func whatWaitsForAnUnverifiedPeerIsBoundedAndCounted() throws {
        var bus = try Bus {
            $0.curve = CurveSettings(secretKey: "unused", authorizedKeys: ["kiosk/app": "unused"])
            $0.heartbeatInterval = .milliseconds(10)
            $0.heartbeatTimeout = .seconds(3600)
        }
        _ = bus.hello(.stepper, "kiosk/app", name: "app")
        bus.coordinator.controlConnectionEnded()
        let before = bus.sent.count
        // The peer stays silent: a heartbeat a tick waits for it, up to the limit; the rest are dropped and counted.
        for _ in 0..<(PeerRegistry.heldLimit + 5) {
            bus.now += 10
            bus.sent += bus.coordinator.tick(now: bus.now)
        }
        #expect(bus.replies(Array(bus.sent.dropFirst(before)), to: "kiosk/app").isEmpty)
        #expect(bus.coordinator.peers.held["kiosk/app"]?.count == PeerRegistry.heldLimit)
        #expect(bus.coordinator.counters.boundsHit["heldReplies"] == 5)
        // Heard again: everything that waited comes, in order, before the answer.
        let heard = bus.send(.heartbeat(Heartbeat()), from: "kiosk/app")
        #expect(heard.count == PeerRegistry.heldLimit)
        #expect(bus.coordinator.peers.held.isEmpty)
    }
}

extension Coordinator {
    var unverifiedCount: Int { peers.unverified.count }
}
