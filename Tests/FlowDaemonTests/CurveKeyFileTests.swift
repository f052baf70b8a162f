import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// flowd's CURVE secret key from a file (`--curve-secret-key-file`, `curveSecretKeyFile:`): what systemd's
/// `LoadCredential=` gives, and unlike `--curve-secret-key` it does not show in `ps`.
@Suite struct CurveKeyFileTests {
    @Test func theSecretKeyComesFromAFileAndAnAuthorizedClientTalks() throws {
        let server = try CurveKeyPair.generate()
        let app = try CurveKeyPair.generate()
        let file = uniqueDirectory("key") + ".key"
        // As `flowd keygen` output saved by hand: a trailing newline.
        try (server.secretKey.z85 + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let daemon = try DaemonProcess([
            "--flows", demoFlows, "--control", "tcp://127.0.0.1:*", "--events", "tcp://127.0.0.1:*", "--ephemeral",
            "--curve-secret-key-file", file, "--authorize=kiosk/app=\(app.publicKey.z85)",
        ])
        let (control, events) = try daemon.readyEndpoints()
        #expect(!daemon.standardError.contains(server.secretKey.z85))
        let stepper = try TestPeer(
            "kiosk/app",
            session: "kiosk",
            context: try Context(),
            control: control[0],
            events: events[0],
            curve: (app, server.publicKey)
        )
        try stepper.hello(.stepper, name: "app")
        #expect(try stepper.emit(Step("dashboardIsRequired"), sequence: 1).accepted)
        #expect(daemon.signal(SIGTERM) == 0)
    }

    /// Tried: a file that does not exist, a file and a key at once, a file whose key is not Z85.
    @Test func aKeyFileThatCannotServeIsRefusedClearly() throws {
        let server = try CurveKeyPair.generate()
        let missing = uniqueDirectory("nokey") + ".key"
        let garbled = uniqueDirectory("badkey") + ".key"
        try "not a key\n".write(toFile: garbled, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: garbled) }
        let cases: [([String], String)] = [
            (["--curve-secret-key-file", missing], "cannot read the CURVE secret key file \(missing)"),
            (
                ["--curve-secret-key-file", garbled, "--curve-secret-key=\(server.secretKey.z85)"],
                "give flowd's CURVE secret key one way"
            ),
            (["--curve-secret-key-file", garbled], "Z85"),
        ]
        for (arguments, message) in cases {
            let directory = uniqueDirectory("kf")
            let daemon = try DaemonProcess(
                [
                    "--flows", demoFlows, "--ephemeral", "--control", "ipc://\(directory)/c", "--events",
                    "ipc://\(directory)/e",
                ]
                    + arguments
            )
            let status = daemon.exitStatus(within: .seconds(10))
            #expect(status != nil && status != 0, "\(arguments)")
            #expect(daemon.standardError.contains(message), "\(arguments): \(daemon.standardError)")
        }
    }
}
