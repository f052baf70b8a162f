import ArgumentParser
import FlowDaemon
import FlowStore
import Foundation
import Logging

/// flowd's settings as flags, shared by `flowd run` and `flowd config`. Each is also a key of the configuration
/// file and a `FLOWD_*` environment variable (``DaemonSetting``); a flag wins over both.
struct DaemonOptions: ParsableArguments {
    @Option(
        help:
            "A configuration file (YAML; default: $FLOWD_CONFIG, else none); FLOWD_* environment variables win over it, and flags over both. See deploy/flowd.yaml."
    )
    var config: String?

    @Option(help: "The flow file (YAML). Default: \(DaemonConfiguration.defaultFlowsFile).")
    var flows: String?

    @Option(name: .customLong("control"), help: "A control endpoint (ROUTER) to bind; repeat for several.")
    var controlEndpoints: [String] = []

    @Option(name: .customLong("events"), help: "An events endpoint (XPUB) to bind; repeat for several.")
    var eventsEndpoints: [String] = []

    @Flag(help: "Skip the default tcp endpoints (ipc only).")
    var noTCP = false

    @Option(help: "Heartbeat interval, in milliseconds. Default: \(defaults.heartbeatInterval.milliseconds).")
    var heartbeatInterval: Int?

    @Option(
        help: "How long a silent peer is kept, in milliseconds. Default: \(defaults.heartbeatTimeout.milliseconds)."
    )
    var heartbeatTimeout: Int?

    @Option(help: "The largest message taken, in bytes. Default: \(defaults.maxMessageSize).")
    var maxMessageSize: Int?

    @Option(
        help:
            "How long a guard may take to answer, in milliseconds (no answer is a refusal). Default: \(defaults.engine.guardTimeout.milliseconds)."
    )
    var guardTimeout: Int?

    @Option(
        help:
            "How long a deep link waits for its session to become ready, in milliseconds. Default: \(defaults.engine.deepLinkWait.milliseconds)."
    )
    var deepLinkWait: Int?

    @Option(
        help:
            "Messages per second one peer may send (bursts of twice as many); beyond, they are dropped and counted. 0: no limit. Default: \(defaults.peerMessageRate)."
    )
    var peerMessageRate: Int?

    @Option(
        help:
            "Bytes per second one peer may send (bursts of twice as many), counted before a message is read; beyond, its messages are dropped and counted. 0: no limit. Default: \(defaults.peerByteRate)."
    )
    var peerByteRate: Int?

    @Option(
        help:
            "The most sessions flowd holds; a HELLO that would create one more is refused. Default: \(defaults.maxSessions)."
    )
    var maxSessions: Int?

    @Option(
        help:
            "Sessions one peer may create per minute; beyond, its HELLOs are refused. Default: \(defaults.sessionsPerPeerPerMinute)."
    )
    var sessionsPerPeerPerMinute: Int?

    @Option(
        help:
            "Messages queued for one subscriber that does not read (commands, inspection events); beyond, they are dropped (a presenter resyncs). Default: \(defaults.sendQueueLimit)."
    )
    var sendQueueLimit: Int?

    @Option(
        help:
            "Presentables one session may have on screen, and flows and contributions it may run; a command beyond is left out (an event says so). Default: \(defaults.engine.maxPresentables)."
    )
    var maxPresentables: Int?

    @Option(
        help:
            "Bytes of data (SESSION_DATA keys and values, as JSON) one session may hold; a change beyond is refused. Default: \(defaults.engine.maxSessionDataBytes)."
    )
    var maxSessionDataBytes: Int?

    @Option(
        help:
            "Senders (steppers, presenters, guards, by name) one session remembers the steps of; a HELLO with one more name is refused. Default: \(defaults.maxSteppersPerSession)."
    )
    var maxSteppersPerSession: Int?

    @Option(
        help:
            "The mode of the ipc socket files, in octal: who may connect (it takes write permission). 0660 lets the group in. Default: what the umask gives (the owner only)."
    )
    var ipcMode: String?

    @Option(help: "The group the ipc socket files are given (a name or a number), with --ipc-mode.")
    var ipcGroup: String?

    @Option(
        help:
            "How long inspection events may wait to go out together to inspectors (EVENTS), in milliseconds. 0: at the end of each turn of the loop. Default: \(defaults.inspectionBatchDelay.milliseconds)."
    )
    var inspectionDelay: Int?

    @Option(help: "flowd's CURVE secret key (Z85, from `flowd keygen`): every socket then requires CURVE.")
    var curveSecretKey: String?

    @Option(
        help:
            "A file holding flowd's CURVE secret key, instead of --curve-secret-key (which shows in ps): with systemd, LoadCredential= and %d/NAME."
    )
    var curveSecretKeyFile: String?

