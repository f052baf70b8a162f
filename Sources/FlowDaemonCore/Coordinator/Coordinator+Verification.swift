import FlowWire

extension Coordinator {
    /// A control connection ended. With CURVE, every registered peer is unverified until it speaks again: its id
    /// may be taken by a connection of another key (libzmq gives a free id to whoever asks for it), so what is sent
    /// under the id waits (at most 1 000 messages a peer) until the peer's own key is heard there.
    public mutating func controlConnectionEnded() {
        guard setup.configuration.curve != nil else { return }
        peers.connectionEnded()
    }

    /// Keeps a message for an unverified peer (at most ``PeerRegistry/heldLimit``; beyond, the bound is hit).
    mutating func hold(_ outgoing: Outgoing, for peer: String) {
        guard peers.hold(outgoing, for: peer) else {
            noteBoundHit(
                "heldReplies",
                "a peer not heard since a connection ended has too many replies waiting",
                peer: peer
            )
            return
        }
    }
}
