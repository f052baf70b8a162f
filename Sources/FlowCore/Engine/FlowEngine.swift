/// The flow coordination engine: RxFlow's FlowCoordinator for many independent sessions, as a pure state
/// machine.
///
/// Every method takes one event (a step, a deep link, a presenter's report, the passing of time) and returns
/// ``Effects``: command batches for presenters, inspection events (with every step's fate) and guard
/// questions. The engine does no I/O and reads no clock, so the same events always give the same effects.
///
/// ```swift
/// var engine = FlowEngine(registry: registry)
/// var effects = try engine.startSession("kiosk-1", root: AppFlow(), stepper: .one(Step("appStarted")))
/// effects = engine.receive(Step("movieIsPicked", ["withId": 23452]), from: .stepper("catalog"), session: "kiosk-1")
/// ```
public struct FlowEngine: Sendable {
    /// Makes flows by name when sessions are restored.
    public let registry: FlowRegistry
    /// Limits and defaults.
    public let options: EngineOptions
    /// The current time, as last given to ``advanceTime(to:)``.
    public private(set) var now: EngineTime
    private var sessions: [SessionID: Session] = [:]
    private var sessionsWithDeadlines: Set<SessionID> = []

    /// Creates an engine with no sessions.
    public init(
        registry: FlowRegistry = FlowRegistry(),
        options: EngineOptions = EngineOptions(),
        now: EngineTime = .zero
    ) {
        self.registry = registry
        self.options = options
        self.now = now
    }

    /// The sessions, sorted.
    public var sessionIDs: [SessionID] {
        sessions.keys.sorted()
    }

    /// The number of sessions.
    public var sessionCount: Int {
        sessions.count
    }

    /// Whether a session exists.
    public func hasSession(_ id: SessionID) -> Bool {
        sessions[id] != nil
    }

    /// Starts a session: its root flow's root becomes the main presenter's window root, and `stepper`'s
    /// initial steps are navigated (RxFlow's `coordinate(flow:with:allowStepWhenDismissed:)`).
    public mutating func startSession(
        _ id: SessionID,
        root: any Flow,
        stepper: Stepper = .default,
        allowStepWhenDismissed: Bool = false
    ) throws(FlowCoreError) -> Effects {
        guard sessions[id] == nil else {
            throw FlowCoreError(.sessionExists, "session \(id) already runs; end it first or pick another id")
        }
        var session = Session(
            id: id,
            root: root,
            stepper: stepper,
            allowStepWhenDismissed: allowStepWhenDismissed,
            options: options,
            now: now
        )
        let effects = session.takeEffects()
        store(session)
        return effects
    }

    /// Ends a session and everything in it.
    public mutating func endSession(_ id: SessionID) -> Effects {
        guard var session = session(id) else {
            return Effects()
        }
        sessions[id] = nil
        sessionsWithDeadlines.remove(id)
        session.end()
        return session.takeEffects()
    }

    /// Takes in a step from a stepper process or a presentable's own stepper.
    /// - Returns: the step's token and the effects; the step's fate is among the effects' events, now or
    ///   (when it waits behind a guard) in the effects of a later call.
    public mutating func receive(
        _ step: Step,
        from source: StepSource,
        session id: SessionID
    ) -> (token: StepToken, effects: Effects) {
        guard var session = session(id) else {
            return (StepToken(0), unknownSession(id, step: step, source: source))
        }
        let token = session.receive(step, from: source)
        return (token, finish(&session))
    }

    /// Takes in a deep link: one step, or a path of steps that opens nested flows, sent to every flow of the
    /// session (RxFlow's `navigate(to:)`). Before the session is ready, it waits (bounded by
    /// ``EngineOptions/deepLinkWait``).
    public mutating func deepLink(_ path: [Step], session id: SessionID) -> (token: StepToken, effects: Effects) {
        guard var session = session(id) else {
            return (StepToken(0), unknownSession(id, step: path.last ?? .none, source: nil))
        }
        let token = session.receiveDeepLink(path)
        return (token, finish(&session))
    }

    /// Applies a presenter's visibility report for some of its presentables.
    /// - Parameters:
    ///   - visibility: what the presenter says of them.
    ///   - presentables: the presentables concerned, all shown by `presenter`.
    ///   - presenter: the reporting presenter; reports about another presenter's screens are refused.
    ///     `nil` skips that check (an in-process program reporting for itself).
    ///   - id: the session.
    /// - Throws: ``FlowCoreError`` (unknown session or presentable, foreign presentable); nothing changes then.
    public mutating func report(
        _ visibility: Visibility,
        of presentables: [PresentableID],
        by presenter: PresenterID? = nil,
        session id: SessionID
    ) throws(FlowCoreError) -> Effects {
        var session = try existing(id)
        try session.report(visibility, of: presentables, by: presenter)
        return finish(&session)
    }

