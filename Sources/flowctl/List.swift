import ArgumentParser
import FlowBus
import FlowInspector
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

    @Flag(help: "One JSON object: {\"sessions\": [...], \"registrations\": [...], \"store\": {...}}.")
    var json = false

    @Flag(help: "Also list inspectors (flowctl's own connections among them), which are left out by default.")
    var all = false

    @OptionGroup var bus: BusOptions

    func run() async throws {
        let inspector = try await bus.inspector()
        let sessions = try await bus.allPages(inspector, "sessions")
        let registrations = try await bus.allPages(inspector, "registrations")
        let store = try await bus.query(inspector, "store")
        await inspector.close()
        if json {
            try printJSON(JSONValue.object(["sessions": sessions, "registrations": registrations, "store": store]))
            return
        }
        let now = Int(Date().timeIntervalSince1970 * 1000)
        print("SESSION               READY  FLOWS  PEERS  AGE    IDLE")
        for session in sessions.arrayValue ?? [] {
            let fields = session.objectValue ?? [:]
            print(
                column(fields["session"]?.stringValue ?? "?", 22)
                    + column(fields["ready"] == .bool(true) ? "yes" : "no", 7)
                    + column("\(fields["flows"]?.intValue ?? 0)", 7) + column("\(fields["peers"]?.intValue ?? 0)", 7)
                    + column(age(since: fields["createdAt"]?.intValue, now: now), 7)
                    + age(since: fields["lastActivity"]?.intValue, now: now)
            )
        }
        print("")
        print("ID                          ROLE       NAME          SESSION       LAST HEARD")
        let listed = (registrations.arrayValue ?? []).filter {
            all || $0.objectValue?["role"]?.stringValue != "inspector"
        }
        for registration in listed {
            let fields = registration.objectValue ?? [:]
            let heard = fields["lastHeard"]?.intValue.map { "\(max(0, now - $0)) ms ago" } ?? "?"
            print(
                column(fields["id"]?.stringValue ?? "?", 28) + column(fields["role"]?.stringValue ?? "?", 11)
                    + column(fields["name"]?.stringValue ?? "?", 14) + column(fields["session"]?.stringValue ?? "-", 14)
                    + heard
            )
        }
        let hidden = (registrations.arrayValue ?? []).count - listed.count
        if hidden > 0 {
            print(
                "(\(hidden) inspector\(hidden == 1 ? "" : "s"), flowctl's own connection among them: --all lists them)"
            )
        }
        print("")
        print(storeLine(store.objectValue ?? [:]))
    }

    /// Where flowd keeps its sessions, as one line.
    private func storeLine(_ store: JSONObject) -> String {
        guard store["durable"] == .bool(true) else {
            return "state: in memory only (flowd --ephemeral): a restart loses every session"
        }
        let kilobytes = (store["bytes"]?.intValue ?? 0) / 1024
        let write = store["writeMicroseconds"]?.objectValue?["mean"]?.intValue ?? 0
        return
            "state: \(store["location"]?.stringValue ?? "?") (\(kilobytes) KiB, durability \(store["durability"]?.stringValue ?? "?")): \(store["snapshots"]?.intValue ?? 0) snapshots, \(store["journalEntries"]?.intValue ?? 0) journal entries, writes \(write) µs on average"
    }

    /// How long ago a time was (ms since 1970), shortly: `45s`, `12m`, `3h`, `2d`.
    private func age(since time: Int?, now: Int) -> String {
        guard let time else { return "-" }
        let seconds = max(0, now - time) / 1000
        switch seconds {
        case ..<60: return "\(seconds)s"
        case ..<3600: return "\(seconds / 60)m"
        case ..<86_400: return "\(seconds / 3600)h"
        default: return "\(seconds / 86_400)d"
        }
    }

    /// `text` made safe for the terminal (a peer's id or name may hold anything), padded to `width`.
    private func column(_ text: String, _ width: Int) -> String {
        let text = TerminalText.safe(text)
        return text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
