import FlowSpec
import FlowStore
import FlowWire
import Foundation
import Logging
import ZeroMQ

extension DaemonConfiguration {
    /// The flow file used when none is given: the repository's demo flows in the working directory, else the
    /// package's (`/etc/flowbus/flows.yaml`).
    public static let defaultFlowsFiles = ["deploy/flows/movies.yaml", "/etc/flowbus/flows.yaml"]

    /// The flow files looked for when none is given, in order, as a sentence.
    public static var defaultFlowsFile: String {
        "\(defaultFlowsFiles[0]) in the working directory, else \(defaultFlowsFiles[1])"
    }

    /// The configuration `settings` describe, with the defaults for what they leave out. Without endpoints, flowd
    /// listens on ipc in the runtime directory and (unless `tcp` is false) on the default tcp ports.
    /// - Throws: ``ConfigurationError`` when the settings do not fit together, naming where each was given.
    public init(_ settings: DaemonSettings, environment: [String: String]) throws {
        let (control, events) = try Self.endpoints(settings, environment: environment)
        let flows =
            settings.text(.flows) ?? Self.defaultFlowsFiles.first { FileManager.default.fileExists(atPath: $0) }
            ?? Self.defaultFlowsFiles[0]
        self.init(controlEndpoints: control, eventsEndpoints: events, flowsFile: flows)
        flowsFileGiven = settings.text(.flows) != nil
        readLimits(settings)
        try readIPCAccess(settings)
        try readOperatorSettings(settings)
        try readStorage(settings, environment: environment)
        curve = try Self.curve(settings)
        webSocket = try Self.webSocket(settings, curve: curve)
        try checkRanges { key in DaemonSetting.named(key).map(settings.naming) ?? key }
        guard heartbeatTimeout > heartbeatInterval else {
            throw ConfigurationError(
                "the heartbeat timeout (\(heartbeatTimeout.milliseconds) ms) must be longer than the heartbeat interval (\(heartbeatInterval.milliseconds) ms)"
            )
        }
    }

    /// The control and events endpoints: those given, or the defaults (ipc in the runtime directory and, unless
    /// `tcp` is false, the default tcp ports); each at most once.
    private static func endpoints(
        _ settings: DaemonSettings,
        environment: [String: String]
    ) throws -> (control: [String], events: [String]) {
        var control = settings.texts(.control) ?? []
        var events = settings.texts(.events) ?? []
        if control.isEmpty && events.isEmpty {
            let ipc = Self.defaultIPC(environment: environment)
            let tcp = settings.toggle(.tcp) ?? true
            control = [ipc.control] + (tcp ? [Self.defaultControlTCP] : [])
            events = [ipc.events] + (tcp ? [Self.defaultEventsTCP] : [])
        }
        guard !control.isEmpty, !events.isEmpty else {
            let given = control.isEmpty ? settings.naming(.events) : settings.naming(.control)
            throw ConfigurationError(
                "give both control and events endpoints, or neither for the defaults (only \(given) is given)"
            )
        }
        var seen: Set<String> = []
        // (A tcp port of * or 0 is a new port each time.)
        for endpoint in control + events
        where !endpoint.hasSuffix(":*") && !endpoint.hasSuffix(":0")
            && !seen.insert(endpoint).inserted
        {
            throw ConfigurationError(
                "\(endpoint) is given twice among the control and events endpoints: each socket needs its own"
            )
        }
        return (control, events)
    }

    /// The timings, rates and bounds given (their ranges are checked once everything is read).
    private mutating func readLimits(_ settings: DaemonSettings) {
        let milliseconds = { (setting: DaemonSetting) in settings.number(setting).map { Duration.milliseconds($0) } }
        heartbeatInterval = milliseconds(.heartbeatInterval) ?? heartbeatInterval
        heartbeatTimeout = milliseconds(.heartbeatTimeout) ?? heartbeatTimeout
        engine.guardTimeout = milliseconds(.guardTimeout) ?? engine.guardTimeout
        engine.deepLinkWait = milliseconds(.deepLinkWait) ?? engine.deepLinkWait
        inspectionBatchDelay = milliseconds(.inspectionDelay) ?? inspectionBatchDelay
        maxMessageSize = settings.number(.maxMessageSize) ?? maxMessageSize
        peerMessageRate = settings.number(.peerMessageRate) ?? peerMessageRate
        peerByteRate = settings.number(.peerByteRate) ?? peerByteRate
        maxSessions = settings.number(.maxSessions) ?? maxSessions
        sessionsPerPeerPerMinute = settings.number(.sessionsPerPeerPerMinute) ?? sessionsPerPeerPerMinute
        sendQueueLimit = settings.number(.sendQueueLimit) ?? sendQueueLimit
        engine.maxPresentables = settings.number(.maxPresentables) ?? engine.maxPresentables
        engine.maxSessionDataBytes = settings.number(.maxSessionDataBytes) ?? engine.maxSessionDataBytes
        maxSteppersPerSession = settings.number(.maxSteppersPerSession) ?? maxSteppersPerSession
        snapshotEvery = settings.number(.snapshotEvery) ?? snapshotEvery
    }

