/// What the daemon counts: readable with the `stats` query.
public struct Counters: Sendable, Hashable, Codable {
    package init() {}

    /// Messages received, by type (`invalid` for those that could not be read).
    public var messagesIn = MessageCounts()
    /// Messages sent or published, by type.
    public var messagesOut = MessageCounts()
    /// Errors answered, by code.
    public var errors: [String: Int] = [:]
    /// Steps and deep links taken in.
    public var stepsIn = 0
    /// Steps accepted.
    public var accepted = 0
    /// Steps dropped, by reason.
    public var dropped: [String: Int] = [:]
    /// Command batches published.
    public var batchesOut = 0
    /// Commands published.
    public var commandsOut = 0
    /// Sessions created.
    public var sessionsCreated = 0
    /// Peers that went silent past the timeout.
    public var peersLost = 0
    /// Sessions brought back from the store when flowd started.
    public var sessionsRestored = 0
    /// Sessions this instance of a fleet took over from instances whose lease expired.
    public var sessionsAdopted = 0
    /// Sessions this instance of a fleet lost to another (it was paused past its lease).
    public var sessionsLost = 0
    /// HELLOs sent to the instance of the fleet that serves their session.
    public var redirects = 0
    /// Sessions ended because no peer touched them for the idle expiry.
    public var sessionsExpired = 0
    /// Bounds hit, by bound: `sessions`, `sessionsPerPeer`, `messageRate`, `byteRate`, `replyQueue` (a peer that
    /// does not read its replies), `floodingPeer` (a peer forgotten for flooding on), `connections`, and the others
    /// the specification's `stats` query lists (`silentConnections`, `bannedConnections`...).
    public var boundsHit: [String: Int] = [:]

    /// Adds one to a counter of a map.
    static func bump(_ map: inout [String: Int], _ key: String) {
        map[key, default: 0] += 1
    }
}
