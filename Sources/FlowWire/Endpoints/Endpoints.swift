import Foundation

/// Where a daemon listens: its control endpoint (ROUTER; peers connect a DEALER) and its events endpoint (XPUB;
/// peers connect a SUB).
public struct Endpoints: Sendable, Hashable, Codable {
    /// The control endpoint, such as `ipc:///run/user/1000/flowbus/control` or `tcp://127.0.0.1:5860`.
    public var control: String
    /// The events endpoint, such as `ipc:///run/user/1000/flowbus/events` or `tcp://127.0.0.1:5861`.
    public var events: String

    /// Endpoints at these addresses.
    public init(control: String, events: String) {
        self.control = control
        self.events = events
    }

    /// The default tcp endpoints: loopback, ports 5860 (control) and 5861 (events).
    public static let defaultTCP = Endpoints(control: "tcp://127.0.0.1:5860", events: "tcp://127.0.0.1:5861")

    /// The default ipc endpoints, in the runtime directory: `$XDG_RUNTIME_DIR/flowbus`, else `/tmp/flowbus-<uid>`.
    public static func defaultIPC(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Endpoints {
        let runtime = environment["XDG_RUNTIME_DIR"].map { "\($0)/flowbus" } ?? "/tmp/flowbus-\(getuid())"
        return Endpoints(control: "ipc://\(runtime)/control", events: "ipc://\(runtime)/events")
    }

    /// The ipc endpoints of flowd as the Debian package runs it (systemd's `RuntimeDirectory=flowbus`).
    public static let packagedIPC = Endpoints(
        control: "ipc:///run/flowbus/control",
        events: "ipc:///run/flowbus/events"
    )

    /// Several instances' endpoints, from comma-separated lists of control and events endpoints that pair up
    /// (`tcp://a:5860,tcp://b:5860` with `tcp://a:5861,tcp://b:5861`): a fleet of flowd instances.
    /// - Returns: `nil` when the lists do not pair up (not as many of each, or an empty entry).
    public static func list(control: String, events: String) -> [Endpoints]? {
        let controls = control.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let eventses = events.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard controls.count == eventses.count, !(controls + eventses).contains(where: \.isEmpty) else { return nil }
        return zip(controls, eventses).map { Endpoints(control: $0, events: $1) }
    }

    /// Of an instance's endpoint pairs (a REDIRECT's, a fleet member's), the first of the transport `current` uses
    /// (ipc on one machine, tcp across machines), else the first; `nil` when it has none.
    public static func preferred(control: [String], events: [String], like current: String) -> Endpoints? {
        let scheme = current.prefix { $0 != ":" }
        let pairs = zip(control, events).map { Endpoints(control: $0, events: $1) }
        return pairs.first { $0.control.hasPrefix(scheme + ":") } ?? pairs.first
    }

    /// Where every FlowBus client looks for flowd (flowctl and the client libraries alike): `control` and `events`
    /// when given, else `FLOWBUS_CONTROL` and `FLOWBUS_EVENTS` (an empty variable counts as unset); comma-separated
    /// lists that pair up are a fleet's instances, the first first. Else flowd's default ipc endpoints (in the user's
    /// runtime directory, then the Debian package's `/run/flowbus`) when their socket file is there (or there but not
    /// writable: connecting then says so), else its default tcp endpoints.
    /// - Returns: at least one pair; one when lists do not pair up (``list(control:events:)`` tells).
    public static func located(
        control: String? = nil,
        events: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [Endpoints] {
        let variable = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let given = (control ?? variable("FLOWBUS_CONTROL"), events ?? variable("FLOWBUS_EVENTS"))
        if let control = given.0, let events = given.1, control.contains(",") || events.contains(","),
            let list = list(control: control, events: events)
        {
            return list
        }
        let fallback =
            [defaultIPC(environment: environment), packagedIPC].first { ipc in
                IPCAccess.problem(with: ipc.control).map { IPCAccess.isPermissionDenied($0) } ?? true
            } ?? defaultTCP
        return [Endpoints(control: given.0 ?? fallback.control, events: given.1 ?? fallback.events)]
    }

    /// Endpoints on tcp at `host`, with the default ports unless others are given.
    public static func tcp(host: String, controlPort: Int = 5860, eventsPort: Int = 5861) -> Endpoints {
        Endpoints(control: "tcp://\(host):\(controlPort)", events: "tcp://\(host):\(eventsPort)")
    }
}
