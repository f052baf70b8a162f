import FlowCore
import FlowWire

/// `flowctl steps` and `flowctl flows` as text: who may emit what now, and the flow file flowd runs.
public enum IntrospectionText {
    /// A session's sources of steps, each step with its fate now (✔ passes, ✘ dropped, ? waits for a guard) and
    /// what its flows would do.
    public static func lines(_ report: StepsReport) -> [String] {
        var lines = ["session \(TerminalText.safe(report.session)): who may emit what now (each step tried on a copy)"]
        if report.sources.isEmpty {
            lines.append("  no stepper or screen can emit a step now")
        }
        for source in report.sources {
            let who =
                source.stepper.map { "stepper \(TerminalText.safe($0))" }
                ?? "screen p\(source.presentable?.rawValue ?? 0) \(TerminalText.safe(source.name ?? "?")) [\(source.visibility?.rawValue ?? "?")]"
            lines.append("\(who) → \(source.flows.map(TerminalText.safe).joined(separator: ", "))")
            for candidate in source.steps {
                let mark = candidate.passes.map { $0 ? "✔" : "✘" } ?? "?"
                let parameters = candidate.parameters.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                let step =
                    TerminalText.safe(candidate.step)
                    + (parameters.isEmpty ? "" : "(\(parameters.joined(separator: ", ")))")
                lines.append(
                    "  \(mark) \(step)\(candidate.adaptedTo.map { " → adapted into \(TerminalText.safe($0))" } ?? "")"
                )
                if let guardName = candidate.guardName {
                    lines.append("      waits for guard \(TerminalText.safe(guardName))'s answer")
                } else if candidate.passes == false {
                    lines.append(
                        "      dropped, \(candidate.reason ?? "?"): \(TerminalText.safe(candidate.explanation ?? ""))"
                    )
                    if let remedy = candidate.remedy {
                        lines.append("      to pass: \(TerminalText.safe(remedy))")
                    }
                }
                for action in candidate.actions {
                    lines.append("      \(TerminalText.safe(action))")
                }
            }
        }
        if report.untried > 0 {
            lines.append("(\(report.untried) steps listed untried, marked ?: flowd tries at most 256 per query)")
        }
        return lines
    }

    /// The flow file: how a session starts, the steps, and each flow's steps and actions.
    public static func lines(_ report: FlowsReport) -> [String] {
        var lines = [
            "flows from \(TerminalText.safe(report.file))",
            "a session starts with \(TerminalText.safe(report.rootFlow)), stepper \(TerminalText.safe(report.stepper))",
            "steps:",
        ]
        for step in report.steps {
            let parameters = step.parameters.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            lines.append(
                "  \(TerminalText.safe(step.name))\(parameters.isEmpty ? "" : "(\(parameters.joined(separator: ", ")))")"
            )
        }
        for flow in report.flows {
            lines.append("flow \(TerminalText.safe(flow.name)) — root \(TerminalText.safe(flow.root))")
            for adapt in flow.adapts {
                lines.append("  adapt \(TerminalText.safe(adapt))")
            }
            for handler in flow.handlers {
                let actions = handler.actions.isEmpty ? "nothing" : handler.actions.joined(separator: "; ")
                lines.append("  on \(TerminalText.safe(handler.step)): \(TerminalText.safe(actions))")
            }
        }
        lines.append("screens: \(report.screens.map(TerminalText.safe).joined(separator: ", "))")
        return lines
    }
}
