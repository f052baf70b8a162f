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
    public var options: EngineOptions { sharedOptions.options }
    /// The same, one instance for every session.
    private let sharedOptions: SharedEngineOptions
    /// The current time, as last given to ``advanceTime(to:)``.
    public private(set) var now: EngineTime
    /// Whether operations on sessions record every inspection event in their effects (what an inspector watches:
    /// steps received, navigations, visibility, flows started...). Without, only each step's `stepFate` is recorded
    /// — what a coordinator needs when nobody watches, at a fraction of the cost. On by default.
    public var recordsInspectionEvents = true
    private var sessions: [SessionID: SessionBox] = [:]
    /// Effects given back (``recycle(_:)``), emptied: the next call's effects are gathered in their storage.
    private var spareEffects = Effects()
    private var sessionsWithDeadlines: Set<SessionID> = []

    /// Creates an engine with no sessions.
    public init(
        registry: FlowRegistry = FlowRegistry(),
        options: EngineOptions = EngineOptions(),
        now: EngineTime = .zero
    ) {
        self.registry = registry
        sharedOptions = SharedEngineOptions(options)
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
            options: sharedOptions,
            now: now
        )
        let effects = session.takeEffects()
        store(session)
        return effects
    }

    /// Ends a session and everything in it.
    public mutating func endSession(_ id: SessionID) -> Effects {
        guard var session = sessions.removeValue(forKey: id)?.session else {
            return Effects()
        }
        sessionsWithDeadlines.remove(id)
        session.now = now
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
        guard let (token, effects) = withSession(id, { $0.receive(step, from: source) }) else {
            return (StepToken(0), unknownSession(id, step: step, source: source))
        }
        return (token, effects)
    }

    /// Takes in a step (or a deep link's last step, `source` `nil`) only to drop it at once for `reason`: the
    /// coordinator found its parameters do not match what the flow file declares. It gets a token and a fate like
    /// any step (events and drops say why), and reaches no flow.
    public mutating func refuse(
        _ step: Step,
        from source: StepSource?,
        session id: SessionID,
        reason: DropReason
    ) -> (token: StepToken, effects: Effects) {
        guard let (token, effects) = withSession(id, { $0.refuse(step, from: source, reason: reason) }) else {
            return (StepToken(0), unknownSession(id, step: step, source: source))
        }
        return (token, effects)
    }

    /// Takes in a deep link: one step, or a path of steps that opens nested flows, sent to every flow of the
    /// session (RxFlow's `navigate(to:)`). Before the session is ready, it waits (bounded by
    /// ``EngineOptions/deepLinkWait``).
    public mutating func deepLink(_ path: [Step], session id: SessionID) -> (token: StepToken, effects: Effects) {
        guard let (token, effects) = withSession(id, { $0.receiveDeepLink(path) }) else {
            return (StepToken(0), unknownSession(id, step: path.last ?? .none, source: nil))
        }
        return (token, effects)
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
        // The report is checked whole before anything changes, so a refusal leaves the session as it was.
        try existing(id) { (session) throws(FlowCoreError) in
            try session.report(visibility, of: presentables, by: presenter)
        }
    }

    /// Whether any of `presenter`'s screens is marked visible in the session: what ``presenterLost(_:session:)``
    /// would hide (the effects say so only while inspection events are recorded).
    public func showsVisibleScreens(of presenter: PresenterID, session id: SessionID) -> Bool {
        guard let session = sessions[id]?.session else { return false }
        return session.state.screens.presentables(of: presenter).contains { session.visibility(of: $0) == .visible }
    }

    /// A presenter stopped answering: its screens become hidden (their steps pause), not dismissed.
    public mutating func presenterLost(_ presenter: PresenterID, session id: SessionID) -> Effects {
        withSession(id) { $0.presenterLost(presenter) }?.effects ?? Effects()
    }

    /// Answers a guard question; the waiting step navigates to its `ifAllowed` or `ifRefused` step.
    public mutating func answerGuard(
        _ question: UInt64,
        allowed: Bool,
        session id: SessionID
    ) throws(FlowCoreError)
        -> Effects
    {
        try existing(id) { (session) throws(FlowCoreError) in
            try session.answerGuard(question, allowed: allowed, timedOut: false)
        }
    }

    /// Sets (or with `nil` removes) a value of the session's data, which flows read while adapting steps.
    ///
    /// - Throws: ``FlowCoreError/Code/limitReached`` when the data would hold more than
    ///   ``EngineOptions/maxSessionDataBytes`` (nothing changes); ``FlowCoreError/Code/unknownSession``.
    /// - Parameters:
    ///   - key: the key.
    ///   - value: its value; `nil` removes it.
    ///   - id: the session.
    ///   - checkingLimit: `false` to set data taken before, as when a journal is replayed (the limit may have been
    ///     lowered since).
    public mutating func setSessionData(
        _ key: String,
        _ value: JSONValue?,
        session id: SessionID,
        checkingLimit: Bool = true
    ) throws(FlowCoreError) {
        let limit = checkingLimit ? options.maxSessionDataBytes : .max
        _ = try existing(id) { (session) throws(FlowCoreError) in
            var data = session.state.sessionData
            data[key] = value
            let bytes = data.reduce(0) { $0 + $1.key.utf8.count + $1.value.jsonText().count }
            guard value == nil || bytes <= limit else {
                throw FlowCoreError(
                    .limitReached,
                    "the data of session \(id) would hold \(bytes) bytes and may hold \(limit) (maxSessionDataBytes); remove keys that are no longer needed (set them to null)"
                )
            }
            session.state.sessionData = data
        }
    }

    /// Moves time forward: deep links that waited too long are dropped, unanswered guards count as refused.
    public mutating func advanceTime(to time: EngineTime) -> Effects {
        now = max(now, time)
        var effects = Effects()
        let current = now
        for id in sessionsWithDeadlines.sorted() {
            if let (_, advanced) = withSession(id, { $0.advance(to: current) }) {
                effects.append(advanced)
            }
        }
        return effects
    }

    /// The earliest time at which ``advanceTime(to:)`` has something to do.
    public var nextDeadline: EngineTime? {
        sessionsWithDeadlines.compactMap { sessions[$0]?.session.state.nextDeadline }.min()
    }

    /// A session's whole state, to persist or to restore into another engine.
    public func snapshot(of id: SessionID) throws(FlowCoreError) -> SessionSnapshot {
        guard let session = sessions[id]?.session else {
            throw FlowCoreError(.unknownSession, "session \(id) does not exist")
        }
        var state = session.state
        // The ended bindings the session remembers: it lets older ones go in batches (see `remember`).
        if state.ended.count > options.endedMemory {
            state.ended.removeFirst(state.ended.count - options.endedMemory)
        }
        return SessionSnapshot(state: state)
    }

    /// How many ended bindings a session holds now: between its trims up to twice ``EngineOptions/endedMemory``
    /// (what the tests of that bound read; steps and snapshots see the last `endedMemory` only).
    func endedBindingsHeld(in id: SessionID) -> Int? {
        sessions[id]?.session.state.ended.count
    }

    /// Restores a session from a snapshot, remaking its flows with the registry. The session then behaves
    /// exactly as the one the snapshot was taken from. Deadlines start again on this engine's clock, and a
    /// guard question that was waiting is asked again: it is among the returned effects.
    @discardableResult
    public mutating func restore(_ snapshot: SessionSnapshot) throws(FlowCoreError) -> Effects {
        var session = try session(from: snapshot, renewingDeadlines: true)
        let effects = session.takeEffects()
        store(session)
        return effects
    }

    /// Brings back a session exactly as it was when its snapshot was taken — deadlines included, counted on the
    /// same clock — asking nothing: what a daemon does when it restarts from its own journal. The engine's time
    /// must not be past the moment the snapshot was taken, or deadlines would fire late.
    public mutating func resume(_ snapshot: SessionSnapshot) throws(FlowCoreError) {
        store(try session(from: snapshot, renewingDeadlines: false))
    }

    /// A session remade from a snapshot of this format, for a session this engine does not run.
    private func session(from snapshot: SessionSnapshot, renewingDeadlines: Bool) throws(FlowCoreError) -> Session {
        guard snapshot.version == SessionSnapshot.currentVersion else {
            throw FlowCoreError(
                .invalidSnapshot,
                "snapshot version \(snapshot.version) is not \(SessionSnapshot.currentVersion); restore it with the FlowBus that wrote it"
            )
        }
        guard sessions[snapshot.state.id] == nil else {
            throw FlowCoreError(.sessionExists, "session \(snapshot.state.id) already runs; end it before restoring")
        }
        return try Session(
            state: snapshot.state,
            registry: registry,
            options: sharedOptions,
            now: now,
            renewingDeadlines: renewingDeadlines
        )
    }

    /// The guard questions waiting for an answer, in every session: to ask again when the process that asked them
    /// is gone (a restarted daemon).
    public var pendingGuardRequests: [GuardRequest] {
        sessionIDs.compactMap { id in
            sessions[id]?.session.state.pendingGuard.map {
                GuardRequest(session: id, id: $0.id, question: $0.question, deadline: $0.deadline)
            }
        }
    }

    /// What is on screen in a session.
    public func screens(of id: SessionID) -> ScreenTree? {
        sessions[id]?.session.state.screens
    }

    /// A read-only view of a session: its flows, contributions, visibility and queues.
    public func inspect(_ id: SessionID) -> SessionInspection? {
        sessions[id].map { SessionInspection($0.session.state) }
    }

    /// Runs `body` on the session in place — no copy of its state — after telling it the engine's time (it
    /// only learns the time when it has work); then takes its effects and notes whether it now waits for a
    /// deadline. `nil` when the session does not exist.
    private mutating func withSession<T, E: Error>(
        _ id: SessionID,
        _ body: (inout Session) throws(E) -> T
    ) throws(E) -> (value: T, effects: Effects)? {
        // One lookup; the session is mutated in its box (copied first if another engine shares it).
        guard let index = sessions.index(forKey: id) else {
            return nil
        }
        if !isKnownUniquelyReferenced(&sessions.values[index]) {
            sessions.values[index] = SessionBox(sessions.values[index].session)
        }
        let box = sessions.values[index]
        let waited = box.session.state.nextDeadline != nil
        box.session.now = now
        box.session.recordsEvents = recordsInspectionEvents
        // Gathered in the storage of effects given back, when there are some (the session's are empty here: every
        // call takes them).
        swap(&box.session.effects, &spareEffects)
        let value = try body(&box.session)
        let effects = box.session.takeEffects()
        let waits = box.session.state.nextDeadline != nil
        if waits != waited {
            noteDeadline(of: id)
        }
        return (value, effects)
    }

    /// Gives back effects the caller has carried out: their lists' storage gathers the next call's effects, so that
    /// a step allocates no new lists for them. Optional; useful only when nothing else holds the lists (what was
    /// read from them copied out, not kept).
    public mutating func recycle(_ effects: consuming Effects) {
        effects.removeAllKeepingCapacity()
        spareEffects = effects
    }

    /// ``withSession(_:_:)`` for an existing session: its effects, or an error when there is no such session.
    private mutating func existing(
        _ id: SessionID,
        _ body: (inout Session) throws(FlowCoreError) -> Void
    ) throws(FlowCoreError) -> Effects {
        guard let (_, effects) = try withSession(id, body) else {
            throw FlowCoreError(.unknownSession, "session \(id) does not exist")
        }
        return effects
    }

    private mutating func store(_ session: Session) {
        sessions[session.id] = SessionBox(session)
        noteDeadline(of: session.id)
    }

    private mutating func noteDeadline(of id: SessionID) {
        if sessions[id]?.session.state.nextDeadline != nil {
            sessionsWithDeadlines.insert(id)
        } else {
            sessionsWithDeadlines.remove(id)
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

/// A session in the engine's table. The table holds this reference (8 bytes) rather than the session itself (some
/// 500 bytes), which its spare capacity would multiply: an idle session costs what it holds. Copied on write (when the
/// engine mutates a session), so engines stay values: a session is mutated only through a box no other
/// engine holds.
final class SessionBox: @unchecked Sendable {
    var session: Session

    init(_ session: Session) {
        self.session = session
    }
}
