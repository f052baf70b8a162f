import FlowCore

/// One session state the explorer reached, seen as a user would: the screens in order (each with the name a path
/// gives it), their visibility, the flows and their contributions, without the ids the engine numbered them with
/// (two paths to the same screens give the same state).
struct ExploredState {
    /// The session, in an engine of its own; let go once every input was tried in it (what the findings need is
    /// kept apart).
    var engine: FlowEngine?
    /// The screens on screen, window roots first (presenters by name), each followed by what it holds: preorder.
    let screens: [PresentableID]
    /// Each screen's reference (its name, and which of that name it is).
    let references: [PresentableID: ScreenReference]
    /// The inspection the key was made from.
    let inspection: SessionInspection
    /// What tells states apart (see ``key(of:order:)``).
    let key: StateKey

    init?(_ engine: FlowEngine, session: SessionID) {
        guard let inspection = engine.inspect(session) else { return nil }
        self.engine = engine
        self.inspection = inspection
        let tree = inspection.screens
        var order: [PresentableID] = []
        for root in tree.windowRoots.entries.sorted(by: { $0.key < $1.key }) {
            order += tree.subtree(of: root.value)
        }
        screens = order
        var counts: [String: Int] = [:]
        var references: [PresentableID: ScreenReference] = [:]
        for id in order {
            guard let name = tree[id]?.description.name else { continue }
            counts[name, default: 0] += 1
            references[id] = ScreenReference(name: name, occurrence: counts[name] ?? 1)
        }
        self.references = references
        key = Self.key(of: inspection, order: order)
    }

    /// The screen a reference names in a screen tree: the `occurrence`th of its name, in preorder.
    static func screen(_ reference: ScreenReference, in tree: ScreenTree) -> PresentableID? {
        var seen = 0
        for root in tree.windowRoots.entries.sorted(by: { $0.key < $1.key }) {
            for id in tree.subtree(of: root.value) where tree[id]?.description.name == reference.name {
                seen += 1
                if seen == reference.occurrence {
                    return id
                }
            }
        }
        return nil
    }

    /// What tells states apart, hashed twice over (128 bits: two states that differ share a key with a chance of
    /// one in 2^128): the screens in preorder with their names, styles, places, parameters, owners and whether they
    /// are visible; the flows and their contributions by position; a waiting guard question; the data; the queues.
    /// Not the engine's ids (two paths to the same screens give the same state), nor whether a screen not visible
    /// was never shown or was covered since (both take no steps).
    private static func key(of inspection: SessionInspection, order: [PresentableID]) -> StateKey {
        let tree = inspection.screens
        var screenIndex: [PresentableID: Int] = [:]
        screenIndex.reserveCapacity(order.count)
        for (index, id) in order.enumerated() {
            screenIndex[id] = index
        }
        var flowIndex: [FlowID: Int] = [:]
        for (index, flow) in inspection.flows.enumerated() where flowIndex[flow.id] == nil {
            flowIndex[flow.id] = index
        }
        var hasher = StateHasher()
        for root in tree.windowRoots.entries.sorted(by: { $0.key < $1.key }) {
            hasher.combine(root.key)
            hasher.combine(screenIndex[root.value])
        }
        hasher.combine(order.count)
        for id in order {
            guard let node = tree[id] else { continue }
            let description = node.description
            hasher.combine(description.name)
            hasher.combine(description.style)
            hasher.combine(node.placement)
            hasher.combine(node.parent.flatMap { screenIndex[$0] })
            hasher.combine(description.flow.flatMap { flowIndex[$0] })
            hasher.combine(inspection.visibility[id] == .visible)
            hasher.combine(node.selectedTab)
            hasher.combine(description.parameters)
        }
        hasher.combine(inspection.flows.count)
        for flow in inspection.flows {
            hasher.combine(flow.name)
            hasher.combine(flow.parent.flatMap { flowIndex[$0] })
            hasher.combine(screenIndex[flow.root])
            hasher.combine(flow.isReady)
            hasher.combine(flow.stepper)
        }
        hasher.combine(inspection.contributions.count)
        for contribution in inspection.contributions {
            hasher.combine(flowIndex[contribution.flow])
            hasher.combine(screenIndex[contribution.presentable])
            hasher.combine(contribution.stepper)
            hasher.combine(contribution.allowStepWhenNotPresented)
            hasher.combine(contribution.allowStepWhenDismissed)
        }
        hasher.combine(inspection.pendingGuard.map { [$0.guardName, $0.subject, $0.step.name] })
        hasher.combine(inspection.pendingGuard?.step.parameters)
        hasher.combine(inspection.sessionData)
        hasher.combine(inspection.queuedWork)
        hasher.combine(inspection.waitingDeepLinks)
        return hasher.finalize()
    }

    /// Where a screen sits, by names: its presenter, then each screen from the window root down to it, with how it
    /// is placed (what identifies a modal across states).
    func position(of id: PresentableID) -> String {
        let tree = inspection.screens
        var parts: [String] = []
        var current: PresentableID? = id
        while let node = current.flatMap({ tree[$0] }) {
            parts.append("\(node.placement.rawValue) \(node.description.name)")
            current = node.parent
        }
        let presenter = tree[id]?.presenter.description ?? "?"
        return "\(presenter): " + parts.reversed().joined(separator: " > ")
    }
}

/// A state's key: 128 bits of hash.
struct StateKey: Hashable {
    let first: Int
    let second: Int
}

/// Two hashers fed the same values, the second seeded apart: a 128-bit hash.
struct StateHasher {
    private var first = Hasher()
    private var second = Hasher()

    init() {
        second.combine(0x5EED_F10B)
    }

    mutating func combine(_ value: some Hashable) {
        first.combine(value)
        second.combine(value)
    }

    func finalize() -> StateKey {
        StateKey(first: first.finalize(), second: second.finalize())
    }
}
