import FlowCore

/// The `steps` reply: for a session, who may emit steps now — each named stepper and each screen whose own steps
/// a flow takes — and, for every step the flows it reaches handle, whether it would pass now and what it would do.
/// flowd finds out by trying each step on a copy of the session: nothing changes.
public struct StepsReport: Sendable, Hashable, Codable {
    /// A step one source may emit.
    public struct Candidate: Sendable, Hashable, Codable {
        /// The step.
        public var step: String
        /// Its declared parameters: name → type.
        public var parameters: [String: String]
        /// Whether it would be accepted now; `nil` when it would wait for a guard's answer.
        public var passes: Bool?
        /// The guard it would wait for.
        public var guardName: String?
        /// The step a flow's adapt rule would turn it into (`unauthorized`), when one would; `actions` are then
        /// that step's.
        public var adaptedTo: String?
        /// Why it would be dropped: the reason's code, what would happen, and what would make it pass.
        public var reason: String?
        public var explanation: String?
        public var remedy: String?
        /// What the flows that handle it would do, in words, each prefixed with the flow's name.
        public var actions: [String]

        public init(step: String, parameters: [String: String], actions: [String]) {
            self.step = step
            self.parameters = parameters
            self.actions = actions
        }
    }

    /// Who emits: a named stepper, or a screen (its presenter emits as it).
    public struct Source: Sendable, Hashable, Codable {
        /// The stepper's name, for a stepper.
        public var stepper: String?
        /// The screen, for a screen's own steps.
        public var presentable: PresentableID?
        /// The screen's name.
        public var name: String?
        /// The screen's visibility.
        public var visibility: Visibility?
        /// The flows its steps reach, by name.
        public var flows: [String]
        /// The steps those flows handle.
        public var steps: [Candidate]

        public init(stepper: String?, presentable: PresentableID?, flows: [String], steps: [Candidate]) {
            self.stepper = stepper
            self.presentable = presentable
            self.flows = flows
            self.steps = steps
        }
    }

    /// The session.
    public var session: String
    /// The sources, steppers first, then screens by id.
    public var sources: [Source]
    /// Steps listed but not tried (`passes` absent, no `guardName`): flowd tries at most 256 per query, since each
    /// try copies the session on its loop.
    public var untried = 0

    public init(session: String, sources: [Source]) {
        self.session = session
        self.sources = sources
    }
}
