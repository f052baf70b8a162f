/// A message the daemon sends: to one peer on the control socket, or published on the events socket.
public enum Outgoing: Sendable, Hashable {
    /// To the peer with this routing id: the four frames of a message.
    case toPeer(String, [[UInt8]])
    /// On the events socket: the topic frame, then the four frames of a message.
    case publish(topic: String, [[UInt8]])

    /// The frames to send.
    public var frames: [[UInt8]] {
        switch self {
        case .toPeer(let peer, let frames): [Array(peer.utf8)] + frames
        case .publish(let topic, let frames): [Array(topic.utf8)] + frames
        }
    }
}