    /// Who may connect to the ipc socket files: their mode (octal) and group.
    private mutating func readIPCAccess(_ settings: DaemonSettings) throws {
        if let text = settings.text(.ipcMode) {
            guard let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                throw ConfigurationError(
                    "\(settings.naming(.ipcMode)) is a mode in octal such as 0660, not '\(text.prefix(16))'"
                )
            }
            ipcMode = mode
        }
        if let group = settings.text(.ipcGroup) {
            guard IPCEndpoint.groupID(group) != nil else {
                throw ConfigurationError("\(settings.naming(.ipcGroup)): there is no group '\(group.prefix(64))'")
            }
            ipcGroup = group
        }
    }

    /// The logs and the metrics endpoint.
    private mutating func readOperatorSettings(_ settings: DaemonSettings) throws {
        logFormat = settings.text(.logFormat).flatMap(LogFormat.init(rawValue:)) ?? logFormat
        logLevel = settings.text(.logLevel).flatMap(Logger.Level.init(rawValue:)) ?? logLevel
        if let text = settings.text(.metrics) {
            do {
                metricsAddress = try MetricsAddress(parsing: text)
            } catch {
                let source = settings.source(of: .metrics)
                throw ConfigurationError("\(error)\(source == .builtIn ? "" : " (given by \(source))")")
            }
        }
    }

    /// Where sessions are kept (a state directory, or a fleet's store) and how: durability, retries, snapshots,
    /// idle sessions' expiry.
    private mutating func readStorage(_ settings: DaemonSettings, environment: [String: String]) throws {
        let stateDir = settings.text(.stateDir) ?? StateDirectory.defaultPath(environment: environment)
        stateDirectory = stateDir == "none" ? nil : stateDir
        try readFleet(settings, environment: environment)
        if stateDirectory == nil, fleet == nil, settings[.durability] != nil {
            throw ConfigurationError(
                "\(settings.naming(.durability)) means nothing with \(settings.naming(.stateDir)) none: nothing is written"
            )
        }
        durability = settings.text(.durability).flatMap(Durability.init(rawValue:)) ?? durability
        // With `off` flowd answers before it writes. In a fleet, an instance paused past its lease would then
        // answer what its successor never gets: acknowledged steps lost without a word. A fleet writes first.
        if fleet != nil, durability == .off {
            throw ConfigurationError(
                "\(settings.naming(.durability)) off cannot be used with a fleet's store: an instance paused past its lease would acknowledge steps its successor never gets; use os (the default) or fsync"
            )
        }
        if let value = settings.duration(.storeRetryWindow) { storeRetryWindow = value }
        if let value = settings.duration(.idleSessionExpiry) { idleSessionExpiry = value == .zero ? nil : value }
        if let value = settings.duration(.snapshotInterval) {
            guard value > .zero else {
                throw ConfigurationError("\(settings.naming(.snapshotInterval)) must be longer than zero")
            }
            snapshotInterval = value
        }
    }

    /// The secret key a key file holds: the file's text, or the `secret:` line of `flowd keygen`'s output.
    static func secretKey(in text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        if let line = lines.first(where: { $0.hasPrefix("secret:") }) {
            return line.dropFirst("secret:".count).trimmingCharacters(in: .whitespaces)
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// CURVE as `settings` give it: the secret key (given, or read from its file) and the authorized clients.
    private static func curve(_ settings: DaemonSettings) throws -> CurveSettings? {
        var secretKey = settings.text(.curveSecretKey)
        if let path = settings.text(.curveSecretKeyFile) {
            guard secretKey == nil else {
                throw ConfigurationError(
                    "give flowd's CURVE secret key one way: \(settings.naming(.curveSecretKey)) or \(settings.naming(.curveSecretKeyFile)), not both"
                )
            }
            do {
                secretKey = Self.secretKey(in: String(decoding: try FileReading.data(path), as: UTF8.self))
            } catch {
                throw ConfigurationError("cannot read the CURVE secret key file \(path): \(error.reason)")
            }
        }
        let clients = settings.authorizations ?? []
        var keys: [String: String] = [:]
        var grants: [String: ClientGrant] = [:]
        var idsByKey: [String: String] = [:]
        for client in clients {
            guard keys.updateValue(client.key, forKey: client.id) == nil else {
                throw ConfigurationError(
                    "\(settings.naming(.authorizedKeys)) names '\(client.id.prefix(64))' twice: one key per id"
                )
            }
            if let other = idsByKey.updateValue(client.id, forKey: client.key) {
                throw ConfigurationError(
                    "\(settings.naming(.authorizedKeys)) gives the same key to two ids ('\(other.prefix(64))' and '\(client.id.prefix(64))'): a key is one client's"
                )
            }
            grants[client.id] = client.grant
        }
        guard let secretKey else {
            guard clients.isEmpty else {
                throw ConfigurationError(
                    "authorized keys (\(settings.source(of: .authorizedKeys))) mean nothing without flowd's CURVE secret key (curveSecretKey, --curve-secret-key, or curveSecretKeyFile, --curve-secret-key-file)"
                )
            }
            return nil
        }
        guard let secret = try? CurveKey(z85: secretKey), let pair = try? CurveKeyPair(secretKey: secret) else {
            let given = settings.text(.curveSecretKeyFile) != nil ? DaemonSetting.curveSecretKeyFile : .curveSecretKey
            let file = settings.text(.curveSecretKeyFile).map { " (\($0))" } ?? ""
            throw ConfigurationError(
                "\(settings.naming(given))\(file) is not a CURVE secret key: give the 40 Z85 characters `flowd keygen` prints as its secret"
            )
        }
        // flowd's own keys are not a client's: its secret given as one would be printed, its public key a mistake.
        for client in clients where client.key == secretKey || client.key == pair.publicKey.z85 {
            throw ConfigurationError(
                "\(settings.naming(.authorizedKeys)) gives '\(client.id.prefix(64))' flowd's own \(client.key == secretKey ? "secret" : "public") key: authorize each client's public key (its `flowd keygen` public line)"
            )
        }
        let curve = CurveSettings(secretKey: secretKey, authorizedKeys: keys, grants: grants)
        try curve.check()
        return curve
    }
}
