/// The `flows` reply: the flow file flowd runs, as a client can show it without the file — the session's start,
/// every step with its parameters, every flow with the steps it handles and what it does with each, every screen.
public struct FlowsReport: Sendable, Hashable, Codable {
    /// A declared step.
    public struct StepInfo: Sendable, Hashable, Codable {
        /// Its name.
        public var name: String
        /// Its parameters: name → type (`int`, `string`, ...; `?` when optional).
        public var parameters: [String: String]

        public init(name: String, parameters: [String: String]) {
            self.name = name
            self.parameters = parameters
        }
    }

    /// What a flow does with one step.
    public struct Handler: Sendable, Hashable, Codable {
        /// The step.
        public var step: String
        /// Its actions, in order, in words: `show MovieDetail(movieId: $withId)`, `start DashboardFlow as push`.
        public var actions: [String]

        public init(step: String, actions: [String]) {
            self.step = step
            self.actions = actions
        }
    }

    /// A flow.
    public struct FlowInfo: Sendable, Hashable, Codable {
        /// Its name.
        public var name: String
        /// Its root: `stack app`, `tabs dashboard`...
        public var root: String
        /// The steps it handles, in file order.
        public var handlers: [Handler]
        /// Its adapt rules, in words: `aboutIsRequired when permission about, else unauthorized`.
        public var adapts: [String]

        public init(name: String, root: String, handlers: [Handler], adapts: [String]) {
            self.name = name
            self.root = root
            self.handlers = handlers
            self.adapts = adapts
        }
    }

    /// The flow file.
    public var file: String
    /// The flow every session starts with.
    public var rootFlow: String
    /// The root flow's stepper, in words (`app`, `one(home)`).
    public var stepper: String
    /// The root flow's stepper process, when its stepper is a named one (`app`).
    public var stepperName: String?
    /// Every step, in file order.
    public var steps: [StepInfo]
    /// Every flow, in file order.
    public var flows: [FlowInfo]
    /// Every screen name the flows show.
    public var screens: [String]

    public init(
        file: String,
        rootFlow: String,
        stepper: String,
        stepperName: String?,
        steps: [StepInfo],
        flows: [FlowInfo],
        screens: [String]
    ) {
        self.file = file
        self.rootFlow = rootFlow
        self.stepper = stepper
        self.stepperName = stepperName
        self.steps = steps
        self.flows = flows
        self.screens = screens
    }
}
