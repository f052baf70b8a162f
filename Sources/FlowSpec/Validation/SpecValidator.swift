import FlowCore

/// Checks what a well-formed flow file means: every name it uses exists, every step is handled, every flow
/// can be reached, every `$parameter` is provided, every action fits its flow.
struct SpecValidator {
    let spec: FlowSpecification
    private(set) var diagnostics: [Diagnostic] = []

    init(_ spec: FlowSpecification) {
        self.spec = spec
    }

    mutating func validate() {
        checkFlowReferences()
        checkReachability()
        for flow in spec.flows {
            for rule in flow.adaptRules {
                checkStepUsed(rule.step, at: rule.location, "the adapt rule of flow '\(flow.name)'")
                if let otherwise = rule.otherwise {
                    check(otherwise, handling: rule.step)
                }
            }
            for handler in flow.handlers {
                checkStepUsed(handler.step, at: handler.location, "flow '\(flow.name)'")
                checkActions(handler, in: flow)
            }
            if case .only(let steps) = flow.deepLinks {
                for step in steps.sorted() {
                    checkStepUsed(step, at: flow.location, "the deepLinks of flow '\(flow.name)'")
                }
            }
        }
        for template in spec.session.stepper.templates {
            check(template, handling: nil)
        }
        checkEveryStepIsHandled()
        checkSends()
    }

    // MARK: Senders

    /// Each step a sender lists is declared, listed once, and not the none step (which any sender may send).
    private mutating func checkListed(_ sends: SendsDeclaration.Sends, _ sender: String) {
        var listed: Set<String> = []
        for step in sends.steps {
            if step.name == Step.none.name {
                report(
                    .unknownStep,
                    at: step.location,
                    "'none' is not listed in what \(sender) sends: any sender may send the none step (it is dropped, never navigated)"
                )
            } else if !listed.insert(step.name).inserted {
                report(
                    .duplicateName,
                    at: step.location,
                    "\(step.name) is listed twice in what \(sender) sends; keep one"
                )
            } else {
                checkStepUsed(step.name, at: step.location, "what \(sender) sends")
            }
        }
    }

    /// Every sender under `sends:` is a screen some flow shows or a stepper some flow binds, and sends declared
    /// steps.
    private mutating func checkSends() {
        let screens = spec.screenNames
        var steppers: [String] = spec.session.stepper.stepperNames
        for flow in spec.flows {
            for handler in flow.handlers {
                for presentation in handler.actions.flatMap(\.presentations) {
                    steppers += presentation.stepper.stepperNames
                }
            }
        }
        for (name, sends) in spec.sends.screens.sorted(by: { $0.key < $1.key }) {
            if !screens.contains(name) {
                report(
                    .unknownSender,
                    at: sends.location,
                    "no flow shows a screen '\(name)'\(Suggestion.didYouMean(name, in: screens)); list under 'sends: screens:' the screens the flows show"
                )
            }
            checkListed(sends, "screen '\(name)'")
        }
        for (name, sends) in spec.sends.steppers.sorted(by: { $0.key < $1.key }) {
            if !steppers.contains(name) {
                report(
                    .unknownSender,
                    at: sends.location,
                    "no flow listens to a stepper '\(name)'\(Suggestion.didYouMean(name, in: steppers)); list under 'sends: steppers:' the steppers flows name (`stepper: { named: NAME }`)"
                )
            }
            checkListed(sends, "stepper '\(name)'")
        }
    }

    private mutating func report(_ kind: Diagnostic.Kind, at location: SourceLocation, _ message: String) {
        diagnostics.append(Diagnostic(kind, at: location, message))
    }

    // MARK: Flows

    private mutating func checkFlowReferences() {
        let names = spec.flows.map(\.name)
        if spec.flow(named: spec.session.rootFlow) == nil {
            report(.unknownFlow, at: spec.session.location, unknownFlowMessage(spec.session.rootFlow, names))
        }
        for flow in spec.flows {
            for handler in flow.handlers {
                for presentation in handler.actions.flatMap(\.presentations)
                where presentation.isFlow && spec.flow(named: presentation.target) == nil {
                    report(.unknownFlow, at: presentation.location, unknownFlowMessage(presentation.target, names))
                }
            }
        }
    }

