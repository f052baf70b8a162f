/// A session's whole state as a `Codable` value: flows, contributions, screens, visibility, queued steps,
/// waiting deep links and guard questions. Restore it with ``FlowEngine/restore(_:)``.
public struct SessionSnapshot: Sendable, Hashable, Codable {
    /// The format version this FlowBus writes and reads.
    public static let currentVersion = 1

    /// The format version of this snapshot.
    public let version: Int
    let state: SessionState

    init(state: SessionState) {
        self.version = Self.currentVersion
        self.state = state
    }

    /// The session it is a snapshot of.
    public var session: SessionID { state.id }
}
