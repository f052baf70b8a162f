import FlowCore
import FlowSpec
import FlowWire

/// Replays a recording into an engine in this process, with no daemon: what `flowctl replay --offline` does, so a
/// bug report can be a recording and its flow file that anyone replays.
///
/// The engine is deterministic: given the same flow file and the same inputs in the same order, it builds the
/// same trees as the flowd that was recorded. Time is replayed too (deep links waiting, guard deadlines). Guards
/// are not in a recording; a question asked during the replay goes unanswered and counts as refused at its
/// deadline.
public struct OfflineReplay: Sendable {
    /// What the replay did.
    public struct Outcome: Sendable {
        /// Each session's final tree, in order of first appearance.
        public var trees: [SessionTree] = []
        /// The recording's steps and deep links accepted and dropped (the flows' own steps, a OneStepper's, are
        /// not counted: they are not inputs).
        public var accepted = 0
        public var dropped = 0
        /// Actions the engine refused (a report about an unknown screen...), with the reason.
        public var refused: [String] = []
        /// Inputs flowd refused when they were recorded: left out, as flowd left them out.
        public var skipped = 0
        /// Steps whose fate in the replay is not the one recorded: the flows file, or the engine, differs from the
        /// recorded flowd's.
        public var divergences: [String] = []
    }

    private let specification: FlowSpecification
    private let options: EngineOptions

    /// A replay of recordings against these flows, with flowd's engine options.
    public init(specification: FlowSpecification, options: EngineOptions = EngineOptions()) {
        self.specification = specification
        self.options = options
    }

    /// Replays every action in order and returns the final trees.
    public func replay(_ recording: Recording) -> Outcome {
        replay(recording) { _, _ in }
    }

    /// Replays every action in order, showing `observe` what each did (the effects of the time passed before it,
    /// of its session starting, and its own) and the engine just after it; returns the final trees.
    public func replay(_ recording: Recording, observe: (ReplayedAction, borrowing FlowEngine) -> Void) -> Outcome {
        let start = recording.header.startedAt
        var engine = FlowEngine(
            registry: specification.registry,
            options: options,
            now: EngineTime(milliseconds: start)
        )
        var outcome = Outcome()
        var expected: [ExpectedFate: RecordedAction] = [:]
        var sent: Set<ExpectedFate> = []
        for (index, action) in recording.actions.enumerated() {
            var replayed = ReplayedAction(index: index, action: action)
            defer {
                for effects in replayed.effects {
                    count(effects, in: &outcome, expected: &expected, sent: &sent)
                }
                observe(replayed, engine)
            }
            if action.fate == .refused {
                outcome.skipped += 1
                replayed.skipped = true
                continue
            }
            replayed.effects.append(engine.advanceTime(to: EngineTime(milliseconds: start + action.at)))
            let session = SessionID(action.session)
            if !engine.hasSession(session) {
                do {
                    replayed.effects.append(try specification.startSession(session, in: &engine))
                } catch {
                    replayed.refusal = "session \(session): \(error.message)"
                    outcome.refused.append(replayed.refusal ?? "")
                    continue
                }
            }
            do {
                let (effects, token) = try apply(action, to: &engine, session: session)
                if let token {
                    sent.insert(ExpectedFate(session: session, token: token))
                    if action.fate != nil {
                        expected[ExpectedFate(session: session, token: token)] = action
                    }
                }
                replayed.effects.append(effects)
            } catch {
                replayed.refusal = "\(action.kind.rawValue) at \(action.at) ms: \(error.message)"
                outcome.refused.append(replayed.refusal ?? "")
            }
        }
        outcome.trees = recording.sessions.compactMap { engine.inspect(SessionID($0)).map(SessionTree.init) }
        return outcome
    }

