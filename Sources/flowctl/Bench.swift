import ArgumentParser
import FlowBus
import FlowInspector
import FlowSpec
import FlowWire
import Foundation

/// `flowctl bench`: drives a running flowd with real stepper clients and reports throughput and latency.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Measure a running flowd: steppers emit steps as fast as their fates come back; prints throughput and latency.",
        discussion: """
            Each of --steppers real stepper clients (the FlowBus library, as applications use it) says HELLO in a \
            session of its own (SESSION-1, SESSION-2...) and emits --steps steps, each once the one before has its \
            fate; the latency is from emitting to the fate's arrival. The step is --step as --as (default: the \
            root flow's stepper); required parameters get values of their declared types. Without --step, a step \
            that leaves the session as it is: one the root flow handles without opening anything, else one it does \
            not handle (dropped, after flowd's whole decision: the figures say so). A step that opens a screen \
            grows the session with each one sent: name it to measure navigations. The sessions are ended at the \
            end. Like `nats bench`: it measures a deployment as its clients see it (flowctl's own clients share \
            the machine when they run there).

            Exits 0 when every step got its fate (accepted or dropped), 1 when some did not or the step is not \
            declared, 69 when flowd is unreachable.

            Examples:
              flowctl bench
              flowctl bench --steppers 8 --steps 500 --json
              flowctl bench --step moviesAreRequired --as app --session load
            """
    )

    @Option(help: "Stepper clients, each in a session of its own.")
    var steppers = 4

    @Option(help: "Steps each stepper emits.")
    var steps = 1000

    @Option(help: "The sessions' prefix (default: bench-PID).")
    var session: String?

    @Option(help: "The step to emit (default: one that leaves the session as it is).")
    var step: String?

    @Option(name: .customLong("as"), help: "The stepper to emit as (default: the root flow's stepper).")
    var stepper: String?

    @Flag(help: "Print the results as one JSON object.")
    var json = false

    @OptionGroup var bus: BusOptions

    func validate() throws {
        guard (1...1000).contains(steppers) else {
            throw ValidationError("--steppers must be from 1 to 1000, not \(steppers)")
        }
        guard steps >= 1 else {
            throw ValidationError("--steps must be 1 or more, not \(steps)")
        }
    }

    func run() async throws {
        let inspector = try await bus.inspector()
        let flows = try FlowJSON.decode(FlowsReport.self, from: try await bus.query(inspector, "flows"))
        guard let name = step ?? Self.steadyStep(flows) else {
            await inspector.close()
            printError("flowctl: the flow file declares no step to emit; name one with --step")
            throw ExitCode(1)
        }
        guard let stepperName = stepper ?? flows.stepperName else {
            await inspector.close()
            printError("flowctl: the root flow's stepper is \(flows.stepper), not a named one; name one with --as")
            throw ExitCode(1)
        }
        guard let declared = flows.steps.first(where: { $0.name == name }) else {
            await inspector.close()
            printError(
                "flowctl: the flow file declares no step '\(TerminalText.safe(name))'; `flowctl flows` lists its steps"
            )
            throw ExitCode(1)
        }
        // Values of the declared types for the required parameters (a type is `int`, or `int?` when optional).
        var values: JSONObject = [:]
        for (parameter, type) in declared.parameters where !type.hasSuffix("?") {
            values[parameter] = ParameterType(rawValue: type)?.placeholder ?? .null
        }
        let benchStep = Step(name, values)
        let prefix = session ?? "bench-\(ProcessInfo.processInfo.processIdentifier)"
        var options = bus.clientOptions
        options.id = nil
        var clients: [StepperClient] = []
        do {
            for index in 1...steppers {
                clients.append(
                    try await StepperClient.connect(session: "\(prefix)-\(index)", name: stepperName, options: options)
                )
            }
        } catch {
            for client in clients { await client.close() }
            await Self.end(prefix, count: clients.count, bus: bus, inspector: inspector)
            await inspector.close()
            printError("flowctl: a stepper could not connect: \(error.message)")
            throw ExitCode(error.code == .unreachable ? 69 : 1)
        }
        let clock = ContinuousClock()
        let started = clock.now
        let results = await withTaskGroup(of: BenchResult.self) { group in
            for client in clients {
                group.addTask { await Self.drive(client, step: benchStep, count: steps) }
            }
            var total = BenchResult()
            for await result in group {
                total.merge(result)
            }
            return total
        }
        let elapsed = clock.now - started
        for client in clients { await client.close() }
        await Self.end(prefix, count: clients.count, bus: bus, inspector: inspector)
        await inspector.close()
        let report = BenchReport(
            results,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            steppers: steppers,
            step: name,
            stepper: stepperName
        )
        if json {
            try printJSON(report)
        } else {
            print(report.lines.joined(separator: "\n"))
        }
        if results.failed > 0 {
            throw ExitCode(1)
        }
    }

    /// Emits `count` steps one after another, timing each to its fate.
    private static func drive(_ client: StepperClient, step: Step, count: Int) async -> BenchResult {
        var result = BenchResult()
        let clock = ContinuousClock()
        for _ in 0..<count {
            let sent = clock.now
            do {
                let fate = try await client.emit(step)
                let took = clock.now - sent
                result.latencies.record(
                    took.components.seconds * 1_000_000 + took.components.attoseconds / 1_000_000_000_000
                )
                if let drop = fate.drop {
                    result.dropped[drop.reason.rawValue, default: 0] += 1
                } else {
                    result.accepted += 1
                }
            } catch {
                result.failed += 1
                result.failure = result.failure ?? "\(error)"
            }
        }
        return result
    }

    /// Ends the bench's sessions.
    private static func end(_ prefix: String, count: Int, bus: BusOptions, inspector: InspectorClient) async {
        guard count > 0 else { return }
        for index in 1...count {
            _ = try? await inspector.query(
                "endSession",
                session: "\(prefix)-\(index)",
                timeout: .milliseconds(bus.timeout)
            )
        }
    }

    /// The step emitted when none is named: one the root flow handles without showing or starting anything (the
    /// session stays as it is, however many are sent), else a declared step the root flow does not handle (dropped
    /// `unhandled` after the engine looked at every flow: flowd's whole decision, the session unchanged). A step
    /// that opens a screen would grow the session with every one sent: name it with --step to measure that.
    static func steadyStep(_ flows: FlowsReport) -> String? {
        let root = flows.flows.first { $0.name == flows.rootFlow }
        let opens = ["show ", "start ", "tabs "]
        if let steady = root?.handlers.first(where: { handler in
            !handler.actions.contains { action in opens.contains { action.hasPrefix($0) } }
        }) {
            return steady.step
        }
        let handled = Set(root?.handlers.map(\.step) ?? [])
        return flows.steps.first { !handled.contains($0.name) }?.name
    }
}

