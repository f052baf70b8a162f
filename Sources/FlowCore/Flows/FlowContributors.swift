/// What a flow's `navigate(to:)` returns (RxFlow's `FlowContributors`).
public enum FlowContributors: Sendable {
    /// Nothing more: no new contribution, no forward.
    case none
    /// One contributor.
    case one(FlowContributor)
    /// Several contributors. Forwards take effect in order first, then the contributions start, in order.
    case multiple([FlowContributor])
    /// The flow ends: `step` goes to the parent flow, then this flow and its descendants end. At the root
    /// flow the step is dropped (reported) and the root keeps running; its children end.
    case end(forwardToParentFlowWithStep: Step)
}

/// One thing a navigation contributes (RxFlow's `FlowContributor`).
public enum FlowContributor: Sendable {
    /// A presentable whose steps come from `stepper`. A ``ContributedPresentable/flow(_:)`` starts a child
    /// flow driven by `stepper`; its steps are never paused.
    ///
    /// - `allowStepWhenNotPresented`: take the stepper's steps even while the presentable is not visible
    ///   (by default they are dropped, not buffered, with the reason "not visible").
    /// - `allowStepWhenDismissed`: keep the contribution after the presentable is dismissed (by default it
    ///   ends; for a child flow, the flow ends when its root is dismissed).
    case contribute(
        ContributedPresentable,
        stepper: Stepper,
        allowStepWhenNotPresented: Bool,
        allowStepWhenDismissed: Bool
    )
    /// Send `step` to this same flow after the current step's work, including new contributions' initial steps.
    case forwardToCurrentFlow(Step)
    /// Send `step` to the parent flow (dropped, and reported, at the root).
    case forwardToParentFlow(Step)

    /// A screen that emits its own steps (RxFlow's `.contribute(withNext:)`), or another stepper.
    public static func contribute(
        _ screen: PresentableID,
        stepper: Stepper = .presentable,
        allowStepWhenNotPresented: Bool = false,
        allowStepWhenDismissed: Bool = false
    ) -> FlowContributor {
        .contribute(
            .screen(screen),
            stepper: stepper,
            allowStepWhenNotPresented: allowStepWhenNotPresented,
            allowStepWhenDismissed: allowStepWhenDismissed
        )
    }

    /// A child flow driven by `stepper` (RxFlow's `.contribute(withNextPresentable: flow, withNextStepper:)`).
    public static func contribute(
        _ flow: ChildFlow,
        stepper: Stepper = .default,
        allowStepWhenDismissed: Bool = false
    ) -> FlowContributor {
        .contribute(
            .flow(flow),
            stepper: stepper,
            allowStepWhenNotPresented: false,
            allowStepWhenDismissed: allowStepWhenDismissed
        )
    }
}

/// What a contribution is about: a screen, or a child flow made with ``Navigator/makeFlow(_:)``.
public enum ContributedPresentable: Sendable, Hashable {
    /// A presentable made with ``Navigator/makeScreen(_:_:)`` (or any presentable of the session).
    case screen(PresentableID)
    /// A child flow.
    case flow(ChildFlow)

    /// The presentable whose visibility gates the contribution: the screen, or the child flow's root.
    public var presentable: PresentableID {
        switch self {
        case .screen(let id): id
        case .flow(let child): child.root
        }
    }
}

/// A child flow made by ``Navigator/makeFlow(_:)``: present its ``root`` somewhere, then contribute it.
public struct ChildFlow: Sendable, Hashable {
    /// The child flow's id, allocated when the flow was made.
    public let id: FlowID
    /// The child flow's root presentable, allocated when the flow was made.
    public let root: PresentableID
}
