/// flowd's configuration as `flowd config` prints it: every setting's value in effect (given, or the default) and
/// where it came from, as YAML a configuration file could hold, each line commented with its source.
public struct EffectiveConfiguration: Sendable {
    /// The configuration in effect.
    public let configuration: DaemonConfiguration
    /// The settings given, with their sources.
    public let settings: DaemonSettings

    /// The configuration `settings` make.
    public init(configuration: DaemonConfiguration, settings: DaemonSettings) {
        self.configuration = configuration
        self.settings = settings
    }

    /// The value in effect for `setting`; `nil` for one not set that has no default (no metrics endpoint...).
    public func value(of setting: DaemonSetting) -> SettingValue? {
        let c = configuration
        switch setting {
        case .flows: return .text(c.flowsFile)
        case .control: return .texts(c.controlEndpoints)
        case .events: return .texts(c.eventsEndpoints)
        case .tcp: return .toggle(settings.toggle(.tcp) ?? true)
        case .heartbeatInterval: return .number(Int(c.heartbeatInterval.milliseconds))
        case .heartbeatTimeout: return .number(Int(c.heartbeatTimeout.milliseconds))
        case .maxMessageSize: return .number(c.maxMessageSize)
        case .guardTimeout: return .number(Int(c.engine.guardTimeout.milliseconds))
        case .deepLinkWait: return .number(Int(c.engine.deepLinkWait.milliseconds))
        case .peerMessageRate: return .number(c.peerMessageRate)
        case .peerByteRate: return .number(c.peerByteRate)
        case .maxSessions: return .number(c.maxSessions)
        case .sessionsPerPeerPerMinute: return .number(c.sessionsPerPeerPerMinute)
        case .sendQueueLimit: return .number(c.sendQueueLimit)
        case .maxPresentables: return .number(c.engine.maxPresentables)
        case .maxSessionDataBytes: return .number(c.engine.maxSessionDataBytes)
        case .maxSteppersPerSession: return .number(c.maxSteppersPerSession)
        case .inspectionDelay: return .number(Int(c.inspectionBatchDelay.milliseconds))
        case .snapshotEvery: return .number(c.snapshotEvery)
        case .snapshotInterval: return .duration(c.snapshotInterval)
        case .storeRetryWindow: return c.durable ? .duration(c.storeRetryWindow) : nil
        case .idleSessionExpiry: return .duration(c.idleSessionExpiry ?? .zero)
        case .stateDir: return c.fleet == nil ? .text(c.stateDirectory ?? "none") : nil
        case .store: return .text(c.fleet?.redactedStoreURL ?? "sqlite")
        case .instance: return c.fleet.map { .text($0.instance) }
        case .lease: return c.fleet.map { .duration($0.lease) }
        case .advertiseControl: return c.fleet.map { .texts($0.advertisedControl) }
        case .advertiseEvents: return c.fleet.map { .texts($0.advertisedEvents) }
        case .durability: return .text(c.durability.rawValue)
        case .logFormat: return .text(c.logFormat.rawValue)
        case .logLevel: return .text(c.logLevel.rawValue)
        case .metrics: return c.metricsAddress.map { .text($0.description) }
        case .websocket: return c.webSocket.map { .text($0.address.description) }
        case .websocketOrigins: return c.webSocket?.origins.map { .text($0.joined(separator: ",")) }
        case .websocketMaxConnections: return c.webSocket.map { .number($0.maxConnections) }
        case .ipcMode: return c.ipcMode.map { .text("0" + String($0, radix: 8)) }
        case .ipcGroup, .curveSecretKey, .curveSecretKeyFile: return settings[setting]
        case .authorizedKeys:
            return c.curve.map { curve in
                .authorizations(
                    curve.authorizedKeys.sorted { $0.key < $1.key }.map {
                        ClientAuthorization(id: $0.key, key: $0.value, grant: curve.grants[$0.key])
                    }
                )
            }
        default: return settings[setting]
        }
    }

    /// The configuration as YAML, one setting per line with its source (and whether SIGHUP applies it) in a comment;
    /// settings without a value are shown commented out. The secret key is never shown.
    public var yaml: String {
        var lines = [
            "# flowd's configuration in effect: each value and where it came from (a flag, a FLOWD_* environment",
            "# variable, the configuration file's line, or the default). \"reloads\": SIGHUP applies a new value;",
            "# the others take a restart.",
        ]
        for setting in DaemonSetting.all {
            let source = settings.source(of: setting).description + (setting.reloads ? "; reloads" : "")
            guard let value = value(of: setting) else {
                lines.append("# \(setting.key):  # not set")
                continue
            }
            lines.append("\(setting.key): \(Self.yaml(value, for: setting))  # \(source)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func yaml(_ value: SettingValue, for setting: DaemonSetting) -> String {
        if setting.kind == .secret {
            return quoted("<secret>")
        }
        switch value {
        case .number(let number): return "\(number)"
        case .toggle(let flag): return "\(flag)"
        case .text(let text): return quoted(text)
        case .duration(let duration): return DurationText.format(duration)
        case .texts(let texts): return "[" + texts.map(quoted).joined(separator: ", ") + "]"
        case .authorizations(let clients):
            let entries = clients.map { client in
                var fields = ["key: \(quoted(client.key))"]
                if let grant = client.grant {
                    fields.append("sessions: [" + grant.sessions.map(quoted).joined(separator: ", ") + "]")
                    let roles = ClientGrant.GrantedRole.allCases.filter(grant.roles.contains).map(\.rawValue)
                    fields.append("roles: [" + roles.joined(separator: ", ") + "]")
                }
                return "\(quoted(client.id)): { \(fields.joined(separator: ", ")) }"
            }
            return "{ " + entries.joined(separator: ", ") + " }"
        }
    }

    /// A YAML double-quoted scalar: a JSON string is one (YAML 1.2 reads JSON).
    private static func quoted(_ text: String) -> String {
        LogLine.jsonString(text)
    }
}
