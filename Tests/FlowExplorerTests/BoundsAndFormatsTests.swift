import FlowBusTesting
import FlowCore
import FlowExplorer
import FlowJSON
import FlowSpec
import Foundation
import Testing

/// The bounds, the demo file, the output formats and `flowd check --explore` itself.
@Suite struct BoundsAndFormatsTests {
    @Test func theBoundsAreRespectedAndSaid() throws {
        let spec = try FlowSpecification.load(contentsOf: demoFlows)
        var few = Explorer(spec, bounds: ExplorationBounds(depth: 40, states: 150))
        let bounded = try few.explore()
        #expect(bounded.stateCount == 150)
        #expect(!bounded.isComplete)
        #expect(bounded.summary.contains("stopped at the bound"))
        var shallow = Explorer(spec, bounds: ExplorationBounds(depth: 2, states: 100_000))
        let deep = try shallow.explore()
        #expect(!deep.isComplete)
        #expect(deep.graph.states.allSatisfy { $0.depth <= 2 })
        // What is not reached within a bound may lie beyond it: a warning, not an error.
        let unreached = deep.findings.filter { $0.kind == .unreachableHandler }
        #expect(!unreached.isEmpty)
        #expect(unreached.allSatisfy { $0.severity == .warning })
    }

    /// The demo's flow file is explored whole within the default bounds (the reduction of ``FlowView``: trying
    /// every combination of what its flows show is more than 300 000 states), and is clean: no error and no
    /// warning. What the explorer found in it is mended there: `settingsAreComplete`, which SettingsFlow ends with,
    /// dropped by WishlistFlow; onboarding presented twice, dashboards piled and movies pushed on movies when the
    /// app stepper says its first step again or a deep link comes; and what screens send is declared (`sends:`).
    @Test func theDemoFileIsExploredWholeAndClean() throws {
        var explorer = Explorer(try FlowSpecification.load(contentsOf: demoFlows))
        let exploration = try explorer.explore()
        #expect(exploration.isComplete)
        #expect(exploration.reducedCount > 0)
        #expect(exploration.stateCount < ExplorationBounds().states)
        #expect(exploration.findings.map(\.message) == [])
    }

    @Test func jsonAndDotSayTheSame() throws {
        let exploration = try PlantedDefectTests.explore("orphaned.yaml")
        let json = try JSONValue(parsing: Array(exploration.json().utf8))
        let findings = try #require(json.objectValue?["findings"]?.arrayValue)
        #expect(findings.count == exploration.findings.count)
        let orphan = try #require(findings.first { $0.objectValue?["kind"] == "orphanedUI" }?.objectValue)
        #expect(orphan["line"] == 24)
        #expect(
            orphan["path"]
                == .array([
                    .object([
                        "step": .object(["name": "leave", "parameters": .object([:])]),
                        "from": .object(["stepper": "app"]),
                    ])
                ])
        )
        let dot = exploration.dot()
        #expect(dot.hasPrefix("digraph explored {"))
        #expect(dot.components(separatedBy: " -> ").count - 1 == exploration.graph.edges.count)
    }

    @Test func flowdCheckExploreExitsByWhatItFound() throws {
        let flowd = try builtProduct("flowd")
        let flows = PlantedDefectTests.flows
        let clean = try run(flowd, ["check", "--explore", flows.appendingPathComponent("clean.yaml").path])
        #expect(clean.status == 0)
        #expect(clean.output.contains("(every state reached); 0 errors, 0 warnings"))
        let orphaned = try run(flowd, ["check", "--explore", flows.appendingPathComponent("orphaned.yaml").path])
        #expect(orphaned.status == 1)
        #expect(orphaned.output.contains("orphaned.yaml:24:11: error: when Leaver ends"))
        #expect(orphaned.output.contains("  path: stepper app: leave"))
        let stack = flows.appendingPathComponent("stack.yaml").path
        #expect(try run(flowd, ["check", "--explore", stack]).status == 0)
        let strict = try run(flowd, ["check", "--explore", "--strict", stack])
        #expect(strict.status == 1)
        #expect(strict.errors.contains("--strict: warnings fail the check"))
        #expect(try run(flowd, ["check", "--explore", "--exhaustive", "--strict", stack]).status == 1)
        // --strict fails an exploration a bound stopped, even a clean one.
        let cleanFile = flows.appendingPathComponent("clean.yaml").path
        #expect(try run(flowd, ["check", "--explore", "--depth", "1", cleanFile]).status == 0)
        let stopped = try run(flowd, ["check", "--explore", "--strict", "--depth", "1", cleanFile])
        #expect(stopped.status == 1)
        #expect(stopped.errors.contains("--strict: the exploration stopped at a bound"))
        // Bad input: JSON or exploration options without --explore, bounds below 1, a file that is not there.
        #expect(try run(flowd, ["check", "--format", "json", stack]).status != 0)
        #expect(try run(flowd, ["check", "--strict", stack]).status == 64)
        #expect(try run(flowd, ["check", "--depth", "3", stack]).status == 64)
        #expect(try run(flowd, ["check", "--exhaustive", stack]).status == 64)
        #expect(try run(flowd, ["check", "--explore", "--states", "0", stack]).status != 0)
        let missing = try run(flowd, ["check", "--explore", flows.appendingPathComponent("nowhere.yaml").path])
        #expect(missing.status == 1)
        #expect(!missing.errors.isEmpty)
    }
}
