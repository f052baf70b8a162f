import FlowCore

/// EVENTS (published on the events socket, topic `inb/<session>/`): the inspection events of one session that
/// waited to be published (at most 5 ms), in order, with the command batches flowd published for the session's
/// presenters meanwhile (as entries of kind `commands`). One message instead of one per event: a busy flowd's
/// inspectors cost it a message per few milliseconds, not per event.
public struct InspectionBatch: Sendable, Hashable, Codable {
    /// The session, when the events belong to one (absent for flowd's own: an inspector's registration...).
    public var session: String?
    /// The events, in the order they happened.
    public var events: [Entry]

    public init(session: String?, events: [Entry]) {
        self.session = session
        self.events = events
    }

    /// One event of a batch.
    public struct Entry: Sendable, Hashable, Codable {
        /// What happened, as in EVENT (`stepFate`, `didNavigate`...), or `commands` for a command batch.
        public var kind: String
        /// When it happened (ms since 1970, flowd's clock).
        public var at: Int64
        /// The details, as in EVENT; for `commands`, the COMMANDS body.
        public var fields: JSONObject

        public init(kind: String, at: Int64, fields: JSONObject) {
            self.kind = kind
            self.at = at
            self.fields = fields
        }
    }
}
