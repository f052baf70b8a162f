import FlowCore
import Testing

/// A flow whose behaviour a test writes as closures; registered by name so snapshots can remake it.
struct ScriptedFlow: Flow {
    typealias Navigate = @Sendable (Step, inout Navigator) -> FlowContributors
    typealias Adapt = @Sendable (Step, AdaptContext) -> Adaptation

    let name: String
    let root: FlowRoot
    var restoresParentOnEnd = false
    let navigateBody: Navigate
    var adaptBody: Adapt?
    /// The steps the flow declares; every step when `nil` (as in RxFlow).
    var declared: Set<String>?

    init(
        _ name: String,
        root: FlowRoot? = nil,
        restoresParentOnEnd: Bool = false,
        declaring declared: Set<String>? = nil,
        navigate: @escaping Navigate = { _, _ in .none },
        adapt: Adapt? = nil
    ) {
        self.name = name
        self.root = root ?? .stack(name)
        self.restoresParentOnEnd = restoresParentOnEnd
        self.declared = declared
        self.navigateBody = navigate
        self.adaptBody = adapt
    }

    func declares(_ step: Step) -> Bool {
        declared?.contains(step.name) ?? true
    }

    func adapt(step: Step, context: AdaptContext) -> Adaptation {
        adaptBody?(step, context) ?? .step(step)
    }

    func navigate(to step: Step, with navigator: inout Navigator) -> FlowContributors {
        navigateBody(step, &navigator)
    }
}

extension ScriptedFlow {
    /// A flow that pushes a new "Detail" screen on every step and pops one on `back`; each pushed screen is
    /// contributed with the stepper `stepper` names for the step that pushed it (the screen itself by default).
    static func pushingOnEveryStep(
        allowStepWhenNotPresented: Bool = false,
        stepper: @escaping @Sendable (Step) -> Stepper = { _ in .presentable }
    ) -> ScriptedFlow {
        ScriptedFlow("Push") { step, navigator in
            if step.name == "back" {
                navigator.pop()
                return .none
            }
            let screen = navigator.makeScreen("Detail")
            navigator.push(screen)
            return .one(
                .contribute(screen, stepper: stepper(step), allowStepWhenNotPresented: allowStepWhenNotPresented)
            )
        }
    }
}

extension Step {
    static let one = Step("one")
    static let two = Step("two")
    static let three = Step("three")
    static let multiple = Step("multiple")
    static let unauthorized = Step("unauthorized")
}

extension Effects {
    /// The steps flows navigated, in order, as `flowName:step`.
    var navigations: [String] {
        events.compactMap { event in
            if case .didNavigate(_, let name, let step, _) = event.kind { "\(name):\(step.name)" } else { nil }
        }
    }

    /// Just the step names navigated, in order.
    var navigatedSteps: [String] {
        events.compactMap { event in
            if case .didNavigate(_, _, let step, _) = event.kind { step.name } else { nil }
        }
    }

    /// The flows that ended, in order.
    var endedFlows: [FlowID] {
        events.compactMap { event in
            if case .flowEnded(let flow, _, _) = event.kind { flow } else { nil }
        }
    }

    /// The flows that started, in order, with their names.
    var startedFlows: [(id: FlowID, name: String)] {
        events.compactMap { event in
            if case .flowStarted(let flow, let name, _, _) = event.kind { (flow, name) } else { nil }
        }
    }

    /// Every command sent, in order, as `presenter:operation`.
    var commandLog: [String] {
        batches.flatMap { batch in batch.commands.map { "\(batch.presenter):\($0.operation)" } }
    }
}

/// Collects the effects of a test's calls, in order.
struct Journal {
    var all = Effects()

    mutating func record(_ effects: Effects) {
        all.append(effects)
    }

    mutating func record(_ result: (token: StepToken, effects: Effects)) -> StepToken {
        all.append(result.effects)
        return result.token
    }
}

/// A stack flow that pushes a screen named after each step; `about` must be allowed by the guard
/// `permissions`, else it goes to `ifRefused`.
func guardedFlow(ifRefused: Step) -> ScriptedFlow {
    ScriptedFlow(
        "Guarded",
        navigate: { step, navigator in
            let screen = navigator.makeScreen(step.name)
            navigator.push(screen)
            return .none
        },
        adapt: { step, _ in
            guard step.name == "about" else { return .step(step) }
            return .ask(
                GuardQuestion(
                    guardName: "permissions",
                    subject: "about",
                    step: step,
                    ifAllowed: step,
                    ifRefused: ifRefused
                )
            )
        }
    )
}
