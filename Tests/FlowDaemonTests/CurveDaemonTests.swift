import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// flowd with CURVE over tcp: authorized keys talk, unknown keys are refused, and a key is bound to its id.
@Suite struct CurveDaemonTests {
    @Test func onlyAuthorizedKeysTalkAndEachKeyOnlyAsItsOwnID() throws {
        let server = try CurveKeyPair.generate()
        let app = try CurveKeyPair.generate()
        let presenter = try CurveKeyPair.generate()
        let daemon = try DaemonProcess([
            "--flows", demoFlows, "--control", "tcp://127.0.0.1:*", "--events", "tcp://127.0.0.1:*",
            "--curve-secret-key=\(server.secretKey.z85)",
            "--authorize=kiosk/app=\(app.publicKey.z85)",
            "--authorize=kiosk/main=\(presenter.publicKey.z85)",
        ])
        let (control, events) = try daemon.readyEndpoints()
        let context = try Context()

        // An authorized stepper and presenter work as without CURVE, commands included.
        let screen = try TestPeer(
            "kiosk/main",
            session: "kiosk",
            context: context,
            control: control[0],
            events: events[0],
            curve: (presenter, server.publicKey)
        )
        try screen.subscribe("cmd/kiosk/main")
        try screen.hello(.presenter, name: "main")
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
        let batch: CommandsMessage = try screen.expectPublished { message in
            if case .commands(let batch) = message, batch.commands.contains(where: { $0.operation == "present" }) {
                batch
            } else {
                nil
            }
        }
        #expect(batch.presenter == "main")

        // A key flowd does not know: the handshake is refused, nothing reaches the daemon.
        let stranger = try Socket(.dealer, context: context)
        try stranger.setOption(.routingID, Array("kiosk/intruder".utf8))
        try stranger.makeCurveClient(keyPair: try CurveKeyPair.generate(), serverKey: server.publicKey)
        let strangerEvents = try stranger.monitor()
        try stranger.connect(control[0])
        #expect(try strangerEvents.wait(for: .handshakeFailedAuthentication, within: .seconds(10)) != nil)
        _ = try daemon.line(containing: "refused a client key")

        // An authorized key used under another id: the key says who it is.
        let impostor = try TestPeer(
            "kiosk/other",
            session: "kiosk",
            context: context,
            control: control[0],
            events: events[0],
            curve: (app, server.publicKey)
        )
        try impostor.send(.hello(Hello(role: .stepper, id: "kiosk/other", name: "other", session: "kiosk")))
        let refusal = try impostor.expect { message -> ErrorReply? in
            if case .error(let error) = message { error } else { nil }
        }
        #expect(refusal.code == "idNotAllowed")
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
