import FlowWire

extension ClientStateMachine {
    /// Traffic both ways: a HEARTBEAT goes when the client has been quiet, the connections are replaced when flowd
    /// has been.
    struct Liveness {
        var lastHeard: Instant
        var lastSent: Instant
        /// flowd's, from its WELCOME.
        var heartbeatInterval: Duration = .seconds(1)
        var heartbeatTimeout: Duration = .seconds(5)
        /// When what waits too long for an answer is next looked for (a look goes through everything in flight: it
        /// is done a few times per heartbeat timeout, not on every turn of the loop).
        var nextOverdueCheck: Instant

        init(now: Instant) {
            lastHeard = now
            lastSent = now
            nextOverdueCheck = now
        }
    }

    /// The next moment something must be done even without traffic.
    func nextDeadline(now: Instant) -> Instant {
        var deadline = now.advanced(by: .seconds(1))
        if let startup {
            deadline = min(deadline, startup.deadline)
        }
        if registration.registered {
            deadline = min(
                deadline,
                liveness.lastSent.advanced(by: liveness.heartbeatInterval),
                liveness.lastHeard.advanced(by: liveness.heartbeatTimeout)
            )
        } else {
            if registration.connected, let helloSentAt = registration.helloSentAt {
                deadline = min(deadline, helloSentAt.advanced(by: registration.helloRetry))
            }
            // The moment to try the next instance of a fleet; with one instance there is none, and a moment past
            // would make the loop spin while flowd is away.
            if let failoverDeadline {
                deadline = min(deadline, failoverDeadline)
            }
        }
        if let answer = answers.nextDeadline {
            deadline = min(deadline, answer)
        }
        if let closing {
            deadline = min(deadline, closing)
        }
        return deadline
    }

    /// Deadlines: the connect timeout, answers not given in time, failover, heartbeats, silence, HELLO retries.
    mutating func keepAlive(now: Instant) {
        if giveUpStarting(now: now) {
            return
        }
        expireAnswers(now: now)
        if failOver(now: now) {
            return
        }
        if registration.registered {
            keepRegistered(now: now)
        } else if registration.connected, let helloSentAt = registration.helloSentAt,
            helloSentAt.advanced(by: registration.helloRetry) <= now
        {
            retryHello(now: now)
        }
    }

    /// Registered: flowd silent for too long means new connections; what waited too long is sent again; an idle
    /// client says HEARTBEAT.
    private mutating func keepRegistered(now: Instant) {
        if liveness.lastHeard.advanced(by: liveness.heartbeatTimeout) < now {
            log(.info, "flowd has been silent for \(liveness.heartbeatTimeout); opening new connections")
            replaceConnections(now: now)
            return
        }
        if now >= liveness.nextOverdueCheck {
            liveness.nextOverdueCheck = now.advanced(by: liveness.heartbeatTimeout / 20)
            retransmit(olderThan: now.advanced(by: .zero - liveness.heartbeatTimeout), now: now)
        }
        if liveness.lastSent.advanced(by: liveness.heartbeatInterval) <= now {
            send(.heartbeat(Heartbeat()), session: setup.session, now: now)
        }
    }

    /// A HELLO went unanswered: another, later each time; after a few, a new connection.
    private mutating func retryHello(now: Instant) {
        registration.helloRetry = min(registration.helloRetry * 2, setup.options.reconnectIntervalMax)
        registration.unansweredHellos += 1
        if registration.unansweredHellos >= Self.hellosBeforeNewConnection {
            // A connection libzmq did not give our id to (with CURVE, flowd keeps an id a connection holds) takes
            // nothing we send as ours: a new one may.
            log(.info, "flowd did not answer \(registration.unansweredHellos) HELLOs; opening new connections")
            replaceConnections(now: now)
            return
        }
        hello(now: now)
    }

    /// Sends again what has waited too long for an answer (a message dropped on the way: a full queue, a flood
    /// refusal). flowd applies a step once whatever the number of copies.
    private mutating func retransmit(olderThan moment: Instant, now: Instant) {
        // A presenter's steps that wait for its screens to be reported again wait a heartbeat timeout at most (an
        // application that never reports): then they go as they are.
        if let since = outbox.heldSince {
            if since < moment {
                releaseScreenSteps(now: now)
            }
        } else {
            let overdue = outbox.inFlight.compactMap { sequence, step in
                (step.sentAt ?? moment) < moment ? sequence : nil
            }
            for sequence in overdue.sorted() {
                transmit(sequence, now: now)
            }
        }
        if presenter.resync.reason != nil, let requested = presenter.resync.requestedAt, requested < moment {
            sendSnapshotRequest(now: now)
        }
        // A confirmation can be lost too (a full queue): after a while, the subscription is taken as live.
        if setup.role == .presenter, !presenter.resync.subscriptionLive, presenter.resync.lastSubscribed < moment {
            log(.info, "flowd did not confirm the subscription; resyncing anyway")
            subscriptionConfirmed(now: now)
        }
    }
}
