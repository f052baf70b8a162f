/// What a socket's monitor said about its connection, as a plain value for the client's state machine.
enum LinkEvent: Equatable, Sendable {
    /// The connection is made (again).
    case connected
    /// The connection to `endpoint` was lost; libzmq reconnects.
    case disconnected(endpoint: String)
    /// The security handshake failed.
    case handshakeFailed(HandshakeFailure)
}
