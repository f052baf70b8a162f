import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads on SIGHUP (`systemctl reload flowd`), until the group shuts down: the settings are read again from their
/// sources, those that can change at run time (``DaemonSetting/reloads``) are applied and a change to any other is
/// logged as needing a restart; then the flows file is read again.
public struct ReloadService: Service {
    private let server: DaemonServer
    private let sources: SettingSources
    private let started: EffectiveConfiguration
    private let logLevel: LogLevel
    private let logger: Logger

    /// A service that reloads `server`'s settings from `sources` (flowd `started` with this configuration; the log
    /// level is the shared `logLevel`) and its flows.
    public init(
        server: DaemonServer,
        sources: SettingSources,
        started: EffectiveConfiguration,
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
        // What runs: the settings a restart would change are compared with those flowd started with, the others
        // with the last ones applied.
        let startedWith = started
        var applied = started
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            do {
                let settings = try await sources.read()
                let configuration = try DaemonConfiguration(settings, environment: sources.environment)
                logLevel.level = configuration.logLevel
                server.reloadSettings(configuration)
                let new = EffectiveConfiguration(configuration: configuration, settings: settings)
                report(SettingChanges(started: startedWith, applied: applied, new: new))
                applied = new
                for warning in settings.warnings {
                    logger.warning("\(warning)")
                }
            } catch {
                // A line each: a log line holds no line break (it would show as `\n`).
                let lines = "\(error)".split(separator: "\n")
                logger.warning("settings reload refused, the running settings stay: \(lines.first ?? "")")
                for line in lines.dropFirst() {
                    logger.warning("\(line)")
                }
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

/// What a reload changes, in words: the settings applied at once (against the last ones applied), and those that
/// take a restart (against the values flowd runs with, so a change undone is no longer named).
struct SettingChanges {
    private(set) var applied: [String] = []
    private(set) var needingRestart: [String] = []

    init(started: EffectiveConfiguration, applied before: EffectiveConfiguration, new: EffectiveConfiguration) {
        for setting in DaemonSetting.all {
            let old = (setting.reloads ? before : started).value(of: setting)
            let now = new.value(of: setting)
            guard old != now else { continue }
            let change =
                "\(setting.key) \(old.map { $0.shown(for: setting) } ?? "(not set)") → \(now.map { $0.shown(for: setting) } ?? "(not set)")"
            if setting.reloads {
                applied.append(change)
            } else {
                needingRestart.append(change)
            }
        }
        // A key file's contents may change under the same path.
        if started.configuration.curve?.secretKey != new.configuration.curve?.secretKey,
            !needingRestart.contains(where: { $0.hasPrefix("curveSecretKey") })
        {
            needingRestart.append("the CURVE secret key")
        }
    }
}
