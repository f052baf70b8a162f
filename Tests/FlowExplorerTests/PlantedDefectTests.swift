import FlowBusTesting
import FlowCore
import FlowExplorer
import FlowSpec
import Foundation
import Testing

/// The flow files of `Flows/`, each with defects planted (said in its first lines), explored in process: each
/// defect is reported with the right kind and line, and the path given shows it when replayed.
@Suite struct PlantedDefectTests {
    static let flows = repositoryRoot.appendingPathComponent("Tests/FlowExplorerTests/Flows")

    static func explore(_ name: String, bounds: ExplorationBounds = ExplorationBounds()) throws -> Exploration {
        let spec = try FlowSpecification.load(contentsOf: flows.appendingPathComponent(name).path)
        var explorer = Explorer(spec, bounds: bounds)
        return try explorer.explore()
    }

    /// Each finding as kind, severity and line: what a test compares.
    static func summary(_ exploration: Exploration) -> [String] {
        exploration.findings.map { "\($0.kind.rawValue) \($0.severity.rawValue) \($0.location?.line ?? 0)" }.sorted()
    }

    @Test func aCleanFileReportsNothing() throws {
        let exploration = try Self.explore("clean.yaml")
        #expect(exploration.findings.isEmpty)
        #expect(exploration.isComplete)
        #expect(exploration.stateCount == 3)
    }

