import Foundation

/// What a flood costs the others: one-in-flight latency of a stepper with flowd quiet, then with a flooder process
/// sending 64 KiB bodies of the most expensive shape as fast as it can, against flowd with its default limits
/// (the byte budget refuses the flood unread); and flowd's resident memory before, during and after.
enum FloodBenchmarks {
    static func cost(_ endToEnd: EndToEndBenchmarks, quick: Bool) throws -> [Result] {
        let steps = quick ? 1_000 : 4_000
        let flowd = try endToEnd.startFlowd("ipc", defaultLimits: true)
        defer { flowd.0.stop() }
        let before = flowd.0.residentBytes
        let quiet = try endToEnd.flowdLatency("ipc", steps: steps, flowd: flowd)
        let flooder = try RoleProcess("flowbench", ["flooder", flowd.1.control])
        try flooder.expect("ready")
        let flooded = try endToEnd.flowdLatency("ipc", steps: steps, flowd: flowd)
        let peak = flowd.0.residentBytes
        flooder.send("stop")
        let sent = Int(try flooder.expect("done").split(separator: " ").last ?? "") ?? 0
        // flowd gives free memory back every 10 s.
        Thread.sleep(forTimeInterval: 11)
        let after = flowd.0.residentBytes
        let p50 = (quiet: Double(quiet["p50"] ?? 0) / 1000, flooded: Double(flooded["p50"] ?? 0) / 1000)
        let mebibytes = { (bytes: Int) in Double(bytes) / Double(1 << 20) }
        return [
            Result(
                name: "flowd latency p50 ipc, quiet",
                value: p50.quiet,
                unit: "µs",
                detail: "\(steps) steps, one in flight"
            ),
            Result(
                name: "flowd latency p50 ipc, flooded",
                value: p50.flooded,
                unit: "µs",
                detail: "the same, while a flooder sent \(sent) bodies of 64 KiB (default limits: 2 MiB/s a peer)"
            ),
            Result(
                name: "flooded/quiet latency p50",
                value: p50.flooded / max(p50.quiet, 1),
                unit: "×",
                detail: "goal ≤ 2"
            ),
            Result(
                name: "flowd resident memory, flood",
                value: mebibytes(peak),
                unit: "MiB",
                detail: String(
                    format: "%.0f MiB before, %.0f MiB 11 s after the flood",
                    mebibytes(before),
                    mebibytes(after)
                )
            ),
        ]
    }
}
