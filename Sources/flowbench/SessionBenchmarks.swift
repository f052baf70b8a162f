import Foundation

/// What idle sessions cost, in flowd and in the engine alone: memory per session, how fast they are created, and a
/// step's latency among them (`flowbench sessions [--quick]` runs these rows alone).
enum SessionBenchmarks {
    /// flowd with 1, 1 000, 100 000 and 1 000 000 sessions (1 and 1 000 with `quick`).
    static func flowd(_ endToEnd: EndToEndBenchmarks, quick: Bool) throws -> [Result] {
        var results: [Result] = []
        for count in quick ? [1, 1_000] : [1, 1_000, 100_000, 1_000_000] {
            let (bytes, rate, latency) = try endToEnd.sessions(count: count, latencySteps: quick ? 500 : 2_000)
            if count >= 1_000 {
                results.append(
                    Result(
                        name: "flowd memory per session (\(count))",
                        value: bytes,
                        unit: "bytes",
                        detail: "resident set growth; goal ≤ 1024"
                    )
                )
            }
            results.append(
                Result(
                    name: "flowd session creation (\(count))",
                    value: rate,
                    unit: "sessions/s",
                    detail: "HELLO to WELCOME, 1000 in flight"
                )
            )
            results.append(
                Result(
                    name: "flowd latency p50 among \(count) sessions",
                    value: Double(latency["p50"] ?? 0) / 1000,
                    unit: "µs",
                    detail: "p99 \(Double(latency["p99"] ?? 0) / 1000) µs"
                )
            )
        }

        return results
    }

    /// The engine alone, in process, with as many sessions.
    static func engine(quick: Bool) throws -> [Result] {
        var results: [Result] = []
        for count in quick ? [1, 1_000] : [1, 1_000, 100_000, 1_000_000] {
            results += try EngineBenchmarks.sessions(count: count)
        }
        return results
    }
}
