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
        /// Steps and deep links accepted and dropped.
        public var accepted = 0
        public var dropped = 0
        /// Actions the engine refused (a report about an unknown screen...), with the reason.
        public var refused: [String] = []
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
        let start = recording.header.startedAt
        var engine = FlowEngine(
            registry: specification.registry,
            options: options,
            now: EngineTime(milliseconds: start)
        )
        var outcome = Outcome()
        for action in recording.actions {
            count(engine.advanceTime(to: EngineTime(milliseconds: start + action.at)), in: &outcome)
            let session = SessionID(action.session)
            if !engine.hasSession(session) {
                do {
                    count(try specification.startSession(session, in: &engine), in: &outcome)
                } catch {
                    outcome.refused.append("session \(session): \(error.message)")
                    continue
                }
            }
            do {
                count(try apply(action, to: &engine, session: session), in: &outcome)
            } catch {
                outcome.refused.append("\(action.kind.rawValue) at \(action.at) ms: \(error.message)")
            }
        }
        outcome.trees = recording.sessions.compactMap { engine.inspect(SessionID($0)).map(SessionTree.init) }
        return outcome
    }

    private func apply(
        _ action: RecordedAction,
        to engine: inout FlowEngine,
        session: SessionID
    ) throws(FlowCoreError) -> Effects {
        switch action.kind {
        case .step:
            guard let step = action.step else { return Effects() }
            if let presentable = action.presentable {
                return engine.receive(step, from: .presentable(presentable), session: session).effects
            }
            return engine.receive(step, from: .stepper(action.stepper ?? ""), session: session).effects
        case .deepLink:
            return engine.deepLink(action.path ?? [], session: session).effects
        case .visibility:
            return try engine.report(
                action.visibility ?? .unknown,
                of: action.presentables ?? [],
                by: action.presenter.map { PresenterID($0) },
                session: session
            )
        case .sessionData:
            try engine.setSessionData(action.key ?? "", action.value == .null ? nil : action.value, session: session)
            return Effects()
        case .presenterLost:
            return engine.presenterLost(PresenterID(action.presenter ?? ""), session: session)
        }
    }

    private func count(_ effects: Effects, in outcome: inout Outcome) {
        for (_, _, fate) in effects.fates {
            if fate.isAccepted { outcome.accepted += 1 } else { outcome.dropped += 1 }
        }
    }
}
