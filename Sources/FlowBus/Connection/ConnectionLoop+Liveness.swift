import FlowWire
import Foundation
import ZeroMQ

extension ConnectionLoop {
    /// The next moment something must be done even without traffic.
    func nextDeadline() -> ContinuousClock.Instant {
        var deadline = clock.now + .seconds(1)
        if startup != nil {
            deadline = min(deadline, startupDeadline)
        }
        if registered {
            deadline = min(deadline, lastSent + heartbeatInterval, lastHeard + heartbeatTimeout)
        } else {
            if connected, let helloSentAt {
                deadline = min(deadline, helloSentAt + helloRetry)
            }
            // The moment to try the next instance of a fleet (see keepAlive); with one instance there is none, and
            // a moment past would make the loop spin while flowd is away.
            if let unregisteredSince, failsOver {
                deadline = min(deadline, unregisteredSince + failoverDelay)
            }
        }
        for answer in answers.values {
            deadline = min(deadline, answer.deadline)
        }
        for answer in unsentAsks {
            deadline = min(deadline, answer.deadline)
        }
        return deadline
    }

    /// What a failed handshake means for the user, from the monitor's event.
    static func describeHandshakeFailure(_ event: MonitorEvent, curve: Bool) -> String {
        switch event.kind {
        case .handshakeFailedAuthentication where curve:
            return
                "flowd refused this client in the handshake (status \(event.value)): its CURVE key is not authorized there, or flowd holds as many connections as it may"
        case .handshakeFailedAuthentication:
            return
                "flowd refused the connection in the handshake (status \(event.value)): it holds as many connections as it may, or it requires CURVE"
        default:
            return curve
                ? "the CURVE handshake with flowd failed: is the server key flowd's public key, and does flowd use CURVE?"
                : "the handshake with flowd failed: flowd may require CURVE (give its public key and this client's secret key)"
        }
    }

    /// Deadlines: the connect timeout, answers not given in time, heartbeats, silence, retries.
    func keepAlive() {
        let now = clock.now
        if let startup, now >= startupDeadline {
            let endpoints = setup.options.endpointCandidates.map(\.control).joined(separator: ", ")
            let failure =
                if let storeProblem {
                    FlowBusError(
                        .refused,
                        "flowd at \(endpoints) could not register this client within \(setup.options.connectTimeout): \(storeProblem)",
                        daemonCode: ErrorCode.storeUnavailable.rawValue
                    )
                } else {
                    FlowBusError(
                        .unreachable,
                        "flowd did not answer at \(endpoints) within \(setup.options.connectTimeout); "
                            + (handshakeProblem ?? IPCAccess.problem(with: target.control) ?? "is it running?")
                    )
                }
            startup.resume(with: .failure(failure))
            self.startup = nil
            running = false
            return
        }
        let late = FlowBusError(.timedOut, "flowd did not answer in time")
        for (id, answer) in answers where now >= answer.deadline {
            answers[id] = nil
            answer.reply.resume(with: .failure(late))
        }
        unsentAsks.removeAll { answer in
            guard now >= answer.deadline else { return false }
            answer.reply.resume(with: .failure(late))
            return true
        }
        let candidates = setup.options.endpointCandidates
        // Several instances (a fleet), or one that sent the client elsewhere: the one tried does not answer, the
        // next is tried (from an instance a REDIRECT named: the one that sent it there).
        if !registered, failsOver, let since = unregisteredSince, now - since >= failoverDelay {
            if target == candidates[candidateIndex] {
                candidateIndex = (candidateIndex + 1) % candidates.count
            }
            target = candidates[candidateIndex]
            setup.options.logger.info("flowd did not answer; trying the instance at \(target.control)")
            replaceSockets()
            return
        }
        if registered {
            if now - lastHeard > heartbeatTimeout {
                setup.options.logger.info("flowd has been silent for \(heartbeatTimeout); opening new connections")
                replaceSockets()
                return
            }
            if now >= nextOverdueCheck {
                nextOverdueCheck = now + heartbeatTimeout / 20
                retransmit(olderThan: now - heartbeatTimeout)
            }
            if now - lastSent >= heartbeatInterval {
                send(.heartbeat(Heartbeat()), session: setup.session)
            }
        } else if connected, let helloSentAt, now - helloSentAt >= helloRetry {
            helloRetry = min(helloRetry * 2, setup.options.reconnectIntervalMax)
            unansweredHellos += 1
            if unansweredHellos >= Self.hellosBeforeNewConnection {
                // A connection libzmq did not give our id to (with CURVE, flowd keeps an id a connection holds)
                // takes nothing we send as ours: a new one may.
                setup.options.logger.info("flowd did not answer \(unansweredHellos) HELLOs; opening new connections")
                replaceSockets()
                return
            }
            hello()
        }
    }

