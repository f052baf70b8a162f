import FlowCore

/// A flow of a flow file, running in FlowCore: `adapt` applies the flow's rules, `navigate` carries out the
/// step's actions in order.
public struct SpecFlow: Flow {
    /// The whole specification (child flows are made from it).
    public let specification: FlowSpecification
    /// Where this flow's definition is in the specification's flows: two words in all, which the engine keeps in
    /// its value for a flow (a copy of the definition took an allocation of 250 bytes for each flow of a session).
    private let index: Int

    /// This flow's definition.
    public var definition: FlowDefinition { specification.flows[index] }

    /// The flow named `name` of `specification`.
    public init?(_ name: String, in specification: FlowSpecification) {
        guard let index = specification.flowIndex(named: name) else {
            return nil
        }
        self.specification = specification
        self.index = index
    }

    public var name: String { definition.name }
    public var root: FlowRoot { definition.root }
    public var restoresParentOnEnd: Bool { definition.restoresParentOnEnd }

    public func adapt(step: Step, context: AdaptContext) -> Adaptation {
        guard let rule = specification.flows[index].adaptRules.first(where: { $0.step == step.name }) else {
            return .step(step)
        }
        let otherwise = rule.otherwise.map { $0.bound(to: step) } ?? .none
        switch rule.condition {
        case .permission(let permission):
            let granted = context.sessionData["permissions"]?.arrayValue?.contains(.string(permission)) ?? false
            return granted ? .step(step) : (otherwise.isNone ? .none : .step(otherwise))
        case .data(let key, let equals):
            let value = context.sessionData[key]
            let holds =
                if let equals { value == equals } else { value != nil && value != .null && value != .bool(false) }
            return holds ? .step(step) : (otherwise.isNone ? .none : .step(otherwise))
        case .askGuard(let name, let subject):
            return .ask(
                GuardQuestion(guardName: name, subject: subject, step: step, ifAllowed: step, ifRefused: otherwise)
            )
        }
    }

    /// A flow file's flow takes the deep-link steps its `deepLinks:` names (all by default).
    public func takesDeepLink(_ step: Step) -> Bool {
        definition.deepLinks.takes(step.name)
    }

    /// A flow file's flow declares the steps it has a handler for (`three: []` included).
    public func declares(_ step: Step) -> Bool {
        // Looked for where the specification keeps it (the definition and the handler copied cost more than the
        // search).
        specification.flows[index].handlers.contains { $0.step == step.name }
    }

    public func navigate(to step: Step, with navigator: inout Navigator) -> FlowContributors {
        // The handler's actions, read where the specification keeps them: the flow's definition and the handler
        // were copied whole to find them, and each action again to look at it.
        let handlers = specification.flows[index].handlers
        guard let handler = handlers.firstIndex(where: { $0.step == step.name }) else {
            return .none
        }
        let actions = handlers[handler].actions
        // Most steps contribute once: a list is made for a second contribution only.
        var first: FlowContributor?
        var more: [FlowContributor] = []
        func contribute(_ contributor: FlowContributor) {
            if first == nil {
                first = contributor
            } else {
                more.append(contributor)
            }
        }
        for position in actions.indices {
            switch actions[position].kind {
            case .show(let presentation), .start(let presentation):
                let (presentable, contributor) = make(presentation, for: step, with: &navigator)
                place(presentable, presentation, with: &navigator)
                if let contributor { contribute(contributor) }
            case .tabs(let tabs, let selected):
                let made = tabs.map { make($0, for: step, with: &navigator) }
                navigator.setTabs(made.map(\.0), selected: selected)
                for contributor in made.compactMap(\.1) { contribute(contributor) }
            case .dismiss(.presented):
                navigator.dismissPresented()
            case .dismiss(.root):
                navigator.dismiss(navigator.root)
            case .pop(.top):
                navigator.pop()
            case .pop(.root):
                navigator.popToRoot()
            case .selectTab(let index):
                navigator.selectTab(index)
            case .forwardToCurrentFlow(let template):
                contribute(.forwardToCurrentFlow(template.bound(to: step)))
            case .forwardToParentFlow(let template):
                contribute(.forwardToParentFlow(template.bound(to: step)))
            case .end(let template):
                return .end(forwardToParentFlowWithStep: template.bound(to: step))
            }
        }
        guard let first else { return .none }
        return more.isEmpty ? .one(first) : .multiple([first] + more)
    }

