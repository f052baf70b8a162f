import ArgumentParser
import FlowBus
import FlowInspector
import Foundation

/// `flowctl list`: the sessions and who is connected.
struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List flowd's sessions, and its steppers, presenters, guards and inspectors with their liveness.",
        discussion: """
            In a fleet of flowd instances, it lists every live instance's sessions and peers, each with the \
            instance that serves it, after the instances themselves (from the fleet's database). Any instance \
            will do; give several (--control and --events, comma-separated) to reach one that is up.

            Examples:
              flowctl list
              flowctl list --json | jq '.registrations[] | select(.role == "presenter")'
            """
    )

    @Flag(
        help:
            "One JSON object: {\"sessions\": [...], \"registrations\": [...], \"store\": {...}}; in a fleet also \"fleet\", and an \"instance\" in each session and registration."
    )
    var json = false

    @Flag(help: "Also list inspectors (flowctl's own connections among them), which are left out by default.")
    var all = false

    @OptionGroup var bus: BusOptions

    func run() async throws {
        let inspector = try await bus.inspector()
        let fleet = try await bus.query(inspector, "fleet").objectValue ?? [:]
        var sessions = try await bus.allPages(inspector, "sessions").arrayValue ?? []
        var registrations = try await bus.allPages(inspector, "registrations").arrayValue ?? []
        let store = try await bus.query(inspector, "store")
        await inspector.close()
        let inFleet = fleet["fleet"] == .bool(true)
        if inFleet {
            (sessions, registrations) = try await everyInstance(fleet)
        }
        if json {
            var object: JSONObject = [
                "sessions": .array(sessions), "registrations": .array(registrations), "store": store,
            ]
            if inFleet {
                object["fleet"] = .object(fleet)
            }
            try printJSON(JSONValue.object(object))
            return
        }
        let now = Int(Date().timeIntervalSince1970 * 1000)
        let width = TerminalSize.columns
        if inFleet {
            print(fleetTable(fleet).lines(width: width).joined(separator: "\n"))
            print("")
        }
        let sessionRows = sessions.map { session in
            let fields = session.objectValue ?? [:]
            return (inFleet ? [fields["instance"]?.stringValue ?? "?"] : []) + [
                fields["session"]?.stringValue ?? "?", fields["ready"] == .bool(true) ? "yes" : "no",
                "\(fields["flows"]?.intValue ?? 0)", "\(fields["peers"]?.intValue ?? 0)",
                age(since: fields["createdAt"]?.intValue, now: now),
                age(since: fields["lastActivity"]?.intValue, now: now),
            ]
        }
        let sessionTable = TextTable(
            headers: (inFleet ? ["INSTANCE"] : []) + ["SESSION", "READY", "FLOWS", "PEERS", "AGE", "IDLE"],
            rows: sessionRows,
            shrinkable: inFleet ? [1] : [0]
        )
        print(sessionTable.lines(width: width).joined(separator: "\n"))
        print("")
        let listed = registrations.filter {
            all || $0.objectValue?["role"]?.stringValue != "inspector"
        }
        let registrationRows = listed.map { registration in
            let fields = registration.objectValue ?? [:]
            return (inFleet ? [fields["instance"]?.stringValue ?? "?"] : []) + [
                fields["id"]?.stringValue ?? "?", fields["role"]?.stringValue ?? "?",
                fields["name"]?.stringValue ?? "?",
                fields["session"]?.stringValue ?? "-",
                fields["lastHeard"]?.intValue.map { "\(max(0, now - $0)) ms ago" } ?? "?",
            ]
        }
        let registrationTable = TextTable(
            headers: (inFleet ? ["INSTANCE"] : []) + ["ID", "ROLE", "NAME", "SESSION", "LAST HEARD"],
            rows: registrationRows,
            shrinkable: inFleet ? [1, 3, 4] : [0, 2, 3]
        )
        print(registrationTable.lines(width: width).joined(separator: "\n"))
        let hidden = registrations.count - listed.count
        if hidden > 0 {
            print(
                "(\(hidden) inspector\(hidden == 1 ? "" : "s"), flowctl's own connection among them: --all lists them)"
            )
        }
        print("")
        print(storeLine(store.objectValue ?? [:]))
    }

    /// The sessions and registrations of every live instance of the fleet, each with its instance's name.
    private func everyInstance(_ fleet: JSONObject) async throws -> ([JSONValue], [JSONValue]) {
        var sessions: [JSONValue] = []
        var registrations: [JSONValue] = []
        for member in fleet["instances"]?.arrayValue?.compactMap(\.objectValue) ?? [] {
            guard member["alive"] == .bool(true), let name = member["name"]?.stringValue,
                let endpoints = Endpoints.preferred(
                    control: member["control"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                    events: member["events"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                    like: bus.endpoints.control
                )
            else { continue }
            // An instance that died lately is still listed as alive until its lease expires: it is passed over.
            var options = bus.clientOptions
            options.endpoints = endpoints
            options.alternateEndpoints = []
            options.connectTimeout = .milliseconds(min(bus.timeout, 1000))
            guard let inspector = try? await InspectorClient.connect(options: options) else {
                printError(
                    "flowctl: instance \(name) does not answer at \(endpoints.control): its sessions are not listed"
                )
                continue
            }
            let tagged = { (entries: JSONValue) in
                (entries.arrayValue ?? []).map { entry in
                    var fields = entry.objectValue ?? [:]
                    fields["instance"] = .string(name)
                    return JSONValue.object(fields)
                }
            }
            sessions += tagged(try await bus.allPages(inspector, "sessions"))
            registrations += tagged(try await bus.allPages(inspector, "registrations"))
            await inspector.close()
        }
        return (sessions, registrations)
    }

    /// The fleet's instances: which are alive, their lease, how many sessions each serves, where clients reach it.
    private func fleetTable(_ fleet: JSONObject) -> TextTable {
        let rows = (fleet["instances"]?.arrayValue?.compactMap(\.objectValue) ?? []).map { member in
            let remaining = member["leaseRemaining"]?.intValue ?? 0
            return [
                (member["name"]?.stringValue ?? "?") + (member["name"] == fleet["instance"] ? " *" : ""),
                member["alive"] == .bool(true) ? "yes" : "no",
                remaining >= 0 ? "\(remaining) ms left" : "expired \(-remaining / 1000) s ago",
                "\(member["sessions"]?.intValue ?? 0)",
                member["control"]?.arrayValue?.compactMap(\.stringValue).joined(separator: " ") ?? "",
            ]
        }
        return TextTable(
            headers: ["INSTANCE", "ALIVE", "LEASE", "SESSIONS", "CONTROL"],
            rows: rows,
            shrinkable: [4]
        )
    }

    /// Where flowd keeps its sessions, as one line.
    private func storeLine(_ store: JSONObject) -> String {
        guard store["durable"] == .bool(true) else {
            return "state: in memory only (flowd --ephemeral): a restart loses every session"
        }
        let kilobytes = (store["bytes"]?.intValue ?? 0) / 1024
        let write = store["writeMicroseconds"]?.objectValue?["mean"]?.intValue ?? 0
        return
            "state: \(store["location"]?.stringValue ?? "?") (\(kilobytes) KiB, durability \(store["durability"]?.stringValue ?? "?")): \(store["snapshots"]?.intValue ?? 0) snapshots, \(store["journalEntries"]?.intValue ?? 0) journal records, writes \(write) µs on average"
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
