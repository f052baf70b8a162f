import FlowCore
import FlowWire
import Foundation

/// Draws a session's tree for a terminal (flows nested under their parents, each with its contributions; screens
/// nested by presenter) or for Graphviz.
public struct TreeRenderer: Sendable {
    public init() {}

    /// The tree as text lines.
    public func text(_ tree: SessionTree) -> [String] {
        var lines = ["session \(tree.session.rawValue)\(tree.ready ? " (ready)" : " (not ready)")", "flows"]
        let children = Dictionary(grouping: tree.flows, by: \.parent)
        let names = Dictionary(uniqueKeysWithValues: tree.screens.map { ($0.id, $0.name) })
        func flow(_ item: SessionTree.Flow, depth: Int) {
            let indent = String(repeating: "  ", count: depth + 1)
            lines.append(
                "\(indent)\(item.id) \(item.name) — root \(item.root), \(item.stepper)\(item.ready ? "" : ", not ready")"
            )
            for contribution in tree.contributions where contribution.flow == item.id {
                let name = names[contribution.presentable] ?? "?"
                lines.append(
                    "\(indent)  · \(contribution.presentable) \(name) ← \(contribution.stepper) "
                        + "[\(contribution.visibility.rawValue)]"
                )
            }
            for child in children[item.id] ?? [] {
                flow(child, depth: depth + 1)
            }
        }
        for root in children[nil] ?? [] {
            flow(root, depth: 0)
        }
        lines.append("screens")
        let byParent = Dictionary(grouping: tree.screens, by: \.parent)
        func screen(_ item: SessionTree.Screen, depth: Int) {
            let indent = String(repeating: "  ", count: depth + 1)
            let mark = item.visibility == .visible ? "●" : "○"
            let parameters = item.parameters.sorted { $0.key < $1.key }.map { "\($0.key): \(describe($0.value))" }
            let label = parameters.isEmpty ? item.name : "\(item.name)(\(parameters.joined(separator: ", ")))"
            let presenter = depth == 0 ? " on \(item.presenter.rawValue)" : ""
            lines.append(
                "\(indent)\(mark) \(item.id) \(label) \(item.style.rawValue), \(item.placement.rawValue)\(presenter)"
            )
            for child in byParent[item.id] ?? [] {
                screen(child, depth: depth + 1)
            }
        }
        for root in byParent[nil] ?? [] {
            screen(root, depth: 0)
        }
        // Names and parameters come from peers: nothing in them reaches the terminal as an escape sequence.
        return lines.map(TerminalText.safe)
    }

    /// The tree as a Graphviz digraph: flows as boxes, screens as ellipses (filled when visible), flows linked
    /// to their parents and to the screens they contribute.
    public func dot(_ tree: SessionTree) -> String {
        var lines = ["digraph \"\(tree.session.rawValue)\" {", "  rankdir=LR;"]
        for flow in tree.flows {
            lines.append("  \"\(flow.id)\" [shape=box, label=\"\(flow.name)\\n\(flow.id)\"];")
            if let parent = flow.parent {
                lines.append("  \"\(parent)\" -> \"\(flow.id)\";")
            }
        }
        for screen in tree.screens {
            let fill = screen.visibility == .visible ? ", style=filled, fillcolor=lightblue" : ""
            lines.append("  \"\(screen.id)\" [shape=ellipse, label=\"\(screen.name)\\n\(screen.id)\"\(fill)];")
            if let parent = screen.parent {
                lines.append("  \"\(parent)\" -> \"\(screen.id)\" [style=dashed];")
            }
        }
        for contribution in tree.contributions {
            lines.append("  \"\(contribution.flow)\" -> \"\(contribution.presentable)\";")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private func describe(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return value.description
    }
}
