import FlowCore
import FlowWire

extension ClientStateMachine {
    /// Connecting: how long `connect` waits, and what went wrong meanwhile (said if it never registers).
    struct Startup {
        let deadline: Instant
        /// Why the last handshake with flowd failed, if one did: said when flowd does not answer.
        var handshakeProblem: String?
        /// Why flowd last refused to register this client for want of its store (`storeUnavailable`), if it did.
        var storeProblem: String?
    }

    /// Whether the control connection is up and the client registered on it, and the HELLOs that asked.
    struct Registration {
        var connected = false
        var registered = false
        /// The id of the last HELLO, whose answer alone counts.
        var helloID: UInt64?
        var helloSentAt: Instant?
        /// How long an unanswered HELLO waits before the next; it doubles up to the options' maximum.
        var helloRetry: Duration
        /// HELLOs sent on the current connection that got no answer at all.
        var unansweredHellos = 0
        /// Since when the client has not been registered (connecting, or after losing its connection): past the
        /// failover delay, it tries the next candidate.
        var unregisteredSince: Instant?
    }

    /// How many HELLOs go unanswered on one connection before the client opens a new one.
    static var hellosBeforeNewConnection: Int { 4 }

    /// Says HELLO on the connection made.
    mutating func hello(now: Instant) {
        registration.helloSentAt = now
        registration.helloID = send(
            .hello(
                Hello(
                    role: setup.role,
                    id: setup.id,
                    name: setup.name,
                    session: setup.session,
                    capabilities: ["resend", "resync"]
                )
            ),
            session: setup.session,
            now: now
        )
    }

    /// Registered: resend what waits for a fate, send what waited for the registration, resync a presenter.
    mutating func welcomed(_ welcome: Welcome, now: Instant) {
        let first = startup != nil
        registration.registered = true
        registration.unregisteredSince = nil
        registration.helloSentAt = nil
        registration.unansweredHellos = 0
        registration.helloRetry = setup.options.reconnectInterval * 2
        // Bounded below: a daemon saying 0 must not make the loop spin.
        liveness.heartbeatInterval = .milliseconds(max(10, welcome.heartbeatInterval))
        liveness.heartbeatTimeout = .milliseconds(max(20, welcome.heartbeatTimeout))
        wire.maxMessageSize = welcome.maxMessageSize
        continueNumbering(after: welcome.lastSequence)
        perform(.welcomed(welcome))
        if !first {
            log(.info, "registered again with flowd; resending \(outbox.inFlight.count) steps that wait for their fate")
        }
        outbox.sequenceOfMessage = [:]
        // A presenter's steps wait for its screens to be reported again (after the snapshot asked for below).
        outbox.heldSince = setup.role == .presenter && presenter.reportsVisibility ? now : nil
        if outbox.heldSince == nil {
            transmitInFlight(now: now)
        }
        let queued = outbox.queued
        outbox.queued = []
        for (message, session) in queued {
            send(message, session: session, now: now)
        }
        let asks = answers.unsent
        answers.unsent = []
        for answer in asks {
            ask(answer, now: now)
        }
        if setup.role == .presenter {
            requestSnapshot(presenter.hasBuilt ? .reconnected : .start, now: now)
        }
        if first {
            startup = nil
            perform(.started)
        }
    }

    /// flowd refused the last HELLO: its store does not answer, or it refuses the client.
    mutating func helloRefused(_ error: ErrorReply) {
        if error.errorCode == .storeUnavailable {
            // Nothing was registered, and nothing is lost: flowd's store does not answer now. HELLO again later
            // (the retry's back-off), or at the next instance of a fleet; what waits goes on waiting.
            startup?.storeProblem = error.message
            registration.unansweredHellos = 0
            log(.info, "flowd cannot register this client now: \(error.message)")
            return
        }
        let failure = FlowBusError(.refused, error.message, daemonCode: error.code)
        if startup != nil {
            startup = nil
            perform(.startupFailed(failure))
            perform(.stop)
        } else {
            // Registration is retried (with back-off); what waits for an answer learns why none comes.
            log(.info, "flowd refused to register this client again: \(failure)")
            failWaiting(failure)
        }
    }

    /// flowd does not know this connection (it restarted, or forgot a silent peer): register again.
    mutating func forgotten(now: Instant) {
        guard registration.registered || registration.helloSentAt == nil else { return }
        registration.registered = false
        registration.unregisteredSince = registration.unregisteredSince ?? now
        hello(now: now)
    }

    /// Past the connect timeout without a WELCOME: `connect` fails, saying why if it is known.
    /// - Returns: whether the client gave up.
    mutating func giveUpStarting(now: Instant) -> Bool {
        guard let startup, now >= startup.deadline else { return false }
        let options = setup.options
        let endpoints = options.endpointCandidates.map(\.control).joined(separator: ", ")
        let failure =
            if let storeProblem = startup.storeProblem {
                FlowBusError(
                    .refused,
                    "flowd at \(endpoints) could not register this client within \(options.connectTimeout): \(storeProblem)",
                    daemonCode: ErrorCode.storeUnavailable.rawValue
                )
            } else {
                FlowBusError(
                    .unreachable,
                    "flowd did not answer at \(endpoints) within \(options.connectTimeout); "
                        + (startup.handshakeProblem ?? IPCAccess.problem(with: target.control) ?? "is it running?")
                )
            }
        self.startup = nil
        perform(.startupFailed(failure))
        perform(.stop)
        return true
    }

    /// New connections to ``target``, under the same routing id: flowd hands the id over to the new DEALER.
    mutating func replaceConnections(now: Instant) {
        perform(.reconnect(to: link.target))
        registration.connected = false
        registration.registered = false
        registration.helloSentAt = nil
        registration.helloID = nil
        registration.unansweredHellos = 0
        registration.unregisteredSince = now
        presenter.resync.subscriptionLive = false
        presenter.resync.lastSubscribed = now
        liveness.lastHeard = now
    }
}
