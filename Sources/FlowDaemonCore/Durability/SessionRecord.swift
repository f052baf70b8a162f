import FlowCore
import FlowWire

/// A session's whole state as flowd keeps it: the engine's snapshot and what the coordinator knows of the
/// session (command sequences, each sender's numbering and remembered fates, steps waiting for their fate,
/// recent drops, activity). A snapshot record replaces every journal entry of the session before it.
struct SessionRecord: Sendable, Hashable, Codable {
    /// The format of this record.
    static let currentVersion = 1

    var version = Self.currentVersion
    /// The engine's state of the session.
    var engine: SessionSnapshot
    /// Each presenter's last command batch sequence.
    var commandSequences: [String: UInt64]
    /// Each sender's numbering and remembered outcomes.
    var senders: [StoredSender]
    /// Steps whose fate is still to come, by token.
    var waiting: [StoredWaitingStep]
    /// The last dropped steps, for `drops`.
    var drops: [DroppedStep]
    /// When the session was created and last used.
    var activity: SessionActivity

    private enum CodingKeys: String, CodingKey {
        case version, engine, commandSequences, senders, waiting, drops, activity
    }

    /// As `Codable` would write it, but with the steps waiting for their fate (as many as a sender keeps in flight)
    /// written member by member (see `StoredWaitingStep.fragment`).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(engine, forKey: .engine)
        try container.encode(commandSequences, forKey: .commandSequences)
        try container.encode(senders, forKey: .senders)
        try container.encode(StoredWaitingStep.fragment(waiting), else: waiting, forKey: .waiting)
        try container.encode(drops, forKey: .drops)
        try container.encode(activity, forKey: .activity)
    }
}

/// A sender's record, with its key.
struct StoredSender: Sendable, Hashable, Codable {
    let role: Role
    let name: String
    let lastSequence: UInt64
    let outcomes: [StoredOutcome]
    let pending: [UInt64]

    private enum CodingKeys: String, CodingKey {
        case role, name, lastSequence, outcomes, pending
    }

    /// As `Codable` would write it, but with the remembered outcomes (hundreds) written member by member (see
    /// `StoredOutcome.fragment`): through `Codable`, each cost some thirty thousand instructions.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        try container.encode(name, forKey: .name)
        try container.encode(lastSequence, forKey: .lastSequence)
        try container.encode(StoredOutcome.fragment(outcomes), else: outcomes, forKey: .outcomes)
        try container.encode(pending, forKey: .pending)
    }
}

/// A remembered outcome of a numbered step.
struct StoredOutcome: Sendable, Hashable, Codable {
    let sequence: UInt64
    let outcome: StepOutcome
}

/// A step whose fate is still to come, and who waits for it.
struct StoredWaitingStep: Sendable, Hashable, Codable {
    let token: StepToken
    let acknowledgement: PendingAcknowledgement
}

/// When a session was created and last touched by a peer (milliseconds since 1970).
struct SessionActivity: Sendable, Hashable, Codable {
    var createdAt: Int64
    var lastActivity: Int64
}

extension KeyedEncodingContainer {
    /// Encodes `fragment`, the text written already, or `value` through `Codable` when there is none.
    fileprivate mutating func encode<Value: Encodable>(
        _ fragment: JSONFragment?,
        else value: Value,
        forKey key: Key
    ) throws {
        if let fragment {
            try encode(fragment, forKey: key)
        } else {
            try encode(value, forKey: key)
        }
    }
}
