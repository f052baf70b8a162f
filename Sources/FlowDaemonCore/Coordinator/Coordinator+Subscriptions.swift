import FlowCore
import FlowWire

extension Coordinator {
    /// Notes a subscription for the bound on unproven topics: one to a topic flowd does not publish (or, with
    /// CURVE, one it refused, which libzmq keeps all the same) is counted until it ends or its session starts.
    mutating func noteSubscription(_ topic: [UInt8], subscribed: Bool, address: String?, applied: Bool) {
        if subscribed {
            if !applied || !publishes(topic) {
                if let offender = subscriptions.addUnproven(topic, address: address ?? "", now: now) {
                    noteBoundHit(
                        "subscriptions",
                        "subscriptions to topics flowd does not publish held more than \(UnprovenSubscriptions.limit) bytes: the subscriber at \(LogText.quoted(offender)) that held the most is cut",
                        peer: offender
                    )
                }
            }
        } else {
            subscriptions.removeUnproven(topic)
        }
    }

    /// Subscriber connections the server cut for sending more than a subscriber does: counted (`boundsHit`
    /// `subscriberBytes`) and logged at most once a second.
    public mutating func subscribersCut(_ count: Int, address: String) {
        noteBoundHit(
            "subscriberBytes",
            "cut \(count) subscriber connection(s) at \(LogText.quoted(address)): each sent more than a subscriber sends (over tcp, \(SubscriberLimits.byteLimit) bytes in all; over ipc, \(SubscriberLimits.waitingLimit) bytes waiting to be read)",
            peer: address,
            count: count
        )
    }

    /// The server cut `count` connections at `address` for holding the most unproven topics (`local`: every
    /// connection of that process). Unless it cut one that ends over tcp, which gives its topics back as it ends,
    /// what is counted for the address is forgotten.
    public mutating func unprovenSubscribersCut(_ count: Int, at address: String, local: Bool) {
        if count == 0 || local {
            subscriptions.forgetUnproven(at: address)
        }
    }

    /// New connections of a process cut for flooding with subscriptions, refused in the handshake while it is
    /// banned: counted (`boundsHit.bannedConnections`) and logged at most once a second.
    public mutating func bannedConnectionsRefused(_ count: Int) {
        noteBoundHit(
            "bannedConnections",
            "refused new connections of a process (over tcp, a host) cut for flooding with subscriptions, or of a key that spoke under another's id (banned a while)",
            count: count
        )
    }

    /// With CURVE: control connections were cut for saying nothing (since they connected, for longer than a client
    /// waits to speak, or since their last message, for longer than the heartbeat timeout); `peers` says where each
    /// was (`address:port`, or `localhost:uid:gid:pid` over ipc), so that an operator can find a process that holds others' ids.
    public mutating func silentConnectionsCut(_ peers: [String]) {
        let shown = peers.prefix(5).joined(separator: ", ") + (peers.count > 5 ? "…" : "")
        noteBoundHit(
            "silentConnections",
            "cut \(peers.count) control connection(s) that said nothing for too long (a connection holding another's id says nothing): \(shown)",
            count: peers.count
        )
    }

    /// Peer `id` connected over WebSocket: its token, not a CURVE key, says what it may do (a reload of the tokens
    /// checks it against them). Told by the server when the connection opens, not at every message.
    public mutating func webSocketConnectionOpened(_ id: String) {
        peers.setWebSocket(id, connected: true)
    }

    /// The WebSocket connection of peer `id` ended (another may take the id later): its grant is a key's again if it
    /// connects over ZeroMQ. Its registration stays until it says BYE or its heartbeat timeout passes, as a ZeroMQ
    /// peer's.
    public mutating func webSocketConnectionClosed(_ id: String) {
        peers.setWebSocket(id, connected: false)
    }

    /// Whether flowd publishes on `topic`, or on topics it is a prefix of: the empty topic, `cmd/`, `ins/` and
    /// `inb/` (or a prefix of them); then, for a session that exists (or `-`, events of no session):
    /// `cmd/<session>/` and `cmd/<session>/<presenter>` for its main presenter or one it sent commands to,
    /// `ins/<session>/` and `ins/<session>/<kind>` (or a prefix of a kind), `inb/<session>/`. A session id may hold
    /// slashes: each split is tried.
    func publishes(_ topic: [UInt8]) -> Bool {
        let families = ["cmd/", "ins/", "inb/"].map { Array($0.utf8) }
        guard topic.count > 4 else { return families.contains { $0.starts(with: topic) } }
        guard let family = families.first(where: { topic.starts(with: $0) }) else { return false }
        let rest = topic.dropFirst(4)
        // At most the longest session id and the longest name or kind, and a slash.
        guard rest.count <= 2 * WireLimits.maxIdentifierLength + 1 else { return false }
        if let last = rest.last, last == UInt8(ascii: "/"), knows(session: rest.dropLast()) {
            return true
        }
        for slash in rest.indices where rest[slash] == UInt8(ascii: "/") {
            let session = rest[rest.startIndex..<slash]
            let name = rest[(slash + 1)...]
            guard !name.isEmpty, knows(session: session) else { continue }
            if family == families[0] {
                let presenter = PresenterID(String(decoding: name, as: UTF8.self))
                let id = SessionID(String(decoding: session, as: UTF8.self))
                if presenter == setup.configuration.engine.mainPresenter
                    || ledger.hasSentCommands(in: id, to: presenter)
                {
                    return true
                }
            } else if family == families[1],
                InspectionKind.all.contains(where: { Array($0.rawValue.utf8).starts(with: name) })
            {
                return true
            }
        }
        return false
    }

    private func knows(session: ArraySlice<UInt8>) -> Bool {
        session.elementsEqual("-".utf8) || engine.hasSession(SessionID(String(decoding: session, as: UTF8.self)))
    }
}
