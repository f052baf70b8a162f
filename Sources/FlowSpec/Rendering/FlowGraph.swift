/// Renders a ``FlowSpecification`` as a Graphviz `dot` graph: flows as boxes (with their root), screens as
/// ellipses, and an edge for each step that shows a screen, starts a flow, forwards or ends.
public enum FlowGraph {
    /// The graph's text, for `dot -Tsvg`.
    public static func dot(_ spec: FlowSpecification) -> String {
        var lines = [
            "digraph flows {",
            "  rankdir=LR;",
            "  node [fontname=\"Helvetica\"];",
            "  edge [fontname=\"Helvetica\", fontsize=10];",
        ]
        lines.append("  \"session\" [shape=point];")
        lines.append("  \"session\" -> \(flowNode(spec.session.rootFlow)) [label=\"start\"];")
        for flow in spec.flows {
            let root = "\(flow.root.style): \(flow.root.name)"
            lines.append("  \(flowNode(flow.name)) [shape=box, style=bold, label=\"\(flow.name)\\n(\(root))\"];")
        }
        for screen in spec.screenNames {
            lines.append("  \(screenNode(screen)) [shape=ellipse, label=\"\(screen)\"];")
        }
        for flow in spec.flows {
            for handler in flow.handlers {
                for action in handler.actions {
                    lines += edges(from: flow, step: handler.step, action: action)
                }
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func edges(from flow: FlowDefinition, step: String, action: Action) -> [String] {
        let source = flowNode(flow.name)
        switch action.kind {
        case .show, .start, .tabs:
            return action.presentations.map { presentation in
                let target = presentation.isFlow ? flowNode(presentation.target) : screenNode(presentation.target)
                let style = presentation.isFlow ? ", style=bold" : ""
                return "  \(source) -> \(target) [label=\"\(step)\\n\(presentation.placement.rawValue)\"\(style)];"
            }
        case .forwardToCurrentFlow(let template):
            return ["  \(source) -> \(source) [label=\"\(step) → \(template.name)\", style=dotted];"]
        case .forwardToParentFlow(let template), .end(let template):
            let verb = if case .end = action.kind { "end" } else { "forward" }
            return [
                "  \(source) -> \"parent of \(flow.name)\" [label=\"\(step): \(verb) \(template.name)\", style=dashed];"
            ]
        case .dismiss, .pop, .selectTab:
            return []
        }
    }

    private static func flowNode(_ name: String) -> String { "\"flow:\(name)\"" }
    private static func screenNode(_ name: String) -> String { "\"screen:\(name)\"" }
}

extension FlowSpecification {
    /// One line saying what the file holds: flows, steps and screens.
    public var summary: String {
        let plural = { (count: Int, word: String) in "\(count) \(word)\(count == 1 ? "" : "s")" }
        return [plural(flows.count, "flow"), plural(steps.count, "step"), plural(screenNames.count, "screen")]
            .joined(separator: ", ")
    }
}
