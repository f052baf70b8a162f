internal import CZeroMQ

/// A ZeroMQ socket, owned by one thread.
///
/// `Socket` is deliberately not `Sendable`: libzmq sockets must be used by one thread at a time, and the
/// compiler enforces it. Create a socket on the thread that uses it. The socket is closed when released,
/// after its linger (set explicitly at creation, zero by default) has run out.
public final class Socket {
    let handle: UnsafeMutableRawPointer
    /// The context this socket belongs to; held so that the context outlives its sockets.
    public let context: Context
    /// The pattern this socket implements.
    public let type: SocketType
    /// Whether received messages carry the ZAP user id (set when the socket becomes a CURVE server).
    var capturesUserID = false
    /// Whether received messages carry where their peer connects from (``Message/peerAddress``).
    public var capturesPeerAddress = false
    /// Whether received messages carry the file descriptor of their connection (``Message/sourceDescriptor``).
    public var capturesSourceDescriptor = false
    /// The receiving end of this socket's monitor (see ``monitor()``), kept open until this socket is closed: the
    /// monitor is stopped first — libzmq 4.3 otherwise keeps its internal socket and file descriptors until the
    /// context ends — and stopping sends a last event, which needs its receiver.
    var monitorReceiver: Socket?
    /// Whether this socket's monitor is read by a receiver it does not hold (``startMonitor()``).
    var monitoredElsewhere = false

    /// Creates a socket of `type` in `context`.
    /// - Parameter type: what kind of socket (ROUTER, DEALER, XPUB...).
    /// - Parameter context: the context it lives in.
    /// - Parameter linger: how long unsent messages may delay closing; `nil` waits until they are sent,
    ///   which can block the context's termination forever, so use it only with a reason.
    public init(_ type: SocketType, context: Context, linger: Duration? = .zero) throws(ZeroMQError) {
        guard let handle = zmq_socket(context.handle, type.libzmqValue) else {
            let number = zmq_errno()
            throw ZeroMQError(
                number == ETERM ? .contextTerminated : .tooManyOpenSockets,
                operation: "zmq_socket",
                message: describe(number)
            )
        }
        self.handle = handle
        self.context = context
        self.type = type
        try setOption(.linger, linger)
    }

    deinit {
        if monitorReceiver != nil || monitoredElsewhere {
            _ = zmq_socket_monitor(handle, nil, 0)
        }
        _ = zmq_close(handle)
    }

    /// Binds to an endpoint such as `tcp://127.0.0.1:5555`, `tcp://127.0.0.1:*` (any free port),
    /// `ipc:///run/flowbus/control` or `inproc://name`. Read ``lastEndpoint`` for the address actually bound.
    public func bind(_ endpoint: String) throws(ZeroMQError) {
        try libzmqChecked("zmq_bind") { zmq_bind(handle, endpoint) }
    }

    /// Connects to an endpoint. The connection is made (and remade) in the background.
    public func connect(_ endpoint: String) throws(ZeroMQError) {
        try libzmqChecked("zmq_connect") { zmq_connect(handle, endpoint) }
    }

    /// Stops listening on a bound endpoint (use the resolved address from ``lastEndpoint`` for wildcards).
    public func unbind(_ endpoint: String) throws(ZeroMQError) {
        try libzmqChecked("zmq_unbind") { zmq_unbind(handle, endpoint) }
    }

    /// Drops the connection to a connected endpoint.
    public func disconnect(_ endpoint: String) throws(ZeroMQError) {
        try libzmqChecked("zmq_disconnect") { zmq_disconnect(handle, endpoint) }
    }

    /// The last endpoint bound or connected, with wildcards resolved (the real port of `tcp://127.0.0.1:*`).
    public var lastEndpoint: String {
        get throws(ZeroMQError) {
            try option(.lastEndpoint)
        }
    }
}
