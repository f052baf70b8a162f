import FlowCore
import FlowWire

extension Coordinator {
    /// The session a message concerns. A peer registered for a session acts in that session only (a stepper of
    /// one kiosk cannot post into another's as its namesake); a peer without one (an inspector) names it in the
    /// header. A message without a usable session is refused with an ERROR and `nil` is returned.
    /// `acting`: the message changes the session (an inspector needs the `control` grant for it).
    mutating func session(of peer: Peer, header: Header, acting: Bool = false) -> SessionID? {
        let (session, refusal) = resolveSession(of: peer, header: header, acting: acting)
        if let refusal {
            reply(to: peer.id, correlation: header.id, error: refusal.code, refusal.message)
            return nil
        }
        return session
    }

    /// The session a message concerns and, when it may not act there, why: a registered peer's session is its
    /// own (even when the header names another, which is refused); a peer without one names it. A session its
    /// CURVE key is not granted is no session at all (`nil`, `notAllowed`): nothing is numbered or written there.
    private func resolveSession(of peer: Peer, header: Header, acting: Bool) -> (SessionID?, StepRefusal?) {
        let (session, refusal) = ownSession(of: peer, header: header)
        if let session, let denial = authorizationRefusal(of: peer, in: session, acting: acting) {
            return (nil, StepRefusal(code: .notAllowed, message: denial))
        }
        return (session, refusal)
    }

    private func ownSession(of peer: Peer, header: Header) -> (SessionID?, StepRefusal?) {
        let named = header.session.map { SessionID($0) }
        if let registered = peer.session {
            guard named == nil || named == registered else {
                return (
                    registered,
                    StepRefusal(
                        code: .wrongSession,
                        message: "you are registered for session \(registered), not \(named?.rawValue ?? "")"
                    )
                )
            }
            return (registered, nil)
        }
        guard let named else {
            return (nil, StepRefusal(code: .missingSession, message: "name the session in the header"))
        }
        return (named, nil)
    }

    /// Takes a STEP's or DEEPLINK's sequence number, whatever becomes of the step: its sender's next steps wait
    /// for no number that never comes. Returns the session and the sender's key when the step is new and is to be
    /// applied; `nil` when it was answered already (a repeat, a gap, a refusal).
    mutating func number(_ sequence: UInt64, from peer: Peer, header: Header) -> (SessionID, StepperKey)? {
        let (session, refusal) = resolveSession(of: peer, header: header, acting: true)
        guard let session else {
            // No session, no sender's key to number in: the next step starts the numbering wherever it is.
            if let refusal {
                reply(to: peer.id, correlation: header.id, error: refusal.code, refusal.message)
            }
            return nil
        }
        if peer.role == .inspector,
            !takeInjectedNumber(sequence, from: peer.id, in: session, correlation: header.id)
        {
            return nil
        }
        // A session flowd does not have (an inspector's injection names any): its fate at once, and nothing kept for
        // it, sequence numbers included. A peer registered for its session, other than an inspector, is unregistered
        // when the session ends (or goes to another instance of a fleet): its session is there, not looked up.
        let registeredThere = peer.session == session && peer.role != .inspector
        guard registeredThere || engine.hasSession(session) else {
            Counters.bump(&counters.dropped, DropReason.unknownSession.code)
            send(
                .stepAck(StepAck(sequence: sequence, fate: WireFate(.dropped(.unknownSession)))),
                to: peer.id,
                session: session,
                correlation: header.id
            )
            return nil
        }
        // An inspector injects steps as the stepper it is named after; it numbers them on its own connection.
        let key = StepperKey(session: session, role: peer.role, name: peer.role == .inspector ? peer.id : peer.name)
        guard admit(sequence, of: key, from: peer.id, correlation: header.id) else { return nil }
        if let refusal {
            refuse(sequence, of: key, refusal, to: peer.id, correlation: header.id)
            return nil
        }
        return (session, key)
    }

