/// A FlowBus message: a type and its body.
public enum Message: Sendable, Hashable {
    case hello(Hello)
    case welcome(Welcome)
    case redirect(Redirect)
    case bye(Bye)
    case heartbeat(Heartbeat)
    case error(ErrorReply)
    case step(StepMessage)
    case deepLink(DeepLinkMessage)
    case stepAck(StepAck)
    case visibility(VisibilityReport)
    case commands(CommandsMessage)
    case snapshotRequest(SnapshotRequest)
    case snapshot(SnapshotMessage)
    case query(Query)
    case reply(Reply)
    case sessionData(SessionDataMessage)
    case guardQuestion(GuardQuestionMessage)
    case guardAnswer(GuardAnswer)
    case event(InspectionEvent)
    case events(InspectionBatch)

    /// The message's type frame.
    public var type: MessageType {
        switch self {
        case .hello: .hello
        case .welcome: .welcome
        case .redirect: .redirect
        case .bye: .bye
        case .heartbeat: .heartbeat
        case .error: .error
        case .step: .step
        case .deepLink: .deepLink
        case .stepAck: .stepAck
        case .visibility: .visibility
        case .commands: .commands
        case .snapshotRequest: .snapshotRequest
        case .snapshot: .snapshot
        case .query: .query
        case .reply: .reply
        case .sessionData: .sessionData
        case .guardQuestion: .guardQuestion
        case .guardAnswer: .guardAnswer
        case .event: .event
        case .events: .events
        }
    }
}

/// The type frame of a message: upper-case ASCII.
public enum MessageType: String, Sendable, Hashable, CaseIterable {
    case hello = "HELLO"
    case welcome = "WELCOME"
    case redirect = "REDIRECT"
    case bye = "BYE"
    case heartbeat = "HEARTBEAT"
    case error = "ERROR"
    case step = "STEP"
    case deepLink = "DEEPLINK"
    case stepAck = "STEP_ACK"
    case visibility = "VISIBILITY"
    case commands = "COMMANDS"
    case snapshotRequest = "SNAPSHOT_REQUEST"
    case snapshot = "SNAPSHOT"
    case query = "QUERY"
    case reply = "REPLY"
    case sessionData = "SESSION_DATA"
    case guardQuestion = "GUARD_QUESTION"
    case guardAnswer = "GUARD_ANSWER"
    case event = "EVENT"
    case events = "EVENTS"
}

extension MessageType {
    /// Every type, and its frame, made once.
    private static let all = allCases
    private static let frames = all.map { Array($0.rawValue.utf8) }

    /// The type's position in `allCases` (what tables indexed by type use).
    public var index: Int {
        Self.all.firstIndex(of: self) ?? 0
    }

    /// The type's frame (its name in UTF-8), shared: nothing is made per message.
    public var frame: [UInt8] {
        Self.frames[index]
    }

    /// The type a frame names (its name in UTF-8, exactly), or `nil`: read without making text of it.
    public init?(frame: [UInt8]) {
        guard let index = Self.frames.firstIndex(of: frame) else { return nil }
        self = Self.all[index]
    }
}

/// A message with its header: what travels.
public struct Envelope: Sendable, Hashable {
    public var header: Header
    public var message: Message

    public init(header: Header, message: Message) {
        self.header = header
        self.message = message
    }
}
