import FlowCore
import Testing

/// RxFlow's FlowsTests, ported: readiness waits for every child flow, and is a state, not an edge.
@Suite struct ReadinessTests {
    @Test func readinessIsLatchedAndWaitsForChildFlows() throws {
        let child = ScriptedFlow("Child")
        let root = ScriptedFlow("Root") { step, navigator in
            guard step == .one else { return .none }
            let made = navigator.makeFlow(child)
            navigator.push(made.root)
            return .one(.contribute(made, stepper: .named("child")))
        }
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: root, stepper: .one(.one)))
        // The root navigated its first step but its child has not: not ready yet.
        #expect(engine.inspect("s")?.isReady == false)
        _ = journal.record(engine.receive(.two, from: .stepper("child"), session: "s"))
        let ready = journal.all.events.compactMap { if case .flowReady(let flow) = $0.kind { flow } else { nil } }
        #expect(ready == [FlowID(2), FlowID(1)])
        // Latched: later steps do not signal again, and a late look still sees it.
        _ = journal.record(engine.receive(.three, from: .stepper("child"), session: "s"))
        #expect(journal.all.events.filter { if case .flowReady = $0.kind { true } else { false } }.count == 2)
        #expect(engine.inspect("s")?.isReady == true)
    }

    @Test(arguments: [1, 2, 3, 5])
    func aFlowIsReadyOnlyOnceEveryChildFlowItStartedIsReady(children: Int) throws {
        let root = ScriptedFlow("Root", root: .tabs("root")) { step, navigator in
            guard step == .one else { return .none }
            let made = (0..<children).map { navigator.makeFlow(ScriptedFlow("Child\($0)")) }
            navigator.setTabs(made.map(\.root))
            return .multiple(made.enumerated().map { .contribute($0.element, stepper: .named("child\($0.offset)")) })
        }
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: root, stepper: .one(.one))
        for index in 0..<children {
            #expect(engine.inspect("s")?.isReady == false)
            _ = engine.receive(.two, from: .stepper("child\(index)"), session: "s")
        }
        #expect(engine.inspect("s")?.isReady == true)
        #expect(engine.inspect("s")?.flows.allSatisfy(\.isReady) == true)
    }

    @Test func aChildThatEndsBeforeItIsReadyNoLongerHoldsItsParentBack() throws {
        let root = ScriptedFlow("Root") { step, navigator in
            guard step == .one else { return .none }
            let made = navigator.makeFlow(ScriptedFlow("Child"))
            navigator.present(made.root)
            return .one(.contribute(made, stepper: .named("child")))
        }
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: root, stepper: .one(.one))
        #expect(engine.inspect("s")?.isReady == false)
        _ = try engine.report(.dismissed, of: [PresentableID(2)], by: .main, session: "s")
        #expect(engine.inspect("s")?.isReady == true)
    }

    @Test func contributingAScreenAloneUsesTheScreensOwnStepper() {
        // RxFlow's FlowContributorTests: .contribute(withNext:) is the presentable and its own stepper.
        let contributor = FlowContributor.contribute(PresentableID(7))
        guard case .contribute(let presentable, let stepper, let notPresented, let dismissed) = contributor else {
            Issue.record("not a contribution")
            return
        }
        #expect(presentable == .screen(PresentableID(7)))
        #expect(stepper == .presentable)
        #expect(!notPresented && !dismissed)
    }
}
