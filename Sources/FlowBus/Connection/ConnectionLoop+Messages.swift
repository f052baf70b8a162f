import FlowCore
import FlowWire

extension ConnectionLoop {
    /// A message from flowd on the control connection.
    func handle(_ envelope: Envelope) {
        let rule = envelope.message.type.rule
        guard rule.sentByDaemon, !rule.published else {
            // Not a message flowd sends on a control connection (FlowWire's rules): nothing to act on.
            setup.options.logger.debug(
                "flowd's control connection carried \(envelope.message.type.rawValue), which flowd never sends there: ignored"
            )
            return
        }
        switch envelope.message {
        case .welcome(let welcome):
            // Only the answer to the last HELLO counts: answers to earlier ones (sent again while flowd was slow)
            // would register the client twice.
            if envelope.header.correlation == helloID {
                helloID = nil
                welcomed(welcome)
            }
        case .redirect(let redirect):
            if envelope.header.correlation == helloID {
                helloID = nil
                redirected(redirect)
            }
        case .stepAck(let ack):
            acknowledged(ack)
        case .error(let error):
            refused(error, correlation: envelope.header.correlation)
        case .snapshot(let snapshot):
            received(snapshot)
        case .reply(let reply):
            if let id = envelope.header.correlation, let answer = answers.removeValue(forKey: id) {
                answer.reply.resume(with: .success(reply.result))
            }
        case .guardQuestion(let question):
            connection.questions?.yield(GuardClient.Question(question, session: envelope.header.session))
        case .heartbeat:
            break
        case .hello, .bye, .step, .deepLink, .visibility, .commands, .snapshotRequest, .query, .sessionData,
            .guardAnswer, .event, .events:
            // Refused above by the rules.
            break
        }
    }

    /// Registered: resend what waits for a fate, send what waited for the registration, resync a presenter.
    private func welcomed(_ welcome: Welcome) {
        let first = startup != nil
        registered = true
        unregisteredSince = nil
        storeProblem = nil
        helloSentAt = nil
        unansweredHellos = 0
        helloRetry = setup.options.reconnectInterval * 2
        // Bounded below: a daemon saying 0 must not make the loop spin.
        heartbeatInterval = .milliseconds(max(10, welcome.heartbeatInterval))
        heartbeatTimeout = .milliseconds(max(20, welcome.heartbeatTimeout))
        maxMessageSize = welcome.maxMessageSize
        // flowd lost steps it had acknowledged (its state put back from an older copy, or the durability `off` and a
        // crash): their numbers are free again, and what waits is numbered from there, else it would meet
        // `sequenceGap` for ever.
        if let known = welcome.lastSequence, let lowest = inFlight.keys.min(), lowest > known + 1 {
            setup.options.logger.warning(
                "flowd lost the steps it had acknowledged after sequence \(known) (up to \(lowest - 1)): the \(inFlight.count) steps that wait are numbered anew from \(known + 1)"
            )
            renumberInFlight(from: known + 1)
        } else if let known = welcome.lastSequence, inFlight.isEmpty, known < lastSequence {
            setup.options.logger.warning(
                "flowd lost the steps it had acknowledged after sequence \(known) (up to \(lastSequence)): new steps are numbered from \(known + 1)"
            )
            lastSequence = known
        }
        // A restarted process continues above what flowd has applied for its name.
        lastSequence = max(lastSequence, welcome.lastSequence ?? 0)
        connection.welcome.withLock { $0 = welcome }
        if !first {
            setup.options.logger.info(
                "registered again with flowd; resending \(inFlight.count) steps that wait for their fate"
            )
        }
        sequenceOfMessage = [:]
        // A presenter's steps wait for its screens to be reported again (after the snapshot asked for below).
        holdsScreenSteps = setup.role == .presenter && reportsVisibility
        if !holdsScreenSteps {
            for sequence in inFlight.keys.sorted() {
                transmit(sequence)
            }
        }
        for (message, session) in unsent {
            send(message, session: session)
        }
        unsent = []
        let asks = unsentAsks
        unsentAsks = []
        for answer in asks {
            ask(answer)
        }
        if setup.role == .presenter {
            requestSnapshot(hasBuilt ? .reconnected : .start)
        }
        startup?.resume(with: .success(()))
        startup = nil
    }

