internal import CZeroMQ

/// Something that happened to a socket's connections, reported by a ``SocketMonitor``.
public struct MonitorEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// A connect completed.
        case connected
        /// A connect is in progress.
        case connectDelayed
        /// A connect failed and will be retried after ``MonitorEvent/value`` milliseconds.
        case connectRetried
        /// A bind is listening.
        case listening
        /// A bind failed; ``MonitorEvent/value`` is the error number.
        case bindFailed
        /// A peer's connection was accepted.
        case accepted
        /// Accepting a connection failed.
        case acceptFailed
        /// A connection's file descriptor was closed.
        case closed
        /// Closing a connection failed.
        case closeFailed
        /// A connection was broken: the peer went away, timed out, or broke a limit such as MAXMSGSIZE.
        case disconnected
        /// Monitoring stopped (the socket was closed).
        case monitorStopped
        /// A security handshake failed without more detail.
        case handshakeFailedNoDetail
        /// A security handshake succeeded.
        case handshakeSucceeded
        /// A handshake failed on a protocol error; ``MonitorEvent/value`` is libzmq's protocol error code.
        case handshakeFailedProtocol
        /// Authentication refused the peer; ``MonitorEvent/value`` is the ZAP status code (400 for denied).
        case handshakeFailedAuthentication
        /// An event this wrapper does not name; ``MonitorEvent/value`` is raw.
        case other(Int)
    }

    /// What happened.
    public let kind: Kind
    /// The event's number: an error number, an interval, a status code, or a file descriptor, by kind.
    public let value: Int
    /// The endpoint concerned, such as `tcp://127.0.0.1:41234`.
    public let endpoint: String

    /// Creates an event; monitors make these.
    public init(kind: Kind, value: Int, endpoint: String) {
        self.kind = kind
        self.value = value
        self.endpoint = endpoint
    }

    public var description: String {
        "\(kind) \(endpoint) (\(value))"
    }
}

extension MonitorEvent.Kind {
    init(libzmqValue: UInt16) {
        switch Int32(libzmqValue) {
        case ZMQ_EVENT_CONNECTED: self = .connected
        case ZMQ_EVENT_CONNECT_DELAYED: self = .connectDelayed
        case ZMQ_EVENT_CONNECT_RETRIED: self = .connectRetried
        case ZMQ_EVENT_LISTENING: self = .listening
        case ZMQ_EVENT_BIND_FAILED: self = .bindFailed
        case ZMQ_EVENT_ACCEPTED: self = .accepted
        case ZMQ_EVENT_ACCEPT_FAILED: self = .acceptFailed
        case ZMQ_EVENT_CLOSED: self = .closed
        case ZMQ_EVENT_CLOSE_FAILED: self = .closeFailed
        case ZMQ_EVENT_DISCONNECTED: self = .disconnected
        case ZMQ_EVENT_MONITOR_STOPPED: self = .monitorStopped
        case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL: self = .handshakeFailedNoDetail
        case ZMQ_EVENT_HANDSHAKE_SUCCEEDED: self = .handshakeSucceeded
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: self = .handshakeFailedProtocol
        case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: self = .handshakeFailedAuthentication
        default: self = .other(Int(libzmqValue))
        }
    }
}
