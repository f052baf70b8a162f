import FlowBusTesting
import Foundation
import Testing

/// `flowdemo run`, the demo that `scripts/demo` starts: the whole system as real processes.
@Suite struct DemoRunTests {
    @Test func theJourneyRunsToTheEndAndLeavesNothingBehind() throws {
        let runtime = uniqueDirectory("demo")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let result = try run(try builtProduct("flowdemo"), ["run", "--fast", "--runtime-directory", runtime])
        #expect(result.status == 0, "\(result.errors)")
        let output = result.output

        // The presenter was killed and came back on the same screens.
        #expect(output.contains("▶ ✖ The presenter process crashes (SIGKILL)"))
        #expect(output.contains("── rebuilt from flowd's snapshot: back on the same screens"))
        // About was refused (an alert), then allowed after the login.
        #expect(output.contains("[auth] ada logged in: permissions = [\"about\"]"))
        #expect(
            output.contains("● Alert(message: You are not allowed to see About: log in first., title: Unauthorized)")
        )
        #expect(output.contains("── you went back from Alert"))
        #expect(output.contains("│     ┃   detail ● About"))

        // The presenter's last screen: the deep-linked movie over the wishlist.
        let frames = output.components(separatedBy: "╭─ window main")
        let lastScreen = try #require(frames.last?.components(separatedBy: "╰─").first)
        #expect(
            lastScreen == """

                │ ▤ app: dashboard
                │   ▦ dashboard: [Wishlist]  Watched 
                │     ▤ wishlist: WishlistTable › MovieDetail(movieId: 157336)
                │       ● MovieDetail(movieId: 157336)  ‹ back

                """
        )
        // The final tree, from flowctl.
        let tree = try #require(output.components(separatedBy: "flowctl tree demo` shows it").last)
        #expect(tree.contains("  f1 AppFlow — root p1, stepper app\n"))
        #expect(tree.contains("        ● p17 MovieDetail(movieId: 157336) screen, stackItem\n"))
        #expect(!tree.contains("SettingsFlow"))

        // Nothing left: no process of the demo, no socket file.
        #expect(try run("/usr/bin/pgrep", ["-f", runtime]).output.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty)
    }

    /// The whole demo journey recorded (the presenter killed and back, a refused About, a deep link) replays offline,
    /// with no daemon, to the tree flowd had at its end, every step getting its recorded fate again.
    @Test func theRecordedJourneyReplaysOfflineToTheTreeFlowdHad() throws {
        let runtime = uniqueDirectory("demo")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let scratch = ScratchDirectory("journey")
        let file = scratch.path + "/journey.flowrec"
        let demo = try run(
            try builtProduct("flowdemo"),
            ["run", "--fast", "--runtime-directory", runtime, "--record", file]
        )
        #expect(demo.status == 0, "\(demo.errors)")
        #expect(demo.errors.contains("recorded "))
        let online = try #require(
            demo.output.components(separatedBy: "flowctl tree demo` shows it\n").last?.components(
                separatedBy: "\n▶ Done"
            ).first
        )
        let flowctl = try builtProduct("flowctl")
        let offline = try run(flowctl, ["replay", "--offline", file, "--flows", demoFlows])
        #expect(offline.status == 0, "\(offline.errors)")
        #expect(!offline.errors.contains("fate differs"))
        #expect(offline.output.trimmingCharacters(in: .newlines) == online.trimmingCharacters(in: .newlines))
        let info = try run(flowctl, ["info", file])
        #expect(info.output.contains("sessions:  demo"))
        #expect(info.output.contains("presenterLost"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty)
    }

    @Test func ctrlCStopsEveryProcess() throws {
        let runtime = uniqueDirectory("demo")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let demo = try ChildProcess("flowdemo", ["run", "--pace", "5", "--runtime-directory", runtime])
        try demo.waitForOutput(containing: "onboarding comes first", within: .seconds(30))
        #expect(!(try run("/usr/bin/pgrep", ["-f", runtime]).output.isEmpty))
        demo.terminate(with: SIGINT)
        #expect(demo.process.terminationStatus == 130)
        #expect(demo.output.contains("interrupted; stopping every process"))
        #expect(try run("/usr/bin/pgrep", ["-f", runtime]).output.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty)
    }
}
