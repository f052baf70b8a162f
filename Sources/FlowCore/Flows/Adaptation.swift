/// What ``Flow/adapt(step:context:)`` decided.
public enum Adaptation: Sendable, Hashable {
    /// Navigate to this step: the one received, or a redirect such as `unauthorized`.
    case step(Step)
    /// Navigate to nothing: the step is dropped and its stepper told "adapted away".
    case none
    /// Ask a guard and navigate to ``GuardQuestion/ifAllowed`` or ``GuardQuestion/ifRefused`` by its answer.
    /// The session's later steps wait (in order) until the answer or the guard timeout; other sessions do not.
    case ask(GuardQuestion)
}

/// A question to a guard process, asked while adapting a step (RxFlow's asynchronous `adapt`).
public struct GuardQuestion: Sendable, Hashable, Codable {
    /// Which guard answers (a guard process registers under this name).
    public var guardName: String
    /// What is asked, such as the permission `about`.
    public var subject: String
    /// The step being adapted, for the guard to look at.
    public var step: Step
    /// The step to navigate to when the guard allows (usually ``step``).
    public var ifAllowed: Step
    /// The step to navigate to when the guard refuses or does not answer in time; ``Step/none`` drops it.
    public var ifRefused: Step

    /// Creates a question.
    public init(guardName: String, subject: String, step: Step, ifAllowed: Step, ifRefused: Step) {
        self.guardName = guardName
        self.subject = subject
        self.step = step
        self.ifAllowed = ifAllowed
        self.ifRefused = ifRefused
    }
}

/// What a flow can read while adapting a step.
public struct AdaptContext: Sendable {
    /// The session.
    public let session: SessionID
    /// The flow adapting.
    public let flow: FlowID
    /// Data set on the session over the bus (logged-in user, permissions...).
    public let sessionData: JSONObject

    /// Creates a context; the engine makes these.
    public init(session: SessionID, flow: FlowID, sessionData: JSONObject) {
        self.session = session
        self.flow = flow
        self.sessionData = sessionData
    }
}
