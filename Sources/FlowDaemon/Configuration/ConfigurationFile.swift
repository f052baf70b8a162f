import FlowSpec
import FlowStore
import Foundation
import Yams

/// flowd's configuration file (YAML): every key is optional, and a command-line flag wins over the file.
///
/// ```yaml
/// flows: /etc/flowbus/flows.yaml
/// control: [ "ipc:///run/flowbus/control", "tcp://127.0.0.1:5860" ]
/// events: [ "ipc:///run/flowbus/events", "tcp://127.0.0.1:5861" ]
/// heartbeatInterval: 1000
/// ```
public struct ConfigurationFile: Sendable, Hashable {
    /// The keys a file may have.
    public static let keys = [
        "flows", "control", "events", "tcp", "heartbeatInterval", "heartbeatTimeout", "maxMessageSize", "guardTimeout",
        "deepLinkWait", "peerMessageRate", "inspectionDelay", "curveSecretKey", "curveSecretKeyFile", "authorizedKeys",
        "stateDir",
        "durability", "idleSessionExpiry", "snapshotEvery", "snapshotInterval", "peerByteRate", "maxSessions",
        "sessionsPerPeerPerMinute", "sendQueueLimit", "ipcMode", "ipcGroup", "maxPresentables", "maxSessionDataBytes",
        "maxSteppersPerSession", "metrics", "logFormat",
    ]

    /// The flow file.
    public var flows: String?
    /// Control endpoints.
    public var control: [String]?
    /// Events endpoints.
    public var events: [String]?
    /// Whether the default tcp endpoints are added to the default ipc ones.
    public var tcp: Bool?
    /// Milliseconds.
    public var heartbeatInterval: Int?
    /// Milliseconds.
    public var heartbeatTimeout: Int?
    /// Bytes.
    public var maxMessageSize: Int?
    /// Milliseconds.
    public var guardTimeout: Int?
    /// Milliseconds.
    public var deepLinkWait: Int?
    /// Messages per second per peer (0: no limit).
    public var peerMessageRate: Int?
    /// Bytes per second per peer (0: no limit).
    public var peerByteRate: Int?
    /// Sessions flowd holds at most.
    public var maxSessions: Int?
    /// Messages queued per peer or subscriber that does not read.
    public var sendQueueLimit: Int?
    /// Presentables on screen, flows and contributions per session.
    public var maxPresentables: Int?
    /// Bytes of session data per session.
    public var maxSessionDataBytes: Int?
    /// Senders whose steps a session remembers.
    public var maxSteppersPerSession: Int?
    /// The ipc socket files' mode, in octal (`"0660"`).
    public var ipcMode: String?
    /// The ipc socket files' group.
    public var ipcGroup: String?
    /// Sessions one peer may create per minute.
    public var sessionsPerPeerPerMinute: Int?
    /// Milliseconds batched inspection events may wait (0: published at the end of each turn).
    public var inspectionDelay: Int?
    /// flowd's CURVE secret key (Z85); with it, every socket requires CURVE.
    public var curveSecretKey: String?
    /// A file holding flowd's CURVE secret key (Z85), instead of ``curveSecretKey``: a key on the command line shows
    /// in `ps`, a file (systemd's `LoadCredential=`) does not.
    public var curveSecretKeyFile: String?
    /// Where to serve metrics and health checks over HTTP (`HOST:PORT`); none when absent.
    public var metrics: String?
    /// How log lines are written: `text` or `json`.
    public var logFormat: String?
    /// Client id → CURVE public key (Z85).
    public var authorizedKeys: [String: String]?
    /// Client id → what it may do (ids without one may do everything).
    public var grants: [String: ClientGrant]?
    /// The state directory; `none` keeps sessions in memory only.
    public var stateDir: String?
    /// What an acknowledgement waits for: `os`, `fsync` or `off`.
    public var durability: Durability?
    /// How long a session without peers is kept (`0`: for ever).
    public var idleSessionExpiry: Duration?
    /// Journal entries after which a session is written whole.
    public var snapshotEvery: Int?
    /// How often changed sessions are written whole.
    public var snapshotInterval: Duration?

