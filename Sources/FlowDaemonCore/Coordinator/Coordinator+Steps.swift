import FlowCore
import FlowSpec
import FlowWire

extension Coordinator {
    /// A step: numbered, checked, applied at most once per (stepper, sequence), acknowledged with its fate. `body`:
    /// the message's body as it came (its journal entry keeps it).
    mutating func step(_ message: StepMessage, from peer: Peer, header: Header, body: [UInt8]? = nil) {
        guard let (session, key) = number(message.sequence, from: peer, header: header) else { return }
        let source: StepSource
        var screen: String?
        if let presentable = message.presentable {
            let node = engine.screens(of: session)?[presentable]
            let shownBy = node?.presenter
            screen = node?.description.name
            // A presenter speaks for its own screens; an inspector (flowctl emit --from) for any on screen.
            let speaksFor = peer.role == .inspector ? shownBy != nil : shownBy == PresenterID(peer.name)
            guard peer.role == .presenter || peer.role == .inspector, speaksFor else {
                refuse(
                    message.sequence,
                    of: key,
                    StepRefusal(
                        code: .foreignPresentable,
                        message: peer.role == .inspector
                            ? "\(presentable) is not on screen in session '\(LogText.quoted(session.rawValue))'; `flowctl steps` lists the screens that may emit"
                            : "\(presentable) is not a screen of presenter '\(peer.name)'; emit as your own screens only"
                    ),
                    to: peer.id,
                    correlation: header.id
                )
                return
            }
            source = .presentable(presentable)
        } else {
            source = .stepper(peer.name)
        }
        // The step's declaration, looked up once: whether the step is declared, and whether its parameters match.
        let declaration = setup.specification.step(named: message.step.name)
        guard declaration != nil || message.step.isNone else {
            refuseUndeclared(message.step, sequence: message.sequence, of: key, from: peer, header: header)
            return
        }
        submitStep(
            message.step,
            from: source,
            sequence: message.sequence,
            of: key,
            sender: StepSender(peer: peer.id, correlation: header.id, sentAt: header.sentAt),
            parameterProblem: declaration?.problem(with: message.step)
                ?? setup.specification.senderProblem(of: message.step, from: source, screen: screen),
            body: body,
            journalSender: peer.journalSender
        )
    }

    /// A deep link: like a step, by sequence, but sent to every flow.
    mutating func deepLink(_ message: DeepLinkMessage, from peer: Peer, header: Header) {
        guard let (_, key) = number(message.sequence, from: peer, header: header),
            declared(message.path, sequence: message.sequence, of: key, from: peer, header: header)
        else { return }
        submitDeepLink(
            message.path,
            sequence: message.sequence,
            of: key,
            sender: StepSender(peer: peer.id, correlation: header.id, sentAt: header.sentAt)
        )
    }

    /// Whether every step of a numbered step or deep link is declared; one that is not is refused.
    private mutating func declared(
        _ steps: [Step],
        sequence: UInt64,
        of key: StepperKey,
        from peer: Peer,
        header: Header
    ) -> Bool {
        // The none step is known to every flow file: the engine drops it (`noneStep`), as RxFlow ignores it.
        if let unknown = steps.first(where: { !$0.isNone && setup.specification.step(named: $0.name) == nil }) {
            refuseUndeclared(unknown, sequence: sequence, of: key, from: peer, header: header)
            return false
        }
        return true
    }

    /// Refuses a numbered step (or deep link) for a step no declaration has.
    private mutating func refuseUndeclared(
        _ step: Step,
        sequence: UInt64,
        of key: StepperKey,
        from peer: Peer,
        header: Header
    ) {
        refuse(
            sequence,
            of: key,
            StepRefusal(
                code: .unknownStep,
                message:
                    "no step named '\(step.name)' is declared in \(setup.specification.file)\(Suggestion.didYouMean(step.name, in: setup.specification.steps.lazy.map(\.name)))"
            ),
            to: peer.id,
            correlation: header.id
        )
    }

