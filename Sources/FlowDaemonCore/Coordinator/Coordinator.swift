import FlowBuildInfo
import FlowCore
import FlowSpec
import FlowStore
import FlowWire
import Logging

/// flowd's logic without its sockets: takes the frames a peer sent (and the passing of time) and answers with
/// the frames to send. It owns the engine, the registrations and the sequence numbers; the server only moves
/// bytes. One thread uses it; nothing in it blocks.
public struct Coordinator: Sendable {
    /// The daemon's version, said in WELCOME.
    public static let version = BuildInfo.version

    /// What it was given: the flows, the configuration, its epoch, its codec and its logger.
    var setup: CoordinatorSetup
    /// The sessions' trees of flows and screens, and every navigation.
    var engine: FlowEngine
    /// flowd's clock and the wall clock's offset from it.
    var time: CoordinatorTime
    /// Who is connected.
    var peers = PeerRegistry()
    /// Who waits for which step's fate, and the steps dropped.
    var acknowledgements = Acknowledgements()
    /// What flowd keeps of each session beside its tree: its activity and its presenters' command sequences.
    var ledger: SessionLedger
    /// Who watches the inspection stream, and subscriptions to topics flowd does not publish.
    var subscriptions = Subscriptions()
    /// What each peer may still send and create, and how often warnings are logged.
    var allowances = Allowances()
    /// What the turn sends.
    var turn: TurnOutput
    /// What goes to the store, and how the store is.
    var store: StoreLink
    /// What an instance of a fleet knows of the fleet; `nil` for a flowd of its own.
    var fleet: FleetMembership?
    /// What was counted so far.
    public internal(set) var counters = Counters()

    /// The flows in use.
    public var specification: FlowSpecification { setup.specification }
    /// The configuration.
    public var configuration: DaemonConfiguration { setup.configuration }
    /// The daemon's state: it stays across restarts that keep state (a state directory) and changes when state is
    /// lost (`--ephemeral`, a new state directory). Presenters resync when it changes.
    public var epoch: String { setup.epoch }
    /// Why the store does not answer, while it does not (the server says so every tick): HELLOs are refused with
    /// `storeUnavailable` meanwhile.
    public var storeUnavailable: String? {
        get { store.unavailable }
        set { store.unavailable = newValue }
    }
    /// What the store holds and how fast it writes, as the server last read it (`nil` when ephemeral).
    public var storeStatistics: StoreStatistics? {
        get { store.statistics }
        set { store.statistics = newValue }
    }
    /// Groups handed to the journal writer and not yet written, as the server last saw.
    public var groupsWaiting: Int {
        get { store.groupsWaiting }
        set { store.groupsWaiting = newValue }
    }
    /// The wall clock minus flowd's clock: timestamps that leave flowd (`sentAt`, `at`) are on the wall clock.
    /// The server sets it every turn; it moves with NTP, and the timers do not.
    public var wallOffset: Int64 {
        get { time.wallOffset }
        set { time.wallOffset = newValue }
    }
    /// flowd's clock (milliseconds): monotonic, continued across restarts from the store; timers and deadlines run
    /// on it.
    var now: Int64 { time.now }
    var logger: Logger { setup.logger }
    var codec: WireCodec { setup.codec }

    /// Creates a coordinator for a flow file.
    public init(
        specification: FlowSpecification,
        configuration: DaemonConfiguration,
        epoch: String,
        now: Int64,
        logger: Logger = Logger(label: "flowbus.flowd")
    ) {
        setup = CoordinatorSetup(
            specification: specification,
            configuration: configuration,
            epoch: epoch,
            codec: WireCodec(maxBodySize: configuration.maxMessageSize),
            logger: logger
        )
        time = CoordinatorTime(now: now)
        ledger = SessionLedger(now: now)
        turn = TurnOutput(firstMessageID: UInt64(max(0, now)) &* 1000)
        store = StoreLink(durable: configuration.durable, startedAt: now)
        engine = FlowEngine(
            registry: specification.registry,
            options: configuration.engine,
            now: EngineTime(milliseconds: now)
        )
        // Nobody watches yet: the engine records fates only (see subscription(_:subscribed:address:applied:now:)).
        engine.recordsInspectionEvents = false
    }

