import Foundation

// flowbench: FlowBus's benchmark harness. Run it through scripts/bench (release build).
// Usage: flowbench [--quick] [--json FILE]

let arguments = CommandLine.arguments.dropFirst()
let quick = arguments.contains("--quick")
let jsonPath = arguments.firstIndex(of: "--json").flatMap {
    arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil
}

var results: [Result] = []
results.append(try EngineBenchmarks.throughput(steps: quick ? 20_000 : 200_000))
for count in quick ? [1, 1_000, 10_000] : [1, 1_000, 100_000] {
    results += try EngineBenchmarks.sessions(count: count)
}

let nameWidth = results.map(\.name.count).max() ?? 0
print("FlowBus benchmarks — \(ProcessInfo.processInfo.activeProcessorCount) cores\(quick ? " (quick)" : "")")
for result in results {
    let padded = result.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
    print("\(padded)  \(String(format: "%14.1f", result.value)) \(result.unit)  (\(result.detail))")
}

if let jsonPath {
    struct Report: Codable {
        let cores: Int
        let commit: String
        let date: String
        let quick: Bool
        let results: [Result]
    }
    let report = Report(
        cores: ProcessInfo.processInfo.activeProcessorCount,
        commit: ProcessInfo.processInfo.environment["FLOWBUS_COMMIT"] ?? "unknown",
        date: ISO8601DateFormatter().string(from: Date()),
        quick: quick,
        results: results
    )
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(report).write(to: URL(fileURLWithPath: jsonPath))
    print("results written to \(jsonPath)")
}
