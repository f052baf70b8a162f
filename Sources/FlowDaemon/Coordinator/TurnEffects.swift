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
}

extension Coordinator {
    /// Ends a turn: what it changed, ahead of the messages the turn's inputs produced.
    /// - Parameter everything: a graceful stop: every session with journal entries is written whole.
    public mutating func finishTurn(sending messages: [Outgoing], everything: Bool = false) -> TurnEffects {
        TurnEffects(persist: takeStoreGroup(everything: everything), messages: messages)
    }
}
