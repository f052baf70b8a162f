import FlowWire

/// What the metrics endpoint shows of the coordinator, read on the loop's thread at each tick.
public struct CoordinatorFigures: Sendable {
    /// The counters (as the `stats` query has them).
    public var counters: Counters
    /// Sessions held.
    public var sessions: Int
    /// Registered peers, by role.
    public var peersByRole: [Role: Int]
    /// Journal entries of this turn not yet handed to the writer.
    public var pendingJournalEntries: Int
    /// Inspection events waiting to go out together.
    public var pendingInspectionEvents: Int

    package init(
        counters: Counters,
        sessions: Int,
        peersByRole: [Role: Int],
        pendingJournalEntries: Int,
        pendingInspectionEvents: Int
    ) {
        self.counters = counters
        self.sessions = sessions
        self.peersByRole = peersByRole
        self.pendingJournalEntries = pendingJournalEntries
        self.pendingInspectionEvents = pendingInspectionEvents
    }
}

extension Coordinator {
    /// The figures the metrics endpoint shows; cheap enough for every tick (no session is read).
    public var figures: CoordinatorFigures {
        var peersByRole: [Role: Int] = [:]
        for peer in peers.all {
            peersByRole[peer.role, default: 0] += 1
        }
        return CoordinatorFigures(
            counters: counters,
            sessions: engine.sessionCount,
            peersByRole: peersByRole,
            pendingJournalEntries: pendingJournalEntries,
            pendingInspectionEvents: subscriptions.batches.count
        )
    }
}
