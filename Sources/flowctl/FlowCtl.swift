import ArgumentParser
import FlowBuildInfo
import FlowSpec

/// flowctl: the FlowBus bus inspector.
@main
struct FlowCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowctl",
        abstract:
            "Inspect and steer a FlowBus bus: watch it live, see trees, inject steps, explain drops, record and replay.",
        discussion: """
            Exit codes: 0 success, 2 a step emitted was dropped, 64 bad arguments, 69 flowd unreachable, 77 permission \
            denied on flowd's ipc socket, 1 anything else (an unknown session...).

            flowd is found at --control/--events, else $FLOWBUS_CONTROL/$FLOWBUS_EVENTS, else at its default ipc \
            endpoints (the runtime directory, then the package's /run/flowbus) when their socket is there, else at \
            tcp://127.0.0.1:5860/5861. CURVE keys and the id come from \
            their options or $FLOWBUS_CURVE_SECRET_KEY, $FLOWBUS_CURVE_SERVER_KEY, $FLOWBUS_ID: a host's profile \
            sets them once.
            """,
        version: BuildInfo.versionLine(program: "flowctl"),
        subcommands: [
            Watch.self, Tree.self, List.self, Steps.self, Flows.self, Emit.self, DeepLink.self, Explain.self,
            Stats.self,
            Record.self,
            Replay.self, Web.self, Info.self, Bench.self, Ping.self, QueryCommand.self, End.self, SessionData.self,
            TestJourneys.self,
        ]
    )

    /// Runs the command line; a first word that is no subcommand is said to be one, with the nearest, rather than
    /// taken for something else (exit 64).
    static func main() async {
        Suggestion.exitOnUnknownSubcommand(
            of: "flowctl",
            subcommands: configuration.subcommands.map { $0._commandName }
        )
        await main(nil)
    }
}
