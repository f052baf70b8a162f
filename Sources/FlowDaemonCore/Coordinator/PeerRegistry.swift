import FlowCore
import FlowWire

/// Who is connected: the registered peers by connection id, and what flowd knows of their connections (over
/// WebSocket; with CURVE, not heard since a connection ended, and what waits for them; replies they do not read).
/// No clock and no sockets: it is told the time, and answers with what is due; the coordinator carries it out.
struct PeerRegistry: Sendable {
    /// Who is due for what when time passes (``due(now:timeout:interval:everyone:)``).
    enum Due: Sendable, Hashable {
        /// Silent for longer than the heartbeat timeout: to be forgotten.
        case silent(String)
        /// Sent nothing for a heartbeat interval (or every peer, while answers wait for the store): a HEARTBEAT.
        case heartbeat(String, session: SessionID?)
    }

    /// The registered peers, by connection id.
    private(set) var peers: [String: Peer] = [:]
    /// The ids whose connection is a WebSocket one (their token, not a CURVE key, says what they may do).
    private(set) var webSocketIDs: Set<String> = []
    /// With CURVE, after a control connection ended: the peers that have not spoken since. The connection under a
    /// peer's id may now be another key's (a connection takes a free id); what is sent under the id waits until the
    /// peer's own key speaks there.
    private(set) var unverified: Set<String> = []
    /// What waits for each unverified peer (at most ``heldLimit`` messages each).
    private(set) var held: [String: [Outgoing]] = [:]
    /// Per peer whose replies are being dropped: when the first and the last of this episode were.
    private var unreadSince: [String: (first: Int64, last: Int64)] = [:]

    /// The most messages that wait for an unverified peer; beyond, they are dropped (the peer resends its steps
    /// after WELCOME and gets their fates then).
    static let heldLimit = 1000
    /// How long a peer's replies may go on being dropped (it does not read them) before flowd forgets it (ms).
    static let unreadPeerForgottenAfter: Int64 = 5000

    /// The peer registered under `id`.
    subscript(id: String) -> Peer? { peers[id] }
    /// How many peers are registered.
    var count: Int { peers.count }
    /// The registered peers, in no order.
    var all: Dictionary<String, Peer>.Values { peers.values }
    /// The sessions some registered peer belongs to.
    var occupiedSessions: Set<SessionID> { Set(peers.values.compactMap(\.session)) }

    // MARK: Registration

    /// Registers a peer (a restarted process takes over its id).
    mutating func add(_ peer: Peer) {
        peers[peer.id] = peer
    }

    /// Forgets a peer, and what waited for it; returns its registration, if it had one.
    mutating func remove(_ id: String) -> Peer? {
        unverified.remove(id)
        held[id] = nil
        return peers.removeValue(forKey: id)
    }

    /// Forgets every peer of `session`; returns their ids, in order.
    mutating func removeAll(in session: SessionID) -> [String] {
        let ids = peers.values.filter { $0.session == session }.map(\.id).sorted()
        for id in ids {
            _ = remove(id)
        }
        return ids
    }

    /// Another connected peer of `session` that registered as `role` under `name`, if any.
    func other(than id: String, in session: SessionID, role: Role, name: String) -> Peer? {
        peers.values.first { $0.id != id && $0.session == session && $0.role == role && $0.name == name }
    }

    /// Gives a registered peer another grant (a reload changed its key's).
    mutating func setGrant(_ grant: ClientGrant?, of id: String) {
        peers[id]?.grant = grant
    }

    // MARK: Liveness

    /// The peer `id` was heard `now`: returns its registration, and whether its session's activity is to be noted
    /// (once every `resolution` while its peers speak: ``SessionLedger/activityResolution``). Changed in place: the table's
    /// getter would copy the peer.
    mutating func hear(_ id: String, now: Int64, resolution: Int64) -> (peer: Peer, activeSession: SessionID?)? {
        guard let index = peers.index(forKey: id) else { return nil }
        // Changed in place, and copied out once: each read of `peers.values[index]` copied the whole peer.
        func noteHeard(_ peer: inout Peer) -> SessionID? {
            peer.lastHeard = now
            guard let session = peer.session, now - peer.activityNoted >= resolution else { return nil }
            peer.activityNoted = now
            return session
        }
        let active = noteHeard(&peers.values[index])
        return (peers.values[index], active)
    }

    /// Something was sent to `id` now; returns whether it is registered.
    mutating func sent(to id: String, now: Int64) -> Bool {
        guard let index = peers.index(forKey: id) else { return false }
        peers.values[index].lastSent = now
        return true
    }

    /// What is due `now`, by peer id in order: the peers silent for longer than `timeout`, and a heartbeat to those
    /// sent nothing for `interval` (to every other peer when `everyone`).
    func due(now: Int64, timeout: Int64, interval: Int64, everyone: Bool) -> [Due] {
        peers.keys.sorted().compactMap { id in
            guard let peer = peers[id] else { return nil }
            if now - peer.lastHeard > timeout { return .silent(id) }
            if everyone || now - peer.lastSent >= interval { return .heartbeat(id, session: peer.session) }
            return nil
        }
    }

    // MARK: Replies not read

    /// Replies to `id` were dropped `now` (it does not read them): returns whether the peer is to be forgotten (its
    /// replies went on being dropped for ``unreadPeerForgottenAfter``, with no pause as long in between).
    mutating func repliesDropped(to id: String, now: Int64) -> Bool {
        var episode = unreadSince[id] ?? (first: now, last: now)
        // Drops more than the same time apart are another episode: the peer read in between.
        if now - episode.last >= Self.unreadPeerForgottenAfter {
            episode.first = now
        }
        episode.last = now
        unreadSince[id] = episode
        guard now - episode.first >= Self.unreadPeerForgottenAfter, peers[id] != nil else { return false }
        unreadSince[id] = nil
        return true
    }

    /// Forgets the peers whose replies are no longer dropped.
    mutating func forgetReadingPeers(now: Int64) {
        guard !unreadSince.isEmpty else { return }
        unreadSince = unreadSince.filter { now - $0.value.last < Self.unreadPeerForgottenAfter }
    }

    // MARK: Connections

    /// Peer `id` connected over WebSocket (`true`) or its WebSocket connection ended (`false`).
    mutating func setWebSocket(_ id: String, connected: Bool) {
        if connected {
            webSocketIDs.insert(id)
        } else {
            webSocketIDs.remove(id)
        }
    }

    /// With CURVE, a control connection ended: every registered peer is unverified until it speaks again.
    mutating func connectionEnded() {
        unverified.formUnion(peers.keys)
    }

    /// A connection that is not `id`'s key's spoke under `id`: a registered peer is unverified until its key speaks.
    mutating func spokenByAnother(_ id: String) {
        if peers[id] != nil {
            unverified.insert(id)
        }
    }

    /// Whether what is sent to `id` waits for its key to be heard.
    func isUnverified(_ id: String) -> Bool {
        !unverified.isEmpty && unverified.contains(id)
    }

    /// Keeps a message for an unverified peer; returns false (and drops it) when ``heldLimit`` wait already.
    mutating func hold(_ outgoing: Outgoing, for id: String) -> Bool {
        guard held[id, default: []].count < Self.heldLimit else { return false }
        held[id, default: []].append(outgoing)
        return true
    }

    /// The peer's own key spoke under its id: it is verified, and what waited for it is returned, to go first.
    mutating func verified(_ id: String) -> [Outgoing] {
        guard !unverified.isEmpty, unverified.remove(id) != nil else { return [] }
        return held.removeValue(forKey: id) ?? []
    }
}
