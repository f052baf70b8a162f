import FlowBus
import FlowBusTesting
import FlowCore
import Foundation
import Testing
import ZeroMQ

/// Clients with CURVE keys against a flowd that requires them, over tcp.
@Suite struct CurveClientTests {
    @Test func authorizedClientsWorkEncryptedAndAnUnknownKeyIsKeptOut() async throws {
        let server = try CurveKeyPair.generate()
        let app = try CurveKeyPair.generate()
        let main = try CurveKeyPair.generate()
        let daemon = try Daemon(
            .tcp,
            [
                "--curve-secret-key=\(server.secretKey.z85)", "--authorize=kiosk/app=\(app.publicKey.z85)",
                "--authorize=kiosk/main=\(main.publicKey.z85)",
            ]
        )
        func options(_ keys: CurveKeyPair, connectTimeout: Duration = .seconds(10)) -> ClientOptions {
            var options = daemon.options(connectTimeout: connectTimeout)
            options.curve = ClientCurve(keys: keys, serverKey: server.publicKey)
            return options
        }
        let presenter = UpdateRecorder(try await PresenterClient.connect(session: "kiosk", options: options(main)))
        let stepper = try await StepperClient.connect(session: "kiosk", name: "app", options: options(app))
        #expect(try await stepper.emit("dashboardIsRequired").isAccepted)
        try await presenter.wait { _ in presenter.visibleNames.last == "WishlistTable" }

        // A key flowd does not know never gets a WELCOME: the client says flowd is unreachable, and why.
        let stranger = try CurveKeyPair.generate()
        await #expect {
            _ = try await StepperClient.connect(
                session: "kiosk",
                name: "intruder",
                options: options(stranger, connectTimeout: .milliseconds(500))
            )
        } throws: { error in
            (error as? FlowBusError)?.code == .unreachable
                && (error as? FlowBusError)?.message.contains("not authorized there") == true
        }
        await stepper.close()
        await presenter.presenter.close()
    }
}