    /// Gives a taken step (of a session that exists) to the engine; its fate is acknowledged when decided.
    /// `parameterProblem`: why its parameters do not match its declaration (``FlowSpecification/parameterProblem(of:)``),
    /// or its sender does not send it (``FlowSpecification/senderProblem(of:from:screen:)``), `nil` when neither; `body`: the STEP's body as it came, and `journalSender` its sender's members, for its journal
    /// entry.
    mutating func submitStep(
        _ step: Step,
        from source: StepSource,
        sequence: UInt64,
        of key: StepperKey,
        sender: StepSender,
        parameterProblem: DropReason?,
        body: [UInt8]? = nil,
        journalSender: JournalSenderText? = nil
    ) {
        record(
            .step(stepper: key, sequence: sequence, step: step, source: source, sender: sender),
            session: key.session,
            known: true,
            stepBody: body,
            journalSender: journalSender
        )
        counters.stepsIn += 1
        // Parameters that do not match the flow file: dropped before any flow sees them, with the parameter named.
        let (token, effects) =
            if let problem = parameterProblem {
                engine.refuse(step, from: source, session: key.session, reason: problem)
            } else {
                engine.receive(step, from: source, session: key.session)
            }
        apply(effects, awaitingFateOf: token, sequence: sequence, of: key, sender: sender)
        // Carried out, nothing of its lists kept: their storage gathers the next step's effects.
        engine.recycle(effects)
    }

    /// Gives a taken deep link to the engine; its fate is acknowledged when decided.
    mutating func submitDeepLink(_ path: [Step], sequence: UInt64, of key: StepperKey, sender: StepSender) {
        record(
            .deepLink(stepper: key, sequence: sequence, path: path, sender: sender),
            session: key.session,
            known: true
        )
        counters.stepsIn += 1
        let specification = setup.specification
        // The none step is never navigated, in a deep link as on its own.
        let mismatch =
            path.first(where: \.isNone).map { ($0, DropReason.noneStep) }
            ?? path.lazy.compactMap { step in specification.parameterProblem(of: step).map { (step, $0) } }.first
        let (token, effects) =
            if let (step, problem) = mismatch {
                engine.refuse(step, from: nil, session: key.session, reason: problem)
            } else {
                engine.deepLink(path, session: key.session)
            }
        apply(effects, awaitingFateOf: token, sequence: sequence, of: key, sender: sender)
    }

    /// Carries out the effects of a numbered step given to the engine, whose sender waits for its fate. The fate is
    /// nearly always among these effects: it is acknowledged at once, and nothing is kept for it. Only a fate
    /// still to come (a guard's answer, a flow not ready) is kept (``Acknowledgements/stillUndecided(sequence:)``), and its sequence in the sender's
    /// record, to answer the step if it is sent again meanwhile.
    private mutating func apply(
        _ effects: Effects,
        awaitingFateOf token: StepToken,
        sequence: UInt64,
        of key: StepperKey,
        sender: StepSender
    ) {
        acknowledgements.deciding(
            token,
            for: PendingAcknowledgement(
                peer: sender.peer,
                stepper: key,
                sequence: sequence,
                correlation: sender.correlation,
                sentAt: sender.sentAt
            )
        )
        apply(effects)
        acknowledgements.stillUndecided(sequence: sequence)
    }

