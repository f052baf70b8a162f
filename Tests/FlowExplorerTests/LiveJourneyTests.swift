import FlowBusTesting
import FlowCore
import FlowExplorer
import FlowSpec
import Foundation
import Testing

/// Journeys against a real flowd (`flowctl test --live`): the demo's pass and a wrong one fails with its diff; the
/// path of every error the explorer finds in the planted files, replayed against a flowd running that file, shows
/// the same screens and flows as the exploration did — the defect, live.
@Suite struct LiveJourneyTests {
    /// flowd running `flows` on fresh ipc endpoints, and the flowctl arguments that reach it.
    private func daemon(_ flows: String) throws -> (DaemonProcess, [String]) {
        let directory = uniqueDirectory()
        let endpoints = ["--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events"]
        let daemon = try DaemonProcess(["--flows", flows, "--ephemeral", "--no-tcp"] + endpoints)
        _ = try daemon.readyEndpoints()
        return (daemon, endpoints)
    }

    @Test func theDemoJourneysPassAgainstFlowdAndAWrongOneFails() throws {
        let (daemon, endpoints) = try daemon(demoFlows)
        let flowctl = try builtProduct("flowctl")
        let files = try JourneyTests.demoJourneys()
        let passed = try run(flowctl, ["test", "--live"] + endpoints + files)
        #expect(passed.status == 0, "\(passed.output)\(passed.errors)")
        #expect(passed.output.hasSuffix("\(files.count) journeys, 0 failed\n"))
        let wrong = uniqueDirectory() + "-wrong.yaml"
        defer { try? FileManager.default.removeItem(atPath: wrong) }
        try """
        journey: expects a covered screen to take a step
        flows: \(demoFlows)
        do:
          - step: onboardingIsComplete
            from: { stepper: app }
          - step: movieIsPicked
            parameters: { withId: 1 }
            from: { screen: WishlistTable }
          - step: movieIsPicked
            parameters: { withId: 2 }
            from: { screen: WishlistTable }
            expect: { fate: accepted }
        """.write(toFile: wrong, atomically: true, encoding: .utf8)
        let failed = try run(flowctl, ["test", "--live"] + endpoints + [wrong])
        #expect(failed.status == 1)
        #expect(failed.output.contains("move 3 (screen WishlistTable: movieIsPicked {withId: 2}) differs:"))
        #expect(failed.output.contains("+ fate: notVisible"))
        // A deep link before the session is ready waits for it, live as in process; a step the flow file does not
        // declare, or whose parameters do not fit, has the same fate too.
        let early = uniqueDirectory() + "-early.yaml"
        defer { try? FileManager.default.removeItem(atPath: early) }
        try ("journey: a deep link first\nflows: \(demoFlows)\n" + JourneyTests.earlyMoves).write(
            toFile: early,
            atomically: true,
            encoding: .utf8
        )
        let waited = try run(flowctl, ["test", "--live"] + endpoints + [early])
        #expect(waited.status == 0, "\(waited.output)\(waited.errors)")
        // Each journey's session was ended after it.
        let sessions = try run(flowctl, ["query", "sessions"] + endpoints)
        #expect(sessions.output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(sessions.output)")
        _ = daemon
    }

    @Test(arguments: ["orphaned.yaml", "unreachable.yaml", "deadend.yaml", "modal.yaml", "stack.yaml", "onestep.yaml"])
    func aDefectsPathShowsItAgainstFlowd(file: String) throws {
        let flows = PlantedDefectTests.flows.appendingPathComponent(file).path
        let spec = try FlowSpecification.load(contentsOf: flows)
        var explorer = Explorer(spec)
        let exploration = try explorer.explore()
        let directory = uniqueDirectory("journeys")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var written: [String] = []
        for (index, finding) in exploration.findings.enumerated() where !finding.path.isEmpty {
            let path = "\(directory)/\(index)-\(finding.kind.rawValue).yaml"
            let journey = try Journey.recording(
                finding.path,
                named: "\(finding.kind.rawValue) of \(file)",
                file: path,
                flows: flows,
                on: spec
            )
            if finding.kind == .orphanedUI && file == "orphaned.yaml" {
                // What the exploration saw, live: Leaver gone, its screens left.
                #expect(journey.moves.last?.expect.flows == ["Main"])
                #expect(journey.moves.last?.expect.visible == ["leaver", "Bye"])
            }
            try journey.yaml().write(toFile: path, atomically: true, encoding: .utf8)
            written.append(path)
        }
        // The dead end of deadend.yaml is the start itself: its path is empty, and the start is checked below.
        #expect(!written.isEmpty || file == "deadend.yaml")
        let (daemon, endpoints) = try daemon(flows)
        let flowctl = try builtProduct("flowctl")
        if !written.isEmpty {
            let replayed = try run(flowctl, ["test", "--live"] + endpoints + written)
            #expect(replayed.status == 0, "\(replayed.output)\(replayed.errors)")
        }
        if file == "deadend.yaml" {
            let start = "\(directory)/start.yaml"
            try """
            journey: the dead end at the start
            flows: \(flows)
            do:
              - deepLink: start
                expect: { fate: unhandled, visible: [main, Home] }
            """.write(toFile: start, atomically: true, encoding: .utf8)
            let replayed = try run(flowctl, ["test", "--live"] + endpoints + [start])
            #expect(replayed.status == 0, "\(replayed.output)\(replayed.errors)")
        }
        _ = daemon
    }
}
