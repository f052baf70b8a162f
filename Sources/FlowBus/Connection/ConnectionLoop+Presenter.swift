import FlowCore
import FlowWire

extension ConnectionLoop {
    private var presenter: PresenterID { PresenterID(setup.name) }

    /// Asks for a snapshot; until it comes, command batches wait.
    func requestSnapshot(_ reason: RebuildReason) {
        guard setup.role == .presenter else { return }
        // The first reason wins: a restart seen first stays the reason even if a gap follows.
        snapshotReason = snapshotReason ?? reason
        if registered && subscriptionLive {
            sendSnapshotRequest()
        }
    }

    /// flowd confirmed the subscription: a snapshot asked for from now on leaves no gap.
    func subscriptionConfirmed() {
        let wasLive = subscriptionLive
        subscriptionLive = true
        if !wasLive, snapshotReason != nil, registered {
            sendSnapshotRequest()
        }
    }

    /// Sends SNAPSHOT_REQUEST (again, when the last one went unanswered for too long).
    func sendSnapshotRequest() {
        snapshotRequestedAt = clock.now
        send(.snapshotRequest(SnapshotRequest()), session: setup.session)
    }

    /// A published batch: applied when it is the next one of this run of flowd, else a resync.
    func received(_ batch: CommandsMessage) {
        guard batch.presenter == setup.name else { return }
        if snapshotReason != nil {
            buffered.append(batch)
            return
        }
        if batch.epoch == epoch && batch.sequence <= applied {
            return  // Already part of the last snapshot.
        }
        guard batch.epoch == epoch, batch.sequence == applied + 1 else {
            let reason: RebuildReason = epoch != nil && batch.epoch != epoch ? .daemonRestarted : .gap
            setup.options.logger.info(
                "navigation \(batch.sequence) arrived after \(applied) (\(reason.rawValue)); resyncing from a snapshot"
            )
            buffered.append(batch)
            requestSnapshot(reason)
            return
        }
        var screens = tree
        do {
            for command in batch.commands {
                try screens.apply(command, for: presenter)
            }
        } catch {
            setup.options.logger.info("navigation \(batch.sequence) does not fit the screens (\(error)); resyncing")
            requestSnapshot(.inconsistent)
            return
        }
        tree = screens
        applied = batch.sequence
        connection.screens.withLock { $0 = screens }
        connection.updates?.yield(
            .navigate(
                Navigation(
                    sequence: batch.sequence,
                    commands: batch.commands,
                    flow: batch.flow,
                    step: batch.step,
                    screens: screens
                )
            )
        )
    }

    /// A snapshot: the screens are rebuilt from it, then the batches that came meanwhile are applied.
    func received(_ snapshot: SnapshotMessage) {
        guard setup.role == .presenter, snapshot.presenter == setup.name, var reason = snapshotReason else { return }
        if let epoch, epoch != snapshot.epoch {
            reason = .daemonRestarted
        }
        var screens = ScreenTree()
        for command in snapshot.commands {
            do {
                try screens.apply(command, for: presenter)
            } catch {
                setup.options.logger.info("the snapshot does not build ({\(error)); showing what it could")
            }
        }
        snapshotReason = nil
        snapshotRequestedAt = nil
        tree = screens
        epoch = snapshot.epoch
        applied = snapshot.sequence
        // flowd forgot what was reported when the presenter was lost or flowd restarted: report everything again.
        reportedVisible = []
        connection.screens.withLock { $0 = screens }
        connection.updates?.yield(
            .rebuild(
                Rebuild(reason: reason, commands: snapshot.commands, sequence: snapshot.sequence, screens: screens)
            )
        )
        // Only what follows the snapshot in this run of flowd; older batches (another run's) are dropped.
        let waiting = buffered.filter { $0.epoch == snapshot.epoch && $0.sequence > snapshot.sequence }
            .sorted { $0.sequence < $1.sequence }
        buffered = []
        for batch in waiting {
            received(batch)
        }
    }

    /// Reports the screens visible in `screens` as visible, and those reported before that are still on screen
    /// but no longer visible as hidden. (Screens the commands removed are dismissed by flowd itself.)
    ///
    /// Only what is still on screen in the tree this client has applied is reported: the application may report an
    /// update it drew while a later navigation, applied here already, removed some of its screens (a modal dismissed
    /// and the screen under it popped in one turn). What was reported before and is gone now, flowd removed itself.
    func reportVisible(_ screens: ScreenTree) {
        reportsVisibility = true
        let visible = Set(screens.visiblePresentables(of: presenter).filter { tree[$0] != nil })
        let appeared = visible.subtracting(reportedVisible).sorted()
        let hidden = reportedVisible.subtracting(visible).filter { tree[$0] != nil }.sorted()
        reportedVisible = visible
        selectTabs(shownBy: appeared, in: screens)
        if !hidden.isEmpty {
            queueOrSend(.visibility(VisibilityReport(visibility: .hidden, presentables: hidden)))
        }
        if !appeared.isEmpty {
            queueOrSend(.visibility(VisibilityReport(visibility: .visible, presentables: appeared)))
        }
        // The screens are reported again after a snapshot: the steps sent as them go now, after the report.
        if snapshotReason == nil {
            releaseScreenSteps()
        }
    }

    /// Sends the steps that waited for the screens to be reported again, in order.
    func releaseScreenSteps() {
        guard holdsScreenSteps, registered else { return }
        holdsScreenSteps = false
        for sequence in inFlight.keys.sorted() {
            transmit(sequence)
        }
    }

    /// A tab the application reports visible is the one its user selected: flowd's screen tree follows (the same
    /// rule), and so does this client's, so that what it works out later (the screens a dismissal uncovers, the
    /// tree ``PresenterClient/screens`` gives) shows the same tab.
    private func selectTabs(shownBy presentables: [PresentableID], in screens: ScreenTree) {
        var changed = false
        for presentable in presentables {
            guard let node = screens[presentable], node.placement == .tab, let tabs = node.parent,
                let index = tree[tabs]?.items.firstIndex(of: presentable), tree[tabs]?.selectedTab != index,
                (try? tree.apply(.selectTab(tabs, index: index), for: presenter)) != nil
            else { continue }
            changed = true
        }
        if changed {
            connection.screens.withLock { [tree] in $0 = tree }
        }
    }

    /// Reports screens the user dismissed (a back gesture, a closed modal) and removes them, with what they hold,
    /// from the screens; then, if the application reports visibility through ``reportVisible(_:)``, the screens
    /// they uncovered are reported visible.
    func reportDismissed(_ presentables: [PresentableID]) {
        queueOrSend(.visibility(VisibilityReport(visibility: .dismissed, presentables: presentables)))
        var screens = tree
        for presentable in presentables where screens[presentable] != nil {
            _ = try? screens.apply(.dismiss(presentable), for: presenter)
        }
        tree = screens
        connection.screens.withLock { $0 = screens }
        reportedVisible = reportedVisible.filter { screens[$0] != nil }
        if reportsVisibility {
            reportVisible(screens)
        }
    }

    private func queueOrSend(_ message: FlowWire.Message) {
        if registered {
            send(message, session: setup.session)
        } else {
            unsent.append((message, setup.session))
        }
    }
}
