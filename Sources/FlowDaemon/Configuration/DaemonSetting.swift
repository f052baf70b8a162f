/// One of flowd's settings: its name in the configuration file, what values it takes, and whether SIGHUP changes it
/// in a running flowd. Its flag (`--max-sessions`) and its environment variable (`FLOWD_MAX_SESSIONS`) are derived
/// from the name, so the three always agree.
public struct DaemonSetting: Sendable, Hashable, CustomStringConvertible {
    /// What values a setting takes.
    public enum Kind: Sendable, Hashable {
        /// A whole number of 1 or more.
        case count
        /// A whole number of 0 or more.
        case countOrZero
        /// Text (a path, a mode, an address).
        case text
        /// A secret text: never printed.
        case secret
        /// One endpoint or a list of them.
        case endpoints
        /// true or false.
        case toggle
        /// One of these words.
        case choice([String])
        /// A duration as people write it: `7d`, `12h`, `30m`, `45s`, `500ms`.
        case duration
        /// Client ids with their CURVE public keys and grants.
        case authorizations
    }

    /// The key in the configuration file, in camel case (`maxSessions`).
    public let key: String
    /// What values it takes.
    public let kind: Kind
    /// Whether SIGHUP applies a new value to the running flowd (the others take a restart).
    public let reloads: Bool

    /// The command-line flag: `--max-sessions`.
    public let flag: String

    /// A setting named `key`, whose flag is derived from it unless given.
    public init(_ key: String, _ kind: Kind, reloads: Bool = false, flag: String? = nil) {
        self.key = key
        self.kind = kind
        self.reloads = reloads
        self.flag = flag ?? "--" + Self.words(of: key).joined(separator: "-")
    }

    /// The environment variable: `FLOWD_MAX_SESSIONS`.
    public var environmentVariable: String {
        "FLOWD_" + Self.words(of: key).joined(separator: "_").uppercased()
    }

    /// The key and its flag, as errors name a setting: `maxSessions (--max-sessions)`.
    public var description: String {
        "\(key) (\(flag))"
    }

    /// A key's words in lower case: `maxSessions` → `max`, `sessions`.
    private static func words(of key: String) -> [String] {
        var words: [String] = [""]
        for character in key {
            if character.isUppercase {
                words.append(character.lowercased())
            } else {
                words[words.count - 1].append(character)
            }
        }
        return words
    }
}

