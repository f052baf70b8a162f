import FlowCore

/// A session's tree as flowd's `tree` query returns it (the REPLY's `result`): its flows, their contributions, and
/// the screens.
public struct SessionTree: Sendable, Hashable, Codable {
    /// A running flow.
    public struct Flow: Sendable, Hashable, Codable {
        public var id: FlowID
        public var name: String
        public var parent: FlowID?
        public var root: PresentableID
        public var stepper: String
        public var ready: Bool
    }

    /// A presentable a flow contributed, and the stepper that feeds it.
    public struct Contribution: Sendable, Hashable, Codable {
        public var flow: FlowID
        public var presentable: PresentableID
        public var stepper: String
        public var visibility: Visibility
    }

    /// A presentable on screen.
    public struct Screen: Sendable, Hashable, Codable {
        public var id: PresentableID
        public var name: String
        public var parameters: JSONObject
        public var style: PresentableStyle
        public var presenter: PresenterID
        public var parent: PresentableID?
        public var placement: Placement
        public var visibility: Visibility
    }

    public var session: SessionID
    public var ready: Bool
    public var flows: [Flow]
    public var contributions: [Contribution]
    public var screens: [Screen]

    /// A tree of these parts.
    public init(session: SessionID, ready: Bool, flows: [Flow], contributions: [Contribution], screens: [Screen]) {
        self.session = session
        self.ready = ready
        self.flows = flows
        self.contributions = contributions
        self.screens = screens
    }

    /// Reads a `tree` reply.
    /// - Throws: when the reply does not have the tree's shape.
    public init(_ reply: JSONValue) throws {
        self = try FlowJSON.decode(SessionTree.self, from: reply)
    }
}