    /// The sessions that exist.
    public var sessions: [SessionID] { engine.sessionIDs }
    /// How many sessions exist (without listing them: a list is sorted, which a large flowd cannot do per message).
    public var sessionCount: Int { engine.sessionCount }
    /// How many peers are registered.
    public var peerCount: Int { peers.count }

    /// The earliest time at which `tick(now:)` has something to do (flowd's clock, ms): half a heartbeat interval
    /// after the last tick (not after the last message: a busy daemon must still notice silent peers), or the
    /// engine's next deadline.
    public func nextTick() -> Int64 {
        let period = max(1, setup.configuration.heartbeatInterval.milliseconds / 2)
        let engineDeadline = engine.nextDeadline?.milliseconds ?? Int64.max
        return min(time.lastTick + period, engineDeadline)
    }

    /// The earliest time at which `tick(now:)` or ``publishDueInspection(now:)`` has something to do: the next tick, or
    /// when batched inspection events are due.
    public func nextWakeUp() -> Int64 {
        let inspectionDue =
            subscriptions.batches.oldest.map { $0 - wallOffset + setup.configuration.inspectionBatchDelay.milliseconds }
            ?? Int64.max
        return min(nextTick(), inspectionDue)
    }

    // MARK: Input

    /// Handles the frames a peer sent on the control socket (routing id first removed), or on its WebSocket
    /// connection (`overWebSocket`: `peer` is the connection's id, `userID` its token's id): the same rules for both.
    /// - Returns: what it sends, and the connection to cut when it spoke under an id that is not its own.
    public mutating func receive(
        _ frames: [[UInt8]],
        from peer: String,
        userID: String? = nil,
        overWebSocket: Bool = false,
        now: Int64
    ) -> Reception {
        time.advance(to: now)
        turn.begin()
        handle(frames, from: peer, userID: userID, overWebSocket: overWebSocket, now: now)
        return Reception(messages: turn.messages, impostor: turn.impostor)
    }

    /// Handles one message into the turn's output.
    private mutating func handle(
        _ frames: [[UInt8]],
        from peer: String,
        userID: String?,
        overWebSocket: Bool,
        now: Int64
    ) {
        guard admitMessage(from: peer, bytes: frames.reduce(0) { $0 + $1.count }) else {
            return
        }
        // With CURVE a connection speaks only under its key's id. One that took another's free id (flowd does not
        // hand over a connected one), or an id no key has, is refused whatever it says, and cut; nothing more goes to
        // the id until its own key is heard there again.
        // A key a reload withdrew is refused the same way: its connection is cut.
        if overWebSocket {
            // A WebSocket connection's id and token were checked in its handshake: only a token a reload withdrew is
            // refused here (the server closes its connection).
            if let tokenIDs = setup.configuration.webSocket?.tokenIDs, !tokenIDs.isEmpty,
                userID != peer || !tokenIDs.contains(peer)
            {
                refuseWithdrawnToken(frames, from: peer)
                return
            }
        } else if let curve = setup.configuration.curve, userID != peer || curve.authorizedKeys[peer] == nil {
            refuseUnauthorizedConnection(frames, from: peer, userID: userID, curve: curve)
            return
        }
        let envelope: Envelope
        do {
            envelope = try setup.codec.decode(frames)
        } catch {
            counters.messagesIn.countInvalid()
            reply(to: peer, correlation: error.correlation, error: error.code, error.message)
            return
        }
        counters.messagesIn.count(envelope.message.type)
        // The peer's own key spoke under its id: what waited for it goes first.
        turn.messages += peers.verified(peer)
        // The sender's registration, looked up once for the message.
        let heard = peers.hear(peer, now: now, resolution: SessionLedger.activityResolution)
        if let session = heard?.activeSession {
            ledger.used(session, at: time.wallNow)
        }
        dispatch(envelope, body: frames[3], from: peer, registered: heard?.peer, userID: userID)
    }

