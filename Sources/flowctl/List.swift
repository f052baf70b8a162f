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
        let width = TerminalSize.columns
        let sessionRows = (sessions.arrayValue ?? []).map { session in
            let fields = session.objectValue ?? [:]
            return [
                fields["session"]?.stringValue ?? "?", fields["ready"] == .bool(true) ? "yes" : "no",
                "\(fields["flows"]?.intValue ?? 0)", "\(fields["peers"]?.intValue ?? 0)",
                age(since: fields["createdAt"]?.intValue, now: now),
                age(since: fields["lastActivity"]?.intValue, now: now),
            ]
        }
        let sessionTable = TextTable(
            headers: ["SESSION", "READY", "FLOWS", "PEERS", "AGE", "IDLE"],
            rows: sessionRows,
            shrinkable: [0]
        )
        print(sessionTable.lines(width: width).joined(separator: "\n"))
        print("")
        let listed = (registrations.arrayValue ?? []).filter {
            all || $0.objectValue?["role"]?.stringValue != "inspector"
        }
        let registrationRows = listed.map { registration in
            let fields = registration.objectValue ?? [:]
            return [
                fields["id"]?.stringValue ?? "?", fields["role"]?.stringValue ?? "?",
                fields["name"]?.stringValue ?? "?",
                fields["session"]?.stringValue ?? "-",
                fields["lastHeard"]?.intValue.map { "\(max(0, now - $0)) ms ago" } ?? "?",
            ]
        }
        let registrationTable = TextTable(
            headers: ["ID", "ROLE", "NAME", "SESSION", "LAST HEARD"],
            rows: registrationRows,
            shrinkable: [0, 2, 3]
        )
        print(registrationTable.lines(width: width).joined(separator: "\n"))
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
}
