import FlowCore
import FlowWire
import Foundation

extension ConnectionLoop {
    /// Sends a message now; returns its header id, or `nil` when it is larger than flowd takes (not sent).
    @discardableResult
    func send(_ message: FlowWire.Message, session: String?) -> UInt64? {
        send(message.type, body: codec.body(of: message), session: session)
    }

    /// Sends a message whose body is encoded already; `nil` when it is larger than flowd takes (not sent).
    private func send(_ type: MessageType, body: [UInt8], session: String?) -> UInt64? {
        lastMessageID += 1
        let header = Header(
            id: lastMessageID,
            session: session,
            sender: setup.id,
            sentAt: Int64(Date().timeIntervalSince1970 * 1000)
        )
        let frames = codec.encode(header: header, type: type, body: body)
        guard frames[2].count <= codec.maxHeaderSize, body.count <= maxMessageSize else {
            return nil
        }
        // A full queue (flowd away for long) drops the message; what waits for an answer is sent again later.
        _ = try? dealer.send(frames: frames, dontWait: true)
        lastSent = clock.now
        return lastMessageID
    }

    /// Sends a step or deep link, remembering which message carried it. One too large to send (only when flowd
    /// lowered its limit since the step was numbered, after a restart: `emit` checks the size first) fails, and
    /// so does every later step in flight (see ``giveUp(from:)``).
    func transmit(_ sequence: UInt64) {
        guard var step = inFlight[sequence] else { return }
        if let previous = step.messageID {
            sequenceOfMessage[previous] = nil
        }
        guard let id = send(step.type, body: step.body, session: step.session) else {
            giveUp(from: sequence)
            return
        }
        sequenceOfMessage[id] = sequence
        step.messageID = id
        step.sentAt = clock.now
        inFlight[sequence] = step
    }

    /// Fails a numbered step that cannot be sent, and every later one in flight, and takes their numbers back:
    /// flowd applies a sender's steps in order, so a number it never gets would hold up every later step for
    /// good (each refused as a `sequenceGap`). The next step emitted takes the first number given back.
    private func giveUp(from first: UInt64) {
        let later = FlowBusError(
            .refused,
            "not sent: step \(first), emitted before it, no longer fits flowd's limit of \(maxMessageSize) bytes, and steps are applied in order"
        )
        for sequence in inFlight.keys.filter({ $0 >= first }).sorted() {
            guard let step = inFlight.removeValue(forKey: sequence) else { continue }
            if let id = step.messageID {
                sequenceOfMessage[id] = nil
            }
            connection.releaseStep()
            step.fate?.resume(with: .failure(sequence == first ? tooLarge : later))
        }
        lastSequence = first - 1
        resentAfterGap = min(resentAfterGap, first - 1)
    }

    private var tooLarge: FlowBusError {
        FlowBusError(.tooLarge, "the message is larger than flowd's limit of \(maxMessageSize) bytes; it was not sent")
    }

    /// Carries out an API call.
    func handle(_ request: Request) {
        switch request {
        case .emit(let outbound, let fate):
            let message: FlowWire.Message =
                switch outbound {
                case .step(let step, let presentable, _):
                    .step(StepMessage(step: step, sequence: lastSequence + 1, presentable: presentable))
                case .deepLink(let path, _):
                    .deepLink(DeepLinkMessage(path: path, sequence: lastSequence + 1))
                }
            let body = codec.body(of: message)
            // Refused here, it takes no sequence number: flowd applies steps in order, a number it never gets
            // would hold up every later step.
            guard body.count <= maxMessageSize else {
                connection.releaseStep()
                fate?.resume(with: .failure(tooLarge))
                return
            }
            lastSequence += 1
            inFlight[lastSequence] = InFlight(
                type: message.type,
                body: body,
                session: outbound.session ?? setup.session,
                fate: fate
            )
            if registered && !holdsScreenSteps {
                transmit(lastSequence)
            }
        case .send(let message, let session):
            if registered {
                send(message, session: session)
            } else {
                unsent.append((message, session))
            }
        case .reportVisible(let screens):
            reportVisible(screens)
        case .reportDismissed(let presentables):
            reportDismissed(presentables)
        case .ask(let message, let session, let reply, let timeout):
            ask(WaitingAnswer(message: message, session: session, reply: reply, deadline: clock.now + timeout))
        case .resync:
            requestSnapshot(.inconsistent)
        case .close(let done):
            running = false
            if let done {
                closeWaiters.append(done)
            }
        }
    }

    /// Sends a message that flowd answers with a REPLY, once registered.
    func ask(_ answer: WaitingAnswer) {
        guard registered else {
            unsentAsks.append(answer)
            return
        }
        guard let id = send(answer.message, session: answer.session) else {
            answer.reply.resume(with: .failure(tooLarge))
            return
        }
        answers[id] = answer
    }

    /// Fails every step in flight and every answer awaited (the daemon refused to register the client again).
    func failWaiting(_ error: FlowBusError) {
        for step in inFlight.values {
            connection.releaseStep()
            step.fate?.resume(with: .failure(error))
        }
        inFlight = [:]
        sequenceOfMessage = [:]
        for answer in Array(answers.values) + unsentAsks {
            answer.reply.resume(with: .failure(error))
        }
        answers = [:]
        unsentAsks = []
    }

    /// Stops: BYE to flowd, every waiter told, the streams finished.
    func finish() {
        if registered {
            send(.bye(Bye(reason: "closed")), session: setup.session)
        }
        let closed = FlowBusError(.closed, "the client is closed")
        for request in connection.closeQueue() {
            switch request {
            case .emit(_, let fate):
                connection.releaseStep()
                fate?.resume(with: .failure(closed))
            case .ask(_, _, let reply, _):
                reply.resume(with: .failure(closed))
            case .close(let done):
                done.map { closeWaiters.append($0) }
            case .send, .reportVisible, .reportDismissed, .resync:
                break
            }
        }
        failWaiting(closed)
        startup?.resume(with: .failure(closed))
        connection.updates?.finish()
        connection.questions?.finish()
        for waiter in closeWaiters {
            waiter.resume(with: .success(()))
        }
    }
}