    /// Makes the screen or the child flow, and its contribution (none for `contribute: false`).
    private func make(
        _ presentation: Presentation,
        for step: Step,
        with navigator: inout Navigator
    ) -> (PresentableID, FlowContributor?) {
        let stepper = presentation.stepper.compiled(for: step)
        if presentation.isFlow, let child = SpecFlow(presentation.target, in: specification) {
            let made = navigator.makeFlow(child)
            return (
                made.root,
                .contribute(made, stepper: stepper, allowStepWhenDismissed: presentation.allowStepWhenDismissed)
            )
        }
        let screen = navigator.makeScreen(presentation.target, presentation.parameters.bound(to: step))
        guard presentation.contributes else {
            return (screen, nil)
        }
        let contributor = FlowContributor.contribute(
            screen,
            stepper: stepper,
            allowStepWhenNotPresented: presentation.allowStepWhenNotPresented,
            allowStepWhenDismissed: presentation.allowStepWhenDismissed
        )
        return (screen, contributor)
    }

    private func place(_ presentable: PresentableID, _ presentation: Presentation, with navigator: inout Navigator) {
        switch presentation.placement {
        case .push: navigator.push(presentable)
        case .present: navigator.present(presentable)
        case .master: navigator.setMaster(presentable)
        case .detail: navigator.setDetail(presentable)
        case .window: navigator.setWindowRoot(presentable, presenter: presentation.presenter.map { PresenterID($0) })
        case .tab: navigator.setTabs([presentable])
        }
    }
}

extension StepTemplate {
    /// The step, with `$references` taken from `step`'s parameters.
    func bound(to step: Step) -> Step {
        Step(name, parameters.bound(to: step))
    }
}

extension [(name: String, value: ValueTemplate)] {
    /// The parameters, with `$references` taken from `step`'s parameters (missing ones are null).
    func bound(to step: Step) -> JSONObject {
        if passesOn(step.parameters) {
            return step.parameters
        }
        var object = JSONObject(minimumCapacity: count)
        for (name, value) in self {
            switch value {
            case .literal(let literal): object[name] = literal
            case .reference(let reference): object[name] = step.parameters[reference] ?? .null
            }
        }
        return object
    }

    /// Whether these parameters are the step's own, each under its own name (`{ n: $n, t: $t }` for a step with `n`
    /// and `t` only): then they are the step's object itself, shared, with nothing hashed or made. Names are
    /// distinct (they come from a mapping), so as many given as there are, each passed on as itself, is all of them.
    private func passesOn(_ parameters: JSONObject) -> Bool {
        guard parameters.count == count else { return false }
        for name in parameters.keys {
            let passedOn = contains { template in
                guard template.name == name, case .reference(let reference) = template.value else { return false }
                return reference == name
            }
            guard passedOn else { return false }
        }
        return true
    }
}

extension StepperSpec {
    /// The engine's stepper, with one-step templates bound to `step`.
    func compiled(for step: Step) -> Stepper {
        switch self {
        case .own: .presentable
        case .named(let id): .named(id)
        case .one(let template): .one(template.bound(to: step))
        case .default: .default
        case .none: .none
        case .composite(let steppers): .composite(steppers.map { $0.compiled(for: step) })
        }
    }
}

extension FlowSpecification {
    /// A registry that makes every flow of the file by name (for restoring sessions).
    public var registry: FlowRegistry {
        var registry = FlowRegistry()
        for flow in flows {
            let name = flow.name
            registry.register(name) { _ in
                guard let made = SpecFlow(name, in: self) else {
                    throw FlowCoreError(.unknownFlow, "flow '\(name)' is not in \(self.file)")
                }
                return made
            }
        }
        return registry
    }

    /// The session's root flow.
    public var rootFlow: SpecFlow {
        guard let flow = SpecFlow(session.rootFlow, in: self) else {
            preconditionFailure("a loaded specification always defines its root flow")
        }
        return flow
    }

    /// Starts a session of this application in `engine`.
    public func startSession(_ id: SessionID, in engine: inout FlowEngine) throws(FlowCoreError) -> Effects {
        try engine.startSession(
            id,
            root: rootFlow,
            stepper: rootStepper,
            allowStepWhenDismissed: session.allowStepWhenDismissed
        )
    }
}
