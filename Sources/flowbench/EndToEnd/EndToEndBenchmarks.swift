import FlowWire
import Foundation
import ZeroMQ

/// flowd measured end to end — stepper processes, flowd, a presenter process — against a raw relay on the same
/// ZeroMQ binding, in the same run, over ipc and tcp.
struct EndToEndBenchmarks {
    let directory: String
    let flows: String

    init() throws {
        directory = NSTemporaryDirectory() + "flowbench-\(ProcessInfo.processInfo.processIdentifier)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        flows = try BenchFlows.write(into: directory)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What the benchmarks change of flowd's defaults, which are there against abuse and would throttle a
    /// capacity measurement: `createSessions` makes up to a million sessions from one connection, and one lean
    /// stepper process sends 100 000 steps (20 MB) a second and more (beyond the message rate's burst, its steps
    /// would be dropped and never acknowledged: the run would wait for them).
    static let capacityLimits = [
        "--max-sessions", "2000000", "--sessions-per-peer-per-minute", "10000000", "--peer-byte-rate", "0",
        "--peer-message-rate", "0",
    ]

    /// A flowd on fresh endpoints, ready: durable (its journal in a fresh state directory, as users run it) unless
    /// `ephemeral`; with ``capacityLimits`` unless `defaultLimits` (the flood benchmark measures those).
    /// `store`: where it keeps its sessions instead (`--store postgres://...` and its instance's flags).
    func startFlowd(
        _ transport: String,
        ephemeral: Bool = false,
        defaultLimits: Bool = false,
        store: [String]? = nil,
        extra: [String] = []
    ) throws -> (RoleProcess, BenchEndpoints) {
        let run = directory + "/\(UUID().uuidString.prefix(8))"
        let endpoints = BenchEndpoints.make(transport, directory: run)
        let state = store ?? (ephemeral ? ["--ephemeral"] : ["--state-dir", run + "/state"])
        let flowd = try RoleProcess(
            "flowd",
            ["--flows", flows, "--control", endpoints.control, "--events", endpoints.events, "--log-level", "error"]
                + state + (defaultLimits ? [] : Self.capacityLimits) + extra,
            quiet: true
        )
        try waitForFlowd(endpoints)
        return (flowd, endpoints)
    }

    /// Steps per second from `steppers` processes through flowd to a presenter process (acknowledgements
    /// included).
    func flowdThroughput(_ transport: String, steppers: Int, steps: Int) throws -> Double {
        try flowdLoad(transport, steppers: steppers, steps: steps).stepsPerSecond
    }

    /// Throughput as ``flowdThroughput(_:steppers:steps:)`` (with `watching`, a `flowctl watch` attached), and flowd's own processor time per step
    /// meanwhile (µs, all its threads): what flowd does for each step, whatever else competes for the cores; and
    /// the watcher's, when there is one.
    func flowdLoad(
        _ transport: String,
        steppers: Int,
        steps: Int,
        watching: BenchWatcher = .none,
        ephemeral: Bool = false,
        store: [String]? = nil
    ) throws -> LoadFigures {
        let (flowd, endpoints) = try startFlowd(transport, ephemeral: ephemeral, store: store)
        defer { flowd.stop() }
        let attached = try attach(watching, to: endpoints)
        let watcher = attached.first
        defer {
            for process in attached { process.stop() }
        }
        let perStepper = steps / steppers
        let presenter = try RoleProcess(
            "flowbench",
            ["presenter", endpoints.control, endpoints.events, "\(perStepper * steppers)"]
        )
        try presenter.expect("ready")
        let senders = try (1...steppers).map { index in
            try RoleProcess(
                "flowbench",
                ["stepper", endpoints.control, endpoints.events, "s\(index)", "\(perStepper)", "flood"]
            )
        }
        for sender in senders {
            try sender.expect("ready")
        }
        let before = (flowd: flowd.processorSeconds, watcher: watcher?.processorSeconds ?? 0)
        let (rate, said) = try race(senders, presenter, steps: perStepper * steppers)
        let used = flowd.processorSeconds - before.flowd
        // The watcher may still be reading what flowd published: its count is taken once it has caught up.
        let watcherUsed = watcher.map { $0.processorSecondsOnceIdle() - before.watcher }
        let perStep = { (seconds: Double) in seconds * 1_000_000 / Double(perStepper * steppers) }
        return LoadFigures(
            stepsPerSecond: rate,
            flowdMicrosecondsPerStep: perStep(used),
            watcherMicrosecondsPerStep: watcherUsed.map(perStep),
            stepperMicrosecondsPerStep: perStep(said.senders.map(Self.processorSeconds).reduce(0, +)),
            presenterMicrosecondsPerStep: perStep(Self.processorSeconds(said.presenter))
        )
    }

    /// The inspector `watching` on a flowd, once flowd confirmed its subscription (from then on every event is
    /// published): `flowctl watch --json` (its output dropped, as a terminal that keeps up would take it), or
    /// `flowctl web` with a page reading its feed and looking at session `s1` (its tree asked after each batch of
    /// its events). The inspector's process comes first.
    private func attach(_ watching: BenchWatcher, to endpoints: BenchEndpoints) throws -> [RoleProcess] {
        let bus = ["--control", endpoints.control, "--events", endpoints.events]
        switch watching {
        case .none:
            return []
        case .watch:
            let watcher = try RoleProcess("flowctl", ["watch", "--json"] + bus, readErrors: true)
            try watcher.expect("watching flowd")
            return [watcher]
        case .web:
            let web = try RoleProcess("flowctl", ["web", "--port", "0"] + bus)
            let line = try web.expect("flowctl web: http")
            try web.expect(containing: "watching flowd")
            let port = line.split(separator: ":").last.map { $0.prefix { $0.isNumber } } ?? ""
            let page = try RoleProcess("flowbench-anchor", ["wsfeed", String(port), "s1"])
            try page.expect("ready")
            return [web, page]
        }
    }

    /// The same through the raw relay.
    func relayThroughput(_ transport: String, steppers: Int, steps: Int) throws -> Double {
        let endpoints = BenchEndpoints.make(transport, directory: directory + "/\(UUID().uuidString.prefix(8))")
        let relay = try RoleProcess("flowbench", ["relay", endpoints.control, endpoints.events])
        defer { relay.stop() }
        try relay.expect("ready")
        let perStepper = steps / steppers
        let presenter = try RoleProcess("flowbench", ["relay-presenter", endpoints.events, "\(perStepper * steppers)"])
        try presenter.expect("ready")
        let senders = try (1...steppers).map { index in
            try RoleProcess("flowbench", ["relay-stepper", endpoints.control, "s\(index)", "\(perStepper)", "flood"])
        }
        for sender in senders {
            try sender.expect("ready")
        }
        return try race(senders, presenter, steps: perStepper * steppers).rate
    }

    /// Latency percentiles (ns) with one step in flight, from emit to the presenter receiving the command.
    func flowdLatency(
        _ transport: String,
        steps: Int,
        flowd existing: (RoleProcess, BenchEndpoints)? = nil,
        watching: BenchWatcher = .none,
        ephemeral: Bool = false
    ) throws
        -> [String: Int]
    {
        let (flowd, endpoints) = try existing ?? startFlowd(transport, ephemeral: ephemeral)
        defer {
            if existing == nil { flowd.stop() }
        }
        let attached = try attach(watching, to: endpoints)
        defer {
            for process in attached { process.stop() }
        }
        let presenter = try RoleProcess("flowbench", ["presenter", endpoints.control, endpoints.events, "\(steps)"])
        try presenter.expect("ready")
        let sender = try RoleProcess(
            "flowbench",
            ["stepper", endpoints.control, endpoints.events, "s1", "\(steps)", "serial"]
        )
        try sender.expect("ready")
        sender.send("go")
        try sender.expect("done")
        return try Self.percentiles(try presenter.expect("done"))
    }

    /// The same through the raw relay.
    func relayLatency(_ transport: String, steps: Int) throws -> [String: Int] {
        let endpoints = BenchEndpoints.make(transport, directory: directory + "/\(UUID().uuidString.prefix(8))")
        let relay = try RoleProcess("flowbench", ["relay", endpoints.control, endpoints.events])
        defer { relay.stop() }
        try relay.expect("ready")
        let presenter = try RoleProcess("flowbench", ["relay-presenter", endpoints.events, "\(steps)"])
        try presenter.expect("ready")
        let sender = try RoleProcess("flowbench", ["relay-stepper", endpoints.control, "s1", "\(steps)", "serial"])
        try sender.expect("ready")
        sender.send("go")
        try sender.expect("done")
        return try Self.percentiles(try presenter.expect("done"))
    }

    /// flowd's memory per session and the time to create them: one connection says HELLO for `count` sessions
    /// (each HELLO creates its session), then the step latency in one more session.
    func sessions(
        count: Int,
        latencySteps: Int
    ) throws -> (bytesPerSession: Double, perSecond: Double, latency: [String: Int]) {
        let (flowd, endpoints) = try startFlowd("ipc")
        defer { flowd.stop() }
        let before = flowd.residentBytes
        let clock = ContinuousClock()
        let started = clock.now
        try Self.createSessions(count, endpoints)
        let elapsed = clock.now - started
        let after = flowd.residentBytes
        let latency = try flowdLatency("ipc", steps: latencySteps, flowd: (flowd, endpoints))
        return (Double(after - before) / Double(count), Double(count) / elapsed.seconds, latency)
    }

    /// One connection says HELLO for `count` sessions (`session-1`...), each creating its session, 1000 in flight.
    /// `flowbench session-creator CONTROL N` runs it alone (against a flowd under valgrind's dhat, say).
    static func createSessions(_ count: Int, _ endpoints: BenchEndpoints) throws {
        let context = try Context()
        let dealer = try Socket(.dealer, context: context)
        try dealer.setOption(.routingID, Array("creator".utf8))
        try dealer.setOption(.sendHighWaterMark, 0)
        try dealer.connect(endpoints.control)
        let codec = WireCodec()
        var sent = 0
        var welcomed = 0
        while welcomed < count {
            while sent < count && sent - welcomed < 1000 {
                sent += 1
                let hello = Hello(role: .stepper, id: "creator", name: "creator", session: "session-\(sent)")
                let header = Header(id: UInt64(sent), sender: "creator", sentAt: 0)
                _ = try dealer.send(frames: codec.encode(Envelope(header: header, message: .hello(hello))))
            }
            guard let reply = try dealer.receive(within: .seconds(60)) else {
                throw BenchFailure("flowd stopped answering after \(welcomed) sessions")
            }
            switch try codec.decode(reply.frames).message {
            case .welcome:
                welcomed += 1
            case .error(let error):
                // A refused HELLO is not answered again: the run cannot reach its count, and says why at once.
                throw BenchFailure("flowd refused a session after \(welcomed): \(error.code): \(error.message)")
            default:
                break
            }
        }
    }

    // MARK: Helpers

    /// Says go to the senders (each said ready) and times them until the presenter received every step; returns
    /// the rate and the `done` lines they said.
    private func race(
        _ senders: [RoleProcess],
        _ presenter: RoleProcess,
        steps: Int
    ) throws -> (rate: Double, said: (senders: [String], presenter: String)) {
        let clock = ContinuousClock()
        let started = clock.now
        for sender in senders {
            sender.send("go")
        }
        let sendersSaid = try senders.map { try $0.expect("done") }
        let presenterSaid = try presenter.expect("done")
        return (Double(steps) / (clock.now - started).seconds, (sendersSaid, presenterSaid))
    }

    /// The processor time a role said it used (`cpu=` microseconds in its `done` line), in seconds.
    static func processorSeconds(_ line: String) -> Double {
        let field = line.split(separator: " ").first { $0.hasPrefix("cpu=") }
        return Double(field.map { Int($0.dropFirst(4)) ?? 0 } ?? 0) / 1_000_000
    }

    func waitForFlowd(_ endpoints: BenchEndpoints) throws {
        let context = try Context()
        let dealer = try Socket(.dealer, context: context)
        try dealer.setOption(.routingID, Array("bench-probe".utf8))
        try dealer.connect(endpoints.control)
        let codec = WireCodec()
        let hello = Hello(role: .inspector, id: "bench-probe", name: "bench-probe", session: nil)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            _ = try dealer.send(
                frames: codec.encode(Envelope(header: Header(id: 1, sentAt: 0), message: .hello(hello))),
                dontWait: true
            )
            if let reply = try dealer.receive(within: .milliseconds(200)),
                case .welcome = try? codec.decode(reply.frames).message
            {
                _ = try dealer.send(
                    frames: codec.encode(
                        Envelope(header: Header(id: 2, sentAt: 0), message: .bye(Bye(reason: "probe")))
                    )
                )
                return
            }
        }
        throw BenchFailure("flowd did not start")
    }

    static func percentiles(_ line: String) throws -> [String: Int] {
        var values: [String: Int] = [:]
        for field in line.split(separator: " ").dropFirst() {
            let parts = field.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) {
                values[String(parts[0])] = value
            }
        }
        guard values["p50"] != nil else { throw BenchFailure("no percentiles in '\(line)'") }
        return values
    }
}

/// An inspector attached to flowd while it is measured.
enum BenchWatcher {
    /// None.
    case none
    /// `flowctl watch --json`.
    case watch
    /// `flowctl web` with a page on its feed.
    case web
}
