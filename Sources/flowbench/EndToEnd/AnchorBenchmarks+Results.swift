import Foundation

extension AnchorBenchmarks {
    /// The rows of the table: each server's rate and processor time per message, and flowd's ratios to the others
    /// with their goals; and the raw relay's rate by transport, the anchor of the Swift clients' rows.
    func results() throws -> (rows: [Result], rawRelayRate: [String: Double]) {
        var results: [Result] = []
        var rawRelayRate: [String: Double] = [:]
        let steps = quick ? 20_000 : 100_000
        for transport in quick ? ["ipc"] : ["ipc", "tcp"] {
            let detail = "\(steps) steps, 1 lean stepper process"
            let raw = try throughput(.rawRelay, transport, steppers: 1, steps: steps)
            rawRelayRate[transport] = raw.rate
            let acknowledging = try throughput(.acknowledgingRelay, transport, steppers: 1, steps: steps)
            let flowd = try throughput(.flowd(ephemeral: false), transport, steppers: 1, steps: steps)
            let ephemeral = try throughput(.flowd(ephemeral: true), transport, steppers: 1, steps: steps)
            func row(_ name: String, _ figures: Figures, _ unit: String) {
                results.append(
                    Result(
                        name: "\(name) \(transport)",
                        value: figures.rate,
                        unit: unit,
                        detail:
                            "\(detail); \(String(format: "%.1f", figures.serverMicroseconds)) µs processor time each"
                    )
                )
            }
            func ratio(_ name: String, _ value: Double, _ goal: String) {
                results.append(Result(name: "\(name) \(transport)", value: value, unit: "×", detail: goal))
            }
            row("C raw relay msgs/s", raw, "msgs/s")
            row("C acknowledging relay msgs/s", acknowledging, "msgs/s")
            row("flowd steps/s, lean client", flowd, "steps/s")
            row("flowd steps/s, lean client, ephemeral", ephemeral, "steps/s")
            results.append(
                Result(
                    name: "flowd processor time per step \(transport)",
                    value: flowd.serverMicroseconds,
                    unit: "µs",
                    detail:
                        "goal ≤ 10; the acknowledging relay \(String(format: "%.1f", acknowledging.serverMicroseconds)) µs"
                )
            )
            ratio("flowd/acknowledging relay", flowd.rate / acknowledging.rate, "goal ≥ 0.5")
            ratio("flowd/raw relay", flowd.rate / raw.rate, "goal ≥ 0.25")
            ratio("flowd durable/ephemeral, lean client", flowd.rate / ephemeral.rate, "goal ≥ 0.8")
            if Self.python != nil {
                let python = try throughput(.python, transport, steppers: 1, steps: steps)
                row("Python coordinator steps/s", python, "steps/s")
                ratio("flowd/Python coordinator", flowd.rate / python.rate, "goal ≥ 10 (pyzmq, json)")
            } else {
                let missing =
                    "(the Python coordinator: no python3 with pyzmq; scripts/bootstrap --bench installs python3-zmq)\n"
                FileHandle.standardOutput.write(Data(missing.utf8))
            }

            let latencySteps = quick ? 2_000 : 10_000
            let ours = try latency(.flowd(ephemeral: false), transport, steps: latencySteps)
            let theirs = try latency(.acknowledgingRelay, transport, steps: latencySteps)
            for (percentile, goal) in [("p50", "goal ≤ 1.3"), ("p99", "goal ≤ 2")] {
                let flowdMicroseconds = Double(ours[percentile] ?? 0) / 1000
                let relayMicroseconds = Double(theirs[percentile] ?? 0) / 1000
                results.append(
                    Result(
                        name: "flowd latency \(percentile) \(transport), lean client",
                        value: flowdMicroseconds,
                        unit: "µs",
                        detail: "\(latencySteps) steps, one in flight; the relay \(relayMicroseconds) µs"
                    )
                )
                ratio(
                    "flowd/relay latency \(percentile), lean client",
                    flowdMicroseconds / max(relayMicroseconds, 0.001),
                    goal
                )
            }
        }
        return (results, rawRelayRate)
    }
}
