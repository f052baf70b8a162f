import FlowCore
import FlowStore

/// What the coordinator asks of the server at the end of a turn of the event loop, in this order: write what the
/// turn changed, then send what it produced. Nothing in ``messages`` may leave flowd before ``persist`` is written
/// (unless the durability is `off`), and the turns' messages leave in the order of the turns. Then: cut the
/// subscribers that hold too many topics flowd does not publish, and ask a fleet's store where sessions are served.
public struct TurnEffects: Sendable {
    /// A session to ask a fleet's store about, and whether a HELLO waiting for it would create it (then it is
    /// claimed when nobody owns it).
    public typealias SessionToLocate = (session: SessionID, claiming: Bool)

    /// What the turn changed (journal entries, snapshots, ended sessions, metadata): empty when nothing did, or
    /// when flowd is ephemeral.
    public var persist: StoreGroup
    /// Then: the answers to peers and the publications, in order.
    public var messages: [Outgoing]
    /// Messages that describe no state (heartbeats, `storeUnavailable`): they leave now, whatever waits for the
    /// store.
    public var immediate: [Outgoing] = []
    /// The addresses whose subscriber connections are to be cut (they hold the most unproven topics).
    public var subscribersToCut: [String] = []
    /// The sessions to ask a fleet's store about, after the turn's group is handed to the writer (a session that
    /// ended in this turn is then free in the store).
    public var sessionsToLocate: [SessionToLocate] = []
}

extension Coordinator {
    /// Ends a turn: what it changed, ahead of the messages the turn's inputs produced; those among them that
    /// describe no state (sent `atOnce`) apart, to leave now.
    /// - Parameter messages: what the turn's inputs produced, in order.
    /// - Parameter everything: a graceful stop: every session with journal entries is written whole.
    public mutating func finishTurn(sending messages: [Outgoing], everything: Bool = false) -> TurnEffects {
        var effects = TurnEffects(persist: takeStoreGroup(everything: everything), messages: messages)
        effects.subscribersToCut = subscriptions.takeSubscribersToCut()
        effects.sessionsToLocate = takeSessionsToLocate()
        guard !turn.immediate.isEmpty else { return effects }
        // Each message has an id of its own in its header: equal frames are the same message.
        let apart = Set(turn.immediate)
        effects.immediate = turn.immediate
        effects.messages.removeAll { apart.contains($0) }
        turn.immediate.removeAll(keepingCapacity: true)
        return effects
    }
}
