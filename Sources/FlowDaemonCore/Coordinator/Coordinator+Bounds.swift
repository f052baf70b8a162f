import FlowCore
import FlowWire

extension Coordinator {
    /// The first identifier of a message that flowd refuses, and why: over 128 bytes (`tooLong`), or holding a
    /// control character (`malformedBody`: a session id with an escape sequence would reach operators' terminals
    /// through flowctl). Identifiers are HELLO's id, name and session, step names (a deep link's too), session-data
    /// keys, QUERY's `what` and session, and the header's session and sender. On every message: it allocates
    /// nothing unless it finds a problem.
    static func identifierProblem(in envelope: Envelope) -> (code: ErrorCode, message: String)? {
        func problem(_ field: String, _ value: String?) -> (code: ErrorCode, message: String)? {
            guard let value else { return nil }
            let count = value.utf8.count
            if count > WireLimits.maxIdentifierLength {
                return (
                    .tooLong,
                    "\(field) is \(count) bytes long; ids, names, sessions and step names are at most \(WireLimits.maxIdentifierLength)"
                )
            }
            if let control = ControlCharacters.first(in: value) {
                let code = String(control.value, radix: 16, uppercase: true)
                return (
                    .malformedBody,
                    "\(field) holds a control character (U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code)); ids, names, sessions and step names are printable text"
                )
            }
            return nil
        }
        switch envelope.message {
        case .hello(let hello):
            if let found = problem("id", hello.id) ?? problem("name", hello.name) ?? problem("session", hello.session) {
                return found
            }
        case .step(let step):
            if let found = problem("step.name", step.step.name) { return found }
        case .deepLink(let link):
            for step in link.path {
                if let found = problem("path[].name", step.name) { return found }
            }
        case .sessionData(let data):
            if let found = problem("key", data.key) { return found }
        case .query(let query):
            if let found = problem("what", query.what)
                ?? problem("arguments.session", query.arguments["session"]?.stringValue)
            {
                return found
            }
        case .bye, .heartbeat, .visibility, .snapshotRequest, .guardAnswer:
            break
        case .welcome, .redirect, .error, .stepAck, .commands, .snapshot, .reply, .guardQuestion, .event, .events:
            // Not for flowd: the dispatcher answers `unexpectedMessage`.
            break
        }
        return problem("header.session", envelope.header.session) ?? problem("header.sender", envelope.header.sender)
    }

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

    /// A control connection ended. With CURVE, every registered peer is unverified until it speaks again: its id
    /// may be taken by a connection of another key (libzmq gives a free id to whoever asks for it), so what is sent
    /// under the id waits (at most 1 000 messages a peer) until the peer's own key is heard there.
    public mutating func controlConnectionEnded() {
        guard setup.configuration.curve != nil else { return }
        peers.connectionEnded()
    }

    /// Keeps a message for an unverified peer (at most ``PeerRegistry/heldLimit``; beyond, the bound is hit).
    mutating func hold(_ outgoing: Outgoing, for peer: String) {
        guard peers.hold(outgoing, for: peer) else {
            noteBoundHit(
                "heldReplies",
                "a peer not heard since a connection ended has too many replies waiting",
                peer: peer
            )
            return
        }
    }
}
