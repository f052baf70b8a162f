internal import CZeroMQ

/// Waits on several sockets (and plain file descriptors) at once, with a timeout.
///
/// Like the sockets it holds, a poller belongs to one thread. Register sockets once, then call ``poll(timeout:)``
/// in the loop; the registration array is reused, so polling allocates only the small result.
public struct Poller {
    private var sockets: [Socket?] = []
    private var items: [zmq_pollitem_t] = []

    /// Creates an empty poller.
    public init() {}

    /// Adds a socket to wait on.
    /// - Returns: the socket's index, which ``poll(timeout:)`` results refer to.
    @discardableResult
    public mutating func register(_ socket: Socket, for events: PollEvents = .readable) -> Int {
        sockets.append(socket)
        items.append(zmq_pollitem_t(socket: socket.handle, fd: 0, events: events.libzmqValue, revents: 0))
        return items.count - 1
    }

    /// Adds a file descriptor to wait on (an eventfd, a pipe, a tty), as `zmq_poll` allows.
    /// - Returns: its index, which ``poll(timeout:)`` results refer to.
    @discardableResult
    public mutating func register(fileDescriptor: Int32, for events: PollEvents = .readable) -> Int {
        sockets.append(nil)
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: events.libzmqValue, revents: 0))
        return items.count - 1
    }

    /// Changes the events waited for on the socket at `index`.
    public mutating func update(_ index: Int, for events: PollEvents) {
        items[index].events = events.libzmqValue
    }

    /// The number of registered sockets and file descriptors.
    public var count: Int { sockets.count }

    /// The socket registered at `index`; `nil` when a file descriptor was registered there.
    public subscript(index: Int) -> Socket? { sockets[index] }

    /// Waits until at least one socket is ready or `timeout` passes (`nil`: forever, `.zero`: just look).
    /// - Returns: the ready sockets' indexes and events, in registration order; empty on timeout.
    /// - Throws: ``ZeroMQError/Code/contextTerminated`` once the context is shut down.
    public mutating func poll(timeout: Duration?) throws(ZeroMQError) -> [(index: Int, events: PollEvents)] {
        let milliseconds = Int(Duration.libzmqTimeout(timeout))
        let count = items.count
        let outcome = try items.withUnsafeMutableBufferPointer { buffer in
            libzmqResult("zmq_poll") { zmq_poll(buffer.baseAddress, Int32(count), milliseconds) }
        }.get()
        let ready = try libzmqChecked(outcome, "zmq_poll")
        guard ready > 0 else {
            return []
        }
        var result: [(index: Int, events: PollEvents)] = []
        result.reserveCapacity(Int(ready))
        for index in items.indices where items[index].revents != 0 {
            result.append((index, PollEvents(libzmqValue: items[index].revents)))
        }
        return result
    }
}
