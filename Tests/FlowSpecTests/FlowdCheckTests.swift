import Foundation
import Testing

/// The path of a product built next to the test bundle (`swift build --build-tests` builds executables too).
func builtProduct(_ name: String) throws -> String {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        Bundle.main.bundleURL.deletingLastPathComponent(),
        Bundle.main.bundleURL,
    ].map { $0.appendingPathComponent(name).path }
    return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) }, "\(name) is not built")
}

/// Runs a built command and returns its exit code and output.
func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: outputData, as: UTF8.self),
        String(decoding: errorData, as: UTF8.self)
    )
}

@Suite struct FlowdCheckTests {
    @Test func checkPrintsOkAndASummaryForTheDemoFile() throws {
        let result = try run(try builtProduct("flowd"), ["check", demoFlowsPath])
        #expect(result.status == 0)
        #expect(result.output == "ok: \(demoFlowsPath): 6 flows, 15 steps, 11 screens\n")
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
        let result = try run(try builtProduct("flowd"), ["check", "--format", "dot", demoFlowsPath])
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
        // Tried: no file, an unknown format, an unknown subcommand, a file that does not exist.
        let flowd = try builtProduct("flowd")
        #expect(try run(flowd, ["check"]).status == 64)
        #expect(try run(flowd, ["check", "--format", "svg", demoFlowsPath]).status == 64)
        #expect(try run(flowd, ["frobnicate"]).status == 64)
        let missing = try run(flowd, ["check", "/no/such/flows.yaml"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("cannot read /no/such/flows.yaml"))
    }
}
