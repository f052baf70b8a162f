import FlowCore
import FlowWire

extension ClientStateMachine {
    /// Steps taken and not yet acknowledged, and messages that wait for the registration.
    struct Outbox {
        /// The sequence of the last step numbered.
        var lastSequence: UInt64 = 0
        var inFlight: [UInt64: InFlight] = [:]
        /// Which step the message with an id carried (what flowd's answers name).
        var sequenceOfMessage: [UInt64: UInt64] = [:]
        /// The highest sequence sent again because flowd reported a gap: later gap reports up to it are answered
        /// already.
        var resentAfterGap: UInt64 = 0
        /// Messages sent once registered (visibility, session data, a guard's answer).
        var queued: [(message: FlowWire.Message, session: String?)] = []
        /// A presenter registered again: flowd holds its screens hidden until it reports them after the snapshot (a
        /// restarted flowd, a lost presenter), so the steps it sends as them wait until that report (since this
        /// moment), else each would be dropped `notVisible` (a tap made while flowd was away).
        var heldSince: Instant?
    }

    /// A step or deep link taken and not yet acknowledged.
    struct InFlight {
        /// STEP or DEEPLINK, and its body, encoded once however often it is sent.
        let type: MessageType
        let body: [UInt8]
        /// The session its header names.
        let session: String?
        let fate: PendingReply<Fate>?
        /// The id of the message that last carried it, and when it went.
        var messageID: UInt64?
        var sentAt: Instant?
    }

    /// The drop reason flowd gives a step whose parameters do not fit its declaration.
    static var invalidParameters: String { "invalidParameters" }

    /// Sends a message now; returns its header id, or `nil` when it is larger than flowd takes (not sent).
    @discardableResult
    mutating func send(_ message: FlowWire.Message, session: String?, now: Instant) -> UInt64? {
        send(message.type, body: wire.codec.body(of: message), session: session, now: now)
    }

    /// Sends a message whose body is encoded already; `nil` when it is larger than flowd takes (not sent).
    private mutating func send(_ type: MessageType, body: [UInt8], session: String?, now: Instant) -> UInt64? {
        guard let message = wire.next(type, body: body, session: session, sender: setup.id) else { return nil }
        // A full queue (flowd away for long) drops the message; what waits for an answer is sent again later.
        perform(.send(message))
        liveness.lastSent = now
        return message.id
    }

    /// Sends a message once registered.
    mutating func sendWhenRegistered(_ message: FlowWire.Message, session: String?, now: Instant) {
        if registration.registered {
            send(message, session: session, now: now)
        } else {
            outbox.queued.append((message, session))
        }
    }

    /// Numbers a step or deep link and sends it (once registered, and not held for a presenter's report).
    mutating func emit(_ outbound: Outbound, fate: PendingReply<Fate>?, now: Instant) {
        let next = outbox.lastSequence + 1
        let message: FlowWire.Message =
            switch outbound {
            case .step(let step, let presentable, _):
                .step(StepMessage(step: step, sequence: next, presentable: presentable))
            case .deepLink(let path, _):
                .deepLink(DeepLinkMessage(path: path, sequence: next))
            }
        let body = wire.codec.body(of: message)
        // Refused here, it takes no sequence number: flowd applies steps in order, a number it never gets would
        // hold up every later step.
        guard body.count <= wire.maxMessageSize else {
            perform(.settleStep(fate, .failure(wire.tooLarge)))
            return
        }
        outbox.lastSequence = next
        outbox.inFlight[next] = InFlight(
            type: message.type,
            body: body,
            session: outbound.session ?? setup.session,
            fate: fate
        )
        if registration.registered && outbox.heldSince == nil {
            transmit(next, now: now)
        }
    }

    /// Sends a step or deep link, remembering which message carried it. One too large to send (only when flowd
    /// lowered its limit since the step was numbered, after a restart: `emit` checks the size first) fails, and
    /// so does every later step in flight (see ``giveUp(from:)``).
    mutating func transmit(_ sequence: UInt64, now: Instant) {
        guard var step = outbox.inFlight[sequence] else { return }
        if let previous = step.messageID {
            outbox.sequenceOfMessage[previous] = nil
        }
        guard let id = send(step.type, body: step.body, session: step.session, now: now) else {
            giveUp(from: sequence)
            return
        }
        outbox.sequenceOfMessage[id] = sequence
        step.messageID = id
        step.sentAt = now
        outbox.inFlight[sequence] = step
    }

    /// Sends every step in flight, in order.
    mutating func transmitInFlight(now: Instant) {
        for sequence in outbox.inFlight.keys.sorted() {
            transmit(sequence, now: now)
        }
    }

    /// Fails a numbered step that cannot be sent, and every later one in flight, and takes their numbers back:
    /// flowd applies a sender's steps in order, so a number it never gets would hold up every later step for
    /// good (each refused as a `sequenceGap`). The next step emitted takes the first number given back.
    private mutating func giveUp(from first: UInt64) {
        let later = FlowBusError(
            .refused,
            "not sent: step \(first), emitted before it, no longer fits flowd's limit of \(wire.maxMessageSize) bytes, and steps are applied in order"
        )
        for sequence in outbox.inFlight.keys.filter({ $0 >= first }).sorted() {
            guard let step = outbox.inFlight.removeValue(forKey: sequence) else { continue }
            if let id = step.messageID {
                outbox.sequenceOfMessage[id] = nil
            }
            perform(.settleStep(step.fate, .failure(sequence == first ? wire.tooLarge : later)))
        }
        outbox.lastSequence = first - 1
        outbox.resentAfterGap = min(outbox.resentAfterGap, first - 1)
    }

