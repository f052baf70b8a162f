import FlowCore
import Testing

/// RxFlow's FlowCoordinatorTests, ported: what navigates, in which order.
@Suite struct CoordinationTests {
    @Test func aOneStepperDrivesTheFirstNavigateBeforeStartReturns() throws {
        var engine = FlowEngine()
        let effects = try engine.startSession("s", root: ScriptedFlow("App"), stepper: .one(.one))
        #expect(effects.navigations == ["App:one"])
        #expect(effects.commandLog == ["main:setWindowRoot"])
    }

    @Test func aContributionThatAllowsStepsWhenNotPresentedTakesItsInitialStep() throws {
        let flow = ScriptedFlow("App") { step, navigator in
            guard step == .one else { return .none }
            let screen = navigator.makeScreen("NotDisplayed")
            return .one(.contribute(screen, stepper: .one(.two), allowStepWhenNotPresented: true))
        }
        var engine = FlowEngine()
        let effects = try engine.startSession("s", root: flow, stepper: .one(.one))
        #expect(effects.navigatedSteps == ["one", "two"])
    }

    @Test func aContributionOnAScreenNotReportedVisibleDropsItsInitialStepWithTheReason() throws {
        let flow = ScriptedFlow("App") { step, navigator in
            guard step == .one else { return .none }
            let screen = navigator.makeScreen("NotDisplayed")
            navigator.push(screen)
            return .one(.contribute(screen, stepper: .one(.two)))
        }
        var engine = FlowEngine()
        let effects = try engine.startSession("s", root: flow, stepper: .one(.one))
        #expect(effects.navigatedSteps == ["one"])
        let dropped = effects.fates.first { !$0.fate.isAccepted }
        #expect(dropped?.fate == .dropped(.notVisible(PresentableID(2), .unknown)))
    }

