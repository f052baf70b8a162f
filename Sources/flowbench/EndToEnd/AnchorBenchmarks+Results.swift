import Foundation

extension AnchorBenchmarks {
    /// The rows of the table: each server's rate and processor time per message, and flowd's ratios to the others
    /// with their goals; and the raw relay's rate by transport, the anchor of the Swift clients' rows.
    func results() throws -> (rows: [Result], rawRelayRate: [String: Double]) {
        var results: [Result] = []
        var rawRelayRate: [String: Double] = [:]
        let steps = quick ? 20_000 : 100_000
        let rounds = quick ? 1 : 3
        let python = Self.python != nil
        if !python {
            let missing =
                "(the Python coordinator: no python3 with pyzmq; scripts/bootstrap --bench installs python3-zmq)\n"
            FileHandle.standardOutput.write(Data(missing.utf8))
        }
        for transport in quick ? ["ipc"] : ["ipc", "tcp"] {
            let detail = "\(steps) steps, 1 lean stepper process" + (rounds > 1 ? ", median of \(rounds) rounds" : "")
            let servers: [Kind] =
                [.rawRelay, .acknowledgingRelay, .flowd(ephemeral: false), .flowd(ephemeral: true)]
                + (python ? [.python] : [])
            let measured = try inTurn(servers, rounds: rounds) { kind in
                try throughput(kind, transport, steppers: 1, steps: steps)
            }.map(Figures.median)
            let (raw, acknowledging, flowd, ephemeral) = (measured[0], measured[1], measured[2], measured[3])
            rawRelayRate[transport] = raw.rate
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
            if python {
                row("Python coordinator steps/s", measured[4], "steps/s")
                ratio("flowd/Python coordinator", flowd.rate / measured[4].rate, "goal ≥ 10 (pyzmq, json)")
            }

            let latencySteps = quick ? 2_000 : 10_000
            let latencyDetail =
                "\(latencySteps) steps, one in flight" + (rounds > 1 ? ", median of \(rounds) rounds" : "")
            // The journal's share of a lone step shows against flowd without it (no goal of its own); the Python
            // coordinator's tail is what a user would write instead.
            let percentiles = try inTurn(
                [.flowd(ephemeral: false), .acknowledgingRelay, .flowd(ephemeral: true)] + (python ? [.python] : []),
                rounds: rounds
            ) { kind in
                try latency(kind, transport, steps: latencySteps)
            }
            func microseconds(_ server: Int, _ percentile: String) -> Double {
                percentiles[server].map { Double($0[percentile] ?? 0) / 1000 }.median
            }
            for (percentile, goal) in [("p50", "goal ≤ 1.3"), ("p99", "goal ≤ 2"), ("p999", "goal ≤ 2")] {
                let (ours, relay, ephemeral) = (
                    microseconds(0, percentile), microseconds(1, percentile), microseconds(2, percentile)
                )
                results.append(
                    Result(
                        name: "flowd latency \(percentile) \(transport), lean client",
                        value: ours,
                        unit: "µs",
                        detail: "\(latencyDetail); the relay \(relay) µs, flowd ephemeral \(ephemeral) µs"
                    )
                )
                ratio("flowd/relay latency \(percentile), lean client", ours / max(relay, 0.001), goal)
            }
            if python {
                let (ours, theirs) = (microseconds(0, "p99"), microseconds(3, "p99"))
                results.append(
                    Result(
                        name: "Python coordinator latency p99 \(transport)",
                        value: theirs,
                        unit: "µs",
                        detail: "\(latencyDetail), the same lean clients"
                    )
                )
                ratio("flowd/Python coordinator latency p99", ours / max(theirs, 0.001), "goal ≤ 1 (pyzmq, json)")
            }
        }
        return (results, rawRelayRate)
    }

    /// Each of `servers` measured `rounds` times, taking turns (a drift of the machine touches every server alike):
    /// per server, its rounds' figures.
    private func inTurn<Figure>(
        _ servers: [Kind],
        rounds: Int,
        _ measure: (Kind) throws -> Figure
    ) rethrows -> [[Figure]] {
        var figures = Array(repeating: [Figure](), count: servers.count)
        for _ in 0..<rounds {
            for (index, server) in servers.enumerated() {
                figures[index].append(try measure(server))
            }
        }
        return figures
    }
}

extension AnchorBenchmarks.Figures {
    /// The median of each figure over rounds.
    static func median(_ rounds: [Self]) -> Self {
        Self(rate: rounds.map(\.rate).median, serverMicroseconds: rounds.map(\.serverMicroseconds).median)
    }
}
