/// What a presenter asks of its tree: its screens in drawing order, what its user sees, the screen on top, a
/// visible screen by name. ``ScreenTree/nodes`` is a table by id, in no useful order: draw and search from these.
extension ScreenTree {
    /// Every presentable `presenter` shows, in drawing order: depth first from its window root, each container
    /// before what it holds, a stack's items bottom to top, the modal last.
    public func screens(of presenter: PresenterID) -> [ScreenNode] {
        presentables(of: presenter).compactMap { nodes[$0] }
    }

    /// What the user of `presenter` sees, in drawing order, the topmost last: in a stack its top item, in tabs the
    /// selected one, in a split both sides, and only what a modal shows when one is presented.
    public func visibleScreens(of presenter: PresenterID) -> [ScreenNode] {
        visiblePresentables(of: presenter).compactMap { nodes[$0] }
    }

    /// The screen (not a container) on top of what the user of `presenter` sees: the one a tap goes to. In a split,
    /// the detail.
    public func topmostVisibleScreen(of presenter: PresenterID) -> ScreenNode? {
        visibleScreens(of: presenter).last { $0.description.style == .screen }
    }

    /// The visible presentable named `name` nearest the top, if the user of `presenter` sees one.
    public func visibleScreen(named name: String, of presenter: PresenterID) -> ScreenNode? {
        visibleScreens(of: presenter).last { $0.description.name == name }
    }

    /// What `id` holds or presents, in drawing order (``ScreenNode/children``).
    public func children(of id: PresentableID) -> [ScreenNode] {
        nodes[id]?.children.compactMap { nodes[$0] } ?? []
    }
}

extension ScreenTree: CustomStringConvertible {
    /// Each presenter's window as an indented outline, in drawing order: `main: p1 stack app`, then what it holds,
    /// each line saying how it sits (`tab`, `modal`...) and, for a tab container, which tab is selected.
    public var description: String {
        guard !windowRoots.isEmpty else { return "(nothing on screen)" }
        var lines: [String] = []
        for presenter in windowRoots.keys.sorted() {
            guard let root = windowRoots[presenter] else { continue }
            lines.append("\(presenter):")
            outline(root, depth: 1, into: &lines)
        }
        return lines.joined(separator: "\n")
    }

    private func outline(_ id: PresentableID, depth: Int, into lines: inout [String]) {
        guard let node = nodes[id] else { return }
        let placement = node.placement == .windowRoot || node.placement == .stackItem ? "" : "\(node.placement): "
        let selected = node.selectedTab.map { " (tab \($0) selected)" } ?? ""
        lines.append(String(repeating: "  ", count: depth) + placement + node.description.description + selected)
        for child in node.children {
            outline(child, depth: depth + 1, into: &lines)
        }
    }
}

extension PresentableDescription: CustomStringConvertible {
    /// `p6 WishlistTable`, `p9 Alert{"title":"Unauthorized"}`, `p1 stack app`: the id, the style when it is a
    /// container, the name, and the parameters when there are any.
    public var description: String {
        let style = self.style == .screen ? "" : "\(self.style) "
        let parameters = parameters.isEmpty ? "" : "\(JSONValue.object(parameters))"
        return "\(id) \(style)\(name)\(parameters)"
    }
}

extension PresentableStyle: CustomStringConvertible {
    /// `screen`, `stack`, `tabs` or `split`.
    public var description: String { rawValue }
}

extension Placement: CustomStringConvertible {
    /// `windowRoot`, `stackItem`, `tab`, `master`, `detail` or `modal`.
    public var description: String { rawValue }
}
