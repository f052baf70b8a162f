import FlowDaemon
import FlowStore
import Foundation
import TestSupport
import Testing
import ZeroMQ

/// How flowd's settings come together: built-in defaults, then the file, then flags.
@Suite struct DaemonConfigurationTests {
    private let environment = ["XDG_RUNTIME_DIR": "/run/user/7"]

    @Test func withNothingGivenFlowdUsesItsDefaults() throws {
        let configuration = try DaemonConfiguration(ConfigurationFile(), environment: environment)
        #expect(configuration.controlEndpoints == ["ipc:///run/user/7/flowbus/control", "tcp://127.0.0.1:5860"])
        #expect(configuration.eventsEndpoints == ["ipc:///run/user/7/flowbus/events", "tcp://127.0.0.1:5861"])
        // The tests run in the repository: its demo flows are the first default place.
        #expect(configuration.flowsFile == DaemonConfiguration.defaultFlowsFiles[0])
        #expect(!configuration.flowsFileGiven)
        #expect(configuration.heartbeatInterval == .seconds(1))
        #expect(configuration.inspectionBatchDelay == .milliseconds(5))
        #expect(configuration.curve == nil)
        #expect(
            try DaemonConfiguration(ConfigurationFile(), environment: [:]).controlEndpoints[0].hasPrefix(
                "ipc:///tmp/flowbus-"
            )
        )
    }

    @Test func flagsWinOverTheFileWhichWinsOverTheDefaults() throws {
        let (secret, a, b, b2) = try (
            CurveKeyPair.generate().secretKey.z85, CurveKeyPair.generate().publicKey.z85,
            CurveKeyPair.generate().publicKey.z85, CurveKeyPair.generate().publicKey.z85
        )
        var file = ConfigurationFile()
        file.flows = "/etc/flowbus/flows.yaml"
        file.heartbeatInterval = 200
        file.guardTimeout = 700
        file.tcp = false
        file.curveSecretKey = secret
        file.authorizedKeys = ["a": a, "b": b]
        file.inspectionDelay = 20
        file.peerMessageRate = 0
        var flags = ConfigurationFile()
        flags.heartbeatInterval = 300
        flags.inspectionDelay = 0
        flags.authorizedKeys = ["b": b2]
        let configuration = try DaemonConfiguration(file.overridden(by: flags), environment: environment)
        #expect(configuration.inspectionBatchDelay == .zero)
        #expect(configuration.peerMessageRate == 0)
        #expect(configuration.flowsFile == "/etc/flowbus/flows.yaml")
        #expect(configuration.heartbeatInterval == .milliseconds(300))
        #expect(configuration.engine.guardTimeout == .milliseconds(700))
        #expect(configuration.controlEndpoints == ["ipc:///run/user/7/flowbus/control"])
        #expect(
            configuration.curve == CurveSettings(secretKey: secret, authorizedKeys: ["a": a, "b": b2])
        )
    }

    @Test func sessionsAreKeptInTheUsersStateDirectoryUnlessToldOtherwise() throws {
        let defaults = try DaemonConfiguration(ConfigurationFile(), environment: ["XDG_STATE_HOME": "/home/k/.state"])
        #expect(defaults.stateDirectory == "/home/k/.state/flowbus")
        #expect(defaults.durability == .os)
        #expect(defaults.idleSessionExpiry == .seconds(7 * 86_400))
        let home = try DaemonConfiguration(ConfigurationFile(), environment: ["HOME": "/home/k"])
        #expect(home.stateDirectory == "/home/k/.local/state/flowbus")
        var file = ConfigurationFile()
        file.stateDir = "none"
        file.idleSessionExpiry = .zero
        file.durability = .fsync
        let ephemeral = try DaemonConfiguration(file, environment: environment)
        #expect(ephemeral.stateDirectory == nil)
        #expect(!ephemeral.durable)
        #expect(ephemeral.idleSessionExpiry == nil)
        #expect(ephemeral.durability == .fsync)
    }

    /// A state directory in a file is relative to the file; `~/` is the home directory; absolute paths stay.
    @Test func aStateDirectoryIsResolvedAsItsReaderExpects() throws {
        let environment = ["HOME": "/home/k"]
        #expect(
            StateDirectory.resolve("state", relativeTo: "/etc/flowbus", environment: environment)
                == "/etc/flowbus/state"
        )
        #expect(
            StateDirectory.resolve("../var/s", relativeTo: "/etc/flowbus", environment: environment) == "/etc/var/s"
        )
        #expect(StateDirectory.resolve("~/st", relativeTo: "/etc", environment: environment) == "/home/k/st")
        #expect(
            StateDirectory.resolve("/var/lib/flowbus", relativeTo: "/etc", environment: environment)
                == "/var/lib/flowbus"
        )
        #expect(StateDirectory.resolve("none", relativeTo: "/etc", environment: environment) == "none")
        let directory = uniqueDirectory("config")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "stateDir: kept\n".write(toFile: directory + "/flowd.yaml", atomically: true, encoding: .utf8)
        #expect(try ConfigurationFile.load(contentsOf: directory + "/flowd.yaml").stateDir == directory + "/kept")
        try "stateDir: ''\n".write(toFile: directory + "/empty.yaml", atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.load(contentsOf: directory + "/empty.yaml") }
    }

    /// Durations as written in files and flags. Bad ones tried: negative, fractional, unknown units, empty.
    @Test func durationsAreReadAsPeopleWriteThem() {
        #expect(DurationText.parse("7d") == .seconds(7 * 86_400))
        #expect(DurationText.parse("12h") == .seconds(12 * 3_600))
        #expect(DurationText.parse("30m") == .seconds(1_800))
        #expect(DurationText.parse("45s") == .seconds(45))
        #expect(DurationText.parse("250ms") == .milliseconds(250))
        #expect(DurationText.parse("90") == .seconds(90))
        #expect(DurationText.parse("0") == .zero)
        for bad in ["-1d", "1.5h", "3w", "", "d", "ms", "99999999999999999999d"] {
            #expect(DurationText.parse(bad) == nil, "\(bad) was taken")
        }
    }

    @Test func aFileWithBadStateSettingsIsRefusedNamingEachLine() throws {
        let path = uniqueDirectory("config") + ".yaml"
        try "durability: sometimes\nidleSessionExpiry: soon\nsnapshotEvery: 0\n".write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationFile.load(contentsOf: path) }
        let lines = error?.description.split(separator: "\n").map(String.init) ?? []
        #expect(lines.count == 3)
        #expect(lines.first == "\(path):1:1: 'durability' must be os, fsync or off")
        #expect(lines.dropFirst().first?.contains("'idleSessionExpiry' must be a duration such as 7d") == true)
    }

    @Test func theShippedConfigurationFileSetsEveryKey() throws {
        let path = repositoryRoot.appendingPathComponent("deploy/flowd.yaml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for key in ConfigurationFile.keys {
            #expect(text.contains("\n\(key):") || text.contains("# \(key):"), "deploy/flowd.yaml does not show \(key)")
        }
        let file = try ConfigurationFile.load(contentsOf: path)
        #expect(file.inspectionDelay == 5)
        #expect(file.peerMessageRate == 50_000)
        // ipc only: tcp, even on loopback, would let every local user in past the socket's group.
        #expect(file.control == ["ipc:///run/flowbus/control"] && file.events == ["ipc:///run/flowbus/events"])
        #expect(file.ipcMode == "0660")
        // The shipped values are the built-in defaults.
        let defaults = try DaemonConfiguration(ConfigurationFile(), environment: environment)
        #expect(file.maxMessageSize == defaults.maxMessageSize)
        #expect(file.peerByteRate == defaults.peerByteRate)
        #expect(file.maxSessions == defaults.maxSessions)
        #expect(file.sessionsPerPeerPerMinute == defaults.sessionsPerPeerPerMinute)
        #expect(file.sendQueueLimit == defaults.sendQueueLimit)
        #expect(file.maxPresentables == defaults.engine.maxPresentables)
        #expect(file.maxSessionDataBytes == defaults.engine.maxSessionDataBytes)
        #expect(file.maxSteppersPerSession == defaults.maxSteppersPerSession)
        #expect(file.stateDir == "/var/lib/flowbus")
        #expect(file.idleSessionExpiry == .seconds(7 * 86_400))
        #expect(file.snapshotInterval == .seconds(60))
    }

    @Test func theMetricsAddressIsReadAsOperatorsWriteIt() throws {
        // Tried: no port, a port beyond 65535, a host name other than localhost, an empty value.
        let read = { (text: String) throws -> MetricsAddress? in
            var file = ConfigurationFile()
            file.metrics = text
            return try DaemonConfiguration(file, environment: self.environment).metricsAddress
        }
        #expect(try DaemonConfiguration(ConfigurationFile(), environment: environment).metricsAddress == nil)
        #expect(try read("127.0.0.1:9862") == MetricsAddress(host: "127.0.0.1", port: 9862))
        #expect(try read("localhost:9862") == MetricsAddress(host: "127.0.0.1", port: 9862))
        #expect(try read(":9862") == MetricsAddress(host: "0.0.0.0", port: 9862))
        #expect(try read("[::1]:0") == MetricsAddress(host: "::1", port: 0))
        #expect(try read("[::1]:0")?.description == "[::1]:0")
        for bad in ["9862", "127.0.0.1:65536", "metrics.example:9862", ""] {
            #expect(throws: ConfigurationError.self, "\(bad) was taken") { _ = try read(bad) }
        }
    }

    @Test func settingsThatDoNotFitTogetherAreRefused() {
        // Tried: control endpoints without events ones, a heartbeat timeout not longer than the interval.
        var halfEndpoints = ConfigurationFile()
        halfEndpoints.control = ["tcp://127.0.0.1:1"]
        #expect(throws: ConfigurationError.self) { try DaemonConfiguration(halfEndpoints, environment: environment) }
        var shortTimeout = ConfigurationFile()
        shortTimeout.heartbeatInterval = 2000
        shortTimeout.heartbeatTimeout = 2000
        #expect(throws: ConfigurationError.self) { try DaemonConfiguration(shortTimeout, environment: environment) }
    }

    @Test func aSettingOutOfItsRangeIsRefusedNamingItsKeyFlagAndRange() {
        // Tried: a zero message size, one so large that adding to it overflows, a negative rate, no sessions, a
        // heartbeat timeout of 300 years, a send queue of 1, 2 presentables, no session data, no senders.
        let cases: [(String, (inout ConfigurationFile) -> Void)] = [
            ("maxMessageSize (--max-message-size) must be from 1024 to 268435456, not 1", { $0.maxMessageSize = 1 }),
            ("maxMessageSize (--max-message-size)", { $0.maxMessageSize = Int.max }),
            ("peerByteRate (--peer-byte-rate)", { $0.peerByteRate = -1 }),
            ("maxSessions (--max-sessions)", { $0.maxSessions = 0 }),
            ("heartbeatTimeout (--heartbeat-timeout)", { $0.heartbeatTimeout = Int(Int64.max / 1_000_000) }),
            ("sendQueueLimit (--send-queue-limit)", { $0.sendQueueLimit = 1 }),
            ("maxPresentables (--max-presentables) must be from 10", { $0.maxPresentables = 2 }),
            ("maxSessionDataBytes (--max-session-data-bytes)", { $0.maxSessionDataBytes = 0 }),
            ("maxSteppersPerSession (--max-steppers-per-session)", { $0.maxSteppersPerSession = 0 }),
        ]
        for (message, setting) in cases {
            var file = ConfigurationFile()
            setting(&file)
            let error = #expect(throws: ConfigurationError.self) {
                try DaemonConfiguration(file, environment: environment)
            }
            #expect(error?.description.contains(message) == true, "\(error?.description ?? "nothing thrown")")
        }
    }

    @Test func curveKeysThatAreNotKeysAreRefusedAtOnce() throws {
        // Tried: a secret key that is not Z85, an authorized key of the wrong length, keys without a secret key.
        var badSecret = ConfigurationFile()
        badSecret.curveSecretKey = "secret"
        #expect(throws: ConfigurationError.self) { try DaemonConfiguration(badSecret, environment: environment) }
        var badClient = ConfigurationFile()
        badClient.curveSecretKey = try CurveKeyPair.generate().secretKey.z85
        badClient.authorizedKeys = ["kiosk/app": "short"]
        let error = #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration(badClient, environment: environment)
        }
        #expect(error?.description.contains("'kiosk/app' is not a CURVE public key") == true)
        var noSecret = ConfigurationFile()
        noSecret.authorizedKeys = ["kiosk/app": try CurveKeyPair.generate().publicKey.z85]
        #expect(throws: ConfigurationError.self) { try DaemonConfiguration(noSecret, environment: environment) }
    }

    @Test func aConfigurationFileGrantsKeysSessionsAndRoles() throws {
        let (secret, app, ops) = try (
            CurveKeyPair.generate().secretKey.z85, CurveKeyPair.generate().publicKey.z85,
            CurveKeyPair.generate().publicKey.z85
        )
        let scratch = ScratchDirectory("grants")
        let path = scratch.path + "/flowd.yaml"
        try """
        curveSecretKey: "\(secret)"
        authorizedKeys:
          kiosk-7/app: { key: "\(app)", sessions: [kiosk-7], roles: [stepper] }
          ops: "\(ops)"
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let configuration = try DaemonConfiguration(ConfigurationFile.load(contentsOf: path), environment: environment)
        #expect(configuration.curve?.authorizedKeys == ["kiosk-7/app": app, "ops": ops])
        #expect(configuration.curve?.grants == ["kiosk-7/app": ClientGrant(sessions: ["kiosk-7"], roles: [.stepper])])
        // Tried: a grant with an unknown role, a client with neither key nor grant.
        try """
        curveSecretKey: "\(secret)"
        authorizedKeys:
          kiosk-7/app: { key: "\(app)", roles: [admin] }
          ops: [1, 2]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationFile.load(contentsOf: path) }
        #expect(error?.description.contains("'admin' is not a role") == true)
        #expect(error?.description.contains("'ops' needs a key") == true)
    }
}