    /// A presenter stopped answering: its screens become hidden (their steps pause), not dismissed.
    public mutating func presenterLost(_ presenter: PresenterID, session id: SessionID) -> Effects {
        guard var session = session(id) else {
            return Effects()
        }
        session.presenterLost(presenter)
        return finish(&session)
    }

    /// Answers a guard question; the waiting step navigates to its `ifAllowed` or `ifRefused` step.
    public mutating func answerGuard(
        _ question: UInt64,
        allowed: Bool,
        session id: SessionID
    ) throws(FlowCoreError)
        -> Effects
    {
        var session = try existing(id)
        try session.answerGuard(question, allowed: allowed, timedOut: false)
        return finish(&session)
    }

    /// Sets (or with `nil` removes) a value of the session's data, which flows read while adapting steps.
    public mutating func setSessionData(_ key: String, _ value: JSONValue?, session id: SessionID) throws(FlowCoreError)
    {
        var session = try existing(id)
        session.state.sessionData[key] = value
        store(session)
    }

    /// Moves time forward: deep links that waited too long are dropped, unanswered guards count as refused.
    public mutating func advanceTime(to time: EngineTime) -> Effects {
        now = max(now, time)
        var effects = Effects()
        for id in sessionsWithDeadlines.sorted() {
            guard var session = sessions[id] else { continue }
            session.advance(to: now)
            effects.append(finish(&session))
        }
        return effects
    }

    /// The earliest time at which ``advanceTime(to:)`` has something to do.
    public var nextDeadline: EngineTime? {
        sessionsWithDeadlines.compactMap { sessions[$0]?.state.nextDeadline }.min()
    }

    /// A session's whole state, to persist or to restore into another engine.
    public func snapshot(of id: SessionID) throws(FlowCoreError) -> SessionSnapshot {
        SessionSnapshot(state: try existing(id).state)
    }

    /// Restores a session from a snapshot, remaking its flows with the registry. The session then behaves
    /// exactly as the one the snapshot was taken from. Deadlines start again on this engine's clock, and a
    /// guard question that was waiting is asked again: it is among the returned effects.
    @discardableResult
    public mutating func restore(_ snapshot: SessionSnapshot) throws(FlowCoreError) -> Effects {
        guard snapshot.version == SessionSnapshot.currentVersion else {
            throw FlowCoreError(
                .invalidSnapshot,
                "snapshot version \(snapshot.version) is not \(SessionSnapshot.currentVersion); restore it with the FlowBus that wrote it"
            )
        }
        guard sessions[snapshot.state.id] == nil else {
            throw FlowCoreError(.sessionExists, "session \(snapshot.state.id) already runs; end it before restoring")
        }
        var session = try Session(state: snapshot.state, registry: registry, options: options, now: now)
        return finish(&session)
    }

    /// What is on screen in a session.
    public func screens(of id: SessionID) -> ScreenTree? {
        sessions[id]?.state.screens
    }

    /// A read-only view of a session: its flows, contributions, visibility and queues.
    public func inspect(_ id: SessionID) -> SessionInspection? {
        sessions[id].map { SessionInspection($0.state) }
    }

    private func existing(_ id: SessionID) throws(FlowCoreError) -> Session {
        guard let session = session(id) else {
            throw FlowCoreError(.unknownSession, "session \(id) does not exist")
        }
        return session
    }

    /// A session, told the engine's current time (it only learns it when it has work).
    private func session(_ id: SessionID) -> Session? {
        guard var session = sessions[id] else {
            return nil
        }
        session.now = now
        return session
    }

    private mutating func finish(_ session: inout Session) -> Effects {
        let effects = session.takeEffects()
        store(session)
        return effects
    }

    private mutating func store(_ session: Session) {
        sessions[session.id] = session
        if session.state.nextDeadline != nil {
            sessionsWithDeadlines.insert(session.id)
        } else {
            sessionsWithDeadlines.remove(session.id)
        }
    }

    private func unknownSession(_ id: SessionID, step: Step, source: StepSource?) -> Effects {
        var effects = Effects()
        effects.events.append(
            NavigationEvent(
                session: id,
                kind: .stepFate(token: StepToken(0), step: step, source: source, fate: .dropped(.unknownSession))
            )
        )
        return effects
    }
}
