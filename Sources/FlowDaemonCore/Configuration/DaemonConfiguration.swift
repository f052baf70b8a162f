import FlowCore
import FlowStore
import FlowWire
import Foundation
import Logging

/// Everything flowd can be told: where it listens, its flows, its limits and timers.
public struct DaemonConfiguration: Sendable, Hashable {
    /// The control endpoints (one ROUTER bound to each), for HELLO, STEP, VISIBILITY, QUERY...
    public var controlEndpoints: [String]
    /// The events endpoints (one XPUB bound to each), for COMMANDS and the inspection stream.
    public var eventsEndpoints: [String]
    /// The flow file.
    public var flowsFile: String
    /// How often a peer must hear from the daemon (heartbeats when idle).
    public var heartbeatInterval: Duration = .seconds(1)
    /// How long a silent peer is kept before it counts as gone.
    public var heartbeatTimeout: Duration = .seconds(5)
    /// The largest message taken, in bytes; a peer that sends more is disconnected.
    public var maxMessageSize: Int = 64 << 10
    /// The engine's limits (guard timeout, deep-link wait, queue sizes).
    public var engine = EngineOptions()
    /// How many step acknowledgements are kept at least per stepper (the last ones), to answer resent steps.
    public var rememberedAcknowledgements = 256
    /// How many messages per second one peer may send (with bursts of twice as many); beyond, its messages are
    /// dropped, counted (`errors.flood`) and answered with one `flood` ERROR per second. 0: no limit.
    public var peerMessageRate = 50_000
    /// How many bytes per second one peer may send (with bursts of twice as many), counted before a message is
    /// read: what reading costs grows with the bytes (25 ns per byte for the most expensive bodies, measured with
    /// `flowbench hostile`), so a peer flooding at this rate costs flowd about 5% of a core. 2 MiB is ten thousand
    /// steps a second. Beyond, as for ``peerMessageRate``. 0: no limit.
    public var peerByteRate = 2 << 20
    /// How many messages flowd queues for one subscriber (commands, inspection events) that does not read; beyond,
    /// what is published to it is dropped (a presenter sees the gap and resyncs). (Replies to one peer: at most
    /// 1000, beyond which they are dropped and counted, and a peer whose replies are dropped for 5 s is forgotten.)
    public var sendQueueLimit = 5_000
    /// The mode of flowd's ipc socket files (connecting needs write permission): `0o660` lets the group in,
    /// `0o666` everyone; `nil` leaves what the umask gives (usually the owner only).
    public var ipcMode: UInt32?
    /// The group flowd's ipc socket files are given (a name or a number), with ``ipcMode``.
    public var ipcGroup: String?
    /// How many sessions flowd holds at most; a HELLO that would create one more is refused (`sessionLimit`).
    public var maxSessions = 100_000
    /// How many sessions one peer may create per minute (bursts included); beyond, `sessionLimit`.
    public var sessionsPerPeerPerMinute = 60
    /// How many senders (steppers, presenters, guards, by name) a session remembers the steps of; a HELLO of one
    /// more name is refused (`sessionLimit`).
    public var maxSteppersPerSession = 1000
    /// How long batched inspection events (EVENTS) may wait to be published: a watcher sees each event at most this
    /// late, and a busy daemon sends it one message for many steps. Zero publishes at the end of each turn.
    public var inspectionBatchDelay: Duration = .milliseconds(5)
    /// Whether the flow file was given (a flag or the configuration file) rather than found in a default place.
    public var flowsFileGiven = true
    /// How log lines are written to standard error.
    public var logFormat = LogFormat.text
    /// The lowest level of the lines logged.
    public var logLevel = Logger.Level.info
    /// Where metrics (`/metrics`) and health checks (`/livez`, `/readyz`) are served over HTTP; `nil` for nowhere.
    public var metricsAddress: MetricsAddress?
    /// CURVE encryption and client authentication; `nil` for none.
    public var curve: CurveSettings?
    /// The WebSocket endpoint (the protocol for browsers); `nil` when it is off (the default).
    public var webSocket: WebSocketSettings?
    /// Where the sessions are kept (the journal and snapshots, `flowd.db`); `nil` keeps them in memory only
    /// (`--ephemeral`): a restart then loses them.
    public var stateDirectory: String?
    /// A fleet's store and this instance's place in it; `nil` for a flowd of its own (the state directory).
    public var fleet: FleetConfiguration?
    /// What an acknowledgement waits for.
    public var durability = Durability.os
    /// A session's snapshot is written once this many journal entries follow the last one (and they take 8 times as
    /// many bytes as that snapshot did: a large session is written whole less often).
    public var snapshotEvery = 1000
    /// Sessions changed since their last snapshot get a new one this often.
    public var snapshotInterval: Duration = .seconds(60)
    /// How long flowd waits for a store that does not answer (a database that is down, a full disk): meanwhile
    /// HELLOs are refused with `storeUnavailable` and steps wait; after it, flowd stops with exit code 74.
    public var storeRetryWindow: Duration = .seconds(60)
    /// Sessions without a peer for this long are ended and removed; `nil` keeps them for ever.
    public var idleSessionExpiry: Duration? = .seconds(7 * 24 * 3600)
    /// Whether sessions whose flows the flows file no longer has are dropped at start-up (otherwise flowd refuses
    /// to start, naming them).
    public var dropSessionsWithMissingFlows = false

    /// Whether the sessions are kept in a store.
    public var durable: Bool { stateDirectory != nil || fleet != nil }

    /// A configuration with these endpoints and flows.
    public init(controlEndpoints: [String], eventsEndpoints: [String], flowsFile: String) {
        self.controlEndpoints = controlEndpoints
        self.eventsEndpoints = eventsEndpoints
        self.flowsFile = flowsFile
    }

    /// The default tcp endpoints: loopback, fixed ports (the clients' defaults too: FlowWire's `Endpoints.defaultTCP`).
    public static let defaultControlTCP = Endpoints.defaultTCP.control
    /// The default tcp events endpoint.
    public static let defaultEventsTCP = Endpoints.defaultTCP.events

    /// The default ipc endpoints, in the runtime directory (`$XDG_RUNTIME_DIR/flowbus`, else `/tmp/flowbus-<uid>`).
    public static func defaultIPC(environment: [String: String]) -> Endpoints {
        Endpoints.defaultIPC(environment: environment)
    }
}
