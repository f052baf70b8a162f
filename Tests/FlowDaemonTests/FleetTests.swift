import FlowBusTesting
import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// A fleet of real flowd processes on loopback sharing one real PostgreSQL server (started by the test as an
/// unprivileged user in a temporary directory), with real stepper and presenter processes that know every
/// instance's endpoints: an instance killed under load, or paused past its lease, loses no acknowledged step, and
/// its clients end up at the instance that serves their session.
@Suite(.serialized, .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.unavailableReason ?? "")))
struct FleetTests {
    typealias Tick = KillTortureTests.Tick

    /// One instance of the fleet: its name and tcp endpoints on loopback, and its process once started.
    ///
    /// Its ports are ones nobody listened on when they were picked (a fleet advertises its endpoints: they are
    /// given, not chosen as flowd binds). Another process may take one before flowd binds it (seen once in CI: "the
    /// address is in use"): the first start then picks others, up to three times. It starts again on the same ones.
    final class Instance {
        let name: String
        private(set) var control = Instance.freeEndpoint()
        private(set) var events = Instance.freeEndpoint()
        private var started = false
        var process: DaemonProcess?

        init(_ name: String) {
            self.name = name
        }

        private static func freeEndpoint() -> String {
            "tcp://127.0.0.1:\(freeLoopbackPort())"
        }

        /// Starts the instance; `extra` arguments go to flowd after the fleet's. `heartbeats`: flowd's interval and
        /// timeout (milliseconds), short by default.
        func start(
            store: String,
            flows: String,
            lease: String,
            heartbeats: (interval: Int, timeout: Int) = (200, 1000),
            extra: [String] = []
        ) throws {
            for attempt in 1...3 {
                let daemon = try DaemonProcess(
                    [
                        "--flows", flows, "--store", store, "--instance", name, "--lease", lease, "--control", control,
                        "--events", events, "--heartbeat-interval", "\(heartbeats.interval)", "--heartbeat-timeout",
                        "\(heartbeats.timeout)", "--log-level", "debug",
                    ] + extra
                )
                do {
                    _ = try daemon.readyEndpoints()
                } catch  where !started && attempt < 3 && daemon.standardError.contains("the address is in use") {
                    (control, events) = (Self.freeEndpoint(), Self.freeEndpoint())
                    continue
                }
                process = daemon
                started = true
                return
            }
        }
    }

    private let server: PostgresServer
    private let scratch = ScratchDirectory("fleet")
    private var flowsPath: String { scratch.path + "/flows.yaml" }

    init() throws {
        server = try PostgresServer()
        try KillTortureTests.flows.write(toFile: scratch.path + "/flows.yaml", atomically: true, encoding: .utf8)
    }

    /// A client's arguments: its session, and the instances to try, in this order.
    /// Instances a and b on a new database of the server, with these leases (and flows, b's given apart).
    private func twoInstances(
        on database: String,
        leases: (a: String, b: String),
        flowsOfB: String? = nil
    ) throws -> (store: String, a: Instance, b: Instance) {
        let store = try server.createDatabase(database)
        let (a, b) = (Instance("a"), Instance("b"))
        try a.start(store: store, flows: flowsPath, lease: leases.a)
        try b.start(store: store, flows: flowsOfB ?? flowsPath, lease: leases.b)
        return (store, a, b)
    }

    private func connection(_ session: String, _ instances: [Instance]) -> [String] {
        [
            "--control", instances.map(\.control).joined(separator: ","), "--events",
            instances.map(\.events).joined(separator: ","), "--session", session, "--connect-timeout", "30000",
            "--reconnect-interval-max", "200",
        ]
    }

    /// The instance that owns a session in the store.
    private func owner(of session: String, in database: String) -> String? {
        let found = try? server.psql(
            "SELECT owner FROM flowbus_sessions WHERE session = '\(session)'",
            database: database
        )
        let name = found?.output.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return name.isEmpty ? nil : name
    }

    /// The ticks of stepper s1's fates a stepper process printed, with whether each was accepted.
    private func fates(_ stepper: ChildProcess) -> [(tick: Tick, accepted: Bool)] {
        KillTortureTests.fates([stepper])
    }

    /// The Tick screens of a session in an instance's tree, in placement order.
    private func ticksInTree(of session: String, at instance: Instance) throws -> [Tick] {
        try KillTortureTests.ticksInTree(control: instance.control, events: instance.events, session: session)
    }

