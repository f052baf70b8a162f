/// What became of a step: every step gets one, nothing is dropped silently.
public enum StepFate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The step was navigated by these flows.
    case accepted(flows: [FlowID])
    /// The step was dropped, for this reason.
    case dropped(DropReason)

    /// Whether the step was accepted.
    public var isAccepted: Bool {
        if case .accepted = self { true } else { false }
    }

    public var description: String {
        switch self {
        case .accepted(let flows): "accepted by " + flows.map(\.description).joined(separator: ", ")
        case .dropped(let reason): "dropped: \(reason)"
        }
    }
}

/// Why a step was dropped, with what would have made it pass.
public enum DropReason: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The contribution's presentable was not visible (hidden, or not reported yet) when the step came.
    case notVisible(PresentableID, Visibility)
    /// The contribution's presentable was dismissed, which ended the contribution.
    case dismissed(PresentableID)
    /// No live contribution or flow listens to this stepper (or presentable).
    case unboundStepper
    /// The flow the step was for has ended.
    case flowEnded(FlowID)
    /// The flow's `adapt` turned the step into no step.
    case adaptedAway(FlowID)
    /// The session does not exist.
    case unknownSession
    /// A deep link waited for the session to become ready longer than allowed.
    case deepLinkExpired
    /// No flow the step reached declares it (``Flow/declares(_:)``; for a deep link, its last step).
    case unhandled(step: String)
    /// The session's queue of steps was full.
    case queueFull
    /// The step was the "none" step, which is never navigated.
    case noneStep
    /// The session ended before the step was navigated.
    case sessionEnded
    /// One event caused more navigations than allowed (a forward loop?): the queued steps were dropped.
    case tooManySteps
    /// The step's parameters do not match what is declared for it: `parameter` is the first that does not, and
    /// `problem` says how (`must be an int, not a string`).
    case invalidParameters(step: String, parameter: String, problem: String)
    /// The flow file lists the steps its sender sends (`sends:`), and this one is not among them: `sender` is the
    /// screen's name or the stepper's, `sends` what the file lists for it.
    case notDeclaredForSender(step: String, sender: String, sends: [String])

    /// A short code for logs, the wire and filters.
    public var code: String {
        switch self {
        case .notVisible: "notVisible"
        case .dismissed: "dismissed"
        case .unboundStepper: "unboundStepper"
        case .flowEnded: "flowEnded"
        case .adaptedAway: "adaptedAway"
        case .unknownSession: "unknownSession"
        case .deepLinkExpired: "deepLinkExpired"
        case .unhandled: "unhandled"
        case .queueFull: "queueFull"
        case .noneStep: "noneStep"
        case .sessionEnded: "sessionEnded"
        case .tooManySteps: "tooManySteps"
        case .invalidParameters: "invalidParameters"
        case .notDeclaredForSender: "notDeclaredForSender"
        }
    }

    /// What happened, in a sentence.
    public var description: String {
        switch self {
        case .notVisible(let id, let visibility):
            "its presentable \(id) was \(visibility == .unknown ? "not reported visible yet" : "\(visibility)")"
        case .dismissed(let id): "its presentable \(id) was dismissed, which ended its contribution"
        case .unboundStepper: "no running flow or contribution listens to its sender (that stepper, or that screen)"
        case .flowEnded(let id): "the flow \(id) it was for has ended"
        case .adaptedAway(let id): "the flow \(id) adapted it to no step"
        case .unknownSession: "the session does not exist"
        case .deepLinkExpired: "the deep link waited too long for the session to become ready"
        case .unhandled(let step): "no flow it reached declares \(step)"
        case .queueFull: "the session's step queue was full"
        case .noneStep: "it was the none step"
        case .sessionEnded: "the session ended before it was navigated"
        case .tooManySteps: "one event caused more navigations than allowed, so the queue was dropped"
        case .invalidParameters(let step, let parameter, let problem): "\(step)'s parameter '\(parameter)' \(problem)"
        case .notDeclaredForSender(let step, let sender, let sends):
            "the flow file says \(sender) sends \(sends.isEmpty ? "no step" : "only " + sends.joined(separator: ", ")), not \(step)"
        }
    }

    /// What would have made the step pass.
    public var remedy: String {
        switch self {
        case .notVisible:
            "send it from a screen the user sees: one covered by another (under a modal, on another tab, below a pushed screen) takes steps again once uncovered and reported visible by its presenter; or contribute it with allowStepWhenNotPresented"
        case .dismissed:
            "contribute it with allowStepWhenDismissed to keep taking its steps after a dismissal"
        case .unboundStepper:
            "send it from a stepper or screen a running flow listens to (`flowctl steps` lists them; `flowctl emit --as NAME` or `--from pN`), or bind the stepper in the flow file: `stepper: { named: NAME }` on the session or on a `show:` or `start:` whose flow handles the step"
        case .flowEnded:
            "send it while the flow runs, or to a flow that is still running"
        case .adaptedAway:
            "meet the condition of the flow's adapt rule (session data or guard)"
        case .unknownSession:
            "say hello for the session first, or check its name"
        case .deepLinkExpired:
            "send the deep link once the session is ready, or raise the deep-link wait"
        case .unhandled:
            "declare the step in a flow it reaches (in the flow file, under the flow's `on:`, even with no action: `step: []`), or send the path of steps that opens the flow that does"
        case .queueFull:
            "send steps more slowly, or raise the queue limit"
        case .noneStep:
            "send a real step"
        case .sessionEnded:
            "send it to a running session"
        case .tooManySteps:
            "look for flows that forward steps to each other (or to themselves) without end"
        case .invalidParameters:
            "send the parameters declared for the step under `steps:` in the flow file, with their types"
        case .notDeclaredForSender(let step, let sender, _):
            "add \(step) to what \(sender) sends under `sends:` in the flow file, or send it from a sender that declares it"
        }
    }
}
