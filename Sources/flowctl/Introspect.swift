import ArgumentParser
import FlowBus
import FlowInspector
import FlowWire

/// `flowctl steps [SESSION]`: who may emit what now, whether each step would pass, and what it would do.
struct Steps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, for a session, every stepper and screen that may emit steps now, and what each step would do.",
        discussion: """
            For every named stepper and every screen whose own steps a flow takes, the steps the flows it reaches \
            handle: ✔ would be accepted now, ✘ would be dropped (why, and what would make it pass), ? would wait \
            for a guard; and what each flow would do with it. flowd tries each step on a copy of the session: \
            nothing changes. Emit one with `flowctl emit STEP --as STEPPER` or `--from SCREEN`.

            Exits 1 when the session does not exist, 69 when flowd is unreachable.

            Examples:
              flowctl steps kiosk-7
              flowctl steps kiosk-7 --json | jq '.sources[] | select(.presentable == 8)'
            """
    )

    @Argument(help: "The session (default: flowd's only session).")
    var session: String?

    @Flag(help: "Print flowd's reply as JSON.")
    var json = false

    @OptionGroup var bus: BusOptions

    func run() async throws {
        let inspector = try await bus.inspector(session: session)
        let session = try await bus.session(session, inspector)
        let reply = try await bus.query(inspector, "steps", session: session)
        await inspector.close()
        try printReport(reply, as: StepsReport.self, json: json, IntrospectionText.lines)
    }
}

/// `flowctl flows`: the flow file flowd runs.
struct Flows: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the flow file flowd runs: how a session starts, the steps and their parameters, every flow.",
        discussion: """
            Each flow with its root, its adapt rules and, for each step it handles, what it does. Exits 69 when \
            flowd is unreachable.

            Examples:
              flowctl flows
              flowctl flows --json | jq '.steps[].name'
            """
    )

    @Flag(help: "Print flowd's reply as JSON.")
    var json = false

    @OptionGroup var bus: BusOptions

    func run() async throws {
        let inspector = try await bus.inspector()
        let reply = try await bus.query(inspector, "flows")
        await inspector.close()
        try printReport(reply, as: FlowsReport.self, json: json, IntrospectionText.lines)
    }
}

/// Prints flowd's reply as JSON, or as the text `lines` makes of it once read as a `Report`.
private func printReport<Report: Decodable>(
    _ reply: JSONValue,
    as type: Report.Type,
    json: Bool,
    _ lines: (Report) -> [String]
) throws {
    if json {
        try printJSON(reply)
        return
    }
    do {
        print(lines(try FlowJSON.decode(type, from: reply)).joined(separator: "\n"))
    } catch {
        printError("flowctl: flowd's reply has an unexpected shape: \(error)")
        throw ExitCode(1)
    }
}
