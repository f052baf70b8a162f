/// What an inspector costs flowd, without and with a `flowctl watch --json` attached (which makes flowd publish
/// every inspection event, and decodes and prints them), and with `flowctl web` and a page on its feed looking at
/// one of the sessions (the same stream, a `tree` query per batch of that session's events, and the sessions
/// listed every second): the step latency with one step in flight (what a user
/// of the system would notice), and the throughput with 4 stepper processes over ipc, where every process
/// competes for the cores (the worst case: the watcher's own work is taken from flowd and its peers). Rounds
/// alternate the two, and the median of each is kept, so that a slow moment of the machine does not land on one
/// side only.
enum WatcherBenchmarks {
    static func cost(_ endToEnd: EndToEndBenchmarks, quick: Bool) throws -> [Result] {
        try latency(endToEnd, quick: quick) + throughput(endToEnd, quick: quick)
    }

    private static func latency(_ endToEnd: EndToEndBenchmarks, quick: Bool) throws -> [Result] {
        let steps = quick ? 1_000 : 4_000
        let rounds = quick ? 1 : 3
        var alone: [Double] = []
        var watched: [Double] = []
        var web: [Double] = []
        for _ in 0..<rounds {
            alone.append(Double(try endToEnd.flowdLatency("ipc", steps: steps)["p50"] ?? 0) / 1000)
            watched.append(Double(try endToEnd.flowdLatency("ipc", steps: steps, watching: .watch)["p50"] ?? 0) / 1000)
            web.append(Double(try endToEnd.flowdLatency("ipc", steps: steps, watching: .web)["p50"] ?? 0) / 1000)
        }
        let detail = "\(steps) steps, one in flight, median of \(rounds) round\(rounds == 1 ? "" : "s")"
        return [
            Result(name: "flowd latency p50 ipc, no watcher", value: alone.median, unit: "µs", detail: detail),
            Result(
                name: "flowd latency p50 ipc, flowctl watch",
                value: watched.median,
                unit: "µs",
                detail: detail + ", flowctl watch --json attached"
            ),
            Result(
                name: "watched/unwatched latency p50",
                value: watched.median / max(alone.median, 0.001),
                unit: "×",
                detail: "inspector cost at light load; goal ≤ 1.1"
            ),
            Result(
                name: "flowd latency p50 ipc, flowctl web",
                value: web.median,
                unit: "µs",
                detail: detail + ", flowctl web attached, its page looking at the session"
            ),
            Result(
                name: "web/watch latency p50",
                value: web.median / max(watched.median, 0.001),
                unit: "×",
                detail: "the web inspector against flowctl watch, at light load; goal ≤ 1"
            ),
        ]
    }

    private static func throughput(_ endToEnd: EndToEndBenchmarks, quick: Bool) throws -> [Result] {
        let steps = quick ? 12_000 : 24_000
        let rounds = quick ? 1 : 3
        var alone: [LoadFigures] = []
        var watched: [LoadFigures] = []
        var web: [LoadFigures] = []
        for _ in 0..<rounds {
            alone.append(try endToEnd.flowdLoad("ipc", steppers: 4, steps: steps))
            watched.append(try endToEnd.flowdLoad("ipc", steppers: 4, steps: steps, watching: .watch))
            web.append(try endToEnd.flowdLoad("ipc", steppers: 4, steps: steps, watching: .web))
        }
        let detail = "\(steps) steps, median of \(rounds) round\(rounds == 1 ? "" : "s")"
        let rate = (alone: alone.map(\.stepsPerSecond).median, watched: watched.map(\.stepsPerSecond).median)
        let work = (
            alone: alone.map(\.flowdMicrosecondsPerStep).median,
            watched: watched.map(\.flowdMicrosecondsPerStep).median
        )
        let watcherWork = watched.map { $0.watcherMicrosecondsPerStep ?? 0 }.median
        let webRate = web.map(\.stepsPerSecond).median
        let webWork = web.map(\.flowdMicrosecondsPerStep).median
        let webOwnWork = web.map { $0.watcherMicrosecondsPerStep ?? 0 }.median
        return [
            Result(name: "flowd steps/s ipc 4s, no watcher", value: rate.alone, unit: "steps/s", detail: detail),
            Result(
                name: "flowd steps/s ipc 4s, flowctl watch",
                value: rate.watched,
                unit: "steps/s",
                detail: detail + ", flowctl watch --json attached"
            ),
            Result(
                name: "watched/unwatched throughput",
                value: rate.watched / rate.alone,
                unit: "×",
                detail: "inspector cost, cores saturated; goal ≥ 0.9"
            ),
            Result(
                name: "flowd processor time per step, no watcher",
                value: work.alone,
                unit: "µs",
                detail: detail + ", flowd's threads, user and system"
            ),
            Result(
                name: "flowd processor time per step, flowctl watch",
                value: work.watched,
                unit: "µs",
                detail: detail + ", publishing every inspection event"
            ),
            Result(
                name: "watched/unwatched flowd work per step",
                value: work.watched / max(work.alone, 0.001),
                unit: "×",
                detail: "what watching adds to flowd's own work"
            ),
            Result(
                name: "flowctl watch processor time per step",
                value: watcherWork,
                unit: "µs",
                detail: detail + ", the watcher's threads, user and system"
            ),
            Result(
                name: "flowctl watch work/flowd work per step",
                value: watcherWork / max(work.alone, 0.001),
                unit: "×",
                detail: "the watcher's own cost, against flowd's per step unwatched"
            ),
            Result(
                name: "flowd steps/s ipc 4s, flowctl web",
                value: webRate,
                unit: "steps/s",
                detail: detail + ", flowctl web attached, its page looking at one of the sessions"
            ),
            Result(
                name: "flowd processor time per step, flowctl web",
                value: webWork,
                unit: "µs",
                detail: detail
                    + ", the same stream, a tree query per batch of the watched session, sessions listed each second"
            ),
            Result(
                name: "flowctl web processor time per step",
                value: webOwnWork,
                unit: "µs",
                detail: detail + ", flowctl web's threads (its page, a separate process, not counted)"
            ),
            Result(
                name: "web/watch flowd work per step",
                value: webWork / max(work.watched, 0.001),
                unit: "×",
                detail: "what the web inspector costs flowd against flowctl watch; goal ≤ 1.05"
            ),
        ]
    }
}
