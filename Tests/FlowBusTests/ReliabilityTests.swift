import FlowBus
import FlowBusTesting
import FlowCore
import Foundation
import Testing

/// The stepper's connection goes through a relay that the test cuts, while flowd keeps running.
@Suite struct ReliabilityTests {
    /// flowd on the ticker flows; a stepper `ticker` whose control connection goes through a relay (reconnecting
    /// quickly once it is restored); an inspector connected directly.
    private struct TickerBehindRelay {
        let daemon: Daemon
        let relay: TCPRelay
        let ticker: StepperClient
        let inspector: InspectorClient
    }

    private func tickerBehindRelay() async throws -> TickerBehindRelay {
        let daemon = try Daemon(.tcp, flows: try flowsFile(tickerFlows))
        let relay = try TCPRelay(upstream: daemon.endpoints.control)
        var options = daemon.options()
        options.endpoints.control = relay.endpoint
        options.reconnectIntervalMax = .milliseconds(200)
        let ticker = try await StepperClient.connect(session: "kiosk", name: "ticker", options: options)
        let inspector = try await InspectorClient.connect(options: daemon.options())
        return TickerBehindRelay(daemon: daemon, relay: relay, ticker: ticker, inspector: inspector)
    }

    @Test func stepsEmittedWhileTheConnectionIsCutAreDeliveredOnceWhenItComesBack() async throws {
        let setup = try await tickerBehindRelay()
        let (relay, ticker, inspector) = (setup.relay, setup.ticker, setup.inspector)
        #expect(try await ticker.emit("tick", ["n": 0]).isAccepted)

        relay.cut()
        // Emitted while there is no connection: they wait in the client.
        let fates = Task {
            try await withThrowingTaskGroup(of: Fate.self) { group in
                for n in 1...5 {
                    group.addTask { try await ticker.emit("tick", ["n": .int(n)]) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await eventually("5 steps waiting in the client") { ticker.waitingSteps == 5 }
        #expect(try await inspector.counter("stepsIn") == 1)
        relay.restore()

        let delivered = try await fates.value
        #expect(delivered.count == 5)
        #expect(delivered.allSatisfy { $0.isAccepted })
        // Each applied once: six steps in, six screens pushed.
        #expect(try await inspector.counter("stepsIn") == 6)
        let tree = try await inspector.query("tree", session: "kiosk")
        let ticks = tree.objectValue?["screens"]?.arrayValue?.filter { $0.objectValue?["name"] == "Tick" }
        #expect(ticks?.count == 6)
        await setup.ticker.close()  // flowd lives as long as `setup`.
    }

    /// flowd's state put back from an older copy (a backup restored; or the durability `off` and a crash): the
    /// epoch is the same, and WELCOME's `lastSequence` is below steps the stepper saw acknowledged. What waits for
    /// its fate, and what comes next, is numbered from there on (else flowd would answer `sequenceGap` for ever):
    /// with a step waiting when flowd comes back, and with none.
    @Test func aStateRestoredFromAnOlderCopyTakesTheSteppersNumberingBackWithIt() async throws {
        let directory = uniqueDirectory("older")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (state, backup) = (directory + "/state", directory + "/backup")
        let (control, events) = ("ipc://\(directory)/control", "ipc://\(directory)/events")
        let arguments = [
            "--flows", try flowsFile(tickerFlows), "--control", control, "--events", events, "--state-dir", state,
        ]
        var daemon = try DaemonProcess(arguments)
        _ = try daemon.readyEndpoints()
        var options = ClientOptions(endpoints: Endpoints(control: control, events: events))
        options.reconnectIntervalMax = .milliseconds(200)
        let ticker = try await StepperClient.connect(session: "kiosk", name: "ticker", options: options)
        for n in 1...3 {
            #expect(try await ticker.emit("tick", ["n": .int(n)]).isAccepted)
        }
        #expect(daemon.signal(SIGTERM) == 0)
        try FileManager.default.copyItem(atPath: state, toPath: backup)

        /// flowd started on the backup (its lastSequence for the ticker: 3).
        func restartOnTheBackup() throws {
            #expect(daemon.signal(SIGKILL) != nil)
            try FileManager.default.removeItem(atPath: state)
            try FileManager.default.copyItem(atPath: backup, toPath: state)
            daemon = try DaemonProcess(arguments)
            _ = try daemon.readyEndpoints()
        }
        daemon = try DaemonProcess(arguments)
        _ = try daemon.readyEndpoints()
        for n in 4...6 {
            #expect(try await ticker.emit("tick", ["n": .int(n)]).isAccepted)
        }
        /// Emits a tick and waits (bounded) for its fate: without the renumbering, it would wait for ever.
        func tick(_ n: Int) async throws -> Bool {
            let fate = Task { try await ticker.emit("tick", ["n": .int(n)]) }
            try await eventually("tick \(n) acknowledged", within: .seconds(20)) { ticker.waitingSteps == 0 }
            return try await fate.value.isAccepted
        }
        // Back on the backup with a step waiting: it is numbered 4 now.
        try restartOnTheBackup()
        #expect(try await tick(7))
        #expect(try await tick(8))
        // Back on the backup again, the stepper registered before its next step: that step is numbered 4.
        try restartOnTheBackup()
        _ = try daemon.line(containing: "peer=kiosk/ticker", within: .seconds(10))
        #expect(try await tick(9))

        let inspector = try await InspectorClient.connect(options: options)
        let tree = try await inspector.query("tree", session: "kiosk")
        let ticks = tree.objectValue?["screens"]?.arrayValue?.compactMap { screen -> Int? in
            guard screen.objectValue?["name"] == "Tick" else { return nil }
            return screen.objectValue?["parameters"]?.objectValue?["n"]?.intValue
        }
        #expect(ticks == [1, 2, 3, 9])
        await ticker.close()
        await inspector.close()
        #expect(daemon.signal(SIGTERM) == 0)
    }

    /// flowd's flood control drops what a peer sends beyond its rate: later steps then come before the dropped
    /// ones, and flowd refuses them (`sequenceGap`) rather than apply them out of order. The client sends every
    /// step in flight again, in order (on the gap, or once they waited too long): each is applied once, in the
    /// order it was emitted.
    @Test func stepsDroppedOnTheWayAreSentAgainAndAppliedOnceInOrder() async throws {
        let daemon = try Daemon(
            .ipc,
            flows: try flowsFile(tickerFlows),
            ["--peer-message-rate", "20", "--heartbeat-interval", "100", "--heartbeat-timeout", "500"]
        )
        let ticker = try await StepperClient.connect(session: "kiosk", name: "ticker", options: daemon.options())
        let inspector = try await InspectorClient.connect(options: daemon.options())
        // Posted in order from one task at 50 a second: flowd takes a burst of 40, then one message in 2.5 is let
        // through as its allowance refills — a step, with the ones before it dropped (a pace, not a wait).
        let count = 80
        for n in 1...count {
            try ticker.post(Step("tick", ["n": .int(n)]))
            try await Task.sleep(for: .milliseconds(20))
        }
        // Every fate came back (the inspector, limited to 20 messages per second too, asks once at the end).
        try await eventually("every step acknowledged", within: .seconds(30)) { ticker.waitingSteps == 0 }
        let tree = try await inspector.query("tree", session: "kiosk")
        let ticks = tree.objectValue?["screens"]?.arrayValue?.filter { $0.objectValue?["name"] == "Tick" }
        #expect(ticks?.compactMap { $0.objectValue?["parameters"]?.objectValue?["n"]?.intValue } == Array(1...count))
        // flowd did drop messages (else this test proves nothing), and refused the steps that came early.
        let stats = try await inspector.query("stats")
        #expect((stats.objectValue?["errors"]?.objectValue?["flood"]?.intValue ?? 0) > 0)
        #expect(try await inspector.counter("stepsIn") == count)
        await ticker.close()
    }

    @Test func theOutgoingQueueIsBoundedWithAClearError() async throws {
        let daemon = try Daemon(.tcp, flows: try flowsFile(tickerFlows))
        let relay = try TCPRelay(upstream: daemon.endpoints.control)
        var options = daemon.options(maxOutstandingSteps: 3)
        options.endpoints.control = relay.endpoint
        let ticker = try await StepperClient.connect(session: "kiosk", name: "ticker", options: options)
        relay.cut()
        for n in 1...3 {
            try ticker.post(Step("tick", ["n": .int(n)]))
        }
        #expect(
            throws: FlowBusError(
                .queueFull,
                "3 steps already wait for their fate (is flowd reachable?); emit again later"
            )
        ) {
            try ticker.post(Step("tick", ["n": 4]))
        }
        relay.restore()
        // Once flowd has acknowledged them, there is room again.
        try await eventually { (try? ticker.post(Step("tick", ["n": 5]))) != nil }
        await ticker.close()
    }

    @Test func emitsFromAlreadyCancelledTasksAreStillSentAndHoldNoPlaceInTheQueue() async throws {
        let daemon = try Daemon(flows: try flowsFile(tickerFlows))
        let ticker = try await StepperClient.connect(
            session: "kiosk",
            name: "ticker",
            options: daemon.options(maxOutstandingSteps: 8)
        )
        for n in 1...5 {
            let cancelled = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await ticker.emit("tick", ["n": .int(n)])
            }
            await #expect { try await cancelled.value } throws: { ($0 as? FlowBusError)?.code == .cancelled }
        }
        #expect(try await ticker.emit("tick", ["n": 6]).isAccepted)
        // Each cancelled one was sent, and gave its place back once acknowledged (before 6, acknowledged in
        // order): 8 more fit.
        #expect(try await daemon.tickNumbers(session: "kiosk") == [1, 2, 3, 4, 5, 6])
        for n in 10..<18 {
            try ticker.post(Step("tick", ["n": .int(n)]))
        }
        await ticker.close()
    }

    @Test func aStepTooLargeForFlowdFailsAloneAndTheConnectionGoesOn() async throws {
        let daemon = try Daemon(flows: try flowsFile(tickerFlows), ["--max-message-size", "4096"])
        let ticker = try await StepperClient.connect(session: "kiosk", name: "ticker", options: daemon.options())
        await #expect {
            _ = try await ticker.emit("tick", ["n": 1, "padding": .string(String(repeating: "x", count: 10_000))])
        } throws: { error in
            (error as? FlowBusError)?.code == .tooLarge
        }
        #expect(try await ticker.emit("tick", ["n": 2]).isAccepted)
        await ticker.close()
    }

    /// flowd restarts with a lower size limit while three steps wait in the client, the middle one now too large.
    /// It cannot be sent, and flowd applies steps in order: the step after it fails too (rather than wait for
    /// good behind a number flowd never gets), and the next step emitted takes the numbers back and is applied.
    @Test func aWaitingStepThatNoLongerFitsFailsWithTheStepsAfterItAndTheNextStepGoesThrough() async throws {
        func error(_ result: Result<Fate, any Error>) -> FlowBusError? {
            if case .failure(let error) = result { error as? FlowBusError } else { nil }
        }
        let flows = try flowsFile(tickerFlows)
        let directory = uniqueDirectory()
        let endpoints = ["--control", "ipc://\(directory)/control", "--events", "ipc://\(directory)/events"]
        let first = try Daemon(arguments: ["--flows", flows] + endpoints)
        var options = first.options()
        options.reconnectIntervalMax = .milliseconds(200)
        let ticker = try await StepperClient.connect(session: "kiosk", name: "ticker", options: options)
        #expect(try await ticker.emit("tick", ["n": 0]).isAccepted)
        #expect(first.process.signal(SIGTERM) == 0)

        // Numbered in this order while flowd is away: small, large, small.
        let padding = JSONValue.string(String(repeating: "x", count: 10_000))
        let steps: [JSONObject] = [["n": 1], ["n": 2, "padding": padding], ["n": 3]]
        var fates: [Task<Fate, any Error>] = []
        for (index, parameters) in steps.enumerated() {
            fates.append(Task { try await ticker.emit("tick", parameters) })
            try await eventually("step \(index + 1) waiting") { ticker.waitingSteps == index + 1 }
        }
        let second = try Daemon(arguments: ["--flows", flows, "--max-message-size", "4096"] + endpoints)
        // Every waiting step gets its fate (a step held up behind a lost number would wait for good).
        try await eventually("every waiting step decided", within: .seconds(20)) { ticker.waitingSteps == 0 }
        #expect(try await fates[0].value.isAccepted)
        let large = await fates[1].result
        #expect(error(large)?.code == .tooLarge)
        let after = await fates[2].result
        #expect(error(after)?.code == .refused)
        #expect(error(after)?.message.contains("applied in order") == true)
        #expect(try await ticker.emit("tick", ["n": 4]).isAccepted)
        let inspector = try await InspectorClient.connect(options: second.options())
        #expect(try await inspector.counter("stepsIn") == 2)
        await inspector.close()
        await ticker.close()
    }

    @Test func cancellingAWaitingEmitLeavesTheConnectionWorkingAndTheStepDelivered() async throws {
        let setup = try await tickerBehindRelay()
        let (relay, ticker, inspector) = (setup.relay, setup.ticker, setup.inspector)
        relay.cut()
        let waiting = Task { try await ticker.emit("tick", ["n": 1]) }
        try await eventually("the step waiting in the client") { ticker.waitingSteps == 1 }
        waiting.cancel()
        await #expect { try await waiting.value } throws: { ($0 as? FlowBusError)?.code == .cancelled }

        relay.restore()
        #expect(try await ticker.emit("tick", ["n": 2]).isAccepted)
        try await eventually { try await inspector.counter("stepsIn") == 2 }
        await setup.ticker.close()  // flowd lives as long as `setup`.
        // A closed client refuses new work clearly.
        await #expect {
            _ = try await ticker.emit("tick", ["n": 3])
        } throws: { error in
            (error as? FlowBusError)?.code == .closed
        }
    }

    /// A client whose flowd is gone waits for it without spinning: with one instance to try there is no failover
    /// deadline to wake it (an orphaned `flowctl bench` spun at 175% of the cores for 26 minutes, its flowd killed).
    @Test func aClientWhoseFlowdIsGoneWaitsWithoutSpinning() async throws {
        let daemon = try Daemon()
        let stepper = try await StepperClient.connect(session: "gone", name: "app", options: daemon.options())
        #expect(daemon.process.signal(SIGKILL) != nil)
        // Past the failover delay (half a second), while it tries to reconnect: its processor time over 2 s.
        try await Task.sleep(for: .seconds(1))
        let before = Self.processorSeconds()
        try await Task.sleep(for: .seconds(2))
        let used = Self.processorSeconds() - before
        #expect(used < 0.25, "the client used \(used) s of processor time in 2 s without flowd")
        await stepper.close()
    }

    /// This process's processor time so far (user and system), in seconds.
    static func processorSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
