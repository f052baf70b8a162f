import ArgumentParser
import FlowBus
import FlowInspector
import FlowWire
import Foundation

/// `flowdemo run`: the whole demo — flowd, the presenter, the steppers — and the scripted journey.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the demo: flowd, the terminal presenter and the steppers, then a scripted user journey.",
        discussion: """
            The journey: onboarding, a movie and its cast, back, the other tab, the presenter killed and \
            restarted (it comes back on the same screens), settings, About refused then allowed after a login, \
            settings closed, a deep link; then the session's tree. With --interactive, you click through the app \
            with keys instead. Every process started is stopped at the end, on error and on Ctrl-C.
            """
    )

    @Flag(help: "No pauses between the journey's actions.")
    var fast = false

    @Flag(help: "Click through the app yourself: the presenter reads keys.")
    var interactive = false

    @Option(help: "The session.")
    var session = "demo"

    @Option(help: "The flow file.")
    var flows = "deploy/flows/movies.yaml"

    @Option(help: "Where the ipc sockets go (default: a new temporary directory, removed at the end).")
    var runtimeDirectory: String?

    @Option(help: "Seconds between the journey's actions (without --fast).")
    var pace = 1.5

    @Option(
        help:
            "Record the session's inputs to this file with flowctl record (replay it with flowctl replay --offline FILE --flows FLOWS)."
    )
    var record: String?

    func validate() throws {
        guard FileManager.default.fileExists(atPath: flows) else {
            throw ValidationError("no flow file at \(flows); run from the repository, or pass --flows")
        }
        guard pace >= 0 else {
            throw ValidationError("--pace must not be negative")
        }
    }

    func run() async throws {
        let runtime =
            runtimeDirectory ?? NSTemporaryDirectory() + "flowdemo-\(ProcessInfo.processInfo.processIdentifier)"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let processes = DemoProcesses(runtime: runtime, removesRuntime: runtimeDirectory == nil)
        let signalSources = processes.stopOnSignals()
        defer { withExtendedLifetime(signalSources) {} }
        let endpoints = ["--control", "ipc://\(runtime)/control", "--events", "ipc://\(runtime)/events"]
        let bus = ClientOptions(
            endpoints: Endpoints(control: "ipc://\(runtime)/control", events: "ipc://\(runtime)/events")
        )
        do {
            try processes.start(
                "flowd",
                "flowd",
                // The demo keeps nothing: no state read from, or left in, the user's state directory.
                ["--flows", flows, "--no-tcp", "--ephemeral", "--log-level", "warning"] + endpoints,
                input: false
            )
            // The journey's eyes on flowd: one inspector for the whole demo (connecting waits for flowd to start).
            var patient = bus
            patient.connectTimeout = .seconds(20)
            let inspector = try await InspectorClient.connect(name: "flowdemo", options: patient)
            let recorder = try record.map { file in try startRecorder(file, processes: processes, endpoints: endpoints)
            }
            let stage = DemoStage(
                processes: processes,
                bus: bus,
                inspector: inspector,
                session: session,
                endpoints: endpoints,
                pace: fast ? .zero : .milliseconds(Int(pace * 1000))
            )
            do {
                if interactive {
                    try await stage.interactive()
                } else {
                    try await DemoJourney(stage: stage).play()
                }
            } catch {
                await inspector.close()
                throw error
            }
            await inspector.close()
            if let recorder {
                processes.interrupt(recorder)
            }
            processes.stopAll()
        } catch {
            processes.stopAll()
            FileHandle.standardError.write(Data("flowdemo: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

extension Run {
    /// Starts `flowctl record` on the session and waits until it records (its file has its header line).
    private func startRecorder(
        _ file: String,
        processes: DemoProcesses,
        endpoints: [String]
    ) throws -> DemoProcesses.Child {
        let recorder = try processes.start(
            "recorder",
            "flowctl",
            ["record", file, "--session", session, "--wait", "--force"] + endpoints,
            input: false
        )
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? String(contentsOfFile: file, encoding: .utf8))?.contains("\n") != true {
            guard recorder.process.isRunning, ContinuousClock.now < deadline else {
                throw DemoFailure("flowctl record \(file) did not start recording within 20 s")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return recorder
    }
}

/// What the demo's scenes share: the processes, the bus, the narration and the waiting.
struct DemoStage {
    let processes: DemoProcesses
    /// How to reach flowd.
    let bus: ClientOptions
    /// Asks flowd for the session's tree.
    let inspector: InspectorClient
    let session: String
    let endpoints: [String]
    let pace: Duration

    /// The arguments every demo process gets to reach flowd and the session.
    var busArguments: [String] { endpoints + ["--session", session] }

    /// Says what happens next, on its own line.
    func say(_ text: String) {
        let bold = isatty(STDOUT_FILENO) == 1
        let line = bold ? "\n\u{1B}[1m▶ \(text)\u{1B}[0m\n" : "\n▶ \(text)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    /// A pause, so a person can follow.
    func pause() async throws {
        if pace > .zero {
            try await Task.sleep(for: pace)
        }
    }

    /// Waits until the session's tree satisfies `condition`.
    func waitFor(_ what: String, _ condition: (SessionTree) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(15)
        var last: SessionTree?
        while ContinuousClock.now < deadline {
            if let reply = try? await inspector.query("tree", session: session), let tree = try? SessionTree(reply) {
                if condition(tree) {
                    return
                }
                last = tree
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let screens = last.map { TreeRenderer().text($0).joined(separator: "\n") } ?? "no tree"
        throw DemoFailure("\(what) did not happen within 15 s; flowd's tree:\n\(screens)")
    }

    /// Waits until the screen `name` is on screen and visible.
    func waitForVisible(_ name: String) async throws {
        try await waitFor("\(name) visible") { tree in
            tree.screens.contains { $0.name == name && $0.visibility == .visible }
        }
    }

    func options(timeout: Duration) -> ClientOptions {
        var options = bus
        options.connectTimeout = timeout
        return options
    }

    /// Starts the terminal presenter.
    func startPresenter(interactive: Bool = false) throws -> DemoProcesses.Child {
        let arguments =
            interactive ? ["presenter", "--keys"] : ["presenter", "--plain", "--quit-at-eof"]
        return try processes.start("presenter", "flowdemo", arguments + busArguments, input: !interactive)
    }

    /// Starts the three stepper processes: the app, authentication, settings (`quiet`: their output is dropped).
    func startSteppers(
        quiet: Bool = false
    ) throws -> (app: DemoProcesses.Child, auth: DemoProcesses.Child, settings: DemoProcesses.Child) {
        (
            try processes.start("app", "flowdemo", ["app"] + busArguments, quiet: quiet),
            try processes.start("auth", "flowdemo", ["auth"] + busArguments, quiet: quiet),
            try processes.start("settings", "flowdemo", ["settings"] + busArguments, quiet: quiet)
        )
    }

    /// Prints the session's tree with flowctl.
    func showTree() throws {
        let flowctl = try processes.start("flowctl", "flowctl", ["tree", session] + endpoints, input: false)
        flowctl.process.waitUntilExit()
    }

    /// The demo with a person at the keys: the presenter runs in this terminal; opening the login screen logs the
    /// user in (the auth stepper reports it), so About is refused before and allowed after.
    func interactive() async throws {
        let flowctl = processes.directory.appendingPathComponent("flowctl").path
        print(
            """
            FlowBus demo, session \(session). Keys are shown under each screen; q quits.
            Watch the bus from another terminal:
              \(flowctl) watch \(endpoints.joined(separator: " "))
            """
        )
        try await Task.sleep(for: .seconds(3))
        let terminal = TerminalState()
        let presenter = try startPresenter(interactive: true)
        defer { terminal.restore() }
        try await waitForVisible("app")
        // The steppers' lines would break into the presenter's screen: they go nowhere.
        let (_, auth, _) = try startSteppers(quiet: true)
        let watcher = Task {
            var loggedIn = false
            while !Task.isCancelled {
                if !loggedIn,
                    (try? await waitFor("login", { $0.screens.contains { $0.name == "SettingsLogin" } })) != nil
                {
                    auth.send("login guest")
                    loggedIn = true
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        while presenter.process.isRunning {
            try await Task.sleep(for: .milliseconds(50))
        }
        watcher.cancel()
    }
}

/// The terminal as it was before the presenter took it: given back (foreground and settings) afterwards, even
/// when the presenter was killed in raw mode.
struct TerminalState {
    private var saved: termios?

    init() {
        guard isatty(STDIN_FILENO) == 1 else { return }
        var settings = termios()
        tcgetattr(STDIN_FILENO, &settings)
        saved = settings
    }

    func restore() {
        guard var settings = saved else { return }
        signal(SIGTTOU, SIG_IGN)
        tcsetpgrp(STDIN_FILENO, getpgrp())
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}

/// Something in the demo did not happen.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