extension DaemonSetting {
    /// The flow file.
    public static let flows = DaemonSetting("flows", .text)
    /// The control endpoints (ROUTER).
    public static let control = DaemonSetting("control", .endpoints)
    /// The events endpoints (XPUB).
    public static let events = DaemonSetting("events", .endpoints)
    /// Whether the default tcp endpoints join the default ipc ones.
    public static let tcp = DaemonSetting("tcp", .toggle, flag: "--no-tcp")
    /// How often an idle peer hears from flowd, in milliseconds.
    public static let heartbeatInterval = DaemonSetting("heartbeatInterval", .count)
    /// How long a silent peer is kept, in milliseconds.
    public static let heartbeatTimeout = DaemonSetting("heartbeatTimeout", .count)
    /// The largest message taken, in bytes.
    public static let maxMessageSize = DaemonSetting("maxMessageSize", .count)
    /// How long a guard may take to answer, in milliseconds.
    public static let guardTimeout = DaemonSetting("guardTimeout", .count)
    /// How long a deep link waits for its session, in milliseconds.
    public static let deepLinkWait = DaemonSetting("deepLinkWait", .count)
    /// Messages per second one peer may send (0: no limit).
    public static let peerMessageRate = DaemonSetting("peerMessageRate", .countOrZero, reloads: true)
    /// Bytes per second one peer may send (0: no limit).
    public static let peerByteRate = DaemonSetting("peerByteRate", .countOrZero, reloads: true)
    /// The most sessions flowd holds.
    public static let maxSessions = DaemonSetting("maxSessions", .count, reloads: true)
    /// Sessions one peer may create per minute.
    public static let sessionsPerPeerPerMinute = DaemonSetting("sessionsPerPeerPerMinute", .count, reloads: true)
    /// Messages queued for a subscriber that does not read.
    public static let sendQueueLimit = DaemonSetting("sendQueueLimit", .count)
    /// Presentables, flows and contributions one session may have.
    public static let maxPresentables = DaemonSetting("maxPresentables", .count)
    /// Bytes of session data one session may hold.
    public static let maxSessionDataBytes = DaemonSetting("maxSessionDataBytes", .count)
    /// Senders one session remembers the steps of.
    public static let maxSteppersPerSession = DaemonSetting("maxSteppersPerSession", .count, reloads: true)
    /// The ipc socket files' mode, in octal.
    public static let ipcMode = DaemonSetting("ipcMode", .text)
    /// The ipc socket files' group.
    public static let ipcGroup = DaemonSetting("ipcGroup", .text)
    /// How long inspection events may wait to go out together, in milliseconds.
    public static let inspectionDelay = DaemonSetting("inspectionDelay", .countOrZero)
    /// flowd's CURVE secret key (Z85).
    public static let curveSecretKey = DaemonSetting("curveSecretKey", .secret)
    /// A file holding flowd's CURVE secret key.
    public static let curveSecretKeyFile = DaemonSetting("curveSecretKeyFile", .text)
    /// The clients CURVE lets in, with their grants (`--authorize`).
    public static let authorizedKeys = DaemonSetting(
        "authorizedKeys",
        .authorizations,
        reloads: true,
        flag: "--authorize"
    )
    /// Where sessions are kept; `none` for memory only.
    public static let stateDir = DaemonSetting("stateDir", .text)
    /// A fleet's PostgreSQL database (`postgres://...`), shared by its instances, instead of the state directory.
    public static let store = DaemonSetting("store", .text)
    /// This instance's name in its fleet.
    public static let instance = DaemonSetting("instance", .text)
    /// How long an instance's lease lasts without renewal: its sessions move after it.
    public static let lease = DaemonSetting("lease", .duration)
    /// The control endpoints the fleet's clients are sent to for this instance.
    public static let advertiseControl = DaemonSetting("advertiseControl", .endpoints)
    /// The events endpoints the fleet's clients are sent to for this instance.
    public static let advertiseEvents = DaemonSetting("advertiseEvents", .endpoints)
    /// What an acknowledgement waits for: os, fsync or off.
    public static let durability = DaemonSetting("durability", .choice(["os", "fsync", "off"]))
    /// How long flowd waits for a store that does not answer before it stops (exit 74).
    public static let storeRetryWindow = DaemonSetting("storeRetryWindow", .duration)
    /// How long a session no peer touches is kept.
    public static let idleSessionExpiry = DaemonSetting("idleSessionExpiry", .duration)
    /// Journal entries after which a session is written whole.
    public static let snapshotEvery = DaemonSetting("snapshotEvery", .count)
    /// How often changed sessions are written whole.
    public static let snapshotInterval = DaemonSetting("snapshotInterval", .duration)
    /// Where metrics and health checks are served (`HOST:PORT`).
    public static let metrics = DaemonSetting("metrics", .text)
    /// Where flowd speaks the protocol over WebSocket (`HOST:PORT`).
    public static let websocket = DaemonSetting("websocket", .text)
    /// The origins whose pages may open the WebSocket endpoint.
    public static let websocketOrigins = DaemonSetting("websocketOrigins", .text)
    /// A file of WebSocket tokens (`ID=TOKEN[:SESSIONS[:ROLES]]`, one per line).
    public static let websocketTokensFile = DaemonSetting("websocketTokensFile", .text, reloads: true)
    /// WebSocket tokens given in the environment or the configuration file (never a flag).
    public static let websocketTokens = DaemonSetting("websocketTokens", .secret, reloads: true)
    /// The most WebSocket connections open at once.
    public static let websocketMaxConnections = DaemonSetting("websocketMaxConnections", .count)
    /// How log lines are written: text or json.
    public static let logFormat = DaemonSetting("logFormat", .choice(["text", "json"]))
    /// The lowest level logged.
    public static let logLevel = DaemonSetting(
        "logLevel",
        .choice(["trace", "debug", "info", "notice", "warning", "error", "critical"]),
        reloads: true
    )

    /// Every setting, in the order `flowd config` prints them.
    public static let all: [DaemonSetting] = [
        flows, control, events, tcp, heartbeatInterval, heartbeatTimeout, maxMessageSize, guardTimeout, deepLinkWait,
        peerMessageRate, peerByteRate, maxSessions, sessionsPerPeerPerMinute, maxPresentables, maxSessionDataBytes,
        maxSteppersPerSession, sendQueueLimit, ipcMode, ipcGroup, inspectionDelay, curveSecretKey, curveSecretKeyFile,
        authorizedKeys, stateDir, store, instance, lease, advertiseControl, advertiseEvents, durability,
        storeRetryWindow, idleSessionExpiry, snapshotEvery, snapshotInterval, metrics, websocket, websocketOrigins,
        websocketTokensFile, websocketTokens, websocketMaxConnections, logFormat, logLevel,
    ]

    /// The settings whose values are never shown (`flowd config`, the log).
    public static var secrets: [DaemonSetting] { all.filter { $0.kind == .secret } }

    /// The setting whose file key is `key`.
    public static func named(_ key: String) -> DaemonSetting? {
        all.first { $0.key == key }
    }
}
