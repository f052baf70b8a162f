import FlowCore
import FlowWire

extension Coordinator {
    /// Why `peer` may not create a session now, or `nil` when it may (and the creation is counted).
    mutating func sessionCreationRefusal(by peer: String) -> String? {
        guard engine.sessionCount < setup.configuration.maxSessions else {
            noteBoundHit(
                "sessions",
                "flowd holds \(setup.configuration.maxSessions) sessions, its limit (maxSessions): new ones are refused"
            )
            return
                "flowd holds \(setup.configuration.maxSessions) sessions, its limit; end sessions that are done (endSession), or raise maxSessions"
        }
        guard allowances.createSession(by: peer, now: now, rates: allowanceRates) else {
            noteBoundHit(
                "sessionsPerPeer",
                "a peer creates more than \(setup.configuration.sessionsPerPeerPerMinute) sessions a minute: refused",
                peer: peer
            )
            return
                "peer '\(LogText.quoted(peer))' may create \(setup.configuration.sessionsPerPeerPerMinute) sessions a minute (sessionsPerPeerPerMinute), one more every \(60_000 / max(1, setup.configuration.sessionsPerPeerPerMinute)) ms; join an existing session, or wait"
        }
        return nil
    }

    /// Why a sender of a new name may not join `session`, or `nil` when it may: the session remembers the steps
    /// of ``DaemonConfiguration/maxSteppersPerSession`` senders already. A name it knows is never refused (a
    /// restarted process takes over its numbering), nor is an inspector (its numbering ends with its connection).
    mutating func senderLimitRefusal(session: SessionID, role: Role, name: String, peer: String) -> String? {
        let limit = setup.configuration.maxSteppersPerSession
        guard role != .inspector, acknowledgements.steppers.count(in: session) >= limit,
            acknowledgements.steppers[StepperKey(session: session, role: role, name: name)] == nil
        else { return nil }
        noteBoundHit("steppersPerSession", "a session remembers \(limit) senders: a new name is refused", peer: peer)
        return
            "session \(LogText.quoted(session.rawValue)) remembers the steps of \(limit) senders, its limit (maxSteppersPerSession); connect under a name it knows (a restarted process keeps its name), or end the session"
    }

    /// Counts a bound that was hit (`stats` `boundsHit`), and logs it at most once a second per bound.
    mutating func noteBoundHit(_ bound: String, _ what: String, peer: String? = nil, count: Int = 1) {
        counters.boundsHit[bound, default: 0] += count
        logThrottled(bound, what, peer: peer)
    }

    /// Logs a warning at most once a second per `key`.
    mutating func logThrottled(_ key: String, _ what: String, peer: String? = nil) {
        guard allowances.mayLog(key, now: now) else { return }
        setup.logger.warning("\(what)", metadata: peer.map { ["peer": "\(LogText.quoted($0))"] } ?? [:])
    }

    /// Replies the server could not queue, per peer, because the peer does not read them: counted (`boundsHit`
    /// `replyQueue`); a peer whose replies are still dropped 5 s after the first is
    /// forgotten, as a silent one is.
    public mutating func repliesDropped(_ dropped: [String: Int], now: Int64) -> [Outgoing] {
        time.advance(to: now)
        turn.messages = []
        for (peer, count) in dropped.sorted(by: { $0.key < $1.key }) {
            noteBoundHit(
                "replyQueue",
                "a peer does not read its replies: they are dropped",
                peer: peer,
                count: count
            )
            if peers.repliesDropped(to: peer, now: self.now) {
                unregister(peer, reason: "did not read its replies for \(PeerRegistry.unreadPeerForgottenAfter) ms")
            }
        }
        return turn.messages
    }

    /// New connections refused: flowd holds as many as its open files allow. Counted (`boundsHit` `connections`)
    /// and logged at most once a second.
    public mutating func connectionsRefused(_ refused: Int, open: Int, cap: Int) {
        noteBoundHit(
            "connections",
            "\(open) connections open, the most flowd's open files allow (\(cap)): new ones are refused",
            count: refused
        )
    }
}
