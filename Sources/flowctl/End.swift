import ArgumentParser
import FlowBus
import FlowInspector

/// `flowctl end SESSION`: ends a session (the protocol's `endSession` query).
struct End: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "End a session: its screens are dismissed, its peers unregistered, its state removed.",
        discussion: """
            Its presenters are told to dismiss every screen; its steppers and presenters are answered notRegistered \
            from then on, and a HELLO naming the session creates it anew. Exits 1 when flowd has no such session.

            Examples:
              flowctl end kiosk-7
            """
    )

    @Argument(help: "The session to end.")
    var session: String

    @OptionGroup var bus: BusOptions

    func run() async throws {
        let inspector = try await bus.inspector(session: session)
        _ = try await bus.query(inspector, "endSession", session: session)
        await inspector.close()
        print("ended session \(TerminalText.safe(session))")
    }
}
