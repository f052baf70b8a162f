import FlowCore
import FlowWire

extension Coordinator {
    /// A step: checked, applied at most once per (stepper, sequence), acknowledged with its fate.
    mutating func step(_ message: StepMessage, from peer: Peer, header: Header) {
        guard let session = session(of: peer, header: header) else { return }
        let source: StepSource
        if let presentable = message.presentable {
            let shownBy = engine.screens(of: session)?[presentable]?.presenter
            guard peer.role == .presenter, shownBy == PresenterID(peer.name) else {
                reply(
                    to: peer.id,
                    correlation: header.id,
                    error: "foreignPresentable",
                    "\(presentable) is not a screen of presenter '\(peer.name)'; emit as your own screens only"
                )
                return
            }
            source = .presentable(presentable)
        } else {
            source = .stepper(peer.name)
        }
        take([message.step], sequence: message.sequence, from: peer, header: header, session: session) { engine in
            engine.receive(message.step, from: source, session: session)
        }
    }

    /// A deep link: like a step, by sequence, but sent to every flow.
    mutating func deepLink(_ message: DeepLinkMessage, from peer: Peer, header: Header) {
        guard let session = session(of: peer, header: header) else { return }
        take(message.path, sequence: message.sequence, from: peer, header: header, session: session) { engine in
            engine.deepLink(message.path, session: session)
        }
    }

    /// Takes in a step or deep link: its steps must be declared, its sequence new; then `submit` gives it to the
    /// engine, and its fate is acknowledged when decided.
    private mutating func take(
        _ steps: [Step],
        sequence: UInt64,
        from peer: Peer,
        header: Header,
        session: SessionID,
        submit: (inout FlowEngine) -> (token: StepToken, effects: Effects)
    ) {
        if let unknown = steps.first(where: { specification.step(named: $0.name) == nil }) {
            reply(
                to: peer.id,
                correlation: header.id,
                error: "unknownStep",
                "no step named '\(unknown.name)' is declared in \(specification.file)"
            )
            return
        }
        // An inspector injects steps as the stepper it is named after; it numbers them on its own connection.
        let key = StepperKey(session: session, role: peer.role, name: peer.role == .inspector ? peer.id : peer.name)
        guard admit(sequence, of: key, from: peer.id, correlation: header.id) else { return }
        counters.stepsIn += 1
        let (token, effects) = submit(&engine)
        remember(
            token,
            in: session,
            PendingAcknowledgement(
                peer: peer.id,
                stepper: key,
                sequence: sequence,
                correlation: header.id,
                sentAt: header.sentAt
            )
        )
        apply(effects)
    }

    /// The session a message concerns. A peer registered for a session acts in that session only (a stepper of
    /// one kiosk cannot post into another's as its namesake); a peer without one (an inspector) names it in the
    /// header. A message without a usable session is refused with an ERROR and `nil` is returned.
    mutating func session(of peer: Peer, header: Header) -> SessionID? {
        let named = header.session.map { SessionID($0) }
        if let registered = peer.session {
            guard named == nil || named == registered else {
                reply(
                    to: peer.id,
                    correlation: header.id,
                    error: "wrongSession",
                    "you are registered for session \(registered), not \(named?.rawValue ?? "")"
                )
                return nil
            }
            return registered
        }
        guard let named else {
            reply(to: peer.id, correlation: header.id, error: "missingSession", "name the session in the header")
            return nil
        }
        return named
    }

    /// Whether a sequence is new for this stepper. A resent one is answered with its original fate (or, when
    /// its fate is still pending, by the acknowledgement to come).
    private mutating func admit(_ sequence: UInt64, of key: StepperKey, from peer: String, correlation: UInt64) -> Bool
    {
        var record = steppers[key] ?? StepperRecord()
        defer { steppers[key] = record }
        if sequence > record.lastSequence {
            record.lastSequence = sequence
            record.pending.insert(sequence)
            return true
        }
        if let known = record.acknowledgements.last(where: { $0.sequence == sequence }) {
            send(
                .stepAck(StepAck(sequence: sequence, fate: known.fate)),
                to: peer,
                session: key.session,
                correlation: correlation
            )
        } else if !record.pending.contains(sequence) {
            reply(
                to: peer,
                correlation: correlation,
                error: "staleSequence",
                "step \(sequence) was applied long ago and its fate is forgotten; number new steps above \(record.lastSequence)"
            )
        }
        return false
    }

