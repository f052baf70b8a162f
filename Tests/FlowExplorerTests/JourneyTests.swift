import FlowBusTesting
import FlowCore
import FlowExplorer
import FlowSpec
import Foundation
import Testing

/// Journeys: the demo's pass, in process and through `flowctl test` (with its JUnit report); a wrong expectation, a
/// move that cannot be made and bad journey files fail as they should; `--write-journeys` covers every handler.
@Suite struct JourneyTests {
    static let journeys = repositoryRoot.appendingPathComponent("deploy/journeys")

    static func demoJourneys() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: journeys.path).filter { $0.hasSuffix(".yaml") }.sorted()
            .map { journeys.appendingPathComponent($0).path }
    }

    @Test func theDemoJourneysPassInProcess() throws {
        let spec = try FlowSpecification.load(contentsOf: demoFlows)
        let files = try Self.demoJourneys()
        #expect(files.count >= 2)
        for file in files {
            let journey = try Journey.load(contentsOf: file)
            #expect(journey.run(on: spec) == nil, "\(file)")
        }
    }

    @Test func aWrongExpectationFailsAtItsMoveWithADiff() throws {
        let spec = try FlowSpecification.load(contentsOf: demoFlows)
        var journey = try Journey.load(contentsOf: Self.journeys.appendingPathComponent("first-run.yaml").path)
        journey.moves[3].expect.visible = ["app", "dashboard", "wishlist", "CastDetail"]
        let failure = try #require(journey.run(on: spec))
        #expect(failure.move == 4)
        #expect(failure.line == journey.moves[3].line)
        #expect(
            failure.diff == [
                "- visible: [app, dashboard, wishlist, CastDetail]",
                "+ visible: [app, dashboard, wishlist, MovieDetail]",
            ]
        )
        // A fate: `dropped` matches any drop, a reason only itself.
        journey = try Journey.load(contentsOf: Self.journeys.appendingPathComponent("first-run.yaml").path)
        journey.moves[6].expect.fate = "dropped"
        #expect(journey.run(on: spec) == nil)
        journey.moves[6].expect.fate = "unhandled"
        #expect(journey.run(on: spec)?.diff == ["- fate: unhandled", "+ fate: notVisible"])
        // A move that cannot be made: a screen that is not on screen.
        journey.moves = [Journey.Move(.dismiss(ScreenReference(name: "MovieDetail")), line: 9)]
        #expect(journey.run(on: spec)?.diff.last == "+ no screen MovieDetail is on screen")
    }

    /// A deep link before the session is ready, an undeclared step, a step whose parameters do not fit (run in
    /// process here, live in ``LiveJourneyTests``).
    static let earlyMoves = """
        do:
          - deepLink: movieIsPicked
            parameters: { withId: 3 }
          - step: dashbordIsRequired
            from: { stepper: app }
            expect: { fate: unknownStep }
          - step: dashboardIsRequired
            from: { stepper: app }
            expect: { fate: accepted, visible: [app, dashboard, wishlist, MovieDetail] }
          - step: castIsPicked
            parameters: { withId: "seven" }
            from: { screen: MovieDetail }
            expect: { fate: invalidParameters, visible: [app, dashboard, wishlist, MovieDetail] }
        """

    /// As flowd: a step the flow file does not declare is refused (`unknownStep`), one whose parameters do not fit
    /// is dropped (`invalidParameters`); a deep link before the session is ready waits (no fate yet), and goes in
    /// once it is.
    @Test func undeclaredStepsBadParametersAndEarlyDeepLinksAreAsFlowdHasThem() throws {
        let spec = try FlowSpecification.load(contentsOf: demoFlows)
        let journey = try Journey.parse(Self.earlyMoves, file: "early.yaml")
        #expect(journey.run(on: spec) == nil)
        var waiting = journey
        waiting.moves[0].expect.fate = "accepted"
        #expect(waiting.run(on: spec)?.diff.last?.hasPrefix("+ fate: (none yet") == true)
    }

    @Test func aJourneyIsWrittenAsItIsRead() throws {
        let journey = try Journey.load(contentsOf: Self.journeys.appendingPathComponent("first-run.yaml").path)
        var again = try Journey.parse(journey.yaml(), file: journey.file)
        // Lines differ (the comments are not written); the rest is the same.
        for index in again.moves.indices {
            again.moves[index].line = journey.moves[index].line
        }
        #expect(again == journey)
    }

    /// Bad journey files tried: not YAML, no moves, an unknown key, two inputs in one move, a step from nowhere,
    /// an occurrence of 0, a guard that is not a boolean, expectations that are not lists.
    @Test func badJourneyFilesSayWhereAndWhy() throws {
        let cases: [(String, Int, String)] = [
            ("do:\n  - step: a\n    from: { stepper: app\n  - dismiss: B\n", 4, "not YAML"),
            ("journey: nothing\n", 1, "needs `do:`"),
            ("do:\n  - step: a\n    from: { stepper: app }\n    colour: blue\n", 4, "unknown key 'colour'"),
            ("do:\n  - step: a\n    deepLink: b\n", 2, "this one has step and deepLink"),
            ("do:\n  - step: a\n", 2, "a step comes `from:"),
            ("do:\n  - dismiss: A\n    occurrence: 0\n", 3, "`occurrence` is a number from 1"),
            ("do:\n  - guard: maybe\n", 2, "`guard` is true"),
            ("do:\n  - dismiss: A\n    expect: { visible: A }\n", 3, "must be a list"),
        ]
        for (text, line, message) in cases {
            #expect {
                _ = try Journey.parse(text, file: "bad.yaml")
            } throws: { error in
                guard let error = error as? JourneyFileError else { return false }
                return error.line == line && error.message.contains(message)
            }
        }
    }

    @Test func writtenJourneysRunEveryHandlerReached() throws {
        let spec = try FlowSpecification.load(contentsOf: demoFlows)
        var explorer = Explorer(spec, bounds: ExplorationBounds(states: 400))
        let exploration = try explorer.explore()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journeys-\(UUID().uuidString)")
        let journeys = try exploration.journeys(of: spec, in: directory.path)
        var covered: Set<String> = []
        for (_, journey) in journeys {
            #expect(journey.run(on: spec) == nil)
            covered.formUnion(exploration.coverage.first { $0.path == journey.moves.map(\.input) }?.runs ?? [])
        }
        let handlers = spec.flows.flatMap { flow in flow.handlers.map { "\(flow.name).\($0.step)" } }
        #expect(covered == Set(handlers))
        // Each names the flow file relative to where it is written.
        for (_, journey) in journeys {
            let flows = try #require(journey.flows)
            #expect(directory.appendingPathComponent(flows).standardizedFileURL.path == demoFlows)
        }
    }

    @Test func flowctlTestRunsJourneysAndWritesJUnit() throws {
        let flowctl = try builtProduct("flowctl")
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("junit-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: report) }
        let files = try Self.demoJourneys()
        let passed = try run(flowctl, ["test", "--junit", report.path] + files)
        #expect(passed.status == 0)
        #expect(passed.output.hasSuffix("\(files.count) journeys, 0 failed\n"))
        let xml = try String(contentsOf: report, encoding: .utf8)
        #expect(xml.contains("<testsuite name=\"flowctl test\" tests=\"\(files.count)\" failures=\"0\" errors=\"0\""))

        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: broken) }
        try """
        journey: expects the wrong screen
        do:
          - step: dashboardIsRequired
            from: { stepper: app }
            expect: { visible: [app, dashboard, wishlist, MovieDetail] }
        """.write(to: broken, atomically: true, encoding: .utf8)
        let failed = try run(flowctl, ["test", "--flows", demoFlows, "--junit", report.path, broken.path])
        #expect(failed.status == 1)
        #expect(failed.output.contains("FAIL  expects the wrong screen"))
        #expect(failed.output.contains("- visible: [app, dashboard, wishlist, MovieDetail]"))
        #expect(failed.output.contains("+ visible: [app, dashboard, wishlist, WishlistTable]"))
        #expect(try String(contentsOf: report, encoding: .utf8).contains("<failure message="))
        // A flow file that is not there: refused before any journey runs.
        let nowhere = try run(flowctl, ["test", "--flows", "/nowhere/flows.yaml", broken.path])
        #expect(nowhere.status == 64)
        #expect(nowhere.errors.contains("/nowhere/flows.yaml: there is no such file"))
        // Without a flow file: an error for that journey, said.
        let unnamed = try run(flowctl, ["test", broken.path])
        #expect(unnamed.status == 1)
        #expect(unnamed.output.contains("names no flow file"))
    }
}
