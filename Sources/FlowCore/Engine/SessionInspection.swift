/// A read-only view of one session, for queries and the inspector.
public struct SessionInspection: Sendable, Hashable {
    /// A running flow.
    public struct FlowInfo: Sendable, Hashable, Codable {
        public let id: FlowID
        public let name: String
        public let parent: FlowID?
        public let children: [FlowID]
        public let root: PresentableID
        /// The flow's own stepper (never paused).
        public let stepper: Stepper
        public let isReady: Bool
        public let allowStepWhenDismissed: Bool
    }

    /// A contribution: a presentable whose steps a stepper brings to a flow.
    public struct ContributionInfo: Sendable, Hashable, Codable {
        public let flow: FlowID
        public let presentable: PresentableID
        public let stepper: Stepper
        public let allowStepWhenNotPresented: Bool
        public let allowStepWhenDismissed: Bool
    }

    /// The session.
    public let session: SessionID
    /// The root flow.
    public let rootFlow: FlowID
    /// The running flows, parents before children.
    public let flows: [FlowInfo]
    /// The live contributions, in the order they were made.
    public let contributions: [ContributionInfo]
    /// What is on screen.
    public let screens: ScreenTree
    /// Reported visibility; presentables not listed are unknown.
    public let visibility: [PresentableID: Visibility]
    /// Steps and deep-link steps waiting to be processed.
    public let queuedWork: Int
    /// Deep links waiting for the session to become ready.
    public let waitingDeepLinks: Int
    /// The guard question the session waits for, if any.
    public let pendingGuard: GuardQuestion?
    /// Data set on the session.
    public let sessionData: JSONObject

    init(_ state: SessionState) {
        session = state.id
        rootFlow = state.rootFlow
        flows = state.flowsInPreorder().compactMap { state.flows[$0] }.map {
            FlowInfo(
                id: $0.id,
                name: $0.name,
                parent: $0.parent,
                children: $0.children,
                root: $0.root,
                stepper: $0.stepper,
                isReady: $0.isReady,
                allowStepWhenDismissed: $0.allowStepWhenDismissed
            )
        }
        contributions = state.contributions.map {
            ContributionInfo(
                flow: $0.flow,
                presentable: $0.presentable,
                stepper: $0.stepper,
                allowStepWhenNotPresented: $0.allowStepWhenNotPresented,
                allowStepWhenDismissed: $0.allowStepWhenDismissed
            )
        }
        screens = state.screens
        visibility = state.visibility.dictionary
        queuedWork = state.queue.count + state.idle.count
        waitingDeepLinks = state.waitingDeepLinks.count
        pendingGuard = state.pendingGuard?.question
        sessionData = state.sessionData
    }

    /// The visibility of a presentable.
    public func visibility(of presentable: PresentableID) -> Visibility {
        visibility[presentable] ?? (screens[presentable] == nil ? .dismissed : .unknown)
    }

    /// Whether the root flow is ready.
    public var isReady: Bool {
        flows.first { $0.id == rootFlow }?.isReady ?? false
    }
}
