import ArgumentParser
import FlowBus
import FlowInspector
import FlowWire

/// `flowctl tree SESSION`: a session's flows and screens.
struct Tree: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a session's flow tree: flows, what each contributes and from which stepper, the screens.",
        discussion: """
            ● marks a visible screen, ○ one that is not. Exits 1 when the session does not exist.

            Examples:
              flowctl tree kiosk-7
              flowctl tree kiosk-7 --format dot | dot -Tsvg > tree.svg
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, dot
    }

    @Argument(help: "The session (default: flowd's only session).")
    var session: String?

    @Option(help: "text, json (flowd's reply, one line) or dot (Graphviz).")
    var format: Format = .text

    @Flag(help: "The same as --format json.")
    var json = false

    @OptionGroup var bus: BusOptions

    func validate() throws {
        if json && format != .text && format != .json {
            throw ValidationError("--json and --format \(format.rawValue) contradict each other; give one")
        }
    }

    func run() async throws {
        let inspector = try await bus.inspector(session: session)
        let session = try await bus.session(session, inspector)
        let reply = try await bus.query(inspector, "tree", session: session)
        await inspector.close()
        if json || format == .json {
            try printJSON(reply)
            return
        }
        let tree: SessionTree
        do {
            tree = try SessionTree(reply)
        } catch {
            printError("flowctl: flowd's tree has an unexpected shape: \(error)")
            throw ExitCode(1)
        }
        switch format {
        case .dot: print(TreeRenderer().dot(tree))
        case .text, .json: print(TreeRenderer().text(tree).joined(separator: "\n"))
        }
    }
}