    @Test func theSessionsOfAKilledInstanceAreServedByTheOthersWithEveryAcknowledgedStepOnce() throws {
        let database = "killed"
        let store = try server.createDatabase(database)
        let instances = ["a", "b", "c"].map(Instance.init)
        for instance in instances {
            try instance.start(store: store, flows: flowsPath, lease: "2s")
        }
        // Session k<i> tries instance i first: the sessions spread over the fleet.
        let sessions = ["k0", "k1", "k2"]
        var presenters: [ChildProcess] = []
        var steppers: [ChildProcess] = []
        for (index, session) in sessions.enumerated() {
            let order = Array(instances[index...] + instances[..<index])
            presenters.append(try ChildProcess("flowdemo", ["presenter", "--plain"] + connection(session, order)))
            steppers.append(try ChildProcess("flowdemo", ["stepper", "--name", "s1"] + connection(session, order)))
        }
        for stepper in steppers {
            try stepper.waitForOutput(containing: "connected to session", within: .seconds(30))
        }
        #expect(sessions.map { owner(of: $0, in: database) } == ["a", "b", "c"])
        // Many more sessions, without clients, spread the same way: they must move too.
        let context = try Context()
        for index in 0..<30 {
            let instance = instances[index % 3]
            let peer = try TestPeer(
                "m\(index)/app",
                session: "m\(index)",
                context: context,
                control: instance.control,
                events: instance.events
            )
            try peer.hello(.stepper, name: "app")
            try peer.send(.bye(Bye(reason: "done")))
        }
        #expect(
            try server.psql("SELECT count(*) FROM flowbus_sessions WHERE owner = 'a'", database: database).output
                .trimmingCharacters(in: .whitespacesAndNewlines) == "11"
        )
        let perStepper = 30
        for stepper in steppers {
            for number in 1...perStepper {
                stepper.send("emit tick s=1 n=\(number)")
            }
        }
        // Under load: once steps are flowing, instance a dies.
        _ = waitUntil(within: .seconds(30)) { steppers.reduce(0) { $0 + fates($1).count } >= 20 }
        let killed = ContinuousClock.now
        #expect(instances[0].process?.signal(SIGKILL) != nil)
        let ownedByA = {
            (try? self.server.psql("SELECT count(*) FROM flowbus_sessions WHERE owner = 'a'", database: database))?
                .output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let moved = waitUntil(within: .seconds(15)) { ownedByA() == "0" }
        let took = ContinuousClock.now - killed
        #expect(moved, "a still owns \(ownedByA() ?? "?") sessions")
        #expect(["b", "c"].contains(owner(of: "k0", in: database)))
        // Within the lease (2 s) and a second, the others serve all of its sessions; the test sees it through psql, a
        // process started at each look, which on a loaded machine adds its own delay (3.05 s seen once in CI): half a
        // second is allowed for the looking.
        #expect(took <= .milliseconds(3500), "a's sessions moved after \(took)")

        #expect(
            waitUntil(within: .seconds(60)) { steppers.allSatisfy { fates($0).count >= perStepper } },
            "the steppers did not get every fate: \(steppers.map(\.output))"
        )
        for (index, session) in sessions.enumerated() {
            let accepted = fates(steppers[index]).filter(\.accepted).map(\.tick)
            #expect(accepted.count == perStepper, "\(session): \(fates(steppers[index]).filter { !$0.accepted })")
            let name = try #require(owner(of: session, in: database))
            let instance = try #require(instances.first { $0.name == name })
            let inTree = try ticksInTree(of: session, at: instance)
            // Every acknowledged step's effect is there exactly once, in order.
            #expect(inTree.map(\.number) == Array(1...perStepper), "\(session) at \(name): \(inTree)")
            // The presenter draws what the instance that serves the session holds.
            let drawn = waitUntil(within: .seconds(20)) {
                KillTortureTests.lastFrameTicks(presenters[index].output) == inTree
            }
            #expect(drawn, "\(session): the presenter's last frame differs from the tree at \(name)")
        }
        for client in steppers + presenters {
            client.send("quit")
        }
    }

    @Test func aPausedInstanceCannotWriteWhatItLostAndItsClientsAreSentOn() throws {
        let database = "paused"
        let (_, a, b) = try twoInstances(on: database, leases: ("1s", "1s"))
        // The presenter knows instance a only: it must be sent to b.
        let presenter = try ChildProcess("flowdemo", ["presenter", "--plain"] + connection("p", [a]))
        let stepper = try ChildProcess("flowdemo", ["stepper", "--name", "s1"] + connection("p", [a, b]))
        try stepper.waitForOutput(containing: "connected to session", within: .seconds(30))
        #expect(owner(of: "p", in: database) == "a")
        for number in 1...5 {
            stepper.send("emit tick s=1 n=\(number)")
        }
        #expect(waitUntil(within: .seconds(20)) { fates(stepper).count == 5 })
        let pid = try #require(a.process?.process.processIdentifier)
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        #expect(waitUntil(within: .seconds(15)) { owner(of: "p", in: database) == "b" }, "b did not take p over")
        for number in 6...10 {
            stepper.send("emit tick s=1 n=\(number)")
        }
        #expect(
            waitUntil(within: .seconds(30)) { fates(stepper).count == 10 },
            "the stepper did not get its fates from b: \(stepper.output)"
        )
        kill(pid, SIGCONT)
        // a learns it lost the session, forgets it, and writes nothing of it.
        let forgotten = try a.process?.line(containing: "another instance took this session over", within: .seconds(15))
        #expect(forgotten?.contains("session=p") == true)
        #expect(owner(of: "p", in: database) == "b")
        let inTree = try ticksInTree(of: "p", at: b)
        #expect(inTree.map(\.number) == Array(1...10))
        #expect(fates(stepper).allSatisfy { $0.accepted })
        // The presenter, told to say HELLO again, is sent to b and draws b's tree.
        let drawn = waitUntil(within: .seconds(20)) { KillTortureTests.lastFrameTicks(presenter.output) == inTree }
        #expect(drawn, "the presenter's last frame: \(KillTortureTests.lastFrameTicks(presenter.output))")
        stepper.send("quit")
        presenter.send("quit")
    }

    @Test func aClientIsSentToTheOwnerAndPastAnInstanceThatIsDown() throws {
        let database = "redirects"
        let (_, a, b) = try twoInstances(on: database, leases: ("5s", "5s"))
        let first = try ChildProcess("flowdemo", ["stepper", "--name", "s1"] + connection("r", [a]))
        try first.waitForOutput(containing: "connected to session r", within: .seconds(30))
        // A second stepper of the session knows b only: b sends it to a, which serves the session.
        let second = try ChildProcess("flowdemo", ["stepper", "--name", "s2"] + connection("r", [b]))
        try second.waitForOutput(containing: "connected to session r", within: .seconds(30))
        second.send("emit tick s=2 n=1")
        try second.waitForOutput(containing: "accepted", within: .seconds(20))
        #expect(owner(of: "r", in: database) == "a")
        #expect(try ticksInTree(of: "r", at: a).map(\.stepper) == [2])
        #expect(
            try b.process?.line(containing: "redirected a HELLO", within: .seconds(5)).contains("instance=a") == true
        )
        // An endpoint list whose first instance is down: the next one is tried.
        let down = Instance("down")
        let third = try ChildProcess("flowdemo", ["stepper", "--name", "s3"] + connection("r", [down, b]))
        try third.waitForOutput(containing: "connected to session r", within: .seconds(30))
        for client in [first, second, third] {
            client.send("quit")
        }
    }

    /// flowctl, given any instance, sees the whole fleet: `list` every instance's sessions with the instance that
    /// serves each, `tree` a session another instance serves, `watch` every instance's events.
    @Test func flowctlSeesTheFleetInOneView() throws {
        let database = "view"
        let (_, a, b) = try twoInstances(on: database, leases: ("5s", "5s"))
        let atA = try ChildProcess("flowdemo", ["stepper", "--name", "s1"] + connection("va", [a]))
        let atB = try ChildProcess("flowdemo", ["stepper", "--name", "s1"] + connection("vb", [b]))
        for stepper in [atA, atB] {
            try stepper.waitForOutput(containing: "connected to session", within: .seconds(30))
        }
        let flowctl = try builtProduct("flowctl")
        let bus = ["--control", b.control, "--events", b.events]
        // Both instances know each other once each has looked at the fleet.
        var listed: JSONObject = [:]
        let both = waitUntil(within: .seconds(10)) {
            guard let run = try? FlowBusTesting.run(flowctl, ["list", "--json"] + bus), run.status == 0,
                let object = try? JSONValue(parsing: Array(run.output.utf8)).objectValue
            else { return false }
            listed = object
            return object["sessions"]?.arrayValue?.count == 2
        }
        #expect(both, "flowctl list: \(listed)")
        let instanceOf = Dictionary(
            uniqueKeysWithValues: (listed["sessions"]?.arrayValue ?? []).compactMap(\.objectValue).compactMap {
                fields in
                fields["session"]?.stringValue.map { ($0, fields["instance"]?.stringValue ?? "?") }
            }
        )
        #expect(instanceOf == ["va": "a", "vb": "b"])
        #expect(listed["fleet"]?.objectValue?["instances"]?.arrayValue?.count == 2)
        let table = try FlowBusTesting.run(flowctl, ["list"] + bus)
        #expect(table.output.contains("INSTANCE  ALIVE"))
        // A session another instance serves: flowctl is sent there.
        let tree = try FlowBusTesting.run(flowctl, ["tree", "va", "--json"] + bus)
        #expect(tree.status == 0, "\(tree.errors)")
        #expect(tree.output.contains("\"session\":\"va\"") || tree.output.contains("\"session\" : \"va\""))
        // watch: the events of both instances, each with its instance.
        let watch = try ChildProcess(
            "flowctl",
            ["watch", "--json", "--all", "--color", "never", "--timeout", "20"] + bus
        )
        try watch.waitForOutput(containing: "watching flowd at the fleet's 2 instances", within: .seconds(10))
        atA.send("emit tick s=1 n=1")
        atB.send("emit tick s=1 n=2")
        try watch.waitForOutput(containing: "\"instance\":\"a\"", within: .seconds(10))
        try watch.waitForOutput(containing: "\"instance\":\"b\"", within: .seconds(10))
        watch.terminate(with: SIGINT)
        for stepper in [atA, atB] {
            stepper.send("quit")
        }
        // An instance that just died still counts as alive until its lease expires: list passes over it.
        #expect(a.process?.signal(SIGKILL) != nil)
        let withADeadOne = try FlowBusTesting.run(flowctl, ["list"] + bus)
        #expect(withADeadOne.status == 0, "\(withADeadOne.errors)")
        #expect(withADeadOne.errors.contains("instance a does not answer"), "\(withADeadOne.errors)")
        #expect(withADeadOne.output.contains("vb"))
    }

    /// A graceful stop gives the lease up once everything is written: the others serve the sessions at once, not
    /// after the lease. A second flowd under a running instance's name is refused; once that one is killed, a new
    /// one under its name waits for its lease to lapse, then starts.
    @Test func aStoppedInstanceHandsOverAtOnceAndANameRunsOnce() throws {
        let database = "handover"
        let (store, a, b) = try twoInstances(on: database, leases: ("30s", "2s"))
        let stepper = try ChildProcess("flowdemo", ["stepper", "--name", "s1"] + connection("h", [a, b]))
        try stepper.waitForOutput(containing: "connected to session h", within: .seconds(30))
        stepper.send("emit tick s=1 n=1")
        try stepper.waitForOutput(containing: "accepted", within: .seconds(20))
        #expect(owner(of: "h", in: database) == "a")
        let stopped = ContinuousClock.now
        #expect(a.process?.signal(SIGTERM) == 0)
        #expect(waitUntil(within: .seconds(10)) { owner(of: "h", in: database) == "b" })
        #expect(ContinuousClock.now - stopped < .seconds(5), "the sessions waited for the 30 s lease")
        stepper.send("emit tick s=1 n=2")
        #expect(waitUntil(within: .seconds(20)) { fates(stepper).count == 2 })
        #expect(try ticksInTree(of: "h", at: b).map(\.number) == [1, 2])
        stepper.send("quit")

        // b runs: a second flowd named b is refused, and b goes on.
        let twin = try DaemonProcess([
            "--flows", flowsPath, "--store", store, "--instance", "b", "--lease", "2s", "--control",
            "tcp://127.0.0.1:\(freeLoopbackPort())", "--events", "tcp://127.0.0.1:\(freeLoopbackPort())",
        ])
        #expect(twin.exitStatus(within: .seconds(20)) == 73)
        #expect(twin.standardError.contains("another flowd runs as instance b"), "\(twin.standardError)")
        #expect(b.process?.process.isRunning == true)
        // Killed, b comes back under its name once its lease lapsed, with its sessions.
        #expect(b.process?.signal(SIGKILL) != nil)
        let killed = ContinuousClock.now
        try b.start(store: store, flows: flowsPath, lease: "2s")
        #expect(ContinuousClock.now - killed < .seconds(10))
        #expect(owner(of: "h", in: database) == "b")
        #expect(try ticksInTree(of: "h", at: b).map(\.number) == [1, 2])
    }

    /// An instance that runs another flows file takes a session over as it was written: replayed with the flows
    /// of the instance that wrote it, then going on with its own (here a tick shows a Tock).
    @Test func aSessionTakenOverIsReplayedWithTheFlowsItWasWrittenWith() throws {
        let database = "flows"
        let other = scratch.path + "/tock.yaml"
        try KillTortureTests.flows.replacingOccurrences(of: "- show: Tick", with: "- show: Tock")
            .write(toFile: other, atomically: true, encoding: .utf8)
        let (_, a, b) = try twoInstances(on: database, leases: ("1s", "1s"), flowsOfB: other)
        let stepper = try ChildProcess("flowdemo", ["stepper", "--name", "s1"] + connection("f", [a, b]))
        try stepper.waitForOutput(containing: "connected to session f", within: .seconds(30))
        for number in 1...3 {
            stepper.send("emit tick s=1 n=\(number)")
        }
        #expect(waitUntil(within: .seconds(20)) { fates(stepper).count == 3 })
        #expect(a.process?.signal(SIGKILL) != nil)
        #expect(waitUntil(within: .seconds(15)) { owner(of: "f", in: database) == "b" })
        stepper.send("emit tick s=1 n=4")
        #expect(waitUntil(within: .seconds(30)) { fates(stepper).count == 4 })
        let names = try KillTortureTests.screens(of: "f", control: b.control, events: b.events).compactMap {
            $0["name"]?.stringValue
        }
        #expect(names.filter { $0 == "Tick" }.count == 3, "\(names)")
        #expect(names.filter { $0 == "Tock" }.count == 1, "\(names)")
        stepper.send("quit")
    }

    @Test func aRestartedDatabaseLosesNoAcknowledgedStepAndAcknowledgesNothingUnwritten() throws {
        let database = "restarted"
        let store = try server.createDatabase(database)
        let a = Instance("a")
        try a.start(store: store, flows: flowsPath, lease: "10s")
        let stepper = try ChildProcess("flowdemo", ["stepper", "--name", "s1"] + connection("d", [a]))
        try stepper.waitForOutput(containing: "connected to session d", within: .seconds(30))
        let total = 40
        for number in 1...total {
            stepper.send("emit tick s=1 n=\(number)")
        }
        _ = waitUntil(within: .seconds(20)) { fates(stepper).count >= 10 }
        server.stop(immediately: true)
        // While the database is down, nothing more is acknowledged.
        Thread.sleep(forTimeInterval: 0.3)
        let during = fates(stepper).count
        Thread.sleep(forTimeInterval: 1.5)
        #expect(fates(stepper).count == during, "steps were acknowledged while the database was down")
        try server.start()
        #expect(
            waitUntil(within: .seconds(60)) { fates(stepper).count >= total },
            "not every step got its fate: \(stepper.output.suffix(2000))"
        )
        #expect(fates(stepper).allSatisfy { $0.accepted })
        #expect(try ticksInTree(of: "d", at: a).map(\.number) == Array(1...total))
        #expect(a.process?.process.isRunning == true)
        stepper.send("quit")
    }

    /// The fleet's own test support: an instance whose port another process took before flowd bound it starts on
    /// others (flowd refuses the port taken, naming it).
    @Test func anInstanceWhosePortWasTakenStartsOnOthers() throws {
        let store = try server.createDatabase("taken")
        let instance = Instance("a")
        let taken = instance.control
        let context = try Context()
        let squatter = try Socket(.router, context: context)
        try squatter.bind(taken)
        try instance.start(store: store, flows: flowsPath, lease: "2s")
        #expect(instance.control != taken)
        #expect(instance.process?.process.isRunning == true)
        #expect(instance.process?.signal(SIGTERM) == 0)
    }

    /// A database that refuses this flowd (an unknown role) is not waited for: flowd says why at once, exit 74.
    @Test func aDatabaseThatRefusesTheRoleIsToldAtOnce() throws {
        let started = ContinuousClock.now
        let refused = try DaemonProcess([
            "--flows", flowsPath, "--store", "postgresql:///postgres?host=\(server.directory)&user=nosuchrole",
            "--instance", "a", "--control", "tcp://127.0.0.1:\(freeLoopbackPort())", "--events",
            "tcp://127.0.0.1:\(freeLoopbackPort())",
        ])
        #expect(refused.exitStatus(within: .seconds(30)) == 74)
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(refused.standardError.contains("role \"nosuchrole\" does not exist"), "\(refused.standardError)")
        #expect(!refused.standardError.contains("\t"))
    }

    @Test func anInstanceRefusesANewerSchema() throws {
        let database = "newer"
        let store = try server.createDatabase(database)
        let a = Instance("a")
        try a.start(store: store, flows: flowsPath, lease: "5s")
        #expect(a.process?.signal(SIGTERM) != nil)
        try server.psql("UPDATE flowbus_schema SET version = 7", database: database)
        let refused = try DaemonProcess([
            "--flows", flowsPath, "--store", store, "--instance", "a", "--control", a.control, "--events", a.events,
        ])
        #expect(refused.exitStatus(within: .seconds(30)) != 0)
        #expect(refused.standardError.contains("newer FlowBus (schema 7"))
    }
}
