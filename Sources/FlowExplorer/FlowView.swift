import FlowCore

/// One flow of a state as the flow itself and its parent see it: what the explorer's reduction compares.
///
/// A flow's navigation depends on its own screens (which it shows, which are visible), its stepper and
/// contributions, its parent (which gets the steps it ends or forwards with) and the session's data, guard and
/// queues, and on nothing else: not on what a sibling tab or another branch of the tree shows. So a state whose
/// every flow was met, in exactly the same view, in a state explored already holds nothing new for any flow: what
/// its inputs do, each flow has done there already. Without the reduction the explorer would try every
/// combination of what independent flows show (the two tabs' stacks times the modals over them times...), which
/// is the product of their states; with it, each flow's states in each place once.
enum FlowView {
    /// The view of every flow of a state, by the flow's id.
    static func keys(of state: ExploredState) -> [FlowID: StateKey] {
        let inspection = state.inspection
        let tree = inspection.screens
        var local: [FlowID: StateKey] = [:]
        var owned: [FlowID: [PresentableID]] = [:]
        for id in state.screens {
            if let owner = tree[id]?.description.flow {
                owned[owner, default: []].append(id)
            }
        }
        var shared = StateHasher()
        shared.combine(inspection.pendingGuard.map { [$0.guardName, $0.subject, $0.step.name] })
        shared.combine(inspection.pendingGuard?.step.parameters)
        shared.combine(inspection.sessionData)
        shared.combine(inspection.queuedWork)
        shared.combine(inspection.waitingDeepLinks)
        let session = shared.finalize()
        let names = Dictionary(inspection.flows.map { ($0.id, $0.name) }) { first, _ in first }
        for flow in inspection.flows {
            var hasher = StateHasher()
            hasher.combine(session)
            hasher.combine(flow.name)
            hasher.combine(flow.isReady)
            hasher.combine(flow.stepper)
            hasher.combine(flow.children.map { names[$0] })
            let screens = owned[flow.id] ?? []
            var position: [PresentableID: Int] = [:]
            for (index, id) in screens.enumerated() {
                position[id] = index
            }
            hasher.combine(screens.count)
            for id in screens {
                guard let node = tree[id] else { continue }
                hasher.combine(node.description.name)
                hasher.combine(node.description.style)
                hasher.combine(node.description.parameters)
                hasher.combine(node.placement)
                hasher.combine(node.selectedTab)
                hasher.combine(inspection.visibility[id] == .visible)
                hasher.combine(id == flow.root)
                // Where it sits: under one of the flow's own screens, or under another flow's (by name: the
                // context, not what that flow shows).
                if let parent = node.parent {
                    if let index = position[parent] {
                        hasher.combine(index)
                    } else {
                        hasher.combine(tree[parent]?.description.name)
                        hasher.combine(tree[parent]?.placement)
                    }
                }
                // How many items it holds (its own, or child flows' roots: a tab, a pushed flow), not what they show.
                hasher.combine(node.items.count)
            }
            for contribution in inspection.contributions where contribution.flow == flow.id {
                hasher.combine(position[contribution.presentable])
                hasher.combine(tree[contribution.presentable]?.description.name)
                hasher.combine(inspection.visibility[contribution.presentable] == .visible)
                hasher.combine(contribution.stepper)
                hasher.combine(contribution.allowStepWhenNotPresented)
                hasher.combine(contribution.allowStepWhenDismissed)
            }
            local[flow.id] = hasher.finalize()
        }
        var keys: [FlowID: StateKey] = [:]
        for flow in inspection.flows {
            var hasher = StateHasher()
            hasher.combine(local[flow.id])
            hasher.combine(flow.parent.flatMap { local[$0] })
            keys[flow.id] = hasher.finalize()
        }
        return keys
    }
}
