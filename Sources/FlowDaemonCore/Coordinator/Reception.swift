/// What the coordinator made of one message: what it sends, and the connection to cut when the message came from
/// one that may not speak under the id it used.
public struct Reception: Sendable {
    /// The messages to send, in order.
    public var messages: [Outgoing]
    /// With CURVE, a connection that spoke under an id not its key's; over WebSocket, one whose token a reload
    /// withdrew (``Impostor/unknownID``). The server cuts it once its refusal is out.
    public var impostor: Impostor?
}

/// A connection that spoke under an id that is not its own.
public enum Impostor: Sendable, Hashable {
    /// Under another key's id: the id the speaking key is authorized for (that key is refused a while).
    case key(String)
    /// Under an id no key (or no token) is authorized for (a client set up with the wrong id).
    case unknownID
}
