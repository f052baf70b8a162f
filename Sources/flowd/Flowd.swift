import ArgumentParser

/// flowd: the FlowBus coordinator daemon.
@main
struct Flowd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowd",
        abstract: "The FlowBus coordinator daemon.",
        discussion: """
            flowd owns, per session, the tree of flows and the visibility of every presentable, and decides \
            every navigation. Its flows are declared in a flow file (see deploy/flows/movies.yaml).
            """,
        subcommands: [Run.self, Check.self, Keygen.self],
        defaultSubcommand: Run.self
    )
}
