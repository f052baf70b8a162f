/// A flow: one area of navigation, as in RxFlow. It has a root presentable, may adapt (redirect or refuse)
/// the steps it receives, and answers each step with what to present and who contributes the next steps.
///
/// A flow holds no runtime state: the engine keeps the state (its root's id, what is on screen, who is
/// bound to what), so a session can be snapshot and restored. A flow is recreated from its ``name`` and
/// ``parameters`` through a ``FlowRegistry``.
///
/// ```swift
/// struct WishlistFlow: Flow {
///     var root: FlowRoot { .stack("wishlist", ["title": "Wishlist"]) }
///
///     func navigate(to step: Step, with navigator: inout Navigator) -> FlowContributors {
///         switch step.name {
///         case "moviesAreRequired":
///             let list = navigator.makeScreen("MoviesList")
///             navigator.push(list)
///             return .one(.contribute(list))
///         default:
///             return .none
///         }
///     }
/// }
/// ```
public protocol Flow: Sendable {
    /// The name the ``FlowRegistry`` knows this flow by. Defaults to the type's name.
    var name: String { get }
    /// What the flow was created with, given back to the registry when a session is restored.
    var parameters: JSONObject { get }
    /// The flow's root presentable: what its `Navigator.root` is.
    var root: FlowRoot { get }
    /// Whether the engine removes this flow's root from the screen when the flow ends, so the parent's
    /// screens come back without the parent dismissing by hand (UIFlow's `finish()`). Defaults to `false`,
    /// as in RxFlow.
    var restoresParentOnEnd: Bool { get }

    /// Decides what happens to a step before ``navigate(to:with:)`` sees it: go on with it, with another
    /// step (a redirect), with none (the step is dropped with the reason "adapted away"), or ask a guard.
    /// Applies to steps from every source, deep links included. Defaults to going on with the step.
    func adapt(step: Step, context: AdaptContext) -> Adaptation

    /// Answers a step: what to show (through `navigator`) and what contributes the next steps.
    func navigate(to step: Step, with navigator: inout Navigator) -> FlowContributors

    /// Whether the flow has an answer for the step, even one that does nothing: a step is accepted by the flows that
    /// declare it, and dropped as `unhandled` when it reaches only flows that do not (a deep link: when the flows it
    /// reaches do not declare its last step). Defaults to `true`: as in RxFlow, every step reaches `navigate`,
    /// and one that returns `.none` still navigated.
    func declares(_ step: Step) -> Bool

    /// Whether a deep link's step reaches the flow: a deep link goes to every flow of the session, as RxFlow's
    /// `navigate(to:)` does, except to those that say otherwise here. Defaults to `true`.
    func takesDeepLink(_ step: Step) -> Bool
}

extension Flow {
    public var name: String { String(describing: Self.self) }
    public var parameters: JSONObject { [:] }
    public var restoresParentOnEnd: Bool { false }

    public func declares(_ step: Step) -> Bool { true }

    public func takesDeepLink(_ step: Step) -> Bool { true }

    public func adapt(step: Step, context: AdaptContext) -> Adaptation {
        .step(step)
    }
}

/// A flow's root presentable: its style and what the presenter draws for it.
public struct FlowRoot: Sendable, Hashable, Codable {
    /// A stack, tabs, a split, or a single screen.
    public var style: PresentableStyle
    /// What the presenter draws: a container's name or a screen's type.
    public var name: String
    /// Data for the presenter.
    public var parameters: JSONObject

    /// Creates a root.
    public init(style: PresentableStyle, name: String, parameters: JSONObject = [:]) {
        self.style = style
        self.name = name
        self.parameters = parameters
    }

    /// A navigation stack.
    public static func stack(_ name: String, _ parameters: JSONObject = [:]) -> FlowRoot {
        FlowRoot(style: .stack, name: name, parameters: parameters)
    }

    /// A tab container.
    public static func tabs(_ name: String, _ parameters: JSONObject = [:]) -> FlowRoot {
        FlowRoot(style: .tabs, name: name, parameters: parameters)
    }

    /// A master/detail split.
    public static func split(_ name: String, _ parameters: JSONObject = [:]) -> FlowRoot {
        FlowRoot(style: .split, name: name, parameters: parameters)
    }

    /// A single screen.
    public static func screen(_ name: String, _ parameters: JSONObject = [:]) -> FlowRoot {
        FlowRoot(style: .screen, name: name, parameters: parameters)
    }
}
