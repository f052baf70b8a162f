import ArgumentParser
import FlowBus
import FlowWire
import Foundation
import ZeroMQ

/// Where flowd is, shared by every subcommand.
struct BusOptions: ParsableArguments {
    @Option(
        help:
            "flowd's control endpoint; for a fleet, its instances' endpoints separated by commas (tried in order). Default: $FLOWBUS_CONTROL, else flowd's ipc endpoint in the runtime directory or in /run/flowbus when its socket is there, else tcp://127.0.0.1:5860."
    )
    var control: String?

    @Option(
        help:
            "flowd's events endpoint; for a fleet, one per control endpoint, in the same order. Default: $FLOWBUS_EVENTS, else flowd's ipc endpoint in the runtime directory or in /run/flowbus when its socket is there, else tcp://127.0.0.1:5861."
    )
    var events: String?

    @Option(name: .customLong("connect-timeout"), help: "How long to wait for flowd, in milliseconds.")
    var timeout = 3000

    @Option(
        name: .customLong("curve-secret-key"),
        help:
            "With CURVE: this client's secret key (Z85, from `flowd keygen`); flowd authorizes its public key for --id. Default: $FLOWBUS_CURVE_SECRET_KEY."
    )
    var curveSecretKeyFlag: String?

    @Option(
        name: .customLong("curve-server-key"),
        help: "With CURVE: flowd's public key (Z85). Default: $FLOWBUS_CURVE_SERVER_KEY."
    )
    var curveServerKeyFlag: String?

    @Option(
        name: .customLong("id"),
        help: "The connection's id (with CURVE, the id flowd authorizes this client's key for). Default: $FLOWBUS_ID."
    )
    var idFlag: String?

