/// The protocol over WebSocket: how its messages, subscriptions and published messages travel as WebSocket text
/// messages (the specification's "Over WebSocket"). One WebSocket message is one of:
///
/// - a protocol message, both ways: its four frames joined by line feeds, `FLOWBUS/1\nSTEP\n{header}\n{body}` (the
///   first three frames hold no line feed; the body is everything after the third);
/// - a subscription, from a peer: `SUBSCRIBE\n<topic>` or `UNSUBSCRIBE\n<topic>` (the topic is everything after the
///   first line feed, and may be empty: every topic);
/// - a published message, from flowd: `PUBLISH\n<topic>\n` and then the message's four frames as above.
public enum WebSocketText {
    /// The subprotocol a client asks for in its handshake (`Sec-WebSocket-Protocol`), and flowd answers with.
    public static let subprotocol = "flowbus.v1"
    /// The path of the endpoint: `ws://HOST:PORT/flowbus?id=<the peer's id>`.
    public static let path = "/flowbus"
    /// How a subprotocol entry carries a token, for clients that cannot set an `Authorization` header (browsers):
    /// `flowbus.token.<token>`.
    public static let tokenSubprotocolPrefix = "flowbus.token."

    /// What a peer sent in one WebSocket message.
    public enum Inbound: Sendable, Equatable {
        /// A protocol message, as its frames (a message that is none, such as `hello`, is one frame: the daemon
        /// answers it `notFlowBus`, as on a control socket).
        case message([[UInt8]])
        /// A subscription to a topic prefix.
        case subscribe([UInt8])
        /// The end of a subscription.
        case unsubscribe([UInt8])
    }

    private static let subscribeLine = Array("SUBSCRIBE".utf8)
    private static let unsubscribeLine = Array("UNSUBSCRIBE".utf8)
    private static let publishLine = Array("PUBLISH\n".utf8)
    private static let lineFeed = UInt8(ascii: "\n")

    /// Reads one WebSocket text message from a peer.
    /// - Parameter text: the message's bytes.
    public static func inbound(_ text: some Collection<UInt8>) -> Inbound {
        let bytes = Array(text)
        guard let firstBreak = bytes.firstIndex(of: lineFeed) else {
            return .message([bytes])
        }
        let first = bytes[..<firstBreak]
        if first.elementsEqual(subscribeLine) {
            return .subscribe(Array(bytes[(firstBreak + 1)...]))
        }
        if first.elementsEqual(unsubscribeLine) {
            return .unsubscribe(Array(bytes[(firstBreak + 1)...]))
        }
        return .message(frames(of: bytes[...]))
    }

    /// Splits a message's text into its frames: up to the third line feed, a frame per line; the rest is the last.
    static func frames(of text: ArraySlice<UInt8>) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        frames.reserveCapacity(4)
        var start = text.startIndex
        while frames.count < 3, let lineEnd = text[start...].firstIndex(of: lineFeed) {
            frames.append(Array(text[start..<lineEnd]))
            start = lineEnd + 1
        }
        frames.append(Array(text[start...]))
        return frames
    }

    /// The text of a protocol message: its frames joined by line feeds.
    /// - Parameter frames: the message's four frames.
    public static func message(_ frames: [[UInt8]]) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(frames.reduce(frames.count) { $0 + $1.count })
        append(frames, to: &text)
        return text
    }

    /// The text of a published message: `PUBLISH`, its topic, then its frames, a line each.
    /// - Parameters:
    ///   - topic: the topic it is published on.
    ///   - frames: the message's four frames.
    public static func published(topic: some Collection<UInt8>, _ frames: [[UInt8]]) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(publishLine.count + topic.count + 1 + frames.reduce(frames.count) { $0 + $1.count })
        text += publishLine
        text += topic
        text.append(lineFeed)
        append(frames, to: &text)
        return text
    }

    /// The text of a subscription (`subscribed`) or of its end, as a client sends it.
    /// - Parameters:
    ///   - topic: the topic prefix.
    ///   - subscribed: a subscription, or its end.
    public static func subscription(_ topic: some Collection<UInt8>, subscribed: Bool = true) -> [UInt8] {
        (subscribed ? subscribeLine : unsubscribeLine) + [lineFeed] + topic
    }

    private static func append(_ frames: [[UInt8]], to text: inout [UInt8]) {
        for (index, frame) in frames.enumerated() {
            if index > 0 {
                text.append(lineFeed)
            }
            text += frame
        }
    }
}
