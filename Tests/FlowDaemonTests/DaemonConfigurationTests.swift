import FlowDaemon
import TestSupport
import Testing

/// How flowd's settings come together: built-in defaults, then the file, then flags.
@Suite struct DaemonConfigurationTests {
    private let environment = ["XDG_RUNTIME_DIR": "/run/user/7"]

    @Test func withNothingGivenFlowdUsesItsDefaults() throws {
        let configuration = try DaemonConfiguration(ConfigurationFile(), environment: environment)
        #expect(configuration.controlEndpoints == ["ipc:///run/user/7/flowbus/control", "tcp://127.0.0.1:5860"])
        #expect(configuration.eventsEndpoints == ["ipc:///run/user/7/flowbus/events", "tcp://127.0.0.1:5861"])
        #expect(configuration.flowsFile == DaemonConfiguration.defaultFlowsFile)
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
        var file = ConfigurationFile()
        file.flows = "/etc/flowbus/flows.yaml"
        file.heartbeatInterval = 200
        file.guardTimeout = 700
        file.tcp = false
        file.curveSecretKey = "secret"
        file.authorizedKeys = ["a": "key-a", "b": "key-b"]
        file.inspectionDelay = 20
        file.peerMessageRate = 0
        var flags = ConfigurationFile()
        flags.heartbeatInterval = 300
        flags.inspectionDelay = 0
        flags.authorizedKeys = ["b": "key-b2"]
        let configuration = try DaemonConfiguration(file.overridden(by: flags), environment: environment)
        #expect(configuration.inspectionBatchDelay == .zero)
        #expect(configuration.peerMessageRate == 0)
        #expect(configuration.flowsFile == "/etc/flowbus/flows.yaml")
        #expect(configuration.heartbeatInterval == .milliseconds(300))
        #expect(configuration.engine.guardTimeout == .milliseconds(700))
        #expect(configuration.controlEndpoints == ["ipc:///run/user/7/flowbus/control"])
        #expect(
            configuration.curve == CurveSettings(secretKey: "secret", authorizedKeys: ["a": "key-a", "b": "key-b2"])
        )
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
}
