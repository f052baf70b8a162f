import FlowCore
import FlowSpec
import Foundation

extension Exploration {
    /// Journeys that, together, run every handler the exploration reached: the longest paths first, each kept only
    /// when it runs a handler the ones before do not (model-based test generation). Each journey's expectations
    /// are what its moves do now: each step's fate, the visible screens and the running flows.
    /// - Parameters:
    ///   - directory: where the journeys will be written (their `flows:` is the flow file relative to it).
    public func journeys(
        of specification: FlowSpecification,
        in directory: String
    ) throws(FlowCoreError) -> [(name: String, journey: Journey)] {
        var covered: Set<String> = []
        var written: [(name: String, journey: Journey)] = []
        for entry in coverage.sorted(by: { ($0.path.count, $1.handler) > ($1.path.count, $0.handler) })
        where !covered.contains(entry.handler) {
            covered.formUnion(entry.runs)
            let name = "covers-" + entry.handler.replacingOccurrences(of: ".", with: "-")
            let journey = try Journey.recording(
                entry.path,
                named: "runs \(entry.handler)",
                file: (directory as NSString).appendingPathComponent(name + ".yaml"),
                flows: Self.relativePath(of: specification.file, from: directory),
                on: specification
            )
            written.append((name, journey))
        }
        return written.sorted { $0.name < $1.name }
    }

    /// `file` as seen from `directory`.
    static func relativePath(of file: String, from directory: String) -> String {
        let target = URL(fileURLWithPath: file).standardizedFileURL.pathComponents
        let base = URL(fileURLWithPath: directory).standardizedFileURL.pathComponents
        var common = 0
        while common < min(target.count, base.count), target[common] == base[common] {
            common += 1
        }
        let up = Array(repeating: "..", count: base.count - common)
        return (up + target[common...]).joined(separator: "/")
    }
}
