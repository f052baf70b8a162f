import FlowCore

/// What the events socket's subscriptions ask of flowd: who watches the inspection stream (and the batches being
/// written for them), and the subscriptions to topics flowd does not publish, bounded (the subscribers to cut). No
/// clock: it is told the time.
struct Subscriptions: Sendable {
    /// Subscriptions to the inspection stream, one event per message (`ins/...`) and batched (`inb/...`).
    var inspection = InspectionSubscriptions()
    /// Batched inspection events waiting to be published (EVENTS bodies being written).
    var batches = PendingInspectionBatches()
    /// Subscriptions to topics flowd does not publish (yet).
    private(set) var unproven = UnprovenSubscriptions()
    /// The subscribers to cut for holding too many unproven topics, until the turn ends (``Coordinator/finishTurn(sending:everything:)`` hands them over in its effects).
    private var toCut: [String] = []
    private var lastRecheck: Int64 = .min / 2
    private var lastCut: Int64 = .min / 2

    /// The least time between two cuts (ms): what a cut gives back comes as unsubscriptions, a little later.
    static let cutInterval: Int64 = 100
    /// How often unproven topics are looked at again (ms).
    static let recheckInterval: Int64 = 1000

    /// A subscription to a topic flowd does not publish (or refused) from `address`; returns the address whose
    /// subscriber connections are to be cut, when unproven topics hold more than the bound and no cut was made in
    /// the last ``cutInterval``.
    mutating func addUnproven(_ topic: [UInt8], address: String, now: Int64) -> String? {
        unproven.add(topic, address: address)
        guard now - lastCut >= Self.cutInterval, let offender = unproven.addressToCut() else { return nil }
        lastCut = now
        toCut.append(offender)
        return offender
    }

    /// An unsubscription: the topic no longer counts, if it did.
    mutating func removeUnproven(_ topic: [UInt8]) {
        unproven.remove(topic)
    }

    /// What was counted for subscribers at `address` is forgotten.
    mutating func forgetUnproven(at address: String) {
        unproven.forget(address: address)
    }

    /// Once every ``recheckInterval``: the unproven topics to look at again (those flowd publishes now, their
    /// session started since, are then ``proven(_:)``); none when no look is due.
    mutating func unprovenToRecheck(now: Int64) -> Dictionary<[UInt8], UnprovenSubscriptions.Entry>.Keys? {
        guard now - lastRecheck >= Self.recheckInterval, !unproven.topics.isEmpty else { return nil }
        lastRecheck = now
        return unproven.topics.keys
    }

    /// Topics flowd publishes now: subscriptions like any other, no longer counted as unproven.
    mutating func proven(_ topics: Set<[UInt8]>) {
        guard !topics.isEmpty else { return }
        unproven.forget { topic, _ in topics.contains(topic) }
    }

    /// The addresses whose subscriber connections are to be cut, taken.
    mutating func takeSubscribersToCut() -> [String] {
        defer { toCut = [] }
        return toCut
    }
}