    /// Carries out the engine's effects: events published for inspectors, command batches published with their
    /// sequence (an inspector reads a navigation before its commands), fates acknowledged (a stepper hears of
    /// its step's fate after its commands went out), guard questions asked.
    mutating func apply(_ effects: Effects) {
        // Events are read where they are, by index (`for event in` copies each one, its step and fate with it).
        for index in effects.events.indices {
            var waiting: PendingAcknowledgement?
            // Who sent a step matters only to inspectors and to `drops`: an accepted step unwatched skips it.
            if case .stepFate(let token, let step, let source, let fate) = effects.events[index].kind,
                !fate.isAccepted || subscriptions.inspection.isWatched
            {
                let session = effects.events[index].session
                waiting = acknowledgements.waiting(for: token, in: session)
                rememberDrop(of: step, from: source, fate: fate, sender: waiting, session: session)
            }
            if subscriptions.inspection.isWatched {
                let event = effects.events[index]
                let sender = waiting
                inspect(event.inspectionKind, session: event.session) { members in
                    event.writeInspectionFields(to: &members)
                    if let sender {
                        members.member("sender", sender.peer)
                        members.member("sentAt", Int(sender.sentAt))
                    }
                }
            }
        }
        for batch in effects.batches {
            // Counted in place: one lookup of the session and one of the presenter.
            let sequence = ledger.nextCommandSequence(of: batch.session, to: batch.presenter)
            counters.batchesOut += 1
            counters.commandsOut += batch.commands.count
            guard !store.journal.isReplaying else { continue }
            let body = setup.codec.body(
                of: CommandsMessage(
                    presenter: batch.presenter.rawValue,
                    sequence: sequence,
                    epoch: setup.epoch,
                    commands: batch.commands,
                    flow: batch.flow,
                    step: batch.step
                )
            )
            let topic = Self.commandsTopic(session: batch.session, presenter: batch.presenter)
            publish(.commands, body: body, topic: topic, session: batch.session)
            inspectCommands(body, session: batch.session)
        }
        // The fates, in order, read from the events where they are (no list of them made per step).
        for index in effects.events.indices {
            if case .stepFate(let token, _, _, let fate) = effects.events[index].kind {
                acknowledge(token, in: effects.events[index].session, fate: fate)
            }
        }
        for question in effects.questions {
            ask(question)
        }
        for reached in effects.limitsReached where !store.journal.isReplaying {
            noteBoundHit(reached.limit, "session \(LogText.quoted(reached.session.rawValue)): \(reached.message)")
        }
    }

    /// The topic a presenter's COMMANDS are published on, `cmd/<session>/<presenter>`, its bytes copied once into a
    /// string of their length (appending to a string looked at its form, small or not, at each of three appends).
    static func commandsTopic(session: SessionID, presenter: PresenterID) -> String {
        var session = session.rawValue
        var presenter = presenter.rawValue
        return session.withUTF8 { session in
            presenter.withUTF8 { presenter in
                String(unsafeUninitializedCapacity: 5 + session.count + presenter.count) { topic in
                    var end = topic.initialize(fromContentsOf: "cmd/".utf8)
                    end = topic[end...].initialize(fromContentsOf: session)
                    topic[end] = UInt8(ascii: "/")
                    end += 1
                    return topic[end...].initialize(fromContentsOf: presenter)
                }
            }
        }
    }

    /// Acknowledges a decided step to its sender (the coordinator's own steps have none).
    private mutating func acknowledge(_ token: StepToken, in session: SessionID, fate: StepFate) {
        if fate.isAccepted {
            counters.accepted += 1
        } else if case .dropped(let reason) = fate {
            Counters.bump(&counters.dropped, reason.code)
        }
        guard let waiting = acknowledgements.settle(token, in: session) else {
            return
        }
        let wire = WireFate(fate)
        acknowledgements.steppers[waiting.stepper, default: StepperRecord()].remember(
            .fate(wire),
            of: waiting.sequence,
            keeping: setup.configuration.rememberedAcknowledgements
        )
        // A sender that is gone resends the step once registered again, and gets this fate then; whoever holds its
        // routing id meanwhile gets nothing.
        send(
            .stepAck,
            body: { $0.body(of: StepAck(sequence: waiting.sequence, fate: wire)) },
            to: waiting.peer,
            session: session,
            correlation: waiting.correlation,
            toRegisteredOnly: true
        )
    }

    /// Asks the guard registered under the question's guard name; with none, the question waits for its deadline.
    mutating func ask(_ request: GuardRequest) {
        let message = GuardQuestionMessage(
            question: request.id,
            guardName: request.question.guardName,
            subject: request.question.subject,
            step: request.question.step,
            deadline: request.deadline.milliseconds + time.wallOffset
        )
        // A guard of that name in the question's session, else one without a session whose key is granted it; the
        // first by id. Never a guard of another session: it would see the step and its parameters.
        let named = peers.all.filter { $0.role == .guard && $0.name == request.question.guardName }
        let own = named.filter { $0.session == request.session }
        let shared = named.filter {
            $0.session == nil && authorizationRefusal(of: $0, in: request.session, acting: false) == nil
        }
        guard let peer = (own.isEmpty ? shared : own).map(\.id).min() else {
            inspect(.guardMissing, session: request.session, ["guard": .string(request.question.guardName)])
            return
        }
        send(.guardQuestion(message), to: peer, session: request.session, correlation: nil)
    }
}
