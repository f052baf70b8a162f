import FlowWire

extension Coordinator {
    /// The rates of the configuration, as the ``Allowances`` take them.
    var allowanceRates: Allowances.Rates {
        Allowances.Rates(
            messagesPerSecond: setup.configuration.peerMessageRate,
            bytesPerSecond: setup.configuration.peerByteRate,
            sessionsPerMinute: setup.configuration.sessionsPerPeerPerMinute
        )
    }

    /// Whether a peer may send one more message of `bytes` bytes now (``Allowances/admit(from:bytes:now:rates:)``).
    /// A dropped message is counted (`errors.flood`, and `boundsHit`); its peer hears one `flood` ERROR (and flowd
    /// logs one line) per second, not one per message, and is forgotten when it floods too long, as a silent one is.
    mutating func admitMessage(from peer: String, bytes: Int) -> Bool {
        guard let drop = allowances.admit(from: peer, bytes: bytes, now: now, rates: allowanceRates) else {
            return true
        }
        Counters.bump(&counters.errors, "flood")
        counters.boundsHit[drop.bound, default: 0] += 1
        if drop.forget, peers[peer] != nil {
            counters.boundsHit["floodingPeer", default: 0] += 1
            unregister(peer, reason: "flooded for more than \(Allowances.floodingPeerForgottenAfter) ms")
        }
        if let limit = drop.warning {
            setup.logger.info("a peer sends \(limit); dropping", metadata: ["peer": "\(LogText.quoted(peer))"])
            send(
                .error(ErrorReply(.flood, message: "\(limit); messages are dropped until you slow down")),
                to: peer,
                session: peers[peer]?.session,
                correlation: nil
            )
        }
        return false
    }
}
