import ArgumentParser
import Dispatch
import FlowDaemon
import FlowSpec
import Foundation
import Logging

/// `flowd run` (the default): serve the flows on the control and events endpoints until SIGTERM or SIGINT.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the coordinator daemon (the default subcommand).",
        discussion: """
            With no endpoint options, flowd listens on ipc in its runtime directory ($XDG_RUNTIME_DIR/flowbus, \
            else /tmp/flowbus-UID) and on tcp://127.0.0.1:5860 (control) and :5861 (events), and prints them. \
            SIGTERM or SIGINT stop it gracefully (exit 0); SIGHUP reloads the flows file, keeping the running \
            sessions when the new file is valid and refusing it (with its problems) when not.

            Examples:
              flowd --flows deploy/flows/movies.yaml
              flowd --flows app.yaml --control ipc:///run/flowbus/control --events ipc:///run/flowbus/events
            """
    )

    @Option(help: "A configuration file (YAML); flags given here win over it. See deploy/flowd.yaml.")
    var config: String?

    @Option(help: "The flow file (YAML). Default: deploy/flows/movies.yaml.")
    var flows: String?

    @Option(name: .customLong("control"), help: "A control endpoint (ROUTER) to bind; repeat for several.")
    var controlEndpoints: [String] = []

    @Option(name: .customLong("events"), help: "An events endpoint (XPUB) to bind; repeat for several.")
    var eventsEndpoints: [String] = []

    @Flag(help: "Skip the default tcp endpoints (ipc only).")
    var noTCP = false

    @Option(help: "Heartbeat interval, in milliseconds. Default: 1000.")
    var heartbeatInterval: Int?

    @Option(help: "How long a silent peer is kept, in milliseconds. Default: 5000.")
    var heartbeatTimeout: Int?

    @Option(help: "The largest message taken, in bytes. Default: 1048576.")
    var maxMessageSize: Int?

    @Option(help: "How long a guard may take to answer, in milliseconds (no answer is a refusal). Default: 2000.")
    var guardTimeout: Int?

    @Option(help: "How long a deep link waits for its session to become ready, in milliseconds. Default: 10000.")
    var deepLinkWait: Int?

    @Option(help: "flowd's CURVE secret key (Z85, from `flowd keygen`): every socket then requires CURVE.")
    var curveSecretKey: String?

    @Option(
        name: .customLong("authorize"),
        help: "A client allowed in with CURVE, as ID=PUBLIC_KEY; repeat for several."
    )
    var authorized: [String] = []

    @Option(help: "The lowest level logged to standard error: trace, debug, info, notice, warning, error.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        for entry in authorized where !entry.contains("=") {
            throw ValidationError("'\(entry)' is not ID=PUBLIC_KEY")
        }
        let values = [heartbeatInterval, heartbeatTimeout, maxMessageSize, guardTimeout, deepLinkWait]
        for value in values.compactMap({ $0 }) where value <= 0 {
            throw ValidationError("durations and sizes must be positive, not \(value)")
        }
        for endpoint in controlEndpoints + eventsEndpoints where !endpoint.contains("://") {
            throw ValidationError("'\(endpoint)' is not an endpoint; write tcp://HOST:PORT or ipc:///PATH")
        }
    }

    func run() throws {
        var file = ConfigurationFile()
        if let config {
            do {
                file = try ConfigurationFile.load(contentsOf: config)
            } catch {
                printError("flowd: cannot start: \(error)")
                throw ExitCode.failure
            }
        }
        let flows = self.flows ?? file.flows ?? "deploy/flows/movies.yaml"
        let specification: FlowSpecification
        do {
            specification = try FlowSpecification.load(contentsOf: flows)
        } catch {
            for diagnostic in error.diagnostics {
                printError(diagnostic.description)
            }
            printError("flowd: cannot start: \(error.message)")
            throw ExitCode.failure
        }
        let ipc = DaemonConfiguration.defaultIPC(environment: ProcessInfo.processInfo.environment)
        var control = controlEndpoints.isEmpty ? file.control ?? [] : controlEndpoints
        var events = eventsEndpoints.isEmpty ? file.events ?? [] : eventsEndpoints
        if control.isEmpty && events.isEmpty {
            let tcp = !noTCP && (file.tcp ?? true)
            control = [ipc.control] + (tcp ? [DaemonConfiguration.defaultControlTCP] : [])
            events = [ipc.events] + (tcp ? [DaemonConfiguration.defaultEventsTCP] : [])
        }
        guard !control.isEmpty, !events.isEmpty else {
            throw ValidationError("give both --control and --events endpoints")
        }
        var configuration = DaemonConfiguration(controlEndpoints: control, eventsEndpoints: events, flowsFile: flows)
        let interval: Int = heartbeatInterval ?? file.heartbeatInterval ?? 1000
        let timeout: Int = heartbeatTimeout ?? file.heartbeatTimeout ?? 5000
        let guardWait: Int = guardTimeout ?? file.guardTimeout ?? 2000
        let linkWait: Int = deepLinkWait ?? file.deepLinkWait ?? 10_000
        configuration.heartbeatInterval = .milliseconds(interval)
        configuration.heartbeatTimeout = .milliseconds(timeout)
        configuration.maxMessageSize = maxMessageSize ?? file.maxMessageSize ?? 1 << 20
        configuration.engine.guardTimeout = .milliseconds(guardWait)
        configuration.engine.deepLinkWait = .milliseconds(linkWait)
        if let secretKey = curveSecretKey ?? file.curveSecretKey {
            var keys = file.authorizedKeys ?? [:]
            for entry in authorized {
                let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                keys[parts[0]] = parts[1]
            }
            configuration.curve = CurveSettings(secretKey: secretKey, authorizedKeys: keys)
        }
        guard configuration.heartbeatTimeout > configuration.heartbeatInterval else {
            printError("flowd: cannot start: the heartbeat timeout must be longer than the heartbeat interval")
            throw ExitCode.failure
        }

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let server = try DaemonServer(
            configuration: configuration,
            specification: specification,
            logger: Logger(label: "flowd")
        )
        let signals = SignalHandlers(server: server)
        defer { signals.cancel() }
        do {
            try server.run()
        } catch {
            printError("flowd: \(error)")
            throw ExitCode.failure
        }
    }
}

/// SIGTERM and SIGINT stop the server; SIGHUP reloads its flows.
final class SignalHandlers {
    private let sources: [any DispatchSourceSignal]

    init(server: DaemonServer) {
        let queue = DispatchQueue(label: "flowd.signals")
        var sources: [any DispatchSourceSignal] = []
        for (number, action) in [(SIGTERM, server.stop), (SIGINT, server.stop), (SIGHUP, server.reload)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { action() }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    func cancel() {
        for source in sources {
            source.cancel()
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
