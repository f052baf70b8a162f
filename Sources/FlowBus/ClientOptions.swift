import FlowWire
import Foundation
import Logging
import ZeroMQ

/// How a client reaches flowd and behaves on the bus.
///
/// A client finds flowd as `flowctl` does: the endpoints, id and CURVE keys given here, else the environment
/// (`FLOWBUS_CONTROL` and `FLOWBUS_EVENTS`, comma-separated lists for a fleet; `FLOWBUS_ID`;
/// `FLOWBUS_CURVE_SECRET_KEY` and `FLOWBUS_CURVE_SERVER_KEY`), else flowd's defaults: its ipc endpoints in the
/// user's runtime directory (or the Debian package's `/run/flowbus`) when flowd listens there, else tcp on
/// loopback; no encryption; five seconds to find the daemon.
public struct ClientOptions: Sendable {
    /// Where flowd listens.
    public var endpoints: Endpoints
    /// Other instances of a fleet of flowd, tried in order after ``endpoints`` when the one in use does not answer.
    /// Any instance will do: one that does not serve the client's session sends it to the one that does (REDIRECT).
    public var alternateEndpoints: [Endpoints]
    /// The connection id, unique on the daemon (a restarted process with the same id takes its place). `nil`:
    /// `<session>/<name>`.
    public var id: String?
    /// CURVE encryption and authentication, for tcp across machines; `nil` for none.
    public var curve: ClientCurve?
    /// How long `connect` of each client waits for
    /// flowd before failing with ``FlowBusError/Code/unreachable``.
    public var connectTimeout: Duration
    /// The most steps that may wait for their fate at once (1 to 256: flowd remembers the last 256 fates of each
    /// sender, to answer resent steps); emitting more fails with ``FlowBusError/Code/queueFull`` instead of letting
    /// memory grow while flowd is away.
    public var maxOutstandingSteps: Int
    /// The first wait before reconnecting after a lost connection; it doubles on each failure...
    public var reconnectInterval: Duration
    /// ...up to this.
    public var reconnectIntervalMax: Duration
    /// How often the control connection itself is checked (ZeroMQ's ZMTP heartbeats, which flowd's ZeroMQ I/O
    /// thread answers however busy its loop is): a connection silent for four times this is dropped, and in a
    /// fleet the next instance is tried half a second later. A flowd that is killed, paused (SIGSTOP) or cut off is
    /// left within about 1.3 s by default, long before its `heartbeatTimeout`.
    public var connectionCheckInterval: Duration
    /// Where the client says what it does (reconnections, resyncs, refusals). Silent by default.
    public var logger: Logger
    /// What is wrong with the CURVE keys the environment gives, if anything: connecting then fails with
    /// ``FlowBusError/Code/invalidOptions`` and this message.
    public private(set) var environmentProblem: String?

    /// Options with the arguments given; what is not given comes from the environment, else flowd's defaults (see
    /// ``ClientOptions``).
    /// - Parameters:
    ///   - endpoints: where flowd listens; `nil`: `FLOWBUS_CONTROL`/`FLOWBUS_EVENTS`, else the defaults.
    ///   - alternateEndpoints: other instances of a fleet; `nil`: the rest of the environment's lists, if any.
    ///   - id: the connection id; `nil`: `FLOWBUS_ID` (meant for a process with one client: two clients under one
    ///     id take each other's connection), else `<session>/<name>`.
    ///   - curve: CURVE keys; `nil`: `FLOWBUS_CURVE_SECRET_KEY` and `FLOWBUS_CURVE_SERVER_KEY`, else none.
    ///   - connectTimeout: how long `connect` waits for flowd (``connectTimeout``).
    ///   - maxOutstandingSteps: the most steps that may wait for their fate (``maxOutstandingSteps``).
    ///   - reconnectInterval: the first wait before reconnecting (``reconnectInterval``).
    ///   - reconnectIntervalMax: the longest wait before reconnecting (``reconnectIntervalMax``).
    ///   - connectionCheckInterval: how often the control connection is checked (``connectionCheckInterval``).
    ///   - logger: where the client says what it does (``logger``).
    ///   - environment: where the variables are read (the process's environment by default).
    public init(
        endpoints: Endpoints? = nil,
        alternateEndpoints: [Endpoints]? = nil,
        id: String? = nil,
        curve: ClientCurve? = nil,
        connectTimeout: Duration = .seconds(5),
        maxOutstandingSteps: Int = 256,
        reconnectInterval: Duration = .milliseconds(100),
        reconnectIntervalMax: Duration = .seconds(5),
        connectionCheckInterval: Duration = .milliseconds(200),
        logger: Logger = Logger(label: "flowbus.client", factory: { _ in SwiftLogNoOpLogHandler() }),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        let located = endpoints == nil ? Endpoints.located(environment: environment) : []
        self.endpoints = endpoints ?? located[0]
        self.alternateEndpoints = alternateEndpoints ?? Array(located.dropFirst())
        let variable = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        self.id = id ?? variable("FLOWBUS_ID")
        if let curve {
            self.curve = curve
        } else {
            switch (variable("FLOWBUS_CURVE_SECRET_KEY"), variable("FLOWBUS_CURVE_SERVER_KEY")) {
            case (nil, nil):
                self.curve = nil
            case (let secret?, let server?):
                do {
                    self.curve = ClientCurve(
                        keys: try CurveKeyPair(secretKey: try CurveKey(z85: secret)),
                        serverKey: try CurveKey(z85: server)
                    )
                } catch {
                    self.curve = nil
                    environmentProblem =
                        "FLOWBUS_CURVE_SECRET_KEY or FLOWBUS_CURVE_SERVER_KEY is not a CURVE key (40 Z85 characters, as `flowd keygen` prints): \(error)"
                }
            case (.some, nil), (nil, .some):
                self.curve = nil
                environmentProblem =
                    "CURVE needs both FLOWBUS_CURVE_SECRET_KEY and FLOWBUS_CURVE_SERVER_KEY; only one is set"
            }
        }
        self.connectTimeout = connectTimeout
        self.maxOutstandingSteps = maxOutstandingSteps
        self.reconnectInterval = reconnectInterval
        self.reconnectIntervalMax = reconnectIntervalMax
        self.connectionCheckInterval = connectionCheckInterval
        self.logger = logger
    }
}

extension ClientOptions {
    /// Every instance to try, in order: ``endpoints`` first.
    var endpointCandidates: [Endpoints] { [endpoints] + alternateEndpoints }
}

/// A client's CURVE keys and the daemon's public key.
public struct ClientCurve: Sendable, Hashable {
    /// The client's key pair; flowd must list its public key for the client's id.
    public var keys: CurveKeyPair
    /// flowd's public key.
    public var serverKey: CurveKey

    public init(keys: CurveKeyPair, serverKey: CurveKey) {
        self.keys = keys
        self.serverKey = serverKey
    }
}
