import FlowStore

/// flowd's side of its store: what the turn has to write (the journal buffer), and how the store is, as the
/// server last saw it (not answering, what it holds, groups waiting to be written).
struct StoreLink: Sendable {
    /// What goes to the store: journal entries and snapshots waiting for the end of the turn.
    var journal: JournalBuffer
    /// Why the store does not answer, while it does not: HELLOs are refused with `storeUnavailable` meanwhile.
    var unavailable: String?
    /// What the store holds and how fast it writes, as the server last read it (`nil` when ephemeral).
    var statistics: StoreStatistics?
    /// Groups handed to the journal writer and not yet written, as the server last saw.
    var groupsWaiting = 0

    init(durable: Bool, startedAt: Int64) {
        journal = JournalBuffer(isEnabled: durable, startedAt: startedAt)
    }
}
