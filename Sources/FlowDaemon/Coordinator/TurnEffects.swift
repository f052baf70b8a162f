import FlowStore

/// What the coordinator asks of the server at the end of a turn of the event loop, in this order: write what the
/// turn changed, then send what it produced. Nothing in ``messages`` may leave flowd before ``persist`` is written
/// (unless the durability is `off`), and the turns' messages leave in the order of the turns.
public struct TurnEffects: Sendable {
    /// What the turn changed (journal entries, snapshots, ended sessions, metadata): empty when nothing did, or
    /// when flowd is ephemeral.
    public var persist: StoreGroup
    /// Then: the answers to peers and the publications, in order.
    public var messages: [Outgoing]
    /// Messages that describe no state (heartbeats, `storeUnavailable`): they leave now, whatever waits for the
    /// store.
    public var immediate: [Outgoing] = []
}

extension Coordinator {
    /// Ends a turn: what it changed, ahead of the messages the turn's inputs produced; those among them that
    /// describe no state (sent `atOnce`) apart, to leave now.
    /// - Parameter messages: what the turn's inputs produced, in order.
    /// - Parameter everything: a graceful stop: every session with journal entries is written whole.
    public mutating func finishTurn(sending messages: [Outgoing], everything: Bool = false) -> TurnEffects {
        let persist = takeStoreGroup(everything: everything)
        guard !turn.immediate.isEmpty else { return TurnEffects(persist: persist, messages: messages) }
        // Each message has an id of its own in its header: equal frames are the same message.
        let immediate = turn.immediate
        let apart = Set(immediate)
        turn.immediate.removeAll(keepingCapacity: true)
        return TurnEffects(
            persist: persist,
            messages: messages.filter { !apart.contains($0) },
            immediate: immediate
        )
    }
}
