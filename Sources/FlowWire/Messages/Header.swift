/// What every message carries besides its body: its id, the session it concerns, who sent it, which message
/// caused it, and when it was sent.
public struct Header: Sendable, Hashable, Codable {
    /// The sender's id for this message, increasing per sender. Replies name it in ``correlation``.
    public var id: UInt64
    /// The session the message concerns (absent for messages about the daemon itself).
    public var session: String?
    /// The sender's registered id (absent before HELLO, and on the daemon's messages).
    public var sender: String?
    /// The id of the message this one answers or was caused by.
    public var correlation: UInt64?
    /// When it was sent: milliseconds since 1970-01-01 UTC, from the sender's clock.
    public var sentAt: Int64

    /// Creates a header.
    public init(id: UInt64, session: String? = nil, sender: String? = nil, correlation: UInt64? = nil, sentAt: Int64) {
        self.id = id
        self.session = session
        self.sender = sender
        self.correlation = correlation
        self.sentAt = sentAt
    }
}

/// What a peer is on the bus.
public enum Role: String, Sendable, Hashable, Codable, CaseIterable {
    /// Publishes steps (a stepper process, or a screen's own steps through its presenter).
    case stepper
    /// Shows screens: receives command batches, reports visibility, emits steps as its screens.
    case presenter
    /// Watches and queries (flowctl).
    case inspector
    /// Answers guard questions for `adapt` rules.
    case `guard`

    /// Hashed by its case, not by its raw text as a raw-valued enum is by default: flowd hashes a stepper's key,
    /// role included, on every step.
    public func hash(into hasher: inout Hasher) {
        let ordinal: UInt8 =
            switch self {
            case .stepper: 0
            case .presenter: 1
            case .inspector: 2
            case .guard: 3
            }
        hasher.combine(ordinal)
    }
}
