import FlowCore
import Foundation
import Testing

private func settingsFlow() -> ScriptedFlow {
    ScriptedFlow(
        "Settings",
        root: .split("settings"),
        navigate: { step, navigator in
            switch step.name {
            case "settingsAreRequired":
                let list = navigator.makeScreen("SettingsList")
                navigator.setMaster(list)
                return .one(.contribute(list))
            case "about", "unauthorized":
                let detail = navigator.makeScreen(step.name)
                navigator.setDetail(detail)
                return .one(.contribute(detail))
            case "settingsAreComplete":
                return .end(forwardToParentFlowWithStep: Step("settingsAreClosed"))
            default:
                return .none
            }
        },
        adapt: { step, _ in
            step.name == "about"
                ? .ask(
                    GuardQuestion(
                        guardName: "permissions",
                        subject: "about",
                        step: step,
                        ifAllowed: step,
                        ifRefused: .unauthorized
                    )
                )
                : .step(step)
        }
    )
}

private func appFlow() -> ScriptedFlow {
    ScriptedFlow("App") { step, navigator in
        switch step.name {
        case "home":
            let list = navigator.makeScreen("MoviesList")
            navigator.push(list)
            return .one(.contribute(list))
        case "settingsAreRequired":
            let made = navigator.makeFlow(settingsFlow())
            navigator.present(made.root)
            return .one(
                .contribute(made, stepper: .composite([.one(Step("settingsAreRequired")), .named("settings")]))
            )
        case "settingsAreClosed":
            navigator.dismissPresented()
            return .none
        default:
            return .none
        }
    }
}

private var registry: FlowRegistry {
    var registry = FlowRegistry()
    registry.register("App") { _ in appFlow() }
    registry.register("Settings") { _ in settingsFlow() }
    return registry
}

@Suite struct SnapshotTests {
    @Test func aRestoredSessionBehavesExactlyLikeTheOriginal() throws {
        var original = FlowEngine(registry: registry)
        _ = try original.startSession("s", root: appFlow(), stepper: .composite([.one(.home), .named("app")]))
        _ = try original.report(.visible, of: [PresentableID(1), PresentableID(2)], by: .main, session: "s")
        _ = original.receive(Step("settingsAreRequired"), from: .stepper("app"), session: "s")
        // A guard question is pending and a step waits behind it: both must survive the snapshot.
        let asked = original.receive(Step("about"), from: .stepper("settings"), session: "s")
        _ = original.receive(Step("settingsAreComplete"), from: .stepper("settings"), session: "s")
        let question = try #require(asked.effects.questions.first)

        let data = try JSONEncoder().encode(try original.snapshot(of: "s"))
        var restored = FlowEngine(registry: registry)
        try restored.restore(try JSONDecoder().decode(SessionSnapshot.self, from: data))
        #expect(restored.inspect("s") == original.inspect("s"))

        // The same events from here on give the same effects, on and on.
        let continuations: [(inout FlowEngine) throws -> Effects] = [
            // p2 was covered by the settings flow's screen: hidden by flowd already, its step is dropped.
            { try $0.answerGuard(question.id, allowed: false, session: "s") },
            { $0.receive(Step("movieIsPicked"), from: .presentable(PresentableID(2)), session: "s").effects },
            { try $0.report(.visible, of: [PresentableID(2)], by: .main, session: "s") },
            { $0.receive(Step("movieIsPicked"), from: .presentable(PresentableID(2)), session: "s").effects },
            { $0.receive(Step("settingsAreRequired"), from: .stepper("app"), session: "s").effects },
            { $0.deepLink([Step("about")], session: "s").effects },
        ]
        for next in continuations {
            let expected = try next(&original)
            let actual = try next(&restored)
            #expect(actual == expected)
            #expect(!expected.isEmpty)
        }
        #expect(restored.inspect("s") == original.inspect("s"))
        #expect(original.inspect("s")?.flows.map(\.name) == ["App", "Settings"])
    }