    /// Lets time pass: deadlines of the engine, heartbeats to idle peers, peers gone silent, HELLOs waiting for a
    /// fleet's store that does not answer.
    /// - Parameter now: flowd's clock (ms).
    /// - Parameter answersHeld: whether answers wait for the store: then every peer gets a heartbeat at every tick,
    ///   sent at once (what it was sent last may not have left), so that a store that is slow or down is not taken
    ///   for a dead flowd.
    public mutating func tick(now: Int64, answersHeld: Bool = false) -> [Outgoing] {
        time.advance(to: now)
        time.lastTick = self.now
        turn.messages = []
        let passed = engine.advanceTime(to: EngineTime(milliseconds: self.now))
        for session in passed.sessions {
            record(.timePassed, session: session)
        }
        apply(passed)
        allowances.forgetQuiet(now: self.now)
        peers.forgetReadingPeers(now: self.now)
        endIdleSessions()
        if let topics = subscriptions.unprovenToRecheck(now: self.now) {
            subscriptions.proven(Set(topics.filter { publishes($0) }))
        }
        let timeout = setup.configuration.heartbeatTimeout.milliseconds
        let interval = setup.configuration.heartbeatInterval.milliseconds
        for due in peers.due(now: self.now, timeout: timeout, interval: interval, everyone: answersHeld) {
            switch due {
            case .silent(let id):
                counters.peersLost += 1
                unregister(id, reason: "silent for more than \(timeout) ms")
            case .heartbeat(let id, let session):
                send(.heartbeat(Heartbeat()), to: id, session: session, correlation: nil, atOnce: true)
            }
        }
        refuseParkedHellosWhileStoreIsDown()
        return turn.messages
    }

    /// Replaces the flows; running sessions keep going with the new definitions of their flows, and a guard
    /// question that was waiting is asked again (the returned messages).
    /// - Throws: when a running session uses a flow the new specification does not have; nothing changes then.
    public mutating func reload(_ specification: FlowSpecification) throws(FlowCoreError) -> [Outgoing] {
        var reloaded = FlowEngine(
            registry: specification.registry,
            options: setup.configuration.engine,
            now: EngineTime(milliseconds: now)
        )
        reloaded.recordsInspectionEvents = engine.recordsInspectionEvents
        var questions: [Effects] = []
        for id in engine.sessionIDs {
            questions.append(try reloaded.restore(try engine.snapshot(of: id)))
        }
        engine = reloaded
        setup.specification = specification
        // Deadlines started again on the new engine: every session is written whole, and replays from there.
        store.journal.snapshotDue.formUnion(engine.sessionIDs)
        turn.messages = []
        for effects in questions {
            apply(effects)
        }
        return turn.messages
    }

    // MARK: Dispatch

    /// `body`: the message's body frame, as it came (a STEP's is kept in its journal entry).
    private mutating func dispatch(
        _ envelope: Envelope,
        body: [UInt8],
        from peer: String,
        registered: Peer?,
        userID: String?
    ) {
        let header = envelope.header
        if let (code, message) = Self.identifierProblem(in: envelope) {
            reply(to: peer, correlation: header.id, error: code, message)
            return
        }
        if case .hello(let hello) = envelope.message {
            self.hello(hello, from: peer, userID: userID, correlation: header.id)
            return
        }
        guard let registered else {
            reply(
                to: peer,
                correlation: header.id,
                error: .notRegistered,
                "say HELLO before \(envelope.message.type.rawValue)"
            )
            return
        }
        if let refusal = roleRefusal(of: registered, for: envelope.message) {
            reply(to: peer, correlation: header.id, error: .notAllowed, refusal)
            return
        }
        switch envelope.message {
        case .heartbeat:
            break
        case .bye:
            unregister(peer, reason: "said BYE")
        case .step(let step):
            self.step(step, from: registered, header: header, body: body)
        case .deepLink(let link):
            deepLink(link, from: registered, header: header)
        case .visibility(let report):
            visibility(report, from: registered, header: header)
        case .snapshotRequest(let request):
            snapshot(request, for: registered, header: header)
        case .query(let query):
            self.query(query, from: registered, header: header)
        case .sessionData(let data):
            sessionData(data, from: registered, header: header)
        case .guardAnswer(let answer):
            guardAnswer(answer, from: registered, header: header)
        case .hello, .welcome, .redirect, .stepAck, .commands, .snapshot, .reply, .guardQuestion, .error, .event,
            .events:
            reply(
                to: peer,
                correlation: header.id,
                error: .unexpectedMessage,
                "\(envelope.message.type.rawValue) is sent by the daemon, not to it"
            )
        }
    }

