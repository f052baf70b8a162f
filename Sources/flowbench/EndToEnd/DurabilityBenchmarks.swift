import Foundation

/// What keeping sessions costs: flowd with its journal (the default) against `--ephemeral`, in alternating rounds
/// (median of each): one-in-flight latency, and throughput with 4 stepper processes over ipc with flowd's own
/// processor time per step. Then the restore: flowd killed (SIGKILL: the journal is replayed) and stopped
/// (SIGTERM: every session was written whole) with many sessions, and started again.
enum DurabilityBenchmarks {
    static func cost(_ endToEnd: EndToEndBenchmarks, quick: Bool) throws -> [Result] {
        let rounds = quick ? 1 : 3
        let latencySteps = quick ? 1_000 : 4_000
        let loadSteps = quick ? 12_000 : 24_000
        var latency = (journal: [Double](), ephemeral: [Double]())
        var load = (journal: [LoadFigures](), ephemeral: [LoadFigures]())
        for _ in 0..<rounds {
            latency.journal.append(p50(try endToEnd.flowdLatency("ipc", steps: latencySteps)))
            latency.ephemeral.append(p50(try endToEnd.flowdLatency("ipc", steps: latencySteps, ephemeral: true)))
            load.journal.append(try endToEnd.flowdLoad("ipc", steppers: 4, steps: loadSteps))
            load.ephemeral.append(try endToEnd.flowdLoad("ipc", steppers: 4, steps: loadSteps, ephemeral: true))
        }
        let of = " median of \(rounds) round\(rounds == 1 ? "" : "s")"
        let rate = (
            journal: load.journal.map(\.stepsPerSecond).median, ephemeral: load.ephemeral.map(\.stepsPerSecond).median
        )
        let work = (
            journal: load.journal.map(\.flowdMicrosecondsPerStep).median,
            ephemeral: load.ephemeral.map(\.flowdMicrosecondsPerStep).median
        )
        let p50 = (journal: latency.journal.median, ephemeral: latency.ephemeral.median)
        return [
            Result(
                name: "flowd latency p50 ipc, journal",
                value: p50.journal,
                unit: "µs",
                detail: "\(latencySteps) steps, one in flight,\(of), durability os"
            ),
            Result(
                name: "flowd latency p50 ipc, ephemeral",
                value: p50.ephemeral,
                unit: "µs",
                detail: "\(latencySteps) steps, one in flight,\(of), --ephemeral"
            ),
            Result(
                name: "journal/ephemeral latency p50",
                value: p50.journal / max(p50.ephemeral, 0.001),
                unit: "×",
                detail: "goal ≤ 1.2"
            ),
            Result(
                name: "flowd steps/s ipc 4s, journal",
                value: rate.journal,
                unit: "steps/s",
                detail: "\(loadSteps) steps,\(of)"
            ),
            Result(
                name: "flowd steps/s ipc 4s, ephemeral",
                value: rate.ephemeral,
                unit: "steps/s",
                detail: "\(loadSteps) steps,\(of)"
            ),
            Result(
                name: "journal/ephemeral throughput",
                value: rate.journal / max(rate.ephemeral, 0.001),
                unit: "×",
                detail: "goal ≥ 0.8"
            ),
            Result(
                name: "flowd processor time per step, journal",
                value: work.journal,
                unit: "µs",
                detail:
                    "against \(String(format: "%.1f", work.ephemeral)) µs ephemeral: \(String(format: "%.2f", work.journal / max(work.ephemeral, 0.001)))×"
            ),
        ]
    }