    @Test func multipleRunsForwardToCurrentFlowAfterTheNewContributionsInitialStep() throws {
        // RxFlow's testMultipleSideEffectsPerformed: [.multiple, .two, .one].
        let flow = ScriptedFlow("App") { step, navigator in
            guard step == .multiple else { return .none }
            return .multiple([
                .contribute(navigator.root, stepper: .one(.two)),
                .forwardToCurrentFlow(.one),
            ])
        }
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: flow, stepper: .named("app")))
        journal.record(try engine.report(.visible, of: [PresentableID(1)], session: "s"))
        _ = journal.record(engine.receive(.multiple, from: .stepper("app"), session: "s"))
        #expect(journal.all.navigatedSteps == ["multiple", "two", "one"])
    }

    @Test func adaptRunsBeforeNavigateForTheFlowsOwnStepper() throws {
        let flow = ScriptedFlow("App", adapt: { step, _ in step == .one ? .step(.unauthorized) : .step(step) })
        var engine = FlowEngine()
        let effects = try engine.startSession("s", root: flow, stepper: .one(.one))
        #expect(effects.navigatedSteps == ["unauthorized"])
    }

    @Test func adaptAppliesToContributedSteppers() throws {
        let flow = ScriptedFlow(
            "App",
            navigate: { step, navigator in
                guard step == .two else { return .none }
                let screen = navigator.makeScreen("NotDisplayed")
                return .one(.contribute(screen, stepper: .one(.one), allowStepWhenNotPresented: true))
            },
            adapt: { step, _ in step == .one ? .step(.unauthorized) : .step(step) }
        )
        var engine = FlowEngine()
        let effects = try engine.startSession("s", root: flow, stepper: .one(.two))
        #expect(effects.navigatedSteps == ["two", "unauthorized"])
    }

    @Test func adaptingToNoStepDropsItWithTheReason() throws {
        let flow = ScriptedFlow("App", adapt: { _, _ in .none })
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: flow, stepper: .named("app")))
        let token = journal.record(engine.receive(.one, from: .stepper("app"), session: "s"))
        #expect(journal.all.navigatedSteps.isEmpty)
        #expect(journal.all.fate(of: token) == .dropped(.adaptedAway(FlowID(1))))
    }

    @Test func compositeStepperEmitsInitialStepsInOrderThenWhatItsSteppersSend() throws {
        let flow = ScriptedFlow("App")
        var engine = FlowEngine()
        var journal = Journal()
        let stepper = Stepper.composite([.one(.one), .one(.two), .named("auth"), .one(.three)])
        journal.record(try engine.startSession("s", root: flow, stepper: stepper))
        _ = journal.record(engine.receive(.multiple, from: .stepper("auth"), session: "s"))
        #expect(journal.all.navigatedSteps == ["one", "two", "three", "multiple"])
    }

    @Test func stepsProducedWhileAStepIsProcessedAreQueuedNotHandledReentrantly() throws {
        // The child forwards to its parent and ends; the parent's navigate for the forwarded step starts only
        // after the child's navigate has finished (its didNavigate comes first).
        let child = ScriptedFlow("Child") { step, _ in
            step == .one ? .multiple([.forwardToParentFlow(.two), .forwardToCurrentFlow(.three)]) : .none
        }
        let parent = ScriptedFlow("Parent") { step, navigator in
            guard step == .one else { return .none }
            let made = navigator.makeFlow(child)
            navigator.push(made.root)
            return .one(.contribute(made, stepper: .one(.one)))
        }
        var engine = FlowEngine()
        let effects = try engine.startSession("s", root: parent, stepper: .one(.one))
        #expect(effects.navigations == ["Parent:one", "Child:one", "Parent:two", "Child:three"])
        let kinds = effects.events.map { "\($0.kind)".prefix(12) }
        // willNavigate / didNavigate strictly alternate: no navigate starts inside another.
        let navigation = kinds.filter { $0.hasPrefix("willNavigate") || $0.hasPrefix("didNavigate") }
        #expect(navigation.count == 8)
        for (index, kind) in navigation.enumerated() {
            #expect(kind.hasPrefix(index.isMultiple(of: 2) ? "willNavigate" : "didNavigate"))
        }
    }

    @Test func everyStepGetsAFateNothingIsDroppedSilently() throws {
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: ScriptedFlow("App"), stepper: .named("app")))
        let accepted = journal.record(engine.receive(.one, from: .stepper("app"), session: "s"))
        let unbound = journal.record(engine.receive(.one, from: .stepper("nobody"), session: "s"))
        let none = journal.record(engine.receive(.none, from: .stepper("app"), session: "s"))
        let noSession = journal.record(engine.receive(.one, from: .stepper("app"), session: "elsewhere"))
        #expect(journal.all.fate(of: accepted) == .accepted(flows: [FlowID(1)]))
        #expect(journal.all.fate(of: unbound) == .dropped(.unboundStepper))
        #expect(journal.all.fate(of: none) == .dropped(.noneStep))
        #expect(noSession == StepToken(0))
        #expect(journal.all.fates.contains { $0.session == "elsewhere" && $0.fate == .dropped(.unknownSession) })
    }

    @Test func sessionsAreIndependent() throws {
        let flow = ScriptedFlow("App") { step, navigator in
            let screen = navigator.makeScreen(step.name)
            navigator.push(screen)
            return .none
        }
        var engine = FlowEngine()
        _ = try engine.startSession("a", root: flow, stepper: .named("app"))
        _ = try engine.startSession("b", root: flow, stepper: .named("app"))
        let a = engine.receive(.one, from: .stepper("app"), session: "a").effects
        #expect(a.batches.allSatisfy { $0.session == "a" })
        #expect(engine.screens(of: "a")?[PresentableID(1)]?.items.count == 1)
        #expect(engine.screens(of: "b")?[PresentableID(1)]?.items.isEmpty == true)
        let error = #expect(throws: FlowCoreError.self) { try engine.startSession("a", root: flow) }
        #expect(error?.code == .sessionExists)
        #expect(engine.sessionIDs == ["a", "b"])
    }
}

/// A navigation's commands go out as one batch per presenter, presenters in the order of their first command and
/// each one's commands in the order given, however they interleave.
@Suite struct PresenterBatchTests {
    @Test func aNavigationSpeakingToSeveralPresentersSendsEachItsOwnBatchInOrder() throws {
        let flow = ScriptedFlow("App") { step, navigator in
            guard step.name == "split" else { return .none }
            let first = navigator.makeScreen("First")
            let cluster = navigator.makeScreen("Cluster")
            let second = navigator.makeScreen("Second")
            let rear = navigator.makeScreen("Rear")
            let third = navigator.makeScreen("Third")
            navigator.push(first)
            navigator.setWindowRoot(cluster, presenter: "cluster")
            navigator.push(second)
            navigator.setWindowRoot(rear, presenter: "rear")
            navigator.push(third)
            return .none
        }
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: flow, stepper: .named("app"))
        let split = engine.receive(Step("split"), from: .stepper("app"), session: "s")
        let batches = split.effects.batches.map { batch in
            "\(batch.presenter): "
                + batch.commands.map { "\($0.operation) \($0.placed.map(\.name))" }.joined(separator: ", ")
        }
        #expect(
            batches == [
                #"main: push ["First"], push ["Second"], push ["Third"]"#,
                #"cluster: setWindowRoot ["Cluster"]"#,
                #"rear: setWindowRoot ["Rear"]"#,
            ]
        )
        // Again, each window root replaced: the same batches.
        let again = engine.receive(Step("split"), from: .stepper("app"), session: "s")
        #expect(again.effects.batches.map(\.presenter) == ["main", "cluster", "rear"])
    }
}
