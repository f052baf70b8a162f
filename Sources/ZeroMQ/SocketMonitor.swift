internal import CZeroMQ
import Synchronization

/// Receives a socket's connection events (connected, accepted, disconnected, handshake failed...).
///
/// Made by ``Socket/monitor()``. Like sockets, a monitor belongs to the thread that made it. Register
/// ``socket`` with a ``Poller`` to wait for events together with messages.
public final class SocketMonitor {
    /// The PAIR socket events arrive on; poll it for ``PollEvents/readable``.
    public let socket: Socket

    /// The receiving end of a monitor started with ``Socket/startMonitor()``, made on the thread that reads it.
    public convenience init(connectingTo endpoint: String, context: Context) throws(ZeroMQError) {
        let pair = try Socket(.pair, context: context)
        try pair.setOption(.receiveHighWaterMark, 0)
        try pair.connect(endpoint)
        self.init(socket: pair)
    }

    init(socket: Socket) {
        self.socket = socket
    }

    /// The next event if one is waiting, without blocking.
    public func next() throws(ZeroMQError) -> MonitorEvent? {
        guard let message = try socket.receive(dontWait: true) else {
            return nil
        }
        return Self.decode(message)
    }

    /// The next event, waiting at most `timeout`.
    public func next(within timeout: Duration) throws(ZeroMQError) -> MonitorEvent? {
        guard let message = try socket.receive(within: timeout) else {
            return nil
        }
        return Self.decode(message)
    }

    /// Waits until an event of `kind` arrives, skipping others, for at most `timeout` in all.
    /// - Returns: the event, or `nil` when the time ran out.
    public func wait(for kind: MonitorEvent.Kind, within timeout: Duration) throws(ZeroMQError) -> MonitorEvent? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if let event = try next(within: clock.now.duration(to: deadline)), event.kind == kind {
                return event
            }
        }
        return nil
    }

    private static func decode(_ message: Message) -> MonitorEvent? {
        // Frame 1: a 16-bit event number and a 32-bit value, in host order. Frame 2: the endpoint.
        guard message.count == 2, message[0].count == 6 else {
            return nil
        }
        let (number, value) = message[0].withUnsafeBytes { header in
            (header.loadUnaligned(as: UInt16.self), header.loadUnaligned(fromByteOffset: 2, as: UInt32.self))
        }
        return MonitorEvent(
            kind: MonitorEvent.Kind(libzmqValue: number),
            value: Int(Int32(bitPattern: value)),
            endpoint: String(decoding: message[1], as: UTF8.self)
        )
    }
}

private let monitorCounter = Atomic<Int>(0)

extension Socket {
    /// Starts reporting this socket's connection events; read them from the returned monitor.
    public func monitor() throws(ZeroMQError) -> SocketMonitor {
        let number = monitorCounter.add(1, ordering: .relaxed).newValue
        let endpoint = "inproc://flowbus-monitor-\(number)"
        try libzmqChecked("zmq_socket_monitor") { zmq_socket_monitor(handle, endpoint, ZMQ_EVENT_ALL) }
        let pair = try Socket(.pair, context: context)
        // No limit on queued events: the monitor's sends block when its receiver is full, and the last one is sent
        // when this socket closes, whether or not anyone still reads.
        try pair.setOption(.receiveHighWaterMark, 0)
        try pair.connect(endpoint)
        monitorReceiver = pair
        return SocketMonitor(socket: pair)
    }

    /// Starts reporting this socket's connection events, to be read on another thread: connect a
    /// ``SocketMonitor/init(connectingTo:context:)`` there to the returned endpoint *before* this socket accepts or
    /// makes a connection (libzmq waits to report an event until its receiver is connected), and keep it open until
    /// it reports ``MonitorEvent/Kind/monitorStopped``: this socket reports that as it closes.
    public func startMonitor() throws(ZeroMQError) -> String {
        let number = monitorCounter.add(1, ordering: .relaxed).newValue
        let endpoint = "inproc://flowbus-monitor-\(number)"
        try libzmqChecked("zmq_socket_monitor") { zmq_socket_monitor(handle, endpoint, ZMQ_EVENT_ALL) }
        monitoredElsewhere = true
        return endpoint
    }
}
