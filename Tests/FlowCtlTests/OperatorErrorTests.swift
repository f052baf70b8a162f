import FlowBusTesting
import Foundation
import Glibc
import Testing

/// The errors an operator meets first name their cause and their fix: flowd without a flow file outside the
/// repository, `flowd check` of a directory, a missing or unreadable file, an endpoint in use, and flowctl finding
/// flowd from the environment, falling back to tcp, and saying "permission denied" for an ipc socket it may not
/// use. Bad input tried: no flow file, a directory, a missing file, an unreadable file, a port in use, a socket
/// file without write permission.
@Suite(.serialized) struct OperatorErrorTests {
    /// Runs a built product (the shared runner, by product name).
    func run(
        _ product: String,
        _ arguments: [String],
        in directory: String? = nil,
        environment: [String: String] = [:],
        asUser user: String? = nil
    ) throws -> (status: Int32, output: String, errors: String) {
        try FlowBusTesting.run(
            try builtProduct(product),
            arguments,
            in: directory,
            environment: environment,
            asUser: user
        )
    }

    @Test func flowdOutsideTheRepositorySaysWhereItLookedAndHowToGiveFlows() throws {
        let scratch = ScratchDirectory("nf")
        let endpoints = ["--no-tcp", "--control", "ipc://\(scratch.path)/c", "--events", "ipc://\(scratch.path)/e"]
        let packaged = "/etc/flowbus/flows.yaml"
        guard !FileManager.default.fileExists(atPath: packaged) else {
            // The package is installed here: outside the repository, flowd takes its flows.
            let daemon = try DaemonProcess(
                ["--ephemeral"] + endpoints,
                launcher: ["/bin/sh", "-c", "cd '\(scratch.path)' && exec \"$0\" \"$@\""]
            )
            #expect(try daemon.line(containing: "ready: control").contains("flows \(packaged)"))
            #expect(daemon.signal(SIGTERM) == 0)
            return
        }
        let started = try run("flowd", ["--ephemeral"] + endpoints, in: scratch.path)
        #expect(started.status == 1)
        for words in [
            "no flow file was given", "deploy/flows/movies.yaml", packaged, scratch.path, "flowd --flows FILE",
            "flows: FILE", "flowd check FILE",
        ] {
            #expect(started.errors.contains(words), "\(words) is not in: \(started.errors)")
        }
    }

