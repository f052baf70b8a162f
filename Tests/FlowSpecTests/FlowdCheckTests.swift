import Foundation
import TestSupport
import Testing

@Suite struct FlowdCheckTests {
    @Test func checkPrintsOkAndASummaryForTheDemoFile() throws {
        let result = try run(try builtProduct("flowd"), ["check", demoFlows])
        #expect(result.status == 0)
        #expect(result.output == "ok: \(demoFlows): 6 flows, 15 steps, 11 screens\n")
    }

    @Test func checkPrintsEveryProblemWithItsPositionAndFails() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: url) }
        try """
        version: 1
        session: { root: Main }
        steps:
          go: {}
        flows:
          Main:
            root: { stack: main }
            colour: blue
            on:
              og: none
        """.write(to: url, atomically: true, encoding: .utf8)
        let result = try run(try builtProduct("flowd"), ["check", url.path])
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("\(url.path):4:3: error: step 'go' is handled by no flow"))
        #expect(lines[1].hasPrefix("\(url.path):8:5: error: unknown key 'colour'"))
        #expect(lines[2].hasPrefix("\(url.path):10:7: error: step 'og' in flow 'Main' is not declared"))
        #expect(result.errors.contains("3 problem(s)"))
    }

    @Test func checkDrawsTheFlowGraphForGraphviz() throws {
        let result = try run(try builtProduct("flowd"), ["check", "--format", "dot", demoFlows])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("digraph flows {"))
        #expect(
            result.output.contains(
                #""flow:WishlistFlow" -> "flow:SettingsFlow" [label="settingsAreRequired\npresent", style=bold];"#
            )
        )
        #expect(result.output.contains(#""flow:WishlistFlow" -> "screen:MovieDetail" [label="movieIsPicked\npush"];"#))
        #expect(result.output.contains(#""flow:SettingsFlow" -> "parent of SettingsFlow""#))
    }

    @Test func badArgumentsAreUsageErrors() throws {
        // Tried: no file, an unknown format, an unknown subcommand, a negative rate and delay, a file that does not
        // exist.
        let flowd = try builtProduct("flowd")
        #expect(try run(flowd, ["check"]).status == 64)
        #expect(try run(flowd, ["check", "--format", "svg", demoFlows]).status == 64)
        #expect(try run(flowd, ["frobnicate"]).status == 64)
        #expect(try run(flowd, ["--peer-message-rate=-1"]).status == 64)
        let delay = try run(flowd, ["--inspection-delay=-5"])
        #expect(delay.status == 64)
        #expect(delay.errors.contains("--inspection-delay must be 0 or a positive whole number, not '-5'"))
        let missing = try run(flowd, ["check", "/no/such/flows.yaml"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("cannot read /no/such/flows.yaml"))
    }
}
