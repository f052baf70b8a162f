import FlowCore

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

extension Outgoing {
    /// The session its header names, if any: read back from the header frame (only when an instance of a fleet
    /// must hold back what concerns sessions it lost).
    package var session: String? {
        let frames: [[UInt8]]
        switch self {
        case .toPeer(_, let message): frames = message
        case .publish(_, let message): frames = message
        }
        guard frames.count == 4, let header = try? JSONValue(parsing: frames[2], maximumDepth: 4),
            case .string(let session)? = header.objectValue?["session"]
        else { return nil }
        return session
    }
}
