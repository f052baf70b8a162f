extension Session {
    /// Applies a presenter's report. Visible and hidden gate contributions' steps; dismissed removes the
    /// presentables from the screen (the presenter already did) with everything that follows from it.
    ///
    /// The whole report is checked first: a presentable never placed, or one shown by another presenter, refuses
    /// it all and changes nothing. One placed and removed since is left out, and the rest applies: a presenter
    /// reports what it drew, and a navigation it has not applied yet may have removed some of it (a modal dismissed
    /// and the screen under it popped in one turn) — refusing the report would leave what it does show `hidden`.
    mutating func report(
        _ visibility: Visibility,
        of reported: [PresentableID],
        by presenter: PresenterID?
    ) throws(FlowCoreError) {
        var presentables = reported
        presentables.removeAll { state.screens[$0] == nil && $0.rawValue <= state.ids.lastPresentable }
        for presentable in presentables {
            guard let node = state.screens[presentable] else {
                throw FlowCoreError(.unknownPresentable, "\(presentable) was never on screen in session \(id)")
            }
            if let presenter, node.presenter != presenter {
                throw FlowCoreError(
                    .foreignPresentable,
                    "\(presentable) is shown by presenter \(node.presenter), not \(presenter); report your own screens"
                )
            }
        }
        switch visibility {
        case .visible, .hidden, .unknown:
            for presentable in presentables where self.visibility(of: presentable) != visibility {
                state.visibility[presentable] = visibility == .unknown ? nil : visibility
                event(.visibilityChanged(presentable: presentable, visibility: visibility))
            }
            if visibility == .visible {
                // The tab the user chose covers the others: what they show is hidden at once.
                for presenter in selectTabs(shownBy: presentables).sorted() {
                    hideCovered(of: presenter)
                }
            }
        case .dismissed:
            for presentable in presentables {
                guard let node = state.screens[presentable], let flow = node.description.flow else {
                    continue  // Already removed with an earlier one of the report.
                }
                var batch = PendingBatch(flow: flow, step: nil)
                var removed: [PresentableID] = []
                if let change = try? state.screens.apply(.dismiss(presentable), for: node.presenter) {
                    removed = change.removed
                }
                handleRemoved(removed, batch: &batch)
                flush(batch)
            }
        }
        drain()
    }

    /// A tab the presenter says is visible, or that holds a screen it says is visible (however deep), is the one its
    /// user selected: the screen tree follows, so that a snapshot (a presenter that comes back, a restart) shows
    /// the same tab. A presenter may report only the screen on top.
    /// Returns the presenters whose selected tab changed.
    private mutating func selectTabs(shownBy presentables: [PresentableID]) -> Set<PresenterID> {
        var changed: Set<PresenterID> = []
        for presentable in presentables {
            var current = presentable
            while let node = state.screens[current], let parent = node.parent {
                if node.placement == .tab, let index = state.screens[parent]?.items.firstIndex(of: current),
                    state.screens[parent]?.selectedTab != index
                {
                    _ = try? state.screens.apply(.selectTab(parent, index: index), for: node.presenter)
                    changed.insert(node.presenter)
                }
                current = parent
            }
        }
        return changed
    }

    /// A presenter stopped answering: everything it shows becomes hidden (steps paused), not dismissed.
    mutating func presenterLost(_ presenter: PresenterID) {
        for presentable in state.screens.presentables(of: presenter) where visibility(of: presentable) == .visible {
            state.visibility[presentable] = .hidden
            event(.visibilityChanged(presentable: presentable, visibility: .hidden))
        }
    }
}
