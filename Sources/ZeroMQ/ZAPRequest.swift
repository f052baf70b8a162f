/// A ZAP authentication request (RFC 27/ZAP): a peer is completing its handshake with a socket that has a
/// ZAP domain, and the handler decides whether it may talk.
public struct ZAPRequest: Sendable, Hashable {
    /// The server socket's ZAP domain.
    public let domain: String
    /// The peer's address: its IP address over tcp (`127.0.0.1`), `localhost:uid:gid:pid` over ipc.
    public let address: String
    /// The routing id of the *server* socket (libzmq 4.3 sends its own socket's, not the peer's), usually empty.
    public let routingID: [UInt8]
    /// The security mechanism: `NULL`, `PLAIN` or `CURVE`.
    public let mechanism: String
    /// For CURVE, the client's long-term public key.
    public let clientKey: CurveKey?

    /// Creates a request; the handler parses these from the wire.
    public init(domain: String, address: String, routingID: [UInt8], mechanism: String, clientKey: CurveKey?) {
        self.domain = domain
        self.address = address
        self.routingID = routingID
        self.mechanism = mechanism
        self.clientKey = clientKey
    }
}

/// What a ZAP handler answers.
public enum ZAPDecision: Sendable, Hashable {
    /// Let the peer in; every message it sends carries `userID` (see ``Message/userID``).
    case allow(userID: String)
    /// Refuse the handshake; the peer sees an authentication failure (status 400) and no message of it arrives.
    case deny(reason: String)
}