    /// `count` sessions created in a durable flowd, then flowd killed and started again (the journal replayed), then
    /// stopped and started again (snapshots read): restore times as flowd logs them, the state's size, and both
    /// scaled to 1 000 000 sessions (linear: each session is one snapshot or one journal entry).
    static func restore(_ endToEnd: EndToEndBenchmarks, sessions count: Int) throws -> [Result] {
        let run = endToEnd.directory + "/restore-\(UUID().uuidString.prefix(8))"
        let endpoints = BenchEndpoints.make("ipc", directory: run)
        let state = run + "/state"
        let arguments =
            [
                "--flows", endToEnd.flows, "--control", endpoints.control, "--events", endpoints.events, "--state-dir",
                state,
            ] + EndToEndBenchmarks.capacityLimits
        // Quiet while it creates sessions (a line per HELLO would fill the pipe nobody reads); the restarts log their
        // restore at info, and nothing else.
        let first = try RoleProcess("flowd", arguments + ["--log-level", "error"], quiet: true)
        try endToEnd.waitForFlowd(endpoints)
        try EndToEndBenchmarks.createSessions(count, endpoints)
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let journalBytes = directoryBytes(state)

        let replaying = try RoleProcess("flowd", arguments, readErrors: true)
        let replayedLine = try replaying.expect(containing: "restored ")
        let replayed = try milliseconds(in: replayedLine)
        try replaying.expect(containing: " ready: ")
        // A graceful stop writes every session whole: it may take a while, and is waited for.
        kill(replaying.process.processIdentifier, SIGTERM)
        replaying.process.waitUntilExit()
        let snapshotBytes = directoryBytes(state)

        let reading = try RoleProcess("flowd", arguments, readErrors: true)
        let readLine = try reading.expect(containing: "restored ")
        let read = try milliseconds(in: readLine)
        // What the graceful stop left: "(S snapshots, E journal entries)".
        let kept = readLine.range(of: "(").map { String(readLine[$0.upperBound...].prefix { $0 != ")" }) } ?? "?"
        try reading.expect(containing: " ready: ")
        reading.stop()
        let scale = 1_000_000 / Double(count)
        let sessions = "\(count) sessions"
        return [
            Result(
                name: "flowd restore, journal (\(count))",
                value: replayed,
                unit: "ms",
                detail: "\(sessions) replayed after kill -9; goal for 100 000: < 2000 ms"
            ),
            Result(
                name: "flowd restore, stopped (\(count))",
                value: read,
                unit: "ms",
                detail: "\(sessions) after a graceful stop: \(kept)"
            ),
            Result(
                name: "flowd state size, journal (\(count))",
                value: Double(journalBytes) / 1_048_576,
                unit: "MiB",
                detail:
                    "\(Double(journalBytes) / Double(count)) bytes per session (the ahead log's two files of 8 MiB aside)"
            ),
            Result(
                name: "flowd state size, stopped (\(count))",
                value: Double(snapshotBytes) / 1_048_576,
                unit: "MiB",
                detail: "\(Double(snapshotBytes) / Double(count)) bytes per session"
            ),
            Result(
                name: "flowd restore estimate (1 000 000)",
                value: max(replayed, read) * scale,
                unit: "ms",
                detail:
                    "linear from \(count); state \(String(format: "%.0f", Double(max(journalBytes, snapshotBytes)) * scale / 1_048_576)) MiB"
            ),
        ]
    }

    /// The `in N ms` of flowd's restore line.
    private static func milliseconds(in line: String) throws -> Double {
        guard let range = line.range(of: " in "), let value = Double(line[range.upperBound...].prefix { $0.isNumber })
        else { throw BenchFailure("no time in '\(line)'") }
        return value
    }

    /// The bytes of the files in a directory.
    /// What the sessions take in the state directory: the store's files, not the ahead log's (a fixed size, whatever
    /// the sessions).
    private static func directoryBytes(_ path: String) -> Int {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return files.filter { !$0.hasPrefix("flowd.ahead-") }.reduce(0) { total, file in
            let size = (try? FileManager.default.attributesOfItem(atPath: path + "/" + file)[.size] as? NSNumber)
            return total + (size?.intValue ?? 0)
        }
    }

    private static func p50(_ percentiles: [String: Int]) -> Double {
        Double(percentiles["p50"] ?? 0) / 1000
    }
}
