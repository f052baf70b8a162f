extension ScreenTree {
    /// What applying a command changed.
    public struct Change: Sendable, Hashable {
        /// The command applied.
        let command: NavigationCommand
        /// Presentables no longer on screen (dismissed), each followed by what it held.
        public internal(set) var removed: [PresentableID] = []

        /// Presentables now on screen that were not before, in placement order: those the command places (a
        /// command that does not fit changes nothing, so there is no change to ask).
        public var placed: [PresentableID] { command.placed.map(\.id) }
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
        try checkNothingPlacedIsOnScreen(command)
        var change = Change(command: command)
        switch command {
        case .setWindowRoot(let description):
            if let old = windowRoots[presenter] {
                remove(old, into: &change.removed)
            }
            insert(description, presenter: presenter, parent: nil, placement: .windowRoot)
            windowRoots[presenter] = description.id

        case .push(let description, let stack):
            let container = try node(stack, command, style: .stack)
            insert(description, presenter: container.presenter, parent: stack, placement: .stackItem)
            changeNode(stack) { $0.items.append(description.id) }

        case .pop(let stack, let target):
            let container = try node(stack, command, style: .stack)
            guard let index = container.items.firstIndex(of: target) else {
                throw FlowCoreError(.outOfRange, "pop: \(target) is not an item of the stack \(stack)")
            }
            for item in container.items[(index + 1)...].reversed() {
                remove(item, into: &change.removed)
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
            changeNode(over) { $0.presented = description.id }

        case .dismiss(let target):
            let removedNode = try node(target, command, style: nil)
            if removedNode.placement == .stackItem, let stack = removedNode.parent.flatMap({ nodes[$0] }),
                let index = stack.items.firstIndex(of: target)
            {
                for item in stack.items[(index + 1)...].reversed() {
                    remove(item, into: &change.removed)
                }
            }
            remove(target, into: &change.removed)

        case .setTabs(let tabs, let descriptions, let selected):
            let container = try node(tabs, command, style: .tabs)
            guard descriptions.isEmpty ? selected == 0 : descriptions.indices.contains(selected) else {
                throw FlowCoreError(.outOfRange, "setTabs: tab \(selected) does not exist (\(descriptions.count) tabs)")
            }
            guard Set(descriptions.map(\.id)).count == descriptions.count else {
                throw FlowCoreError(.alreadyPlaced, "setTabs: the same presentable appears twice")
            }
            for item in container.items.reversed() {
                remove(item, into: &change.removed)
            }
            for description in descriptions {
                insert(description, presenter: container.presenter, parent: tabs, placement: .tab)
            }
            changeNode(tabs) { node in
                node.items = descriptions.map(\.id)
                node.selectedTab = descriptions.isEmpty ? nil : selected
            }

        case .selectTab(let tabs, let index):
            let container = try node(tabs, command, style: .tabs)
            guard container.items.indices.contains(index) else {
                throw FlowCoreError(
                    .outOfRange,
                    "selectTab: tab \(index) does not exist (\(container.items.count) tabs)"
                )
            }
            changeNode(tabs) { $0.selectedTab = index }

        case .setMaster(let split, let description), .setDetail(let split, let description):
            let container = try node(split, command, style: .split)
            let isMaster = if case .setMaster = command { true } else { false }
            if let old = isMaster ? container.master : container.detail {
                remove(old, into: &change.removed)
            }
            insert(
                description,
                presenter: container.presenter,
                parent: split,
                placement: isMaster ? .master : .detail
            )
            if isMaster {
                changeNode(split) { $0.master = description.id }
            } else {
                changeNode(split) { $0.detail = description.id }
            }
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

    /// Changes a node in place, if it is on screen: found once, and no optional copy of it made on the way (the
    /// dictionary's optional accessor allocated three frames for one change).
    private mutating func changeNode(_ id: PresentableID, _ change: (inout ScreenNode) -> Void) {
        guard let index = nodes.index(forKey: id) else { return }
        nodes.inPlace(at: index, change)
    }

    /// Throws when a presentable the command places is on screen already (the command's placed ones looked at where
    /// they are: no list of them made).
    private func checkNothingPlacedIsOnScreen(_ command: NavigationCommand) throws(FlowCoreError) {
        func check(_ description: PresentableDescription) throws(FlowCoreError) {
            if nodes.index(forKey: description.id) != nil {
                throw FlowCoreError(.alreadyPlaced, "\(command.operation): \(description.id) is already on screen")
            }
        }
        switch command {
        case .setWindowRoot(let description), .push(let description, _), .present(let description, _),
            .setMaster(_, let description), .setDetail(_, let description):
            try check(description)
        case .setTabs(_, let descriptions, _):
            for description in descriptions {
                try check(description)
            }
        case .pop, .dismiss, .selectTab:
            break
        }
    }

    /// Removes a presentable and its subtree, detaching it from its parent; appends what it removed to `removed`.
    private mutating func remove(_ id: PresentableID, into removed: inout [PresentableID]) {
        let start = removed.count
        appendSubtree(of: id, to: &removed)
        guard let index = nodes.index(forKey: id) else {
            return
        }
        // Only where the node is placed is read (a copy of the whole node was made and destroyed).
        let (parent, placement) = nodes.read(at: index) { ($0.parent, $0.placement) }
        // The parent is changed in place (a copy of its node, written back, hashed its id twice and copied its
        // description).
        if let parentID = parent, nodes.index(forKey: parentID) != nil {
            switch placement {
            case .stackItem:
                changeNode(parentID) { node in node.items.removeAll { $0 == id } }
            case .tab:
                changeNode(parentID) { $0.removeTab(id) }
            case .master:
                changeNode(parentID) { $0.master = nil }
            case .detail:
                changeNode(parentID) { $0.detail = nil }
            case .modal:
                changeNode(parentID) { $0.presented = nil }
            case .windowRoot:
                break
            }
        } else if placement == .windowRoot {
            windowRoots[nodes.read(at: index) { $0.presenter }] = nil
        }
        for removedID in removed[start...] {
            nodes[removedID] = nil
        }
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
