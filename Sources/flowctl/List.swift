import ArgumentParser
import FlowBus
import Foundation

/// `flowctl list`: the sessions and who is connected.
struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List flowd's sessions, and its steppers, presenters, guards and inspectors with their liveness.",
        discussion: """
            Examples:
              flowctl list
              flowctl list --json | jq '.registrations[] | select(.role == "presenter")'
            """
    )

    @OptionGroup var bus: BusOptions

    @Flag(help: "One JSON object: {\"sessions\": [...], \"registrations\": [...]}.")
    var json = false

    func run() async throws {
        let inspector = try await bus.inspector()
        let sessions = try await bus.query(inspector, "sessions")
        let registrations = try await bus.query(inspector, "registrations")
        await inspector.close()
        if json {
            try printJSON(JSONValue.object(["sessions": sessions, "registrations": registrations]))
            return
        }
        print("SESSION               READY  FLOWS  PEERS")
        for session in sessions.arrayValue ?? [] {
            let fields = session.objectValue ?? [:]
            print(
                column(fields["session"]?.stringValue ?? "?", 22)
                    + column(fields["ready"] == .bool(true) ? "yes" : "no", 7)
                    + column("\(fields["flows"]?.intValue ?? 0)", 7) + "\(fields["peers"]?.intValue ?? 0)"
            )
        }
        print("")
        print("ID                          ROLE       NAME          SESSION       LAST HEARD")
        let now = Int(Date().timeIntervalSince1970 * 1000)
        for registration in registrations.arrayValue ?? [] {
            let fields = registration.objectValue ?? [:]
            let heard = fields["lastHeard"]?.intValue.map { "\(max(0, now - $0)) ms ago" } ?? "?"
            print(
                column(fields["id"]?.stringValue ?? "?", 28) + column(fields["role"]?.stringValue ?? "?", 11)
                    + column(fields["name"]?.stringValue ?? "?", 14) + column(fields["session"]?.stringValue ?? "-", 14)
                    + heard
            )
        }
    }

    private func column(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
