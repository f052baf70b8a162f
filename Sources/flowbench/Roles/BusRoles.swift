import FlowBus
import Foundation

/// The FlowBus side of the end-to-end benchmarks: a stepper and a presenter process, real clients of flowd.
enum BusRoles {
    static let session = "bench"

    /// `flowbench stepper CONTROL EVENTS NAME STEPS flood|serial`: emits STEPS steps stamped with the shared clock,
    /// as fast as its window of 256 steps in flight allows (flood) or one at a time (serial).
    static func stepper(_ arguments: [String]) async throws {
        let options = ClientOptions(endpoints: Endpoints(control: arguments[0], events: arguments[1]))
        let count = Int(arguments[3]) ?? 0
        let client = try await StepperClient.connect(session: session, name: arguments[2], options: options)
        RoleLines.say("ready")
        RoleLines.awaitGo()
        let processorStart = ProcessorTime.microseconds()
        var accepted = 0
        if arguments[4] == "serial" {
            for index in 0..<count {
                accepted += try await client.emit(step(index)).isAccepted ? 1 : 0
            }
        } else {
            accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
                var accepted = 0
                for index in 0..<count {
                    if index >= 200, let fate = try await group.next() {
                        accepted += fate ? 1 : 0
                    }
                    group.addTask { try await client.emit(step(index)).isAccepted }
                }
                for try await fate in group {
                    accepted += fate ? 1 : 0
                }
                return accepted
            }
        }
        RoleLines.say("done accepted=\(accepted) cpu=\(ProcessorTime.microseconds() - processorStart)")
        await client.close()
    }

    /// `flowbench presenter CONTROL EVENTS STEPS`: counts the navigations until STEPS arrived, measuring each
    /// command's latency from its step's stamp.
    static func presenter(_ arguments: [String]) async throws {
        let options = ClientOptions(endpoints: Endpoints(control: arguments[0], events: arguments[1]))
        let expected = Int(arguments[2]) ?? 0
        let client = try await PresenterClient.connect(session: session, options: options)
        var latencies: [Int] = []
        latencies.reserveCapacity(expected)
        var ready = false
        var processorStart = 0
        // Navigations are numbered: the role is done once the numbers cover every step, even when a resync (a
        // heartbeat missed on a loaded machine, batches dropped by a full queue) rebuilt the screen instead of
        // delivering some of them — those have no latency, and `missed=` counts them.
        var firstSequence: UInt64 = 0
        updates: for await update in client.updates {
            switch update {
            case .rebuild(let rebuild):
                if !ready {
                    ready = true
                    firstSequence = rebuild.sequence
                    processorStart = ProcessorTime.microseconds()
                    RoleLines.say("ready")
                }
                if rebuild.sequence >= firstSequence + UInt64(expected) { break updates }
            case .navigate(let navigation):
                let now = BenchClock.now()
                for command in navigation.commands {
                    if let stamp = command.placed.first?.parameters["t"]?.intValue {
                        latencies.append(now - stamp)
                    }
                }
                if latencies.count >= expected || navigation.sequence >= firstSequence + UInt64(expected) {
                    break updates
                }
            }
        }
        let used = ProcessorTime.microseconds() - processorStart
        let missed = max(0, expected - latencies.count)
        RoleLines.say("done \(LatencySummary(samples: latencies).line) cpu=\(used) missed=\(missed)")
        await client.close()
    }

    static func step(_ index: Int) -> Step {
        Step("tick", ["n": .int(index), "t": .int(BenchClock.now())])
    }
}