    /// An empty configuration: every default.
    public init() {}

    /// Reads a configuration file.
    /// - Throws: a message naming the file, the line and the key for anything wrong.
    public static func load(contentsOf path: String) throws -> ConfigurationFile {
        let text: String
        do {
            text = String(decoding: try FileReading.data(path), as: UTF8.self)
        } catch {
            throw ConfigurationError("cannot read the configuration file \(path): \(error.reason)")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationError("\(path): not valid YAML: \(error)")
        }
        var file = ConfigurationFile()
        guard let root else { return file }
        guard case .mapping(let mapping) = root else {
            throw ConfigurationError("\(path): a configuration file is a mapping of keys to values")
        }
        var problems: [String] = []
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            let place = "\(path):\(keyNode.mark?.line ?? 0):\(keyNode.mark?.column ?? 0)"
            func number(orZero: Bool = false) -> Int? {
                guard let number = value.int, number > 0 || (orZero && number == 0) else {
                    problems.append("\(place): '\(key)' must be \(orZero ? "0 or " : "")a positive whole number")
                    return nil
                }
                return number
            }
            func strings() -> [String]? {
                if let single = value.string, case .scalar = value { return [single] }
                guard case .sequence(let items) = value, items.allSatisfy({ $0.string != nil }) else {
                    problems.append("\(place): '\(key)' must be an endpoint or a list of endpoints")
                    return nil
                }
                return items.compactMap(\.string)
            }
            switch key {
            case "flows": file.flows = value.string
            case "control": file.control = strings()
            case "events": file.events = strings()
            case "tcp":
                guard let flag = value.bool else {
                    problems.append("\(place): 'tcp' must be true or false")
                    continue
                }
                file.tcp = flag
            case "heartbeatInterval": file.heartbeatInterval = number()
            case "heartbeatTimeout": file.heartbeatTimeout = number()
            case "maxMessageSize": file.maxMessageSize = number()
            case "guardTimeout": file.guardTimeout = number()
            case "deepLinkWait": file.deepLinkWait = number()
            case "peerMessageRate": file.peerMessageRate = number(orZero: true)
            case "peerByteRate": file.peerByteRate = number(orZero: true)
            case "maxSessions": file.maxSessions = number()
            case "sendQueueLimit": file.sendQueueLimit = number()
            case "maxPresentables": file.maxPresentables = number()
            case "maxSessionDataBytes": file.maxSessionDataBytes = number()
            case "maxSteppersPerSession": file.maxSteppersPerSession = number()
            case "ipcMode", "ipcGroup":
                guard let text = value.string, !text.isEmpty else {
                    problems.append(
                        "\(place): '\(key)' must be \(key == "ipcMode" ? "a mode in octal, such as \"0660\"" : "a group")"
                    )
                    continue
                }
                if key == "ipcMode" { file.ipcMode = text } else { file.ipcGroup = text }
            case "sessionsPerPeerPerMinute": file.sessionsPerPeerPerMinute = number()
            case "inspectionDelay": file.inspectionDelay = number(orZero: true)
            case "curveSecretKey": file.curveSecretKey = value.string
            case "curveSecretKeyFile": file.curveSecretKeyFile = value.string
            case "logFormat":
                guard let text = value.string, LogFormat(rawValue: text) != nil else {
                    problems.append("\(place): 'logFormat' must be text or json")
                    continue
                }
                file.logFormat = text
            case "metrics":
                guard let text = value.string, !text.isEmpty else {
                    problems.append("\(place): 'metrics' must be HOST:PORT, such as \"127.0.0.1:9862\"")
                    continue
                }
                file.metrics = text
            case "stateDir":
                guard let directory = value.string, !directory.isEmpty else {
                    problems.append("\(place): 'stateDir' must be a directory, or none")
                    continue
                }
                // Relative to the file, as a reader of the file expects, wherever flowd is started from.
                file.stateDir = StateDirectory.resolve(
                    directory,
                    relativeTo: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                    environment: ProcessInfo.processInfo.environment
                )
            case "durability":
                guard let durability = value.string.flatMap(Durability.init(rawValue:)) else {
                    problems.append("\(place): 'durability' must be os, fsync or off")
                    continue
                }
                file.durability = durability
            case "idleSessionExpiry", "snapshotInterval":
                guard let text = value.string, let duration = DurationText.parse(text) else {
                    problems.append("\(place): '\(key)' must be a duration such as 7d, 12h, 30m or 45s")
                    continue
                }
                if key == "idleSessionExpiry" {
                    file.idleSessionExpiry = duration
                } else {
                    file.snapshotInterval = duration
                }
            case "snapshotEvery": file.snapshotEvery = number()
            case "authorizedKeys":
                guard case .mapping(let clients) = value else {
                    problems.append("\(place): 'authorizedKeys' maps client ids to Z85 public keys (or to grants)")
                    continue
                }
                var keys: [String: String] = [:]
                var grants: [String: ClientGrant] = [:]
                for (idNode, client) in clients {
                    guard let id = idNode.string else { continue }
                    if let key = client.string, case .scalar = client {
                        keys[id] = key
                    } else if case .mapping(let fields) = client, let key = fields["key"]?.string {
                        keys[id] = key
                        let sessions = fields["sessions"].map { node in
                            node.sequence?.compactMap(\.string) ?? node.string.map { [$0] } ?? []
                        }
                        let roles = fields["roles"].map { node in
                            node.sequence?.compactMap(\.string) ?? node.string.map { [$0] } ?? []
                        }
                        do {
                            grants[id] = try ClientGrant(
                                parsing: (sessions ?? ["*"]).joined(separator: ",")
                                    + (roles.map { ":" + $0.joined(separator: ",") } ?? "")
                            )
                        } catch {
                            problems.append("\(place): the grant of '\(id.prefix(64))': \(error)")
                        }
                    } else {
                        problems.append(
                            "\(place): '\(id.prefix(64))' needs a key, or a mapping with key, sessions and roles"
                        )
                    }
                }
                file.authorizedKeys = keys
                file.grants = grants.isEmpty ? nil : grants
            default:
                problems.append("\(place): unknown key '\(key)'; known keys: \(keys.joined(separator: ", "))")
            }
        }
        guard problems.isEmpty else {
            throw ConfigurationError(problems.joined(separator: "\n"))
        }
        return file
    }
}

