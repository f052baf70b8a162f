import FlowCore
import FlowJSON
import FlowSpec
import Foundation

extension Exploration {
    /// The findings as a compiler prints its diagnostics (`FILE:LINE:COLUMN: error: MESSAGE`), each with its path,
    /// then what was explored.
    public func text() -> String {
        var lines: [String] = []
        for finding in findings {
            let place = finding.location.map { "\($0.file):\($0.line):\($0.column)" } ?? file
            lines.append("\(place): \(finding.severity.rawValue): \(finding.message) [\(finding.kind.rawValue)]")
            if !finding.path.isEmpty {
                lines.append("  path: " + finding.path.map(\.description).joined(separator: " → "))
            }
            if let cycle = finding.cycle, !cycle.isEmpty {
                lines.append("  cycle: " + cycle.map(\.description).joined(separator: " → "))
            }
        }
        lines.append(summary)
        return lines.joined(separator: "\n") + "\n"
    }

    /// What was explored, and what was found.
    public var summary: String {
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.count - errors
        let extent =
            isComplete
            ? "every state reached"
            : "stopped at the bound (--depth \(bounds.depth), --states \(bounds.states)): what lies beyond was not tried"
        let reduced =
            reducedCount == 0
            ? ""
            : "; \(reducedCount) of them like states tried already, flow by flow, so not tried again (--exhaustive tries them)"
        return
            "\(file): explored \(stateCount) states and \(transitionCount) inputs (\(extent)\(reduced)); \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
    }

    /// The exploration as JSON: `{"file", "states", "inputs", "complete", "reduced", "bounds": {"depth", "states"},
    /// "findings": [{"kind", "severity", "message", "file", "line", "column", "path": [input], "cycle"}]}`; an
    /// input is written as a journey's step is (``ExplorationInput/json``).
    public func json() -> String {
        let findings: [JSONValue] = self.findings.map { finding in
            var object: JSONObject = [
                "kind": .string(finding.kind.rawValue),
                "severity": .string(finding.severity.rawValue),
                "message": .string(finding.message),
                "path": .array(finding.path.map(\.json)),
            ]
            if let location = finding.location {
                object["file"] = .string(location.file)
                object["line"] = .int(location.line)
                object["column"] = .int(location.column)
            }
            if let cycle = finding.cycle {
                object["cycle"] = .array(cycle.map(\.json))
            }
            return .object(object)
        }
        let value: JSONValue = .object([
            "file": .string(file),
            "states": .int(stateCount),
            "inputs": .int(transitionCount),
            "complete": .bool(isComplete),
            "reduced": .int(reducedCount),
            "bounds": .object(["depth": .int(bounds.depth), "states": .int(bounds.states)]),
            "findings": .array(findings),
        ])
        return String(decoding: value.jsonText(sortedKeys: true), as: UTF8.self) + "\n"
    }

    /// The explored graph for Graphviz: a node per state (its visible screens), an edge per input that changes it.
    public func dot() -> String {
        var lines = ["digraph explored {", "  rankdir=LR;", "  node [shape=box, fontname=\"Helvetica\"];"]
        for (index, state) in graph.states.enumerated() {
            let label = state.label.isEmpty ? "(nothing on screen)" : state.label
            lines.append("  s\(index) [label=\"\(Self.escaped(label))\"\(index == 0 ? ", penwidth=2" : "")];")
        }
        for edge in graph.edges {
            lines.append("  s\(edge.from) -> s\(edge.to) [label=\"\(Self.escaped(edge.input.description))\"];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

extension ExplorationInput {
    /// The input as JSON, as a journey writes it: `{"step": {"name", "parameters"}, "from": {"stepper": name} or
    /// {"screen": name, "occurrence": n}}`, `{"deepLink": step}`, `{"report": "shown"}`, `{"selectTab": screen}`,
    /// `{"dismiss": screen}`, `{"guard": true|false}`, `{"sessionData": {"key", "value"}}`.
    public var json: JSONValue {
        switch self {
        case .step(let step, let source):
            let from: JSONValue =
                switch source {
                case .stepper(let name): .object(["stepper": .string(name)])
                case .screen(let screen): Self.json(of: screen)
                }
            return .object(["step": Self.json(of: step), "from": from])
        case .deepLink(let step):
            return .object(["deepLink": Self.json(of: step)])
        case .reportShown:
            return .object(["report": .string("shown")])
        case .selectTab(let screen):
            return .object(["selectTab": Self.json(of: screen)])
        case .dismiss(let screen):
            return .object(["dismiss": Self.json(of: screen)])
        case .guardAnswer(let allowed):
            return .object(["guard": .bool(allowed)])
        case .sessionData(let key, let value):
            return .object(["sessionData": .object(["key": .string(key), "value": value])])
        }
    }

    private static func json(of step: Step) -> JSONValue {
        .object(["name": .string(step.name), "parameters": .object(step.parameters)])
    }

    private static func json(of screen: ScreenReference) -> JSONValue {
        .object(["screen": .string(screen.name), "occurrence": .int(screen.occurrence)])
    }
}