    /// Sends again what has waited too long for an answer (a message dropped on the way: a full queue, a flood
    /// refusal). flowd applies a step once whatever the number of copies.
    private func retransmit(olderThan moment: ContinuousClock.Instant) {
        // A presenter's steps that wait for its screens to be reported again wait a heartbeat timeout at most (an
        // application that never reports): then they go as they are.
        if holdsScreenSteps {
            if let since = screenStepsHeldSince, since < moment {
                releaseScreenSteps()
            }
        } else {
            let overdue = inFlight.compactMap { sequence, step in (step.sentAt ?? moment) < moment ? sequence : nil }
            for sequence in overdue.sorted() {
                transmit(sequence)
            }
        }
        if snapshotReason != nil, let requested = snapshotRequestedAt, requested < moment {
            sendSnapshotRequest()
        }
        // A confirmation can be lost too (a full queue): after a while, the subscription is taken as live.
        if setup.role == .presenter, !subscriptionLive, lastSubscribed < moment {
            setup.options.logger.info("flowd did not confirm the subscription; resyncing anyway")
            subscriptionConfirmed()
        }
    }

    /// Whether the client has another instance to try when the one it tries does not answer: several instances (a
    /// fleet), or one a REDIRECT named (it goes back to the instance that sent it there).
    var failsOver: Bool {
        let candidates = setup.options.endpointCandidates
        return candidates.count > 1 || target != candidates[candidateIndex]
    }

    /// How long a client with several instances to try waits for the one it tries before it tries the next.
    var failoverDelay: Duration {
        max(.milliseconds(500), setup.options.reconnectInterval * 5)
    }

    /// Sent to the instance of a fleet that serves the session: connect there and say HELLO again.
    func redirected(_ redirect: Redirect) {
        // The endpoints of the transport the client uses now, if the instance has one (ipc on one machine, tcp
        // across machines); else its first.
        guard let next = Endpoints.preferred(control: redirect.control, events: redirect.events, like: target.control)
        else {
            setup.options.logger.info("flowd sent this client to instance \(redirect.instance), which has no endpoints")
            return
        }
        setup.options.logger.info(
            "session \(redirect.session) is served by instance \(redirect.instance): connecting to \(next.control)"
        )
        target = next
        replaceSockets()
    }

    /// How many HELLOs go unanswered on one connection before the client opens a new one.
    static let hellosBeforeNewConnection = 4

    /// New sockets with the same routing id: flowd hands the id over to the new DEALER.
    func replaceSockets() {
        do {
            (dealer, monitor) = try Self.makeDealer(setup, to: target, context: context)
            if let (subscriber, monitor) = try Self.makeSubscriber(setup, to: target, context: context) {
                self.subscriber = subscriber
                subscriberMonitor = monitor
            }
        } catch {
            setup.options.logger.info("cannot open new connections, the client stops: \(error)")
            running = false
            return
        }
        connected = false
        registered = false
        subscriptionLive = false
        lastSubscribed = clock.now
        helloSentAt = nil
        helloID = nil
        unansweredHellos = 0
        lastHeard = clock.now
        unregisteredSince = clock.now
        rebuildPoller()
    }

    func hello() {
        helloSentAt = clock.now
        helloID = send(
            .hello(
                Hello(
                    role: setup.role,
                    id: setup.id,
                    name: setup.name,
                    session: setup.session,
                    capabilities: ["resend", "resync"]
                )
            ),
            session: setup.session
        )
    }
}
