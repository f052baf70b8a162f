import Foundation

/// The flow file of the end-to-end benchmarks: every `tick` is accepted by the root flow and produces one
/// command (the detail of a split is replaced, so the screen stays the same size), from any of 16 steppers.
enum BenchFlows {
    static let maxSteppers = 16

    static var yaml: String {
        let steppers = (1...maxSteppers).map { "{ named: s\($0) }" }.joined(separator: ", ")
        return """
            version: 1
            session:
              root: BenchFlow
              stepper: { composite: [\(steppers)] }
            steps:
              tick: { n: int, t: int }
            flows:
              BenchFlow:
                root: { split: bench }
                on:
                  tick:
                    - show: Item
                      as: detail
                      params: { n: $n, t: $t }

            """
    }

    /// Writes the file into `directory`; returns its path.
    static func write(into directory: String) throws -> String {
        let path = directory + "/bench-flows.yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
