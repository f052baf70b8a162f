import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// A fleet's database that goes away, with real flowd processes on a real PostgreSQL server (the test's own): while
/// it does not answer, flowd says so — HELLOs get `storeUnavailable` within a second and create nothing, registered
/// peers keep getting heartbeats, `/readyz` fails and the metrics say since when, steps wait unacknowledged — and
/// everything goes on when it is back; a server that comes back as a standby is waited for until it is promoted; a
/// database gone past the retry window stops flowd (74), idle or not; SIGTERM stops it within its bound.
@Suite(.serialized, .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.unavailableReason ?? "")))
struct StoreOutageTests {
    typealias Instance = FleetTests.Instance

    private let server: PostgresServer
    private let scratch = ScratchDirectory("outage")
    private var flowsPath: String { scratch.path + "/flows.yaml" }
    private let metrics = MetricsEndpointTests()

    init() throws {
        server = try PostgresServer()
        try KillTortureTests.flows.write(toFile: flowsPath, atomically: true, encoding: .utf8)
    }

    /// An instance on a new database, serving metrics and health checks.
    private func instance(_ name: String, database: String, extra: [String] = []) throws -> Instance {
        let store = try server.createDatabase(database)
        let instance = Instance(name)
        try instance.start(store: store, flows: flowsPath, lease: "2s", extra: ["--metrics", "127.0.0.1:0"] + extra)
        return instance
    }

    private func peer(_ id: String, session: String, at instance: Instance, context: Context) throws -> TestPeer {
        try TestPeer(id, session: session, context: context, control: instance.control, events: instance.events)
    }

    /// Stepper s1 of session kiosk at `instance`, registered, its first tick accepted.
    private func registeredStepper(at instance: Instance, context: Context) throws -> TestPeer {
        let stepper = try peer("kiosk/s1", session: "kiosk", at: instance, context: context)
        try stepper.hello(.stepper, name: "s1")
        #expect(try stepper.emit(Step("tick", ["s": .int(1), "n": .int(1)]), sequence: 1).accepted)
        return stepper
    }

    /// The ERROR or WELCOME a HELLO got, and how long it took.
    private func hello(
        _ peer: TestPeer,
        _ role: Role,
        name: String
    ) throws -> (answer: FlowWire.Message, took: Duration) {
        let started = ContinuousClock.now
        try peer.send(.hello(Hello(role: role, id: peer.id, name: name, session: peer.session)))
        let answer = try peer.expect { message -> FlowWire.Message? in
            switch message {
            case .welcome, .error: message
            default: nil
            }
        }
        return (answer, ContinuousClock.now - started)
    }

    /// What `peer` received for `duration`, each with when it came.
    private func received(
        by peer: TestPeer,
        for duration: Duration
    ) throws -> [(FlowWire.Message, ContinuousClock.Instant)] {
        let end = ContinuousClock.now + duration
        var messages: [(FlowWire.Message, ContinuousClock.Instant)] = []
        while ContinuousClock.now < end,
            let frames = try peer.dealer.receive(within: ContinuousClock.now.duration(to: end))
        {
            if let envelope = try? peer.codec.decode(frames.frames) {
                messages.append((envelope.message, .now))
            }
        }
        return messages
    }

