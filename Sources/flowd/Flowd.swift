import ArgumentParser
import FlowBuildInfo
import FlowSpec

/// flowd: the FlowBus coordinator daemon.
@main
struct Flowd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowd",
        abstract: "The FlowBus coordinator daemon.",
        discussion: """
            flowd owns, per session, the tree of flows and the visibility of every presentable, and decides \
            every navigation. Its flows are declared in a flow file (see deploy/flows/movies.yaml). It keeps its \
            sessions in its state directory ($XDG_STATE_HOME/flowbus, else ~/.local/state/flowbus; --state-dir), so \
            a restart loses none; `flowd run --help` has every option.
            """,
        version: BuildInfo.versionLine(program: "flowd"),
        subcommands: [Run.self, Check.self, Config.self, Keygen.self],
        defaultSubcommand: Run.self
    )

    /// Runs the command line; a first word that is no subcommand is said to be one, with the nearest, rather than
    /// taken for something else (exit 64).
    static func main() async {
        Suggestion.exitOnUnknownSubcommand(of: "flowd", subcommands: configuration.subcommands.map { $0._commandName })
        await main(nil)
    }
}
