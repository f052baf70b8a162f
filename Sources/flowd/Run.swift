import ArgumentParser
import Dispatch
import FlowDaemon
import FlowSpec
import FlowStore
import FlowWebClient
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
            SIGTERM or SIGINT stop it gracefully (exit 0); SIGHUP reads the settings again (applying the log level, \
            rates, session bounds and authorized keys; other changes take a restart) and reloads the flows file, \
            keeping the running sessions when the new file is valid and refusing it (with its problems) when not.

            Every option is also a key of the configuration file (--config; maxSessions for --max-sessions) and an \
            environment variable (FLOWD_MAX_SESSIONS); a flag wins over the environment, which wins over the file. \
            `flowd config` prints the configuration in effect and where each value came from.

            Sessions are durable by default: flowd keeps a journal and snapshots in SQLite (flowd.db) in its state \
            directory, $XDG_STATE_HOME/flowbus (else ~/.local/state/flowbus), and a restart — even kill -9 — brings \
            back every session and every acknowledged step. --ephemeral (or --state-dir none) keeps them in memory \
            only. One flowd per state directory.

            Exit codes: 0 stopped by a signal; 1 cannot start (configuration, flows file, an endpoint in use); \
            64 bad arguments; 65 the state file (or a fleet's database schema) is damaged, foreign or newer than this \
            flowd; 73 another flowd holds the state directory (or runs as this instance of the fleet); 74 the state \
            directory or file cannot be created, opened or written, or the fleet's database cannot be reached or \
            refuses this flowd (during a run: flowd waits --store-retry-window for a store that does not answer, \
            refusing HELLOs with storeUnavailable, then stops rather than acknowledge what is not written; a signal \
            meanwhile stops it within seconds, also with 74); 78 the flows \
            file lost flows that stored sessions use.

            Examples:
              flowd --flows deploy/flows/movies.yaml
              flowd --flows app.yaml --control ipc:///run/flowbus/control --events ipc:///run/flowbus/events
              flowd --flows app.yaml --state-dir /var/lib/flowbus --durability fsync
              flowd --flows app.yaml --ephemeral
            """
    )

    @OptionGroup var options: DaemonOptions

    @Flag(
        help:
            "At start-up, end the stored sessions that use flows the flows file no longer has (else flowd refuses to start)."
    )
    var dropSessionsWithMissingFlows = false

    func run() async throws {
        let sources = options.sources
        let (configuration, settings) = try await readSettings(sources)
        let specification = try loadFlows(configuration)
        let environment = ProcessInfo.processInfo.environment
        let logLevel = LogLevel(configuration.logLevel)
        LoggingSystem.bootstrap { [format = configuration.logFormat] _ in
            DaemonLogHandler(format: format, level: logLevel, environment: environment)
        }
        let logger = Logger(label: "flowd")
        for warning in settings.warnings {
            logger.warning("\(warning)")
        }
        // A closed standard error (its reader gone) must not kill flowd with SIGPIPE: writes then fail quietly.
        signal(SIGPIPE, SIG_IGN)
        // Every connection takes a file: the soft limit (often 1024) goes up to what the administrator allows.
        FileDescriptorLimit.raise()
        let metrics = configuration.metricsAddress.map { _ in DaemonMetrics() }
        let writer = try JournalWriter(
            metrics: metrics,
            availability: StoreAvailability(retryWindow: configuration.storeRetryWindow),
            logger: logger
        )
        let server = try DaemonServer(
            configuration: configuration,
            specification: specification,
            writer: writer,
            metrics: metrics,
            webAssets: [
                "/flowbus.js": WebAsset(contentType: "text/javascript; charset=utf-8", bytes: FlowWebClient.script),
                "/flowbus.d.ts": WebAsset(contentType: "text/plain; charset=utf-8", bytes: FlowWebClient.declarations),
            ],
            logger: logger
        )
        // The journal writer, the loop and the signals, as services. SIGTERM and SIGINT shut the group down
        // gracefully, in reverse order: the loop hands its last group (every changed session) to the writer and
        // returns once it is written; then the writer stops. SIGHUP reloads the flows.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                // The operator's endpoint first: the group stops its services last first, so /readyz answers 503
                // ("stopping") until the loop and the writer are done.
                services: try await operatorServices(configuration, metrics: metrics, server: server, logger: logger)
                    + [
                        .init(service: JournalWriterService(writer: writer)),
                        .init(
                            service: CoordinatorService(server: server),
                            successTerminationBehavior: .gracefullyShutdownGroup,
                            failureTerminationBehavior: .gracefullyShutdownGroup
                        ),
                        .init(
                            service: ReloadService(
                                server: server,
                                sources: sources,
                                started: EffectiveConfiguration(configuration: configuration, settings: settings),
                                logLevel: logLevel,
                                logger: logger
                            )
                        ),
                    ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await runGroup(group)
    }

    /// The settings from the flags, the environment and the configuration file; a problem ends flowd.
    private func readSettings(_ sources: SettingSources) async throws -> (DaemonConfiguration, DaemonSettings) {
        do {
            let settings = try await sources.read()
            var configuration = try DaemonConfiguration(settings, environment: sources.environment)
            configuration.dropSessionsWithMissingFlows = dropSessionsWithMissingFlows
            return (configuration, settings)
        } catch {
            printError("flowd: cannot start: \(error)")
            throw ExitCode.failure
        }
    }

    /// The flows file, read and checked; its problems end flowd, each printed.
    private func loadFlows(_ configuration: DaemonConfiguration) throws -> FlowSpecification {
        do {
            return try FlowSpecification.load(contentsOf: configuration.flowsFile)
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
    }

    /// The metrics endpoint, when asked for, bound before the loop starts, so that flowd never says it is ready (to
    /// systemd, in its log) with an endpoint it cannot serve.
    private func operatorServices(
        _ configuration: DaemonConfiguration,
        metrics: DaemonMetrics?,
        server: DaemonServer,
        logger: Logger
    ) async throws -> [ServiceGroupConfiguration.ServiceConfiguration] {
        guard let address = configuration.metricsAddress, let metrics else { return [] }
        do {
            let service = try await MetricsService.bind(
                address,
                metrics: metrics,
                health: server.health,
                logger: logger
            )
            return [.init(service: service, failureTerminationBehavior: .gracefullyShutdownGroup)]
        } catch {
            printError("flowd: cannot start: \(error)")
            throw ExitCode.failure
        }
    }

    /// Runs the services until a signal stops them; a failure ends flowd with its exit code.
    private func runGroup(_ group: ServiceGroup) async throws {
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
