import FlowCore
import Foundation

/// Heap allocations per engine step, counted by valgrind (memcheck's "total heap usage"): two runs of the engine
/// with different step counts (`flowbench engine-steps N`, ``EngineBenchmarks/runSteps(_:)``), so the process's
/// start and end cancel out.
enum AllocationBenchmarks {
    /// Allocations and bytes allocated per step, or `nil` when valgrind is not installed.
    static func perStep(quick: Bool) throws -> [Result]? {
        guard let valgrind = try Valgrind() else { return nil }
        defer { valgrind.cleanUp() }
        let (small, large) = quick ? (500, 1_500) : (1_000, 11_000)
        let (allocationsSmall, bytesSmall) = try heapUsage(valgrind, steps: small)
        let (allocationsLarge, bytesLarge) = try heapUsage(valgrind, steps: large)
        let steps = Double(large - small)
        return [
            Result(
                name: "engine allocations per step",
                value: Double(allocationsLarge - allocationsSmall) / steps,
                unit: "allocs",
                detail: "valgrind memcheck, \(small) and \(large) steps"
            ),
            Result(
                name: "engine bytes allocated per step",
                value: Double(bytesLarge - bytesSmall) / steps,
                unit: "bytes",
                detail: "valgrind memcheck, \(small) and \(large) steps"
            ),
        ]
    }

    /// memcheck's "total heap usage: A allocs, F frees, B bytes allocated" for `steps` engine steps.
    private static func heapUsage(_ valgrind: Valgrind, steps: Int) throws -> (allocations: Int, bytes: Int) {
        let text = try valgrind.run(["--tool=memcheck", "--leak-check=no"], ["engine-steps", "\(steps)"])
        guard let line = text.split(separator: "\n").first(where: { $0.contains("total heap usage:") }) else {
            throw BenchFailure("valgrind printed no heap usage")
        }
        // "total heap usage: 1,234 allocs, 1,200 frees, 56,789 bytes allocated": the numbers, in that order.
        let usage = line.components(separatedBy: "total heap usage:").last ?? ""
        let values = usage.components(separatedBy: " ").compactMap { Int($0.replacingOccurrences(of: ",", with: "")) }
        guard values.count >= 3 else { throw BenchFailure("cannot read valgrind's heap usage: \(line)") }
        return (values[0], values[2])
    }
}
