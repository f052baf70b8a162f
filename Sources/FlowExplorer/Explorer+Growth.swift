import FlowCore

/// Stacks (and chains of modals) that grow for ever: found when a screen repeats, and confirmed by trying the cycle
/// that made it repeat once more.
extension Explorer {
    /// Whether the input that led from `current` to `after` pushed onto a stack a screen it holds already (the
    /// same name and parameters), or presented a modal over one just like it: what led from the first to the
    /// second can come again, and again (the stack, or the chain of modals, grows for ever). Such a state is not
    /// explored further: what follows it repeats what followed the first.
    func growth(from current: Int, to after: ExploredState) -> StackGrowth? {
        let tree = after.inspection.screens
        let before = states[current].inspection.screens
        let identity = { (id: PresentableID) -> String in
            guard let node = tree[id] else { return "?" }
            let parameters = JSONValue.object(node.description.parameters).jsonText(sortedKeys: true)
            return node.description.name + String(decoding: parameters, as: UTF8.self)
        }
        for id in after.screens where before[id] == nil {
            guard let node = tree[id], let parent = node.parent else { continue }
            var earlier: PresentableID?
            var container = parent
            switch node.placement {
            case .stackItem:
                earlier = tree[parent]?.items.dropLast().last { identity($0) == identity(id) }
            case .modal:
                // Up the chain of modals: one like it below.
                var current: PresentableID? = parent
                while let candidate = current, let above = tree[candidate] {
                    if above.placement == .modal, identity(candidate) == identity(id) {
                        earlier = candidate
                        container = above.parent ?? candidate
                        break
                    }
                    current = above.parent
                }
            default:
                continue
            }
            guard let earlier else { continue }
            // Since the state, on the way here, where the earlier one first was on screen.
            var since = current
            var position: Int? = current
            while let state = position, states[state].inspection.screens[earlier] != nil {
                since = state
                position = reachedBy[state].map { transitions[$0].from }
            }
            let screens: [String]
            if node.placement == .stackItem, let items = tree[parent]?.items, let first = items.firstIndex(of: earlier)
            {
                screens = items[(first + 1)...].compactMap { tree[$0]?.description.name }
            } else {
                screens = [node.description.name]
            }
            let owner = tree[container]?.description.flow.flatMap { id in
                after.inspection.flows.first { $0.id == id }?.name
            }
            var growth = StackGrowth(stack: after.position(of: container), screens: screens, since: since)
            growth.isDeclared = owner.flatMap { specification.flow(named: $0)?.mayGrow } ?? false
            return growth
        }
        return nil
    }

    /// Whether the inputs that made a screen repeat on a stack (or a chain of modals), tried again from the state
    /// they led to, put still more on screen: a stack that grows for ever, not one that a handler pops (or a
    /// modal it dismisses) before it pushes (or presents) the same again. One that cannot be tried again is taken
    /// as growing.
    func growsAgain(
        _ growth: StackGrowth,
        after: ExploredState,
        by input: ExplorationInput,
        from current: Int
    ) -> Bool {
        guard let engine = after.engine else { return true }
        let cycle = path(to: current).suffix(depths[current] - depths[growth.since]) + [input]
        var driver = SessionDriver(specification: specification, engine: engine)
        do {
            for input in cycle {
                _ = try driver.apply(Self.onTop(input, in: driver))
                _ = try driver.apply(.reportShown)
            }
        } catch {
            return true
        }
        guard let again = ExploredState(driver.engine, session: SessionDriver.session) else { return true }
        return again.screens.count > after.screens.count
    }

    /// An input again, from the screen of its name a user sees now: tried again, a step from a screen pushed over
    /// another of its name comes from the one on top (references count screens from the window root down).
    private static func onTop(_ input: ExplorationInput, in driver: SessionDriver) -> ExplorationInput {
        guard case .step(let step, .screen(let reference)) = input, let inspection = driver.inspection else {
            return input
        }
        let tree = inspection.screens
        var occurrence = 0
        var visible: ScreenReference?
        for root in tree.windowRoots.entries.sorted(by: { $0.key < $1.key }) {
            for id in tree.subtree(of: root.value) where tree[id]?.description.name == reference.name {
                occurrence += 1
                if inspection.visibility[id] == .visible {
                    visible = ScreenReference(name: reference.name, occurrence: occurrence)
                }
            }
        }
        return .step(step, from: .screen(visible ?? reference))
    }
}
