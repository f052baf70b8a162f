import FlowCore
import FlowSpec

/// Runs one session of a flow file in an engine of its own, input by input: what the explorer does in every state,
/// and what a journey does in process.
public struct SessionDriver: Sendable {
    /// The session's id in the engine.
    public static let session: SessionID = "explored"

    /// The flow file.
    public let specification: FlowSpecification
    /// The engine, holding the one session.
    public private(set) var engine: FlowEngine

    /// A new session of the flow file, as flowd starts one; `effects` are what its start did.
    public init(_ specification: FlowSpecification) throws(FlowCoreError) {
        self.specification = specification
        var engine = FlowEngine(registry: specification.registry)
        startEffects = try specification.startSession(Self.session, in: &engine)
        self.engine = engine
    }

    /// What starting the session did.
    public let startEffects: Effects

    init(specification: FlowSpecification, engine: FlowEngine) {
        self.specification = specification
        self.engine = engine
        startEffects = Effects()
    }

    /// What the session holds now.
    public var inspection: SessionInspection? {
        engine.inspect(Self.session)
    }

    /// Applies an input: its effects and, for a step or a deep link, its fate (`nil` when it waits for a guard);
    /// throws when the input does not apply (a screen that is not on screen, no question to answer...).
    public mutating func apply(_ input: ExplorationInput) throws(FlowCoreError) -> (effects: Effects, fate: StepFate?) {
        let session = Self.session
        guard let inspection = engine.inspect(session) else {
            throw FlowCoreError(.unknownSession, "the session is gone")
        }
        switch input {
        case .step(let step, let source):
            let from: StepSource
            switch source {
            case .stepper(let name):
                from = .stepper(name)
            case .screen(let reference):
                from = .presentable(try screen(reference, in: inspection))
            }
            // As flowd: parameters that do not fit the step's declaration, or a sender the flow file does not let
            // send it, drop it before any flow sees it.
            if let problem = specification.parameterProblem(of: step)
                ?? specification.senderProblem(of: step, from: from, screen: source.screenName)
            {
                let (token, effects) = engine.refuse(step, from: from, session: session, reason: problem)
                return (effects, effects.fate(of: token))
            }
            let (token, effects) = engine.receive(step, from: from, session: session)
            return (effects, effects.fate(of: token))
        case .deepLink(let step):
            if let problem = specification.parameterProblem(of: step) {
                let (token, effects) = engine.refuse(step, from: nil, session: session, reason: problem)
                return (effects, effects.fate(of: token))
            }
            let (token, effects) = engine.deepLink([step], session: session)
            return (effects, effects.fate(of: token))
        case .reportShown:
            var effects = Effects()
            let tree = inspection.screens
            for presenter in tree.windowRoots.keys.sorted() {
                let shown = Set(tree.visiblePresentables(of: presenter))
                let all = tree.presentables(of: presenter)
                let hidden = all.filter { !shown.contains($0) && inspection.visibility(of: $0) == .visible }
                let visible = all.filter { shown.contains($0) && inspection.visibility(of: $0) != .visible }
                if !hidden.isEmpty {
                    effects.append(try engine.report(.hidden, of: hidden, by: presenter, session: session))
                }
                if !visible.isEmpty {
                    effects.append(try engine.report(.visible, of: visible, by: presenter, session: session))
                }
            }
            return (effects, nil)
        case .selectTab(let reference):
            let id = try screen(reference, in: inspection)
            guard inspection.screens[id]?.placement == .tab else {
                throw FlowCoreError(.unknownPresentable, "\(reference) is not a tab")
            }
            return (try engine.report(.visible, of: [id], session: session), nil)
        case .dismiss(let reference):
            let id = try screen(reference, in: inspection)
            return (try engine.report(.dismissed, of: [id], session: session), nil)
        case .guardAnswer(let allowed):
            guard let question = engine.pendingGuardRequests.first(where: { $0.session == session }) else {
                throw FlowCoreError(.unknownQuestion, "no guard question waits for an answer")
            }
            return (try engine.answerGuard(question.id, allowed: allowed, session: session), nil)
        case .sessionData(let key, let value):
            try engine.setSessionData(key, value, session: session)
            return (Effects(), nil)
        }
    }

    private func screen(
        _ reference: ScreenReference,
        in inspection: SessionInspection
    ) throws(FlowCoreError) -> PresentableID {
        guard let id = ExploredState.screen(reference, in: inspection.screens) else {
            throw FlowCoreError(.unknownPresentable, "no screen \(reference) is on screen")
        }
        return id
    }
}
