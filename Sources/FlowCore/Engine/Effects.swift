/// What the engine asks its caller to do after an event: send command batches to presenters, publish
/// inspection events, ask guards. The engine itself does no I/O.
public struct Effects: Sendable, Hashable {
    /// Command batches, in order; each is one navigation for one presenter, to apply as a whole.
    public var batches: [CommandBatch] = []
    /// Everything that happened, in order (steps' fates included).
    public var events: [NavigationEvent] = []
    /// Guard questions to ask, in order.
    public var questions: [GuardRequest] = []
    /// The limits of ``EngineOptions`` that left something out, in order (each also has its event).
    public var limitsReached: [LimitReached] = []

    /// Creates empty effects.
    public init() {}

    /// The fates decided, in order: `(session, token, fate)`.
    public var fates: [(session: SessionID, token: StepToken, fate: StepFate)] {
        events.compactMap { event in
            if case .stepFate(let token, _, _, let fate) = event.kind { (event.session, token, fate) } else { nil }
        }
    }

    /// The fate of the step with this token, if it was decided in these effects.
    public func fate(of token: StepToken) -> StepFate? {
        fates.first { $0.token == token }?.fate
    }

    /// The sessions these effects concern, sorted.
    public var sessions: [SessionID] {
        Set(events.map(\.session) + batches.map(\.session) + questions.map(\.session)).sorted()
    }

    /// Whether there is nothing to do.
    public var isEmpty: Bool {
        batches.isEmpty && events.isEmpty && questions.isEmpty
    }

    /// Empties the lists, keeping their storage (where nothing else holds it) for the next effects.
    mutating func removeAllKeepingCapacity() {
        batches.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        questions.removeAll(keepingCapacity: true)
        limitsReached.removeAll(keepingCapacity: true)
    }

    /// Appends other effects after these.
    public mutating func append(_ other: Effects) {
        batches += other.batches
        events += other.events
        questions += other.questions
        limitsReached += other.limitsReached
    }
}

/// The commands one navigation produced for one presenter.
public struct CommandBatch: Sendable, Hashable, Codable {
    /// The session.
    public let session: SessionID
    /// The presenter that applies it.
    public let presenter: PresenterID
    /// The commands, in order.
    public let commands: [NavigationCommand]
    /// The flow that navigated (or whose start or end produced the commands).
    public let flow: FlowID
    /// The step it navigated to; `nil` for the commands that start a session or follow a presenter's report.
    public let step: Step?
}

/// A question for a guard process, to be answered with ``FlowEngine/answerGuard(_:allowed:session:)``.
public struct GuardRequest: Sendable, Hashable, Codable {
    /// The session that waits for the answer.
    public let session: SessionID
    /// The question's id, unique in the session.
    public let id: UInt64
    /// The question.
    public let question: GuardQuestion
    /// When an unanswered question counts as refused.
    public let deadline: EngineTime
}

/// A limit of ``EngineOptions`` that left something out of a session.
public struct LimitReached: Sendable, Hashable {
    /// Which limit: `presentables` (screens on screen), `flows` or `contributions`.
    public let limit: String
    /// The session.
    public let session: SessionID
    /// What was left out, and why.
    public let message: String
}
