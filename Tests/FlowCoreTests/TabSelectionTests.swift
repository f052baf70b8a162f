import FlowCore
import Testing

/// The tab a user selected belongs to the user: a presenter that reports a screen visible, however deep in a tab,
/// selects that tab in flowd's screen tree, so that a snapshot (a presenter that comes back, a restart) shows it.
@Suite struct TabSelectionTests {
    /// Two tabs, each a flow with a stack; `three` pushes a screen onto the second one's stack.
    private func tabbedApp() -> ScriptedFlow {
        let leaf = { @Sendable (name: String) in
            ScriptedFlow(name) { step, navigator in
                if step == .three, name == "Second" {
                    navigator.push(navigator.makeScreen("Deep"))
                }
                return .none
            }
        }
        return ScriptedFlow("Root", root: .tabs("root")) { step, navigator in
            guard step == .one else { return .none }
            let first = navigator.makeFlow(leaf("First"))
            let second = navigator.makeFlow(leaf("Second"))
            navigator.setTabs([first.root, second.root])
            return .multiple([.contribute(first, stepper: .one(.two)), .contribute(second, stepper: .one(.two))])
        }
    }

    @Test func aScreenReportedVisibleInsideATabSelectsThatTab() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: tabbedApp(), stepper: .one(.one))
        _ = engine.deepLink([.three], session: "s")
        let screens = try #require(engine.screens(of: "s"))
        let tabs = try #require(screens.nodes.values.first { $0.description.name == "root" })
        let deep = try #require(screens.nodes.values.first { $0.description.name == "Deep" })
        #expect(tabs.selectedTab == 0)
        // Only the screen on top is reported (a presenter may report no more): its tab is the selected one.
        _ = try engine.report(.visible, of: [deep.id], session: "s")
        #expect(engine.screens(of: "s")?[tabs.id]?.selectedTab == 1)
        // The snapshot a presenter gets back says so.
        let snapshot = try #require(engine.screens(of: "s")?.rebuildCommands(for: tabs.presenter))
        let selected = snapshot.compactMap { command -> Int? in
            if case .setTabs(_, _, let index) = command { index } else { nil }
        }
        #expect(selected == [1])
    }

    /// The tab a report selects covers the others: a screen the other tab showed is hidden at once.
    @Test func aTabSelectedByAReportHidesWhatTheOtherTabShowed() throws {
        var engine = FlowEngine()
        _ = try engine.startSession("s", root: tabbedApp(), stepper: .one(.one))
        let screens = try #require(engine.screens(of: "s"))
        let tabs = try #require(screens.nodes.values.first { $0.description.name == "root" })
        let first = tabs.items[0]
        _ = try engine.report(.visible, of: [first], session: "s")
        #expect(engine.inspect("s")?.visibility(of: first) == .visible)
        _ = engine.deepLink([.three], session: "s")
        let deep = try #require(engine.screens(of: "s")?.nodes.values.first { $0.description.name == "Deep" })
        _ = try engine.report(.visible, of: [deep.id], session: "s")
        #expect(engine.inspect("s")?.visibility(of: first) == .hidden)
    }
}
