import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// Endpoints for one test: fresh ipc paths, or loopback tcp with ports the system picks.
func endpoints(_ transport: String) -> [String] {
    switch transport {
    case "ipc":
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fd-\(UUID().uuidString.prefix(8))"
        ).path
        return ["--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events"]
    default:
        return ["--control", "tcp://127.0.0.1:*", "--events", "tcp://127.0.0.1:*"]
    }
}

/// The real flowd binary with real peers over ipc and tcp.
@Suite struct DaemonProcessTests {
    @Test(arguments: ["ipc", "tcp"])
    func aStepperAndAPresenterDriveTheDemoThroughARealDaemon(transport: String) throws {
        let arguments = endpoints(transport)
        let daemon = try DaemonProcess(["--flows", demoFlows] + arguments)
        let (control, events) = try daemon.readyEndpoints()
        let context = try Context()
        let presenter = try TestPeer(
            "kiosk/main",
            session: "kiosk",
            context: context,
            control: control[0],
            events: events[0]
        )
        try presenter.subscribe("cmd/kiosk/main")
        try presenter.hello(.presenter, name: "main")
        try presenter.send(.snapshotRequest(SnapshotRequest()))
        let snapshot = try presenter.expect { if case .snapshot(let snapshot) = $0 { snapshot } else { nil } }
        #expect(snapshot.commands.map(\.operation) == ["setWindowRoot"])

        let stepper = try TestPeer.registered(
            .stepper,
            name: "app",
            context: context,
            control: control[0],
            events: events[0]
        )
        #expect(try stepper.emit(Step("onboardingIsRequired"), sequence: 1).accepted)
        // The resync rule: batches the snapshot already holds (published before it) are skipped.
        var batches: [CommandsMessage] = []
        while batches.count < 2 {
            let batch: CommandsMessage = try presenter.expectPublished { message in
                if case .commands(let batch) = message { batch } else { nil }
            }
            if batch.sequence > snapshot.sequence {
                batches.append(batch)
            }
        }
        #expect(batches.map(\.sequence) == [snapshot.sequence + 1, snapshot.sequence + 2])
        let placed: [PresentableDescription] = batches.flatMap { $0.commands.flatMap(\.placed) }
        let intro = try #require(placed.first { $0.name == "OnboardingIntro" })

        // The screen's own step: dropped (and why) until the presenter reports it visible.
        let hidden = try presenter.emit(Step("introIsComplete"), sequence: 1, presentable: intro.id)
        #expect(hidden.reason == "notVisible")
        try presenter.send(.visibility(VisibilityReport(visibility: .visible, presentables: [intro.id])))
        #expect(try presenter.emit(Step("introIsComplete"), sequence: 2, presentable: intro.id).accepted)

        // Resending a sequence gets the same fate and applies nothing again.
        #expect(try stepper.emit(Step("onboardingIsRequired"), sequence: 1).accepted)
        #expect(try stepper.stats()["stepsIn"] == 3)

        #expect(daemon.signal(SIGTERM) == 0)
        #expect(daemon.standardError.contains("flowd stopped"))
        // Stopped, flowd leaves no socket file behind.
        for path in arguments.filter({ $0.hasPrefix("ipc://") }).map({ String($0.dropFirst("ipc://".count)) }) {
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func sighupReloadsAValidFileAndRefusesAnInvalidOne() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fd-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let flows = directory.appendingPathComponent("flows.yaml")
        let original = try String(contentsOfFile: demoFlows, encoding: .utf8)
        try original.write(to: flows, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(["--flows", flows.path] + endpoints("ipc"))
        _ = try daemon.readyEndpoints()

        try (original + "\n  Extra:\n    root: { stack: extra }\n").write(to: flows, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        _ = try daemon.line(containing: "reload refused")
        // The problems follow, a line each (waited for: they may not be read yet).
        _ = try daemon.line(containing: "flow 'Extra' is never started")
        // Each problem on a line of its own: a log line holds no line break, shown as a literal \n.
        #expect(!daemon.standardError.contains("\\n"), "\(daemon.standardError)")

        try original.write(to: flows, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        _ = try daemon.line(containing: "flows reloaded")
        #expect(daemon.signal(SIGINT) == 0)
    }

    @Test func aConfigurationFileSetsEndpointsAndFlagsWin() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fd-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("flowd.yaml")
        try """
        flows: \(demoFlows)
        control: ipc://\(directory.path)/control
        events: [ "ipc://\(directory.path)/events" ]
        heartbeatInterval: 200
        peerMessageRate: 0
        inspectionDelay: 0
        """.write(to: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(["--config", config.path, "--heartbeat-timeout", "900"])
        let (control, events) = try daemon.readyEndpoints()
        #expect(control == ["ipc://\(directory.path)/control"])
        #expect(events == ["ipc://\(directory.path)/events"])
        let context = try Context()
        let peer = try TestPeer("kiosk/app", session: "kiosk", context: context, control: control[0], events: events[0])
        let welcome = try peer.hello(.stepper, name: "app")
        #expect(welcome.heartbeatInterval == 200)
        #expect(welcome.heartbeatTimeout == 900)
        #expect(daemon.signal(SIGTERM) == 0)

        // Tried: an unknown key, a negative number, a negative delay.
        try "colour: blue\nheartbeatInterval: -3\ninspectionDelay: -1\n".write(
            to: config,
            atomically: true,
            encoding: .utf8
        )
        let refused = try DaemonProcess(["--config", config.path])
        // (Its status once all it wrote is read: the problems come on lines after "cannot start".)
        #expect(refused.exitStatus(within: .seconds(10)) == 1)
        #expect(refused.standardError.contains("\(config.path):1:1: unknown key 'colour'"))
        // Values are read once the file's keys are known.
        try "heartbeatInterval: -3\ninspectionDelay: -1\n".write(to: config, atomically: true, encoding: .utf8)
        let badValues = try DaemonProcess(["--config", config.path])
        #expect(badValues.exitStatus(within: .seconds(10)) == 1)
        #expect(
            badValues.standardError.contains(
                "\(config.path):1: 'heartbeatInterval' must be a whole number of 1 or more, not '-3'"
            )
        )
        #expect(
            badValues.standardError.contains(
                "\(config.path):2: 'inspectionDelay' must be 0 or a positive whole number, not '-1'"
            )
        )
    }

    @Test func aBrokenFlowsFileOrABadEndpointStopsFlowdWithAClearError() throws {
        let broken = try DaemonProcess(["--flows", "/no/such/flows.yaml"] + endpoints("ipc"))
        _ = try broken.line(containing: "cannot start")
        broken.process.waitUntilExit()
        #expect(broken.process.terminationStatus == 1)

        let badEndpoint = try DaemonProcess([
            "--flows", demoFlows, "--control", "tcp://256.1.1.1:1", "--events", "tcp://127.0.0.1:*",
        ])
        // The endpoint is named, with the system's reason.
        _ = try badEndpoint.line(containing: "flowd: cannot listen on tcp://256.1.1.1:1:")
        badEndpoint.process.waitUntilExit()
        #expect(badEndpoint.process.terminationStatus == 1)
    }

    @Test func everyBadOptionIsRefusedWithAMessageAndNeverCrashesFlowd() throws {
        // Tried: empty and one-sided --authorize, one id or one key twice, a grant with empty roles, an unknown
        // role, a session pattern with spaces, an id with a space or over 128 bytes, a trailing comma in roles, the
        // reserved session '-', a key that is not one, values out of range (zero, negative, so large
        // that arithmetic with them overflows), words where numbers go, an endpoint without a scheme.
        let big = String(Int64.max)
        let (one, two) = try (CurveKeyPair.generate().publicKey.z85, CurveKeyPair.generate().publicKey.z85)
        let secret = try CurveKeyPair.generate().secretKey.z85
        let cases: [([String], String)] = [
            (["--authorize=x=\(one)", "--authorize=x=\(two)"], "authorizedKeys (--authorize) names 'x' twice"),
            (["--authorize=x=\(one)", "--authorize=y=\(one)"], "the same key to two ids"),
            (["--authorize=x=\(one):b:"], "the roles after ':' are empty"),
            (["--authorize=x=\(one):b:admin"], "'admin' is not a role"),
            (["--authorize=x=\(one): b "], "' b ' is not a session pattern"),
            (["--curve-secret-key=\(secret)", "--authorize= x=\(one)"], "cannot be said in HELLO"),
            (
                ["--curve-secret-key=\(secret)", "--authorize=\(String(repeating: "i", count: 129))=\(one)"],
                "at most 128 bytes"
            ),
            (["--authorize=x=\(one):b:stepper,"], "'' is not a role"),
            (["--authorize=x=\(one):-:stepper"], "'-' is not a session"),
            (["--authorize", "x="], "--authorize: an authorized client is ID=PUBLIC_KEY"),
            (["--authorize", "=key"], "--authorize: an authorized client is ID=PUBLIC_KEY"),
            (["--authorize", "nokey"], "--authorize: an authorized client is ID=PUBLIC_KEY"),
            (["--curve-secret-key", "short"], "curveSecretKey (--curve-secret-key) is not a CURVE secret key"),
            (["--max-message-size", big], "maxMessageSize (--max-message-size) must be from 1024"),
            (["--max-message-size", "1"], "maxMessageSize (--max-message-size) must be from 1024"),
            (["--heartbeat-timeout", big], "heartbeatTimeout (--heartbeat-timeout)"),
            (["--peer-message-rate", big], "peerMessageRate (--peer-message-rate)"),
            (["--peer-byte-rate=-5"], "--peer-byte-rate must be 0 or a positive whole number, not '-5'"),
            (["--guard-timeout", big], "guardTimeout (--guard-timeout)"),
            (["--deep-link-wait", big], "deepLinkWait (--deep-link-wait)"),
            (["--inspection-delay", big], "inspectionDelay (--inspection-delay)"),
            (["--snapshot-every", big], "snapshotEvery (--snapshot-every)"),
            (["--max-sessions", "0"], "--max-sessions must be a whole number of 1 or more, not '0'"),
            (["--send-queue-limit", "1"], "sendQueueLimit (--send-queue-limit)"),
            (["--max-presentables", "5"], "maxPresentables (--max-presentables) must be from 10"),
            (
                ["--max-steppers-per-session=0"],
                "--max-steppers-per-session must be a whole number of 1 or more, not '0'"
            ),
            (["--heartbeat-interval", "often"], "invalid for '--heartbeat-interval"),
            (["--heartbeat-interval=0"], "--heartbeat-interval must be a whole number of 1 or more, not '0'"),
            (["--max-sessions=-3"], "--max-sessions must be a whole number of 1 or more, not '-3'"),
            (
                ["--control", "nowhere"],
                "--control must be endpoints written tcp://HOST:PORT or ipc:///PATH, not 'nowhere'"
            ),
        ]
        for (arguments, message) in cases {
            let flowd = try DaemonProcess(["--flows", demoFlows, "--ephemeral"] + arguments)
            let status = flowd.exitStatus(within: .seconds(10))
            #expect(flowd.process.terminationReason == .exit, "\(arguments): \(flowd.standardError)")
            #expect(status == 64 || status == 1, "\(arguments): exit \(status.map(String.init) ?? "none")")
            #expect(flowd.standardError.contains(message), "\(arguments): \(flowd.standardError)")
        }
    }

    @Test func theIPCSocketFilesGetTheModeAndGroupAskedFor() throws {
        let directory = uniqueDirectory("ip")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let group = String(getgid())
        let daemon = try DaemonProcess([
            "--flows", demoFlows, "--ephemeral", "--control", "ipc://\(directory)/control", "--events",
            "ipc://\(directory)/events", "--ipc-mode", "0660", "--ipc-group", group,
        ])
        _ = try daemon.readyEndpoints()
        for name in ["control", "events"] {
            var status = stat()
            #expect(stat(directory + "/" + name, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o660)
            #expect(status.st_gid == getgid())
        }
        #expect(daemon.signal(SIGTERM) == 0)
        // A client told where no flowd listens hears so, not only that flowd does not answer.
        #expect(IPCAccess.problem(with: "ipc://\(directory)/control")?.contains("there is no socket file") == true)
        #expect(IPCAccess.problem(with: "tcp://127.0.0.1:1") == nil)
        // Tried: a mode that is not octal, a group that does not exist.
        for (arguments, message) in [
            (["--ipc-mode", "rw-rw----"], "ipcMode (--ipc-mode) is a mode in octal"),
            (["--ipc-group", "no-such-group-\(getpid())"], "there is no group"),
        ] {
            let refused = try DaemonProcess(["--flows", demoFlows, "--ephemeral"] + arguments)
            #expect(refused.exitStatus() == 1)
            #expect(refused.standardError.contains(message), "\(refused.standardError)")
        }
    }
}
