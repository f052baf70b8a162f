/// A session's whole state, as data: what a snapshot holds.
struct SessionState: Sendable, Hashable, Codable {
    let id: SessionID
    let mainPresenter: PresenterID
    var ids = IDAllocator()
    var rootFlow: FlowID
    var flows: SmallTable<FlowID, FlowRecord> = SmallTable()
    var contributions: [Contribution] = []
    var ended: [EndedBinding] = []
    var screens = ScreenTree()
    var visibility: SmallTable<PresentableID, Visibility> = SmallTable()
    var queue: [WorkItem] = []
    var idle: [WorkItem] = []
    var waitingDeepLinks: [WaitingDeepLink] = []
    /// The deep link whose path is under way, if its path has steps still to go.
    var activePath: StepToken?
    var pendingGuard: PendingGuard?
    var lastQuestion: UInt64 = 0
    var tokens: [StepToken: TokenProgress] = [:]
    var sessionData: JSONObject = [:]

    /// Whether a guard's answer is awaited: what the queue's loop asks before each item (comparing `pendingGuard` with
    /// `nil` copied the question out every time).
    var waitsForGuard: Bool {
        switch pendingGuard {
        case .none: false
        case .some: true
        }
    }

    /// The earliest deadline the session waits for, if any.
    var nextDeadline: EngineTime? {
        // Asked twice a step: no array is made for it.
        var earliest = pendingGuard?.deadline
        for link in waitingDeepLinks where earliest.map({ link.deadline < $0 }) ?? true {
            earliest = link.deadline
        }
        return earliest
    }

    /// The session's live flows, parents before children, siblings in start order.
    func flowsInPreorder(from id: FlowID? = nil) -> [FlowID] {
        var result: [FlowID] = []
        result.reserveCapacity(flows.count)
        appendPreorder(from: id ?? rootFlow, to: &result)
        return result
    }

    /// Calls `body` with each of `flows` and its record from `id` down, parents before children, siblings in start
    /// order (as ``flowsInPreorder(from:)`` lists them, without making the list: a step asks it). Static, over the
    /// flows alone: a caller whose `body` reads the rest of the session does not make a copy of the session for it.
    /// The records are reached in place (`inout`, ``SmallTable/inPlace(at:_:)``; `body` only reads them).
    static func forEachFlowInPreorder(
        of flows: inout SmallTable<FlowID, FlowRecord>,
        from id: FlowID,
        _ body: (FlowID, inout FlowRecord) -> Void
    ) {
        guard let index = flows.index(forKey: id) else {
            return
        }
        let children = flows.inPlace(at: index) { record in
            body(id, &record)
            return record.children
        }
        for child in children {
            forEachFlowInPreorder(of: &flows, from: child, body)
        }
    }

    private func appendPreorder(from id: FlowID, to result: inout [FlowID]) {
        guard let record = flows[id] else {
            return
        }
        result.append(id)
        for child in record.children {
            appendPreorder(from: child, to: &result)
        }
    }
}

/// A running flow.
struct FlowRecord: Sendable, Hashable, Codable {
    let id: FlowID
    let name: String
    let parameters: JSONObject
    let parent: FlowID?
    var children: [FlowID] = []
    let root: PresentableID
    /// The flow's own stepper (never paused).
    let stepper: Stepper
    let allowStepWhenDismissed: Bool
    let restoresParentOnEnd: Bool
    var isReady = false
    /// Children that must become ready before this flow is; `nil` until the flow navigated its first step.
    var waitingFor: [FlowID]?
}

/// A presentable contributed with a stepper, in a flow.
struct Contribution: Sendable, Hashable, Codable {
    let flow: FlowID
    let presentable: PresentableID
    let stepper: Stepper
    let allowStepWhenNotPresented: Bool
    let allowStepWhenDismissed: Bool
    /// Its presentable was dismissed (the contribution lives on because it allows it).
    var presentableDismissed = false
}

/// A binding that ended, remembered to explain steps that still come for it.
struct EndedBinding: Sendable, Hashable, Codable {
    let stepper: Stepper
    let presentable: PresentableID
    let reason: DropReason
}

/// A step on its way to one flow.
struct Delivery: Sendable, Hashable, Codable {
    let flow: FlowID
    let step: Step
    let token: StepToken
    /// For a deep link: which step of its path this is.
    var pathIndex: Int?
}

/// Work waiting in a session's queue.
enum WorkItem: Sendable, Hashable, Codable {
    case deliver(Delivery)
    case deepLink(token: StepToken, path: [Step], index: Int)
}

/// What is known of a step's deliveries so far.
struct TokenProgress: Sendable, Hashable, Codable {
    let step: Step
    let source: StepSource?
    var pending: Int
    var accepted: [FlowID] = []
    var drop: DropReason?
    /// For a deep link: the length of its path, and whether some flow navigated its last step.
    var pathLength: Int?
    var reachedEnd = false
    /// Whether a flow navigated it without declaring it (optional: absent from sessions kept before it was).
    var undeclared: Bool?
}

/// A step whose adapt waits for a guard's answer.
///
/// Kept out of line: every session has room for one, few wait for one, and in line it took 168 bytes of each idle
/// session. Coded as its members (as it was in line).
struct PendingGuard: Sendable, Hashable, Codable {
    private final class Storage: Sendable {
        let id: UInt64
        let delivery: Delivery
        let question: GuardQuestion
        let deadline: EngineTime

        init(id: UInt64, delivery: Delivery, question: GuardQuestion, deadline: EngineTime) {
            self.id = id
            self.delivery = delivery
            self.question = question
            self.deadline = deadline
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, delivery, question, deadline
    }

    private let storage: Storage

    var id: UInt64 { storage.id }
    var delivery: Delivery { storage.delivery }
    var question: GuardQuestion { storage.question }
    var deadline: EngineTime { storage.deadline }

    init(id: UInt64, delivery: Delivery, question: GuardQuestion, deadline: EngineTime) {
        storage = Storage(id: id, delivery: delivery, question: question, deadline: deadline)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(UInt64.self, forKey: .id),
            delivery: try container.decode(Delivery.self, forKey: .delivery),
            question: try container.decode(GuardQuestion.self, forKey: .question),
            deadline: try container.decode(EngineTime.self, forKey: .deadline)
        )
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(delivery, forKey: .delivery)
        try container.encode(question, forKey: .question)
        try container.encode(deadline, forKey: .deadline)
    }

    static func == (lhs: PendingGuard, rhs: PendingGuard) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.id == rhs.id && lhs.delivery == rhs.delivery && lhs.question == rhs.question
                && lhs.deadline == rhs.deadline)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(delivery)
        hasher.combine(question)
        hasher.combine(deadline)
    }
}

/// A deep link that waits for the session to become ready.
struct WaitingDeepLink: Sendable, Hashable, Codable {
    let token: StepToken
    let path: [Step]
    let deadline: EngineTime
}
