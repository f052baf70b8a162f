import ArgumentParser

/// flowctl: the FlowBus bus inspector.
@main
struct FlowCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowctl",
        abstract: "Inspect and steer a FlowBus bus: flowd's sessions, their flow trees, its liveness.",
        discussion: """
            Exit codes: 0 success, 64 bad arguments, 69 flowd unreachable, 1 anything else (an unknown session...).
            """,
        subcommands: [Ping.self, List.self, Tree.self]
    )
}