    private func unknownFlowMessage(_ name: String, _ names: [String]) -> String {
        let hint = Suggestion.closest(to: name, in: names).map { "did you mean '\($0)'? " } ?? ""
        return "no flow named '\(name)' is defined; \(hint)define it under 'flows:' or use one of: "
            + names.joined(separator: ", ")
    }

    private mutating func checkReachability() {
        guard spec.flow(named: spec.session.rootFlow) != nil else {
            return
        }
        var reached: Set<String> = [spec.session.rootFlow]
        var pending = [spec.session.rootFlow]
        while let name = pending.popLast() {
            for handler in spec.flow(named: name)?.handlers ?? [] {
                for presentation in handler.actions.flatMap(\.presentations) where presentation.isFlow {
                    if reached.insert(presentation.target).inserted {
                        pending.append(presentation.target)
                    }
                }
            }
        }
        for flow in spec.flows where !reached.contains(flow.name) {
            report(
                .unreachableFlow,
                at: flow.location,
                "flow '\(flow.name)' is never started from the root flow '\(spec.session.rootFlow)'; "
                    + "start it with '- start: \(flow.name)' in a flow that runs, or remove it"
            )
        }
    }

    // MARK: Steps

    private mutating func checkStepUsed(_ name: String, at location: SourceLocation, _ context: String) {
        guard spec.step(named: name) == nil else {
            return
        }
        let hint = Suggestion.didYouMean(name, in: spec.steps.map(\.name))
        report(
            .unknownStep,
            at: location,
            "step '\(name)' in \(context) is not declared\(hint); declare it under 'steps:' with its parameters"
        )
    }

    /// Every declared step is handled by some flow, but a step a flow ends with (`end:`): it goes to the flow that
    /// started it, which may act on it or not (as RxFlow's parent flows may ignore a step a child ends with; the
    /// movie app's settings end with `settingsAreComplete`, which their parent does not handle).
    private mutating func checkEveryStepIsHandled() {
        let handled = Set(spec.flows.flatMap { $0.handlers.map(\.step) })
        let endings = Set(endingSteps())
        for step in spec.steps where !handled.contains(step.name) && !endings.contains(step.name) {
            report(
                .unhandledStep,
                at: step.location,
                "step '\(step.name)' is handled by no flow, so it would always be navigated to nothing; "
                    + "handle it under some flow's 'on:' or remove it"
            )
        }
    }

    /// The steps flows end with (`end:`).
    private func endingSteps() -> [String] {
        spec.flows.flatMap { flow in
            flow.handlers.flatMap { handler in
                handler.actions.compactMap { action -> String? in
                    guard case .end(let template) = action.kind else { return nil }
                    return template.name
                }
            }
        }
    }

    /// Checks a step to emit: declared, every declared parameter given, literal types right, and every
    /// `$reference` provided by the step being handled.
    private mutating func check(_ template: StepTemplate, handling: String?) {
        guard let declaration = spec.step(named: template.name) else {
            checkStepUsed(template.name, at: template.location, "a step to emit")
            return
        }
        for (name, value) in template.parameters {
            guard let parameter = declaration.parameters.first(where: { $0.name == name }) else {
                report(
                    .unknownKey,
                    at: template.location,
                    "step '\(template.name)' has no parameter '\(name)'; its parameters are: "
                        + (declaration.parameters.map(\.name).joined(separator: ", ").nonEmpty ?? "none")
                )
                continue
            }
            switch value {
            case .literal(let literal) where !parameter.type.accepts(literal):
                report(
                    .wrongType,
                    at: template.location,
                    "parameter '\(name)' of step '\(template.name)' is \(parameter.type.article), not \(literal)"
                )
            case .reference(let reference):
                checkReference(reference, handling: handling, at: template.location)
            default:
                break
            }
        }
        for parameter in declaration.parameters
        where !template.parameters.contains(where: { $0.name == parameter.name }) {
            report(
                .missingParameter,
                at: template.location,
                "step '\(template.name)' needs parameter '\(parameter.name)' (\(parameter.type.rawValue)); "
                    + "add it under 'params:' (a value, or $name to pass one on)"
            )
        }
    }

