import ArgumentParser
import Dispatch
import FlowDaemon
import FlowSpec
import FlowStore
import Foundation
import Logging
import ServiceLifecycle

/// `flowd run` (the default): serve the flows on the control and events endpoints until SIGTERM or SIGINT.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the coordinator daemon (the default subcommand).",
        discussion: """
            With no endpoint options, flowd listens on ipc in its runtime directory ($XDG_RUNTIME_DIR/flowbus, \
            else /tmp/flowbus-UID) and on tcp://127.0.0.1:5860 (control) and :5861 (events), and prints them. \
            SIGTERM or SIGINT stop it gracefully (exit 0); SIGHUP reloads the flows file, keeping the running \
            sessions when the new file is valid and refusing it (with its problems) when not.

            Sessions are durable by default: flowd keeps a journal and snapshots in SQLite (flowd.db) in its state \
            directory, $XDG_STATE_HOME/flowbus (else ~/.local/state/flowbus), and a restart — even kill -9 — brings \
            back every session and every acknowledged step. --ephemeral (or --state-dir none) keeps them in memory \
            only. One flowd per state directory.

            Exit codes: 0 stopped by a signal; 1 cannot start (configuration, flows file, an endpoint in use); \
            64 bad arguments; 65 the state file is damaged, foreign or newer than this flowd; 73 another flowd holds \
            the state directory; 74 the state directory or file cannot be created, opened or written (during a run: \
            flowd stops rather than acknowledge what is not written); 78 the flows file lost flows that stored \
            sessions use.

            Examples:
              flowd --flows deploy/flows/movies.yaml
              flowd --flows app.yaml --control ipc:///run/flowbus/control --events ipc:///run/flowbus/events
              flowd --flows app.yaml --state-dir /var/lib/flowbus --durability fsync
              flowd --flows app.yaml --ephemeral
            """
    )

    @Option(help: "A configuration file (YAML); flags given here win over it. See deploy/flowd.yaml.")
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

    @Flag(help: "Keep sessions in memory only (the same as --state-dir none): a restart loses them.")
    var ephemeral = false

    @Option(
        help:
            "What an acknowledgement waits for: os (written to the operating system: survives kill -9), fsync (on the disk: survives a power loss), off (nothing: a crash loses the last turn). Default: os."
    )
    var durability: Durability?

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

    @Flag(
        help:
            "At start-up, end the stored sessions that use flows the flows file no longer has (else flowd refuses to start)."
    )
    var dropSessionsWithMissingFlows = false

    @Option(
        help: ArgumentHelp(
            "Serve metrics (GET /metrics, Prometheus's text format) and health checks (GET /livez, /readyz) over HTTP at HOST:PORT, e.g. 127.0.0.1:9862. Default: not served.",
            valueName: "host:port"
        )
    )
    var metrics: String?

    @Option(
        help:
            "How log lines are written: text (a UTC timestamp with milliseconds, none under journald, then the level, the message and key=value pairs) or json (one object per line). Default: text."
    )
    var logFormat: LogFormat?

    @Option(help: "The lowest level logged to standard error: trace, debug, info, notice, warning, error.")
    var logLevel: Logger.Level = .info

    /// The settings given as flags, to win over the configuration file.
    private var flags: ConfigurationFile {
        var flags = ConfigurationFile()
        flags.flows = flows
        flags.control = controlEndpoints.isEmpty ? nil : controlEndpoints
        flags.events = eventsEndpoints.isEmpty ? nil : eventsEndpoints
        flags.tcp = noTCP ? false : nil
        flags.heartbeatInterval = heartbeatInterval
        flags.heartbeatTimeout = heartbeatTimeout
        flags.maxMessageSize = maxMessageSize
        flags.guardTimeout = guardTimeout
        flags.peerMessageRate = peerMessageRate
        flags.peerByteRate = peerByteRate
        flags.maxSessions = maxSessions
        flags.sessionsPerPeerPerMinute = sessionsPerPeerPerMinute
        flags.sendQueueLimit = sendQueueLimit
        flags.maxPresentables = maxPresentables
        flags.maxSessionDataBytes = maxSessionDataBytes
        flags.maxSteppersPerSession = maxSteppersPerSession
        flags.ipcMode = ipcMode
        flags.ipcGroup = ipcGroup
        flags.inspectionDelay = inspectionDelay
        flags.metrics = metrics
        flags.logFormat = logFormat?.rawValue
        flags.deepLinkWait = deepLinkWait
        flags.curveSecretKey = curveSecretKey
        flags.curveSecretKeyFile = curveSecretKeyFile
        var keys: [String: String] = [:]
        var grants: [String: ClientGrant] = [:]
        for entry in authorized {
            if let (id, key, grant) = Self.authorization(entry) {
                keys[id] = key
                grants[id] = grant
            }
        }
        flags.grants = grants.isEmpty ? nil : grants
        flags.authorizedKeys = keys.isEmpty ? nil : keys
        flags.stateDir =
            ephemeral
            ? "none"
            : stateDir.map {
                StateDirectory.resolve(
                    $0,
                    relativeTo: FileManager.default.currentDirectoryPath,
                    environment: ProcessInfo.processInfo.environment
                )
            }
        flags.durability = durability
        flags.idleSessionExpiry = idleSessionExpiry.flatMap(DurationText.parse)
        flags.snapshotEvery = snapshotEvery
        flags.snapshotInterval = snapshotInterval.flatMap(DurationText.parse)
        return flags
    }

    /// `ID=PUBLIC_KEY[:SESSIONS[:ROLES]]` read: the id, the 40-character key, and the grant when one is given;
    /// `nil` when the id or the key is missing or the grant cannot be read.
    static func authorization(_ entry: String) -> (id: String, key: String, grant: ClientGrant?)? {
        try? parseAuthorization(entry)
    }

    /// `ID=PUBLIC_KEY[:SESSIONS[:ROLES]]` read, or why it cannot be.
    static func parseAuthorization(_ entry: String) throws -> (id: String, key: String, grant: ClientGrant?) {
        let form =
            "--authorize takes ID=PUBLIC_KEY (the 40 characters from `flowd keygen`), optionally followed by :SESSIONS[:ROLES] (kiosk-7,kiosk-8:stepper,presenter), not '\(entry.prefix(64))'"
        guard let equals = entry.firstIndex(of: "=") else { throw ValidationError(form) }
        let id = String(entry[..<equals])
        let rest = entry[entry.index(after: equals)...]
        // A Z85 key may hold ':' itself: it is the first 40 characters.
        let key = String(rest.prefix(40))
        guard !id.isEmpty, key.count == 40 else { throw ValidationError(form) }
        let grantText = rest.dropFirst(40)
        guard !grantText.isEmpty else { return (id, key, nil) }
        guard grantText.first == ":" else { throw ValidationError(form) }
        do {
            return (id, key, try ClientGrant(parsing: String(grantText.dropFirst())))
        } catch {
            throw ValidationError("--authorize \(id.prefix(64))=…: \(error)")
        }
    }

    func validate() throws {
        var ids: Set<String> = []
        var keys: Set<String> = []
        for entry in authorized {
            let (id, key, _) = try Self.parseAuthorization(entry)
            guard ids.insert(id).inserted else {
                throw ValidationError("--authorize names '\(id.prefix(64))' twice: one key per id")
            }
            guard keys.insert(key).inserted else {
                throw ValidationError(
                    "--authorize gives the same key to two ids ('\(id.prefix(64))' and another): a key is one client's"
                )
            }
        }
        let values = [
            ("--heartbeat-interval", heartbeatInterval), ("--heartbeat-timeout", heartbeatTimeout),
            ("--max-message-size", maxMessageSize), ("--guard-timeout", guardTimeout),
            ("--deep-link-wait", deepLinkWait), ("--max-sessions", maxSessions),
            ("--sessions-per-peer-per-minute", sessionsPerPeerPerMinute), ("--send-queue-limit", sendQueueLimit),
            ("--max-presentables", maxPresentables), ("--max-session-data-bytes", maxSessionDataBytes),
            ("--max-steppers-per-session", maxSteppersPerSession),
        ]
        for (name, value) in values {
            if let value, value <= 0 {
                throw ValidationError("\(name) must be positive, not \(value)")
            }
        }
        if let peerMessageRate, peerMessageRate < 0 {
            throw ValidationError("--peer-message-rate must be 0 (no limit) or more, not \(peerMessageRate)")
        }
        if let inspectionDelay, inspectionDelay < 0 {
            throw ValidationError("--inspection-delay must be 0 or more milliseconds, not \(inspectionDelay)")
        }
        for (name, text) in [("--idle-session-expiry", idleSessionExpiry), ("--snapshot-interval", snapshotInterval)] {
            if let text, DurationText.parse(text) == nil {
                throw ValidationError("\(name) takes a duration such as 7d, 12h, 30m or 45s, not '\(text)'")
            }
        }
        if let snapshotEvery, snapshotEvery <= 0 {
            throw ValidationError("--snapshot-every must be 1 or more, not \(snapshotEvery)")
        }
        if ephemeral, let stateDir, stateDir != "none" {
            throw ValidationError("--ephemeral and --state-dir \(stateDir) contradict each other; give one")
        }
        if let stateDir, stateDir.isEmpty {
            throw ValidationError("--state-dir needs a directory (or none)")
        }
        if ephemeral || stateDir == "none", let durability {
            throw ValidationError(
                "--durability \(durability.rawValue) means nothing with --ephemeral: nothing is written"
            )
        }
        if let snapshotInterval, DurationText.parse(snapshotInterval) == .zero {
            throw ValidationError("--snapshot-interval must be longer than zero")
        }
        for endpoint in controlEndpoints + eventsEndpoints where !endpoint.contains("://") {
            throw ValidationError("'\(endpoint)' is not an endpoint; write tcp://HOST:PORT or ipc:///PATH")
        }
    }

    func run() async throws {
        var configuration: DaemonConfiguration
        do {
            let file = try config.map { try ConfigurationFile.load(contentsOf: $0) } ?? ConfigurationFile()
            configuration = try DaemonConfiguration(
                file.overridden(by: flags),
                environment: ProcessInfo.processInfo.environment
            )
        } catch {
            printError("flowd: cannot start: \(error)")
            throw ExitCode.failure
        }
        configuration.dropSessionsWithMissingFlows = dropSessionsWithMissingFlows
        let specification: FlowSpecification
        do {
            specification = try FlowSpecification.load(contentsOf: configuration.flowsFile)
        } catch {
            for diagnostic in error.diagnostics {
                printError(diagnostic.description)
            }
            if error.code == .unreadableFile && !configuration.flowsFileGiven {
                printError(
                    """
                    flowd: cannot start: no flow file was given, and none is in the default places \
                    (\(DaemonConfiguration.defaultFlowsFiles.joined(separator: ", ")); working directory \
                    \(FileManager.default.currentDirectoryPath)). Give one: flowd --flows FILE, or flows: FILE in a \
                    configuration file (flowd --config FILE); `flowd check FILE` checks one.
                    """
                )
            } else {
                printError("flowd: cannot start: \(error.message)")
            }
            throw ExitCode.failure
        }
        let environment = ProcessInfo.processInfo.environment
        LoggingSystem.bootstrap { [logLevel, format = configuration.logFormat] _ in
            DaemonLogHandler(format: format, level: logLevel, environment: environment)
        }
        let logger = Logger(label: "flowd")
        // Every connection takes a file: the soft limit (often 1024) goes up to what the administrator allows.
        FileDescriptorLimit.raise()
        let metrics = configuration.metricsAddress.map { _ in DaemonMetrics() }
        let writer = try JournalWriter(metrics: metrics, logger: logger)
        let server = try DaemonServer(
            configuration: configuration,
            specification: specification,
            writer: writer,
            metrics: metrics,
            logger: logger
        )
        // The metrics endpoint is bound before the loop starts, so that flowd never says it is ready (to systemd,
        // in its log) with an endpoint it cannot serve.
        var operatorServices: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let address = configuration.metricsAddress, let metrics {
            do {
                let service = try await MetricsService.bind(
                    address,
                    metrics: metrics,
                    health: server.health,
                    logger: logger
                )
                operatorServices.append(.init(service: service, failureTerminationBehavior: .gracefullyShutdownGroup))
            } catch {
                printError("flowd: cannot start: \(error)")
                throw ExitCode.failure
            }
        }
        // The journal writer, the loop and the signals, as services. SIGTERM and SIGINT shut the group down
        // gracefully, in reverse order: the loop hands its last group (every changed session) to the writer and
        // returns once it is written; then the writer stops. SIGHUP reloads the flows.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: JournalWriterService(writer: writer)),
                    .init(
                        service: CoordinatorService(server: server),
                        successTerminationBehavior: .gracefullyShutdownGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup
                    ),
                    .init(service: ReloadService(server: server)),
                ] + operatorServices,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        do {
            try await group.run()
        } catch let error as StoreError {
            printError("flowd: \(error.message)")
            throw ExitCode(Self.exitCode(for: error.code))
        } catch let error as FlowsChangedError {
            printError("flowd: cannot start: \(error)")
            throw ExitCode(78)
        } catch {
            printError("flowd: \(error)")
            throw ExitCode.failure
        }
    }
}

extension Run {
    /// The exit code for a state that cannot be used (see the help's list).
    static func exitCode(for code: StoreError.Code) -> Int32 {
        switch code {
        case .locked: 73
        case .unavailable: 74
        default: 65
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

extension Durability: ExpressibleByArgument {}

extension LogFormat: ExpressibleByArgument {}

/// The built-in settings, for the help texts.
private let defaults = DaemonConfiguration(controlEndpoints: [], eventsEndpoints: [], flowsFile: "")
