import FlowBus
import FlowBusTesting
import Foundation
import Testing
import ZeroMQ

/// flowctl with CURVE keys against a flowd that requires them.
@Suite struct CurveCtlTests {
    @Test func flowctlWithAuthorizedKeysGetsInAndWithoutKeysDoesNot() throws {
        let server = try CurveKeyPair.generate()
        let operator_ = try CurveKeyPair.generate()
        let directory = uniqueDirectory()
        let endpoints = ["--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events"]
        let daemon = try DaemonProcess(
            [
                "--flows", demoFlows, "--curve-secret-key=\(server.secretKey.z85)",
                "--authorize=ops=\(operator_.publicKey.z85)",
            ] + endpoints
        )
        _ = try daemon.readyEndpoints()
        let flowctl = try builtProduct("flowctl")
        let keys = [
            "--curve-secret-key=\(operator_.secretKey.z85)", "--curve-server-key=\(server.publicKey.z85)", "--id",
            "ops",
        ]
        let answered = try run(flowctl, ["ping", "--count", "1"] + keys + endpoints)
        #expect(answered.status == 0)
        #expect(answered.output.hasPrefix("flowd 0.2.0 at ipc://"))
        let watched = try run(flowctl, ["watch", "--timeout", "0.2"] + keys + endpoints)
        #expect(watched.status == 0)

        let plain = try run(flowctl, ["ping", "--connect-timeout", "300"] + endpoints)
        #expect(plain.status == 69)
        #expect(plain.errors.contains("flowd may require CURVE"), "\(plain.errors)")
        // A key flowd does not know: refused in the handshake, and flowctl says so.
        let stranger = try CurveKeyPair.generate()
        let refused = try run(
            flowctl,
            [
                "ping", "--connect-timeout", "500", "--curve-secret-key=\(stranger.secretKey.z85)",
                "--curve-server-key=\(server.publicKey.z85)",
            ] + endpoints
        )
        #expect(refused.status == 69)
        #expect(refused.errors.contains("its CURVE key is not authorized there"), "\(refused.errors)")
        // Tried: one key without the other, a key that is not Z85.
        #expect(try run(flowctl, ["ping", "--curve-secret-key=\(operator_.secretKey.z85)"] + endpoints).status == 64)
        let bad = try run(flowctl, ["ping", "--curve-secret-key=short", "--curve-server-key=short"] + endpoints)
        #expect(bad.status == 64)
        #expect(bad.errors.contains("a CURVE key is 40 Z85 characters"))
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
