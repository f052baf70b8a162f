extension ScreenTree {
    /// What applying a command changed.
    public struct Change: Sendable, Hashable {
        /// Presentables now on screen that were not before, in placement order.
        public var placed: [PresentableID] = []
        /// Presentables no longer on screen (dismissed), each followed by what it held.
        public var removed: [PresentableID] = []
    }

    /// Applies one command for `presenter`.
    ///
    /// A command that does not fit the tree (an unknown container, a push onto tabs, a presentable placed
    /// twice...) throws and changes nothing.
    @discardableResult
    public mutating func apply(
        _ command: NavigationCommand,
        for presenter: PresenterID
    ) throws(FlowCoreError) -> Change {
        for description in command.placed where nodes[description.id] != nil {
            throw FlowCoreError(.alreadyPlaced, "\(command.operation): \(description.id) is already on screen")
        }
        var change = Change()
        switch command {
        case .setWindowRoot(let description):
            if let old = windowRoots[presenter] {
                change.removed = remove(old)
            }
            insert(description, presenter: presenter, parent: nil, placement: .windowRoot)
            windowRoots[presenter] = description.id
            change.placed = [description.id]

        case .push(let description, let stack):
            let container = try node(stack, command, style: .stack)
            insert(description, presenter: container.presenter, parent: stack, placement: .stackItem)
            nodes[stack]?.items.append(description.id)
            change.placed = [description.id]

        case .pop(let stack, let target):
            let container = try node(stack, command, style: .stack)
            guard let index = container.items.firstIndex(of: target) else {
                throw FlowCoreError(.outOfRange, "pop: \(target) is not an item of the stack \(stack)")
            }
            for item in container.items[(index + 1)...].reversed() {
                change.removed += remove(item)
            }

        case .present(let description, let over):
            let host = try node(over, command, style: nil)
            if let presented = host.presented {
                throw FlowCoreError(
                    .alreadyPresenting,
                    "present: \(over) already presents \(presented); dismiss it first"
                )
            }
            insert(description, presenter: host.presenter, parent: over, placement: .modal)
            nodes[over]?.presented = description.id
            change.placed = [description.id]

        case .dismiss(let target):
            let removedNode = try node(target, command, style: nil)
            if removedNode.placement == .stackItem, let stack = removedNode.parent.flatMap({ nodes[$0] }),
                let index = stack.items.firstIndex(of: target)
            {
                for item in stack.items[(index + 1)...].reversed() {
                    change.removed += remove(item)
                }
            }
            change.removed += remove(target)

        case .setTabs(let tabs, let descriptions, let selected):
            let container = try node(tabs, command, style: .tabs)
            guard descriptions.isEmpty ? selected == 0 : descriptions.indices.contains(selected) else {
                throw FlowCoreError(.outOfRange, "setTabs: tab \(selected) does not exist (\(descriptions.count) tabs)")
            }
            guard Set(descriptions.map(\.id)).count == descriptions.count else {
                throw FlowCoreError(.alreadyPlaced, "setTabs: the same presentable appears twice")
            }
            for item in container.items.reversed() {
                change.removed += remove(item)
            }
            for description in descriptions {
                insert(description, presenter: container.presenter, parent: tabs, placement: .tab)
            }
            nodes[tabs]?.items = descriptions.map(\.id)
            nodes[tabs]?.selectedTab = descriptions.isEmpty ? nil : selected
            change.placed = descriptions.map(\.id)

        case .selectTab(let tabs, let index):
            let container = try node(tabs, command, style: .tabs)
            guard container.items.indices.contains(index) else {
                throw FlowCoreError(
                    .outOfRange,
                    "selectTab: tab \(index) does not exist (\(container.items.count) tabs)"
                )
            }
            nodes[tabs]?.selectedTab = index

        case .setMaster(let split, let description), .setDetail(let split, let description):
            let container = try node(split, command, style: .split)
            let isMaster = if case .setMaster = command { true } else { false }
            if let old = isMaster ? container.master : container.detail {
                change.removed = remove(old)
            }
            insert(
                description,
                presenter: container.presenter,
                parent: split,
                placement: isMaster ? .master : .detail
            )
            if isMaster {
                nodes[split]?.master = description.id
            } else {
                nodes[split]?.detail = description.id
            }
            change.placed = [description.id]
        }
        return change
    }

    private func node(
        _ id: PresentableID,
        _ command: NavigationCommand,
        style: PresentableStyle?
    ) throws(FlowCoreError) -> ScreenNode {
        guard let node = nodes[id] else {
            throw FlowCoreError(.unknownPresentable, "\(command.operation): \(id) is not on screen")
        }
        if let style, node.description.style != style {
            throw FlowCoreError(
                .wrongContainer,
                "\(command.operation): \(id) (\(node.description.name)) is a \(node.description.style), not a \(style)"
            )
        }
        return node
    }

    private mutating func insert(
        _ description: PresentableDescription,
        presenter: PresenterID,
        parent: PresentableID?,
        placement: Placement
    ) {
        nodes[description.id] = ScreenNode(
            description: description,
            presenter: presenter,
            parent: parent,
            placement: placement
        )
    }

    /// Removes a presentable and its subtree, detaching it from its parent.
    private mutating func remove(_ id: PresentableID) -> [PresentableID] {
        let removed = subtree(of: id)
        guard let node = nodes[id] else {
            return []
        }
        // The parent is changed in place (a copy of its node, written back, hashed its id twice and copied its
        // description).
        if let parentID = node.parent, nodes[parentID] != nil {
            switch node.placement {
            case .stackItem:
                nodes[parentID]?.items.removeAll { $0 == id }
            case .tab:
                nodes[parentID]?.removeTab(id)
            case .master:
                nodes[parentID]?.master = nil
            case .detail:
                nodes[parentID]?.detail = nil
            case .modal:
                nodes[parentID]?.presented = nil
            case .windowRoot:
                break
            }
        } else if node.placement == .windowRoot {
            windowRoots[node.presenter] = nil
        }
        for removedID in removed {
            nodes[removedID] = nil
        }
        return removed
    }
}

extension ScreenNode {
    /// Removes a tab, keeping the selection on the same tab (or the nearest one left).
    fileprivate mutating func removeTab(_ id: PresentableID) {
        guard let index = items.firstIndex(of: id) else { return }
        items.remove(at: index)
        if let selected = selectedTab {
            selectedTab = items.isEmpty ? nil : (selected > index ? selected - 1 : min(selected, items.count - 1))
        }
    }
}
