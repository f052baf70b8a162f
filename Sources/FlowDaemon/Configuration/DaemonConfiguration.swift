import FlowCore

/// Everything flowd can be told: where it listens, its flows, its limits and timers.
public struct DaemonConfiguration: Sendable, Hashable {
    /// The control endpoint (ROUTER), for HELLO, STEP, VISIBILITY, QUERY...
    public var controlEndpoint: String
    /// The events endpoint (XPUB), for COMMANDS and the inspection stream.
    public var eventsEndpoint: String
    /// The flow file.
    public var flowsFile: String
    /// How often a peer must hear from the daemon (heartbeats when idle).
    public var heartbeatInterval: Duration = .seconds(1)
    /// How long a silent peer is kept before it counts as gone.
    public var heartbeatTimeout: Duration = .seconds(5)
    /// The largest message taken, in bytes; a peer that sends more is disconnected.
    public var maxMessageSize: Int = 1 << 20
    /// The engine's limits (guard timeout, deep-link wait, queue sizes).
    public var engine = EngineOptions()
    /// How many step acknowledgements are kept per stepper, to answer resent steps.
    public var rememberedAcknowledgements = 256

    /// A configuration with these endpoints and flows.
    public init(controlEndpoint: String, eventsEndpoint: String, flowsFile: String) {
        self.controlEndpoint = controlEndpoint
        self.eventsEndpoint = eventsEndpoint
        self.flowsFile = flowsFile
    }
}
