import FlowCore
import FlowWire

extension ClientStateMachine {
    /// Reports the screens visible in `screens` as visible, and those reported before that are still on screen
    /// but no longer visible as hidden. (Screens the commands removed are dismissed by flowd itself.)
    ///
    /// Only what is still on screen in the tree this client has applied is reported: the application may report an
    /// update it drew while a later navigation, applied here already, removed some of its screens (a modal dismissed
    /// and the screen under it popped in one turn). What was reported before and is gone now, flowd removed itself.
    mutating func reportVisible(_ screens: ScreenTree, now: Instant) {
        presenter.reportsVisibility = true
        let tree = presenter.tree
        let visible = Set(screens.visiblePresentables(of: PresenterID(setup.name)).filter { tree[$0] != nil })
        let appeared = visible.subtracting(presenter.reportedVisible).sorted()
        let hidden = presenter.reportedVisible.subtracting(visible).filter { tree[$0] != nil }.sorted()
        presenter.reportedVisible = visible
        selectTabs(shownBy: appeared, in: screens)
        if !hidden.isEmpty {
            sendWhenRegistered(
                .visibility(VisibilityReport(visibility: .hidden, presentables: hidden)),
                session: setup.session,
                now: now
            )
        }
        if !appeared.isEmpty {
            sendWhenRegistered(
                .visibility(VisibilityReport(visibility: .visible, presentables: appeared)),
                session: setup.session,
                now: now
            )
        }
        // The screens are reported again after a snapshot: the steps sent as them go now, after the report.
        if presenter.resync.reason == nil {
            releaseScreenSteps(now: now)
        }
    }

    /// Sends the steps that waited for the screens to be reported again, in order.
    mutating func releaseScreenSteps(now: Instant) {
        guard outbox.heldSince != nil, registration.registered else { return }
        outbox.heldSince = nil
        transmitInFlight(now: now)
    }

    /// A tab the application reports visible is the one its user selected: flowd's screen tree follows (the same
    /// rule), and so does this client's, so that what it works out later (the screens a dismissal uncovers, the
    /// tree ``PresenterClient/screens`` gives) shows the same tab.
    private mutating func selectTabs(shownBy presentables: [PresentableID], in screens: ScreenTree) {
        var changed = false
        for presentable in presentables {
            guard let node = screens[presentable], node.placement == .tab, let tabs = node.parent,
                let index = presenter.tree[tabs]?.items.firstIndex(of: presentable),
                presenter.tree[tabs]?.selectedTab != index,
                (try? presenter.tree.apply(.selectTab(tabs, index: index), for: PresenterID(setup.name))) != nil
            else { continue }
            changed = true
        }
        if changed {
            perform(.publishScreens(presenter.tree))
        }
    }

    /// Reports screens the user dismissed (a back gesture, a closed modal) and removes them, with what they hold,
    /// from the screens; then, if the application reports visibility through ``reportVisible(_:now:)``, the screens
    /// they uncovered are reported visible.
    mutating func reportDismissed(_ presentables: [PresentableID], now: Instant) {
        sendWhenRegistered(
            .visibility(VisibilityReport(visibility: .dismissed, presentables: presentables)),
            session: setup.session,
            now: now
        )
        var screens = presenter.tree
        for presentable in presentables where screens[presentable] != nil {
            _ = try? screens.apply(.dismiss(presentable), for: PresenterID(setup.name))
        }
        presenter.tree = screens
        perform(.publishScreens(screens))
        presenter.reportedVisible = presenter.reportedVisible.filter { screens[$0] != nil }
        if presenter.reportsVisibility {
            reportVisible(screens, now: now)
        }
    }
}