    @Option(
        name: .customLong("authorize"),
        help:
            "A client allowed in with CURVE, as ID=PUBLIC_KEY, optionally granted only some sessions and roles: ID=PUBLIC_KEY:SESSIONS[:ROLES] (sessions: ids, prefixes ending in *, or *; roles: stepper, presenter, guard, inspector, control). Repeat for several."
    )
    var authorized: [String] = []

    @Option(
        help:
            "Where sessions are kept (journal and snapshots in flowd.db); none keeps them in memory only. Default: $XDG_STATE_HOME/flowbus, else ~/.local/state/flowbus."
    )
    var stateDir: String?

    @Option(
        help: ArgumentHelp(
            "Where sessions are kept: sqlite (the state directory, the default) or, for a fleet of flowd instances, a PostgreSQL database they share, as postgres://USER:PASSWORD@HOST/DATABASE (FLOWD_STORE keeps the password off the command line).",
            valueName: "sqlite|url"
        )
    )
    var store: String?

    @Option(
        help:
            "This instance's name in its fleet: unique, and the same across its restarts. Default: $HOSTNAME, else the host name."
    )
    var instance: String?

    @Option(
        help:
            "How long this instance's lease in its fleet lasts without renewal (renewed every third), as 5s or 1500ms (a bare number is seconds): when it dies, its sessions move to the others after about this long. Default: 5s."
    )
    var lease: String?

    @Option(
        name: .customLong("advertise-control"),
        parsing: .singleValue,
        help:
            "A control endpoint the fleet's clients are sent to for this instance (repeat for several; pairs with --advertise-events). Default: the tcp control endpoints, * made the host name."
    )
    var advertiseControl: [String] = []

    @Option(
        name: .customLong("advertise-events"),
        parsing: .singleValue,
        help: "An events endpoint the fleet's clients are sent to for this instance (repeat for several)."
    )
    var advertiseEvents: [String] = []

    @Flag(help: "Keep sessions in memory only (the same as --state-dir none): a restart loses them.")
    var ephemeral = false

    @Option(
        help:
            "What an acknowledgement waits for: os (written to the operating system: survives kill -9), fsync (on the disk: survives a power loss), off (nothing: a crash loses the last turn). Default: os."
    )
    var durability: Durability?

    @Option(
        help:
            "How long flowd waits for a store that does not answer (a fleet's database down or being promoted, a full disk) before it stops with exit code 74, as 60s, 2m (a bare number is seconds); meanwhile HELLOs are refused with storeUnavailable and steps wait, unacknowledged. Default: 60s."
    )
    var storeRetryWindow: String?

    @Option(
        help:
            "How long a session no peer touches is kept before it is ended and removed, as 7d, 12h, 30m, 45s (a bare number is seconds); 0 keeps it for ever. Downtime does not count. Default: 7d."
    )
    var idleSessionExpiry: String?

    @Option(
        help: "Journal entries after which a session is written whole (a snapshot). Default: \(defaults.snapshotEvery)."
    )
    var snapshotEvery: Int?

    @Option(help: "How often sessions changed since their last snapshot are written whole, as 60s or 5m. Default: 60s.")
    var snapshotInterval: String?

    @Option(
        help: ArgumentHelp(
            "Serve metrics (GET /metrics, Prometheus's text format) and health checks (GET /livez, /readyz) over HTTP at HOST:PORT, e.g. 127.0.0.1:9862. Default: not served.",
            valueName: "host:port"
        )
    )
    var metrics: String?

    @Option(
        help: ArgumentHelp(
            "Also speak the protocol over WebSocket at HOST:PORT (browsers; flowbus.js is served there too), e.g. 127.0.0.1:5862. Without tokens it must be a loopback address, and takes connections from this machine only. Default: off.",
            valueName: "host:port"
        )
    )
    var websocket: String?

    @Option(
        help:
            "The origins whose pages may open the WebSocket endpoint, separated by commas (https://kiosk.example,http://localhost:8080), or *. Default: pages served from localhost, 127.0.0.1 or [::1]."
    )
    var websocketOrigins: String?

    @Option(
        help:
            "A file of WebSocket tokens, one ID=TOKEN[:SESSIONS[:ROLES]] per line (`flowd keygen --token ID` makes one); each token's holder connects as ID with the grant given, as a CURVE key. (Or FLOWD_WEBSOCKET_TOKENS; never on the command line.)"
    )
    var websocketTokensFile: String?

    @Option(help: "The most WebSocket connections open at once. Default: 1024.")
    var websocketMaxConnections: Int?

