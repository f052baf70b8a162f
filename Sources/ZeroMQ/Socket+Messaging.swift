internal import CZeroMQ

extension Socket {
    /// Sends a multipart message, all frames or none.
    ///
    /// Each frame is copied once, straight into libzmq's message; nothing else is allocated.
    /// - Parameter message: its frames, in order.
    /// - Parameter dontWait: return `false` instead of blocking when the message cannot be queued now.
    /// - Returns: `true` when queued; `false` when it would block (only with `dontWait`, or after the
    ///   socket's send timeout).
    /// - Throws: ``ZeroMQError`` — for example ``ZeroMQError/Code/hostUnreachable`` from a ROUTER_MANDATORY
    ///   socket whose first frame names no connected peer.
    @discardableResult
    public func send(_ message: Message, dontWait: Bool = false) throws(ZeroMQError) -> Bool {
        try send(frames: message.frames, dontWait: dontWait)
    }

    /// Sends frames as one multipart message; see ``send(_:dontWait:)``.
    @discardableResult
    public func send(frames: [[UInt8]], dontWait: Bool = false) throws(ZeroMQError) -> Bool {
        precondition(!frames.isEmpty, "a ZeroMQ message has at least one frame")
        let last = frames.count - 1
        for index in frames.indices {
            // Once the first frame is queued, libzmq accepts the rest of the message without blocking.
            let queued = try frames[index].withUnsafeBytes { bytes in
                sendFrame(bytes, more: index < last, dontWait: dontWait && index == 0)
            }.get()
            if !queued {
                precondition(index == 0, "libzmq refused a frame in the middle of a multipart message")
                return false
            }
        }
        return true
    }

    /// Sends a multipart message whose first frame is text (a ROUTER's routing id, a topic) and whose other frames
    /// are `frames`, without gathering them into one list first; see ``send(_:dontWait:)``.
    @discardableResult
    public func send(leading text: String, frames: [[UInt8]], dontWait: Bool = false) throws(ZeroMQError) -> Bool {
        var text = text
        let queued = try text.withUTF8 { bytes in
            sendFrame(UnsafeRawBufferPointer(bytes), more: !frames.isEmpty, dontWait: dontWait)
        }.get()
        guard queued else { return false }
        for index in frames.indices {
            let sent = try frames[index].withUnsafeBytes { bytes in
                sendFrame(bytes, more: index < frames.count - 1, dontWait: false)
            }.get()
            precondition(sent, "libzmq refused a frame in the middle of a multipart message")
        }
        return true
    }

    /// Queues one frame: `false` when it would block.
    private func sendFrame(_ bytes: UnsafeRawBufferPointer, more: Bool, dontWait: Bool) -> Result<Bool, ZeroMQError> {
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        return libzmqResult("zmq_send") { zmq_send(handle, bytes.baseAddress, bytes.count, flags) }.map { outcome in
            if case .wouldBlock = outcome { false } else { true }
        }
    }

    /// Receives one multipart message.
    ///
    /// Each frame is copied once out of libzmq's message into its array.
    /// - Parameter dontWait: return `nil` at once when no message is waiting.
    /// - Returns: the message, or `nil` when none arrived (with `dontWait`, or when the socket's receive
    ///   timeout ran out).
    public func receive(dontWait: Bool = false) throws(ZeroMQError) -> Message? {
        var part = zmq_msg_t()
        zmq_msg_init(&part)
        defer { zmq_msg_close(&part) }

        // Room for a FlowBus message's four frames and the routing id or topic before them: one allocation.
        var frames: [[UInt8]] = []
        frames.reserveCapacity(5)
        var userID: String?
        var peerAddress: String?
        var sourceDescriptor: Int32?
        repeat {
            // The first frame may wait; the rest of a multipart message has already arrived with it.
            let flags: Int32 = (dontWait && frames.isEmpty) ? ZMQ_DONTWAIT : 0
            let outcome = try libzmq("zmq_msg_recv") { zmq_msg_recv(&part, handle, flags) }
            if case .wouldBlock = outcome {
                precondition(frames.isEmpty, "libzmq delivered part of a multipart message")
                return nil
            }
            let size = zmq_msg_size(&part)
            let data = zmq_msg_data(&part)
            frames.append(Array(UnsafeRawBufferPointer(start: data, count: size)))
            if capturesUserID && userID == nil, let property = zmq_msg_gets(&part, "User-Id") {
                userID = String(cString: property)
            }
            if capturesPeerAddress && peerAddress == nil, let property = zmq_msg_gets(&part, "Peer-Address") {
                peerAddress = String(cString: property)
            }
            if capturesSourceDescriptor && sourceDescriptor == nil {
                let descriptor = zmq_msg_get(&part, ZMQ_SRCFD)
                sourceDescriptor = descriptor >= 0 ? descriptor : nil
            }
        } while zmq_msg_more(&part) != 0
        return Message(frames, userID: userID, peerAddress: peerAddress, sourceDescriptor: sourceDescriptor)
    }

    /// Receives one message, waiting at most `timeout`.
    /// - Returns: the message, or `nil` when none arrived in time.
    public func receive(within timeout: Duration) throws(ZeroMQError) -> Message? {
        // A message already waiting is taken at once: no poll (a system call) for it.
        if let waiting = try receive(dontWait: true) {
            return waiting
        }
        guard try wait(for: .readable, within: timeout).contains(.readable) else {
            return nil
        }
        return try receive(dontWait: true)
    }

    /// Waits until the socket is ready for `events`, at most `timeout` (`nil`: forever).
    /// - Returns: the events that are ready, empty on timeout.
    public func wait(for events: PollEvents, within timeout: Duration?) throws(ZeroMQError) -> PollEvents {
        var item = zmq_pollitem_t(socket: handle, fd: 0, events: events.libzmqValue, revents: 0)
        let milliseconds = Duration.libzmqTimeout(timeout)
        try libzmqChecked("zmq_poll") { zmq_poll(&item, 1, Int(milliseconds)) }
        return PollEvents(libzmqValue: item.revents)
    }
}
