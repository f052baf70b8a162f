/// Who sends a message type, and how it travels: the one table of the protocol's message rules, which flowd and
/// the clients both read.
///
/// Its switch is exhaustive: a new ``MessageType`` does not compile until it is listed here, and a message that
/// clients send is refused to every granted peer whose role is not among ``senders``.
public struct MessageRule: Sendable, Hashable {
    /// The roles whose peers send it to flowd; empty when flowd never receives it. With a grant (see the
    /// specification's Security), a peer of another role is refused with `notAllowed`.
    public let senders: Set<Role>
    /// Whether flowd sends it.
    public let sentByDaemon: Bool
    /// Whether it is published on the events socket under a topic, rather than sent on a control connection.
    public let published: Bool

    /// Whether peers send it to flowd.
    public var receivedByDaemon: Bool { !senders.isEmpty }

    private init(senders: Set<Role> = [], sentByDaemon: Bool = false, published: Bool = false) {
        self.senders = senders
        self.sentByDaemon = sentByDaemon
        self.published = published
    }

    private static let everyRole = Set(Role.allCases)
    private static let stepping: Set<Role> = [.stepper, .presenter, .inspector]
    private static let fromDaemon = MessageRule(sentByDaemon: true)
    private static let publishedByDaemon = MessageRule(sentByDaemon: true, published: true)

    /// The rule of `type`.
    public static func of(_ type: MessageType) -> MessageRule {
        switch type {
        case .hello, .bye: MessageRule(senders: everyRole)
        case .heartbeat: MessageRule(senders: everyRole, sentByDaemon: true)
        case .step, .deepLink, .sessionData: MessageRule(senders: stepping)
        case .visibility: MessageRule(senders: [.presenter])
        case .snapshotRequest: MessageRule(senders: [.presenter, .inspector])
        case .query: MessageRule(senders: [.inspector])
        case .guardAnswer: MessageRule(senders: [.guard])
        case .welcome, .redirect, .error, .stepAck, .snapshot, .reply, .guardQuestion: fromDaemon
        case .commands, .event, .events: publishedByDaemon
        }
    }
}

extension MessageType {
    private static let rules = allCases.map(MessageRule.of)

    /// Who sends this type, and how it travels (made once for every type).
    public var rule: MessageRule { Self.rules[index] }
}
