import FlowBusTesting
import Foundation

/// What a fleet costs, and how fast it recovers: flowd on PostgreSQL (a server of the benchmark's own, as the tests
/// start it) against flowd on SQLite in the same run — throughput with 4 stepper processes over ipc with flowd's own
/// processor time per step, and one-in-flight latency — then the takeover: an instance with many sessions killed
/// (SIGKILL), and the time until another instance serves every one of them.
enum FleetBenchmarks {
    static func run(_ endToEnd: EndToEndBenchmarks, quick: Bool, sessions: Int) throws -> [Result] {
        guard PostgresServer.isAvailable else {
            throw BenchFailure(
                "the fleet's benchmark needs PostgreSQL: \(PostgresServer.unavailableReason ?? "") (scripts/bootstrap --bench installs it)"
            )
        }
        let server = try PostgresServer()
        return try cost(endToEnd, server: server, quick: quick)
            + [try takeover(endToEnd, server: server, sessions: sessions)]
    }

    /// PostgreSQL against SQLite, in alternating rounds (median of each).
    static func cost(_ endToEnd: EndToEndBenchmarks, server: PostgresServer, quick: Bool) throws -> [Result] {
        let rounds = quick ? 1 : 3
        let latencySteps = quick ? 1_000 : 4_000
        let loadSteps = quick ? 8_000 : 24_000
        var latency = (postgres: [[String: Int]](), sqlite: [[String: Int]]())
        var load = (postgres: [LoadFigures](), sqlite: [LoadFigures]())
        for round in 0..<rounds {
            let store = { (name: String) throws -> [String] in
                ["--store", try server.createDatabase("\(name)\(round)"), "--instance", "bench", "--lease", "5s"]
            }
            let postgres = try endToEnd.startFlowd("ipc", store: try store("latency"))
            latency.postgres.append(try endToEnd.flowdLatency("ipc", steps: latencySteps, flowd: postgres))
            postgres.0.stop()
            latency.sqlite.append(try endToEnd.flowdLatency("ipc", steps: latencySteps))
            load.postgres.append(try endToEnd.flowdLoad("ipc", steppers: 4, steps: loadSteps, store: try store("load")))
            load.sqlite.append(try endToEnd.flowdLoad("ipc", steppers: 4, steps: loadSteps))
        }
        let of = ", median of \(rounds) round\(rounds == 1 ? "" : "s")"
        let percentile = { (runs: [[String: Int]], key: String) in
            runs.map { Double($0[key] ?? 0) / 1000 }.median
        }
        let p50 = (postgres: percentile(latency.postgres, "p50"), sqlite: percentile(latency.sqlite, "p50"))
        let p99 = (postgres: percentile(latency.postgres, "p99"), sqlite: percentile(latency.sqlite, "p99"))
        let rate = (
            postgres: load.postgres.map(\.stepsPerSecond).median, sqlite: load.sqlite.map(\.stepsPerSecond).median
        )
        let work = (
            postgres: load.postgres.map(\.flowdMicrosecondsPerStep).median,
            sqlite: load.sqlite.map(\.flowdMicrosecondsPerStep).median
        )
        return [
            Result(
                name: "fleet steps/s ipc 4s, PostgreSQL",
                value: rate.postgres,
                unit: "steps/s",
                detail: "\(loadSteps) steps\(of); flowd \(String(format: "%.1f", work.postgres)) µs per step"
            ),
            Result(
                name: "fleet steps/s ipc 4s, SQLite",
                value: rate.sqlite,
                unit: "steps/s",
                detail: "\(loadSteps) steps\(of); flowd \(String(format: "%.1f", work.sqlite)) µs per step"
            ),
            Result(
                name: "PostgreSQL/SQLite throughput",
                value: rate.postgres / max(rate.sqlite, 0.001),
                unit: "×",
                detail: "the same run; a local server on a Unix socket"
            ),
            Result(
                name: "fleet latency p50 ipc, PostgreSQL",
                value: p50.postgres,
                unit: "µs",
                detail: "\(latencySteps) steps, one in flight\(of); p99 \(String(format: "%.0f", p99.postgres)) µs"
            ),
            Result(
                name: "fleet latency p50 ipc, SQLite",
                value: p50.sqlite,
                unit: "µs",
                detail: "\(latencySteps) steps, one in flight\(of); p99 \(String(format: "%.0f", p99.sqlite)) µs"
            ),
            Result(
                name: "PostgreSQL/SQLite latency p50",
                value: p50.postgres / max(p50.sqlite, 0.001),
                unit: "×",
                detail: "p99 \(String(format: "%.2f", p99.postgres / max(p99.sqlite, 0.001)))×"
            ),
        ]
    }

    /// `count` sessions on instance `a`, instance `b` beside it; `a` killed: the time until `b` owns every session
    /// (read from the database), against the lease (2 s), which is the part no instance can shorten.
    static func takeover(_ endToEnd: EndToEndBenchmarks, server: PostgresServer, sessions count: Int) throws -> Result {
        let database = "takeover"
        let url = try server.createDatabase(database)
        let fleet = ["--store", url, "--lease", "2s"]
        let (a, endpoints) = try endToEnd.startFlowd("ipc", store: fleet + ["--instance", "a"])
        let (b, _) = try endToEnd.startFlowd("ipc", store: fleet + ["--instance", "b"])
        defer { b.stop() }
        try EndToEndBenchmarks.createSessions(count, endpoints)
        let owned = { (name: String) -> Int in
            let found = try? server.psql(
                "SELECT count(*) FROM flowbus_sessions WHERE owner = '\(name)'",
                database: database
            )
            return Int(found?.output.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
        }
        guard owned("a") == count else { throw BenchFailure("instance a owns \(owned("a")) sessions, not \(count)") }
        kill(a.process.processIdentifier, SIGKILL)
        let killed = ContinuousClock.now
        a.process.waitUntilExit()
        let deadline = killed + .seconds(120)
        while owned("b") < count {
            guard ContinuousClock.now < deadline else {
                throw BenchFailure("instance b took over \(owned("b")) of \(count) sessions in 120 s")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let took = ContinuousClock.now - killed
        let milliseconds = Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15
        return Result(
            name: "fleet takeover (\(count) sessions)",
            value: milliseconds,
            unit: "ms",
            detail: "from kill -9 until another instance owns every session; the lease (2 s) is most of it"
        )
    }
}
