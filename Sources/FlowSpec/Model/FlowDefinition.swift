import FlowCore

/// One flow of a flow file.
public struct FlowDefinition: Sendable {
    /// The flow's name.
    public let name: String
    /// Where it is defined.
    public let location: SourceLocation
    /// Its root presentable.
    public let root: FlowRoot
    /// Whether ending it removes its root from the screen (restoring the parent's UI).
    public let restoresParentOnEnd: Bool
    /// Its `adapt` rules, by step.
    public let adaptRules: [AdaptRule]
    /// What it does for each step it handles, in file order.
    public let handlers: [StepHandler]
    /// Which steps of a deep link it takes (all, as in RxFlow, unless the file says otherwise).
    public var deepLinks: DeepLinkSteps = .all
    /// Whether what its root holds may grow without bound by design (`mayGrow: true`): `flowd check --explore`
    /// does not warn that it does.
    public var mayGrow = false

    /// The handler of a step.
    public func handler(for step: String) -> StepHandler? {
        handlers.first { $0.step == step }
    }
}

/// Which steps of a deep link a flow takes: a deep link goes to every flow of the session (RxFlow's
/// `navigate(to:)`), except to those that say otherwise.
public enum DeepLinkSteps: Sendable, Equatable {
    /// Every step (the default).
    case all
    /// None: deep links pass the flow by.
    case none
    /// Only these steps.
    case only(Set<String>)

    /// Whether a deep link's step named `step` reaches the flow.
    public func takes(_ step: String) -> Bool {
        switch self {
        case .all: true
        case .none: false
        case .only(let steps): steps.contains(step)
        }
    }
}

/// A condition a step must meet in a flow, else it is redirected (or dropped).
public struct AdaptRule: Sendable {
    /// The step it applies to.
    public let step: String
    /// What must hold.
    public let condition: Condition
    /// The step to go to instead when it does not hold; `nil` drops the step ("adapted away").
    public let otherwise: StepTemplate?
    /// Where it is written.
    public let location: SourceLocation
}

/// What an adapt rule checks.
public enum Condition: Sendable {
    /// The session data `permissions` (a list of strings) contains this permission.
    case permission(String)
    /// The session data `key` is present and not false or null; with `equals`, it is that value.
    case data(key: String, equals: JSONValue?)
    /// A guard process named `name` allows `subject` (asked over the bus, with a timeout).
    case askGuard(name: String, subject: String)
}

/// What a flow does for one step: actions in order.
public struct StepHandler: Sendable {
    /// The step.
    public let step: String
    /// The actions, in order; none means `.none`.
    public let actions: [Action]
    /// Where it is written.
    public let location: SourceLocation
}

/// One action of a step handler.
public struct Action: Sendable {
    /// What the action does.
    public enum Kind: Sendable {
        /// Show a screen, and (unless told otherwise) contribute it with its stepper.
        case show(Presentation)
        /// Start a child flow, showing its root.
        case start(Presentation)
        /// Replace the tabs of this flow's tab root with screens and flows.
        case tabs([Presentation], selected: Int)
        /// Dismiss what is presented over this flow's root (`presented`) or this flow's root itself (`root`).
        case dismiss(DismissTarget)
        /// Pop this flow's stack: one item (`top`) or back to the first (`root`).
        case pop(PopTarget)
        /// Select a tab of this flow's tab root.
        case selectTab(Int)
        /// Send a step to this flow, after this step's work.
        case forwardToCurrentFlow(StepTemplate)
        /// Send a step to the parent flow.
        case forwardToParentFlow(StepTemplate)
        /// End this flow, sending a step to its parent.
        case end(StepTemplate)
    }

    /// What the action does.
    public let kind: Kind
    /// Where it is written.
    public let location: SourceLocation

    /// The screens and flows it places.
    public var presentations: [Presentation] {
        switch kind {
        case .show(let presentation), .start(let presentation): [presentation]
        case .tabs(let presentations, _): presentations
        default: []
        }
    }
}

/// What `dismiss` removes.
public enum DismissTarget: String, Sendable {
    case presented, root
}

/// How far `pop` goes.
public enum PopTarget: String, Sendable {
    case top, root
}

/// How a shown screen or a started flow's root is placed.
public enum PlacementSpec: String, Sendable, CaseIterable {
    /// Pushed on this flow's stack.
    case push
    /// Presented modally over what is topmost above this flow's root.
    case present
    /// Master of this flow's split.
    case master
    /// Detail of this flow's split.
    case detail
    /// Root of a presenter's window (another display with `presenter:`).
    case window
    /// A tab (only inside `tabs:`).
    case tab
}

/// A screen to show or a flow to start, and its contribution.
public struct Presentation: Sendable {
    /// The screen's type, or the flow's name.
    public let target: String
    /// Whether it starts a flow.
    public let isFlow: Bool
    /// How it is placed.
    public let placement: PlacementSpec
    /// For `window`: the presenter whose window it goes in.
    public let presenter: String?
    /// The screen's parameters (for a flow: its root's).
    public let parameters: [(name: String, value: ValueTemplate)]
    /// Its stepper.
    public let stepper: StepperSpec
    /// Take its stepper's steps while it is not visible.
    public let allowStepWhenNotPresented: Bool
    /// Keep its contribution (or flow) after it is dismissed.
    public let allowStepWhenDismissed: Bool
    /// Whether it is contributed at all (a screen with `contribute: false` is only shown).
    public let contributes: Bool
    /// Where it is written.
    public let location: SourceLocation
}
