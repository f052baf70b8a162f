/// What every presenter of a session shows: the presentables on screen and how they nest.
///
/// The engine keeps one to know what commands do (what a pop dismisses, what a snapshot holds); a presenter
/// keeps one to apply the commands it receives. Both apply the same commands with ``apply(_:for:)``, so they
/// agree on the result.
public struct ScreenTree: Sendable, Hashable, Codable {
    /// Each presenter's window root.
    public internal(set) var windowRoots: SmallTable<PresenterID, PresentableID> = SmallTable()
    /// Every presentable on screen, by id.
    public internal(set) var nodes: SmallTable<PresentableID, ScreenNode> = SmallTable()

    /// Creates an empty tree: nothing on screen.
    public init() {}

    /// The presentable with this id, if it is on screen.
    public subscript(id: PresentableID) -> ScreenNode? {
        // Inlined, as the table's lookup is: a caller that reads one member copies no more than that.
        @inline(__always) get { nodes[id] }
    }

    /// The presentable and everything it holds or presents, depth first (the presentable first).
    public func subtree(of id: PresentableID) -> [PresentableID] {
        var subtree: [PresentableID] = []
        appendSubtree(of: id, to: &subtree)
        return subtree
    }

    /// ``subtree(of:)`` appended to `result`, in the order of ``ScreenNode/children``, with no array made per node.
    func appendSubtree(of id: PresentableID, to result: inout [PresentableID]) {
        guard let index = nodes.index(forKey: id) else { return }
        result.append(id)
        // The node read where it is: a copy of it (its description, parameters and items) was made and destroyed
        // for each presentable removed.
        nodes.read(at: index) { node in
            for item in node.items {
                appendSubtree(of: item, to: &result)
            }
            if let master = node.master { appendSubtree(of: master, to: &result) }
            if let detail = node.detail { appendSubtree(of: detail, to: &result) }
            if let presented = node.presented { appendSubtree(of: presented, to: &result) }
        }
    }

    /// Every presentable a presenter shows, depth first from its window root.
    public func presentables(of presenter: PresenterID) -> [PresentableID] {
        windowRoots[presenter].map { subtree(of: $0) } ?? []
    }

    /// The presentables a user of `presenter` can see: in a stack, the top item; in tabs, the selected tab; in
    /// a split, both master and detail; and a modal, when one is presented, covers everything beneath it.
    public func visiblePresentables(of presenter: PresenterID) -> [PresentableID] {
        guard let root = windowRoots[presenter] else {
            return []
        }
        return visible(from: root)
    }

    /// What shows from `id` down; a modal presented anywhere along the way covers all of it.
    private func visible(from id: PresentableID) -> [PresentableID] {
        let shown = shownIgnoringModals(from: id)
        if let host = shown.last(where: { nodes[$0]?.presented != nil }), let modal = nodes[host]?.presented {
            return visible(from: modal)
        }
        return shown
    }

    private func shownIgnoringModals(from id: PresentableID) -> [PresentableID] {
        guard let node = nodes[id] else {
            return []
        }
        var result = [id]
        switch node.description.style {
        case .screen:
            break
        case .stack:
            if let top = node.items.last {
                result += shownIgnoringModals(from: top)
            }
        case .tabs:
            if let selected = node.selectedTab, node.items.indices.contains(selected) {
                result += shownIgnoringModals(from: node.items[selected])
            }
        case .split:
            result += [node.master, node.detail].compactMap { $0 }.flatMap { shownIgnoringModals(from: $0) }
        }
        return result
    }

    /// The commands that build what `presenter` shows from an empty window: a snapshot as commands.
    public func rebuildCommands(for presenter: PresenterID) -> [NavigationCommand] {
        guard let root = windowRoots[presenter], let node = nodes[root] else {
            return []
        }
        return [.setWindowRoot(node.description)] + contentCommands(of: root)
    }

    private func contentCommands(of id: PresentableID) -> [NavigationCommand] {
        guard let node = nodes[id] else {
            return []
        }
        var commands: [NavigationCommand] = []
        switch node.description.style {
        case .screen:
            break
        case .stack:
            commands += node.items.compactMap { nodes[$0] }.map { .push($0.description, onto: id) }
        case .tabs:
            if let selected = node.selectedTab {
                commands.append(.setTabs(id, node.items.compactMap { nodes[$0]?.description }, selected: selected))
            }
        case .split:
            if let master = node.master.flatMap({ nodes[$0] }) {
                commands.append(.setMaster(id, master.description))
            }
            if let detail = node.detail.flatMap({ nodes[$0] }) {
                commands.append(.setDetail(id, detail.description))
            }
        }
        for child in node.items + [node.master, node.detail].compactMap({ $0 }) {
            commands += contentCommands(of: child)
        }
        if let presented = node.presented, let modal = nodes[presented] {
            commands.append(.present(modal.description, over: id))
            commands += contentCommands(of: presented)
        }
        return commands
    }
}
