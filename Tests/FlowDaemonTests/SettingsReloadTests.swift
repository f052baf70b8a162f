import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// SIGHUP reads the settings again: a real flowd applies new rates, bounds, log level and authorized keys at once,
/// names the changes that take a restart, and refuses settings it cannot use, keeping the running ones.
@Suite struct SettingsReloadTests {
    /// The ERROR a HELLO got, or `nil` when it was welcomed.
    private func helloError(_ peer: TestPeer, _ role: Role, name: String) throws -> ErrorReply? {
        try peer.send(.hello(Hello(role: role, id: peer.id, name: name, session: peer.session)))
        return try peer.expect { message in
            switch message {
            case .welcome: .some(nil)
            case .error(let error): .some(error)
            default: nil
            }
        }
    }

    @Test func sighupAppliesBoundsAndLogLevelAndNamesWhatTakesARestart() throws {
        let scratch = ScratchDirectory("reload")
        let config = scratch.path + "/flowd.yaml"
        let base = """
            flows: \(demoFlows)
            control: ipc://\(scratch.path)/control
            events: ipc://\(scratch.path)/events
            stateDir: none

            """
        try (base + "maxSessions: 1\nheartbeatInterval: 1000\n").write(
            toFile: config,
            atomically: true,
            encoding: .utf8
        )
        let daemon = try DaemonProcess(["--config", config])
        let (control, events) = try daemon.readyEndpoints()
        let context = try Context()
        let first = try TestPeer("one/app", session: "one", context: context, control: control[0], events: events[0])
        #expect(try helloError(first, .stepper, name: "app") == nil)
        let second = try TestPeer("two/app", session: "two", context: context, control: control[0], events: events[0])
        #expect(try helloError(second, .stepper, name: "app")?.code == "sessionLimit")

        // Tried: a value flowd cannot use. The reload is refused and the running settings stay.
        try (base + "maxSessions: 0\n").write(toFile: config, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        _ = try daemon.line(containing: "settings reload refused")
        #expect(try helloError(second, .stepper, name: "app")?.code == "sessionLimit")

        try (base + "maxSessions: 5\nheartbeatInterval: 2000\nlogLevel: debug\n").write(
            toFile: config,
            atomically: true,
            encoding: .utf8
        )
        kill(daemon.process.processIdentifier, SIGHUP)
        let applied = try daemon.line(containing: "settings reloaded")
        #expect(applied.contains("maxSessions 1 → 5"))
        #expect(applied.contains("logLevel info → debug"))
        let restart = try daemon.line(containing: "take a restart")
        #expect(restart.contains("heartbeatInterval 1000 → 2000"))
        // Put back, the heartbeat needs no restart any more: a reload that only undoes it names nothing.
        try (base + "maxSessions: 5\nheartbeatInterval: 1000\nlogLevel: debug\n").write(
            toFile: config,
            atomically: true,
            encoding: .utf8
        )
        let count = { (text: String) in daemon.standardError.components(separatedBy: text).count - 1 }
        let (restartsBefore, reloadsBefore) = (count("take a restart"), count("flows reloaded"))
        kill(daemon.process.processIdentifier, SIGHUP)
        // The settings' report is logged before the flows are reloaded: once this reload's flows line is there,
        // a restart warning it made would be there too.
        #expect(waitUntil { count("flows reloaded") > reloadsBefore }, "the reload never happened")
        #expect(count("take a restart") == restartsBefore)
        // The new bound holds at once; the heartbeat, which takes a restart, does not change.
        let welcome = try second.hello(.stepper, name: "app")
        #expect(welcome.heartbeatInterval == 1000)
        // Debug lines now: an inspector's registration is logged at debug level.
        let inspector = try TestPeer("ops", session: "one", context: context, control: control[0], events: events[0])
        try inspector.hello(.inspector, name: "ops")
        #expect(try daemon.line(containing: "role=inspector").contains("debug"))
        #expect(daemon.signal(SIGTERM) == 0)
    }

    @Test func sighupWithdrawsAKeyAndItsConnectionsWhileOthersGoOn() throws {
        let server = try CurveKeyPair.generate()
        let (app, ops) = try (CurveKeyPair.generate(), CurveKeyPair.generate())
        let scratch = ScratchDirectory("withdraw")
        let config = scratch.path + "/flowd.yaml"
        let head = """
            flows: \(demoFlows)
            control: "tcp://127.0.0.1:*"
            events: "tcp://127.0.0.1:*"
            stateDir: none
            curveSecretKey: "\(server.secretKey.z85)"
            authorizedKeys:
              ops: "\(ops.publicKey.z85)"

            """
        try (head + "  kiosk/app: \"\(app.publicKey.z85)\"\n").write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(["--config", config])
        let (control, events) = try daemon.readyEndpoints()
        let context = try Context()
        let stepper = try TestPeer(
            "kiosk/app",
            session: "kiosk",
            context: context,
            control: control[0],
            events: events[0],
            curve: (app, server.publicKey)
        )
        try stepper.hello(.stepper, name: "app")
        #expect(try stepper.emit(Step("onboardingIsRequired"), sequence: 1).accepted)

        try head.write(toFile: config, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        _ = try daemon.line(containing: "authorized keys withdrawn")
        // Its connection's next message is refused, and the connection is cut.
        try stepper.send(.step(StepMessage(step: Step("dashboardIsRequired"), sequence: 2)))
        let refusal = try stepper.expect { message in if case .error(let error) = message { error } else { nil } }
        #expect(refusal.code == "notAllowed")
        #expect(refusal.message.contains("no longer authorized"))
        // A new connection with the key is refused in the handshake.
        let again = try Socket(.dealer, context: context)
        try again.setOption(.routingID, Array("kiosk/app".utf8))
        try again.makeCurveClient(keyPair: app, serverKey: server.publicKey)
        let monitor = try again.monitor()
        try again.connect(control[0])
        #expect(try monitor.wait(for: .handshakeFailedAuthentication, within: .seconds(10)) != nil)
        // The key that stays goes on.
        let operator_ = try TestPeer(
            "ops",
            session: "kiosk",
            context: context,
            control: control[0],
            events: events[0],
            curve: (ops, server.publicKey)
        )
        try operator_.hello(.inspector, name: "ops")
        #expect(try operator_.stats()["stepsIn"] != nil)
        #expect(daemon.signal(SIGTERM) == 0)
    }

    /// `flowd config` prints each value with its source, never the secret key; bad settings exit 1 naming each.
    @Test func flowdConfigShowsEveryValueAndWhereItCameFrom() throws {
        let flowd = try builtProduct("flowd")
        let scratch = ScratchDirectory("config")
        let config = scratch.path + "/flowd.yaml"
        let secret = try CurveKeyPair.generate().secretKey.z85
        try "maxSessions: 7\nheartbeatInterval: 300\ncurveSecretKey: \"\(secret)\"\n".write(
            toFile: config,
            atomically: true,
            encoding: .utf8
        )
        let shown = try run(
            flowd,
            ["config", "--config", config, "--heartbeat-interval", "400"],
            environment: ["FLOWD_PEER_MESSAGE_RATE": "10", "FLOWD_HEARTBEAT_INTERVAL": "500"]
        )
        #expect(shown.status == 0, "\(shown.errors)")
        let lines = shown.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("maxSessions: 7  # \(config):1; reloads"))
        #expect(lines.contains("heartbeatInterval: 400  # --heartbeat-interval"))
        #expect(lines.contains("peerMessageRate: 10  # FLOWD_PEER_MESSAGE_RATE; reloads"))
        #expect(lines.contains("sendQueueLimit: 5000  # default"))
        #expect(lines.contains("curveSecretKey: \"<secret>\"  # \(config):3"))
        #expect(lines.contains("# metrics:  # not set"))
        #expect(!shown.output.contains(secret))
        // Every setting has its line.
        for key in ["flows", "control", "events", "stateDir", "logLevel", "authorizedKeys", "idleSessionExpiry"] {
            #expect(lines.contains { $0.hasPrefix("\(key):") || $0.hasPrefix("# \(key):") }, "\(key)")
        }
        let refused = try run(flowd, ["config"], environment: ["FLOWD_MAX_SESSIONS": "lots"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("FLOWD_MAX_SESSIONS (maxSessions) must be a whole number of 1 or more"))
        // A variable that names no setting is warned about; FLOWD_CONFIG names the file.
        let warned = try run(flowd, ["config"], environment: ["FLOWD_COLOUR": "1", "FLOWD_CONFIG": config])
        #expect(warned.status == 0)
        #expect(warned.errors.contains("flowd: warning: ignored FLOWD_COLOUR"))
        #expect(warned.output.contains("maxSessions: 7  # \(config):1; reloads"))
        // The flows file is checked too.
        let noFlows = try run(flowd, ["config", "--flows", scratch.path + "/none.yaml"])
        #expect(noFlows.status == 1)
        #expect(noFlows.errors.contains("flowd: the flows file cannot be used: cannot read"))
    }
}
