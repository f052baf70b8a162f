import FlowCore
import FlowWire
import Foundation
import Synchronization

/// An inspector's connection (what `flowctl` uses): it asks flowd about its sessions, registrations and counters,
/// and injects steps and deep links into sessions.
public final class InspectorClient: Sendable {
    let connection: BusConnection

    /// flowd's version, from its WELCOME.
    public var daemonVersion: String {
        connection.welcome.withLock { $0?.daemonVersion ?? "" }
    }

    /// How long flowd waits for a silent peer before it forgets it (milliseconds), from its WELCOME.
    public var heartbeatTimeout: Int {
        connection.welcome.withLock { $0?.heartbeatTimeout ?? 5000 }
    }

    /// How many inspectors this process connected, for their default names.
    private static let connections = Atomic(0)

    private init(_ connection: BusConnection) {
        self.connection = connection
    }

    deinit {
        connection.enqueue(.close(done: nil))
    }

    /// Connects as an inspector: of every session, or of `session` only (in a fleet of flowd instances, the
    /// instance that serves it takes the connection: the others send it there). Without a name, the inspector
    /// gets one of its own (`inspector-<pid>-<n>`): two connections must never share a routing id.
    /// - Throws: ``FlowBusError`` `unreachable`, `refused`, `invalidOptions`.
    public static func connect(
        name: String? = nil,
        session: String? = nil,
        options: ClientOptions = ClientOptions()
    ) async throws(FlowBusError) -> InspectorClient {
        let name =
            name
            ?? "inspector-\(ProcessInfo.processInfo.processIdentifier)-\(connections.add(1, ordering: .relaxed).newValue)"
        let setup = try ConnectionSetup(options: options, role: .inspector, name: name, session: session)
        return InspectorClient(try await BusConnection.open(setup))
    }

    /// Asks flowd something: `sessions`, `registrations`, `stats`, and for `session`: `tree`, `drops` (its last
    /// dropped steps, `limit` in `arguments`) and `endSession`.
    /// - Throws: ``FlowBusError`` `refused` (an unknown query or session), `timedOut`, `closed`.
    public func query(
        _ what: String,
        arguments: JSONObject = [:],
        session: String? = nil,
        timeout: Duration = .seconds(5)
    ) async throws(FlowBusError) -> JSONValue {
        var arguments = arguments
        if let session {
            arguments["session"] = .string(session)
        }
        return try await connection.ask(
            .query(Query(what: what, arguments: arguments)),
            session: session,
            timeout: timeout
        )
    }

    /// Injects a step into `session` as the stepper this inspector is named after (connect with that `name`),
    /// and waits for its fate — what `flowctl emit --as NAME` does. Steps bound to that stepper's contributions
    /// are handled as if it had emitted them; the real stepper may stay connected.
    /// - Throws: ``FlowBusError`` `refused` (`unknownStep`...), `queueFull`, `closed`, `cancelled`.
    public func emit(_ step: Step, session: String) async throws(FlowBusError) -> Fate {
        try await connection.emit(.step(step, presentable: nil, session: session))
    }

    /// Injects a step into `session` as the screen `presentable` (any screen on screen there), as its presenter
    /// would emit it, and waits for its fate — what `flowctl emit --from p5` does.
    /// - Throws: ``FlowBusError`` `refused` (`foreignPresentable` when the screen is not on screen...), `closed`.
    public func emit(_ step: Step, from presentable: PresentableID, session: String) async throws(FlowBusError) -> Fate
    {
        try await connection.emit(.step(step, presentable: presentable, session: session))
    }

    /// Sends a deep link (one step, or a path of steps opening nested flows in turn) to every flow of `session`
    /// and waits for its fate.
    public func deepLink(_ path: [Step], session: String) async throws(FlowBusError) -> Fate {
        try await connection.emit(.deepLink(path, session: session))
    }

    /// Sets a value of `session`'s data (what `adapt` rules read; `nil` removes it), and returns once flowd has.
    /// - Throws: ``FlowBusError`` `refused`, `timedOut`, `closed`.
    public func setSessionData(
        _ key: String,
        to value: JSONValue?,
        session: String,
        timeout: Duration = .seconds(5)
    ) async throws(FlowBusError) {
        try await connection.setSessionData(key, to: value, session: session, timeout: timeout)
    }

    /// Says goodbye to flowd and stops.
    public func close() async {
        await connection.close()
    }
}