    private func sessionRows(_ session: String, in database: String) throws -> String {
        try server.psql("SELECT count(*) FROM flowbus_sessions WHERE session = '\(session)'", database: database)
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aDatabaseDownForTenSecondsIsSaidWaitedForAndNothingAcknowledgedIsLost() throws {
        let database = "down"
        let a = try instance("a", database: database)
        let daemon = try #require(a.process)
        let base = try metrics.metricsBase(of: daemon)
        let context = try Context()
        let stepper = try peer("kiosk/s1", session: "kiosk", at: a, context: context)
        try stepper.hello(.stepper, name: "s1")
        for number in 1...3 {
            #expect(
                try stepper.emit(Step("tick", ["s": .int(1), "n": .int(number)]), sequence: UInt64(number)).accepted
            )
        }

        server.stop()
        // The stepper stays registered through the outage: it speaks every 200 ms (the heartbeat timeout is 1 s), and
        // flowd's heartbeats must keep coming although nothing can be written.
        try stepper.send(.step(StepMessage(step: Step("tick", ["s": .int(1), "n": .int(4)]), sequence: 4)))
        let downSince = ContinuousClock.now
        var heartbeats: [ContinuousClock.Instant] = []
        var acknowledgedWhileDown: [UInt64] = []
        var newcomer: (answer: FlowWire.Message, took: Duration)?
        var second: (answer: FlowWire.Message, took: Duration)?
        var readiness: MetricsEndpointTests.Scrape?
        var figures: MetricsEndpointTests.Scrape?
        while ContinuousClock.now - downSince < .seconds(10) {
            try stepper.send(.heartbeat(Heartbeat()))
            for (message, at) in try received(by: stepper, for: .milliseconds(200)) {
                switch message {
                case .heartbeat: heartbeats.append(at)
                case .stepAck(let ack): acknowledgedWhileDown.append(ack.sequence)
                default: break
                }
            }
            let elapsed = ContinuousClock.now - downSince
            if newcomer == nil && elapsed > .seconds(2) {
                // A new session's HELLO, and a second stepper of the running session.
                newcomer = try hello(
                    try peer("fresh/s1", session: "fresh", at: a, context: context),
                    .stepper,
                    name: "s1"
                )
                second = try hello(
                    try peer("kiosk/s2", session: "kiosk", at: a, context: context),
                    .stepper,
                    name: "s2"
                )
            }
            if readiness == nil && elapsed > .seconds(4) {
                readiness = try metrics.scrape(base + "/readyz")
                figures = try metrics.scrape(base + "/metrics", parse: true)
            }
        }
        #expect(acknowledgedWhileDown.isEmpty, "acknowledged while nothing could be written: \(acknowledgedWhileDown)")
        for (name, answer) in [("a new session's", newcomer), ("a running session's", second)] {
            let (message, took) = try #require(answer)
            guard case .error(let error) = message else {
                Issue.record("\(name) HELLO got \(message) while the database was down")
                continue
            }
            #expect(error.code == "storeUnavailable", "\(name) HELLO: \(error)")
            #expect(took <= .seconds(2), "\(name) HELLO was answered after \(took)")
        }
        let gaps = zip(heartbeats.dropFirst(), heartbeats).map { $0 - $1 }
        #expect(heartbeats.count >= 20, "only \(heartbeats.count) heartbeats in 10 s")
        #expect(gaps.allSatisfy { $0 < .milliseconds(800) }, "heartbeat gaps: \(gaps.max() ?? .zero)")
        #expect(readiness?.status == 503)
        #expect(readiness?.body.contains("the store does not answer") == true, "\(readiness?.body ?? "")")
        #expect(figures?.samples?["flowd_store_up"] == 0)
        let since = try #require(figures?.samples?["flowd_store_down_since_seconds"])
        #expect(abs(since - Date().timeIntervalSince1970) < 15)
        #expect(daemon.process.isRunning)

        try server.start()
        // The step that waited is acknowledged once written, and nothing is lost or doubled.
        let fate = try stepper.expect(within: .seconds(10)) { message -> WireFate? in
            if case .stepAck(let ack) = message, ack.sequence == 4 { ack.fate } else { nil }
        }
        #expect(fate.accepted)
        #expect(try stepper.emit(Step("tick", ["s": .int(1), "n": .int(5)]), sequence: 5).accepted)
        #expect(try sessionRows("fresh", in: database) == "0", "the refused HELLO created its session")
        let welcome = try hello(
            try peer("fresh/s1", session: "fresh", at: a, context: context),
            .stepper,
            name: "s1"
        ).answer
        guard case .welcome(let created) = welcome else {
            Issue.record("after the outage: \(welcome)")
            return
        }
        #expect(created.sessionCreated)
        let ticks = try KillTortureTests.ticksInTree(control: a.control, events: a.events, session: "kiosk")
        #expect(ticks.map(\.number) == [1, 2, 3, 4, 5])
        #expect(waitUntil(within: .seconds(5)) { (try? metrics.scrape(base + "/readyz"))?.status == 200 })
        #expect(try metrics.scrape(base + "/metrics", parse: true).samples?["flowd_store_up"] == 1)
        // Said once when it began (a reminder at most every 10 s), and once when it ended.
        let said = daemon.standardError.split(separator: "\n")
        #expect(said.filter { $0.contains("the store does not answer (") }.count == 1)
        #expect(said.filter { $0.contains("the store still does not answer") }.count <= 1)
        #expect(said.contains { $0.contains("the store answers again after") })
        #expect(daemon.signal(SIGTERM) == 0)
    }

