import FlowBusTesting
import Foundation

/// The same load through flowd over WebSocket and over ZeroMQ (tcp), in one run, against one flowd, with clients as
/// lean on both sides (`flowbench-anchor`'s C stepper and presenter: pre-encoded messages, no client library):
/// steps per second (256 in flight) and one-in-flight latency from the stepper's stamp to the presenter; and flowd's
/// memory per idle WebSocket peer. Goals (the browser issue): WebSocket ≥ 0.5× ZeroMQ's throughput, p50 ≤ 1.5×.
struct WebSocketBenchmarks {
    let endToEnd: EndToEndBenchmarks
    let quick: Bool

    func results() throws -> [Result] {
        let port = freeLoopbackPort()
        // A long heartbeat timeout: the lean clients answer pings only while they read.
        let (flowd, endpoints) = try endToEnd.startFlowd(
            "tcp",
            extra: ["--websocket", "127.0.0.1:\(port)", "--heartbeat-timeout", "60000"]
        )
        defer { flowd.stop() }
        let steps = quick ? 4_000 : 40_000
        let rounds = quick ? 1 : 3
        var names = (1...BenchFlows.maxSteppers).map { "s\($0)" }.makeIterator()
        func next() throws -> String {
            guard let name = names.next() else { throw BenchFailure("more rounds than the bench flows' steppers") }
            return name
        }
        var zeroMQRates: [Double] = []
        var webSocketRates: [Double] = []
        var zeroMQLatency: [[String: Int]] = []
        var webSocketLatency: [[String: Int]] = []
        for _ in 1...rounds {
            let zeroMQName = try next()
            zeroMQRates.append(
                try run(
                    presenter: ["presenter", endpoints.events, "\(steps)", endpoints.control],
                    stepper: ["stepper", endpoints.control, zeroMQName, "\(steps)", "256", "hello"]
                ).rate
            )
            webSocketRates.append(
                try run(
                    presenter: ["wspresenter", "\(port)", "\(steps)"],
                    stepper: ["wsstepper", "\(port)", try next(), "\(steps)", "256"]
                ).rate
            )
        }
        let latencySteps = quick ? 1_000 : 5_000
        for _ in 1...rounds {
            zeroMQLatency.append(
                try run(
                    presenter: ["presenter", endpoints.events, "\(latencySteps)", endpoints.control],
                    stepper: ["stepper", endpoints.control, try next(), "\(latencySteps)", "1", "hello"]
                ).percentiles
            )
            webSocketLatency.append(
                try run(
                    presenter: ["wspresenter", "\(port)", "\(latencySteps)"],
                    stepper: ["wsstepper", "\(port)", try next(), "\(latencySteps)", "1"]
                ).percentiles
            )
        }
        let zeroMQ = median(zeroMQRates)
        let webSocket = median(webSocketRates)
        let p50 = { (runs: [[String: Int]]) in median(runs.map { Double($0["p50"] ?? 0) / 1000 }) }
        let p99 = { (runs: [[String: Int]]) in median(runs.map { Double($0["p99"] ?? 0) / 1000 }) }
        let detail =
            "\(steps) steps, one lean C stepper (256 in flight) and presenter, durable flowd, median of \(rounds)"
        var results = [
            Result(name: "flowd steps/s over ZeroMQ tcp", value: zeroMQ, unit: "steps/s", detail: detail),
            Result(name: "flowd steps/s over WebSocket", value: webSocket, unit: "steps/s", detail: detail),
            Result(
                name: "WebSocket/ZeroMQ throughput",
                value: webSocket / zeroMQ,
                unit: "×",
                detail: "goal ≥ 0.5 (measured side by side in this run)"
            ),
            Result(
                name: "one in flight p50 over ZeroMQ tcp",
                value: p50(zeroMQLatency),
                unit: "µs",
                detail: "p99 \(String(format: "%.0f", p99(zeroMQLatency))) µs, stepper stamp to presenter"
            ),
            Result(
                name: "one in flight p50 over WebSocket",
                value: p50(webSocketLatency),
                unit: "µs",
                detail: "p99 \(String(format: "%.0f", p99(webSocketLatency))) µs, stepper stamp to presenter"
            ),
            Result(
                name: "WebSocket/ZeroMQ p50",
                value: p50(webSocketLatency) / p50(zeroMQLatency),
                unit: "×",
                detail: "goal ≤ 1.5 (measured side by side in this run)"
            ),
        ]
        results.append(try idleMemory())
        return results
    }

    /// Runs a lean presenter and a lean stepper through the load; the rate from `go` to the presenter's last
    /// message, and the presenter's latency percentiles.
    private func run(presenter: [String], stepper: [String]) throws -> (rate: Double, percentiles: [String: Int]) {
        let receiver = try RoleProcess("flowbench-anchor", presenter)
        defer { receiver.stop() }
        try receiver.expect("ready")
        let sender = try RoleProcess("flowbench-anchor", stepper)
        defer { sender.stop() }
        try sender.expect("ready")
        let steps = Double(Int(stepper[3]) ?? 1)
        let started = ContinuousClock.now
        sender.send("go")
        try sender.expect("done")
        let line = try receiver.expect("done")
        let elapsed = ContinuousClock.now - started
        return (steps / elapsed.seconds, try EndToEndBenchmarks.percentiles(line))
    }

    /// flowd's resident memory per idle WebSocket peer: registered inspectors, each its own connection.
    private func idleMemory() throws -> Result {
        let port = freeLoopbackPort()
        let (flowd, _) = try endToEnd.startFlowd(
            "tcp",
            ephemeral: true,
            extra: ["--websocket", "127.0.0.1:\(port)", "--heartbeat-timeout", "60000"]
        )
        defer { flowd.stop() }
        let count = quick ? 200 : 1_000
        let before = flowd.residentBytes
        let peers = try RoleProcess("flowbench-anchor", ["wsidle", "\(port)", "\(count)"])
        defer { peers.stop() }
        try peers.expect("ready")
        let after = flowd.residentBytes
        return Result(
            name: "flowd memory per idle WebSocket peer",
            value: Double(after - before) / Double(count) / 1024,
            unit: "KiB",
            detail:
                "\(count) registered inspectors, each its own connection; resident \(before >> 20) → \(after >> 20) MiB"
        )
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
