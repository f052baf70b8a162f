/// What an inspector costs flowd: throughput with 4 stepper processes over ipc, without and with a
/// `flowctl watch --json` attached (which makes flowd publish every inspection event, and decodes and prints
/// them on the same cores). Rounds alternate the two, and the median of each is kept, so that a slow moment of
/// the machine does not land on one side only.
enum WatcherBenchmarks {
    static func cost(_ endToEnd: EndToEndBenchmarks, quick: Bool) throws -> [Result] {
        let steps = quick ? 4_000 : 24_000
        let rounds = quick ? 1 : 3
        var alone: [Double] = []
        var watched: [Double] = []
        for _ in 0..<rounds {
            alone.append(try endToEnd.flowdThroughput("ipc", steppers: 4, steps: steps))
            watched.append(try endToEnd.flowdThroughput("ipc", steppers: 4, steps: steps, watching: true))
        }
        let detail = "\(steps) steps, median of \(rounds) round\(rounds == 1 ? "" : "s")"
        return [
            Result(name: "flowd steps/s ipc 4s, no watcher", value: median(alone), unit: "steps/s", detail: detail),
            Result(
                name: "flowd steps/s ipc 4s, flowctl watch",
                value: median(watched),
                unit: "steps/s",
                detail: detail + ", flowctl watch --json attached"
            ),
            Result(
                name: "watched/unwatched throughput",
                value: median(watched) / median(alone),
                unit: "×",
                detail: "inspector cost; goal ≥ 0.9"
            ),
        ]
    }

    private static func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }
}
