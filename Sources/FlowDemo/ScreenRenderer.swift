import FlowCore

/// Draws what a presenter shows as text, the way its user sees it: the window, each stack as a trail ending
/// at its top screen, tabs with the selected one in brackets, a split's master and detail, and modals as boxes
/// over what they cover. Screens the user can see are marked `●`, covered ones `○`.
public struct ScreenRenderer: Sendable {
    /// The presenter whose window is drawn.
    public var presenter: PresenterID

    public init(presenter: PresenterID = "main") {
        self.presenter = presenter
    }

    /// The window's lines (no trailing newlines).
    public func render(_ screens: ScreenTree) -> [String] {
        guard let root = screens.windowRoots[presenter] else {
            return ["╭─ \(presenter.rawValue) ─ (empty window)", "╰─"]
        }
        let visible = Set(screens.visiblePresentables(of: presenter))
        var lines = ["╭─ window \(presenter.rawValue)"]
        lines += draw(root, in: screens, visible: visible).map { "│ " + $0 }
        lines.append("╰─")
        return lines
    }

    /// A presentable and what it holds, then what it presents (boxed).
    private func draw(_ id: PresentableID, in screens: ScreenTree, visible: Set<PresentableID>) -> [String] {
        guard let node = screens[id] else { return [] }
        var lines: [String]
        switch node.description.style {
        case .screen:
            lines = ["\(mark(id, visible)) \(label(node))"]
        case .stack:
            let trail = node.items.compactMap { screens[$0] }.map { label($0) }
            lines = ["▤ \(node.description.name): " + (trail.isEmpty ? "(empty)" : trail.joined(separator: " › "))]
            if let top = node.items.last, let topNode = screens[top] {
                if topNode.description.style == .screen {
                    lines.append("  \(mark(top, visible)) \(label(topNode))" + (node.items.count > 1 ? "  ‹ back" : ""))
                    lines += presented(by: topNode, in: screens, visible: visible).map { "  " + $0 }
                } else {
                    lines += draw(top, in: screens, visible: visible).map { "  " + $0 }
                }
            }
        case .tabs:
            let titles = node.items.enumerated().map { index, item -> String in
                let title = screens[item].map { tabTitle($0) } ?? item.description
                return index == node.selectedTab ? "[\(title)]" : " \(title) "
            }
            lines = ["▦ \(node.description.name): " + titles.joined(separator: " ")]
            if let selected = node.selectedTab, node.items.indices.contains(selected) {
                lines += draw(node.items[selected], in: screens, visible: visible).map { "  " + $0 }
            }
        case .split:
            lines = ["◫ \(node.description.name)"]
            if let master = node.master {
                lines += prefixed(draw(master, in: screens, visible: visible), first: "  master ", rest: "         ")
            }
            if let detail = node.detail {
                lines += prefixed(draw(detail, in: screens, visible: visible), first: "  detail ", rest: "         ")
            }
        }
        if node.description.style != .screen {
            lines += presented(by: node, in: screens, visible: visible)
        }
        return lines
    }

    /// The modal a presentable presents, in a box.
    private func presented(by node: ScreenNode, in screens: ScreenTree, visible: Set<PresentableID>) -> [String] {
        guard let modal = node.presented else { return [] }
        let inner = draw(modal, in: screens, visible: visible)
        return ["┏━ presented over \(node.description.name)"] + inner.map { "┃ " + $0 } + ["┗━"]
    }

    private func prefixed(_ lines: [String], first: String, rest: String) -> [String] {
        lines.enumerated().map { index, line in (index == 0 ? first : rest) + line }
    }

    private func mark(_ id: PresentableID, _ visible: Set<PresentableID>) -> String {
        visible.contains(id) ? "●" : "○"
    }

    /// A screen's name with its parameters: `MovieDetail(movieId: 7)`.
    private func label(_ node: ScreenNode) -> String {
        let parameters = node.description.parameters.sorted { $0.key < $1.key }
        guard !parameters.isEmpty else { return node.description.name }
        let text = parameters.map { "\($0.key): \(describe($0.value))" }.joined(separator: ", ")
        return "\(node.description.name)(\(text))"
    }

    func tabTitle(_ node: ScreenNode) -> String {
        node.description.parameters["title"]?.stringValue ?? node.description.name
    }

    private func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .int(let number): "\(number)"
        case .double(let number): "\(number)"
        case .string(let text): text
        case .array(let items): "[" + items.map(describe).joined(separator: ", ") + "]"
        case .object(let members):
            "{" + members.sorted { $0.key < $1.key }.map { "\($0.key): \(describe($0.value))" }.joined(separator: ", ")
                + "}"
        }
    }
}
