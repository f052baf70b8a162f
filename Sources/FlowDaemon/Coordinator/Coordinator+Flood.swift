import FlowWire

/// A peer's allowance of messages: a token bucket refilled at the configured rate, holding up to twice the rate.
struct MessageAllowance: Sendable, Hashable {
    var tokens: Double
    /// When the tokens were last counted (ms since 1970).
    var counted: Int64
    /// When the peer was last told it floods (ms since 1970).
    var warned: Int64?
}

extension Coordinator {
    /// Whether a peer may send one more message now. A peer over its rate has the message dropped and counted
    /// (`errors.flood`), and hears one `flood` ERROR (and flowd logs one line) per second, not one per message.
    mutating func admitMessage(from peer: String) -> Bool {
        let rate = configuration.peerMessageRate
        guard rate > 0 else { return true }
        let capacity = Double(rate * 2)
        var allowance = allowances[peer] ?? MessageAllowance(tokens: capacity, counted: now)
        allowance.tokens = min(capacity, allowance.tokens + Double(now - allowance.counted) * Double(rate) / 1000)
        allowance.counted = now
        defer { allowances[peer] = allowance }
        if allowance.tokens >= 1 {
            allowance.tokens -= 1
            return true
        }
        Counters.bump(&counters.errors, "flood")
        if allowance.warned.map({ now - $0 >= 1000 }) ?? true {
            allowance.warned = now
            logger.info("a peer sends more than \(rate) messages per second; dropping", metadata: ["peer": "\(peer)"])
            send(
                .error(
                    ErrorReply(
                        .flood,
                        message: "more than \(rate) messages per second; messages are dropped until you slow down"
                    )
                ),
                to: peer,
                session: peers[peer]?.session,
                correlation: nil
            )
        }
        return false
    }

    /// Forgets the allowances of peers quiet long enough to have a full bucket again.
    mutating func forgetQuietAllowances() {
        let refill = Int64(2000)
        allowances = allowances.filter { now - $0.value.counted < refill }
    }
}
