import FlowBusTesting
import Foundation
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
        // The problems and their count, on standard error only.
        #expect(result.output.isEmpty)
        let lines = result.errors.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("\(url.path):4:3: error: step 'go' is handled by no flow"))
        #expect(lines[1].hasPrefix("\(url.path):8:5: error: unknown key 'colour'"))
        #expect(lines[2].hasPrefix("\(url.path):10:7: error: step 'og' in flow 'Main' is not declared"))
        #expect(lines[3] == "\(url.path): 3 problems")
    }

    /// What `flowd check` says of a flow file, on standard error.
    private func check(_ yaml: String) throws -> (status: Int32, problems: [String]) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: url) }
        try yaml.write(to: url, atomically: true, encoding: .utf8)
        let result = try run(try builtProduct("flowd"), ["check", url.path])
        let problems = result.errors.split(separator: "\n").map(String.init).filter { $0.contains(": error: ") }
            .map { String($0.dropFirst(url.path.count + 1)) }
        return (result.status, problems)
    }

    static let header = """
        version: 1
        session:
          root: App
          stepper: { named: app }
        steps:
          home: {}
          list: {}
        flows:
          App:
            root: { stack: main }
            on:
              home:
                - show: Home

        """

    /// YAML mistakes tried: a '{' not closed, a key moved to column 0, a tab, a quote not closed, a line indented
    /// off its mapping. Each is said in FlowBus's words, at the line of the mistake, with what to do.
    @Test(arguments: [
        (
            "      list:\n        - show: List\n          params: { a: 1\n        - show: Other\n",
            "16:19: error: this '{' is not closed"
        ),
        ("dismissable: true\n      list:\n        - show: List\n", "14:1: error: this line is indented less than"),
        ("      list:\n        - show: List\n\t  params: {}\n", "16:1: error: a tab: YAML indents with spaces only"),
        ("      list:\n        - show: \"List\n", "15:17: error: this quote is never closed"),
        (
            "      list:\n        - show: List\n     odd: true\n",
            "16:6: error: this line is not indented as the keys of the mapping"
        ),
    ])
    func yamlMistakesAreSaidWhereTheyAreWithARemedy(tail: String, expected: String) throws {
        let (status, problems) = try check(Self.header + tail)
        #expect(status == 1)
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.hasPrefix(expected) == true, "\(problems)")
        #expect(problems.first?.contains("(YAML: ") == true)
    }

    @Test func oneMistakeIsOneProblemSaidPlainly() throws {
        // A type named as other languages do: said once, with the name to use, and its uses are not reported too.
        let typed = try check(
            Self.header.replacingOccurrences(of: "  list: {}", with: "  list: { itemId: integer }")
                + "      list:\n        - show: Item\n          params: { id: $itemId }\n"
        )
        #expect(typed.problems.count == 1, "\(typed.problems)")
        #expect(typed.problems.first?.contains("not 'integer' (did you mean 'int'?)") == true, "\(typed.problems)")
        // An action named as other libraries do.
        let pushed = try check(Self.header + "      list:\n        - push: root\n")
        #expect(
            pushed.problems.first?.contains("'push' is not an action; to push a screen, write '- show: SCREEN'")
                == true,
            "\(pushed.problems)"
        )
        // A value of the wrong type, with its article.
        let literal = try check(
            Self.header.replacingOccurrences(of: "  list: {}", with: "  list: { n: int }")
                + "      list:\n        - show: Item\n          stepper: { one: { step: list, params: { n: seven } } }\n"
        )
        #expect(literal.problems.contains { $0.contains("is an int, not") }, "\(literal.problems)")
    }

    @Test func aMistypedSubcommandIsSaidWithTheNearestOne() throws {
        let flowd = try run(try builtProduct("flowd"), ["chek", demoFlows])
        #expect(flowd.status == 64)
        #expect(flowd.errors.contains("flowd: 'chek' is not a subcommand; did you mean 'check'?"), "\(flowd.errors)")
        let flowctl = try run(try builtProduct("flowctl"), ["watc"])
        #expect(flowctl.status == 64)
        #expect(
            flowctl.errors.contains("flowctl: 'watc' is not a subcommand; did you mean 'watch'?"),
            "\(flowctl.errors)"
        )
        let far = try run(try builtProduct("flowctl"), ["frobnicate"])
        #expect(far.status == 64)
        #expect(far.errors.contains("'frobnicate' is not a subcommand; `flowctl --help` lists them"))
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