    /// flowd gave a step its fate.
    mutating func acknowledged(_ ack: StepAck) {
        // A second acknowledgement of a resent step finds nothing: its fate was given already.
        guard let step = outbox.inFlight.removeValue(forKey: ack.sequence) else { return }
        if let id = step.messageID {
            outbox.sequenceOfMessage[id] = nil
        }
        // A mistake in what was sent (parameters that do not fit the step's declaration) is thrown, as an
        // undeclared step is (ERROR unknownStep): a fate is flowd's decision about a step it could read.
        if !ack.fate.accepted, ack.fate.reason == Self.invalidParameters {
            let remedy = ack.fate.remedy.map { "; \($0)" } ?? ""
            let explanation = ack.fate.explanation ?? "the step's parameters do not fit its declaration"
            let failure = FlowBusError(.refused, "\(explanation)\(remedy)", daemonCode: Self.invalidParameters)
            perform(.settleStep(step.fate, .failure(failure)))
            return
        }
        perform(.settleStep(step.fate, .success(Fate(ack.fate))))
    }

    /// Steps before a refused one were lost on the way (with a connection that dropped, or a full queue): it
    /// stays in flight, and every step in flight is sent again, in order. The reports for the other steps sent
    /// after the lost ones find them sent again already (a resent step's old message id maps to nothing).
    mutating func resendAfterGap(correlation: UInt64?, _ message: String, now: Instant) {
        // Unregistered, the resend after the coming WELCOME sends them all anyway.
        guard registration.registered, let correlation, let sequence = outbox.sequenceOfMessage[correlation],
            sequence > outbox.resentAfterGap
        else { return }
        log(.debug, "flowd waits for earlier steps, sending every step in flight again: \(message)")
        let waiting = outbox.inFlight.keys.sorted()
        outbox.resentAfterGap = waiting.last ?? sequence
        for sequence in waiting {
            transmit(sequence, now: now)
        }
    }

    /// flowd refused the step a message carried; `false` when the message carried none.
    mutating func stepRefused(_ error: ErrorReply, correlation: UInt64) -> Bool {
        guard let sequence = outbox.sequenceOfMessage.removeValue(forKey: correlation),
            let step = outbox.inFlight.removeValue(forKey: sequence)
        else { return false }
        perform(.settleStep(step.fate, .failure(FlowBusError(.refused, error.message, daemonCode: error.code))))
        return true
    }

    /// flowd lost steps it had acknowledged (its state put back from an older copy, or the durability `off` and a
    /// crash): their numbers are free again, and what waits is numbered from there, else it would meet
    /// `sequenceGap` for ever. A restarted process continues above what flowd has applied for its name.
    mutating func continueNumbering(after known: UInt64?) {
        if let known, let lowest = outbox.inFlight.keys.min(), lowest > known + 1 {
            log(
                .warning,
                "flowd lost the steps it had acknowledged after sequence \(known) (up to \(lowest - 1)): the \(outbox.inFlight.count) steps that wait are numbered anew from \(known + 1)"
            )
            renumberInFlight(from: known + 1)
        } else if let known, outbox.inFlight.isEmpty, known < outbox.lastSequence {
            log(
                .warning,
                "flowd lost the steps it had acknowledged after sequence \(known) (up to \(outbox.lastSequence)): new steps are numbered from \(known + 1)"
            )
            outbox.lastSequence = known
        }
        outbox.lastSequence = max(outbox.lastSequence, known ?? 0)
    }

    /// Numbers the steps that wait for their fate anew, in their order, from `first` (their bodies written again);
    /// the next step follows them.
    private mutating func renumberInFlight(from first: UInt64) {
        let codec = wire.codec
        var renumbered: [UInt64: InFlight] = [:]
        var next = first
        for sequence in outbox.inFlight.keys.sorted() {
            guard let step = outbox.inFlight[sequence] else { continue }
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
                outbox.inFlight[sequence] = nil
                let failure = FlowBusError(.tooLarge, "the step could not be numbered again")
                perform(.settleStep(step.fate, .failure(failure)))
                continue
            }
            renumbered[next] = InFlight(
                type: step.type,
                body: codec.body(of: message),
                session: step.session,
                fate: step.fate
            )
            next += 1
        }
        outbox.inFlight = renumbered
        outbox.lastSequence = next - 1
        outbox.resentAfterGap = min(outbox.resentAfterGap, first - 1)
    }

    /// Fails every step in flight and every answer awaited (flowd refused to register the client again, or the
    /// client closes).
    mutating func failWaiting(_ error: FlowBusError) {
        for sequence in outbox.inFlight.keys.sorted() {
            perform(.settleStep(outbox.inFlight[sequence]?.fate, .failure(error)))
        }
        outbox.inFlight = [:]
        outbox.sequenceOfMessage = [:]
        failAnswers(error)
    }
}