    private mutating func remember(_ token: StepToken, in session: SessionID, _ acknowledgement: PendingAcknowledgement)
    {
        pending[session, default: [:]][token] = acknowledgement
    }

    /// Carries out the engine's effects: events published for inspectors, command batches published with their
    /// sequence (an inspector reads a navigation before its commands), fates acknowledged (a stepper hears of
    /// its step's fate after its commands went out), guard questions asked.
    mutating func apply(_ effects: Effects) {
        for event in effects.events {
            var waiting: PendingAcknowledgement?
            // Who sent a step matters only to inspectors and to `drops`: an accepted step unwatched skips it.
            if case .stepFate(let token, let step, let source, let fate) = event.kind,
                !fate.isAccepted || inspectionSubscriptions > 0
            {
                waiting = pending[event.session]?[token]
                rememberDrop(of: step, from: source, fate: fate, sender: waiting, session: event.session)
            }
            if inspectionSubscriptions > 0 {
                var (kind, fields) = event.inspection
                if let waiting {
                    fields["sender"] = .string(waiting.peer)
                    fields["sentAt"] = .int(Int(waiting.sentAt))
                }
                inspect(kind, session: event.session, fields)
            }
        }
        for batch in effects.batches {
            let sequence = (commandSequences[batch.session]?[batch.presenter] ?? 0) + 1
            commandSequences[batch.session, default: [:]][batch.presenter] = sequence
            counters.batchesOut += 1
            counters.commandsOut += batch.commands.count
            let message = CommandsMessage(
                presenter: batch.presenter.rawValue,
                sequence: sequence,
                epoch: epoch,
                commands: batch.commands,
                flow: batch.flow,
                step: batch.step
            )
            publish(.commands(message), topic: "cmd/\(batch.session)/\(batch.presenter)", session: batch.session)
        }
        for (session, token, fate) in effects.fates {
            acknowledge(token, in: session, fate: fate)
        }
        for question in effects.questions {
            ask(question)
        }
    }

    /// Acknowledges a decided step to its sender (the coordinator's own steps have none).
    private mutating func acknowledge(_ token: StepToken, in session: SessionID, fate: StepFate) {
        if fate.isAccepted {
            counters.accepted += 1
        } else if case .dropped(let reason) = fate {
            Counters.bump(&counters.dropped, reason.code)
        }
        guard let waiting = pending[session]?.removeValue(forKey: token) else {
            return
        }
        let wire = WireFate(fate)
        var record = steppers[waiting.stepper] ?? StepperRecord()
        record.pending.remove(waiting.sequence)
        record.acknowledgements.append((waiting.sequence, wire))
        if record.acknowledgements.count > configuration.rememberedAcknowledgements {
            record.acknowledgements.removeFirst(
                record.acknowledgements.count - configuration.rememberedAcknowledgements
            )
        }
        steppers[waiting.stepper] = record
        send(
            .stepAck(StepAck(sequence: waiting.sequence, fate: wire)),
            to: waiting.peer,
            session: session,
            correlation: waiting.correlation
        )
    }

    /// Asks the guard registered under the question's guard name; with none, the question waits for its deadline.
    private mutating func ask(_ request: GuardRequest) {
        let message = GuardQuestionMessage(
            question: request.id,
            guardName: request.question.guardName,
            subject: request.question.subject,
            step: request.question.step,
            deadline: request.deadline.milliseconds
        )
        guard
            let peer = peers.values.filter({ $0.role == .guard && $0.name == request.question.guardName }).map(\.id)
                .min()
        else {
            inspect("guardMissing", session: request.session, ["guard": .string(request.question.guardName)])
            return
        }
        send(.guardQuestion(message), to: peer, session: request.session, correlation: nil)
    }
}
