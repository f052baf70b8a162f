import Foundation

/// Runs every benchmark in one go, prints the table and writes the JSON report.
struct Harness {
    let quick: Bool
    let jsonPath: String?

    init(arguments: [String]) {
        quick = arguments.contains("--quick")
        jsonPath = arguments.firstIndex(of: "--json").flatMap {
            arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil
        }
    }

    func run() async throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let heading =
            "FlowBus benchmarks — \(cores) cores\(quick ? " (quick)" : ""), commit "
            + (ProcessInfo.processInfo.environment["FLOWBUS_COMMIT"] ?? "unknown")
        FileHandle.standardOutput.write(Data((heading + "\n").utf8))
        var results: [Result] = []
        func report(_ result: Result) {
            results.append(result)
            FileHandle.standardOutput.write(Data((result.line + "\n").utf8))
        }
        let endToEnd = try EndToEndBenchmarks()
        defer { endToEnd.cleanUp() }

        var rawRelayRate: [String: Double] = [:]
        if AnchorBenchmarks.available {
            let anchors = try AnchorBenchmarks(endToEnd: endToEnd, quick: quick).results()
            anchors.rows.forEach(report)
            rawRelayRate = anchors.rawRelayRate
        } else {
            FileHandle.standardOutput.write(Data("(the C anchors: flowbench-anchor was not built)\n".utf8))
        }

        let steps = quick ? 4_000 : 48_000
        for transport in ["ipc", "tcp"] {
            for steppers in quick ? [1, 4] : [1, 4, 16] {
                let load = try endToEnd.flowdLoad(transport, steppers: steppers, steps: steps)
                let flowd = load.stepsPerSecond
                let relay = try endToEnd.relayThroughput(transport, steppers: steppers, steps: steps)
                let detail = "\(steps) steps, \(steppers) stepper process\(steppers == 1 ? "" : "es")"
                report(
                    Result(
                        name: "flowd steps/s \(transport) \(steppers)s",
                        value: flowd,
                        unit: "steps/s",
                        detail: detail + ", Swift clients"
                    )
                )
                if steppers == 1 {
                    let clients = String(
                        format: "goal ≤ 10; the presenter %.1f µs, flowd %.1f µs",
                        load.presenterMicrosecondsPerStep,
                        load.flowdMicrosecondsPerStep
                    )
                    report(
                        Result(
                            name: "Swift stepper processor time per step \(transport)",
                            value: load.stepperMicrosecondsPerStep,
                            unit: "µs",
                            detail: clients
                        )
                    )
                }
                report(
                    Result(
                        name: "relay msgs/s \(transport) \(steppers)s",
                        value: relay,
                        unit: "msgs/s",
                        detail: detail + ", the Swift relay and roles"
                    )
                )
                if let raw = rawRelayRate[transport] {
                    report(
                        Result(
                            name: "Swift relay/C raw relay \(transport) \(steppers)s",
                            value: relay / raw,
                            unit: "×",
                            detail: "goal ≥ 0.5"
                        )
                    )
                }
                report(
                    Result(
                        name: "flowd/relay throughput \(transport) \(steppers)s",
                        value: flowd / relay,
                        unit: "×",
                        detail: "goal ≥ 0.5"
                    )
                )
            }
            let latencySteps = quick ? 1_000 : 10_000
            let flowd = try endToEnd.flowdLatency(transport, steps: latencySteps)
            let relay = try endToEnd.relayLatency(transport, steps: latencySteps)
            for percentile in ["p50", "p99", "p999"] {
                let ours = Double(flowd[percentile] ?? 0) / 1000
                let theirs = Double(relay[percentile] ?? 0) / 1000
                let detail = "\(latencySteps) steps, one in flight"
                report(
                    Result(name: "flowd latency \(percentile) \(transport)", value: ours, unit: "µs", detail: detail)
                )
                report(
                    Result(name: "relay latency \(percentile) \(transport)", value: theirs, unit: "µs", detail: detail)
                )
                let goal = percentile == "p50" ? "goal ≤ 1.5" : percentile == "p99" ? "goal ≤ 2" : "no goal"
                report(
                    Result(
                        name: "flowd/relay latency \(percentile) \(transport)",
                        value: ours / max(theirs, 0.001),
                        unit: "×",
                        detail: goal
                    )
                )
            }
        }

        if AnchorBenchmarks.available {
            try WebSocketBenchmarks(endToEnd: endToEnd, quick: quick).results().forEach(report)
        }
        try WatcherBenchmarks.cost(endToEnd, quick: quick).forEach(report)
        try DurabilityBenchmarks.cost(endToEnd, quick: quick).forEach(report)
        try DurabilityBenchmarks.restore(endToEnd, sessions: quick ? 10_000 : 100_000).forEach(report)
        try FleetBenchmarks.run(endToEnd, quick: quick, sessions: quick ? 2_000 : 10_000).forEach(report)
        try FloodBenchmarks.cost(endToEnd, quick: quick).forEach(report)
        HostileBodyBenchmarks.cost().forEach(report)

        try SessionBenchmarks.flowd(endToEnd, quick: quick).forEach(report)

        report(ProfileBenchmarks.codec(messages: quick ? 20_000 : 200_000))
        report(ProfileBenchmarks.eventCodec(messages: quick ? 20_000 : 200_000))
        try ProfileBenchmarks.coordinator(steps: quick ? 10_000 : 100_000, flows: endToEnd.flows).forEach(report)
        report(try EngineBenchmarks.throughput(steps: quick ? 20_000 : 200_000))
        if let allocations = try AllocationBenchmarks.perStep(quick: quick) {
            allocations.forEach(report)
        } else {
            FileHandle.standardOutput.write(Data("(allocations per step: valgrind is not installed)\n".utf8))
        }
        if let instructions = try InstructionBenchmarks.perStep(flows: endToEnd.flows, quick: quick) {
            instructions.forEach(report)
        }
        try SessionBenchmarks.engine(quick: quick).forEach(report)

        if let jsonPath {
            try write(results, to: jsonPath, cores: cores)
            FileHandle.standardOutput.write(Data("results written to \(jsonPath)\n".utf8))
        }
    }

    private func write(_ results: [Result], to path: String, cores: Int) throws {
        struct Report: Codable {
            let cores: Int
            let commit: String
            let date: String
            let quick: Bool
            let results: [Result]
        }
        let report = Report(
            cores: cores,
            commit: ProcessInfo.processInfo.environment["FLOWBUS_COMMIT"] ?? "unknown",
            date: ISO8601DateFormatter().string(from: Date()),
            quick: quick,
            results: results
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: URL(fileURLWithPath: path))
    }
}

extension Result {
    /// The result as a row of the table.
    var line: String {
        let name = self.name.padding(toLength: 44, withPad: " ", startingAt: 0)
        let value = unit == "×" ? String(format: "%14.2f", self.value) : String(format: "%14.1f", self.value)
        return "\(name)  \(value) \(unit.padding(toLength: 10, withPad: " ", startingAt: 0))  \(detail)"
    }
}
