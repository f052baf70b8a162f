import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads on SIGHUP (`systemctl reload flowd`), until the group shuts down: the settings are read again from their
/// sources, those that can change at run time (``DaemonSetting/reloads``) are applied and a change to any other is
/// logged as needing a restart; then the flows file is read again.
public struct ReloadService: Service {
    private let server: DaemonServer
    private let sources: SettingSources
    private let started: DaemonSettings
    private let logLevel: LogLevel
    private let logger: Logger

    /// A service that reloads `server`'s settings from `sources` (it `started` with these; the log level is the
    /// shared `logLevel`) and its flows.
    public init(
        server: DaemonServer,
        sources: SettingSources,
        started: DaemonSettings,
        logLevel: LogLevel,
        logger: Logger
    ) {
        self.server = server
        self.sources = sources
        self.started = started
        self.logLevel = logLevel
        self.logger = logger
    }

    public func run() async throws {
        var running = started
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            do {
                let settings = try await sources.read()
                let configuration = try DaemonConfiguration(settings, environment: sources.environment)
                logLevel.level = configuration.logLevel
                server.reloadSettings(configuration)
                report(SettingChanges(from: running, to: settings))
                running = settings
            } catch {
                logger.warning("settings reload refused, the running settings stay: \(error)")
            }
            server.reload()
        }
    }

    private func report(_ changes: SettingChanges) {
        if !changes.applied.isEmpty {
            logger.info("settings reloaded: \(changes.applied.joined(separator: "; "))")
        }
        if !changes.needingRestart.isEmpty {
            logger.warning(
                "settings changed that take a restart (the running values stay until then): \(changes.needingRestart.joined(separator: "; "))"
            )
        }
    }
}

/// What changed between two readings of the settings, in words: those applied at once, those that take a restart.
struct SettingChanges {
    private(set) var applied: [String] = []
    private(set) var needingRestart: [String] = []

    init(from old: DaemonSettings, to new: DaemonSettings) {
        for setting in DaemonSetting.all where old[setting] != new[setting] {
            let change =
                "\(setting.key) \(old[setting].map { $0.shown(for: setting) } ?? "(default)") → \(new[setting].map { $0.shown(for: setting) } ?? "(default)")"
            if setting.reloads {
                applied.append(change)
            } else {
                needingRestart.append(change)
            }
        }
    }
}
