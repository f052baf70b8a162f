import ArgumentParser
import FlowBus
import FlowInspector

/// `flowctl data SESSION KEY=VALUE`: sets (or removes) a value of a session's data, as SESSION_DATA does.
struct SessionData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "data",
        abstract: "Set a value of a session's data (what the flows' adapt rules read), or remove one.",
        discussion: """
            VALUE is JSON when it reads as JSON (42, true, "007", [1,2]), text otherwise; KEY= with nothing after \
            the = removes the key. Exits 1 when flowd refuses it (no such session, a value beyond \
            maxSessionDataBytes), 69 when flowd is unreachable.

            Examples:
              flowctl data kiosk-7 isLoggedIn=true
              flowctl data kiosk-7 user='{"name":"kim","tier":2}'
              flowctl data kiosk-7 isLoggedIn=
            """
    )

    @Argument(help: "The session.")
    var session: String

    @Argument(help: ArgumentHelp("What to set, as KEY=VALUE (KEY= removes it).", valueName: "key=value"))
    var assignment: String

    @OptionGroup var bus: BusOptions

    func validate() throws {
        guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
            throw ValidationError("give KEY=VALUE (KEY= removes the key), not '\(assignment.prefix(64))'")
        }
    }

    func run() async throws {
        let equals = assignment.firstIndex(of: "=")!
        let key = String(assignment[..<equals])
        let text = assignment[assignment.index(after: equals)...]
        let value: JSONValue? = text.isEmpty ? nil : Parameter.split(assignment)?.1
        let inspector = try await bus.inspector(session: session)
        try await bus.requireSession(session, inspector)
        do {
            try await inspector.setSessionData(key, to: value, session: session, timeout: .milliseconds(bus.timeout))
        } catch {
            await inspector.close()
            printError("flowctl: flowd refused it: \(error.message)")
            throw ExitCode(error.code == .timedOut ? 69 : 1)
        }
        await inspector.close()
        let shown = TerminalText.safe(key)
        let place = TerminalText.safe(session)
        print(value == nil ? "removed \(shown) from \(place)" : "set \(shown) in \(place)")
    }
}
