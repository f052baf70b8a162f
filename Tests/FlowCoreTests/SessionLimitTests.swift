import FlowCore
import Testing

/// A session cannot grow without bound, whatever its flows do: screens, flows, contributions and session data
/// stop at their limits, say so, and the session goes on.
@Suite struct SessionLimitTests {
    private func options(maxPresentables: Int = 10, maxSessionDataBytes: Int = 1024) -> EngineOptions {
        var options = EngineOptions()
        options.maxPresentables = maxPresentables
        options.maxSessionDataBytes = maxSessionDataBytes
        return options
    }

    @Test func aFlowThatPushesOnEveryStepStopsAtTheLimitAndCanStillPop() throws {
        let pushing = ScriptedFlow.pushingOnEveryStep()
        var engine = FlowEngine(options: options())
        _ = try engine.startSession("s", root: pushing, stepper: .named("app"))
        var reached: [LimitReached] = []
        var rejected: [String] = []
        for _ in 0..<30 {
            let result = engine.receive(.one, from: .stepper("app"), session: "s")
            reached += result.effects.limitsReached
            for event in result.effects.events {
                if case .commandRejected(_, let operation, let reason) = event.kind {
                    rejected.append("\(operation): \(reason)")
                }
            }
            // The step itself is navigated: the flow ran; only the command that did not fit was left out.
            #expect(result.effects.fate(of: result.token)?.isAccepted == true)
        }
        let inspection = try #require(engine.inspect("s"))
        #expect(inspection.screens.nodes.count == 10)
        #expect(reached.count == 21)
        #expect(reached.allSatisfy { $0.limit == "presentables" && $0.session == "s" })
        #expect(rejected.first?.contains("maxPresentables") == true)
        #expect(rejected.first?.hasPrefix("push") == true)
        // Contributions to screens never placed are bounded as well.
        #expect(inspection.contributions.count <= 10)

        // Popping makes room again.
        _ = engine.receive(Step("back"), from: .stepper("app"), session: "s")
        let again = engine.receive(.one, from: .stepper("app"), session: "s")
        #expect(again.effects.limitsReached.isEmpty)
        #expect(engine.inspect("s")?.screens.nodes.count == 10)
    }

    @Test func tabsThatWouldPassTheLimitAreLeftOutWhole() throws {
        let tabbing = ScriptedFlow("Tabs", root: .tabs("Tabs")) { step, navigator in
            let tabs = (0..<20).map { navigator.makeScreen("Tab\($0)") }
            navigator.setTabs(tabs)
            return .none
        }
        var engine = FlowEngine(options: options())
        _ = try engine.startSession("s", root: tabbing, stepper: .named("app"))
        let result = engine.receive(.one, from: .stepper("app"), session: "s")
        #expect(result.effects.limitsReached.map(\.limit) == ["presentables"])
        #expect(engine.inspect("s")?.screens.nodes.count == 1)
    }

    @Test func childFlowsStopAtTheLimit() throws {
        let spawning = ScriptedFlow("Spawn") { step, navigator in
            let child = navigator.makeFlow(ScriptedFlow("Child"))
            return .one(.contribute(child, stepper: .named("child")))
        }
        var engine = FlowEngine(options: options())
        _ = try engine.startSession("s", root: spawning, stepper: .named("app"))
        var reached: [String] = []
        for _ in 0..<15 {
            reached += engine.receive(.one, from: .stepper("app"), session: "s").effects.limitsReached.map(\.limit)
        }
        #expect(engine.inspect("s")?.flows.count == 10)
        #expect(reached == Array(repeating: "flows", count: 6))
    }

    @Test func sessionDataIsRefusedBeyondItsLimitAndNothingChanges() throws {
        var engine = FlowEngine(options: options(maxSessionDataBytes: 1024))
        _ = try engine.startSession("s", root: ScriptedFlow("Root"), stepper: .named("app"))
        let big = JSONValue.string(String(repeating: "x", count: 600))
        try engine.setSessionData("first", big, session: "s")
        #expect(throws: FlowCoreError.self) { try engine.setSessionData("second", big, session: "s") }
        do {
            try engine.setSessionData("second", big, session: "s")
        } catch {
            #expect(error.code == .limitReached)
            #expect(error.message.contains("maxSessionDataBytes"))
        }
        // Replacing a value with one of the same size, removing, and replaying (no check) still work.
        try engine.setSessionData("first", .string(String(repeating: "y", count: 600)), session: "s")
        try engine.setSessionData("first", nil, session: "s")
        try engine.setSessionData("second", big, session: "s")
        try engine.setSessionData("third", big, session: "s", checkingLimit: false)
    }
}
