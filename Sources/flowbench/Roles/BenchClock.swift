import Foundation

/// A clock every process of the machine shares (CLOCK_MONOTONIC), in nanoseconds: a stepper stamps a step with
/// it, a presenter in another process reads the stamp when the command arrives.
enum BenchClock {
    static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }
}

/// The processor time this process used so far (user and system, every thread), in microseconds: a role says how
/// much it used in its `done` line (`cpu=`), as it ends before the harness could read it from /proc.
enum ProcessorTime {
    static func microseconds() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Int(usage.ru_utime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec)
        let system = Int(usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_stime.tv_usec)
        return user + system
    }
}

/// The roles' line protocol with the harness: a role prints `ready` once set up, waits for `go` on its standard
/// input, prints `done ...` when finished.
enum RoleLines {
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Blocks until the harness says go.
    static func awaitGo() {
        while let line = readLine() {
            if line == "go" { return }
        }
        exit(0)
    }
}

/// Percentiles of latency samples (nanoseconds), as the `done` line carries them.
struct LatencySummary {
    let samples: [Int]

    var line: String {
        let sorted = samples.sorted()
        func at(_ fraction: Double) -> Int {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
        }
        return "p50=\(at(0.5)) p99=\(at(0.99)) p999=\(at(0.999)) n=\(sorted.count)"
    }
}
