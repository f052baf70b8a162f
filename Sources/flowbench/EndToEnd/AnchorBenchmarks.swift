import Foundation

/// flowd measured against what it cannot beat and what a user could write instead, in the same run, all driven by
/// the same lean clients (`flowbench-anchor`, C against libzmq alone: pre-encoded frames, no client library), so
/// that flowd's own ceiling shows apart from the client library's:
/// - the raw relay: C, a ROUTER in and a PUB out, one hop, nothing decoded, no answer;
/// - the acknowledging relay: the same, answering each message with a pre-encoded STEP_ACK;
/// - flowd, durable (as users run it) and `--ephemeral`;
/// - the hand-rolled Python coordinator (`flowbench-coordinator`: pyzmq and json, one hard-coded flow).
///
/// Each server's processor time per message comes from /proc, as flowd's does.
struct AnchorBenchmarks {
    let endToEnd: EndToEndBenchmarks
    let quick: Bool

    /// The lean clients and relays, compiled by scripts/bench next to flowbench.
    static var available: Bool { RoleProcess.siblingExists("flowbench-anchor") }

    /// The Python that runs the coordinator: Debian's (where `python3-zmq` installs pyzmq), else the first
    /// `python3` on the path, whichever has pyzmq; `nil` when none has.
    static let python: String? = {
        guard RoleProcess.siblingExists("flowbench-coordinator") else { return nil }
        let onPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map {
            "\($0)/python3"
        }
        return (["/usr/bin/python3"] + onPath).first { candidate in
            guard FileManager.default.isExecutableFile(atPath: candidate) else { return false }
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: candidate)
            probe.arguments = ["-c", "import zmq"]
            probe.standardError = FileHandle.nullDevice
            guard (try? probe.run()) != nil else { return false }
            probe.waitUntilExit()
            return probe.terminationStatus == 0
        }
    }()

    /// What one server did under one load.
    struct Figures {
        /// Messages (steps) per second, from go to the presenter's last one.
        let rate: Double
        /// The server's processor time per message (µs, all its threads, user and system).
        let serverMicroseconds: Double
    }

    /// A server under test: flowd or an anchor, on endpoints of its own.
    struct Server {
        let process: RoleProcess
        let endpoints: BenchEndpoints
        /// Whether its clients say HELLO (flowd and the coordinator) or just send (the relays).
        let speaksFlowBus: Bool
        /// Whether it answers each message (all but the raw relay).
        let acknowledges: Bool
    }

    enum Kind {
        case rawRelay, acknowledgingRelay, python
        case flowd(ephemeral: Bool)
    }

    func start(_ kind: Kind, _ transport: String) throws -> Server {
        if case .flowd(let ephemeral) = kind {
            let (flowd, endpoints) = try endToEnd.startFlowd(transport, ephemeral: ephemeral)
            return Server(process: flowd, endpoints: endpoints, speaksFlowBus: true, acknowledges: true)
        }
        let endpoints = BenchEndpoints.make(
            transport,
            directory: endToEnd.directory + "/\(UUID().uuidString.prefix(8))"
        )
        let process: RoleProcess
        switch kind {
        case .rawRelay:
            process = try RoleProcess("flowbench-anchor", ["relay", endpoints.control, endpoints.events, "raw"])
        case .acknowledgingRelay:
            process = try RoleProcess("flowbench-anchor", ["relay", endpoints.control, endpoints.events, "ack"])
        default:
            guard let python = Self.python else { throw BenchFailure("no python3 with pyzmq for the coordinator") }
            process = try RoleProcess(
                python,
                [RoleProcess.siblingPath("flowbench-coordinator"), endpoints.control, endpoints.events]
            )
        }
        try process.expect("ready")
        if case .rawRelay = kind {
            return Server(process: process, endpoints: endpoints, speaksFlowBus: false, acknowledges: false)
        }
        return Server(process: process, endpoints: endpoints, speaksFlowBus: kind.isPython, acknowledges: true)
    }

    /// `steps` steps from `steppers` lean stepper processes (256 in flight each, or as fast as the socket takes
    /// them when the server does not answer) to one lean presenter.
    func throughput(_ kind: Kind, _ transport: String, steppers: Int, steps: Int) throws -> Figures {
        let server = try start(kind, transport)
        defer { server.process.stop() }
        let perStepper = steps / steppers
        let presenter = try leanPresenter(server, steps: perStepper * steppers)
        let senders = try (1...steppers).map { index in
            try leanStepper(server, name: "s\(index)", steps: perStepper, window: server.acknowledges ? 256 : 0)
        }
        for sender in senders {
            try sender.expect("ready")
        }
        let before = server.process.processorSeconds
        let clock = ContinuousClock()
        let started = clock.now
        for sender in senders {
            sender.send("go")
        }
        for sender in senders {
            try sender.expect("done")
        }
        try presenter.expect("done")
        let elapsed = (clock.now - started).seconds
        let used = server.process.processorSeconds - before
        return Figures(
            rate: Double(perStepper * steppers) / elapsed,
            serverMicroseconds: used * 1_000_000 / Double(perStepper * steppers)
        )
    }

    /// Latency percentiles (ns) with one step in flight, from the lean stepper's stamp to the lean presenter.
    func latency(_ kind: Kind, _ transport: String, steps: Int) throws -> [String: Int] {
        let server = try start(kind, transport)
        defer { server.process.stop() }
        let presenter = try leanPresenter(server, steps: steps)
        let sender = try leanStepper(server, name: "s1", steps: steps, window: 1)
        try sender.expect("ready")
        sender.send("go")
        try sender.expect("done")
        return try EndToEndBenchmarks.percentiles(try presenter.expect("done"))
    }

    private func leanPresenter(_ server: Server, steps: Int) throws -> RoleProcess {
        let presenter = try RoleProcess(
            "flowbench-anchor",
            ["presenter", server.endpoints.events, "\(steps)"]
                + (server.speaksFlowBus ? [server.endpoints.control] : [])
        )
        try presenter.expect("ready")
        return presenter
    }

    private func leanStepper(_ server: Server, name: String, steps: Int, window: Int) throws -> RoleProcess {
        try RoleProcess(
            "flowbench-anchor",
            ["stepper", server.endpoints.control, name, "\(steps)", "\(window)"]
                + (server.speaksFlowBus ? ["hello"] : [])
        )
    }
}

extension AnchorBenchmarks.Kind {
    var isPython: Bool {
        if case .python = self { return true }
        return false
    }
}
