import FlowCore
import Testing

private let guarded = guardedFlow(ifRefused: .unauthorized)

@Suite struct GuardTests {
    @Test func aGuardThatAllowsLetsTheStepThrough() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: guarded, stepper: .named("app"))
        let asked = engine.receive(Step("about"), from: .stepper("app"), session: "s")
        #expect(asked.effects.questions.map(\.question.subject) == ["about"])
        #expect(asked.effects.fate(of: asked.token) == nil)
        let question = try #require(asked.effects.questions.first)
        let answered = try engine.answerGuard(question.id, allowed: true, session: "s")
        #expect(answered.navigatedSteps == ["about"])
        #expect(answered.fate(of: asked.token)?.isAccepted == true)
    }

    @Test func aGuardThatRefusesRedirects() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: guarded, stepper: .named("app"))
        let asked = engine.receive(Step("about"), from: .stepper("app"), session: "s")
        let answered = try engine.answerGuard(asked.effects.questions[0].id, allowed: false, session: "s")
        #expect(answered.navigatedSteps == ["unauthorized"])
    }

    @Test func aGuardThatDoesNotAnswerInTimeCountsAsRefused() throws {
        var options = EngineOptions()
        options.guardTimeout = .milliseconds(500)
        var engine = FlowEngine(options: options)
        _ = try engine.startSession("s", root: guarded, stepper: .named("app"))
        let asked = engine.receive(Step("about"), from: .stepper("app"), session: "s")
        #expect(asked.effects.questions.first?.deadline == EngineTime(milliseconds: 500))
        let timedOut = engine.advanceTime(to: EngineTime(milliseconds: 500))
        #expect(timedOut.navigatedSteps == ["unauthorized"])
        #expect(
            timedOut.events.contains {
                if case .guardAnswered(_, false, true) = $0.kind { true } else { false }
            }
        )
        // A late answer finds nothing waiting.
        let late = #expect(throws: FlowCoreError.self) {
            try engine.answerGuard(asked.effects.questions[0].id, allowed: true, session: "s")
        }
        #expect(late?.code == .unknownQuestion)
    }

    @Test func stepsWaitInOrderBehindAGuardWhileOtherSessionsGoOn() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("a", root: guarded, stepper: .named("app"))
        _ = try engine.startSession("b", root: guarded, stepper: .named("app"))
        let asked = engine.receive(Step("about"), from: .stepper("app"), session: "a")
        let queued = engine.receive(Step("login"), from: .stepper("app"), session: "a")
        #expect(queued.effects.navigatedSteps.isEmpty)
        #expect(engine.inspect("a")?.queuedWork == 1)

        let other = engine.receive(Step("login"), from: .stepper("app"), session: "b")
        #expect(other.effects.navigatedSteps == ["login"])

        let answered = try engine.answerGuard(asked.effects.questions[0].id, allowed: true, session: "a")
        #expect(answered.navigatedSteps == ["about", "login"])
    }
}