    @Test(arguments: [false, true])
    func aServerBackAsAStandbyIsWaitedForUntilItIsPromoted(acceptingReads: Bool) throws {
        let database = acceptingReads ? "standbyhot" : "standbycold"
        let a = try instance("a", database: database)
        let daemon = try #require(a.process)
        let context = try Context()
        let stepper = try registeredStepper(at: a, context: context)

        server.stop()
        try server.startAsStandby(acceptingReads: acceptingReads)
        try stepper.send(.step(StepMessage(step: Step("tick", ["s": .int(1), "n": .int(2)]), sequence: 2)))
        // Seconds as a standby: flowd waits (it neither exits nor acknowledges).
        let standbySince = ContinuousClock.now
        var acknowledged = false
        while ContinuousClock.now - standbySince < .seconds(4) {
            try stepper.send(.heartbeat(Heartbeat()))
            for (message, _) in try received(by: stepper, for: .milliseconds(200)) {
                if case .stepAck = message {
                    acknowledged = true
                }
            }
        }
        #expect(!acknowledged, "a step was acknowledged while the database was a standby")
        #expect(daemon.process.isRunning, "flowd stopped: \(daemon.standardError)")
        try server.promote()
        let fate = try stepper.expect(within: .seconds(10)) { message -> WireFate? in
            if case .stepAck(let ack) = message, ack.sequence == 2 { ack.fate } else { nil }
        }
        #expect(fate.accepted)
        #expect(try stepper.emit(Step("tick", ["s": .int(1), "n": .int(3)]), sequence: 3).accepted)
        let ticks = try KillTortureTests.ticksInTree(control: a.control, events: a.events, session: "kiosk")
        #expect(ticks.map(\.number) == [1, 2, 3])
        #expect(daemon.signal(SIGTERM) == 0)
    }

    @Test func aDatabaseGonePastTheRetryWindowStopsFlowdIdleOrNot() throws {
        let database = "gone"
        let store = try server.createDatabase(database)
        let (idle, busy) = (Instance("idle"), Instance("busy"))
        for instance in [idle, busy] {
            try instance.start(store: store, flows: flowsPath, lease: "2s", extra: ["--store-retry-window", "3s"])
        }
        let context = try Context()
        let stepper = try peer("kiosk/s1", session: "kiosk", at: busy, context: context)
        try stepper.hello(.stepper, name: "s1")
        #expect(try stepper.emit(Step("tick", ["s": .int(1), "n": .int(1)]), sequence: 1).accepted)

        server.stop()
        let stopped = ContinuousClock.now
        try stepper.send(.step(StepMessage(step: Step("tick", ["s": .int(1), "n": .int(2)]), sequence: 2)))
        for instance in [idle, busy] {
            let daemon = try #require(instance.process)
            let status = daemon.exitStatus(within: .seconds(8) - (ContinuousClock.now - stopped))
            #expect(
                status == 74,
                "\(instance.name): \(status.map(String.init) ?? "still running"): \(daemon.standardError)"
            )
            #expect(
                daemon.standardError.contains("has not answered for 3 s")
                    || daemon.standardError.contains("still unavailable after 3 s")
            )
        }
        // The step that could not be written was never acknowledged.
        let acknowledged = try received(by: stepper, for: .milliseconds(300)).filter { message, _ in
            if case .stepAck = message { true } else { false }
        }
        #expect(acknowledged.isEmpty)
        try server.start()
    }

    @Test func sigtermWithTheDatabaseDownStopsFlowdWithinItsBound() throws {
        let a = try instance("a", database: "sigterm")
        let daemon = try #require(a.process)
        let context = try Context()
        let stepper = try registeredStepper(at: a, context: context)

        server.stop()
        try stepper.send(.step(StepMessage(step: Step("tick", ["s": .int(1), "n": .int(2)]), sequence: 2)))
        _ = try daemon.line(containing: "the store does not answer (", within: .seconds(5))
        let asked = ContinuousClock.now
        let status = daemon.signal(SIGTERM, within: .seconds(15))
        let took = ContinuousClock.now - asked
        // The bound: 5 s for the last writes, then the process ends.
        #expect(took < .seconds(8), "flowd took \(took) to stop")
        #expect(status == 74, "\(daemon.standardError)")
        #expect(daemon.standardError.contains("answers that waited for them are not sent"))
        try server.start()
    }
}
