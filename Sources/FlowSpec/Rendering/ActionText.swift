import FlowCore

// What a flow file says, in words: for `flowd check`-like summaries and the `flows` and `steps` queries.

extension Action {
    /// The action in words: `show MovieDetail(movieId: $withId)`, `start DashboardFlow as push`, `dismiss presented`.
    public var text: String {
        switch kind {
        case .show(let presentation): "show \(presentation.text)"
        case .start(let presentation): "start \(presentation.text)"
        case .tabs(let presentations, let selected):
            "tabs " + presentations.map { "\($0.isFlow ? "start " : "show ")\($0.text)" }.joined(separator: ", ")
                + " (tab \(selected) selected)"
        case .dismiss(let target): "dismiss \(target.rawValue)"
        case .pop(let target): "pop to \(target.rawValue)"
        case .selectTab(let index): "select tab \(index)"
        case .forwardToCurrentFlow(let template): "forward \(template.text) to the current flow"
        case .forwardToParentFlow(let template): "forward \(template.text) to the parent flow"
        case .end(let template): "end the flow with \(template.text)"
        }
    }
}

extension Presentation {
    /// The screen or flow with its parameters, its placement and its stepper: `MovieDetail(movieId: $withId)`,
    /// `OnboardingFlow as present, stepper one(introIsRequired)`.
    public var text: String {
        var text = target
        if !parameters.isEmpty {
            text += "(" + parameters.map { "\($0.name): \($0.value.text)" }.joined(separator: ", ") + ")"
        }
        if isFlow || placement != .push {
            text += " as \(placement.rawValue)"
        }
        switch stepper {
        case .default where !isFlow, .own: break
        default: text += ", stepper \(stepper.text)"
        }
        return text
    }
}

extension StepperSpec {
    /// The stepper in words: `app`, `one(introIsRequired)`, `none`.
    public var text: String {
        switch self {
        case .own: "its own"
        case .named(let name): name
        case .one(let template): "one(\(template.text))"
        case .default: "default"
        case .none: "none"
        case .composite(let steppers): "composite(" + steppers.map(\.text).joined(separator: ", ") + ")"
        }
    }
}

extension StepTemplate {
    /// The step with its parameters: `movieIsPicked(withId: $withId)`.
    public var text: String {
        parameters.isEmpty
            ? name : name + "(" + parameters.map { "\($0.name): \($0.value.text)" }.joined(separator: ", ") + ")"
    }
}

extension ValueTemplate {
    /// `$name` for a reference, the JSON text for a literal.
    public var text: String {
        switch self {
        case .literal(let value): "\(value)"
        case .reference(let name): "$\(name)"
        }
    }
}

extension AdaptRule {
    /// The rule in words: `aboutIsRequired when permission about, else unauthorized`.
    public var text: String {
        let condition =
            switch condition {
            case .permission(let name): "permission \(name)"
            case .data(let key, let value): "data \(key)\(value.map { " = \($0)" } ?? " set")"
            case .askGuard(let name, let subject): "guard \(name) allows \(subject)"
            }
        return "\(step) when \(condition)" + (otherwise.map { ", else \($0.text)" } ?? ", else dropped")
    }
}

extension StepDeclaration {
    /// Each parameter's type, `?` after an optional one's: `withId` → `int`.
    public var parameterTypes: [String: String] {
        Dictionary(parameters.map { ($0.name, "\($0.type.rawValue)\($0.optional ? "?" : "")") }) { first, _ in first }
    }
}