    @Test func screensLeftByAnEndedFlowAreOrphanedUI() throws {
        let exploration = try Self.explore("orphaned.yaml")
        #expect(
            Self.summary(exploration) == [
                "orphanedUI error 24", "unboundedStack warning 13", "undismissableModal error 13",
            ]
        )
        let orphan = try #require(exploration.findings.first { $0.kind == .orphanedUI })
        #expect(orphan.message.contains("Bye"))
        // The modal left is Leaver's root: what is missing is its removal when Leaver ends, not an `end`.
        let modal = try #require(exploration.findings.first { $0.kind == .undismissableModal })
        #expect(
            modal.message.contains("Leaver ends, but leaves its root on screen: give Leaver `restoreParentOnEnd: true`")
        )
        #expect(orphan.path == [.step(Step("leave"), from: .stepper("app"))])
        // Replayed: Leaver is gone, its screens are not.
        var driver = try SessionDriver(
            try FlowSpecification.load(contentsOf: Self.flows.appendingPathComponent("orphaned.yaml").path)
        )
        for input in orphan.path {
            _ = try driver.apply(input)
        }
        let inspection = try #require(driver.inspection)
        #expect(!inspection.flows.contains { $0.name == "Leaver" })
        #expect(inspection.screens.nodes.values.contains { $0.description.name == "Bye" })
    }

    @Test func whatNothingReachesAndAStepAlwaysDroppedAreReported() throws {
        let exploration = try Self.explore("unreachable.yaml")
        #expect(
            Self.summary(exploration) == [
                "alwaysDropped error 11", "unboundedStack warning 17", "undismissableModal error 17",
                "unreachableFlow error 31", "unreachableHandler error 28",
            ]
        )
        let dropped = try #require(exploration.findings.first { $0.kind == .alwaysDropped })
        #expect(dropped.message.contains("unhandled"))
        #expect(dropped.path.last == .deepLink(Step("ghost")))
        #expect(exploration.findings.first { $0.kind == .unreachableHandler }?.path == [])
    }

    /// A step only a flow's one-step stepper sends, and its handler ends the flow: not "always dropped" (an
    /// outsider's case); under a bound, what is not seen accepted is a warning at most.
    @Test func aStepSentByAOneStepStepperIsNotAlwaysDropped() throws {
        #expect(
            Self.summary(try Self.explore("onestep.yaml")) == [
                "orphanedUI error 24", "unboundedStack warning 16", "undismissableModal error 16",
            ]
        )
        let shallow = try Self.explore("onestep.yaml", bounds: ExplorationBounds(depth: 1))
        #expect(shallow.findings.filter { $0.kind == .alwaysDropped }.allSatisfy { $0.severity == .warning })
    }

    @Test func aStateWhereNoStepIsTakenIsADeadEnd() throws {
        #expect(Self.summary(try Self.explore("deadend.yaml")) == ["deadEnd error 13"])
        // A modal that covers the only screen taking steps, and nothing dismisses: not a dead end (the user's own
        // gesture can close it), a modal no step dismisses.
        let modal = try Self.explore("modal.yaml")
        #expect(Self.summary(modal) == ["undismissableModal error 17"])
        #expect(
            modal.findings.allSatisfy { $0.path == [.step(Step("warn"), from: .screen(ScreenReference(name: "Home")))] }
        )
    }

    @Test func aStackThatGrowsForEverIsAWarningWithItsCycle() throws {
        let exploration = try Self.explore("stack.yaml")
        #expect(Self.summary(exploration) == ["unboundedStack warning 13"])
        let growth = try #require(exploration.findings.first)
        #expect(growth.cycle == [.step(Step("more"), from: .screen(ScreenReference(name: "Item")))])
        #expect(exploration.failures(strict: false).isEmpty)
        #expect(exploration.failures(strict: true).count == 1)
        // The state space is infinite; the repeated screen is not explored further.
        #expect(exploration.isComplete)
        // A flow that says its stack may grow (`mayGrow: true`) is not warned about, and still explored to an end.
        let text = try String(contentsOf: Self.flows.appendingPathComponent("stack.yaml"), encoding: .utf8)
        let declared = text.replacingOccurrences(
            of: "    deepLinks: none\n",
            with: "    deepLinks: none\n    mayGrow: true\n"
        )
        #expect(declared != text)
        var explorer = Explorer(try FlowSpecification.parse(declared, file: "stack.yaml"))
        let meant = try explorer.explore()
        #expect(meant.findings.isEmpty)
        #expect(meant.isComplete)
        // A handler that pops back before it pushes repeats the screen on the stack once, and no more: tried again,
        // its cycle puts nothing more on screen, so it is no growth (without that second try it was reported).
        let popping = text.replacingOccurrences(of: "      more:\n", with: "      more:\n        - pop: root\n")
        #expect(popping != text)
        var bounded = Explorer(try FlowSpecification.parse(popping, file: "stack.yaml"))
        let once = try bounded.explore()
        #expect(once.findings.isEmpty, "\(once.findings.map(\.message))")
        #expect(once.isComplete)
    }

    /// What the screens and steppers say they send (`sends:`) is what the explorer tries: without it, List could
    /// send `start` and push another List for ever; with it, only `cancel`'s handler is found unreachable (nothing
    /// may send it), and `refresh`, which pops back before it pushes, is no growing stack.
    @Test func whatTheSendersDeclareIsWhatIsTried() throws {
        #expect(Self.summary(try Self.explore("sends.yaml")) == ["unreachableHandler error 31"])
        let text = try String(contentsOf: Self.flows.appendingPathComponent("sends.yaml"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "sends:"))
        let end = try #require(lines.firstIndex(of: "flows:"))
        var undeclared = lines
        undeclared.removeSubrange(start..<end)
        var explorer = Explorer(
            try FlowSpecification.parse(undeclared.joined(separator: "\n"), file: "undeclared.yaml")
        )
        let kinds = Set(try explorer.explore().findings.map(\.kind))
        #expect(kinds.contains(.unboundedStack))
        #expect(!kinds.contains(.unreachableHandler))
    }

    /// A button that does nothing: a screen says it sends a step that no flow it reaches takes. The explorer tries
    /// what the screen says it sends, not only what its flows take, and finds the step always dropped.
    @Test func aStepAScreenSaysItSendsThatNothingTakesIsAlwaysDropped() throws {
        var explorer = Explorer(
            try FlowSpecification.parse(
                """
                version: 1
                session:
                  root: Main
                  stepper: { one: start }
                steps:
                  start: {}
                  settle: {}
                sends:
                  screens:
                    List: [settle]
                flows:
                  Main:
                    root: { stack: main }
                    deepLinks: none
                    on:
                      start:
                        - show: List
                        - start: Other
                          as: window
                          presenter: side
                          stepper: none
                  Other:
                    root: { stack: other }
                    deepLinks: none
                    on:
                      settle: []
                """,
                file: "button.yaml"
            )
        )
        let dropped = try explorer.explore().findings.filter { $0.kind == .alwaysDropped }
        #expect(dropped.map { $0.location?.line ?? 0 } == [7])
        #expect(dropped.first?.message.contains("unhandled") == true)
    }
}
