import Foundation
import Testing

@testable import FlowCore

/// What keeps a long-running engine correct: its clock, its limits, and state that does not grow.
@Suite struct RobustnessTests {
    private let guarded = guardedFlow(ifRefused: .none)

    @Test func deadlinesCountFromTheTimeOfTheEventNotFromTheSessionsStart() throws {
        var options = EngineOptions()
        options.guardTimeout = .seconds(2)
        options.deepLinkWait = .seconds(10)
        var engine = FlowEngine(options: options)
        _ = try engine.startSession("s", root: guarded, stepper: .named("app"))
        _ = engine.advanceTime(to: EngineTime(milliseconds: 60_000))
        let asked = engine.receive(Step("about"), from: .stepper("app"), session: "s")
        #expect(asked.effects.questions.first?.deadline == EngineTime(milliseconds: 62_000))
        #expect(engine.advanceTime(to: EngineTime(milliseconds: 61_000)).isEmpty)

        _ = try engine.startSession("late", root: guarded, stepper: .named("app"))
        _ = engine.advanceTime(to: EngineTime(milliseconds: 100_000))
        let link = engine.deepLink([.one], session: "late")
        #expect(engine.advanceTime(to: EngineTime(milliseconds: 109_999)).fate(of: link.token) == nil)
        #expect(
            engine.advanceTime(to: EngineTime(milliseconds: 110_000)).fate(of: link.token) == .dropped(.deepLinkExpired)
        )
    }

    @Test func aForwardLoopIsCutAndTheEngineAnswers() throws {
        var options = EngineOptions()
        options.maxStepsPerEvent = 100
        var engine = FlowEngine(options: options)
        let looping = ScriptedFlow("Loop") { step, _ in .one(.forwardToCurrentFlow(step)) }
        _ = try engine.startSession("s", root: looping, stepper: .named("app"))
        let result = engine.receive(.one, from: .stepper("app"), session: "s")
        #expect(result.effects.navigations.count == 100)
        #expect(result.effects.fates.last?.fate == .dropped(.tooManySteps))
        #expect(engine.inspect("s")?.queuedWork == 0)
        // The session still works afterwards.
        let other = engine.receive(.two, from: .stepper("app"), session: "s")
        #expect(other.effects.navigations.first == "Loop:two")
    }

    @Test func queuesAreBoundedForStepsAndDeepLinks() throws {
        var options = EngineOptions()
        options.maxQueuedSteps = 3
        var engine = FlowEngine(options: options)
        _ = try engine.startSession("s", root: guarded, stepper: .composite([.one(.home), .named("app")]))
        _ = engine.receive(Step("about"), from: .stepper("app"), session: "s")  // The guard holds the queue.
        var fates: [StepFate?] = []
        for _ in 0..<4 {
            let result = engine.receive(.one, from: .stepper("app"), session: "s")
            fates.append(result.effects.fate(of: result.token))
        }
        #expect(fates == [nil, nil, nil, .dropped(.queueFull)])
        let link = engine.deepLink([.two], session: "s")
        #expect(link.effects.fate(of: link.token) == .dropped(.queueFull))
    }

    @Test func repeatedContributionsDoNotPileUp() throws {
        let refreshing = ScriptedFlow("Refresh") { step, navigator in
            .multiple([
                .contribute(navigator.root, stepper: .one(.none)),
                .contribute(navigator.root, stepper: .presentable),
            ])
        }
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: refreshing, stepper: .named("app"))
        for _ in 0..<50 {
            _ = engine.receive(.one, from: .stepper("app"), session: "s")
        }
        // One-step steppers are done once they start; the same contribution twice is kept once.
        #expect(engine.inspect("s")?.contributions.count == 1)
    }

    /// The session lets its oldest ended bindings go a batch at a time; one beyond `endedMemory` explains no step even
    /// while it is still kept (the engine keeps up to twice as many between batches).
    @Test func anEndedBindingBeyondTheMemoryExplainsNoStep() throws {
        var options = EngineOptions()
        options.endedMemory = 4
        var engine = FlowEngine(options: options)
        let pushing = ScriptedFlow.pushingOnEveryStep(allowStepWhenNotPresented: true) { step in
            .named("s\(step.parameters["n"]?.intValue ?? 0)")
        }
        _ = try engine.startSession("s", root: pushing, stepper: .composite([.one(.home), .named("app")]))
        // Six bindings end, one after another: s1 first, s6 last.
        for n in 1...6 {
            _ = engine.receive(Step("open", ["n": .int(n)]), from: .stepper("app"), session: "s")
            _ = engine.receive(Step("back"), from: .stepper("app"), session: "s")
        }
        let forgotten = engine.receive(Step("open", ["n": 9]), from: .stepper("s1"), session: "s")
        #expect(forgotten.effects.fate(of: forgotten.token) == .dropped(.unboundStepper))
        let remembered = engine.receive(Step("open", ["n": 9]), from: .stepper("s6"), session: "s")
        guard case .dropped(.dismissed)? = remembered.effects.fate(of: remembered.token) else {
            Issue.record(
                "s6's ended binding should explain its step: \(String(describing: remembered.effects.fate(of: remembered.token)))"
            )
            return
        }
    }

    @Test func rememberedEndedBindingsAreBounded() throws {
        var options = EngineOptions()
        options.endedMemory = 4
        var engine = FlowEngine(options: options)
        let pushing = ScriptedFlow.pushingOnEveryStep(allowStepWhenNotPresented: true)
        _ = try engine.startSession("s", root: pushing, stepper: .composite([.one(.home), .named("app")]))
        for _ in 0..<20 {
            _ = engine.receive(.one, from: .stepper("app"), session: "s")
            _ = engine.receive(Step("back"), from: .stepper("app"), session: "s")
        }
        let snapshot = try JSONEncoder().encode(try engine.snapshot(of: "s"))
        let json = try #require(try JSONSerialization.jsonObject(with: snapshot) as? [String: Any])
        let state = try #require(json["state"] as? [String: Any])
        #expect((state["ended"] as? [Any])?.count == 4)
        // In memory, between trims: never more than twice the memory (20 bindings ended).
        let held = try #require(engine.endedBindingsHeld(in: "s"))
        #expect((4...8).contains(held), "\(held) ended bindings held")
        #expect(engine.inspect("s")?.contributions.count == 1)
    }

    @Test func snapshotsEncodeIdentifierMapsAsObjectsAndTheSameStateAsTheSameBytes() throws {
        func run() throws -> Data {
            var engine = FlowEngine()
            _ = try engine.startSession("s", root: guarded, stepper: .composite([.one(.home), .named("app")]))
            for index in 0..<10 {
                _ = engine.receive(Step("screen\(index)"), from: .stepper("app"), session: "s")
            }
            _ = try engine.report(.visible, of: (1...8).map { PresentableID($0) }, session: "s")
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return try encoder.encode(try engine.snapshot(of: "s"))
        }
        let first = try run()
        #expect(try run() == first)
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.contains(#""visibility":{"1":"visible","#))
        #expect(try JSONDecoder().decode(SessionSnapshot.self, from: first).session == "s")
    }

    @Test func aRestoredSessionAsksItsWaitingGuardAgain() throws {
        var engine = FlowEngine(registry: registry(for: guarded))
        _ = try engine.startSession("s", root: guarded, stepper: .named("app"))
        let asked = engine.receive(Step("about"), from: .stepper("app"), session: "s")
        let snapshot = try engine.snapshot(of: "s")

        var restarted = FlowEngine(registry: registry(for: guarded), now: EngineTime(milliseconds: 5_000))
        let effects = try restarted.restore(snapshot)
        let question = try #require(effects.questions.first)
        #expect(question.id == asked.effects.questions.first?.id)
        #expect(question.deadline == EngineTime(milliseconds: 7_000))
        let answered = try restarted.answerGuard(question.id, allowed: true, session: "s")
        #expect(answered.fate(of: asked.token)?.isAccepted == true)
    }

    @Test func endingASessionNeverMakesAFlowReadyOnTheWayOut() throws {
        let root = ScriptedFlow("Root") { step, navigator in
            let made = navigator.makeFlow(ScriptedFlow("Child"))
            navigator.push(made.root)
            return .one(.contribute(made, stepper: .named("child")))
        }
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: root, stepper: .one(.one))
        let ended = engine.endSession("s")
        #expect(!ended.events.contains { if case .flowReady = $0.kind { true } else { false } })
    }

    @Test func aFirstStepAdaptedAwayStillMakesTheFlowReady() throws {
        let refusing = ScriptedFlow("Refusing", adapt: { _, _ in .none })
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: refusing, stepper: .one(.one))
        #expect(engine.inspect("s")?.isReady == true)
    }

    @Test func aDeepLinkReleasedByReadinessGoesBehindTheForwardsOfTheStepThatMadeItReady() throws {
        let root = ScriptedFlow("Root") { step, _ in
            step == .one ? .one(.forwardToCurrentFlow(.two)) : .none
        }
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: root, stepper: .named("app"))
        var journal = Journal()
        _ = journal.record(engine.deepLink([.three], session: "s"))
        _ = journal.record(engine.receive(.one, from: .stepper("app"), session: "s"))
        #expect(journal.all.navigatedSteps == ["one", "two", "three"])
    }

    @Test func deepLinkPathsDoNotInterleave() throws {
        let root = ScriptedFlow("Root")
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: root, stepper: .named("app"))
        var journal = Journal()
        _ = journal.record(engine.deepLink([Step("a1"), Step("a2")], session: "s"))
        _ = journal.record(engine.deepLink([Step("b1"), Step("b2")], session: "s"))
        _ = journal.record(engine.receive(.one, from: .stepper("app"), session: "s"))
        #expect(journal.all.navigatedSteps == ["one", "a1", "a2", "b1", "b2"])
    }

    @Test func aContributionKeptAfterDismissalSaysItsScreenIsGoneAndTheFlowStepperGoesOn() throws {
        let flow = ScriptedFlow("Flow") { step, navigator in
            guard step == .one else { return .none }
            let screen = navigator.makeScreen("Kept")
            navigator.push(screen)
            return .one(.contribute(screen, allowStepWhenDismissed: true))
        }
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: flow, stepper: .composite([.one(.one), .named("app")]))
        _ = try engine.report(.dismissed, of: [PresentableID(2)], session: "s")
        let screenStep = engine.receive(.two, from: .presentable(PresentableID(2)), session: "s")
        #expect(screenStep.effects.fate(of: screenStep.token) == .dropped(.notVisible(PresentableID(2), .dismissed)))
        let flowStep = engine.receive(.three, from: .stepper("app"), session: "s")
        #expect(flowStep.effects.fate(of: flowStep.token)?.isAccepted == true)
    }

    private func registry(for flow: ScriptedFlow) -> FlowRegistry {
        var registry = FlowRegistry()
        registry.register(flow.name) { _ in flow }
        return registry
    }
}
