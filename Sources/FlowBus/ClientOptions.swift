import FlowWire
import Logging
import ZeroMQ

/// How a client reaches flowd and behaves on the bus. The defaults match flowd's: its ipc endpoints in the
/// runtime directory, no encryption, five seconds to find the daemon.
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
    /// How often the connections themselves are checked (ZeroMQ's ZMTP heartbeats, which flowd's ZeroMQ I/O
    /// thread answers however busy its loop is): a connection silent for four times this is dropped, and in a
    /// fleet the next instance is tried half a second later. A flowd that is killed, paused (SIGSTOP) or cut off is
    /// left within about 1.3 s by default, long before its `heartbeatTimeout`.
    public var connectionCheckInterval: Duration
    /// Where the client says what it does (reconnections, resyncs, refusals). Silent by default.
    public var logger: Logger

    /// Options with flowd's defaults, changed by the arguments given.
    public init(
        endpoints: Endpoints = .defaultIPC(),
        alternateEndpoints: [Endpoints] = [],
        id: String? = nil,
        curve: ClientCurve? = nil,
        connectTimeout: Duration = .seconds(5),
        maxOutstandingSteps: Int = 256,
        reconnectInterval: Duration = .milliseconds(100),
        reconnectIntervalMax: Duration = .seconds(5),
        connectionCheckInterval: Duration = .milliseconds(200),
        logger: Logger = Logger(label: "flowbus.client", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.endpoints = endpoints
        self.alternateEndpoints = alternateEndpoints
        self.id = id
        self.curve = curve
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
