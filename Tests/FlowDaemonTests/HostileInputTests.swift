import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// Thousands of malformed and hostile messages at a real flowd: each refused and counted, nothing changes, and a
/// normal journey still works.
@Suite struct HostileInputTests {
    @Test func aFloodOfBadMessagesIsRefusedCountedAndHarmless() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fd-\(UUID().uuidString.prefix(8))"
        ).path
        let daemon = try DaemonProcess([
            "--flows", demoFlows, "--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events",
            "--max-message-size", "65536",
        ])
        let (control, events) = try daemon.readyEndpoints()
        let context = try Context()
        let codec = WireCodec()

        let attacker = try Socket(.dealer, context: context)
        try attacker.setOption(.routingID, Array("attacker".utf8))
        try attacker.connect(control[0])
        let valid = codec.encode(
            Envelope(header: Header(id: 1, session: "kiosk", sentAt: 0), message: .heartbeat(Heartbeat()))
        )
        // Tried, 250 of each: random bytes, another protocol version, too few frames, an unknown type, a header
        // that is not JSON, a body missing its fields, a message before HELLO, a HELLO claiming another id.
        let hostile: [[[UInt8]]] = [
            [[0xFF, 0x00, 0x13]],
            [Array("FLOWBUS/7".utf8)] + valid.dropFirst(),
            Array(valid.prefix(2)),
            [valid[0], Array("SELF_DESTRUCT".utf8), valid[2], valid[3]],
            [valid[0], valid[1], Array("{not json".utf8), valid[3]],
            [valid[0], Array("STEP".utf8), valid[2], Array("{}".utf8)],
            valid,
            codec.encode(
                Envelope(
                    header: Header(id: 2, sentAt: 0),
                    message: .hello(Hello(role: .stepper, id: "kiosk/app", session: "kiosk"))
                )
            ),
        ]
        for _ in 0..<250 {
            for frames in hostile {
                try attacker.send(frames: frames)
            }
        }
        // Every hostile message is answered with an ERROR.
        var errors = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while errors < 2000 && ContinuousClock.now < deadline {
            guard let reply = try attacker.receive(within: .seconds(5)) else { break }
            if case .error = try? codec.decode(reply.frames).message {
                errors += 1
            }
        }
        #expect(errors == 2000)

        // An oversized message gets its sender disconnected by ZeroMQ, and nothing else.
        let giant = try Socket(.dealer, context: context)
        try giant.setOption(.routingID, Array("giant".utf8))
        let giantEvents = try giant.monitor()
        try giant.connect(control[0])
        #expect(try giantEvents.wait(for: .connected, within: .seconds(10)) != nil)
        try giant.send(frames: [Array(repeating: 0x41, count: 200_000)])
        #expect(try giantEvents.wait(for: .disconnected, within: .seconds(10)) != nil)

        // A normal journey still works.
        _ = try TestPeer.registered(.presenter, name: "main", context: context, control: control[0], events: events[0])
        let stepper = try TestPeer.registered(
            .stepper,
            name: "app",
            context: context,
            control: control[0],
            events: events[0]
        )
        #expect(try stepper.emit(Step("onboardingIsRequired"), sequence: 1).accepted)
        let stats = try stepper.stats()
        let counted = stats["errors"]?.objectValue ?? [:]
        #expect(counted["notFlowBus"] == 250)
        #expect(counted["unsupportedVersion"] == 250)
        #expect(counted["wrongFrameCount"] == 250)
        #expect(counted["unknownType"] == 250)
        #expect(counted["malformedHeader"] == 250)
        #expect(counted["malformedBody"] == 250)
        #expect(counted["notRegistered"] == 250)
        #expect(counted["idMismatch"] == 250)
        #expect(stats["stepsIn"] == 1)
        #expect(daemon.signal(SIGTERM) == 0)
    }

    @Test func aFloodingPeerIsThrottledWhileOthersAreServed() throws {
        let daemon = try DaemonProcess.onIPC(["--peer-message-rate", "500"])
        let (control, events) = try daemon.readyEndpoints()
        let context = try Context()
        let flooder = try TestPeer.registered(
            .presenter,
            name: "main",
            context: context,
            control: control[0],
            events: events[0]
        )
        for _ in 0..<3000 {
            try flooder.send(.heartbeat(Heartbeat()))
        }
        let warning = try flooder.expect { message -> ErrorReply? in
            if case .error(let error) = message, error.code == "flood" { error } else { nil }
        }
        #expect(warning.message.contains("500 messages per second"))

        let stepper = try TestPeer.registered(
            .stepper,
            name: "app",
            context: context,
            control: control[0],
            events: events[0]
        )
        #expect(try stepper.emit(Step("onboardingIsRequired"), sequence: 1).accepted)
        // Every message of the flood is accounted for: handled, or dropped and counted.
        var flooded = 0
        let accounted = try waitUntil {
            let stats = try stepper.stats()
            flooded = stats["errors"]?.objectValue?["flood"]?.intValue ?? 0
            let handled = stats["messagesIn"]?.objectValue?["HEARTBEAT"]?.intValue ?? 0
            return flooded + handled == 3000
        }
        #expect(accounted)
        #expect(flooded > 0)
        #expect(try daemon.line(containing: "more than 500 messages per second").contains("kiosk/main"))
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