    private mutating func checkReference(_ reference: String, handling: String?, at location: SourceLocation) {
        let provided = handling.flatMap { spec.step(named: $0) }?.parameters.map(\.name) ?? []
        guard !provided.contains(reference) else {
            return
        }
        let source = handling.map { "step '\($0)'" } ?? "the session's start"
        report(
            .missingParameter,
            at: location,
            "'$\(reference)' is used but \(source) does not provide it; "
                + (provided.isEmpty ? "it has no parameters" : "it provides: \(provided.joined(separator: ", "))")
        )
    }

    // MARK: Actions

    private mutating func checkActions(_ handler: StepHandler, in flow: FlowDefinition) {
        let style = flow.root.style
        for (index, action) in handler.actions.enumerated() {
            switch action.kind {
            case .show, .start, .tabs:
                for presentation in action.presentations {
                    checkPlacement(presentation, in: flow)
                    for (_, value) in presentation.parameters {
                        if case .reference(let reference) = value {
                            checkReference(reference, handling: handler.step, at: presentation.location)
                        }
                    }
                    for template in presentation.stepper.templates {
                        check(template, handling: handler.step)
                    }
                }
                if case .tabs(let tabs, let selected) = action.kind {
                    requireRoot(.tabs, style, action, flow, "'tabs'")
                    if !tabs.isEmpty && selected >= tabs.count {
                        report(
                            .invalidAction,
                            at: action.location,
                            "selected tab \(selected) does not exist: there are \(tabs.count)"
                        )
                    }
                }
            case .pop:
                requireRoot(.stack, style, action, flow, "'pop'")
            case .selectTab:
                requireRoot(.tabs, style, action, flow, "'selectTab'")
            case .dismiss:
                break
            case .forwardToCurrentFlow(let template), .forwardToParentFlow(let template):
                check(template, handling: handler.step)
            case .end(let template):
                check(template, handling: handler.step)
                if index != handler.actions.count - 1 {
                    report(.invalidAction, at: action.location, "'end' must be the last action of '\(handler.step)'")
                }
                let contributes = handler.actions.contains { other in
                    switch other.kind {
                    case .forwardToCurrentFlow, .forwardToParentFlow: true
                    default: other.presentations.contains { $0.contributes || $0.isFlow }
                    }
                }
                if contributes {
                    report(
                        .invalidAction,
                        at: action.location,
                        "'end' cannot be combined with contributions or forwards in '\(handler.step)'; "
                            + "a flow that ends contributes nothing (show screens with 'contribute: false')"
                    )
                }
            }
        }
    }

    private mutating func checkPlacement(_ presentation: Presentation, in flow: FlowDefinition) {
        let needed: PresentableStyle? =
            switch presentation.placement {
            case .push: .stack
            case .master, .detail: .split
            case .present, .window, .tab: nil
            }
        if let needed, flow.root.style != needed {
            report(
                .invalidAction,
                at: presentation.location,
                "'as: \(presentation.placement.rawValue)' needs a \(needed) root, but flow '\(flow.name)' has a "
                    + "\(flow.root.style) root; use 'as: present', or give the flow a \(needed) root"
            )
        }
        if presentation.presenter != nil && presentation.placement != .window {
            report(.invalidAction, at: presentation.location, "'presenter' only goes with 'as: window'")
        }
    }

    private mutating func requireRoot(
        _ needed: PresentableStyle,
        _ style: PresentableStyle,
        _ action: Action,
        _ flow: FlowDefinition,
        _ what: String
    ) {
        if style != needed {
            report(
                .invalidAction,
                at: action.location,
                "\(what) needs a \(needed) root, but flow '\(flow.name)' has a \(style) root"
            )
        }
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
