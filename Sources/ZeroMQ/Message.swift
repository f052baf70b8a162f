/// A multipart ZeroMQ message: one or more frames of bytes, delivered all together or not at all.
public struct Message: Sendable, Hashable {
    /// The frames, in order.
    public var frames: [[UInt8]]
    /// On a CURVE server socket, the user id that the ZAP handler gave the sending peer; `nil` otherwise.
    public var userID: String?
    /// Where the sending peer connects from, on a socket that captures it (``Socket/capturesPeerAddress``): its IP
    /// address over tcp, `:uid:gid:pid` over ipc; `nil` otherwise.
    public var peerAddress: String?
    /// The file descriptor of the connection the message came in on, on a socket that captures it
    /// (``Socket/capturesSourceDescriptor``); `nil` otherwise. libzmq owns it: shut it down to end the connection,
    /// never close it.
    public var sourceDescriptor: Int32?

    /// Creates a message from frames of bytes.
    public init(
        _ frames: [[UInt8]],
        userID: String? = nil,
        peerAddress: String? = nil,
        sourceDescriptor: Int32? = nil
    ) {
        self.frames = frames
        self.userID = userID
        self.peerAddress = peerAddress
        self.sourceDescriptor = sourceDescriptor
    }

    /// Creates a message whose frames are the UTF-8 bytes of these strings.
    public init(strings: [String]) {
        self.init(strings.map { Array($0.utf8) })
    }

    /// The frames decoded as UTF-8 text (invalid sequences repaired), for logs and tests.
    public var strings: [String] {
        frames.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The number of frames.
    public var count: Int { frames.count }

    /// The frame at `index`.
    public subscript(index: Int) -> [UInt8] {
        get { frames[index] }
        set { frames[index] = newValue }
    }
}
