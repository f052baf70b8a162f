import FlowCore
import Testing

/// Parent starts a child flow (in a modal) on `one`; the child starts a grandchild on `one`.
private func family(restoresParent: Bool = false, childEnds: Step = .two) -> ScriptedFlow {
    let grandchild = ScriptedFlow("Grandchild")
    let child = ScriptedFlow("Child", restoresParentOnEnd: restoresParent) { step, navigator in
        switch step {
        case .one:
            let made = navigator.makeFlow(grandchild)
            navigator.push(made.root)
            return .one(.contribute(made, stepper: .named("grandchild")))
        case childEnds:
            return .end(forwardToParentFlowWithStep: .three)
        default:
            return .none
        }
    }
    return ScriptedFlow("Parent") { step, navigator in
        switch step {
        case .one:
            let made = navigator.makeFlow(child)
            navigator.present(made.root)
            return .one(.contribute(made, stepper: .composite([.one(.one), .named("child")])))
        case .three:
            return .none
        default:
            return .none
        }
    }
}

@Suite struct FlowEndTests {
    @Test func endForwardsToTheParentThenTearsDownTheChildAndItsDescendants() throws {
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: family(), stepper: .one(.one)))
        #expect(journal.all.startedFlows.map(\.name) == ["Parent", "Child", "Grandchild"])

        _ = journal.record(engine.receive(.two, from: .stepper("child"), session: "s"))
        #expect(journal.all.navigations.suffix(2) == ["Child:two", "Parent:three"])
        #expect(journal.all.endedFlows == [FlowID(3), FlowID(2)])
        // The parent navigates the forwarded step after the child ended.
        let kinds = journal.all.events.map(\.kind)
        let ended = kinds.firstIndex { if case .flowEnded(FlowID(2), _, _) = $0 { true } else { false } }
        let parentThree = kinds.firstIndex {
            if case .didNavigate(FlowID(1), _, .three, _) = $0 { true } else { false }
        }
        #expect(ended! < parentThree!)

        let late = engine.receive(.one, from: .stepper("grandchild"), session: "s")
        #expect(late.effects.fate(of: late.token) == .dropped(.flowEnded(FlowID(3))))
        #expect(engine.inspect("s")?.flows.map(\.name) == ["Parent"])
    }

    @Test func endLeavesTheChildsScreensUnlessItRestoresTheParent() throws {
        var plain = FlowEngine()
        _ = try plain.startSession("s", root: family(), stepper: .one(.one))
        let kept = plain.receive(.two, from: .stepper("child"), session: "s").effects
        #expect(kept.batches.isEmpty)
        #expect(plain.screens(of: "s")?[PresentableID(1)]?.presented == PresentableID(2))

        var restoring = FlowEngine()
        _ = try restoring.startSession("s", root: family(restoresParent: true), stepper: .one(.one))
        let restored = restoring.receive(.two, from: .stepper("child"), session: "s").effects
        #expect(restored.commandLog == ["main:dismiss"])
        #expect(restoring.screens(of: "s")?[PresentableID(1)]?.presented == nil)
    }

    @Test func endAtTheRootDropsTheStepAndTheRootKeepsRunning() throws {
        let root = ScriptedFlow("Root") { step, navigator in
            switch step {
            case .one:
                let made = navigator.makeFlow(ScriptedFlow("Child"))
                navigator.push(made.root)
                return .one(.contribute(made))
            case .two:
                return .end(forwardToParentFlowWithStep: .three)
            default:
                return .none
            }
        }
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: root, stepper: .composite([.one(.one), .named("app")])))
        _ = journal.record(engine.receive(.two, from: .stepper("app"), session: "s"))
        #expect(
            journal.all.events.contains {
                if case .forwardDroppedAtRoot(FlowID(1), .three) = $0.kind { true } else { false }
            }
        )
        #expect(journal.all.endedFlows == [FlowID(2)])
        let after = engine.receive(.multiple, from: .stepper("app"), session: "s")
        #expect(after.effects.navigations == ["Root:multiple"])
    }

    @Test func dismissingAFlowsRootEndsItAndItsDescendants() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: family(), stepper: .one(.one))
        // The child's root (the modal p2) is dismissed by its presenter.
        let effects = try engine.report(.dismissed, of: [PresentableID(2)], by: .main, session: "s")
        #expect(effects.endedFlows == [FlowID(3), FlowID(2)])
        #expect(engine.inspect("s")?.flows.count == 1)
        let late = engine.receive(.two, from: .stepper("child"), session: "s")
        #expect(late.effects.fate(of: late.token) == .dropped(.flowEnded(FlowID(2))))
    }

    @Test func forwardToParentAtTheRootIsReportedNotLost() throws {
        let root = ScriptedFlow("Root") { _, _ in .one(.forwardToParentFlow(.two)) }
        var engine = FlowEngine()
        let effects = try engine.startSession("s", root: root, stepper: .one(.one))
        #expect(effects.events.contains { if case .forwardDroppedAtRoot = $0.kind { true } else { false } })
    }
}
