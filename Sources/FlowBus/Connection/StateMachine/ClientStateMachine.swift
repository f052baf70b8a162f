import FlowCore
import FlowWire
import Logging

/// The client's side of the protocol as a value: events in (a monitor's event, a message from flowd, a batch on
/// the events socket, a request from the application, the passing of time), ``ClientAction``s out. It holds every
/// protocol rule and no socket; ``ConnectionLoop`` owns the sockets and carries the actions out.
///
/// It registers with HELLO whenever the control connection is made, resends the steps still waiting for their fate
/// after each WELCOME (flowd applies each sequence once), heartbeats when idle, replaces connections that went
/// silent, tries a fleet's next instance, and keeps a presenter's screens in step with flowd's command stream,
/// resyncing from a snapshot when needed. Time is `C`'s: a manual clock drives it in tests.
struct ClientStateMachine<C: Clock> where C.Duration == Duration {
    typealias Instant = C.Instant

    let setup: ConnectionSetup
    /// Message ids, flowd's size limit and the encoding of bodies.
    var wire = Wire()
    /// Until the first WELCOME (`nil` after it, or once the client gave up).
    var startup: Startup?
    /// The instance tried, among the options' candidates and what a REDIRECT named.
    var link: Link
    /// Whether the control connection is up and the client registered on it; the HELLOs sent.
    var registration: Registration
    /// Heartbeats both ways.
    var liveness: Liveness
    /// Steps in flight and messages that wait for the registration.
    var outbox = Outbox()
    /// Messages that wait for a REPLY.
    var answers = Answers()
    /// A presenter's screens and their resync.
    var presenter: Presenter
    /// Callers of `close` waiting until everything is let go.
    var closeWaiters: [PendingReply<Void>] = []
    /// While the client closes with steps in flight: until when it waits for their fates before it stops.
    var closing: Instant?
    /// How long `close` waits for the fates of the steps in flight. Without the wait, a step posted just before
    /// `close` could go with the process before it left (the process's ZeroMQ context is never terminated, so
    /// nothing lingers for it).
    static var closeWaitsForFates: Duration { .seconds(2) }
    /// The actions of the event being handled.
    private var output: [ClientAction] = []

    init(setup: ConnectionSetup, now: Instant) {
        self.setup = setup
        startup = Startup(deadline: now.advanced(by: setup.options.connectTimeout))
        link = Link(candidates: setup.options.endpointCandidates)
        registration = Registration(helloRetry: setup.options.reconnectInterval * 2, unregisteredSince: now)
        liveness = Liveness(now: now)
        // A presenter builds its window from a snapshot first; batches published before it wait for it.
        presenter = Presenter(lastSubscribed: now, snapshotReason: setup.role == .presenter ? .start : nil)
    }

    /// The instance the connections go to.
    var target: Endpoints { link.target }

    // MARK: Events

    /// The control connection's monitor said something.
    mutating func control(_ event: LinkEvent, now: Instant) -> [ClientAction] {
        switch event {
        case .handshakeFailed(let failure):
            let problem = failure.problem(curve: setup.options.curve != nil)
            startup?.handshakeProblem = problem
        case .connected:
            registration.connected = true
            registration.registered = false
            hello(now: now)
        case .disconnected(let endpoint):
            log(.info, "lost the connection to flowd at \(endpoint); reconnecting")
            registration.connected = false
            registration.registered = false
            registration.unregisteredSince = registration.unregisteredSince ?? now
        }
        return takeOutput()
    }

    /// A message came on the control connection: `decoded`, or what was wrong with it.
    mutating func received(_ decoded: Result<Envelope, WireError>, now: Instant) -> [ClientAction] {
        liveness.lastHeard = now
        switch decoded {
        case .success(let envelope):
            handle(envelope, now: now)
        case .failure(let error):
            log(.info, "flowd sent something unreadable: \(error)")
        }
        stopWhenClosingIsDone(now: now)
        return takeOutput()
    }

