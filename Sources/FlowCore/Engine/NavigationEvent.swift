/// Something that happened in a session: the stream the inspector shows.
public struct NavigationEvent: Sendable, Hashable, Codable {
    /// What happened.
    public enum Kind: Sendable, Hashable, Codable {
        /// The session started with its root flow.
        case sessionStarted(rootFlow: FlowID, name: String)
        /// The session ended.
        case sessionEnded
        /// A step came in from a stepper, or was emitted by the coordinator (`source` is `nil`).
        case stepReceived(token: StepToken, step: Step, source: StepSource?)
        /// What became of a step.
        case stepFate(token: StepToken, step: Step, source: StepSource?, fate: StepFate)
        /// A deep link came in (a path of one or more steps).
        case deepLinkReceived(token: StepToken, path: [Step])
        /// A deep link waits for the session to become ready.
        case deepLinkWaiting(token: StepToken)
        /// A flow is about to navigate to a step (after adapt).
        case willNavigate(flow: FlowID, name: String, step: Step)
        /// A flow navigated to a step; `contributors` summarises what it returned.
        case didNavigate(flow: FlowID, name: String, step: Step, contributors: String)
        /// A flow's `adapt` changed the step.
        case adapted(flow: FlowID, from: Step, to: Step)
        /// A command a flow asked for did not fit the screen and was left out.
        case commandRejected(flow: FlowID, operation: String, reason: String)
        /// A flow started.
        case flowStarted(flow: FlowID, name: String, parent: FlowID?, root: PresentableID)
        /// A flow became ready (it navigated its first step and its first children are ready). Latched.
        case flowReady(flow: FlowID)
        /// A flow ended, and why.
        case flowEnded(flow: FlowID, name: String, reason: String)
        /// A flow forwarded a step to its parent, but it is the root: the step is dropped.
        case forwardDroppedAtRoot(flow: FlowID, step: Step)
        /// A presentable's visibility changed.
        case visibilityChanged(presentable: PresentableID, visibility: Visibility)
        /// A guard was asked a question.
        case guardAsked(question: UInt64, guardName: String, subject: String, step: Step)
        /// A guard answered (or did not in time).
        case guardAnswered(question: UInt64, allowed: Bool, timedOut: Bool)
    }

    /// The session it happened in.
    public let session: SessionID
    /// What happened.
    public let kind: Kind

    /// Creates an event; the engine makes these.
    public init(session: SessionID, kind: Kind) {
        self.session = session
        self.kind = kind
    }
}
