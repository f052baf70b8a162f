import FlowWire

/// What each peer may still send and create: per peer, two token buckets for its messages and bytes (refilled at
/// the configured rates, each holding up to twice its rate) and one for the sessions it creates (a minute's worth,
/// refilled over the minute). A value with no clock of its own and no effects: each call is given flowd's clock
/// and answers with a decision that the ``Coordinator`` carries out (counting, telling the peer, forgetting it).
struct Allowances: Sendable {
    /// The rates the buckets refill at (`0`: no limit).
    struct Rates: Sendable, Hashable {
        var messagesPerSecond: Int
        var bytesPerSecond: Int
        var sessionsPerMinute: Int
    }

    /// A message dropped for going over a rate.
    struct Drop: Sendable, Hashable {
        /// Which bound it hit: `messageRate` or `byteRate`.
        let bound: String
        /// What to tell the peer (and log) about it; `nil` when it was told less than a second ago.
        let warning: String?
        /// The peer's messages have been dropped for ``Allowances/floodingPeerForgottenAfter``: forget it.
        let forget: Bool
    }

    /// How long a peer may go on flooding before flowd forgets it (it must say HELLO again), in milliseconds.
    static let floodingPeerForgottenAfter: Int64 = 5000

    private var messages: [String: MessageAllowance] = [:]
    private var creations: [String: SessionCreationAllowance] = [:]
    /// When each bound hit (or other warning) was last logged.
    private var logged: [String: Int64] = [:]

    /// How often a warning of one kind is logged at most (ms).
    static let warningInterval: Int64 = 1000

    /// Whether a warning of kind `key` may be logged `now` (at most once every ``warningInterval``); counted if so.
    mutating func mayLog(_ key: String, now: Int64) -> Bool {
        guard logged[key].map({ now - $0 >= Self.warningInterval }) ?? true else { return false }
        logged[key] = now
        return true
    }

    /// How many peers have an allowance counted (quiet ones are forgotten by ``forgetQuiet(now:)``).
    var count: Int { messages.count + creations.count }

    /// Whether `peer` may send one more message of `bytes` bytes at `now` (counted before it is read: reading costs
    /// by the byte): `nil` when it may, else the drop. A flood goes on while drops come less than a second apart,
    /// whatever passes in between; its peer is told at most once a second.
    mutating func admit(from peer: String, bytes: Int, now: Int64, rates: Rates) -> Drop? {
        let messageRate = Double(rates.messagesPerSecond)
        let byteRate = Double(rates.bytesPerSecond)
        guard messageRate > 0 || byteRate > 0 else { return nil }
        // Counted in place, with one lookup: nearly every message is within its peer's allowance.
        let within = Self.spend(
            &messages[peer, default: MessageAllowance(messages: messageRate * 2, bytes: byteRate * 2, counted: now)],
            messageRate: messageRate,
            byteRate: byteRate,
            bytes: bytes,
            now: now
        )
        guard !within, var allowance = messages[peer] else { return nil }
        defer { messages[peer] = allowance }
        let overBytes = byteRate > 0 && allowance.bytes < Double(bytes)
        if allowance.lastDropped.map({ now - $0 > 1000 }) ?? true {
            allowance.floodingSince = now
        }
        allowance.lastDropped = now
        var warning: String?
        if allowance.warned.map({ now - $0 >= 1000 }) ?? true {
            allowance.warned = now
            warning =
                overBytes
                ? "more than \(rates.bytesPerSecond) bytes per second"
                : "more than \(rates.messagesPerSecond) messages per second"
        }
        return Drop(
            bound: overBytes ? "byteRate" : "messageRate",
            warning: warning,
            forget: now - (allowance.floodingSince ?? now) >= Self.floodingPeerForgottenAfter
        )
    }

    /// Takes one session creation from `peer`'s allowance at `now`; `false` (and nothing taken) when it has none
    /// left this minute.
    mutating func createSession(by peer: String, now: Int64, rates: Rates) -> Bool {
        let perMinute = Double(rates.sessionsPerMinute)
        var allowance = creations[peer] ?? SessionCreationAllowance(tokens: perMinute, counted: now)
        allowance.tokens = min(perMinute, allowance.tokens + Double(now - allowance.counted) * perMinute / 60_000)
        allowance.counted = now
        defer { creations[peer] = allowance }
        guard allowance.tokens >= 1 else { return false }
        allowance.tokens -= 1
        return true
    }

    /// Forgets the allowances of peers quiet long enough to have full buckets again.
    mutating func forgetQuiet(now: Int64) {
        messages = messages.filter { now - $0.value.counted < 2000 }
        creations = creations.filter { now - $0.value.counted < 60_000 }
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
}

/// A peer's allowance of messages and bytes.
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

/// A peer's allowance of new sessions.
struct SessionCreationAllowance: Sendable, Hashable {
    var tokens: Double
    /// When the tokens were last counted (flowd's clock, ms).
    var counted: Int64
}
