import FlowCore

/// EVENT (published on the events socket, topic `ins/<session>/<kind>`): one thing that happened, for
/// inspectors.
public struct InspectionEvent: Sendable, Hashable, Codable {
    /// What happened: `stepReceived`, `stepFate`, `willNavigate`, `didNavigate`, `flowStarted`, `flowEnded`,
    /// `flowReady`, `visibilityChanged`, `commands`, `registered`, `unregistered`, `error`...
    public var kind: String
    /// The session, when there is one.
    public var session: String?
    /// The details, shaped by the kind.
    public var fields: JSONObject

    public init(kind: String, session: String?, fields: JSONObject) {
        self.kind = kind
        self.session = session
        self.fields = fields
    }
}
