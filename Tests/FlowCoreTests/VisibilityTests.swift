import FlowCore
import Testing

/// A flow with a list screen whose own steps (`.presentable`) open a detail screen.
private func listFlow(allowNotPresented: Bool = false, allowDismissed: Bool = false) -> ScriptedFlow {
    ScriptedFlow("List") { step, navigator in
        switch step.name {
        case "home":
            let list = navigator.makeScreen("MoviesList")
            navigator.push(list)
            return .one(
                .contribute(list, allowStepWhenNotPresented: allowNotPresented, allowStepWhenDismissed: allowDismissed)
            )
        case "movieIsPicked":
            let detail = navigator.makeScreen("MovieDetail", step.parameters)
            navigator.push(detail)
            return .one(.contribute(detail))
        case "back":
            navigator.pop()
            return .none
        default:
            return .none
        }
    }
}

private let list = PresentableID(2)
private let picked = Step("movieIsPicked", ["withId": 23452])

@Suite struct VisibilityTests {
    @Test func aScreensStepsAreDroppedWhileHiddenAndAcceptedOnceVisible() throws {
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: listFlow(), stepper: .default))

        let unknown = journal.record(engine.receive(picked, from: .presentable(list), session: "s"))
        journal.record(try engine.report(.hidden, of: [list], by: .main, session: "s"))
        let hidden = journal.record(engine.receive(picked, from: .presentable(list), session: "s"))
        journal.record(try engine.report(.visible, of: [list], by: .main, session: "s"))
        let visible = journal.record(engine.receive(picked, from: .presentable(list), session: "s"))

        #expect(journal.all.fate(of: unknown) == .dropped(.notVisible(list, .unknown)))
        #expect(journal.all.fate(of: hidden) == .dropped(.notVisible(list, .hidden)))
        #expect(journal.all.fate(of: visible) == .accepted(flows: [FlowID(1)]))
        #expect(journal.all.navigatedSteps == ["home", "movieIsPicked"])
    }

    @Test func allowStepWhenNotPresentedTakesStepsFromAHiddenScreen() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: listFlow(allowNotPresented: true), stepper: .default)
        let result = engine.receive(picked, from: .presentable(list), session: "s")
        #expect(result.effects.fate(of: result.token)?.isAccepted == true)
    }

    @Test func aDismissedScreensContributionEndsAndLaterStepsSayWhy() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: listFlow(), stepper: .default)
        _ = try engine.report(.visible, of: [list], by: .main, session: "s")
        // The user pops the list screen in the presenter: it reports the dismissal.
        _ = try engine.report(.dismissed, of: [list], by: .main, session: "s")
        let result = engine.receive(picked, from: .presentable(list), session: "s")
        #expect(result.effects.fate(of: result.token) == .dropped(.dismissed(list)))
        #expect(engine.inspect("s")?.contributions.isEmpty == true)
    }

    @Test func perContributionAllowStepWhenDismissedWinsOverTheFlowLevelFlag() throws {
        // The flow itself allows steps after dismissal; the contribution does not: it ends on dismissal.
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: listFlow(), stepper: .default, allowStepWhenDismissed: true)
        _ = try engine.report(.visible, of: [list], by: .main, session: "s")
        _ = try engine.report(.dismissed, of: [list], by: .main, session: "s")
        let dropped = engine.receive(picked, from: .presentable(list), session: "s")
        #expect(dropped.effects.fate(of: dropped.token) == .dropped(.dismissed(list)))

        // And the other way round: a contribution that allows it keeps its stepper after dismissal, even in a
        // flow that does not.
        var other = FlowEngine()
        _ = try other.startSession(
            "s",
            root: listFlow(allowNotPresented: true, allowDismissed: true),
            stepper: .default
        )
        _ = try other.report(.dismissed, of: [list], by: .main, session: "s")
        let kept = other.receive(picked, from: .presentable(list), session: "s")
        #expect(kept.effects.fate(of: kept.token)?.isAccepted == true)
    }

    @Test func theFlowLevelFlagKeepsAFlowRunningAfterItsRootIsDismissed() throws {
        // RxFlow's testStepIsReceivedAfterDismissed: steps still flow after the root is dismissed.
        let flow = ScriptedFlow("Dismissed", root: .screen("Root"))
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: flow, stepper: .one(.one), allowStepWhenDismissed: true))
        journal.record(try engine.report(.dismissed, of: [PresentableID(1)], by: .main, session: "s"))
        _ = journal.record(engine.deepLink([.two], session: "s"))
        _ = journal.record(engine.deepLink([.three], session: "s"))
        #expect(journal.all.navigatedSteps == ["one", "two", "three"])
        #expect(journal.all.endedFlows.isEmpty)
    }

    /// flowd owns the tree: a screen its commands cover is hidden at once (its steps stop passing before the
    /// presenter says anything); one they uncover waits for the presenter's report.
    @Test func aScreenCoveredByANavigationIsHiddenAtOnceAndAnUncoveredOneWaitsForItsReport() throws {
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: listFlow(), stepper: .default))
        journal.record(try engine.report(.visible, of: [list], by: .main, session: "s"))
        _ = journal.record(engine.receive(picked, from: .presentable(list), session: "s"))
        // The detail was pushed over the list: the list is hidden in the same navigation.
        #expect(engine.inspect("s")?.visibility(of: list) == .hidden)
        #expect(journal.all.events.contains { $0.kind == .visibilityChanged(presentable: list, visibility: .hidden) })
        let covered = engine.receive(picked, from: .presentable(list), session: "s")
        #expect(covered.effects.fate(of: covered.token) == .dropped(.notVisible(list, .hidden)))
        // Popped back: the list stays hidden until the presenter reports it visible.
        let detail = PresentableID(3)
        journal.record(try engine.report(.visible, of: [detail], by: .main, session: "s"))
        _ = journal.record(engine.deepLink([Step("back")], session: "s"))
        #expect(engine.inspect("s")?.visibility(of: list) == .hidden)
        journal.record(try engine.report(.visible, of: [list], by: .main, session: "s"))
        let shown = engine.receive(picked, from: .presentable(list), session: "s")
        #expect(shown.effects.fate(of: shown.token)?.isAccepted == true)
    }

    @Test func aPoppedScreenIsDismissedByTheEnginesOwnCommand() throws {
        var engine = FlowEngine()
        var journal = Journal()
        journal.record(try engine.startSession("s", root: listFlow(), stepper: .default))
        journal.record(try engine.report(.visible, of: [list], by: .main, session: "s"))
        _ = journal.record(engine.receive(picked, from: .presentable(list), session: "s"))
        let detail = PresentableID(3)
        journal.record(try engine.report(.visible, of: [detail], by: .main, session: "s"))
        _ = journal.record(engine.deepLink([Step("back")], session: "s"))
        #expect(journal.all.commandLog.suffix(1) == ["main:pop"])
        let late = engine.receive(picked, from: .presentable(detail), session: "s")
        #expect(late.effects.fate(of: late.token) == .dropped(.dismissed(detail)))
    }

    @Test func reportsAboutUnknownOrForeignPresentablesAreRefusedAndChangeNothing() throws {
        let flow = ScriptedFlow("App") { step, navigator in
            let screen = navigator.makeScreen("Cluster")
            navigator.setWindowRoot(screen, presenter: "cluster")
            return .one(.contribute(screen))
        }
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: flow, stepper: .default)
        let before = engine.inspect("s")
        let cluster = PresentableID(2)
        // Tried: an id never allocated, a screen of another presenter, an unknown session; each refused whole.
        let unknown = #expect(throws: FlowCoreError.self) {
            try engine.report(.visible, of: [PresentableID(1), PresentableID(99)], by: .main, session: "s")
        }
        #expect(unknown?.code == .unknownPresentable)
        let foreign = #expect(throws: FlowCoreError.self) {
            try engine.report(.dismissed, of: [cluster], by: .main, session: "s")
        }
        #expect(foreign?.code == .foreignPresentable)
        let noSession = #expect(throws: FlowCoreError.self) {
            try engine.report(.visible, of: [cluster], by: "cluster", session: "nope")
        }
        #expect(noSession?.code == .unknownSession)
        #expect(engine.inspect("s") == before)
        _ = try engine.report(.visible, of: [cluster], by: "cluster", session: "s")
        #expect(engine.inspect("s")?.visibility(of: cluster) == .visible)
    }

    @Test func aLostPresentersScreensAreHiddenNotDismissedAndComeBackWhenReported() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: listFlow(), stepper: .default)
        _ = try engine.report(.visible, of: [PresentableID(1), list], by: .main, session: "s")
        let lost = engine.presenterLost(.main, session: "s")
        #expect(lost.events.count == 2)
        let paused = engine.receive(picked, from: .presentable(list), session: "s")
        #expect(paused.effects.fate(of: paused.token) == .dropped(.notVisible(list, .hidden)))
        #expect(engine.screens(of: "s")?[list] != nil)
        #expect(engine.inspect("s")?.contributions.count == 1)

        _ = try engine.report(.visible, of: [list], by: .main, session: "s")
        let resumed = engine.receive(picked, from: .presentable(list), session: "s")
        #expect(resumed.effects.fate(of: resumed.token)?.isAccepted == true)
    }
}
