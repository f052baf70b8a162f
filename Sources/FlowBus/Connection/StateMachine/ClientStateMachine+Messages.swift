import FlowCore
import FlowWire

extension ClientStateMachine {
    /// A message from flowd on the control connection.
    mutating func handle(_ envelope: Envelope, now: Instant) {
        let rule = envelope.message.type.rule
        guard rule.sentByDaemon, !rule.published else {
            // Not a message flowd sends on a control connection (FlowWire's rules): nothing to act on.
            log(
                .debug,
                "flowd's control connection carried \(envelope.message.type.rawValue), which flowd never sends there: ignored"
            )
            return
        }
        let correlation = envelope.header.correlation
        switch envelope.message {
        case .welcome(let welcome):
            // Only the answer to the last HELLO counts: answers to earlier ones (sent again while flowd was slow)
            // would register the client twice.
            if correlation == registration.helloID {
                registration.helloID = nil
                welcomed(welcome, now: now)
            }
        case .redirect(let redirect):
            if correlation == registration.helloID {
                registration.helloID = nil
                redirected(redirect, now: now)
            }
        case .stepAck(let ack):
            acknowledged(ack)
        case .error(let error):
            refused(error, correlation: correlation, now: now)
        case .snapshot(let snapshot):
            received(snapshot, now: now)
        case .reply(let reply):
            replied(reply, correlation: correlation)
        case .guardQuestion(let question):
            perform(.question(GuardClient.Question(question, session: envelope.header.session)))
        case .heartbeat:
            break
        case .hello, .bye, .step, .deepLink, .visibility, .commands, .snapshotRequest, .query, .sessionData,
            .guardAnswer, .event, .events:
            // Refused above by the rules.
            break
        }
    }

    /// An ERROR: for the HELLO, a step, a message that waits for a REPLY, or the connection itself.
    private mutating func refused(_ error: ErrorReply, correlation: UInt64?, now: Instant) {
        if error.errorCode == .notRegistered {
            forgotten(now: now)
            return
        }
        if let correlation, correlation == registration.helloID {
            helloRefused(error)
            return
        }
        if error.errorCode == .sequenceGap {
            resendAfterGap(correlation: correlation, error.message, now: now)
            return
        }
        if let correlation,
            stepRefused(error, correlation: correlation) || answerRefused(error, correlation: correlation)
        {
            return
        }
        log(.info, "flowd refused a message: \(error.code): \(error.message)")
    }
}
