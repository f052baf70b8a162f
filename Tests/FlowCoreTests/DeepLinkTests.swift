import FlowCore
import Testing

/// Records `three` in every flow; the root starts two children on `one`. The children declare `two` and `three`,
/// the root `one` and `three` (for which it does nothing).
private func broadcastTree() -> ScriptedFlow {
    let leaf = { @Sendable (name: String) in
        ScriptedFlow(name, declaring: ["two", "three"]) { step, navigator in
            if step == .three {
                let screen = navigator.makeScreen("Reached")
                navigator.push(screen)
            }
            return .none
        }
    }
    return ScriptedFlow("Root", root: .tabs("root"), declaring: ["one", "three"]) { step, navigator in
        switch step {
        case .one:
            let first = navigator.makeFlow(leaf("First"))
            let second = navigator.makeFlow(leaf("Second"))
            navigator.setTabs([first.root, second.root])
            return .multiple([.contribute(first, stepper: .one(.two)), .contribute(second, stepper: .one(.two))])
        case .three:
            return .none
        default:
            return .none
        }
    }
}

/// App > Dashboard > Settings > About, each opened by one step of a path.
private func nestedApp() -> ScriptedFlow {
    let settings = ScriptedFlow("Settings", root: .split("settings")) { step, navigator in
        guard step.name == "aboutIsRequired" else { return .none }
        let about = navigator.makeScreen("About")
        navigator.setDetail(about)
        return .one(.contribute(about))
    }
    let dashboard = ScriptedFlow("Dashboard", root: .tabs("dashboard")) { step, navigator in
        guard step.name == "settingsAreRequired" else { return .none }
        let made = navigator.makeFlow(settings)
        navigator.present(made.root)
        return .one(.contribute(made, stepper: .one(Step("settingsAreShown"))))
    }
    return ScriptedFlow("App") { step, navigator in
        guard step.name == "dashboardIsRequired" else { return .none }
        let made = navigator.makeFlow(dashboard)
        navigator.push(made.root)
        return .one(.contribute(made, stepper: .one(Step("dashboardIsShown"))))
    }
}

@Suite struct DeepLinkTests {
    @Test func aDeepLinkReachesTheRootAndEveryChildParentsFirst() throws {
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: broadcastTree(), stepper: .one(.one)))
        let token = journal.record(engine.deepLink([.three], session: "s"))
        #expect(
            journal.all.navigations.filter { $0.hasSuffix(":three") } == ["Root:three", "First:three", "Second:three"]
        )
        // Accepted by the flows that declare it: the root too, though it does nothing with it.
        #expect(journal.all.fate(of: token) == .accepted(flows: [FlowID(1), FlowID(2), FlowID(3)]))
    }

    /// One rule for steps and deep links: accepted by the flows that declare the step, `unhandled` when it reached
    /// only flows that do not.
    @Test func aStepOrDeepLinkThatNoFlowDeclaresIsDroppedAsUnhandled() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: broadcastTree(), stepper: .one(.one))
        let result = engine.deepLink([Step("nowhere")], session: "s")
        #expect(result.effects.fate(of: result.token) == .dropped(.unhandled(step: "nowhere")))
        // A step: accepted by the flow that declares it, unhandled when it does not (RxFlow's navigate returning
        // .none is a step the flow declares and does nothing with).
        var named = FlowEngine()
        _ = try named.startSession(
            "s",
            root: ScriptedFlow("Only", declaring: ["known"]),
            stepper: .named("app")
        )
        let known = named.receive(Step("known"), from: .stepper("app"), session: "s")
        #expect(known.effects.fate(of: known.token) == .accepted(flows: [FlowID(1)]))
        let unknown = named.receive(Step("introIsComplete"), from: .stepper("app"), session: "s")
        #expect(unknown.effects.fate(of: unknown.token) == .dropped(.unhandled(step: "introIsComplete")))
    }

    @Test func adaptAppliesToDeepLinks() throws {
        let flow = ScriptedFlow(
            "App",
            adapt: { step, context in
                step.name == "about" && context.sessionData["user"] == nil ? .step(.unauthorized) : .step(step)
            }
        )
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: flow, stepper: .one(.one))
        #expect(engine.deepLink([Step("about")], session: "s").effects.navigatedSteps == ["unauthorized"])
        try engine.setSessionData("user", "ann", session: "s")
        #expect(engine.deepLink([Step("about")], session: "s").effects.navigatedSteps == ["about"])
    }

    @Test func aDeepLinkPathOpensNestedFlowsInOneGo() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: nestedApp(), stepper: .one(.home))
        let path = [Step("dashboardIsRequired"), Step("settingsAreRequired"), Step("aboutIsRequired")]
        let result = engine.deepLink(path, session: "s")
        #expect(
            result.effects.navigations == [
                "App:dashboardIsRequired", "Dashboard:dashboardIsShown",
                "App:settingsAreRequired", "Dashboard:settingsAreRequired", "Settings:settingsAreShown",
                "App:aboutIsRequired", "Dashboard:aboutIsRequired", "Settings:aboutIsRequired",
            ]
        )
        #expect(result.effects.fate(of: result.token) == .accepted(flows: [FlowID(1), FlowID(2), FlowID(3)]))
        #expect(engine.inspect("s")?.flows.map(\.name) == ["App", "Dashboard", "Settings"])
    }

    @Test func aDeepLinkWaitsForTheSessionToBeReadyInsteadOfBeingLost() throws {
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: nestedApp(), stepper: .named("app")))
        #expect(engine.inspect("s")?.isReady == false)
        let token = journal.record(engine.deepLink([Step("settingsAreRequired")], session: "s"))
        #expect(journal.all.events.contains { $0.kind == .deepLinkWaiting(token: token) })
        #expect(journal.all.fate(of: token) == nil)

        // The first step makes the root (and its new child) ready: the deep link goes in right after (the root, a flow
        // written in code, declares every step).
        _ = journal.record(engine.receive(Step("dashboardIsRequired"), from: .stepper("app"), session: "s"))
        #expect(engine.inspect("s")?.isReady == true)
        #expect(journal.all.fate(of: token) == .accepted(flows: [FlowID(1), FlowID(2)]))
        #expect(engine.inspect("s")?.flows.map(\.name) == ["App", "Dashboard", "Settings"])
    }

    @Test func aWaitingDeepLinkExpiresWithTheReason() throws {
        var options = EngineOptions()
        options.deepLinkWait = .seconds(3)
        var engine = FlowEngine(options: options)
        _ = try engine.startSession("s", root: nestedApp(), stepper: .named("app"))
        let token = engine.deepLink([Step("settingsAreRequired")], session: "s").token
        #expect(engine.nextDeadline == EngineTime(milliseconds: 3000))
        #expect(engine.advanceTime(to: EngineTime(milliseconds: 2999)).isEmpty)
        let expired = engine.advanceTime(to: EngineTime(milliseconds: 3000))
        #expect(expired.fate(of: token) == .dropped(.deepLinkExpired))
        #expect(engine.nextDeadline == nil)
    }

    @Test func waitingDeepLinksAreBounded() throws {
        var options = EngineOptions()
        options.maxWaitingDeepLinks = 2
        var engine = FlowEngine(options: options)
        _ = try engine.startSession("s", root: nestedApp(), stepper: .named("app"))
        _ = engine.deepLink([.one], session: "s")
        _ = engine.deepLink([.two], session: "s")
        let third = engine.deepLink([.three], session: "s")
        #expect(third.effects.fate(of: third.token) == .dropped(.queueFull))
    }
}