    /// Gives `engine` one recorded input of `session` as flowd gave it (a step whose parameters do not fit the flow
    /// file dropped before any flow sees it, as flowd does); returns its effects and, for a step or deep link, its
    /// token. The session must exist.
    /// - Throws: what the engine refused (a report of a screen no longer on screen...).
    public func apply(
        _ action: RecordedAction,
        to engine: inout FlowEngine,
        session: SessionID
    ) throws(FlowCoreError) -> (Effects, StepToken?) {
        switch action.kind {
        case .step:
            guard let step = action.step else { return (Effects(), nil) }
            let source: StepSource = action.presentable.map { .presentable($0) } ?? .stepper(action.stepper ?? "")
            // As flowd does: parameters that do not match the flow file, or a sender the file does not let send
            // the step, drop it before any flow sees it.
            let screen = action.presentable.flatMap { engine.screens(of: session)?[$0]?.description.name }
            if let problem = specification.parameterProblem(of: step)
                ?? specification.senderProblem(of: step, from: source, screen: screen)
            {
                let (token, effects) = engine.refuse(step, from: source, session: session, reason: problem)
                return (effects, token)
            }
            let (token, effects) = engine.receive(step, from: source, session: session)
            return (effects, token)
        case .deepLink:
            let path = action.path ?? []
            let mismatch =
                path.first(where: \.isNone).map { ($0, DropReason.noneStep) }
                ?? path.lazy.compactMap { step in specification.parameterProblem(of: step).map { (step, $0) } }.first
            let (token, effects) =
                if let (step, problem) = mismatch {
                    engine.refuse(step, from: nil, session: session, reason: problem)
                } else {
                    engine.deepLink(path, session: session)
                }
            return (effects, token)
        case .visibility:
            let effects = try engine.report(
                action.visibility ?? .unknown,
                of: action.presentables ?? [],
                by: action.presenter.map { PresenterID($0) },
                session: session
            )
            return (effects, nil)
        case .sessionData:
            try engine.setSessionData(action.key ?? "", action.value == .null ? nil : action.value, session: session)
            return (Effects(), nil)
        case .presenterLost:
            return (engine.presenterLost(PresenterID(action.presenter ?? ""), session: session), nil)
        }
    }

    /// A step whose fate was recorded, by its token in the replay.
    private struct ExpectedFate: Hashable {
        var session: SessionID
        var token: StepToken
    }

    /// Counts the fates decided, and checks each against the one recorded.
    private func count(
        _ effects: Effects,
        in outcome: inout Outcome,
        expected: inout [ExpectedFate: RecordedAction],
        sent: inout Set<ExpectedFate>
    ) {
        for (session, token, fate) in effects.fates {
            if sent.remove(ExpectedFate(session: session, token: token)) != nil {
                if fate.isAccepted { outcome.accepted += 1 } else { outcome.dropped += 1 }
            }
            guard let action = expected.removeValue(forKey: ExpectedFate(session: session, token: token)) else {
                continue
            }
            let replayed = WireFate(fate)
            let recorded = action.fate == .accepted ? "accepted" : "dropped (\(action.reason ?? "?"))"
            let now = replayed.accepted ? "accepted" : "dropped (\(replayed.reason ?? "?"))"
            if recorded != now {
                outcome.divergences.append(
                    "step \(action.step?.name ?? "?") at \(action.at) ms in \(session.rawValue): recorded \(recorded), replayed \(now)"
                )
            }
        }
    }
}

/// What one action of a recording did in a replay.
public struct ReplayedAction: Sendable {
    /// Its place in the recording (from 0).
    public var index: Int
    /// The action.
    public var action: RecordedAction
    /// What the replay caused, in order: the time passed up to the action, its session starting (when it is the
    /// session's first), the action itself.
    public var effects: [Effects] = []
    /// Left out: flowd refused it when it was recorded.
    public var skipped = false
    /// Why the engine refused it in the replay, if it did.
    public var refusal: String?

    /// An action, before it is replayed.
    public init(index: Int, action: RecordedAction) {
        self.index = index
        self.action = action
    }
}