    /// Refuses a numbered step with an ERROR, and remembers the refusal for when the step comes again.
    mutating func refuse(
        _ sequence: UInt64,
        of key: StepperKey,
        _ refusal: StepRefusal,
        to peer: String,
        correlation: UInt64
    ) {
        record(.refused(stepper: key, sequence: sequence, refusal: refusal), session: key.session)
        acknowledgements.steppers[key, default: StepperRecord()].remember(
            .refused(refusal),
            of: sequence,
            keeping: setup.configuration.rememberedAcknowledgements
        )
        reply(to: peer, correlation: correlation, error: refusal.code, refusal.message)
    }

    /// An inspector numbers the steps it injects on its connection, whichever session each names (a session flowd
    /// does not have included): a new one must be one above the last it sent, else the steps between were lost on
    /// the way (`sequenceGap`). One the session's record holds already is a repeat, which that record answers.
    private mutating func takeInjectedNumber(
        _ sequence: UInt64,
        from inspector: String,
        in session: SessionID,
        correlation: UInt64
    ) -> Bool {
        let key = StepperKey(session: session, role: .inspector, name: inspector)
        if sequence <= acknowledgements.steppers[key]?.lastSequence ?? 0 {
            return true
        }
        let last = acknowledgements.steppers.lastInjected(by: inspector)
        if sequence == last + 1 || (last == 0 && sequence > 0) {
            acknowledgements.steppers.inject(sequence, by: inspector)
            return true
        }
        if sequence > last {
            reply(
                to: inspector,
                correlation: correlation,
                error: .sequenceGap,
                "step \(sequence) came before step \(last + 1), which was lost on the way; it is not applied: send every unacknowledged step again from \(last + 1), in order"
            )
            return false
        }
        // A number taken for another session's step, or for one into a session flowd does not have (answered
        // again below as it was).
        return true
    }

    /// Whether a sequence is the next one of this stepper: steps are applied in the order they were numbered (a
    /// stepper this daemon has not heard from yet, as after a restart, starts wherever it is). A resent one is
    /// answered with its original fate or refusal (or, when its fate is still pending, by the acknowledgement to
    /// come). One above the next is refused with `sequenceGap`, and not applied: the steps before it were lost
    /// on the way (a dropped TCP connection loses what it carried, while what was still queued goes out on the
    /// next one), and the sender resends them all, in order.
    private mutating func admit(_ sequence: UInt64, of key: StepperKey, from peer: String, correlation: UInt64) -> Bool
    {
        // In place: a copy of the record would copy its sets and acknowledgements on every step.
        let (admitted, lastSequence) = { (record: inout StepperRecord) in
            // An inspector's numbers run across sessions (checked in order by `takeInjectedNumber`): in one session
            // they only grow.
            let next =
                sequence == record.lastSequence + 1 || (record.lastSequence == 0 && sequence > 0)
                || (key.role == .inspector && sequence > record.lastSequence)
            guard next else {
                return (false, record.lastSequence)
            }
            record.take(sequence)
            return (true, sequence)
        }(&acknowledgements.steppers[key, default: StepperRecord()])
        if admitted {
            return true
        }
        if sequence > lastSequence {
            reply(
                to: peer,
                correlation: correlation,
                error: .sequenceGap,
                "step \(sequence) came before step \(lastSequence + 1), which was lost on the way; it is not applied: send every unacknowledged step again from \(lastSequence + 1), in order"
            )
            return false
        }
        let record = acknowledgements.steppers[key] ?? StepperRecord()
        switch record.acknowledgements.outcome(of: sequence) {
        case .fate(let fate):
            send(
                .stepAck(StepAck(sequence: sequence, fate: fate)),
                to: peer,
                session: key.session,
                correlation: correlation
            )
        case .refused(let refusal):
            reply(to: peer, correlation: correlation, error: refusal.code, refusal.message)
        case nil where !record.pending.contains(sequence):
            reply(
                to: peer,
                correlation: correlation,
                error: .staleSequence,
                "step \(sequence) was applied long ago and its fate is forgotten; number new steps above \(lastSequence)"
            )
        case nil:
            break
        }
        return false
    }
}