/// What the steppers of a bench measured.
struct BenchResult: Sendable {
    /// Microseconds from emitting to the fate.
    var latencies = LatencyHistogram()
    var accepted = 0
    var dropped: [String: Int] = [:]
    var failed = 0
    var failure: String?

    mutating func merge(_ other: BenchResult) {
        latencies.merge(other.latencies)
        accepted += other.accepted
        dropped.merge(other.dropped, uniquingKeysWith: +)
        failed += other.failed
        failure = failure ?? other.failure
    }
}

/// The bench's figures, as printed.
struct BenchReport: Encodable {
    struct Latency: Encodable {
        var p50: Int64
        var p90: Int64
        var p99: Int64
        var p999: Int64
        var max: Int64
    }

    var step: String
    var stepper: String
    var steppers: Int
    var steps: Int
    var seconds: Double
    var stepsPerSecond: Double
    /// Microseconds from emitting to the fate.
    var latencyMicroseconds: Latency?
    var accepted: Int
    var dropped: [String: Int]
    var failed: Int
    var failure: String?

    init(_ result: BenchResult, seconds: Double, steppers: Int, step: String, stepper: String) {
        self.step = step
        self.stepper = stepper
        self.steppers = steppers
        steps = result.latencies.count + result.failed
        self.seconds = seconds
        stepsPerSecond = Double(result.latencies.count) / max(seconds, 0.000_001)
        let latencies = result.latencies
        latencyMicroseconds =
            latencies.count == 0
            ? nil
            : Latency(
                p50: latencies.percentile(50),
                p90: latencies.percentile(90),
                p99: latencies.percentile(99),
                p999: latencies.percentile(99.9),
                max: latencies.max
            )
        accepted = result.accepted
        dropped = result.dropped
        failed = result.failed
        failure = result.failure
    }

    var lines: [String] {
        var lines = [
            "\(steps) steps of \(TerminalText.safe(step)) as \(TerminalText.safe(stepper)) from \(steppers) stepper\(steppers == 1 ? "" : "s") in \(String(format: "%.2f", seconds)) s: \(String(format: "%.0f", stepsPerSecond)) steps/s"
        ]
        if let latency = latencyMicroseconds {
            lines.append(
                "latency (emit to fate): p50 \(Self.time(latency.p50))  p90 \(Self.time(latency.p90))  p99 \(Self.time(latency.p99))  p99.9 \(Self.time(latency.p999))  max \(Self.time(latency.max))"
            )
        }
        let drops = dropped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        lines.append(
            "fates: \(accepted) accepted, \(dropped.values.reduce(0, +)) dropped\(drops.isEmpty ? "" : " (\(drops.joined(separator: ", ")))")"
        )
        if failed > 0 {
            lines.append("\(failed) got no fate: \(TerminalText.safe(failure ?? "?"))")
        }
        return lines
    }

    private static func time(_ microseconds: Int64) -> String {
        microseconds < 1000 ? "\(microseconds) µs" : String(format: "%.2f ms", Double(microseconds) / 1000)
    }
}