    @Test func unreadableFilesSayWhy() throws {
        let scratch = ScratchDirectory("uf")
        let directory = try run("flowd", ["check", scratch.path])
        #expect(directory.status == 1 && directory.errors.contains("it is a directory, not a file"), "\(directory)")
        let missing = try run("flowd", ["check", "no-such-flows.yaml"], in: scratch.path)
        #expect(missing.errors.contains("there is no such file in \(scratch.path)"), "\(missing)")
        let config = try run("flowd", ["--config", scratch.path + "/none.yaml"])
        #expect(
            config.errors.contains(
                "cannot read the configuration file \(scratch.path)/none.yaml: there is no such file"
            )
        )
        // A file its reader may not read (as root, as the user nobody: root reads everything).
        let secret = scratch.path + "/flows.yaml"
        try Data(contentsOf: URL(fileURLWithPath: demoFlows)).write(to: URL(fileURLWithPath: secret))
        chmod(secret, 0o200)
        chmod(scratch.path, 0o755)
        let unreadable = try run("flowd", ["check", secret], asUser: geteuid() == 0 ? "65534" : nil)
        #expect(unreadable.status == 1)
        #expect(unreadable.errors.contains("cannot read \(secret): permission denied"), "\(unreadable)")
        #expect(unreadable.errors.contains("may not read it (200)"), "\(unreadable)")
    }

    @Test func anEndpointInUseIsNamedWithWhatToDo() throws {
        let first = try DaemonProcess([
            "--flows", demoFlows, "--ephemeral", "--control", "tcp://127.0.0.1:*", "--events", "tcp://127.0.0.1:*",
        ])
        let taken = try first.readyEndpoints().control[0]
        let scratch = ScratchDirectory("iu")
        let second = try run(
            "flowd",
            ["--flows", demoFlows, "--ephemeral", "--control", taken, "--events", "ipc://\(scratch.path)/e"]
        )
        #expect(second.status == 1)
        #expect(
            second.errors.contains("cannot listen on \(taken): the address is in use by another process"),
            "\(second.errors)"
        )
        #expect(second.errors.contains("flowctl ping --control \(taken)"))
        #expect(first.signal(SIGTERM) == 0)
    }

    @Test func flowctlFindsFlowdFromTheEnvironment() throws {
        let daemon = try DaemonProcess.onIPC(["--ephemeral"])
        let ready = try daemon.readyEndpoints()
        let environment = ["FLOWBUS_CONTROL": ready.control[0], "FLOWBUS_EVENTS": ready.events[0]]
        let pinged = try run("flowctl", ["ping", "--count", "1"], environment: environment)
        #expect(pinged.status == 0, "\(pinged)")
        #expect(pinged.output.contains("at \(ready.control[0])"), "\(pinged.output)")
        // A flag wins over the environment.
        let flagged = try run(
            "flowctl",
            ["ping", "--connect-timeout", "300", "--control", "ipc:///nowhere/c"],
            environment: environment
        )
        #expect(flagged.status == 69 && flagged.errors.contains("ipc:///nowhere/c"), "\(flagged)")
        let garbled = try run("flowctl", ["ping"], environment: ["FLOWBUS_CONTROL": "localhost:5860"])
        #expect(garbled.status == 64 && garbled.errors.contains("FLOWBUS_CONTROL"), "\(garbled)")
        let halfCurve = try run(
            "flowctl",
            ["ping"],
            environment: environment.merging(["FLOWBUS_CURVE_SECRET_KEY": String(repeating: "a", count: 40)]) { $1 }
        )
        #expect(halfCurve.status == 64 && halfCurve.errors.contains("FLOWBUS_CURVE_SERVER_KEY"), "\(halfCurve)")
        #expect(daemon.signal(SIGTERM) == 0)
    }

    @Test func flowctlFallsBackToTCPWhenTheIPCSocketIsNotThere() throws {
        // flowd's default tcp endpoints, and a runtime directory with no socket in it.
        let daemon = try DaemonProcess([
            "--flows", demoFlows, "--ephemeral", "--control", "tcp://127.0.0.1:5860", "--events",
            "tcp://127.0.0.1:5861",
        ])
        _ = try daemon.readyEndpoints()
        let empty = ScratchDirectory("rt")
        let pinged = try run("flowctl", ["ping", "--count", "1"], environment: ["XDG_RUNTIME_DIR": empty.path])
        #expect(pinged.status == 0, "\(pinged)")
        #expect(pinged.output.contains("at tcp://127.0.0.1:5860"), "\(pinged.output)")
        #expect(daemon.signal(SIGTERM) == 0)
    }

    @Test func anIPCSocketWithoutPermissionSaysPermissionDenied() throws {
        let daemon = try DaemonProcess.onIPC(["--ephemeral", "--ipc-mode", "0400"])
        let ready = try daemon.readyEndpoints()
        // Root may write any file: the check runs as nobody then.
        let user = geteuid() == 0 ? "65534" : nil
        if user != nil {
            // The directory flowd made may be searched by others; the socket's own mode is what is tried.
            let socket = String(ready.control[0].dropFirst("ipc://".count))
            chmod(URL(fileURLWithPath: socket).deletingLastPathComponent().path, 0o755)
        }
        let denied = try run(
            "flowctl",
            ["ping", "--control", ready.control[0], "--events", ready.events[0]],
            asUser: user
        )
        #expect(denied.status == 77, "\(denied)")
        #expect(denied.errors.contains("permission denied"), "\(denied.errors)")
        #expect(!denied.errors.contains("not answering"))
        #expect(daemon.signal(SIGTERM) == 0)
    }

    /// Small things an operator met: `emit` at a flowd that is not there says why (no socket file), as `list` does;
    /// a replay's start offset past its recording's end is said; `watch --wait` on a session that does not
    /// exist yet starts with no error line.
    @Test func emitReplayAndWatchSayWhatIsWrongAndNothingElse() throws {
        let nowhere = uniqueDirectory("nowhere")
        let emit = try run(
            "flowctl",
            [
                "emit", "home", "--session", "k", "--control", "ipc://\(nowhere)/control", "--events",
                "ipc://\(nowhere)/events",
                "--connect-timeout", "300",
            ]
        )
        #expect(emit.status == 69)
        #expect(emit.errors.contains("there is no socket file at \(nowhere)/control"), "\(emit.errors)")

        let scratch = ScratchDirectory("offset")
        let recording = scratch.path + "/short.flowrec"
        try """
        {"format":"flowbus-recording","version":1,"session":"kiosk","startedAt":0}
        {"at":6000,"session":"kiosk","kind":"step","stepper":"app","step":{"name":"dashboardIsRequired","parameters":{}},"fate":"accepted"}

        """.write(toFile: recording, atomically: true, encoding: .utf8)
        // Past the end every input goes at once (as documented): said, not done silently. (No flowd: it then exits
        // 69, after saying so.)
        let replay = try run(
            "flowctl",
            [
                "replay", recording, "--start-offset", "99", "--control", "ipc://\(nowhere)/control", "--events",
                "ipc://\(nowhere)/events", "--connect-timeout", "300",
            ]
        )
        #expect(
            replay.errors.contains(
                "--start-offset 99.0 s is past the last input of \(recording), at 6.0 s: every input is sent at once"
            ),
            "\(replay.errors)"
        )

        let daemon = try DaemonProcess.onIPC(flows: demoFlows, ["--ephemeral"])
        let (control, events) = try daemon.readyEndpoints()
        let watch = try run(
            "flowctl",
            ["watch", "--session", "ghost", "--wait", "--timeout", "1", "--control", control[0], "--events", events[0]]
        )
        #expect(!watch.output.contains("unknownSession") && !watch.errors.contains("unknownSession"), "\(watch)")
        #expect(watch.errors.contains("watching flowd at"), "\(watch.errors)")
        #expect(daemon.signal(SIGTERM) == 0)
    }
}
