extension Session {
    /// Carries out what the removal of presentables from the screen means: each is dismissed, contributions
    /// on it end (unless they allow dismissal), and flows whose root it is end with their descendants (unless
    /// the flow allows dismissal).
    mutating func handleRemoved(_ removed: [PresentableID], batch: inout PendingBatch) {
        guard !removed.isEmpty else {
            return
        }
        // Most navigations remove one screen or none: a set only for many.
        let removedSet = removed.count > 16 ? Set(removed) : nil
        let isRemoved = { (presentable: PresentableID) in
            removedSet?.contains(presentable) ?? removed.contains(presentable)
        }
        for presentable in removed {
            state.visibility[presentable] = nil
            event(.visibilityChanged(presentable: presentable, visibility: .dismissed))
        }
        // The contributions are gone through again only when one of them was on a removed screen.
        // Those kept are moved down in place: the list keeps its storage for the next contribution.
        if state.contributions.contains(where: { isRemoved($0.presentable) }) {
            var kept = 0
            for index in state.contributions.indices {
                var contribution = state.contributions[index]
                if isRemoved(contribution.presentable) {
                    guard contribution.allowStepWhenDismissed else {
                        remember(
                            contribution.stepper,
                            on: contribution.presentable,
                            .dismissed(contribution.presentable)
                        )
                        continue
                    }
                    contribution.presentableDismissed = true
                }
                state.contributions[kept] = contribution
                kept += 1
            }
            state.contributions.removeLast(state.contributions.count - kept)
        }
        guard state.flows.values.contains(where: { isRemoved($0.root) && !$0.allowStepWhenDismissed }) else { return }
        for flowID in state.flowsInPreorder() {
            guard let record = state.flows[flowID], isRemoved(record.root), !record.allowStepWhenDismissed
            else {
                continue
            }
            endFlow(flowID, reason: "its root \(record.root) was dismissed", batch: &batch)
        }
    }

    /// Ends a flow: first its descendants, then its contributions and its own stepper; the parent stops
    /// waiting for it. When the flow restores its parent's UI, its root is removed from the screen.
    mutating func endFlow(_ flowID: FlowID, reason: String, batch: inout PendingBatch) {
        // Removed first, so that its children ending does not make it ready on the way out.
        guard let record = state.flows.removeValue(forKey: flowID) else {
            return
        }
        for child in record.children {
            endFlow(child, reason: "its parent \(flowID) ended", batch: &batch)
        }
        flows[flowID] = nil
        var kept: [Contribution] = []
        for contribution in state.contributions {
            if contribution.flow == flowID {
                remember(contribution.stepper, on: contribution.presentable, .flowEnded(flowID))
            } else {
                kept.append(contribution)
            }
        }
        state.contributions = kept
        remember(record.stepper, on: record.root, .flowEnded(flowID))
        event(.flowEnded(flow: flowID, name: record.name, reason: reason))

        if let parentID = record.parent, var parent = state.flows[parentID] {
            parent.children.removeAll { $0 == flowID }
            parent.waitingFor?.removeAll { $0 == flowID }
            state.flows[parentID] = parent
            if parent.waitingFor?.isEmpty == true && !parent.isReady {
                markReady(parentID)
            }
        }
        if record.restoresParentOnEnd, let node = state.screens[record.root] {
            if let change = batch.run(.dismiss(record.root), for: node.presenter, on: &state.screens) {
                handleRemoved(change.removed, batch: &batch)
            }
        }
    }

    /// Remembers an ended binding, to explain steps that still come for it; the oldest are forgotten.
    private mutating func remember(_ stepper: Stepper, on presentable: PresentableID, _ reason: DropReason) {
        guard stepper.listensToSteppers || stepper.listensToPresentable else {
            return
        }
        state.ended.append(EndedBinding(stepper: stepper, presentable: presentable, reason: reason))
        // The last `endedMemory` are what the session remembers (steps look only at those, a snapshot keeps only
        // those); the older ones go a batch at a time, as twice as many are there: letting the oldest go on every
        // step moved all the others down each time.
        if state.ended.count > 2 * options.endedMemory {
            state.ended.removeFirst(state.ended.count - options.endedMemory)
        }
    }

    /// After a flow navigated a step: a flow becomes ready once it navigated its first step and the child
    /// flows that step started are ready.
    mutating func updateReadiness(of flowID: FlowID, startedChildren: [FlowID]) {
        // Read and changed where it is kept: a flow that navigated before (most steps) is not copied out to see it.
        guard let index = state.flows.index(forKey: flowID),
            !state.flows.inPlace(at: index, { $0.waitingFor != nil })
        else {
            return
        }
        let waitingFor = startedChildren.filter { child in
            state.flows.index(forKey: child).map { !state.flows.inPlace(at: $0, \.isReady) } ?? false
        }
        state.flows.inPlace(at: index) { $0.waitingFor = waitingFor }
        if waitingFor.isEmpty {
            markReady(flowID)
        }
    }

    /// Marks a flow ready (latched), tells its parent, and at the root lets waiting deep links in.
    mutating func markReady(_ flowID: FlowID) {
        guard var record = state.flows[flowID], !record.isReady else {
            return
        }
        record.isReady = true
        state.flows[flowID] = record
        event(.flowReady(flow: flowID))
        if let parentID = record.parent, var parent = state.flows[parentID], parent.waitingFor != nil {
            parent.waitingFor?.removeAll { $0 == flowID }
            state.flows[parentID] = parent
            if parent.waitingFor?.isEmpty == true {
                markReady(parentID)
            }
        }
        if flowID == state.rootFlow {
            releaseWaitingDeepLinks()
        }
    }
}