    @Test func restoringNeedsEveryFlowInTheRegistryAndARunningSessionIsNotReplaced() throws {
        var original = FlowEngine(registry: registry)
        _ = try original.startSession("s", root: appFlow(), stepper: .composite([.one(.home), .named("app")]))
        _ = original.receive(Step("settingsAreRequired"), from: .stepper("app"), session: "s")
        let snapshot = try original.snapshot(of: "s")

        var partial = FlowRegistry()
        partial.register("App") { _ in appFlow() }
        var missing = FlowEngine(registry: partial)
        let error = #expect(throws: FlowCoreError.self) { try missing.restore(snapshot) }
        #expect(error?.code == .unknownFlow)
        #expect(error?.message.contains("Settings") == true)
        #expect(!missing.hasSession("s"))

        let exists = #expect(throws: FlowCoreError.self) { try original.restore(snapshot) }
        #expect(exists?.code == .sessionExists)
    }

    /// The engine keeps each session in a box of its own (an idle session then costs what it holds): a copy of an
    /// engine is still a value, each copy's sessions changing apart from the other's.
    @Test func aCopyOfAnEngineGoesOnApartFromTheOriginal() throws {
        var original = FlowEngine(registry: registry)
        _ = try original.startSession("s", root: appFlow(), stepper: .composite([.one(.home), .named("app")]))
        let before = try original.snapshot(of: "s")
        var copy = original
        _ = copy.receive(Step("settingsAreRequired"), from: .stepper("app"), session: "s")
        #expect(try original.snapshot(of: "s") == before)
        #expect(try copy.snapshot(of: "s") != before)
        _ = original.endSession("s")
        #expect(copy.hasSession("s") && !original.hasSession("s"))
    }

    /// A guard's question kept out of line (a session holds a reference to it) is written as it was in line: its
    /// members under `pendingGuard`, read back equal, with the same hash; a session with none writes no
    /// `pendingGuard`.
    @Test func aPendingGuardIsWrittenAsItsMembers() throws {
        var engine = FlowEngine(registry: registry)
        _ = try engine.startSession("s", root: appFlow(), stepper: .composite([.one(.home), .named("app")]))
        let idle = try JSONEncoder().encode(try engine.snapshot(of: "s"))
        let idleState = try JSONSerialization.jsonObject(with: idle) as? [String: Any]
        #expect((idleState?["state"] as? [String: Any])?["pendingGuard"] == nil)

        _ = engine.receive(Step("settingsAreRequired"), from: .stepper("app"), session: "s")
        let asked = engine.receive(Step("about"), from: .stepper("settings"), session: "s")
        let question = try #require(asked.effects.questions.first)
        let snapshot = try engine.snapshot(of: "s")
        let data = try JSONEncoder().encode(snapshot)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let pending = try #require((json?["state"] as? [String: Any])?["pendingGuard"] as? [String: Any])
        #expect(Set(pending.keys) == ["id", "delivery", "question", "deadline"])
        #expect((pending["id"] as? NSNumber)?.uint64Value == question.id)
        #expect((pending["question"] as? [String: Any])?["guardName"] as? String == question.question.guardName)

        let decoded = try JSONDecoder().decode(SessionSnapshot.self, from: data)
        #expect(decoded == snapshot)
        #expect(decoded.hashValue == snapshot.hashValue)
        #expect(decoded != (try JSONDecoder().decode(SessionSnapshot.self, from: idle)))
    }

    @Test func aSnapshotOfAnotherVersionIsRefusedClearly() throws {
        var engine = FlowEngine(registry: registry)
        _ = try engine.startSession("s", root: appFlow())
        var json =
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(try engine.snapshot(of: "s"))) as? [String: Any]
        json?["version"] = 99
        let data = try JSONSerialization.data(withJSONObject: json ?? [:])
        let snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: data)
        var other = FlowEngine(registry: registry)
        let error = #expect(throws: FlowCoreError.self) { try other.restore(snapshot) }
        #expect(error?.code == .invalidSnapshot)
    }

    @Test func endingASessionDropsWhatWaitsAndEndsEveryFlow() throws {
        var engine = FlowEngine(registry: registry)
        _ = try engine.startSession("s", root: appFlow(), stepper: .composite([.one(.home), .named("app")]))
        _ = engine.receive(Step("settingsAreRequired"), from: .stepper("app"), session: "s")
        let asked = engine.receive(Step("about"), from: .stepper("settings"), session: "s")
        let ended = engine.endSession("s")
        #expect(ended.endedFlows == [FlowID(2), FlowID(1)])
        #expect(ended.fate(of: asked.token) == .dropped(.sessionEnded))
        #expect(ended.events.last?.kind == .sessionEnded)
        #expect(!engine.hasSession("s"))
        #expect(engine.endSession("s").isEmpty)
    }
}
