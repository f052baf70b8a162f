import ArgumentParser
import FlowBuildInfo

/// flowctl: the FlowBus bus inspector.
@main
struct FlowCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowctl",
        abstract:
            "Inspect and steer a FlowBus bus: watch it live, see trees, inject steps, explain drops, record and replay.",
        discussion: """
            Exit codes: 0 success, 2 a step emitted was dropped, 64 bad arguments, 69 flowd unreachable, 1 anything else\n(an unknown session...).
            """,
        version: BuildInfo.versionLine(program: "flowctl"),
        subcommands: [
            Watch.self, Tree.self, List.self, Emit.self, DeepLink.self, Explain.self, Stats.self, Record.self,
            Replay.self, Ping.self,
        ]
    )
}
