import FlowWire

/// A peer's allowance of messages and bytes: two token buckets refilled at the configured rates, each holding up
/// to twice its rate.
struct MessageAllowance: Sendable, Hashable {
    var messages: Double
    var bytes: Double
    /// When the tokens were last counted (flowd's clock, ms).
    var counted: Int64
    /// When the peer was last told it floods.
    var warned: Int64?
    /// When the peer started flooding: its first dropped message after a second without any.
    var floodingSince: Int64?
    /// When its last message was dropped.
    var lastDropped: Int64?
}

extension Coordinator {
    /// How long a peer may go on flooding before flowd forgets it (it must say HELLO again), in milliseconds.
    static let floodingPeerForgottenAfter: Int64 = 5000

    /// Whether a peer may send one more message of `bytes` bytes now, counted before the message is read (reading
    /// costs by the byte). A peer over either rate has the message dropped and counted (`errors.flood`, and
    /// `boundsHit`), and hears one `flood` ERROR (and flowd logs one line) per second, not one per message; a peer
    /// whose messages are still dropped ``floodingPeerForgottenAfter`` after its flood began (drops less than a
    /// second apart) is forgotten, as a silent one is.
    mutating func admitMessage(from peer: String, bytes: Int) -> Bool {
        let messageRate = Double(configuration.peerMessageRate)
        let byteRate = Double(configuration.peerByteRate)
        guard messageRate > 0 || byteRate > 0 else { return true }
        // Counted in place, with one lookup: nearly every message is within its peer's allowance.
        let now = self.now
        let within = Self.spend(
            &allowances[peer, default: MessageAllowance(messages: messageRate * 2, bytes: byteRate * 2, counted: now)],
            messageRate: messageRate,
            byteRate: byteRate,
            bytes: bytes,
            now: now
        )
        if within {
            return true
        }
        guard var allowance = allowances[peer] else { return false }
        defer { allowances[peer] = allowance }
        let overBytes = byteRate > 0 && allowance.bytes < Double(bytes)
        Counters.bump(&counters.errors, "flood")
        counters.boundsHit[overBytes ? "byteRate" : "messageRate", default: 0] += 1
        // A flood goes on while drops come less than a second apart, whatever passes in between.
        if allowance.lastDropped.map({ now - $0 > 1000 }) ?? true {
            allowance.floodingSince = now
        }
        allowance.lastDropped = now
        if now - (allowance.floodingSince ?? now) >= Self.floodingPeerForgottenAfter, peers[peer] != nil {
            counters.boundsHit["floodingPeer", default: 0] += 1
            unregister(peer, reason: "flooded for more than \(Self.floodingPeerForgottenAfter) ms")
        }
        if allowance.warned.map({ now - $0 >= 1000 }) ?? true {
            allowance.warned = now
            let limit =
                overBytes
                ? "more than \(configuration.peerByteRate) bytes per second"
                : "more than \(configuration.peerMessageRate) messages per second"
            logger.info("a peer sends \(limit); dropping", metadata: ["peer": "\(LogText.quoted(peer))"])
            send(
                .error(ErrorReply(.flood, message: "\(limit); messages are dropped until you slow down")),
                to: peer,
                session: peers[peer]?.session,
                correlation: nil
            )
        }
        return false
    }

    /// Refills an allowance for the time passed and, when it holds a message of `bytes` bytes, takes them from it.
    private static func spend(
        _ allowance: inout MessageAllowance,
        messageRate: Double,
        byteRate: Double,
        bytes: Int,
        now: Int64
    ) -> Bool {
        let elapsed = Double(now - allowance.counted) / 1000
        allowance.messages = min(messageRate * 2, allowance.messages + elapsed * messageRate)
        allowance.bytes = min(byteRate * 2, allowance.bytes + elapsed * byteRate)
        allowance.counted = now
        let overMessages = messageRate > 0 && allowance.messages < 1
        let overBytes = byteRate > 0 && allowance.bytes < Double(bytes)
        guard !overMessages && !overBytes else { return false }
        allowance.messages -= 1
        allowance.bytes -= Double(bytes)
        return true
    }

    /// Forgets the allowances of peers quiet long enough to have full buckets again.
    mutating func forgetQuietAllowances() {
        let refill = Int64(2000)
        allowances = allowances.filter { now - $0.value.counted < refill }
    }
}
