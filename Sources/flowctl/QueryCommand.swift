import ArgumentParser
import FlowBus

/// `flowctl query KIND`: any query of the protocol, and flowd's reply (like `busctl call`, `nats req`).
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Send any query of the protocol to flowd and print its reply.",
        discussion: """
            The kinds flowd answers: sessions, registrations, stats, store, fleet, flows, and for a session (--session) \
            tree, drops, steps and endSession. Arguments are key=value (JSON when they read as JSON, text otherwise), as the protocol's \
            QUERY has them (limit, after). The reply is printed as JSON on one line. Exits 1 when flowd refuses the \
            query (an unknown kind or session), 69 when flowd is unreachable.

            Examples:
              flowctl query sessions
              flowctl query drops --session kiosk-7 --argument limit=5
              flowctl query registrations --argument limit=100 --argument after=kiosk-7/app
            """
    )

    @Argument(help: "What to ask: sessions, registrations, stats, store, fleet, flows, tree, drops, steps, endSession.")
    var kind: String

    @Option(help: "The session the query is about (tree, drops, endSession).")
    var session: String?

    @Option(
        name: .customLong("argument"),
        help: ArgumentHelp("An argument of the query, as key=value; repeat for several.", valueName: "key=value"),
        transform: Parameter.parse
    )
    var arguments: [Parameter] = []

    @OptionGroup var bus: BusOptions

    func run() async throws {
        // For a session: in a fleet, at the instance that serves it.
        let inspector = try await bus.inspector(session: session)
        var object: JSONObject = [:]
        for argument in arguments {
            object[argument.key] = argument.value
        }
        let reply = try await bus.query(inspector, kind, session: session, arguments: object)
        await inspector.close()
        try printJSON(reply)
    }
}