    /// A message came on the events connection (a presenter's commands, or flowd's confirmation of the
    /// subscription).
    mutating func published(_ envelope: Envelope, now: Instant) -> [ClientAction] {
        guard envelope.header.session == setup.session else { return [] }
        switch envelope.message {
        case .commands(let commands):
            received(commands, now: now)
        case .heartbeat:
            subscriptionConfirmed(now: now)
        case .welcome, .redirect, .stepAck, .error, .snapshot, .reply, .guardQuestion, .hello, .bye, .step, .deepLink,
            .visibility, .snapshotRequest, .query, .sessionData, .guardAnswer, .event, .events:
            // Not what flowd publishes on a presenter's topic.
            break
        }
        return takeOutput()
    }

    /// The events connection's monitor said something: when it comes back, batches may have been published while
    /// it was away. The snapshot waits until flowd confirms the subscription again.
    mutating func subscription(_ event: LinkEvent, now: Instant) -> [ClientAction] {
        switch event {
        case .connected:
            // `subscriptionLive` is left alone: `.disconnected` cleared it, and flowd's confirmation for this
            // connection may already have been read (it can come before this event).
            presenter.resync.lastSubscribed = now
            if presenter.hasBuilt {
                requestSnapshot(.reconnected, now: now)
            }
        case .disconnected:
            presenter.resync.subscriptionLive = false
        case .handshakeFailed:
            break
        }
        return takeOutput()
    }

    /// An API call.
    mutating func handle(_ request: Request, now: Instant) -> [ClientAction] {
        switch request {
        case .emit(let outbound, let fate):
            emit(outbound, fate: fate, now: now)
        case .send(let message, let session):
            sendWhenRegistered(message, session: session, now: now)
        case .reportVisible(let screens):
            reportVisible(screens, now: now)
        case .reportDismissed(let presentables):
            reportDismissed(presentables, now: now)
        case .ask(let message, let session, let reply, let timeout):
            ask(
                WaitingAnswer(message: message, session: session, reply: reply, deadline: now.advanced(by: timeout)),
                now: now
            )
        case .resync:
            requestSnapshot(.inconsistent, now: now)
        case .close(let done):
            if let done {
                closeWaiters.append(done)
            }
            // Registered, the steps in flight get their fates first (for a while at most); flowd away, they cannot.
            if registration.registered, !outbox.inFlight.isEmpty {
                closing = closing ?? now.advanced(by: Self.closeWaitsForFates)
            } else {
                output.append(.stop)
            }
        }
        return takeOutput()
    }

    /// A client that closes stops once no step waits for its fate, or at the end of its wait.
    private mutating func stopWhenClosingIsDone(now: Instant) {
        guard let deadline = closing, outbox.inFlight.isEmpty || now >= deadline else { return }
        closing = nil
        output.append(.stop)
    }

    /// Time passed: the connect timeout, answers not given in time, heartbeats, silence, retries, failover.
    mutating func tick(now: Instant) -> [ClientAction] {
        keepAlive(now: now)
        stopWhenClosingIsDone(now: now)
        return takeOutput()
    }

    /// Stops: BYE to flowd, every waiter told (those of the requests still `queued` too), the streams ended.
    mutating func finish(queued: [Request], now: Instant) -> [ClientAction] {
        if registration.registered {
            send(.bye(Bye(reason: "closed")), session: setup.session, now: now)
        }
        let closed = FlowBusError(.closed, "the client is closed")
        for request in queued {
            switch request {
            case .emit(_, let fate):
                output.append(.settleStep(fate, .failure(closed)))
            case .ask(_, _, let reply, _):
                output.append(.answer(reply, .failure(closed)))
            case .close(let done):
                done.map { closeWaiters.append($0) }
            case .send, .reportVisible, .reportDismissed, .resync:
                break
            }
        }
        failWaiting(closed)
        if startup != nil {
            startup = nil
            output.append(.startupFailed(closed))
        }
        output.append(.endStreams)
        output += closeWaiters.map { .closed($0) }
        closeWaiters = []
        return takeOutput()
    }

    // MARK: Output

    mutating func log(_ level: Logger.Level, _ message: String) {
        output.append(.log(level, message))
    }

    mutating func perform(_ action: ClientAction) {
        output.append(action)
    }

    private mutating func takeOutput() -> [ClientAction] {
        defer { output = [] }
        return output
    }
}
