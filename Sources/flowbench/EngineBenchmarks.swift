import FlowCore
import Foundation

/// A flow like the demo's lists: each step pushes a screen contributed with its own stepper; `back` pops.
struct BenchmarkFlow: RestorableFlow {
    init(parameters: JSONObject) {}
    init() {}

    var root: FlowRoot { .stack("list") }

    func navigate(to step: Step, with navigator: inout Navigator) -> FlowContributors {
        if step.name == "back" {
            navigator.pop()
            return .none
        }
        let screen = navigator.makeScreen("Detail", step.parameters)
        navigator.push(screen)
        return .one(.contribute(screen))
    }
}

/// Measures the engine alone, in process: no sockets, no encoding.
enum EngineBenchmarks {
    /// Steps per second through one session, each step accepted and producing one command.
    static func throughput(steps: Int) throws -> Result {
        let clock = ContinuousClock()
        var commands = 0
        let elapsed = try clock.measure {
            commands = try runSteps(steps)
        }
        precondition(commands == steps, "every step should produce one batch")
        return Result(
            name: "engine steps/s (in process)",
            value: Double(steps) / elapsed.seconds,
            unit: "steps/s",
            detail: "\(steps) steps, one command each"
        )
    }

    /// Runs `count` steps through one session of ``BenchmarkFlow`` (a push, then a pop, in turn), each one's effects
    /// given back once read, as flowd does; returns how many command batches they produced. `flowbench
    /// engine-steps` runs it alone for valgrind.
    @discardableResult
    static func runSteps(_ count: Int) throws -> Int {
        var engine = try benchEngine()
        let push = Step("picked", ["withId": 1])
        let back = Step("back")
        var commands = 0
        for index in 0..<count {
            commands += step(&engine, index.isMultiple(of: 2) ? push : back)
        }
        return commands
    }

    /// One step through the bench session; its effects are read (the batches counted) and given back.
    static func step(_ engine: inout FlowEngine, _ step: Step) -> Int {
        let effects = engine.receive(step, from: .stepper("bench"), session: "bench").effects
        let batches = effects.batches.count
        engine.recycle(effects)
        return batches
    }

    /// An engine with session `bench` of ``BenchmarkFlow`` started, its steps taken from stepper `bench`; it
    /// records fates only, as flowd's engine does while no inspector watches.
    static func benchEngine() throws -> FlowEngine {
        var engine = FlowEngine()
        // As flowd runs it while nobody watches: fates recorded, not every inspection event.
        engine.recordsInspectionEvents = false
        _ = try engine.startSession(
            "bench",
            root: BenchmarkFlow(),
            stepper: .composite([.one(.home), .named("bench")])
        )
        return engine
    }

    /// Starts `count` idle sessions (`session-0`, `session-1`…) of ``BenchmarkFlow`` in `engine`. `flowbench
    /// engine-sessions` runs it alone for valgrind.
    static func startIdleSessions(_ count: Int, in engine: inout FlowEngine) throws {
        // One stepper for all, as flowd's sessions share their flow file's: the sessions' memory is measured, not
        // the caller's.
        let stepper = Stepper.composite([.one(.home), .named("bench")])
        for index in 0..<count {
            _ = try engine.startSession(SessionID("session-\(index)"), root: BenchmarkFlow(), stepper: stepper)
        }
    }

    /// Starts `count` idle sessions in an engine of their own (see ``startIdleSessions(_:in:)``).
    static func startIdleSessions(_ count: Int) throws {
        var engine = FlowEngine()
        try startIdleSessions(count, in: &engine)
        precondition(engine.sessionCount == count)
    }

    /// Memory per idle session and the time to create them.
    static func sessions(count: Int) throws -> [Result] {
        var engine = FlowEngine()
        let before = residentBytes()
        let clock = ContinuousClock()
        let created = try clock.measure {
            try startIdleSessions(count, in: &engine)
        }
        let after = residentBytes()
        precondition(engine.sessionCount == count)
        // One step in the middle of all these sessions, to see that latency does not grow with their number.
        let middle = SessionID("session-\(count / 2)")
        var stepTimes: [Duration] = []
        for index in 0..<1000 {
            let step = index.isMultiple(of: 2) ? Step("picked", ["withId": 1]) : Step("back")
            let start = clock.now
            _ = engine.receive(step, from: .stepper("bench"), session: middle)
            stepTimes.append(clock.now - start)
        }
        stepTimes.sort()
        let memory =
            count < 1000
            ? []
            : [
                Result(
                    name: "memory per idle session",
                    value: Double(after - before) / Double(count),
                    unit: "bytes",
                    detail: "\(count) sessions, resident set growth; goal ≤ 1024"
                )
            ]
        return memory + [
            Result(
                name: "session creation",
                value: Double(count) / created.seconds,
                unit: "sessions/s",
                detail: "\(count) sessions in \(String(format: "%.2f", created.seconds)) s"
            ),
            Result(
                name: "step latency p50 among \(count) sessions",
                value: stepTimes[stepTimes.count / 2].seconds * 1_000_000,
                unit: "µs",
                detail: "p99 \(String(format: "%.1f", stepTimes[stepTimes.count * 99 / 100].seconds * 1_000_000)) µs"
            ),
        ]
    }

    /// The process's resident set size, from /proc.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
            return 0
        }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
