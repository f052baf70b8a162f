import FlowCore
import FlowWire
import Foundation

/// An inspector's connection (what `flowctl` uses): it asks flowd about its sessions, registrations and counters.
public final class InspectorClient: Sendable {
    let connection: BusConnection

    /// flowd's version, from its WELCOME.
    public var daemonVersion: String {
        connection.welcome.withLock { $0?.daemonVersion ?? "" }
    }

    private init(_ connection: BusConnection) {
        self.connection = connection
    }

    deinit {
        connection.enqueue(.close(done: nil))
    }

    /// Connects as an inspector (no session). The default name is unique to this process.
    /// - Throws: ``FlowBusError`` `unreachable`, `refused`, `invalidOptions`.
    public static func connect(
        name: String = "inspector-\(ProcessInfo.processInfo.processIdentifier)",
        options: ClientOptions = ClientOptions()
    ) async throws -> InspectorClient {
        let setup = try ConnectionSetup(options: options, role: .inspector, name: name, session: nil)
        return InspectorClient(try await BusConnection.open(setup))
    }

    /// Asks flowd something: `sessions`, `registrations`, `stats`, `tree` and `endSession` (these two for
    /// `session`).
    /// - Throws: ``FlowBusError`` `refused` (an unknown query or session), `timedOut`, `closed`.
    public func query(
        _ what: String,
        arguments: JSONObject = [:],
        session: String? = nil,
        timeout: Duration = .seconds(5)
    ) async throws -> JSONValue {
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

    /// Says goodbye to flowd and stops.
    public func close() async {
        await connection.close()
    }
}
