import FlowCore
import FlowWire

extension ClientStateMachine {
    /// A message that waits for a REPLY, until its deadline.
    struct WaitingAnswer {
        let message: FlowWire.Message
        let session: String?
        let reply: PendingReply<JSONValue>
        let deadline: Instant
    }

    /// Messages that wait for a REPLY: sent (by the id of the message that asked), or waiting for the registration.
    struct Answers {
        var waiting: [UInt64: WaitingAnswer] = [:]
        var unsent: [WaitingAnswer] = []

        /// The first deadline of all. Read on every turn of the connection's loop: the two lists are walked where
        /// they are (joining them with `+` made an array on every turn, most often of nothing).
        var nextDeadline: Instant? {
            var first: Instant?
            for answer in waiting.values {
                first = min(first ?? answer.deadline, answer.deadline)
            }
            for answer in unsent {
                first = min(first ?? answer.deadline, answer.deadline)
            }
            return first
        }
    }

    /// Sends a message that flowd answers with a REPLY, once registered.
    mutating func ask(_ answer: WaitingAnswer, now: Instant) {
        guard registration.registered else {
            answers.unsent.append(answer)
            return
        }
        guard let id = send(answer.message, session: answer.session, now: now) else {
            perform(.answer(answer.reply, .failure(wire.tooLarge)))
            return
        }
        answers.waiting[id] = answer
    }

    /// flowd answered the message `correlation` names.
    mutating func replied(_ reply: Reply, correlation: UInt64?) {
        guard let correlation, let answer = answers.waiting.removeValue(forKey: correlation) else { return }
        perform(.answer(answer.reply, .success(reply.result)))
    }

    /// flowd refused the message `correlation` names, which waited for a REPLY; `false` when none did.
    mutating func answerRefused(_ error: ErrorReply, correlation: UInt64) -> Bool {
        guard let answer = answers.waiting.removeValue(forKey: correlation) else { return false }
        perform(.answer(answer.reply, .failure(FlowBusError(.refused, error.message, daemonCode: error.code))))
        return true
    }

    /// Fails what waited past its deadline, sent or not.
    mutating func expireAnswers(now: Instant) {
        let late = FlowBusError(.timedOut, "flowd did not answer in time")
        for id in answers.waiting.keys.sorted() where answers.waiting[id].map({ now >= $0.deadline }) == true {
            if let answer = answers.waiting.removeValue(forKey: id) {
                perform(.answer(answer.reply, .failure(late)))
            }
        }
        let expired = answers.unsent.filter { now >= $0.deadline }
        answers.unsent.removeAll { now >= $0.deadline }
        for answer in expired {
            perform(.answer(answer.reply, .failure(late)))
        }
    }

    /// Fails every answer awaited.
    mutating func failAnswers(_ error: FlowBusError) {
        let all = answers.waiting.keys.sorted().compactMap { answers.waiting[$0] } + answers.unsent
        answers = Answers()
        for answer in all {
            perform(.answer(answer.reply, .failure(error)))
        }
    }
}