    /// flowd's clock as the coordinator last heard it (milliseconds): after a restore, the later of the stored
    /// clock and the last journal entry's time.
    public var clock: Int64 { now }

    /// Numbers the daemon's messages from a thousand per millisecond of `wall` (the wall clock, ms since 1970) on:
    /// ids go on increasing across runs (the spec: increasing per sender), however little an earlier run wrote.
    public mutating func numberMessages(from wall: Int64) {
        turn.numberFrom(UInt64(max(0, wall)) &* 1000)
    }

    // MARK: Output

    /// Sends a message to a peer; `toRegisteredOnly`: only while it is registered (else nothing is sent).
    /// What goes to an unverified peer waits until its key is heard, unless `holding` is false (an answer to the
    /// connection that holds the id now). `atOnce`: the message describes no state, and does not wait for earlier
    /// turns' writes (see ``TurnOutput/immediate``).
    mutating func send(
        _ message: Message,
        to peer: String,
        session: SessionID?,
        correlation: UInt64?,
        holding: Bool = true,
        toRegisteredOnly: Bool = false,
        atOnce: Bool = false
    ) {
        send(
            message.type,
            body: { $0.body(of: message) },
            to: peer,
            session: session,
            correlation: correlation,
            holding: holding,
            toRegisteredOnly: toRegisteredOnly,
            atOnce: atOnce
        )
    }

    /// Sends a message of `type` whose body `body` writes, only when it is sent (a STEP_ACK's, written without making
    /// the message first); otherwise as the message above.
    mutating func send(
        _ type: MessageType,
        body: (WireCodec) -> [UInt8],
        to peer: String,
        session: SessionID?,
        correlation: UInt64?,
        holding: Bool = true,
        toRegisteredOnly: Bool = false,
        atOnce: Bool = false
    ) {
        // What a replayed input caused was sent the first time.
        guard !store.journal.isReplaying else { return }
        guard peers.sent(to: peer, now: now) || !toRegisteredOnly else { return }
        let header = Header(
            id: turn.nextMessageID(),
            session: session?.rawValue,
            correlation: correlation,
            sentAt: time.wallNow
        )
        let outgoing = Outgoing.toPeer(peer, setup.codec.encode(header: header, type: type, body: body(setup.codec)))
        if holding, peers.isUnverified(peer) {
            hold(outgoing, for: peer)
        } else {
            turn.append(outgoing, immediate: atOnce)
        }
        counters.messagesOut.count(type)
    }

    /// Publishes a message on the events socket.
    mutating func publish(_ message: Message, topic: String, session: SessionID?) {
        publish(message.type, body: setup.codec.body(of: message), topic: topic, session: session)
    }

    /// Publishes a message on the events socket, its body already written.
    mutating func publish(_ type: MessageType, body: [UInt8], topic: String, session: SessionID?) {
        guard !store.journal.isReplaying else { return }
        let header = Header(id: turn.nextMessageID(), session: session?.rawValue, sentAt: time.wallNow)
        turn.messages.append(.publish(topic: topic, setup.codec.encode(header: header, type: type, body: body)))
        counters.messagesOut.count(type)
    }

    /// Refuses a message: an ERROR to its sender, and a count.
    /// `atOnce`: the refusal describes no state (`storeUnavailable`), and does not wait for earlier turns' writes.
    mutating func reply(
        to peer: String,
        correlation: UInt64?,
        error code: ErrorCode,
        _ message: String,
        atOnce: Bool = false
    ) {
        Counters.bump(&counters.errors, code.rawValue)
        logger.debug(
            "refused a message",
            metadata: ["peer": "\(LogText.quoted(peer))", "code": "\(code)", "reason": "\(LogText.quoted(message))"]
        )
        send(
            .error(ErrorReply(code, message: message)),
            to: peer,
            session: peers[peer]?.session,
            correlation: correlation,
            atOnce: atOnce
        )
        inspect(
            .error,
            session: peers[peer]?.session,
            ["peer": .string(peer), "code": .string(code.rawValue), "message": .string(message)]
        )
    }
}

extension Duration {
    /// Whole milliseconds (rounded down), the unit of the protocol's timers.
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
