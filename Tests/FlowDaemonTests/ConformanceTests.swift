import FlowBusTesting
import FlowCore
import Foundation
import Testing
import ZeroMQ

/// The protocol's conformance vectors, replayed against a real flowd over ipc: every rule of the specification's
/// Conformance section (R1, R2...) has at least one vector, and every vector names the rules it checks.
@Suite struct ConformanceTests {
    static let fileNames = ((try? ConformanceRunner.files()) ?? []).map(\.name)

    @Test(arguments: fileNames)
    func vectorsPass(file name: String) throws {
        let file = try #require(try ConformanceRunner.files().first { $0.name == name })
        let daemon = try DaemonProcess.onIPC(flows: file.flows, ["--ephemeral"] + file.arguments)
        let (control, events) = try daemon.readyEndpoints()
        let runner = ConformanceRunner(control: control[0], events: events[0], context: try Context())
        for (number, vector) in file.vectors.enumerated() {
            let title = vector["name"]?.stringValue ?? "vector \(number + 1)"
            do {
                try runner.run(vector, number: number)
            } catch {
                Issue.record("\(name): \(title): \(error)")
            }
        }
        #expect(daemon.signal(SIGTERM) == 0)
    }

    /// Every rule has a vector; every vector names rules the specification has.
    @Test func everyRuleOfTheSpecificationHasAVector() throws {
        let specification = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Sources/FlowWire/FlowWire.docc/Specification.md"),
            encoding: .utf8
        )
        let rules = Set(specification.matches(of: /\*\*(R\d+)\*\*/).map { String($0.output.1) })
        #expect(rules.count >= 20)
        var covered: Set<String> = []
        for file in try ConformanceRunner.files() {
            for vector in file.vectors {
                let named = vector["rules"]?.arrayValue?.compactMap(\.stringValue) ?? []
                #expect(!named.isEmpty, "\(file.name): \(vector["name"]?.stringValue ?? "?") names no rule")
                for rule in named {
                    #expect(rules.contains(rule), "\(file.name) names \(rule), which the specification does not have")
                }
                covered.formUnion(named)
            }
        }
        #expect(rules.subtracting(covered).isEmpty, "rules without a vector: \(rules.subtracting(covered).sorted())")
    }
}
