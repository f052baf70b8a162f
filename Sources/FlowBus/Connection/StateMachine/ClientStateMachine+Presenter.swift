import FlowCore
import FlowWire

extension ClientStateMachine {
    /// A presenter's screens as flowd's command stream built them, and what the application reported of them.
    struct Presenter {
        var tree = ScreenTree()
        /// The run of flowd the screens come from (its snapshot's epoch); `nil` before the first snapshot.
        var epoch: String?
        /// The sequence of the last batch applied.
        var applied: UInt64 = 0
        var reportedVisible: Set<PresentableID> = []
        /// Whether the application reports visibility with `reportVisible` (then dismissals report what they uncover).
        var reportsVisibility = false
        var resync: Resync

        init(lastSubscribed: Instant, snapshotReason: RebuildReason?) {
            resync = Resync(reason: snapshotReason, lastSubscribed: lastSubscribed)
        }

        /// Whether a snapshot was applied already (the run of flowd it came from is known).
        var hasBuilt: Bool { epoch != nil }
    }

    /// Resyncing a presenter from a snapshot: why, since when, and the batches that wait for it.
    struct Resync {
        /// Why a snapshot is wanted; `nil` while the screens follow the command stream.
        var reason: RebuildReason?
        /// When the last SNAPSHOT_REQUEST went (it is sent again when unanswered for too long).
        var requestedAt: Instant?
        /// Whether flowd confirmed the presenter's subscription (a HEARTBEAT on its topic): only then does a snapshot
        /// leave no gap, so it is asked for only then.
        var subscriptionLive = false
        /// When the events connection was last (re)made.
        var lastSubscribed: Instant
        /// Batches published while a snapshot is awaited.
        var buffered: [CommandsMessage] = []
    }

    private var presenterID: PresenterID { PresenterID(setup.name) }

    /// Asks for a snapshot; until it comes, command batches wait.
    mutating func requestSnapshot(_ reason: RebuildReason, now: Instant) {
        guard setup.role == .presenter else { return }
        // The first reason wins: a restart seen first stays the reason even if a gap follows.
        presenter.resync.reason = presenter.resync.reason ?? reason
        if registration.registered && presenter.resync.subscriptionLive {
            sendSnapshotRequest(now: now)
        }
    }

    /// flowd confirmed the subscription: a snapshot asked for from now on leaves no gap.
    mutating func subscriptionConfirmed(now: Instant) {
        let wasLive = presenter.resync.subscriptionLive
        presenter.resync.subscriptionLive = true
        if !wasLive, presenter.resync.reason != nil, registration.registered {
            sendSnapshotRequest(now: now)
        }
    }

    /// Sends SNAPSHOT_REQUEST (again, when the last one went unanswered for too long).
    mutating func sendSnapshotRequest(now: Instant) {
        presenter.resync.requestedAt = now
        send(.snapshotRequest(SnapshotRequest()), session: setup.session, now: now)
    }

    /// A published batch: applied when it is the next one of this run of flowd, else a resync.
    mutating func received(_ batch: CommandsMessage, now: Instant) {
        guard batch.presenter == setup.name else { return }
        if presenter.resync.reason != nil {
            presenter.resync.buffered.append(batch)
            return
        }
        if batch.epoch == presenter.epoch && batch.sequence <= presenter.applied {
            return  // Already part of the last snapshot.
        }
        guard batch.epoch == presenter.epoch, batch.sequence == presenter.applied + 1 else {
            let reason: RebuildReason =
                presenter.epoch != nil && batch.epoch != presenter.epoch ? .daemonRestarted : .gap
            log(
                .info,
                "navigation \(batch.sequence) arrived after \(presenter.applied) (\(reason.rawValue)); resyncing from a snapshot"
            )
            presenter.resync.buffered.append(batch)
            requestSnapshot(reason, now: now)
            return
        }
        var screens = presenter.tree
        do {
            for command in batch.commands {
                try screens.apply(command, for: presenterID)
            }
        } catch {
            log(.info, "navigation \(batch.sequence) does not fit the screens (\(error)); resyncing")
            requestSnapshot(.inconsistent, now: now)
            return
        }
        presenter.tree = screens
        presenter.applied = batch.sequence
        let navigation = Navigation(
            sequence: batch.sequence,
            commands: batch.commands,
            flow: batch.flow,
            step: batch.step,
            screens: screens
        )
        perform(.present(.navigate(navigation)))
    }

    /// A snapshot: the screens are rebuilt from it, then the batches that came meanwhile are applied.
    mutating func received(_ snapshot: SnapshotMessage, now: Instant) {
        guard setup.role == .presenter, snapshot.presenter == setup.name, var reason = presenter.resync.reason
        else { return }
        if let epoch = presenter.epoch, epoch != snapshot.epoch {
            reason = .daemonRestarted
        }
        var screens = ScreenTree()
        for command in snapshot.commands {
            do {
                try screens.apply(command, for: presenterID)
            } catch {
                log(.info, "the snapshot does not build ({\(error)); showing what it could")
            }
        }
        presenter.resync.reason = nil
        presenter.resync.requestedAt = nil
        presenter.tree = screens
        presenter.epoch = snapshot.epoch
        presenter.applied = snapshot.sequence
        // flowd forgot what was reported when the presenter was lost or flowd restarted: report everything again.
        presenter.reportedVisible = []
        let rebuild = Rebuild(
            reason: reason,
            commands: snapshot.commands,
            sequence: snapshot.sequence,
            screens: screens
        )
        perform(.present(.rebuild(rebuild)))
        // Only what follows the snapshot in this run of flowd; older batches (another run's) are dropped.
        let waiting = presenter.resync.buffered.filter { $0.epoch == snapshot.epoch && $0.sequence > snapshot.sequence }
            .sorted { $0.sequence < $1.sequence }
        presenter.resync.buffered = []
        for batch in waiting {
            received(batch, now: now)
        }
    }
}
