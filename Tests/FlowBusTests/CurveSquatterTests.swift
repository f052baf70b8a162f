import FlowBus
import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Synchronization
import Testing
import ZeroMQ

/// With CURVE, flowd does not hand a connected routing id over to a new connection (that would give one key another's
/// replies), so a connection of another key that took a free id could keep its owner out. These tests take an id
/// with another key, over tcp, and check that the owner, a real stepper client, gets in all the same.
@Suite struct CurveSquatterTests {
    let server: CurveKeyPair
    let app: CurveKeyPair
    let squatter: CurveKeyPair
    let daemon: Daemon

    init() throws {
        server = try CurveKeyPair.generate()
        app = try CurveKeyPair.generate()
        squatter = try CurveKeyPair.generate()
        daemon = try Daemon(
            .tcp,
            [
                "--curve-secret-key=\(server.secretKey.z85)", "--authorize=kiosk/app=\(app.publicKey.z85)",
                "--authorize=kiosk/squatter=\(squatter.publicKey.z85)",
                // A silent connection is cut once it has said nothing for this long.
                "--heartbeat-interval", "500", "--heartbeat-timeout", "1500",
            ]
        )
    }

    func options(_ keys: CurveKeyPair, connectTimeout: Duration = .seconds(20)) -> ClientOptions {
        var options = daemon.options(connectTimeout: connectTimeout)
        options.curve = ClientCurve(keys: keys, serverKey: server.publicKey)
        return options
    }

    /// A DEALER of the squatter's key under the app's routing id, its handshake done; it does not connect again
    /// once cut (a minute later).
    func squat(_ context: Context) throws -> Socket {
        let dealer = try Socket(.dealer, context: context)
        try dealer.makeCurveClient(keyPair: squatter, serverKey: server.publicKey)
        try dealer.setOption(.routingID, Array("kiosk/app".utf8))
        try dealer.setOption(.reconnectInterval, .seconds(60))
        let monitor = try dealer.monitor()
        try dealer.connect(daemon.endpoints.control)
        #expect(try monitor.wait(for: .handshakeSucceeded, within: .seconds(10)) != nil)
        return dealer
    }

    @Test func aSilentConnectionHoldingTheIdIsCutAndTheOwnerGetsIn() async throws {
        let context = try Context()
        let holder = try squat(context)
        // Held by a connection that says nothing: the app's client cannot have the id until flowd cuts it.
        let stepper = try await StepperClient.connect(session: "kiosk", name: "app", options: options(app))
        #expect(try await stepper.emit("dashboardIsRequired").isAccepted)
        _ = try daemon.process.line(containing: "control connection(s) that said nothing")
        // The holder, cut, heard nothing of the app's.
        #expect(try holder.receive(dontWait: true) == nil)
        await stepper.close()
    }

    @Test func aConnectionSpeakingUnderAnotherKeysIdIsCutAndItsKeyRefusedAWhile() async throws {
        let context = try Context()
        let holder = try squat(context)
        // Tried: a HELLO as the app, with the squatter's key, under the app's routing id.
        let codec = WireCodec()
        try holder.send(
            frames: codec.encode(
                Envelope(
                    header: Header(id: 1, sentAt: 0),
                    message: .hello(Hello(role: .stepper, id: "kiosk/app", name: "app", session: "kiosk"))
                )
            )
        )
        let answer = try #require(try holder.receive(within: .seconds(10)))
        guard case .error(let refusal) = try codec.decode(answer.frames).message else {
            Issue.record("the squatter got \(answer.strings), not an ERROR")
            return
        }
        #expect(refusal.code == "idNotAllowed")
        _ = try daemon.process.line(containing: "spoke under the id 'kiosk/app'")
        // Cut at once: the owner gets in.
        let stepper = try await StepperClient.connect(session: "kiosk", name: "app", options: options(app))
        #expect(try await stepper.emit("dashboardIsRequired").isAccepted)
        // The squatter's key is refused in the handshake for a while, even under its own id.
        await #expect {
            _ = try await StepperClient.connect(
                session: "kiosk",
                name: "squatter",
                options: options(squatter, connectTimeout: .seconds(1))
            )
        } throws: { error in
            (error as? FlowBusError)?.code == .unreachable
        }
        _ = try daemon.process.line(containing: "of a key that spoke under another's id")
        await stepper.close()
    }

    @Test func aKeyConnectingAgainAndAgainUnderAnotherKeysIdIsRefusedAndTheOwnerGetsIn() async throws {
        // The squatter opens a new silent connection under the app's id every 20 ms (each holds the id until flowd
        // cuts it for saying nothing), on a thread of its own, until told to stop.
        let stopping = Atomic(false)
        let server = server.publicKey
        let squatter = squatter
        let endpoint = daemon.endpoints.control
        let squatting = Thread {
            guard let context = try? Context() else { return }
            var held: [Socket] = []
            while !stopping.load(ordering: .relaxed) {
                if let dealer = try? Socket(.dealer, context: context) {
                    try? dealer.makeCurveClient(keyPair: squatter, serverKey: server)
                    try? dealer.setOption(.routingID, Array("kiosk/app".utf8))
                    try? dealer.connect(endpoint)
                    held.append(dealer)
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        squatting.start()
        defer { stopping.store(true, ordering: .relaxed) }
        let stepper = try await StepperClient.connect(session: "kiosk", name: "app", options: options(app))
        #expect(try await stepper.emit("dashboardIsRequired").isAccepted)
        // The operator is told which key to revoke.
        _ = try daemon.process.line(containing: "the key of 'kiosk/squatter' connects too often")
        await stepper.close()
    }
}