/// A configuration file that cannot be used, and why.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// Where and what.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension ConfigurationFile {
    /// These settings, with `overrides`' values wherever it has one (flags over a file).
    public func overridden(by overrides: ConfigurationFile) -> ConfigurationFile {
        var merged = self
        merged.flows = overrides.flows ?? flows
        merged.control = overrides.control ?? control
        merged.events = overrides.events ?? events
        merged.tcp = overrides.tcp ?? tcp
        merged.heartbeatInterval = overrides.heartbeatInterval ?? heartbeatInterval
        merged.heartbeatTimeout = overrides.heartbeatTimeout ?? heartbeatTimeout
        merged.maxMessageSize = overrides.maxMessageSize ?? maxMessageSize
        merged.guardTimeout = overrides.guardTimeout ?? guardTimeout
        merged.deepLinkWait = overrides.deepLinkWait ?? deepLinkWait
        merged.peerMessageRate = overrides.peerMessageRate ?? peerMessageRate
        merged.peerByteRate = overrides.peerByteRate ?? peerByteRate
        merged.maxSessions = overrides.maxSessions ?? maxSessions
        merged.sendQueueLimit = overrides.sendQueueLimit ?? sendQueueLimit
        merged.maxPresentables = overrides.maxPresentables ?? maxPresentables
        merged.maxSessionDataBytes = overrides.maxSessionDataBytes ?? maxSessionDataBytes
        merged.maxSteppersPerSession = overrides.maxSteppersPerSession ?? maxSteppersPerSession
        merged.ipcMode = overrides.ipcMode ?? ipcMode
        merged.ipcGroup = overrides.ipcGroup ?? ipcGroup
        merged.sessionsPerPeerPerMinute = overrides.sessionsPerPeerPerMinute ?? sessionsPerPeerPerMinute
        merged.inspectionDelay = overrides.inspectionDelay ?? inspectionDelay
        merged.metrics = overrides.metrics ?? metrics
        merged.logFormat = overrides.logFormat ?? logFormat
        // A key given one way on the command line wins over the file's, given either way.
        let flagsGiveKey = overrides.curveSecretKey != nil || overrides.curveSecretKeyFile != nil
        merged.curveSecretKey = flagsGiveKey ? overrides.curveSecretKey : curveSecretKey
        merged.curveSecretKeyFile = flagsGiveKey ? overrides.curveSecretKeyFile : curveSecretKeyFile
        merged.stateDir = overrides.stateDir ?? stateDir
        merged.durability = overrides.durability ?? durability
        merged.idleSessionExpiry = overrides.idleSessionExpiry ?? idleSessionExpiry
        merged.snapshotEvery = overrides.snapshotEvery ?? snapshotEvery
        merged.snapshotInterval = overrides.snapshotInterval ?? snapshotInterval
        merged.authorizedKeys = (authorizedKeys ?? [:]).merging(overrides.authorizedKeys ?? [:]) { _, flag in flag }
        // A flag's key comes with its own grant, or none (everything).
        var grants = grants ?? [:]
        for id in (overrides.authorizedKeys ?? [:]).keys {
            grants[id] = overrides.grants?[id]
        }
        merged.grants = grants.isEmpty ? nil : grants
        if merged.authorizedKeys?.isEmpty == true {
            merged.authorizedKeys = nil
        }
        return merged
    }
}