    private func acknowledged(_ ack: StepAck) {
        // A second acknowledgement of a resent step finds nothing: its fate was given already.
        guard let step = inFlight.removeValue(forKey: ack.sequence) else { return }
        if let id = step.messageID {
            sequenceOfMessage[id] = nil
        }
        connection.releaseStep()
        // A mistake in what was sent (parameters that do not fit the step's declaration) is thrown, as an
        // undeclared step is (ERROR unknownStep): a fate is flowd's decision about a step it could read.
        if !ack.fate.accepted, ack.fate.reason == Self.invalidParameters {
            let remedy = ack.fate.remedy.map { "; \($0)" } ?? ""
            step.fate?.resume(
                with: .failure(
                    FlowBusError(
                        .refused,
                        "\(ack.fate.explanation ?? "the step's parameters do not fit its declaration")\(remedy)",
                        daemonCode: Self.invalidParameters
                    )
                )
            )
            return
        }
        step.fate?.resume(with: .success(Fate(ack.fate)))
    }

    /// The drop reason flowd gives a step whose parameters do not fit its declaration.
    static let invalidParameters = "invalidParameters"

    /// Steps before a refused one were lost on the way (with a connection that dropped, or a full queue): it
    /// stays in flight, and every step in flight is sent again, in order. The reports for the other steps sent
    /// after the lost ones find them sent again already (a resent step's old message id maps to nothing).
    private func resendAfterGap(correlation: UInt64?, _ message: String) {
        // Unregistered, the resend after the coming WELCOME sends them all anyway.
        guard registered, let correlation, let sequence = sequenceOfMessage[correlation], sequence > resentAfterGap
        else { return }
        setup.options.logger.debug("flowd waits for earlier steps, sending every step in flight again: \(message)")
        let waiting = inFlight.keys.sorted()
        resentAfterGap = waiting.last ?? sequence
        for sequence in waiting {
            transmit(sequence)
        }
    }

    private func refused(_ error: ErrorReply, correlation: UInt64?) {
        if error.errorCode == .notRegistered {
            // flowd does not know this connection (it restarted, or forgot a silent peer): register again.
            if registered || helloSentAt == nil {
                registered = false
                unregisteredSince = unregisteredSince ?? clock.now
                hello()
            }
            return
        }
        if let correlation, correlation == helloID, error.errorCode == .storeUnavailable {
            // Nothing was registered, and nothing is lost: flowd's store does not answer now. HELLO again later
            // (the retry's back-off), or at the next instance of a fleet; what waits goes on waiting.
            storeProblem = error.message
            unansweredHellos = 0
            setup.options.logger.info("flowd cannot register this client now: \(error.message)")
            return
        }
        if let correlation, correlation == helloID {
            let failure = FlowBusError(.refused, error.message, daemonCode: error.code)
            if let startup {
                startup.resume(with: .failure(failure))
                self.startup = nil
                running = false
            } else {
                // Registration is retried (with back-off); what waits for an answer learns why none comes.
                setup.options.logger.info("flowd refused to register this client again: \(failure)")
                failWaiting(failure)
            }
            return
        }
        if error.errorCode == .sequenceGap {
            resendAfterGap(correlation: correlation, error.message)
            return
        }
        if let correlation, let sequence = sequenceOfMessage.removeValue(forKey: correlation),
            let step = inFlight.removeValue(forKey: sequence)
        {
            connection.releaseStep()
            step.fate?.resume(with: .failure(FlowBusError(.refused, error.message, daemonCode: error.code)))
            return
        }
        if let correlation, let answer = answers.removeValue(forKey: correlation) {
            answer.reply.resume(with: .failure(FlowBusError(.refused, error.message, daemonCode: error.code)))
            return
        }
        setup.options.logger.info("flowd refused a message: \(error.code): \(error.message)")
    }

    /// Numbers the steps that wait for their fate anew, in their order, from `first` (their bodies written again);
    /// the next step follows them.
    private func renumberInFlight(from first: UInt64) {
        var renumbered: [UInt64: InFlight] = [:]
        var next = first
        for sequence in inFlight.keys.sorted() {
            guard var step = inFlight[sequence] else { continue }
            let frames = codec.encode(header: Header(id: 1, sentAt: 0), type: step.type, body: step.body)
            let message: FlowWire.Message
            switch try? codec.decode(frames).message {
            case .step(var carried):
                carried.sequence = next
                message = .step(carried)
            case .deepLink(var carried):
                carried.sequence = next
                message = .deepLink(carried)
            default:
                // Not a STEP or DEEPLINK (cannot be): it fails, rather than vanish.
                inFlight[sequence] = nil
                connection.releaseStep()
                step.fate?.resume(with: .failure(FlowBusError(.tooLarge, "the step could not be numbered again")))
                continue
            }
            step = InFlight(type: step.type, body: codec.body(of: message), session: step.session, fate: step.fate)
            renumbered[next] = step
            next += 1
        }
        inFlight = renumbered
        lastSequence = next - 1
        resentAfterGap = min(resentAfterGap, first - 1)
    }
}