    /// The process's environment, where a host's profile sets flowd's place and keys once.
    private var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// A setting from its flag, else from the environment (an empty variable counts as unset).
    private func setting(_ flag: String?, _ variable: String) -> String? {
        flag ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    var curveSecretKey: String? { setting(curveSecretKeyFlag, "FLOWBUS_CURVE_SECRET_KEY") }
    var curveServerKey: String? { setting(curveServerKeyFlag, "FLOWBUS_CURVE_SERVER_KEY") }
    var id: String? { setting(idFlag, "FLOWBUS_ID") }

    /// Where flowd is: the flags, else `FLOWBUS_CONTROL` and `FLOWBUS_EVENTS`, else flowd's default ipc endpoints
    /// (in the user's runtime directory, then the package's `/run/flowbus`) when their socket file is there (or when
    /// it is there but not writable: the error then says so), else its default tcp endpoints.
    var endpoints: Endpoints {
        endpointList.first ?? Endpoints.defaultTCP
    }

    /// Every instance given (a fleet: comma-separated lists), the first first; one when the lists do not pair up
    /// (``validate()`` says so).
    var endpointList: [Endpoints] {
        Endpoints.located(control: control, events: events, environment: environment)
    }

    func validate() throws {
        guard timeout > 0 else {
            throw ValidationError("--connect-timeout must be positive, not \(timeout)")
        }
        let given = (setting(control, "FLOWBUS_CONTROL"), setting(events, "FLOWBUS_EVENTS"))
        if given.0?.contains(",") == true || given.1?.contains(",") == true {
            guard let control = given.0, let events = given.1, Endpoints.list(control: control, events: events) != nil
            else {
                throw ValidationError(
                    "a fleet's endpoints pair up: give as many control endpoints as events endpoints, separated by commas (--control, --events, FLOWBUS_CONTROL, FLOWBUS_EVENTS)"
                )
            }
        }
        for endpoint in endpointList.flatMap({ [$0.control, $0.events] }) where !endpoint.contains("://") {
            throw ValidationError(
                "'\(endpoint)' is not an endpoint (--control, --events, FLOWBUS_CONTROL, FLOWBUS_EVENTS); write tcp://HOST:PORT or ipc:///PATH"
            )
        }
        guard (curveSecretKey == nil) == (curveServerKey == nil) else {
            throw ValidationError(
                "CURVE needs both keys: --curve-secret-key (or FLOWBUS_CURVE_SECRET_KEY) and --curve-server-key (or FLOWBUS_CURVE_SERVER_KEY)"
            )
        }
        _ = try curve()
    }

    /// The CURVE keys given, checked.
    func curve() throws -> ClientCurve? {
        guard let curveSecretKey, let curveServerKey else { return nil }
        do {
            return ClientCurve(
                keys: try CurveKeyPair(secretKey: try CurveKey(z85: curveSecretKey)),
                serverKey: try CurveKey(z85: curveServerKey)
            )
        } catch {
            throw ValidationError("a CURVE key is 40 Z85 characters, as `flowd keygen` prints: \(error)")
        }
    }

    var clientOptions: ClientOptions {
        var options = ClientOptions(
            endpoints: endpoints,
            alternateEndpoints: Array(endpointList.dropFirst()),
            connectTimeout: .milliseconds(timeout)
        )
        options.curve = try? curve()
        options.id = id
        return options
    }

    /// An inspector connected to flowd (at `endpoints`, another instance of its fleet, when given; of `session`
    /// only, when given: in a fleet, at the instance that serves it); exits 69 with a clear message when flowd is
    /// not there.
    func inspector(at endpoints: Endpoints? = nil, session: String? = nil) async throws -> InspectorClient {
        try refuseWithoutPermission()
        var options = clientOptions
        if let endpoints {
            options.endpoints = endpoints
            options.alternateEndpoints = []
        }
        do {
            return try await InspectorClient.connect(session: session, options: options)
        } catch {
            guard error.code == .unreachable else { throw error }
            sayUnreachable(error, at: options.endpoints)
            throw ExitCode(69)
        }
    }

    /// Says that flowd does not answer at `endpoints`, and why when the client knows (a socket file that is not
    /// there or not writable, a refused key, a failed handshake).
    func sayUnreachable(_ error: FlowBusError, at endpoints: Endpoints) {
        let problem = error.message.split(separator: "; ", maxSplits: 1).dropFirst().first.map { ": \($0)" } ?? ""
        printError("flowctl: flowd is not answering at \(endpoints.control) (waited \(timeout) ms)\(problem)")
    }

    /// The live instances of flowd's fleet, each with the endpoints to reach it at (of the transport flowctl uses);
    /// empty for a flowd of its own.
    func fleetInstances() async throws -> [(name: String, endpoints: Endpoints)] {
        let inspector = try await inspector()
        let fleet = try await query(inspector, "fleet").objectValue ?? [:]
        await inspector.close()
        guard fleet["fleet"] == .bool(true) else { return [] }
        return (fleet["instances"]?.arrayValue?.compactMap(\.objectValue) ?? []).compactMap { member in
            guard member["alive"] == .bool(true), let name = member["name"]?.stringValue,
                let endpoints = Endpoints.preferred(
                    control: member["control"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                    events: member["events"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                    like: self.endpoints.control
                )
            else { return nil }
            return (name, endpoints)
        }
    }

    /// Exits 77 saying "permission denied" when the control endpoint is an ipc socket this user may not connect
    /// to (rather than waiting and saying flowd does not answer).
    func refuseWithoutPermission() throws {
        if let problem = IPCAccess.problem(with: endpoints.control), IPCAccess.isPermissionDenied(problem) {
            printError("flowctl: cannot reach flowd at \(endpoints.control): \(problem)")
            throw ExitCode(77)
        }
    }

    /// Every entry of a listing query (`sessions`, `registrations`), asked page by page: flowd answers at most a
    /// thousand at a time, so that a long list never exceeds a message.
    func allPages(_ inspector: InspectorClient, _ what: String) async throws -> JSONValue {
        var entries: [JSONValue] = []
        var after: String?
        while true {
            var arguments: JSONObject = ["limit": .int(Self.pageSize)]
            if let after { arguments["after"] = .string(after) }
            let page = try await query(inspector, what, arguments: arguments).arrayValue ?? []
            entries += page
            let key = what == "sessions" ? "session" : "id"
            guard page.count == Self.pageSize, let last = page.last?.objectValue?[key]?.stringValue else { break }
            after = last
        }
        return .array(entries)
    }

    /// The page size flowctl asks for (flowd's most).
    static let pageSize = 1000

    /// Asks flowd; a refusal (an unknown session...) exits 1 with flowd's words.
    func query(
        _ inspector: InspectorClient,
        _ what: String,
        session: String? = nil,
        arguments: JSONObject = [:]
    ) async throws -> JSONValue {
        do {
            return try await inspector.query(
                what,
                arguments: arguments,
                session: session,
                timeout: .milliseconds(timeout)
            )
        } catch {
            // flowctl exits now: BYE first, so that flowd forgets the connection at once, not after its silence.
            await inspector.close()
            if error.daemonCode == ErrorCode.unknownSession.rawValue, let session {
                printError("flowctl: flowd has no session '\(session)' (flowctl list shows them)")
            } else {
                printError("flowctl: \(what): \(error.message)")
            }
            throw ExitCode(error.code == .timedOut ? 69 : 1)
        }
    }
}

/// A duration in milliseconds, with three decimals.
func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(format: "%.3f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Writes a line to standard output at once (not buffered: a pipe sees each line as it comes).
func printLine(_ line: String) {
    printLines(Array((line + "\n").utf8))
}

/// Writes lines of UTF-8 (each ending with a newline) to standard output at once, in one write.
func printLines(_ lines: [UInt8]) {
    FileHandle.standardOutput.write(Data(lines))
}

/// Prints a JSON value on one line.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

extension BusOptions {
    /// Exits 1 when flowd does not have `session`, asking on a connection of its own.
    func requireSession(_ session: String) async throws {
        let inspector = try await inspector(session: session)
        do {
            try await requireSession(session, inspector)
        } catch {
            await inspector.close()
            throw error
        }
        await inspector.close()
    }

    /// Exits 1 with "flowd has no session 'X' (flowctl list shows them)" when flowd does not have `session`.
    func requireSession(_ session: String, _ inspector: InspectorClient) async throws {
        _ = try await query(inspector, "tree", session: session)
    }

    /// The session a subcommand acts on: the one given, or flowd's only session. Exits 1 when flowd has no session
    /// of the name given (the one rule of every subcommand that names a session), or when none is given and flowd
    /// does not have exactly one.
    func session(_ given: String?, _ inspector: InspectorClient) async throws -> String {
        if let given {
            try await requireSession(given, inspector)
            return given
        }
        let sessions = (try await allPages(inspector, "sessions").arrayValue ?? []).compactMap {
            $0.objectValue?["session"]?.stringValue
        }
        guard sessions.count == 1, let only = sessions.first else {
            await inspector.close()
            printError(
                sessions.isEmpty
                    ? "flowctl: flowd has no session yet"
                    : "flowctl: name the session: flowd has \(sessions.joined(separator: ", "))"
            )
            throw ExitCode(1)
        }
        return only
    }
}