extension DaemonConfiguration {
    /// The flow file used when none is given: the repository's demo flows in the working directory, else the
    /// package's (`/etc/flowbus/flows.yaml`).
    public static let defaultFlowsFiles = ["deploy/flows/movies.yaml", "/etc/flowbus/flows.yaml"]

    /// The flow files looked for when none is given, in order, as a sentence.
    public static var defaultFlowsFile: String {
        "\(defaultFlowsFiles[0]) in the working directory, else \(defaultFlowsFiles[1])"
    }

    /// The configuration a file describes, with the defaults for what it leaves out. Without endpoints, flowd
    /// listens on ipc in the runtime directory and (unless `tcp: false`) on the default tcp ports.
    /// - Throws: ``ConfigurationError`` when the settings do not fit together.
    public init(_ file: ConfigurationFile, environment: [String: String]) throws {
        var control = file.control ?? []
        var events = file.events ?? []
        if control.isEmpty && events.isEmpty {
            let ipc = Self.defaultIPC(environment: environment)
            let tcp = file.tcp ?? true
            control = [ipc.control] + (tcp ? [Self.defaultControlTCP] : [])
            events = [ipc.events] + (tcp ? [Self.defaultEventsTCP] : [])
        }
        guard !control.isEmpty, !events.isEmpty else {
            throw ConfigurationError("give both control and events endpoints, or neither for the defaults")
        }
        let flows =
            file.flows ?? Self.defaultFlowsFiles.first { FileManager.default.fileExists(atPath: $0) }
            ?? Self.defaultFlowsFiles[0]
        self.init(controlEndpoints: control, eventsEndpoints: events, flowsFile: flows)
        flowsFileGiven = file.flows != nil
        if let value = file.heartbeatInterval { heartbeatInterval = .milliseconds(value) }
        if let value = file.heartbeatTimeout { heartbeatTimeout = .milliseconds(value) }
        if let value = file.maxMessageSize { maxMessageSize = value }
        if let value = file.guardTimeout { engine.guardTimeout = .milliseconds(value) }
        if let value = file.deepLinkWait { engine.deepLinkWait = .milliseconds(value) }
        if let value = file.peerMessageRate { peerMessageRate = value }
        if let value = file.peerByteRate { peerByteRate = value }
        if let value = file.maxSessions { maxSessions = value }
        if let value = file.sendQueueLimit { sendQueueLimit = value }
        if let value = file.maxPresentables { engine.maxPresentables = value }
        if let value = file.maxSessionDataBytes { engine.maxSessionDataBytes = value }
        if let value = file.maxSteppersPerSession { maxSteppersPerSession = value }
        if let text = file.ipcMode {
            guard let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                throw ConfigurationError(
                    "ipcMode (--ipc-mode) is a mode in octal such as 0660, not '\(text.prefix(16))'"
                )
            }
            ipcMode = mode
        }
        if let group = file.ipcGroup {
            guard IPCEndpoint.groupID(group) != nil else {
                throw ConfigurationError("ipcGroup (--ipc-group): there is no group '\(group.prefix(64))'")
            }
            ipcGroup = group
        }
        if let value = file.sessionsPerPeerPerMinute { sessionsPerPeerPerMinute = value }
        if let value = file.inspectionDelay { inspectionBatchDelay = .milliseconds(value) }
        if let text = file.logFormat {
            guard let format = LogFormat(rawValue: text) else {
                throw ConfigurationError("logFormat (--log-format) is text or json, not '\(text.prefix(16))'")
            }
            logFormat = format
        }
        if let text = file.metrics {
            metricsAddress = try MetricsAddress(parsing: text)
        }
        let stateDir = file.stateDir ?? StateDirectory.defaultPath(environment: environment)
        stateDirectory = stateDir == "none" ? nil : stateDir
        if let value = file.durability { durability = value }
        if let value = file.idleSessionExpiry { idleSessionExpiry = value == .zero ? nil : value }
        if let value = file.snapshotEvery { snapshotEvery = value }
        if let value = file.snapshotInterval {
            guard value > .zero else {
                throw ConfigurationError("the snapshot interval must be longer than zero")
            }
            snapshotInterval = value
        }
        var secretKey = file.curveSecretKey
        if let path = file.curveSecretKeyFile {
            guard secretKey == nil else {
                throw ConfigurationError(
                    "give flowd's CURVE secret key one way: curveSecretKey (--curve-secret-key) or curveSecretKeyFile (--curve-secret-key-file), not both"
                )
            }
            do {
                secretKey = String(decoding: try FileReading.data(path), as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines
                )
            } catch {
                throw ConfigurationError("cannot read the CURVE secret key file \(path): \(error.reason)")
            }
        }
        if let secretKey {
            curve = CurveSettings(
                secretKey: secretKey,
                authorizedKeys: file.authorizedKeys ?? [:],
                grants: file.grants ?? [:]
            )
            try curve?.check()
        } else if !(file.authorizedKeys ?? [:]).isEmpty {
            throw ConfigurationError(
                "authorized keys mean nothing without flowd's CURVE secret key (curveSecretKey, --curve-secret-key, or curveSecretKeyFile, --curve-secret-key-file)"
            )
        }
        try checkRanges()
        guard heartbeatTimeout > heartbeatInterval else {
            throw ConfigurationError(
                "the heartbeat timeout (\(heartbeatTimeout.milliseconds) ms) must be longer than the heartbeat interval (\(heartbeatInterval.milliseconds) ms)"
            )
        }
    }
}