    @Option(
        help:
            "How log lines are written: text (a UTC timestamp with milliseconds, none under journald, then the level, the message and key=value pairs) or json (one object per line). Default: text."
    )
    var logFormat: LogFormat?

    @Option(
        help:
            "The lowest level logged to standard error: trace, debug, info, notice, warning, error, critical. Default: info."
    )
    var logLevel: Logger.Level?

    /// The settings given as flags.
    var commandLine: DaemonSettings {
        var settings = DaemonSettings()
        func set(_ setting: DaemonSetting, _ value: SettingValue?) {
            if let value { settings.set(setting, value) }
        }
        set(.flows, flows.map(SettingValue.text))
        set(.control, controlEndpoints.isEmpty ? nil : .texts(controlEndpoints))
        set(.events, eventsEndpoints.isEmpty ? nil : .texts(eventsEndpoints))
        set(.tcp, noTCP ? .toggle(false) : nil)
        let numbers: [(DaemonSetting, Int?)] = [
            (.heartbeatInterval, heartbeatInterval), (.heartbeatTimeout, heartbeatTimeout),
            (.maxMessageSize, maxMessageSize), (.guardTimeout, guardTimeout), (.deepLinkWait, deepLinkWait),
            (.peerMessageRate, peerMessageRate), (.peerByteRate, peerByteRate), (.maxSessions, maxSessions),
            (.sessionsPerPeerPerMinute, sessionsPerPeerPerMinute), (.sendQueueLimit, sendQueueLimit),
            (.maxPresentables, maxPresentables), (.maxSessionDataBytes, maxSessionDataBytes),
            (.maxSteppersPerSession, maxSteppersPerSession), (.inspectionDelay, inspectionDelay),
            (.snapshotEvery, snapshotEvery), (.websocketMaxConnections, websocketMaxConnections),
        ]
        for (setting, number) in numbers {
            set(setting, number.map(SettingValue.number))
        }
        let texts: [(DaemonSetting, String?)] = [
            (.ipcMode, ipcMode), (.ipcGroup, ipcGroup), (.curveSecretKey, curveSecretKey),
            (.curveSecretKeyFile, curveSecretKeyFile), (.metrics, metrics), (.logFormat, logFormat?.rawValue),
            (.logLevel, logLevel?.rawValue), (.durability, durability?.rawValue), (.stateDir, stateDir),
            (.idleSessionExpiry, idleSessionExpiry), (.store, store), (.instance, instance), (.lease, lease),
            (.snapshotInterval, snapshotInterval), (.storeRetryWindow, storeRetryWindow), (.websocket, websocket),
            (.websocketOrigins, websocketOrigins), (.websocketTokensFile, websocketTokensFile),
        ]
        for (setting, text) in texts {
            set(setting, text.map(SettingValue.text))
        }
        set(.advertiseControl, advertiseControl.isEmpty ? nil : .texts(advertiseControl))
        set(.advertiseEvents, advertiseEvents.isEmpty ? nil : .texts(advertiseEvents))
        if ephemeral {
            settings.set(.stateDir, .text("none"), from: .commandLine(flag: "--ephemeral"))
        }
        let clients = authorized.compactMap { try? ClientAuthorization(parsing: $0) }
        set(.authorizedKeys, clients.isEmpty ? nil : .authorizations(clients))
        return settings
    }

    /// The sources of flowd's settings: these flags, the environment, and the configuration file if one is given.
    var sources: SettingSources {
        let environment = ProcessInfo.processInfo.environment
        let named = environment[SettingSources.configurationVariable].flatMap { $0.isEmpty ? nil : $0 }
        return SettingSources(commandLine: commandLine, environment: environment, file: config ?? named)
    }

    func validate() throws {
        // Values of the wrong kind are usage errors (exit 64), before any other source is read.
        if let problem = commandLine.flagProblems.first {
            throw ValidationError(problem)
        }
        for entry in authorized {
            do {
                _ = try ClientAuthorization(parsing: entry)
            } catch {
                throw ValidationError("--authorize: \(error)")
            }
        }
        if ephemeral, let store, store != "sqlite" {
            throw ValidationError("--ephemeral and --store \(store.prefix(12))... contradict each other; give one")
        }
        if ephemeral, let stateDir, stateDir != "none" {
            throw ValidationError("--ephemeral and --state-dir \(stateDir) contradict each other; give one")
        }
        if ephemeral || stateDir == "none", let durability {
            throw ValidationError(
                "--durability \(durability.rawValue) means nothing with --ephemeral: nothing is written"
            )
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

extension Durability: ExpressibleByArgument {}

extension LogFormat: ExpressibleByArgument {}

/// The built-in settings, for the help texts.
private let defaults = DaemonConfiguration(controlEndpoints: [], eventsEndpoints: [], flowsFile: "")
